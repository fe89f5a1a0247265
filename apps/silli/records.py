"""What a draw is made of, shared by the draw (:mod:`~apps.silli.draw`) and the pairing
systems (:mod:`~apps.silli.systems`): a group's seats and games as drawn, its nation mix, and
the error of a draw that cannot be made. ``apps.silli.draw`` re-exports every name here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from .seating import Conflict


class DrawError(ValueError):
    """A draw that cannot be made; the message names the group and the reason."""

    def __init__(
        self,
        message: str,
        *,
        group: int | None = None,
        nation: str | None = None,
        count: int | None = None,
        bound: int | None = None,
        seed_independent: bool = False,
    ) -> None:
        super().__init__(message)
        self.group = group
        self.nation = nation
        self.count = count
        self.bound = bound
        self.seed_independent = seed_independent
        """True when no seed can draw it (a nation beyond every formula's bound): the
        settings or the entrants must change, not the seed."""


class Seat(NamedTuple):
    seat: int
    entrant: str
    nation: str


class Game(NamedTuple):
    white: str
    black: str
    round: int | None = None


@dataclass(frozen=True, slots=True)
class GroupDraw:
    """One group as drawn: seats, formula and games, with its certificate."""

    number: int
    formula: tuple[int, ...]
    rule: str
    seats: tuple[Seat, ...]
    games: tuple[Game, ...]
    principles_hold: bool
    conflicts: tuple[Conflict, ...] = ()

    @property
    def size(self) -> int:
        return len(self.seats)

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "number": self.number,
            "size": self.size,
            "formula": list(self.formula),
            "rule": self.rule,
            "certificate": {
                "principles_hold": self.principles_hold,
                "conflicts": [
                    {"white": c.white, "black": c.black, "reason": c.reason} for c in self.conflicts
                ],
            },
            "seats": [
                {"seat": s.seat, "entrant": s.entrant, "nation": s.nation} for s in self.seats
            ],
        }
        if any(g.round is not None for g in self.games):
            data["games"] = [
                {"round": g.round, "white": g.white, "black": g.black} for g in self.games
            ]
        else:
            data["games"] = [{"white": g.white, "black": g.black} for g in self.games]
        return data


def nation_mix(nations: Iterable[str]) -> list[tuple[str, int]]:
    """How many players of each nation a group seats, largest first (ties by nation).

    >>> nation_mix(["ITA", "GER", "ITA", "CZE", "GER", "ITA"])
    [('ITA', 3), ('GER', 2), ('CZE', 1)]
    """
    counts = Counter(nations)
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
