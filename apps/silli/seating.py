"""Seating a group in its closed circle so that no forbidden pair meets.

Forbidden pairs: two entries of one person; two entrants of one nation when the
stage separates nations; two entrants who met in an earlier stage when the
stage avoids rematches. The search is random (every choice comes from the
group's :class:`~apps.silli.rng.ChanceStream`) and deterministic:

1. **Construction.** Seats are taken in a shuffled order. Each nation with two
   or more entrants, largest first, gets a set of free seats no two of which
   meet: a random greedy pass from a random point of that order, then, if the
   greedy pass falls short, a randomly placed *arc* (see
   :func:`~apps.silli.circle.arcs`: seats that never meet, such as one parity
   class of a bipartite circle) with enough free seats, and failing that a tabu
   search for an independent set of that size among the free seats. The
   remaining entrants take the remaining seats in order.
2. **Repair.** While any forbidden pair meets, a tabu search swaps the seats of
   two entrants, choosing the swap that removes the most conflicts (rematches and
   same-person pairs weigh more than same-nation pairs).

Both searches stop after a fixed number of steps, so a seating either is found
or :func:`seat_circle` returns ``None`` and the caller tries another formula.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .circle import arc_seats, arcs, neighbours
from .entrants import Entrant
from .rng import ChanceStream

HARD = 1_000_000  # weight of a rematch or same-person game against one same-nation game
INDEPENDENT_SET_STEPS = 4000
ARC_TRIES = 12
REPAIR_STEPS = 3000


@dataclass(frozen=True, slots=True)
class Conflict:
    """A game between a forbidden pair: seats (1-based), entrant codes and why."""

    white_seat: int
    black_seat: int
    white: str
    black: str
    reason: str  # "same nation", "same person" or "met before"


def forbidden_reason(
    a: Entrant, b: Entrant, separate_nations: bool, met_before: Mapping[str, frozenset[str]]
) -> str | None:
    """Why ``a`` and ``b`` must not meet, or ``None`` if they may."""
    if a.person == b.person:
        return "same person"
    if b.code in met_before.get(a.code, ()):
        return "met before"
    if separate_nations and a.nation == b.nation:
        return "same nation"
    return None


def seat_circle(
    entrants: Sequence[Entrant],
    formula: tuple[int, ...],
    rng: ChanceStream,
    *,
    separate_nations: bool,
    met_before: Mapping[str, frozenset[str]],
    allowed_nation_games: int = 0,
) -> list[Entrant] | None:
    """Entrants in seat order (index 0 is seat 1), or ``None`` if no seating was found.

    A seating is accepted when no same-person pair or rematch meets and at
    most ``allowed_nation_games`` same-nation games are played.
    """
    n = len(entrants)
    nbrs = neighbours(n, tuple(formula))
    people = sorted(entrants, key=lambda e: e.code)
    rng.shuffle(people)

    if separate_nations:
        class_of = [e.nation for e in people]
    else:
        class_of = [e.code for e in people]
    index = {e.code: i for i, e in enumerate(people)}
    partners: list[tuple[int, ...]] = []
    by_person: dict[str, list[int]] = {}
    for i, e in enumerate(people):
        by_person.setdefault(e.person, []).append(i)
    for i, e in enumerate(people):
        mates = {j for j in by_person[e.person] if j != i}
        mates.update(index[c] for c in met_before.get(e.code, ()) if c in index)
        partners.append(tuple(sorted(mates)))

    seat_order = list(range(n))
    rng.shuffle(seat_order)
    placed = _construct(n, tuple(formula), class_of, seat_order, rng)
    seat_of = _repair(n, nbrs, class_of, partners, placed, rng, allowed_nation_games)
    if seat_of is None:
        return None
    seated: list[Entrant | None] = [None] * n
    for i, s in enumerate(seat_of):
        seated[s] = people[i]
    return [e for e in seated if e is not None]


def _construct(
    n: int,
    formula: tuple[int, ...],
    class_of: list[str],
    seat_order: list[int],
    rng: ChanceStream,
) -> list[int]:
    members: dict[str, list[int]] = {}
    for i, c in enumerate(class_of):
        members.setdefault(c, []).append(i)
    classes = sorted(members, key=lambda c: (-len(members[c]), c))
    free = [True] * n
    seat_of = [-1] * n
    for c in classes:
        people = members[c]
        if len(people) == 1:
            break
        seats = _independent_seats(len(people), free, formula, seat_order, rng)
        for person, seat in zip(people, seats, strict=True):
            seat_of[person] = seat
            free[seat] = False
    rest = [s for s in seat_order if free[s]]
    unseated = [i for i in range(n) if seat_of[i] < 0]
    for person, seat in zip(unseated, rest, strict=True):
        seat_of[person] = seat
    return seat_of


def _independent_seats(
    m: int,
    free: list[bool],
    formula: tuple[int, ...],
    seat_order: list[int],
    rng: ChanceStream,
) -> list[int]:
    """m free seats, no two of which meet if such a set can be found.

    If the search fails, returns its best set (with the fewest meetings) so
    that the repair step can carry on from there.
    """
    n = len(free)
    nbrs = neighbours(n, formula)
    start = rng.below(n)
    walk = seat_order[start:] + seat_order[:start]
    chosen: list[int] = []
    blocked: set[int] = set()  # neighbours of the seats already chosen
    for s in walk:
        if free[s] and s not in blocked:
            chosen.append(s)
            if len(chosen) == m:
                return chosen
            blocked.update(nbrs[s])
    candidates = [s for s in walk if free[s]]
    long_enough = [la for la in arcs(n, formula) if la[0] >= m]
    best_arc: list[int] = []
    for _ in range(ARC_TRIES if long_enough else 0):
        length, multiplier = long_enough[rng.below(len(long_enough))]
        inside = set(arc_seats(n, multiplier, length, rng.below(n)))
        usable = [s for s in candidates if s in inside]
        if len(usable) >= m:
            return usable[:m]
        if len(usable) > len(best_arc):
            best_arc = usable
    start_set = best_arc if len(best_arc) > len(chosen) else chosen
    return _tabu_independent_set(m, candidates, nbrs, start_set, rng)


def _tabu_independent_set(
    m: int,
    candidates: list[int],
    nbrs: tuple[tuple[int, ...], ...],
    start: list[int],
    rng: ChanceStream,
) -> list[int]:
    n = len(nbrs)
    inside = [False] * n
    hits = [0] * n  # chosen neighbours of each seat
    chosen: list[int] = []

    def add(s: int) -> None:
        inside[s] = True
        chosen.append(s)
        for t in nbrs[s]:
            hits[t] += 1

    def remove(s: int) -> None:
        inside[s] = False
        chosen.remove(s)
        for t in nbrs[s]:
            hits[t] -= 1

    for s in start:
        add(s)
    while len(chosen) < m:
        add(min((s for s in candidates if not inside[s]), key=lambda s: hits[s]))
    conflicts = sum(hits[s] for s in chosen) // 2
    best, best_conflicts = list(chosen), conflicts
    tabu = [0] * n
    size = len(candidates)
    for step in range(1, INDEPENDENT_SET_STEPS + 1):
        if conflicts == 0:
            return chosen
        hot = [s for s in chosen if hits[s]]
        out = hot[rng.below(len(hot))]
        out_nbrs = nbrs[out]
        offset = rng.below(size)
        pick, pick_cost = -1, n
        for j in range(size):
            s = candidates[(offset + j) % size]
            if inside[s]:
                continue
            cost = hits[s] - (1 if s in out_nbrs else 0)
            if cost < pick_cost and (
                tabu[s] < step or conflicts - hits[out] + cost < best_conflicts
            ):
                pick, pick_cost = s, cost
                if cost == 0:
                    break
        if pick < 0:
            continue
        conflicts += pick_cost - hits[out]
        remove(out)
        add(pick)
        tabu[out] = step + 7 + rng.below(m // 4 + 3)
        if conflicts < best_conflicts:
            best, best_conflicts = list(chosen), conflicts
    return chosen if conflicts == 0 else best


def _repair(
    n: int,
    nbrs: tuple[tuple[int, ...], ...],
    class_of: list[str],
    partners: list[tuple[int, ...]],
    seat_of: list[int],
    rng: ChanceStream,
    allowed_nation_games: int,
) -> list[int] | None:
    """Swap seats until no forbidden pair meets; ``None`` if the budget runs out."""
    who = [0] * n
    for i, s in enumerate(seat_of):
        who[s] = i
    adjacent = [frozenset(a) for a in nbrs]
    around: list[dict[str, int]] = [{} for _ in range(n)]  # classes next to each seat
    for s in range(n):
        counts = around[s]
        for t in nbrs[s]:
            c = class_of[who[t]]
            counts[c] = counts.get(c, 0) + 1

    def cost(i: int, s: int, skip: int) -> int:
        """Conflicts entrant i would have on seat s, not counting seat ``skip``."""
        c = class_of[i]
        same = around[s].get(c, 0)
        if skip in adjacent[s] and class_of[who[skip]] == c:
            same -= 1
        total = same
        for j in partners[i]:
            t = seat_of[j]
            if t != skip and t in adjacent[s]:
                total += HARD - (1 if class_of[j] == c else 0)
        return total

    def move(i: int, s: int) -> None:
        old = seat_of[i]
        c = class_of[i]
        for t in nbrs[old]:
            around[t][c] -= 1
        for t in nbrs[s]:
            around[t][c] = around[t].get(c, 0) + 1
        seat_of[i] = s
        who[s] = i

    def acceptable(total: int) -> bool:
        return total <= allowed_nation_games  # no hard conflict, few enough nation games

    total = sum(cost(who[s], s, -1) for s in range(n)) // 2
    best_total = total
    tabu: dict[tuple[int, int], int] = {}
    for step in range(1, REPAIR_STEPS + 1):
        if acceptable(total):
            return seat_of
        hot = [s for s in range(n) if cost(who[s], s, -1) > 0]
        a = hot[rng.below(len(hot))]
        x = who[a]
        offset = rng.below(n)
        pick, pick_delta = -1, None
        for j in range(n):
            b = (offset + j) % n
            y = who[b]
            if b == a or class_of[y] == class_of[x] and not partners[x] and not partners[y]:
                continue
            delta = cost(y, a, b) + cost(x, b, a) - cost(x, a, b) - cost(y, b, a)
            if pick_delta is not None and delta >= pick_delta:
                continue
            if tabu.get((x, b), 0) >= step or tabu.get((y, a), 0) >= step:
                if total + delta >= best_total:
                    continue
            pick, pick_delta = b, delta
        if pick < 0 or pick_delta is None:
            continue
        y = who[pick]
        tabu[(x, a)] = step + 10 + rng.below(10)
        tabu[(y, pick)] = step + 10 + rng.below(10)
        move(x, pick)
        move(y, a)
        total += pick_delta
        best_total = min(best_total, total)
    return seat_of if acceptable(total) else None
