"""Which settings can be drawn, found before the draw: group sizes with a formula, what the
division makes of a number of entrants, and the nearest workable settings when nothing can
be drawn (docs/silli.md §3 and §7).

A closed circle of n seats has a valid formula for G = 2k games only for some n: none below
46 (8 games) or 69 (10 games), none at 47 (8 games) or at 72 and 73 (10 games); from 48 and 74
on, every n has one. :func:`has_formula` knows these sizes (a table for up to 10 games, the
engine's own search for more), :func:`division_sizes` is the division's rule (the most groups
of at least the smallest group size, sizes within one, whose every size can be drawn) and
:func:`feasibility` answers for a whole stage: what the draw will make of N entrants, or why
nothing can be drawn and the nearest settings that can.

Only the closed circle (``silli``) depends on the group sizes here; a round robin takes any
size and a Swiss stage is one group. The seating (nations kept apart) is the draw's own
check: a setting found feasible here can still fail there.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

from .division import DivisionError, group_sizes
from .formats import Format
from .formula import formula_exists, formula_text, games_to_k, is_valid

# For k numbers (2k games), ordinary formulas: the smallest circle with a valid formula and the
# larger ones without (docs/silli.md §3; tests/silli/test_feasibility.py searches them again).
# From the smallest on, every other circle has one.
THRESHOLDS: dict[int, tuple[int, tuple[int, ...]]] = {
    1: (4, ()),
    2: (12, ()),
    3: (27, ()),
    4: (46, (47,)),
    5: (69, (72, 73)),
}

WEB_BUDGET = 50_000
"""Numbers a search may try when a page asks (about 0.1 s): enough to find a formula where one
exists above the thresholds; past it, the size counts as drawable (the draw decides)."""

MAX_SUGGESTION_STEPS = 400
"""How far (in entrants) the nearest workable entrant counts are looked for."""

Status = Literal["ok", "adjusted", "impossible"]
SuggestionKind = Literal["games", "entrants", "min_group_size", "round_robin", "auto_formula"]


@lru_cache(maxsize=65536)
def has_formula(
    n: int,
    games: int,
    *,
    odd: bool = False,
    formula: tuple[int, ...] | None = None,
    budget: int | None = None,
) -> bool | None:
    """Whether a closed circle of ``n`` seats can be drawn with ``games`` games per player: a
    valid formula exists (all-odd when ``odd``), or the formula given by hand is valid on it.

    ``budget`` bounds the search where no table answers (12 games and more): ``None`` then
    means "not known" (see :func:`~apps.silli.formula.formula_exists`).

    >>> [n for n in range(40, 50) if has_formula(n, 8)]
    [46, 48, 49]
    """
    if games < 2 or games % 2 or n < 3:
        return False
    k = games_to_k(games)
    if formula:
        return len(formula) == k and is_valid(n, formula)
    if not odd and k in THRESHOLDS:
        least, gaps = THRESHOLDS[k]
        return n >= least and n not in gaps
    return formula_exists(n, k, odd, budget)


def smallest_circle(
    games: int, *, odd: bool = False, formula: tuple[int, ...] | None = None
) -> int | None:
    """The smallest circle with a formula for ``games`` (``None`` when no table says it)."""
    if formula or odd or games < 2 or games % 2:
        return None
    entry = THRESHOLDS.get(games // 2)
    return entry[0] if entry else None


def circle_gaps(games: int) -> tuple[int, ...]:
    """Circles above :func:`smallest_circle` without a formula (ordinary formulas)."""
    entry = THRESHOLDS.get(games // 2) if games >= 2 and not games % 2 else None
    return entry[1] if entry else ()


def even_sizes(total: int, count: int) -> list[int]:
    """``count`` group sizes for ``total`` entrants, within one of each other, larger first."""
    base, extra = divmod(total, count)
    return [base + 1] * extra + [base] * (count - extra)


def division_sizes(
    total: int, min_group_size: int, drawable: Callable[[int], bool | None] | None = None
) -> list[int] | None:
    """The group sizes the division makes (docs/silli.md §7): ``max(1, total //
    min_group_size)`` groups, sizes within one; when a size cannot be drawn
    (``drawable(size)`` false), one group fewer, and so on — the most groups of at least
    ``min_group_size`` whose sizes can all be drawn. ``None``: not even one group can.

    A size ``drawable`` does not know (``None``) counts as drawable. Without ``drawable`` (a
    round robin), the first rule alone.

    >>> division_sizes(200, 40, lambda n: has_formula(n, 8))
    [50, 50, 50, 50]
    >>> division_sizes(141, 46, lambda n: has_formula(n, 8))
    [71, 70]
    """
    plain = group_sizes(total, min_group_size)
    if drawable is None:
        return plain
    for count in range(len(plain), 0, -1):
        sizes = even_sizes(total, count)
        if all(drawable(size) is not False for size in set(sizes)):
            return sizes
    return None


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A nearby setting that can be drawn, with the group sizes it gives."""

    kind: SuggestionKind
    value: int
    """games: games per player; entrants: a number of entrants; min_group_size: the smallest
    group; round_robin: the games each plays in the largest group; auto_formula: 0."""
    sizes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Feasibility:
    """What the draw makes of a stage's entrants with its settings, or why it cannot.

    ``status``: ``ok`` (the division's first rule gives drawable sizes), ``adjusted`` (it
    does not: the division makes fewer, larger groups, ``sizes``) or ``impossible``
    (nothing can be drawn; ``suggestions`` name the nearest settings that can).
    """

    entrants: int
    games: int
    min_group_size: int
    format: str
    plain_sizes: tuple[int, ...]
    sizes: tuple[int, ...] | None
    smallest: int | None
    """The smallest circle with a formula for these games (None: no table says, or the formula
    is given by hand)."""
    gaps: tuple[int, ...]
    """Circles above ``smallest`` without a formula."""
    formula: tuple[int, ...] | None = None
    bad_sizes: tuple[int, ...] = ()
    """The sizes of the first rule that cannot be drawn."""
    suggestions: tuple[Suggestion, ...] = field(default_factory=tuple)

    @property
    def status(self) -> Status:
        if self.sizes is None:
            return "impossible"
        return "ok" if self.sizes == self.plain_sizes else "adjusted"

    @property
    def ok(self) -> bool:
        return self.sizes is not None

    def suggestion(self, kind: SuggestionKind) -> list[Suggestion]:
        return [s for s in self.suggestions if s.kind == kind]

    @property
    def sentence(self) -> str:
        """The same in plain English (the engine's and the command line's words; the pages
        say it in the reader's language from the fields)."""
        if self.status == "ok":
            return f"{self.entrants} entrants make {sizes_text(self.sizes or ())}."
        if self.formula:
            need = f"the formula {formula_text(self.formula)} is not valid for groups of " + (
                " or ".join(str(n) for n in self.bad_sizes)
            )
        elif self.smallest is not None:
            need = f"{self.games} games per player need groups of at least {self.smallest}"
            if self.gaps:
                need += f" (and none of {', '.join(map(str, self.gaps))})"
        else:
            need = f"no {self.games}-game formula exists for groups of " + " or ".join(
                str(n) for n in self.bad_sizes
            )
        if self.status == "adjusted":
            return (
                f"{need[0].upper()}{need[1:]}: with {self.entrants} entrants the draw makes "
                f"{sizes_text(self.sizes or ())}, not {sizes_text(self.plain_sizes)}."
            )
        options = []
        for s in self.suggestions:
            where = sizes_text(s.sizes)
            if s.kind == "games":
                options.append(f"{s.value} games per player ({where})")
            elif s.kind == "entrants":
                options.append(f"{s.value} entrants ({where})")
            elif s.kind == "round_robin":
                options.append(f"a round robin ({where})")
            elif s.kind == "auto_formula":
                options.append(f"the engine's formulas ({where})")
        tail = f" Nearest workable: {'; or '.join(options)}." if options else ""
        return f"{need[0].upper()}{need[1:]}; the stage has {self.entrants} entrants.{tail}"


def sizes_text(sizes: Sequence[int]) -> str:
    """``4 groups of 50``, ``9 groups of 104 and 21 of 103`` (English)."""
    parts = []
    for i, (size, count) in enumerate(sorted(Counter(sizes).items(), reverse=True)):
        noun = ("group" if count == 1 else "groups") + " of " if i == 0 else "of "
        parts.append(f"{count} {noun}{size}")
    return " and ".join(parts)


def _drawable(
    games: int, odd: bool, formula: tuple[int, ...] | None, budget: int | None
) -> Callable[[int], bool | None]:
    def drawable(n: int) -> bool | None:
        return has_formula(n, games, odd=odd, formula=formula, budget=budget)

    return drawable


def stage_sizes(
    total: int,
    min_group_size: int,
    *,
    format: str = Format.SILLI,
    games: int = 10,
    odd: bool = False,
    formula: tuple[int, ...] | None = None,
    budget: int | None = None,
) -> list[int] | None:
    """The group sizes the draw's division makes for ``total`` entrants (None: none can be
    drawn). A closed circle's sizes must have a formula; other formats take the first rule."""
    if format != Format.SILLI:
        return group_sizes(total, min_group_size)
    return division_sizes(total, min_group_size, _drawable(games, odd, formula, budget))


def feasibility(
    entrants: int,
    games_per_player: int,
    min_group_size: int,
    *,
    format: str = Format.SILLI,
    odd: bool = False,
    formula: Sequence[int] | None = None,
    budget: int | None = WEB_BUDGET,
) -> Feasibility:
    """Whether ``entrants`` entrants can be drawn in groups of at least ``min_group_size``
    with ``games_per_player`` games (a closed circle: ``format`` silli), and if not, the
    nearest settings that can (fewer games per player; the nearest numbers of entrants below
    and above; a round robin; the engine's formulas instead of one given by hand).

    Every suggestion can be drawn by the engine's division and formula search, and a setting
    the draw can make is never called impossible (``tests/silli/test_feasibility.py``).

    >>> found = feasibility(200, 8, 40)
    >>> found.status, found.sizes
    ('adjusted', (50, 50, 50, 50))
    >>> feasibility(60, 10, 50).sentence.split(" (")[0]
    '10 games per player need groups of at least 69'
    """
    if entrants < 1:
        raise DivisionError("a stage needs at least one entrant")
    given = tuple(sorted(formula)) if formula else None
    plain = tuple(group_sizes(entrants, min_group_size))
    if format != Format.SILLI:
        return Feasibility(
            entrants, games_per_player, min_group_size, format, plain, plain, None, ()
        )
    drawable = _drawable(games_per_player, odd, given, budget)
    found = division_sizes(entrants, min_group_size, drawable)
    sizes = tuple(found) if found is not None else None
    bad = tuple(sorted({n for n in plain if drawable(n) is False}))
    if sizes is None:
        bad = tuple(sorted({n for n in even_sizes(entrants, 1) if drawable(n) is False})) or bad
    result = Feasibility(
        entrants=entrants,
        games=games_per_player,
        min_group_size=min_group_size,
        format=format,
        plain_sizes=plain,
        sizes=sizes,
        smallest=smallest_circle(games_per_player, odd=odd, formula=given),
        gaps=() if given or odd else circle_gaps(games_per_player),
        formula=given,
        bad_sizes=bad,
    )
    if sizes is not None:
        return result
    return _with_suggestions(result, odd, budget)


def _with_suggestions(result: Feasibility, odd: bool, budget: int | None) -> Feasibility:
    n, m, games = result.entrants, result.min_group_size, result.games
    out: list[Suggestion] = []

    def certain(sizes: list[int] | None, check: Callable[[int], bool | None]) -> bool:
        return sizes is not None and all(check(s) is True for s in set(sizes))

    if result.formula:
        engine = _drawable(games, odd, None, budget)
        sizes = division_sizes(n, m, engine)
        if certain(sizes, engine):
            out.append(Suggestion("auto_formula", 0, tuple(sizes or ())))
    for fewer in range(games - 2, 1, -2):
        check = _drawable(fewer, odd, None, budget)
        sizes = division_sizes(n, m, check)
        if certain(sizes, check):
            out.append(Suggestion("games", fewer, tuple(sizes or ())))
            break
    check = _drawable(games, odd, result.formula, budget)
    for other in range(n - 1, max(0, n - MAX_SUGGESTION_STEPS), -1):
        sizes = division_sizes(other, m, check)
        if certain(sizes, check):
            out.append(Suggestion("entrants", other, tuple(sizes or ())))
            break
    for other in range(n + 1, n + MAX_SUGGESTION_STEPS):
        sizes = division_sizes(other, m, check)
        if certain(sizes, check):
            out.append(Suggestion("entrants", other, tuple(sizes or ())))
            break
    if n >= 2:
        sizes = group_sizes(n, m)
        out.append(Suggestion("round_robin", max(sizes) - 1, tuple(sizes)))
    return Feasibility(
        **{
            name: getattr(result, name)
            for name in result.__dataclass_fields__
            if name != "suggestions"
        },
        suggestions=tuple(out),
    )
