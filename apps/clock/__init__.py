"""The correspondence clock: days used and charged, days left, losses on time, leave, silence.

Pure Python (no Django), deterministic and typed, usable from a script:

>>> from datetime import UTC, datetime
>>> from apps.clock import GameTimes, MovesInDays, clock_report
>>> game = GameTimes(datetime(2027, 1, 1, tzinfo=UTC), (datetime(2027, 1, 2, 6, tzinfo=UTC),))
>>> report = clock_report(MovesInDays(), game, now=datetime(2027, 1, 3, tzinfo=UTC))
>>> report.moves[0].days_used, report.white.days_left, report.black.days_left
(1, 49, 50)

The parts, one module each:

* :mod:`~apps.clock.side` — the two sides, and whose move a ply is;
* :mod:`~apps.clock.controls` — the time controls (N moves in D days, Fischer) and doubling;
* :mod:`~apps.clock.leave` — leave periods and the check of a leave request;
* :mod:`~apps.clock.reflection` — reflection time, which stops during leave;
* :mod:`~apps.clock.game` — a game's start, moves and leave;
* :mod:`~apps.clock.engine` — the clock report: each move, each player, the loss on time;
* :mod:`~apps.clock.silence` — days without a move, reminders and the loss by silence;
* :mod:`~apps.clock.files` — the ``cc_clock`` file and its report as JSON.

The rules, and what was decided where they are silent: docs/clock.md.
"""

from .controls import Fischer, MovesInDays, TimeControl, charged_days, days_to_exceed
from .engine import ClockReport, MoveReport, PlayerClock, TimeLoss, clock_report
from .game import GameTimes
from .leave import Leave, LeaveAllowance, LeaveProblem, LeaveRefusal, check_leave
from .reflection import DAY, Pauses, days_in
from .side import Side, own_move_number
from .silence import SILENCE_DAYS, Reminder, SilenceReport, silence_report, silence_since

__all__ = [
    "DAY",
    "SILENCE_DAYS",
    "ClockReport",
    "Fischer",
    "GameTimes",
    "Leave",
    "LeaveAllowance",
    "LeaveProblem",
    "LeaveRefusal",
    "MoveReport",
    "MovesInDays",
    "Pauses",
    "PlayerClock",
    "Reminder",
    "Side",
    "SilenceReport",
    "TimeControl",
    "TimeLoss",
    "charged_days",
    "check_leave",
    "clock_report",
    "days_in",
    "days_to_exceed",
    "own_move_number",
    "silence_report",
    "silence_since",
]
