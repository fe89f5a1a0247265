"""Dividing a stage's entrants into groups (docs/silli.md §7).

``g = max(1, N // min_group_size)`` groups whose sizes differ by at most one,
larger groups first. The entrants are laid out in one line and dealt to the
groups in turn (entrant ``i`` of the line goes to group ``i mod g``), which
is the paper's "alphabetical dealing" with chance in place of the alphabet:

* the nations, largest first (ties in a random order), each as one block, so
  that every nation's count per group differs by at most one;
* inside a nation, the persons in a random order and each person's entries
  next to each other, so that they fall into different groups;
* inside a nation, in a later stage, entrants ordered by their earlier group
  (the earlier groups in a random order) so that they spread too.

Swaps of two entrants of one nation then even out what dealing alone cannot
guarantee: persons whose entries have different nations, the earlier-group
spread across nations, and (optionally) the groups' rating averages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from .entrants import Entrant
from .rng import ChanceStream

BALANCE_ROUNDS = 4


class DivisionError(ValueError):
    """The entrants cannot be divided as asked; the message says why."""


@dataclass(frozen=True, slots=True)
class DivisionSettings:
    min_group_size: int = 100
    balance_ratings: bool = False


def group_sizes(total: int, min_group_size: int) -> list[int]:
    """Sizes of ``max(1, total // min_group_size)`` groups, larger first.

    >>> group_sizes(3099, 100)[:10]
    [104, 104, 104, 104, 104, 104, 104, 104, 104, 103]
    """
    if total < 1:
        raise DivisionError("a stage needs at least one entrant")
    if min_group_size < 1:
        raise DivisionError("the minimum group size must be at least 1")
    count = max(1, total // min_group_size)
    base, extra = divmod(total, count)
    return [base + 1] * extra + [base] * (count - extra)


def divide(
    entrants: Sequence[Entrant],
    rng: ChanceStream,
    settings: DivisionSettings,
    earlier_group: Mapping[str, str] | None = None,
    sizes: Sequence[int] | None = None,
) -> list[list[Entrant]]:
    """Split entrants into groups; each group's list is sorted by code.

    ``earlier_group`` maps entrant codes to the group they played in the
    previous stage (absent for entrants who did not, e.g. pre-qualified).
    ``sizes``: the groups' sizes, within one of each other, larger first (default:
    :func:`group_sizes`; the draw passes those of
    :func:`~apps.silli.feasibility.stage_sizes`, which can be drawn).
    """
    earlier_group = earlier_group or {}
    if sizes is None:
        sizes = group_sizes(len(entrants), settings.min_group_size)
    if sum(sizes) != len(entrants) or max(sizes) - min(sizes) > 1:
        raise DivisionError(f"group sizes {list(sizes)[:5]} do not fit {len(entrants)} entrants")
    g = len(sizes)
    ordered = sorted(entrants, key=lambda e: e.code)
    _check_persons(ordered, g)

    by_nation: dict[str, list[Entrant]] = {}
    for e in ordered:
        by_nation.setdefault(e.nation, []).append(e)
    nation_order = sorted(by_nation)
    rng.shuffle(nation_order)
    nation_order.sort(key=lambda nat: -len(by_nation[nat]))

    earlier_names = sorted({earlier_group[e.code] for e in ordered if e.code in earlier_group})
    rng.shuffle(earlier_names)
    earlier_rank = {name: i for i, name in enumerate(earlier_names)}

    line: list[Entrant] = []
    for nat in nation_order:
        persons: dict[str, list[Entrant]] = {}
        for e in by_nation[nat]:
            persons.setdefault(e.person, []).append(e)
        keys = sorted(persons)
        rng.shuffle(keys)
        if earlier_rank:
            keys.sort(key=lambda p: earlier_rank.get(earlier_group.get(persons[p][0].code, ""), -1))
        for p in keys:
            line.extend(persons[p])

    groups: list[list[Entrant]] = [[] for _ in range(g)]
    for i, e in enumerate(line):
        groups[i % g].append(e)

    _separate_persons(groups)
    if earlier_rank:
        _balance(groups, lambda e: earlier_group.get(e.code, ""), rounds=BALANCE_ROUNDS)
    if settings.balance_ratings:
        _balance_ratings(groups)
    for group in groups:
        group.sort(key=lambda e: e.code)
    return groups


def _check_persons(entrants: Sequence[Entrant], g: int) -> None:
    counts = Counter(e.person for e in entrants)
    person, most = counts.most_common(1)[0] if counts else ("", 0)
    if most > g:
        raise DivisionError(
            f"person {person} holds {most} entries but the stage has only {g} group(s); "
            "entries of one person never share a group"
        )


def _separate_persons(groups: list[list[Entrant]]) -> None:
    """Move clashing entries of one person by swapping with a same-nation entrant."""
    persons_in = [Counter(e.person for e in group) for group in groups]
    for gi, group in enumerate(groups):
        for idx, e in enumerate(group):
            if persons_in[gi][e.person] < 2:
                continue
            for gj, other in enumerate(groups):
                if gj == gi or persons_in[gj][e.person]:
                    continue
                for jdx, f in enumerate(other):
                    if f.nation == e.nation and persons_in[gi][f.person] == 0:
                        group[idx], other[jdx] = f, e
                        persons_in[gi][e.person] -= 1
                        persons_in[gi][f.person] += 1
                        persons_in[gj][f.person] -= 1
                        persons_in[gj][e.person] += 1
                        break
                else:
                    continue
                break
            else:
                raise DivisionError(
                    f"the entries of person {e.person} cannot be put in different groups "
                    "without unbalancing the nations"
                )


def _balance(groups: list[list[Entrant]], key: Callable[[Entrant], str], rounds: int) -> None:
    """Swap same-nation entrants between groups until every ``key`` value's
    counts per group differ by at most one (or no allowed swap is left).

    A swap moves one entrant with the value from a fullest group to an
    emptiest one and brings back a same-nation entrant whose own value is no
    worse spread afterwards, so nation counts, group sizes and persons hold.
    """
    counts = [Counter(key(e) for e in group) for group in groups]
    persons = [Counter(e.person for e in group) for group in groups]
    values = sorted({v for c in counts for v in c})
    for _ in range(rounds):
        improved = False
        for value in values:
            while True:
                per_group = [c[value] for c in counts]
                high, low = max(per_group), min(per_group)
                if high - low <= 1:
                    break
                fullest = [gi for gi, c in enumerate(per_group) if c == high]
                emptiest = [gj for gj, c in enumerate(per_group) if c == low]
                if not any(
                    _swap_one(groups, counts, persons, key, value, gi, gj)
                    for gi in fullest
                    for gj in emptiest
                ):
                    break
                improved = True
        if not improved:
            return


def _swap_one(
    groups: list[list[Entrant]],
    counts: list[Counter[str]],
    persons: list[Counter[str]],
    key: Callable[[Entrant], str],
    value: str,
    gi: int,
    gj: int,
) -> bool:
    """Swap an entrant with ``key == value`` in gi for a same-nation one in gj."""
    for idx, e in enumerate(groups[gi]):
        if key(e) != value:
            continue
        for jdx, f in enumerate(groups[gj]):
            fv = key(f)
            if f.nation != e.nation or fv == value:
                continue
            # fv moves from gj to gi: only where gi has fewer, so it gets no worse
            if counts[gi][fv] >= counts[gj][fv]:
                continue
            if persons[gj][e.person] or persons[gi][f.person]:
                continue
            groups[gi][idx], groups[gj][jdx] = f, e
            counts[gi][value] -= 1
            counts[gj][value] += 1
            counts[gi][fv] += 1
            counts[gj][fv] -= 1
            persons[gi][e.person] -= 1
            persons[gi][f.person] += 1
            persons[gj][f.person] -= 1
            persons[gj][e.person] += 1
            return True
    return False


def _balance_ratings(groups: list[list[Entrant]]) -> None:
    """Even out group rating averages by swapping same-nation entrants.

    Greedy: repeatedly take the groups with the highest and lowest average and
    make the swap of two same-nation entrants that best closes the gap.
    """

    def rating(e: Entrant) -> int:
        return e.rating if e.rating is not None else 0

    sums = [sum(rating(e) for e in group) for group in groups]
    persons = [Counter(e.person for e in group) for group in groups]
    for _ in range(len(groups) * 4):
        means = [s / len(group) for s, group in zip(sums, groups, strict=True)]
        hi = max(range(len(groups)), key=lambda i: (means[i], -i))
        lo = min(range(len(groups)), key=lambda i: (means[i], i))
        gap = sums[hi] / len(groups[hi]) - sums[lo] / len(groups[lo])
        if gap <= 1.0:
            return
        best, best_gap = None, gap
        lo_by_nation: dict[str, list[int]] = {}
        for jdx, f in enumerate(groups[lo]):
            lo_by_nation.setdefault(f.nation, []).append(jdx)
        for idx, e in enumerate(groups[hi]):
            for jdx in lo_by_nation.get(e.nation, ()):
                f = groups[lo][jdx]
                d = rating(e) - rating(f)
                if d <= 0 or persons[lo][e.person] or persons[hi][f.person]:
                    continue
                new_gap = abs((sums[hi] - d) / len(groups[hi]) - (sums[lo] + d) / len(groups[lo]))
                if new_gap < best_gap:
                    best, best_gap = (idx, jdx, d), new_gap
        if best is None:
            return
        idx, jdx, d = best
        e, f = groups[hi][idx], groups[lo][jdx]
        groups[hi][idx], groups[lo][jdx] = f, e
        sums[hi] -= d
        sums[lo] += d
        persons[hi][e.person] -= 1
        persons[hi][f.person] += 1
        persons[lo][f.person] -= 1
        persons[lo][e.person] += 1
