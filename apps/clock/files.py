"""The ``cc_clock`` file: a game's control, times and leave as JSON, and the report as JSON.

The contract is docs/interfaces.md §8. Reading is strict: a file that is not exactly right is
refused with :class:`ClockFileError`, whose message is one sentence saying what is wrong.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from .controls import DOUBLING_AFTER, Fischer, MovesInDays, TimeControl
from .engine import ClockReport
from .game import GameTimes
from .leave import Leave
from .side import Side


class ClockFileError(ValueError):
    """A ``cc_clock`` file that cannot be used; the message says why."""


@dataclass(frozen=True)
class ClockFile:
    """What a ``cc_clock`` file asks: the clock of ``game`` under ``control`` at ``now``."""

    control: TimeControl
    game: GameTimes
    now: datetime


_KEYS = {"control", "start", "moves", "leave", "now"}
_CONTROL_KEYS: dict[str, dict[str, int | None]] = {
    "moves": {"moves": 10, "days": 50, "doubling_after": DOUBLING_AFTER},
    "fischer": {"base": 30, "increment": 3, "doubling_after": DOUBLING_AFTER},
}


def _object(value: object, where: str, allowed: set[str]) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ClockFileError(f"{where} must be a JSON object")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise ClockFileError(f"{where} has an unknown key {unknown[0]!r}")
    return value


def _required(data: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in data:
        raise ClockFileError(f"{where} has no {key!r}")
    return data[key]


def _instant(value: object, where: str) -> datetime:
    if not isinstance(value, str):
        raise ClockFileError(f"{where} must be an ISO date and time as a string, not {value!r}")
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ClockFileError(f"{where} ({value!r}) is not an ISO date and time") from None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _day(value: object, where: str) -> date:
    if not isinstance(value, str) or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        raise ClockFileError(f"{where} must be a date as YYYY-MM-DD, not {value!r}")
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ClockFileError(f"{where} ({value!r}) is not a date as YYYY-MM-DD") from None


def _control(value: object) -> TimeControl:
    if not isinstance(value, dict):
        raise ClockFileError("'control' must be a JSON object")
    kind = _required(value, "kind", "'control'")
    if not isinstance(kind, str) or kind not in _CONTROL_KEYS:
        raise ClockFileError(f"the control kind {kind!r} is unknown (give 'moves' or 'fischer')")
    defaults = _CONTROL_KEYS[kind]
    data = _object(value, "'control'", {"kind", *defaults})
    numbers = {key: data.get(key, default) for key, default in defaults.items()}
    try:
        return MovesInDays(**numbers) if kind == "moves" else Fischer(**numbers)
    except ValueError as exc:
        raise ClockFileError(f"the control's {exc}") from None


def _leave(value: object) -> dict[Side, list[Leave]]:
    data = _object(value, "'leave'", {side.value for side in Side})
    leave: dict[Side, list[Leave]] = {side: [] for side in Side}
    for side in Side:
        periods = data.get(side.value, [])
        if not isinstance(periods, list):
            raise ClockFileError(f"{side}'s leave must be a list of [first day, last day] pairs")
        for number, period in enumerate(periods, 1):
            where = f"{side}'s leave {number}"
            if not isinstance(period, list) or len(period) != 2:
                raise ClockFileError(f"{where} must be a pair [first day, last day]")
            first, last = _day(period[0], where), _day(period[1], where)
            try:
                leave[side].append(Leave(first, last))
            except ValueError as exc:
                raise ClockFileError(f"{where}: {exc}") from None
    return leave


def parse_clock_file(text: str) -> ClockFile:
    """Read a ``cc_clock`` file (docs/interfaces.md §8)."""
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ClockFileError(f"the file is not JSON ({exc.msg}, line {exc.lineno})") from None
    data = _object(raw, "the file", _KEYS)
    control = _control(_required(data, "control", "the file"))
    start = _instant(_required(data, "start", "the file"), "'start'")
    moves = _required(data, "moves", "the file")
    if not isinstance(moves, list):
        raise ClockFileError("'moves' must be a list of ISO dates and times")
    times = [_instant(moment, f"move {ply}") for ply, moment in enumerate(moves, 1)]
    leave = _leave(data.get("leave", {}))
    now = _instant(_required(data, "now", "the file"), "'now'")
    try:
        game = GameTimes(start, tuple(times), tuple(leave[Side.WHITE]), tuple(leave[Side.BLACK]))
        game.check_now(now)
    except ValueError as exc:
        raise ClockFileError(str(exc)) from None
    return ClockFile(control, game, now)


def report_as_json(report: ClockReport) -> dict[str, object]:
    """The report as the object ``cc_clock`` prints (docs/interfaces.md §8)."""
    return {
        "moves": [
            {
                "ply": move.ply,
                "side": move.side.value,
                "days_used": move.days_used,
                "days_charged": move.days_charged,
            }
            for move in report.moves
        ],
        **{
            side.value: {
                "charged_total": report.clock(side).charged_total,
                "days_left": report.clock(side).days_left,
            }
            for side in Side
        },
        "lost_on_time": report.loss.side.value if report.loss else None,
        "at_ply": report.loss.ply if report.loss else None,
        "lost_at": report.loss.at.isoformat().replace("+00:00", "Z") if report.loss else None,
    }
