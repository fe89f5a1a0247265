"""Who goes on to the next stage: the four qualification rules of ``docs/standings.md`` §6.

Pure Python, no Django: the standings service feeds it one :class:`Candidate` per entrant of
the stage and shows the :class:`Outcome` to the organizer before they confirm it.

* ``threshold``: points ≥ P, P in points or, when relative, a share of the group's T
  (Targa Castiglioni: 6 of 8).
* ``loss_cap``: points lost in this stage and all earlier ones ≤ L (Silli's "2 + 1 or 1 + 2").
* ``top_per_group``: the first q of each group, q a count or, when relative, a percentage
  of the group's size rounded half up (4th ICCF Cup: 20 % of 103 or 104 → 21).
* ``top_overall``: the first q of the unified ranking (q a count or a percentage of the
  stage's size, the sum of its groups' sizes).

Withdrawn and declining entrants never qualify. Under a ``top_*`` rule they take no place:
the next one in line gets in. Under ``threshold`` and ``loss_cap`` (no fixed number of places)
a withdrawn entrant simply does not qualify, while the place of each declining entrant who
passed goes to the best reserve. Every other eligible entrant is a reserve, best first
(optionally only the first ``RuleSpec.reserves``; the rest are out).

Entrants are ordered by their ranking ``key`` (higher is better). Equal keys are ordered by
the seeded :func:`~apps.scoring.tiebreaks.lot_order`; where such a block straddles a cut,
the lot decided who got in, and its members are marked ``by_lot``.

Example, the top 1 of a group of three where the leader declines::

    >>> group = [Candidate(1, 1, 3, 2, Fraction(2), 2, (2,), declined=True),
    ...          Candidate(2, 1, 3, 2, Fraction(1), 2, (1,)),
    ...          Candidate(3, 1, 3, 2, Fraction(0), 2, (0,))]
    >>> outcome = qualify(group, RuleSpec(Rule.TOP_PER_GROUP, Fraction(1)), seed="s")
    >>> [(d.candidate.id, d.reason) for d in outcome.qualifiers]
    [(2, '2nd in group 1: top 1; replaces 1 who declined')]
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from itertools import groupby
from operator import attrgetter

from .points import points_text
from .tiebreaks import KeyFigure, lot_order


class Rule(StrEnum):
    """A stage's qualification rule."""

    THRESHOLD = "threshold"
    LOSS_CAP = "loss_cap"
    TOP_PER_GROUP = "top_per_group"
    TOP_OVERALL = "top_overall"


TOP_RULES = frozenset({Rule.TOP_PER_GROUP, Rule.TOP_OVERALL})


@dataclass(frozen=True)
class RuleSpec:
    """A rule with its value.

    ``value`` is P for ``threshold`` (points, or a share of T when ``relative``), L for
    ``loss_cap`` (points, never relative), and q for the ``top_*`` rules (a count, or a
    percentage when ``relative``). ``points_win`` is the tournament's points for a win, used
    for points lost = finished games × points_win − points. ``reserves`` limits the reserve
    list (per group for ``top_per_group``); ``None`` keeps every eligible non-qualifier.
    """

    rule: Rule
    value: Fraction
    relative: bool = False
    points_win: Fraction = Fraction(1)
    reserves: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "rule", Rule(self.rule))
        object.__setattr__(self, "value", Fraction(self.value))
        object.__setattr__(self, "points_win", Fraction(self.points_win))
        if self.value < 0:
            raise ValueError(f"The rule's value must not be negative (got {self.value}).")
        if self.points_win <= 0:
            raise ValueError(f"Points for a win must be positive (got {self.points_win}).")
        if self.rule is Rule.LOSS_CAP and self.relative:
            raise ValueError("A loss cap is a number of points; it cannot be relative.")
        if self.rule in TOP_RULES and not self.relative and self.value.denominator != 1:
            raise ValueError(f"A number of places must be whole (got {self.value}).")
        if self.rule in TOP_RULES and self.relative and self.value > 100:
            raise ValueError(f"A percentage must be at most 100 (got {self.value}).")
        if self.reserves is not None and self.reserves < 0:
            raise ValueError(f"The reserve list cannot be negative (got {self.reserves}).")


@dataclass(frozen=True)
class Candidate:
    """One entrant of the stage, as qualification sees it."""

    id: int
    group: int
    group_size: int  # seats in the group, withdrawn players included
    games_per_player: int  # T of the group
    points: Fraction
    finished: int  # finished games in this stage, forfeits included
    key: tuple[KeyFigure, ...]  # full ranking key, higher is better
    earlier_lost: Fraction = Fraction(0)  # points lost in all earlier stages
    withdrawn: bool = False
    declined: bool = False  # the organizer recorded that this entrant declines to go on
    figures: Mapping[str, str] = field(default_factory=dict)  # display only
    name: str = ""  # how reasons name the entrant (a code, a name); the id when empty

    @property
    def eligible(self) -> bool:
        """Neither withdrawn nor declining: the entrant can take a place."""
        return not (self.withdrawn or self.declined)

    @property
    def label(self) -> str:
        """The entrant as reasons name them: ``name``, or the id."""
        return self.name or str(self.id)


class Status(StrEnum):
    """What the rule decided for an entrant."""

    QUALIFIED = "qualified"
    RESERVE = "reserve"
    OUT = "out"
    WITHDRAWN = "withdrawn"
    DECLINED = "declined"


@dataclass(frozen=True)
class Decision:
    """The rule's decision for one entrant, with the sentence that explains it."""

    candidate: Candidate
    status: Status
    reason: str
    rank: int  # strict rank: within the group for top_per_group, overall otherwise
    by_lot: bool = False  # the seeded lot decided whether this entrant got in


@dataclass(frozen=True)
class Cut:
    """Where the rule drew its line, and who stood at it."""

    group: int | None  # the group for top_per_group, None otherwise
    places: int  # places the rule gives; for threshold/loss_cap the number who passed
    tied: tuple[Decision, ...]  # the equal-key block straddling the cut, or last in + first out
    lot: bool  # a lot decided the cut


@dataclass(frozen=True)
class Outcome:
    """Everyone's decision, grouped for the organizer's list."""

    qualifiers: list[Decision]  # per group then rank for top_per_group; rank order otherwise
    reserves: list[Decision]  # best first
    others: list[Decision]  # out, withdrawn, declined
    cuts: list[Cut]
    seed: str
    lot_used: bool

    @property
    def decisions(self) -> list[Decision]:
        """Every entrant's decision: qualifiers, then reserves, then the others."""
        return [*self.qualifiers, *self.reserves, *self.others]


def quota(percent: Fraction, size: int) -> int:
    """``percent`` % of ``size``, rounded half up: 20 % of 103 or 104 → 21, 15 % of 105 → 16."""
    percent = Fraction(percent)
    if percent < 0 or size < 0:
        raise ValueError(f"No quota for {percent} % of {size}.")
    return math.floor(percent * size / 100 + Fraction(1, 2))


def points_lost(c: Candidate, points_win: Fraction = Fraction(1)) -> Fraction:
    """Points lost in this stage (finished × points_win − points) plus in earlier stages."""
    return _stage_lost(c, Fraction(points_win)) + c.earlier_lost


def qualify(candidates: Iterable[Candidate], spec: RuleSpec, seed: str) -> Outcome:
    """Apply ``spec`` to the stage's ``candidates``; ``seed`` drives every lot.

    The result does not depend on the order of ``candidates``. Raises :class:`ValueError`
    when an entrant appears twice or a group's candidates disagree on its size or T.
    """
    pool = list(candidates)
    _check(pool)
    if spec.rule is Rule.TOP_PER_GROUP:
        return _top_per_group(pool, spec, seed)
    if spec.rule is Rule.TOP_OVERALL:
        return _top_overall(pool, spec, seed)
    return _by_score(pool, spec, seed)


# ---------------------------------------------------------------------------
# The rules
# ---------------------------------------------------------------------------


def _top_per_group(pool: list[Candidate], spec: RuleSpec, seed: str) -> Outcome:
    entries: list[_Entry] = []
    cuts: list[_CutDraft] = []
    tiers: list[list[_Entry]] = []  # tiers[i]: every group's reserve number i + 1
    for group, members in groupby(sorted(pool, key=attrgetter("group")), attrgetter("group")):
        ranked = _ranked(members, seed)
        places, places_text = _places(spec, ranked[0].candidate.group_size)
        cuts.append(_decide_top(ranked, places, places_text, f"in group {group}", seed, group))
        waiting = [e for e in ranked if e.status is None]
        _mark_reserves(waiting, spec.reserves, " of the group")
        for i, e in enumerate(e for e in waiting if e.status is Status.RESERVE):
            if i == len(tiers):
                tiers.append([])
            tiers[i].append(e)
        entries.extend(ranked)
    reserves = [e for tier in tiers for e in _strict_entries(tier, seed)]
    return _finish(entries, reserves, cuts, seed)


def _top_overall(pool: list[Candidate], spec: RuleSpec, seed: str) -> Outcome:
    ranked = _ranked(pool, seed)
    stage_size = sum({c.group: c.group_size for c in pool}.values())
    places, places_text = _places(spec, stage_size)
    cut = _decide_top(ranked, places, places_text, "of the unified ranking", seed, None)
    waiting = [e for e in ranked if e.status is None]
    _mark_reserves(waiting, spec.reserves, "")
    return _finish(ranked, [e for e in waiting if e.status is Status.RESERVE], [cut], seed)


def _by_score(pool: list[Candidate], spec: RuleSpec, seed: str) -> Outcome:
    """``threshold`` and ``loss_cap``: each entrant passes or not on their own figures."""
    ranked = _ranked(pool, seed)
    passed: list[_Entry] = []
    for e in ranked:
        ok, e.text = _score_test(e.candidate, spec)
        if ok:
            passed.append(e)
        if not e.candidate.eligible:
            _set_absent(e)
        elif ok:
            e.status = Status.QUALIFIED
    # An absolute rule has no fixed number of places: only a qualifier who declines hands
    # theirs on; a withdrawn entrant who passed simply does not qualify.
    vacated = [e for e in passed if e.candidate.declined and not e.candidate.withdrawn]
    waiting = [e for e in ranked if e.status is None]
    newcomers = waiting[: len(vacated)]
    for e in newcomers:
        e.status = Status.QUALIFIED
    _pass_places(vacated, newcomers)
    if vacated:
        tied, lot = _cut_at(waiting, len(vacated), seed)
    else:
        last_in = [e for e in ranked if e.status is Status.QUALIFIED][-1:]
        tied, lot = [*last_in, *waiting[:1]], False
    reserves = waiting[len(vacated) :]
    _mark_reserves(reserves, spec.reserves, "")
    cut = _CutDraft(None, len(passed), tied, lot)
    return _finish(ranked, [e for e in reserves if e.status is Status.RESERVE], [cut], seed)


def _score_test(c: Candidate, spec: RuleSpec) -> tuple[bool, str]:
    """Whether ``c`` passes a ``threshold`` or ``loss_cap`` rule, and the sentence saying so."""
    if spec.rule is Rule.THRESHOLD:
        need = spec.value * c.games_per_player if spec.relative else spec.value
        ok = c.points >= need
        sign = "≥" if ok else "<"
        return ok, f"{_points_word(c.points)} {sign} {points_text(need)} of {c.games_per_player}"
    stage = _stage_lost(c, spec.points_win)
    total = stage + c.earlier_lost
    ok = total <= spec.value
    lost = points_text(total)
    if c.earlier_lost:
        lost = f"{points_text(c.earlier_lost)} + {points_text(stage)} = {lost}"
    return ok, f"points lost {lost} {'≤' if ok else '>'} {points_text(spec.value)}"


# ---------------------------------------------------------------------------
# Places, cuts and reserves
# ---------------------------------------------------------------------------


@dataclass
class _Entry:
    """A decision being made: the rule's sentence, then notes (replacement, lot, reserve)."""

    candidate: Candidate
    rank: int
    status: Status | None = None
    text: str = ""
    notes: list[str] = field(default_factory=list)
    by_lot: bool = False

    def decision(self) -> Decision:
        assert self.status is not None, "every entrant gets a status"
        reason = "; ".join([self.text, *self.notes])
        return Decision(self.candidate, self.status, reason, self.rank, self.by_lot)


@dataclass
class _CutDraft:
    group: int | None
    places: int
    tied: list[_Entry]
    lot: bool


def _decide_top(
    ranked: list[_Entry], places: int, places_text: str, where: str, seed: str, group: int | None
) -> _CutDraft:
    """The first ``places`` eligible entrants of ``ranked`` qualify."""
    eligible = [e for e in ranked if e.candidate.eligible]
    inside = eligible[:places]
    for e in inside:
        e.status = Status.QUALIFIED
    vacated = [e for e in ranked[:places] if not e.candidate.eligible]
    _pass_places(vacated, [e for e in inside if e.rank > places])
    for e in ranked:
        place = f"{_ordinal(e.rank)} {where}"
        if not e.candidate.eligible:
            e.text = place
            _set_absent(e)
        elif e.status is Status.QUALIFIED:
            e.text = f"{place}: top {places_text}"
        else:
            e.text = f"{place}: outside the top {places_text}"
    tied, lot = _cut_at(eligible, places, seed)
    return _CutDraft(group, places, tied, lot)


def _places(spec: RuleSpec, size: int) -> tuple[int, str]:
    """The places a ``top_*`` rule gives out of ``size``, and how to say it."""
    if not spec.relative:
        return int(spec.value), str(int(spec.value))
    places = quota(spec.value, size)
    return places, f"{places} ({points_text(spec.value)} % of {size})"


def _cut_at(ordered: Sequence[_Entry], taken: int, seed: str) -> tuple[list[_Entry], bool]:
    """The entrants at the cut after the first ``taken`` of ``ordered``, and whether a lot
    decided it: an equal-key block straddling the cut (all marked ``by_lot``), or else the
    last one in and the first one out."""
    if (
        0 < taken < len(ordered)
        and ordered[taken - 1].candidate.key == ordered[taken].candidate.key
    ):
        key = ordered[taken].candidate.key
        block = [e for e in ordered if e.candidate.key == key]
        for e in block:
            e.by_lot = True
            e.notes.append(f"by lot at the cut (seed {seed})")
        return block, True
    return list(ordered[max(taken - 1, 0) : taken + 1]), False


def _pass_places(vacated: Sequence[_Entry], newcomers: Sequence[_Entry]) -> None:
    """Note who took the place of each withdrawn or declining entrant, in order.

    Withdrawn entrants' places are handed on first: a decline is recorded later, so the
    reserves it brings in are those after the ones who already replace withdrawn entrants.
    """
    vacated = sorted(vacated, key=lambda e: not e.candidate.withdrawn)  # stable: rank order
    for gone, new in zip(vacated, newcomers, strict=False):
        verb = "withdrew" if gone.candidate.withdrawn else "declined"
        new.notes.append(f"replaces {gone.candidate.label} who {verb}")
        gone.notes.append(f"place passed to {new.candidate.label}")


def _mark_reserves(waiting: Sequence[_Entry], limit: int | None, suffix: str) -> None:
    """The first ``limit`` (all if ``None``) eligible non-qualifiers are reserves; the rest out."""
    for i, e in enumerate(waiting):
        if limit is None or i < limit:
            e.status = Status.RESERVE
            e.notes.append(f"reserve {i + 1}{suffix}")
        else:
            e.status = Status.OUT


def _set_absent(e: _Entry) -> None:
    if e.candidate.withdrawn:
        e.status, word = Status.WITHDRAWN, "withdrawn"
    else:
        e.status, word = Status.DECLINED, "declined to go on"
    e.text = f"{word}; {e.text}"


def _finish(
    entries: list[_Entry], reserves: list[_Entry], cuts: list[_CutDraft], seed: str
) -> Outcome:
    """The outcome; ``entries`` are in the order qualifiers and others are listed."""
    decisions = {e.candidate.id: e.decision() for e in entries}

    def of(chosen: Iterable[_Entry]) -> list[Decision]:
        return [decisions[e.candidate.id] for e in chosen]

    return Outcome(
        qualifiers=of(e for e in entries if e.status is Status.QUALIFIED),
        reserves=of(reserves),
        others=of(e for e in entries if e.status not in (Status.QUALIFIED, Status.RESERVE)),
        cuts=[Cut(d.group, d.places, tuple(of(d.tied)), d.lot) for d in cuts],
        seed=seed,
        lot_used=any(d.lot for d in cuts),
    )


# ---------------------------------------------------------------------------
# Order and text
# ---------------------------------------------------------------------------


def _strict(candidates: Iterable[Candidate], seed: str) -> list[Candidate]:
    """Best key first; each block of equal keys in the order of the seeded lot."""
    ordered = sorted(candidates, key=attrgetter("key"), reverse=True)
    result: list[Candidate] = []
    for _, block in groupby(ordered, key=attrgetter("key")):
        members = {c.id: c for c in block}
        result.extend(members[i] for i in lot_order(members, seed))
    return result


def _ranked(candidates: Iterable[Candidate], seed: str) -> list[_Entry]:
    return [_Entry(c, rank) for rank, c in enumerate(_strict(candidates, seed), start=1)]


def _strict_entries(entries: Iterable[_Entry], seed: str) -> list[_Entry]:
    by_id = {e.candidate.id: e for e in entries}
    return [by_id[c.id] for c in _strict((e.candidate for e in by_id.values()), seed)]


def _check(pool: Sequence[Candidate]) -> None:
    seen: set[int] = set()
    shapes: dict[int, tuple[int, int]] = {}
    for c in pool:
        if c.id in seen:
            raise ValueError(f"Entrant {c.id} appears twice among the candidates.")
        seen.add(c.id)
        shape = (c.group_size, c.games_per_player)
        if shapes.setdefault(c.group, shape) != shape:
            raise ValueError(
                f"Group {c.group}: the candidates disagree on the group's size or games per player."
            )


def _stage_lost(c: Candidate, points_win: Fraction) -> Fraction:
    return c.finished * points_win - c.points


def _points_word(x: Fraction) -> str:
    return f"{points_text(x)} {'point' if 0 < x <= 1 else 'points'}"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"
