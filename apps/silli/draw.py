"""The draw of one stage: division, formulas, seating, games, and the digest.

The draw is a pure function of (entrants, settings, seed, pairs that met
before, earlier groups). It runs in three steps that a job queue can spread
over workers — :func:`divide_stage` once, :func:`draw_group` per group (each
group has its own chance stream, so the groups are independent), then
:func:`assemble` — and :func:`draw_stage` runs them in one go. Both ways give
the same :class:`StageDraw` and so the same digest.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import NamedTuple

from .circle import circle_games, independence_bound
from .division import DivisionSettings, divide
from .entrants import Entrant, entrants_digest
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
from .rng import ChanceStream
from .roundrobin import round_robin_games
from .seating import Conflict, forbidden_reason, seat_circle

SILLI = "silli"
ROUND_ROBIN = "round_robin"
FORMATS = (SILLI, ROUND_ROBIN)
WIDE_TRIED = 2
ATTEMPTS_PER_FORMULA = 2


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
    ) -> None:
        super().__init__(message)
        self.group = group
        self.nation = nation
        self.count = count
        self.bound = bound


@dataclass(frozen=True, slots=True)
class DrawSettings:
    """Everything besides entrants and seed that decides a draw (recorded in DRAW.json)."""

    games_per_player: int = 10
    format: str = SILLI
    min_group_size: int = 100
    separate_nations: bool = True
    avoid_rematches: bool = True
    double_round_robin: bool = False
    balance_ratings: bool = False
    odd: bool = False
    formula: tuple[int, ...] | None = None
    allowed_nation_games: int = 0

    def __post_init__(self) -> None:
        if self.format not in FORMATS:
            raise DrawError(f"unknown format {self.format!r}; use one of {', '.join(FORMATS)}")
        if self.formula is not None:
            object.__setattr__(self, "formula", tuple(sorted(self.formula)))

    def as_dict(self) -> dict[str, object]:
        data = asdict(self)
        data["formula"] = list(self.formula) if self.formula else None
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> DrawSettings:
        names = {f for f in cls.__dataclass_fields__}
        values = {k: v for k, v in data.items() if k in names}
        if values.get("formula") is not None:
            values["formula"] = tuple(values["formula"])  # type: ignore[arg-type]
        return cls(**values)  # type: ignore[arg-type]


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

    def nation_mix(self) -> list[tuple[str, int]]:
        """Nations of the group, largest first."""
        counts = Counter(s.nation for s in self.seats)
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

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


@dataclass(frozen=True, slots=True)
class StageDraw:
    """The whole draw of a stage, ready to publish as DRAW.json."""

    seed: str
    settings: DrawSettings
    entrants_digest: str
    met_before_digest: str
    earlier_groups_digest: str
    groups: tuple[GroupDraw, ...] = field(default_factory=tuple)

    @property
    def digest(self) -> str:
        return groups_digest(g.as_dict() for g in self.groups)

    def as_dict(self) -> dict[str, object]:
        data: dict[str, object] = {"seed": self.seed, **self.settings.as_dict()}
        data["entrants_digest"] = self.entrants_digest
        data["met_before_digest"] = self.met_before_digest
        data["earlier_groups_digest"] = self.earlier_groups_digest
        data["groups"] = [g.as_dict() for g in self.groups]
        data["digest"] = self.digest
        return data

    def to_json(self) -> str:
        """DRAW.json: keys in a fixed order, one group per line, UTF-8."""
        return draw_json(self.as_dict())


def canonical_json(value: object) -> str:
    """Sorted keys, no spaces, non-ASCII kept: the form every digest is taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def groups_digest(groups: Iterable[Mapping[str, object]]) -> str:
    """SHA-256 (hex) of the canonical JSON of the list of groups."""
    return hashlib.sha256(canonical_json(list(groups)).encode()).hexdigest()


def draw_json(data: Mapping[str, object]) -> str:
    head = {k: v for k, v in data.items() if k not in ("groups", "digest")}
    lines = ["{" + canonical_json(head)[1:-1] + ',"groups":[']
    groups = data.get("groups", [])
    lines += [
        canonical_json(g) + ("," if i < len(groups) - 1 else "")  # type: ignore[arg-type]
        for i, g in enumerate(groups)
    ]  # type: ignore[arg-type]
    lines.append('],"digest":' + json.dumps(data.get("digest")) + "}")
    return "\n".join(lines) + "\n"


def pairs_digest(pairs: Iterable[tuple[str, str]]) -> str:
    """SHA-256 (hex) of the met-before pairs, each sorted, one ``a,b`` per line, sorted."""
    lines = sorted({",".join(sorted(p)) for p in pairs})
    return hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest()


def earlier_groups_digest(earlier_group: Mapping[str, str] | None) -> str:
    """SHA-256 (hex) of the earlier-group map, one ``code,group`` per line, sorted."""
    return pairs_digest((earlier_group or {}).items())


def met_before_map(pairs: Iterable[tuple[str, str]]) -> dict[str, frozenset[str]]:
    partners: dict[str, set[str]] = {}
    for a, b in pairs:
        partners.setdefault(a, set()).add(b)
        partners.setdefault(b, set()).add(a)
    return {k: frozenset(v) for k, v in partners.items()}


# ---------------------------------------------------------------------------
# The three steps
# ---------------------------------------------------------------------------


def divide_stage(
    entrants: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    earlier_group: Mapping[str, str] | None = None,
) -> list[list[Entrant]]:
    """Step 1: the groups' members (stream ``division``)."""
    codes = Counter(e.code for e in entrants)
    dup = [c for c, k in codes.items() if k > 1]
    if dup:
        raise DrawError(f"entrant code(s) used twice: {', '.join(sorted(dup)[:10])}")
    return divide(
        entrants,
        ChanceStream(seed, "division"),
        DivisionSettings(settings.min_group_size, settings.balance_ratings),
        earlier_group,
    )


def draw_group(
    number: int,
    members: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    met_before: Mapping[str, frozenset[str]],
) -> GroupDraw:
    """Step 2: seat one group (streams ``group/<number>/...``) and list its games."""
    members = sorted(members, key=lambda e: e.code)
    rematches = met_before if settings.avoid_rematches else {}
    if settings.format == ROUND_ROBIN:
        return _round_robin_group(number, members, settings, seed, rematches)
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
        hopeless = largest > independence_bound(n, choice.formula) + settings.allowed_nation_games
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


def assemble(
    entrants: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    met_before_pairs: Iterable[tuple[str, str]],
    earlier_group: Mapping[str, str] | None,
    groups: Iterable[GroupDraw],
) -> StageDraw:
    """Step 3: the stage draw from its groups, in group-number order."""
    return StageDraw(
        seed=seed,
        settings=settings,
        entrants_digest=entrants_digest(entrants),
        met_before_digest=pairs_digest(met_before_pairs),
        earlier_groups_digest=earlier_groups_digest(earlier_group),
        groups=tuple(sorted(groups, key=lambda g: g.number)),
    )


def draw_stage(
    entrants: Sequence[Entrant],
    settings: DrawSettings,
    seed: str,
    met_before_pairs: Iterable[tuple[str, str]] = (),
    earlier_group: Mapping[str, str] | None = None,
) -> StageDraw:
    """The whole draw: divide, seat every group, assemble."""
    pairs = list(met_before_pairs)
    partners = met_before_map(pairs)
    members = divide_stage(entrants, settings, seed, earlier_group)
    groups = [
        draw_group(number, group, settings, seed, partners)
        for number, group in enumerate(members, start=1)
    ]
    return assemble(entrants, settings, seed, pairs, earlier_group, groups)


# ---------------------------------------------------------------------------
# Inside a group
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


def _round_robin_group(
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
    return DrawError(message, group=number, nation=nation, count=count, bound=bound)
