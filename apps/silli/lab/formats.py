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

from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from ...scoring.qualification import Rule, RuleSpec
from ..draw import ROUND_ROBIN, SILLI, DrawSettings, divide_stage, draw_group
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
    group_size: int = 100
    games: int = 10
    balance_ratings: bool = False
    tiebreak: Tiebreak = "torino"
    name: str = "silli"

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise FormatError("the group size must be at least 2")
        if self.games < 2 or self.games % 2:
            raise FormatError("a Silli group needs an even number of games per player, at least 2")


@dataclass(frozen=True, slots=True)
class RoundRobinFormat:
    group_size: int = 12
    double: bool = False
    tiebreak: Tiebreak = "torino"
    name: str = "round_robin"

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise FormatError("the group size must be at least 2")


@dataclass(frozen=True, slots=True)
class SwissFormat:
    rounds: int = 9
    acceleration: Acceleration = Acceleration.NONE
    engine: str = FAST
    tiebreak: Tiebreak = "buchholz"
    name: str = "swiss"

    def __post_init__(self) -> None:
        if self.rounds < 1:
            raise FormatError("a Swiss needs at least one round")
        if self.engine not in (FAST, EXACT):
            raise FormatError(f"unknown Swiss engine {self.engine!r}; use fast or exact")


Format = SilliFormat | RoundRobinFormat | SwissFormat


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


def play(fld: Field, fmt: Format, seed: str, index: int, form_sd: float = FORM_SD) -> Played:
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
    settings = DrawSettings(
        games_per_player=fmt.games if isinstance(fmt, SilliFormat) else 10,
        format=SILLI if silli else ROUND_ROBIN,
        min_group_size=fmt.group_size,
        separate_nations=fld.nations > 1,
        avoid_rematches=False,
        double_round_robin=isinstance(fmt, RoundRobinFormat) and fmt.double,
        balance_ratings=isinstance(fmt, SilliFormat) and fmt.balance_ratings,
    )
    index = {p.entrant.code: i for i, p in enumerate(fld.players)}
    entrants = [p.entrant for p in fld.players]
    played = Played([], [], chronological=not silli)
    for number, members in enumerate(divide_stage(entrants, settings, seed), start=1):
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
