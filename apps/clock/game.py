"""What the clock knows of a game: when it started, when each move was made, and the leave."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cached_property

from .leave import Leave
from .reflection import Pauses
from .side import Side


def as_utc(name: str, moment: object) -> datetime:
    """``moment`` in UTC; a datetime without a time zone is refused rather than guessed."""
    if not isinstance(moment, datetime):
        raise ValueError(f"{name} must be a datetime, not {moment!r}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{name} ({moment.isoformat()}) has no time zone; give it in UTC")
    return moment.astimezone(UTC)


@dataclass(frozen=True)
class GameTimes:
    """A game's start, the instants of its moves (White's first move first, alternating) and
    each player's leave. Times are converted to UTC; moves may share an instant (a
    conditional move is played the moment its trigger arrives) but never go back in time.
    """

    start: datetime
    moves: tuple[datetime, ...] = ()
    white_leave: tuple[Leave, ...] = ()
    black_leave: tuple[Leave, ...] = ()
    # Days a TD added to a player's clock (docs/clock.md §7): added to every allowance.
    white_extra_days: int = 0
    black_extra_days: int = 0

    def __post_init__(self) -> None:
        for name in ("white_extra_days", "black_extra_days"):
            extra = getattr(self, name)
            if isinstance(extra, bool) or not isinstance(extra, int) or extra < 0:
                raise ValueError(f"{name} must be a whole number of days, not {extra!r}")
        begun = as_utc("the start", self.start)
        made = tuple(as_utc(f"move {ply}", moment) for ply, moment in enumerate(self.moves, 1))
        before = begun
        for ply, moment in enumerate(made, 1):
            if moment < before:
                earlier = "the start" if ply == 1 else f"move {ply - 1}"
                raise ValueError(
                    f"move {ply} ({moment.isoformat()}) is before {earlier} ({before.isoformat()})"
                )
            before = moment
        object.__setattr__(self, "start", begun)
        object.__setattr__(self, "moves", made)
        white, black = tuple(self.white_leave), tuple(self.black_leave)
        for side, periods in ((Side.WHITE, white), (Side.BLACK, black)):
            for period in periods:
                if not isinstance(period, Leave):
                    raise ValueError(f"{side}'s leave must be Leave periods, not {period!r}")
        object.__setattr__(self, "white_leave", tuple(sorted(white)))
        object.__setattr__(self, "black_leave", tuple(sorted(black)))

    @cached_property
    def pauses(self) -> Pauses:
        """When no clock runs in this game: either player's leave."""
        return Pauses(self.white_leave + self.black_leave)

    @property
    def ply_in_hand(self) -> int:
        """The ply to be made next (1 before White's first move)."""
        return len(self.moves) + 1

    @property
    def side_to_move(self) -> Side:
        """The side whose move is in hand."""
        return Side.of_ply(self.ply_in_hand)

    @property
    def last_move(self) -> datetime:
        """When the last move was made (the start when none was)."""
        return self.moves[-1] if self.moves else self.start

    def leave_of(self, side: Side) -> tuple[Leave, ...]:
        """``side``'s leave, in order."""
        return self.white_leave if side is Side.WHITE else self.black_leave

    def extra_days(self, side: Side) -> int:
        """The days a TD added to ``side``'s clock."""
        return self.white_extra_days if side is Side.WHITE else self.black_extra_days

    def began(self, ply: int) -> datetime:
        """When the reflection for ``ply`` began: the start for ply 1, else the move before."""
        if not 1 <= ply <= self.ply_in_hand:
            raise ValueError(f"ply {ply} is not in the game (1 … {self.ply_in_hand})")
        return self.start if ply == 1 else self.moves[ply - 2]

    def check_now(self, now: datetime) -> datetime:
        """``now`` in UTC, refused if it is before the last move."""
        moment = as_utc("now", now)
        if moment < self.last_move:
            raise ValueError(
                f"now ({moment.isoformat()}) is before the last move ({self.last_move.isoformat()})"
            )
        return moment
