"""The formats the lab plays, and one simulated tournament of each.

* :class:`SilliFormat` — a Silli stage: the field divided into groups of at least
  ``group_size`` by the product's division (:func:`apps.silli.draw.divide_stage`), each group
  drawn by the product's Silli system (:func:`apps.silli.draw.draw_group`: formula and
  seating), ``games`` games per player;
* :class:`RoundRobinFormat` — the same division, each group a Berger round robin (single or
  double) drawn by the product's round-robin system;
* :class:`SwissFormat` — the whole field in one Swiss tournament of ``rounds`` rounds, with
  acceleration none, Baku or general, paired by the fast approximation or the exact Dutch
  engine (:mod:`.swiss`).

Tournament ``i`` of a run with seed ``S`` draws its groups with the seed ``f"{S}/{i}"``, and
its players' form, then its results, from ``results_rng(S, f"lab/{i}/results")``: a
tournament depends only on the seed and its index, so a run can be split over processes and
still repeat exactly. In a group the games take the generator's numbers in the order the draw
lists them. In a Swiss each round first takes one number per player (in rating order) and a
game uses the number of its higher rated player: the same player in the same round of the
same tournament gets the same number (and has the same form) whatever the pairing, so two
pairing engines compared on one seed differ by their pairings, not by luck (common random
numbers).

The *rounds* of a format, which the per-round measures use: a Swiss round; a round of the
Berger table; in a Silli group (all games at once, as in correspondence chess) the games of
one distance of the formula (each player has one White and one Black game per distance).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar, Literal, cast

from ...scoring.qualification import Rule, RuleSpec
from ..draw import DrawSettings, divide_stage, draw_group
from ..entrants import Entrant
from ..formats import Format
from ..swiss.acceleration import Acceleration
from .fields import Field
from .results import FORM_SD, play_game, results_rng, strengths
from .swiss import EXACT, FAST, ExactSwiss, SwissState, pair_fast

TIEBREAKS = ("torino", "buchholz", "swiss")
Tiebreak = Literal["torino", "buchholz", "swiss"]
Uniform = Callable[[], float]
"""What draws a game's uniform number in [0, 1) (``random.Random.random``)."""


class FormatError(ValueError):
    """Format settings that cannot be played; the message says why."""


@dataclass(frozen=True, slots=True)
class SilliFormat:
    kind: ClassVar[Format] = Format.SILLI
    group_size: int = 100
    games: int = 10
    balance_ratings: bool = False
    tiebreak: Tiebreak = "torino"

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise FormatError("the group size must be at least 2")
        if self.games < 2 or self.games % 2:
            raise FormatError("a Silli group needs an even number of games per player, at least 2")

    def draw_settings(self, fld: Field) -> DrawSettings:
        """The product's draw settings for this format on ``fld``."""
        return DrawSettings(
            games_per_player=self.games,
            format=self.kind,
            min_group_size=self.group_size,
            separate_nations=fld.nations > 1,
            avoid_rematches=False,
            balance_ratings=self.balance_ratings,
        )

    def divide(self, fld: Field, seed: str) -> list[list[Entrant]]:
        """The groups the product's division makes of ``fld`` with ``seed`` (engine step 1);
        a ValueError says why it cannot divide them."""
        return divide_stage([p.entrant for p in fld.players], self.draw_settings(fld), seed)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.kind.value,
            "tiebreak": self.tiebreak,
            "group_size": self.group_size,
            "games": self.games,
            "balance_ratings": self.balance_ratings,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> SilliFormat:
        return cls(
            group_size=cast(int, data["group_size"]),
            games=cast(int, data["games"]),
            balance_ratings=cast(bool, data["balance_ratings"]),
            tiebreak=cast(Tiebreak, data["tiebreak"]),
        )


@dataclass(frozen=True, slots=True)
class RoundRobinFormat:
    kind: ClassVar[Format] = Format.ROUND_ROBIN
    group_size: int = 12
    double: bool = False
    tiebreak: Tiebreak = "torino"

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise FormatError("the group size must be at least 2")

    def draw_settings(self, fld: Field) -> DrawSettings:
        """The product's draw settings for this format on ``fld`` (a round robin's games per
        player come from its groups' sizes: the setting is left at its default)."""
        return DrawSettings(
            format=self.kind,
            min_group_size=self.group_size,
            separate_nations=fld.nations > 1,
            avoid_rematches=False,
            double_round_robin=self.double,
        )

    def divide(self, fld: Field, seed: str) -> list[list[Entrant]]:
        """As :meth:`SilliFormat.divide`."""
        return divide_stage([p.entrant for p in fld.players], self.draw_settings(fld), seed)

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.kind.value,
            "tiebreak": self.tiebreak,
            "group_size": self.group_size,
            "double": self.double,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> RoundRobinFormat:
        return cls(
            group_size=cast(int, data["group_size"]),
            double=cast(bool, data["double"]),
            tiebreak=cast(Tiebreak, data["tiebreak"]),
        )


@dataclass(frozen=True, slots=True)
class SwissFormat:
    kind: ClassVar[Format] = Format.SWISS
    rounds: int = 9
    acceleration: Acceleration = Acceleration.NONE
    engine: str = FAST
    tiebreak: Tiebreak = "buchholz"

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise FormatError("a Swiss needs at least one round")
        if self.engine not in (FAST, EXACT):
            raise FormatError(f"unknown Swiss engine {self.engine!r}; use fast or exact")

    def divide(self, fld: Field, seed: str) -> list[list[Entrant]]:
        """The whole field is one group."""
        return [[p.entrant for p in fld.players]]

    def to_json(self) -> dict[str, object]:
        return {
            "name": self.kind.value,
            "tiebreak": self.tiebreak,
            "rounds": self.rounds,
            "engine": self.engine,
            "acceleration": self.acceleration.value,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> SwissFormat:
        return cls(
            rounds=cast(int, data["rounds"]),
            acceleration=Acceleration(data["acceleration"]),
            engine=cast(str, data["engine"]),
            tiebreak=cast(Tiebreak, data["tiebreak"]),
        )


LabFormat = SilliFormat | RoundRobinFormat | SwissFormat
"""A format the lab plays, with its settings."""

LAB_FORMATS: dict[Format, type[LabFormat]] = {
    f.kind: f for f in (SilliFormat, RoundRobinFormat, SwissFormat)
}
"""Each kind of format's class in the lab."""


def format_from_json(data: Mapping[str, object]) -> LabFormat:
    """A format from its ``to_json()`` (the ``format`` of a stored report)."""
    return LAB_FORMATS[Format(str(data["name"]))].from_json(data)


@dataclass(frozen=True, slots=True)
class Qualification:
    """Who goes on: the first ``value`` (a count, or a percentage when ``relative``) of each
    group (``per_group``) or of the unified ranking, by the product's rules
    (:func:`apps.scoring.qualification.qualify`)."""

    value: Fraction
    relative: bool = False
    per_group: bool = True

    @property
    def spec(self) -> RuleSpec:
        rule = Rule.TOP_PER_GROUP if self.per_group else Rule.TOP_OVERALL
        return RuleSpec(rule, self.value, relative=self.relative)

    @property
    def text(self) -> str:
        value = f"{self.value}%" if self.relative else str(self.value)
        return f"{'top' if self.per_group else 'overall'}:{value}"


def parse_qualification(text: str) -> Qualification:
    """``top:K`` / ``top:P%`` (per group) or ``overall:K`` / ``overall:P%``."""
    kind, _, value = text.strip().partition(":")
    if kind not in ("top", "overall") or not value:
        raise FormatError(f"unknown qualification {text!r}; use top:K, top:P%, overall:K …")
    relative = value.endswith("%")
    try:
        number = Fraction(value.rstrip("%"))
    except ValueError:
        raise FormatError(f"qualification {text!r}: {value!r} is not a number") from None
    try:
        spec = Qualification(number, relative, kind == "top")
        spec.spec  # noqa: B018  (validates through RuleSpec)
    except ValueError as exc:
        raise FormatError(f"qualification {text!r}: {exc}") from None
    return spec


@dataclass
class Played:
    """One simulated tournament, players as field indices (0 = highest rated)."""

    groups: list[list[int]]
    """Members of each group (a Swiss is one group)."""
    games_per_player: list[int]
    """T of each group."""
    games: list[tuple[int, int, int, int]] = field(default_factory=list)
    """(round, white, black, White's score in half-points); rounds count from 1."""
    byes: list[tuple[int, int]] = field(default_factory=list)
    """(round, player) of each pairing-allocated bye (a win's points, no game)."""
    rounds: int = 0
    chronological: bool = True
    """Whether the rounds are played one after another (not Silli's distances)."""


def tournament_seed(seed: str, index: int) -> str:
    return f"{seed}/{index}"


def play(fld: Field, fmt: LabFormat, seed: str, index: int, form_sd: float = FORM_SD) -> Played:
    """Tournament ``index`` of a run with ``seed``; the players' form has the standard
    deviation ``form_sd`` (:mod:`.results`)."""
    chance = results_rng(seed, f"lab/{index}/results")
    strength = strengths(fld.ratings, form_sd, chance.random)
    if isinstance(fmt, SwissFormat):
        return _play_swiss(fld.ratings, strength, fmt, chance.random)
    return _play_groups(fld, strength, fmt, tournament_seed(seed, index), chance.random)


def _play_groups(
    fld: Field,
    strength: list[float],
    fmt: SilliFormat | RoundRobinFormat,
    seed: str,
    uniform: Uniform,
) -> Played:
    silli = isinstance(fmt, SilliFormat)
    settings = fmt.draw_settings(fld)
    index = {p.entrant.code: i for i, p in enumerate(fld.players)}
    played = Played([], [], chronological=not silli)
    for number, members in enumerate(fmt.divide(fld, seed), start=1):
        group = draw_group(number, members, settings, seed, {})
        seat_of = {s.entrant: s.seat for s in group.seats}
        size = group.size
        played.groups.append([index[s.entrant] for s in group.seats])
        if silli:
            played.games_per_player.append(2 * len(group.formula))
            distance = {d: k + 1 for k, d in enumerate(group.formula)}
            played.rounds = max(played.rounds, len(group.formula))
        else:
            played.games_per_player.append((size - 1) * (2 if settings.double_round_robin else 1))
        for game in group.games:
            white, black = index[game.white], index[game.black]
            if silli:
                round_number = distance[(seat_of[game.black] - seat_of[game.white]) % size]
            else:
                assert game.round is not None  # a round robin's games carry their round
                round_number = game.round
                played.rounds = max(played.rounds, round_number)
            result = play_game(strength[white], strength[black], uniform())
            played.games.append((round_number, white, black, result))
    return played


def _play_swiss(
    ratings: list[int], strength: list[float], fmt: SwissFormat, uniform: Uniform
) -> Played:
    state = SwissState(ratings, fmt.rounds, fmt.acceleration)
    exact = ExactSwiss(state) if fmt.engine == EXACT else None
    played = Played([list(range(len(ratings)))], [fmt.rounds], rounds=fmt.rounds)
    for round_number in range(1, fmt.rounds + 1):
        pairing = exact.pair(round_number) if exact else pair_fast(state, round_number)
        draws = [uniform() for _ in ratings]
        for white, black in pairing.pairs:
            result = play_game(strength[white], strength[black], draws[min(white, black)])
            state.record(white, black, result)
            if exact:
                exact.record(white, black, result)
            played.games.append((round_number, white, black, result))
        if pairing.bye is not None:
            state.record_bye(pairing.bye)
            if exact:
                exact.record_bye(pairing.bye)
            played.byes.append((round_number, pairing.bye))
    return played
