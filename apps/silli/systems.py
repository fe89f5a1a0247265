"""Pairing systems: how the groups of a stage are paired, one class per stage format.

A stage's format (``DrawSettings.format``; ``Stage.format`` on the Django side) is the name of
a pairing system in :data:`SYSTEMS`. The draw (:func:`~apps.silli.draw.draw_group`), the
verifier (:mod:`~apps.silli.verify`) and the standings (games per player) ask the system for
what differs between formats; none of them compares the format string.

* :class:`SilliSystem` (``"silli"``): the closed circle of a formula, seated so that no
  forbidden pair meets (:mod:`~apps.silli.formula`, :mod:`~apps.silli.seating`);
* :class:`RoundRobinSystem` (``"round_robin"``): seats by lot and FIDE Berger tables, single
  or double (:mod:`~apps.silli.roundrobin`);
* :class:`~apps.silli.swiss_system.SwissSystem` (``"swiss"``): the whole stage is one group,
  seated in the initial order; the draw pairs round 1 with the Dutch engine
  (:mod:`~apps.silli.swiss`), ``apps/office`` the later rounds from the results.

**Adding a system** (e.g. a Swiss system, paired round by round):

1. implement :class:`PairingSystem` — a class with ``name``, ``closed_circle``, ``one_group``
   and the methods ``draw_group``, ``expected_games`` and ``games_per_player`` — in this
   module or in a module of its own in this package (pure Python, like the rest of the
   engine);
2. register an instance in :data:`SYSTEMS` under its name;
3. add the same name as a choice of ``Stage.Format`` in ``apps/stages/models.py`` (with its
   migration); ``tests/silli/test_systems.py`` checks that the choices and the registry agree.

Settings of its own (a Swiss system's number of rounds) go on ``DrawSettings`` and ``Stage``,
and work done round by round after the draw in ``apps/office`` (README, "Where a new thing
goes").
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from .circle import circle_games, independence_bound
from .entrants import Entrant
from .formats import Format
from .formula import (
    FormulaChoice,
    NoFormulaError,
    certificate,
    check_given,
    choose_formula,
    formula_text,
    greedy_formula,
    is_valid,
    search_formula,
    valid_formulas,
)
from .records import DrawError, Game, GroupDraw, Seat
from .rng import ChanceStream
from .roundrobin import round_robin_games
from .seating import Conflict, forbidden_reason, seat_circle
from .swiss_system import SWISS as SWISS
from .swiss_system import SwissSystem

if TYPE_CHECKING:
    from .draw import DrawSettings

SILLI = Format.SILLI
ROUND_ROBIN = Format.ROUND_ROBIN
WIDE_TRIED = 2
ATTEMPTS_PER_FORMULA = 2


class GameSettings(Protocol):
    """What the number of games per player may depend on besides the group's size.

    A :class:`~apps.silli.draw.DrawSettings` has these, and so has a ``Stage`` on the Django
    side (``apps.standings`` passes the stage itself).
    """

    @property
    def games_per_player(self) -> int: ...

    @property
    def double_round_robin(self) -> bool: ...

    @property
    def swiss_rounds(self) -> int | None: ...


class ExpectedGames(NamedTuple):
    """What a published group must hold, worked out from its size and its own record."""

    games: list[tuple[int, int]]
    """Every game as (white seat, black seat), in the order DRAW.json lists them."""
    problems: list[str]
    """What is wrong with the group's own record (e.g. its formula), each without the
    ``group N:`` the verifier puts in front."""


class PairingSystem(Protocol):
    """How the groups of a stage are paired (see the module docstring)."""

    name: Format
    """The key in :data:`SYSTEMS`, the value of ``DrawSettings.format`` and of a
    ``Stage.Format`` choice."""

    closed_circle: bool
    """True when a group is a closed circle of a formula (Silli's principles apply): the
    verifier then checks that every player has as many White as Black games and that, of the
    forbidden pairs the certificate lists, only same-nation games meet, within the allowance.
    False (a round robin: every pair meets) accepts every listed forbidden pair. The formula
    itself and the principles on it are checked by :meth:`expected_games`."""

    one_group: bool
    """True when the whole stage is one group, whatever its smallest group size (a Swiss);
    False when the division makes groups of at least ``min_group_size``."""

    def draw_group(
        self,
        number: int,
        members: Sequence[Entrant],
        settings: DrawSettings,
        seed: str,
        rematches: Mapping[str, frozenset[str]],
    ) -> GroupDraw:
        """Seat group ``number`` and list its games (engine step 2).

        ``members`` come in code order; ``rematches`` maps an entrant to those it may not meet
        again (empty when rematches are allowed). All chance comes from streams labelled
        ``group/<number>/...`` of ``seed``. A group that cannot be drawn raises
        :class:`~apps.silli.records.DrawError` naming the group and the reason.
        """
        ...

    def expected_games(
        self, size: int, group: Mapping[str, Any], settings: DrawSettings
    ) -> ExpectedGames:
        """The verifier's hook: the games a published group of ``size`` seats must contain,
        from the settings and the group's record in DRAW.json (``group``, e.g. its
        formula), with what is wrong with that record."""
        ...

    def games_per_player(self, size: int, settings: GameSettings) -> int:
        """How many games each player of a group of ``size`` seats plays (T of the
        standings)."""
        ...


class SilliSystem:
    """Silli's closed circle: a formula's games on a circle seated by the seating search."""

    name = SILLI
    closed_circle = True
    one_group = False

    def draw_group(
        self,
        number: int,
        members: Sequence[Entrant],
        settings: DrawSettings,
        seed: str,
        rematches: Mapping[str, frozenset[str]],
    ) -> GroupDraw:
        n = len(members)
        try:
            if settings.formula:
                first = check_given(n, settings.games_per_player, settings.formula)
            else:
                first = choose_formula(n, settings.games_per_player, odd=settings.odd)
        except NoFormulaError as exc:
            raise DrawError(f"Group {number} ({n} seats): {exc}", group=number) from exc

        largest = max(Counter(e.nation for e in members).values())
        tried: list[tuple[int, ...]] = []
        for choice in _candidates(first, settings, largest):
            tried.append(choice.formula)
            hopeless = (
                largest > independence_bound(n, choice.formula) + settings.allowed_nation_games
            )
            if settings.separate_nations and hopeless:
                continue
            for attempt in range(ATTEMPTS_PER_FORMULA):
                label = f"group/{number}/seating/{formula_text(choice.formula)}/{attempt}"
                seated = seat_circle(
                    members,
                    choice.formula,
                    ChanceStream(seed, label),
                    separate_nations=settings.separate_nations,
                    met_before=rematches,
                    allowed_nation_games=settings.allowed_nation_games,
                )
                if seated is not None:
                    return _circle_group(number, seated, choice, settings, rematches)
        raise _seating_error(number, members, settings, tried, rematches)

    def expected_games(
        self, size: int, group: Mapping[str, Any], settings: DrawSettings
    ) -> ExpectedGames:
        problems: list[str] = []
        formula = tuple(group.get("formula") or ())
        cert = certificate(size, formula)
        if not cert.valid:
            problems.append(
                f"formula {formula} breaks the principles on {size} seats, "
                f"e.g. {cert.violations[0]}"
            )
        if len(formula) * 2 != settings.games_per_player:
            problems.append(f"formula {formula} does not give {settings.games_per_player} games")
        return ExpectedGames(circle_games(size, formula), problems)

    def games_per_player(self, size: int, settings: GameSettings) -> int:
        return settings.games_per_player


class RoundRobinSystem:
    """A round robin by Berger tables, single or double; every pair meets."""

    name = ROUND_ROBIN
    closed_circle = False
    one_group = False

    def draw_group(
        self,
        number: int,
        members: Sequence[Entrant],
        settings: DrawSettings,
        seed: str,
        rematches: Mapping[str, frozenset[str]],
    ) -> GroupDraw:
        """A round robin: seats by lot; every pair meets, so conflicts are only listed."""
        seated = list(members)
        ChanceStream(seed, f"group/{number}/seating/round-robin").shuffle(seated)
        seats = tuple(Seat(i + 1, e.code, e.nation) for i, e in enumerate(seated))
        games, conflicts = [], []
        for rnd, w, b in round_robin_games(len(seated), double=settings.double_round_robin):
            white, black = seated[w - 1], seated[b - 1]
            games.append(Game(white.code, black.code, rnd))
            reason = forbidden_reason(white, black, settings.separate_nations, rematches)
            if reason:
                conflicts.append(Conflict(w, b, white.code, black.code, reason))
        return GroupDraw(number, (), "round robin", seats, tuple(games), True, tuple(conflicts))

    def expected_games(
        self, size: int, group: Mapping[str, Any], settings: DrawSettings
    ) -> ExpectedGames:
        games = round_robin_games(size, double=settings.double_round_robin)
        return ExpectedGames([(w, b) for _, w, b in games], [])

    def games_per_player(self, size: int, settings: GameSettings) -> int:
        return (size - 1) * (2 if settings.double_round_robin else 1)


SYSTEMS: dict[str, PairingSystem] = {
    s.name: s for s in (SilliSystem(), RoundRobinSystem(), SwissSystem())
}
"""Every pairing system by name; the names are the values of ``Stage.Format``."""


def pairing_system(name: str) -> PairingSystem:
    """The pairing system called ``name``; a ValueError names the known ones otherwise."""
    try:
        return SYSTEMS[name]
    except KeyError:
        known = ", ".join(SYSTEMS)
        raise ValueError(f"unknown pairing system {name!r}; use one of {known}") from None


# ---------------------------------------------------------------------------
# Inside a Silli group
# ---------------------------------------------------------------------------


def _candidates(
    first: FormulaChoice, settings: DrawSettings, largest: int
) -> Iterable[FormulaChoice]:
    """Formulas to try, in order.

    The chosen one; then, when nations must be kept apart and the organizer
    gave no formula, the all-odd family (which keeps a whole parity class apart
    on an even circle) and the first *wide* formulas: valid formulas whose
    numbers are all at least the largest nation's count, so that that many
    consecutive seats never meet.
    """
    yield first
    if settings.formula or not settings.separate_nations:
        return
    n, games, k = first.n, first.games, first.k
    if largest > n // 2:
        return
    seen = {first.formula}
    odd_family = [
        ("all-odd natural", greedy_formula(k, odd=True)),
        ("all-odd reserve", greedy_formula(k, odd=True, reserve=True)),
        ("all-odd searched", search_formula(n, k, True)),
    ]
    for rule, formula in odd_family:
        if formula and formula not in seen and is_valid(n, formula):
            seen.add(formula)
            yield FormulaChoice(n, games, formula, rule, True)
    for formula in itertools.islice(valid_formulas(n, k, smallest=largest), WIDE_TRIED):
        if formula not in seen:
            seen.add(formula)
            yield FormulaChoice(n, games, formula, "wide", all(d % 2 for d in formula))


def _circle_group(
    number: int,
    seated: Sequence[Entrant],
    choice: FormulaChoice,
    settings: DrawSettings,
    rematches: Mapping[str, frozenset[str]],
) -> GroupDraw:
    n = len(seated)
    seats = tuple(Seat(i + 1, e.code, e.nation) for i, e in enumerate(seated))
    games = []
    conflicts = []
    nations = [e.nation for e in seated]
    persons = Counter(e.person for e in seated)
    suspects = {i for i, e in enumerate(seated) if e.code in rematches or persons[e.person] > 1}
    for w, b in circle_games(n, choice.formula):
        white, black = seated[w - 1], seated[b - 1]
        games.append(Game(white.code, black.code))
        if nations[w - 1] == nations[b - 1] or w - 1 in suspects or b - 1 in suspects:
            reason = forbidden_reason(white, black, settings.separate_nations, rematches)
            if reason:
                conflicts.append(Conflict(w, b, white.code, black.code, reason))
    return GroupDraw(
        number=number,
        formula=choice.formula,
        rule=choice.rule,
        seats=seats,
        games=tuple(games),
        principles_hold=certificate(n, choice.formula).valid,
        conflicts=tuple(conflicts),
    )


def _seating_error(
    number: int,
    members: Sequence[Entrant],
    settings: DrawSettings,
    tried: Sequence[tuple[int, ...]],
    rematches: Mapping[str, frozenset[str]],
) -> DrawError:
    n = len(members)
    games = settings.games_per_player
    nations = Counter(e.nation for e in members)
    nation, count = min(nations.items(), key=lambda kv: (-kv[1], kv[0]))
    bound = max(independence_bound(n, f) for f in tried)
    names = ", ".join(formula_text(f) for f in tried)
    where = f"Group {number} ({n} seats, {games} games per player)"
    # Beyond a bound no seed helps: every group of another division holds as many of the
    # nation, give or take one (docs/silli.md §7).
    beyond = settings.separate_nations and (count > n // 2 or count > bound)
    advice = (
        "allow some same-nation games for this group, change the number of games, "
        "or change the group size"
    )
    if settings.separate_nations and count > n // 2:
        message = (
            f"{where}: nation {nation} has {count} entrants, more than the {n // 2} "
            f"(half the circle) that any closed circle of {n} seats can keep apart; {advice}."
        )
        bound = n // 2
    elif settings.separate_nations and count > bound:
        message = (
            f"{where}: nation {nation} has {count} entrants, more than the bound of {bound} "
            f"players who never meet for every formula tried ({names}); {advice}."
        )
    elif settings.separate_nations and count >= 2:
        message = (
            f"{where}: no seating keeps the {count} entrants of nation {nation} apart "
            f"together with the other constraints (formulas tried: {names}; bound {bound}); "
            f"{advice}."
        )
    else:
        pairs = sum(1 for e in members for c in rematches.get(e.code, ()) if c > e.code)
        message = (
            f"{where}: the {pairs} pair(s) who met before (and entries of one person) "
            f"could not all be kept apart (formulas tried: {names})."
        )
        nation, count = None, None  # type: ignore[assignment]
    return DrawError(
        message, group=number, nation=nation, count=count, bound=bound, seed_independent=beyond
    )
