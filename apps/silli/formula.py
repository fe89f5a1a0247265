"""Pairing formulas of the Silli system: validity, certificates and selection.

A *formula* is a tuple of k distinct positive integers ``d1 < ... < dk``. In a
closed circle of ``n`` seats (numbered 1..n, n followed by 1) seat ``x`` plays
White against ``x + d_i`` and Black against ``x - d_i``: 2k games.

Validity follows ``docs/silli.md`` §1. With ``S = {±d_i mod n}``:

* **regular**: the 2k elements of S are distinct and non-zero;
* **principle 1** (players who meet share no opponent): no ``s1 + s2 + s3 ≡ 0``;
* **principle 2** (players who don't meet share at most two opponents): every
  ``s1 + s2 + s3 + s4 ≡ 0`` cancels in pairs or is ``4s ≡ 0``.

:func:`is_valid` decides by that algebraic criterion; :func:`certificate`
checks the same thing by brute force (it counts the common opponents of every
pair of seats) and names the seats that break a principle.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

Formula = tuple[int, ...]


class NoFormulaError(ValueError):
    """No valid formula exists for the circle; the message says what to do instead."""


# ---------------------------------------------------------------------------
# Construction of the natural formulas (the paper's greedy "missing difference")
# ---------------------------------------------------------------------------


def _differences(formula: Sequence[int]) -> set[int]:
    points = [0, *formula, *(-d for d in formula)]
    return {a - b for a in points for b in points if a > b}


def greedy_formula(k: int, *, odd: bool = False, reserve: bool = False) -> Formula:
    """The paper's construction (docs/silli.md §2): each number is the last one plus the
    smallest difference not yet present (only even differences for the all-odd family).

    ``reserve=True`` gives the *second natural* formula: the last number uses
    the second missing difference instead of the first (1.4.10.22,
    1.4.10.17.32, 1.5.13.33, 1.5.13.29.51).
    """
    if k < 1:
        raise ValueError("a formula needs at least one number")
    formula = [1]
    step = 2 if odd else 1
    while len(formula) < k:
        present = _differences(formula)
        missing = (g for g in range(step, 10 * formula[-1] + 10, step) if g not in present)
        gap = next(missing)
        if reserve and len(formula) == k - 1:
            gap = next(missing)
        formula.append(formula[-1] + gap)
    return tuple(formula)


# ---------------------------------------------------------------------------
# Validity: the algebraic criterion
# ---------------------------------------------------------------------------


def signed_residues(n: int, formula: Sequence[int]) -> list[int]:
    """``S``: the residues ``+d_i`` then ``-d_i`` mod n (2k entries, maybe repeated)."""
    return [d % n for d in formula] + [(-d) % n for d in formula]


def _is_regular(n: int, s: list[int]) -> bool:
    return 0 not in s and len(set(s)) == len(s)


def bad_relations(n: int, formula: Sequence[int]) -> list[str]:
    """The relations that make a formula invalid on n seats, in words.

    Empty exactly when the formula is valid. Each entry names the offending
    numbers, e.g. ``"29+29+29+17 ≡ 0 (mod 104)"``.
    """
    if n < 3:
        return [f"a closed circle needs at least 3 seats, not {n}"]
    out: list[str] = []
    ds = list(formula)
    if len(set(ds)) != len(ds) or any(d <= 0 for d in ds):
        return ["the numbers of a formula must be distinct positive integers"]
    for i, a in enumerate(ds):
        if a % n == 0:
            out.append(f"{a} ≡ 0 (mod {n}): a player would meet himself")
        elif (2 * a) % n == 0:
            out.append(f"2·{a} = {n}: the same two players would meet twice (double game)")
        for b in ds[i + 1 :]:
            if (a - b) % n == 0:
                out.append(f"{a} ≡ {b} (mod {n}): the same opponent twice with one colour")
            elif (a + b) % n == 0:
                out.append(f"{a}+{b} ≡ 0 (mod {n}): the same two players would meet twice")
    if out:
        return out
    signed = [(d, f"+{d}") for d in ds] + [(-d, f"-{d}") for d in ds]
    seen: set[tuple[str, ...]] = set()
    for x, lx in signed:
        for y, ly in signed:
            for z, lz in signed:
                if (x + y + z) % n == 0:
                    key = tuple(sorted((lx, ly, lz)))
                    if key not in seen:
                        seen.add(key)
                        out.append(
                            f"{_relation_text(key)} ≡ 0 (mod {n}): "
                            "players who meet would share an opponent (principle 1)"
                        )
    pair_sums: dict[int, list[tuple[tuple[int, str], tuple[int, str]]]] = {}
    for i, p in enumerate(signed):
        for q in signed[i:]:
            pair_sums.setdefault((p[0] + q[0]) % n, []).append((p, q))
    for v, pairs in pair_sums.items():
        if v == 0:
            continue
        for p1, p2 in pairs:
            for q1, q2 in pair_sums.get((-v) % n, []):
                if sorted((q1[0] % n, q2[0] % n)) == sorted((-p1[0] % n, -p2[0] % n)):
                    continue  # cancelling: {a, b, -a, -b}
                if p1 == p2 == q1 == q2:
                    continue  # 4s ≡ 0 is harmless
                key = tuple(sorted((p1[1], p2[1], q1[1], q2[1])))
                if key not in seen:
                    seen.add(key)
                    out.append(
                        f"{_relation_text(key)} ≡ 0 (mod {n}): "
                        "players who don't meet would share 3 or more opponents (principle 2)"
                    )
    return out


def _relation_text(labels: tuple[str, ...]) -> str:
    ordered = sorted(labels, key=lambda lab: (lab[0] == "-", -int(lab[1:])))
    return "".join(ordered).lstrip("+")


def is_valid(n: int, formula: Sequence[int]) -> bool:
    """True when the formula is regular and keeps both principles on n seats.

    Decided by the algebraic criterion of docs/silli.md §1 (no 3-term relation,
    every 4-term relation cancelling or ``4s ≡ 0``), in O(k²).
    """
    if n < 3 or not formula:
        return False
    s = signed_residues(n, formula)
    if not _is_regular(n, s):
        return False
    sset = set(s)
    # r(v): ordered pairs (a, b) of S with a + b ≡ v.
    r: dict[int, int] = {}
    for a in s:
        for b in s:
            v = (a + b) % n
            r[v] = r.get(v, 0) + 1
    for v, count in r.items():
        if v in sset:
            return False  # a + b ≡ c: principle 1
        if v != 0 and count > 2:
            return False  # three or more common opponents: principle 2
    return True


# ---------------------------------------------------------------------------
# Validity: the brute-force certificate
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Violation:
    """Two seats (1-based) that break a rule, and the opponents they share."""

    rule: str  # "regularity", "principle 1" or "principle 2"
    seats: tuple[int, int]
    common: tuple[int, ...] = ()

    def __str__(self) -> str:
        a, b = self.seats
        if self.rule == "regularity":
            return f"seats {a} and {b} would meet more than once"
        shared = ", ".join(str(c) for c in self.common)
        if self.rule == "principle 1":
            return f"seats {a} and {b} meet and share opponent(s) {shared} (principle 1)"
        return f"seats {a} and {b} don't meet but share opponents {shared} (principle 2)"

    def as_dict(self) -> dict[str, object]:
        return {"rule": self.rule, "seats": list(self.seats), "common": list(self.common)}


@dataclass(frozen=True, slots=True)
class Certificate:
    """The result of checking every pair of seats of a closed circle."""

    n: int
    formula: Formula
    violations: tuple[Violation, ...] = field(default_factory=tuple)
    violation_count: int = 0

    @property
    def valid(self) -> bool:
        return self.violation_count == 0


@lru_cache(maxsize=512)
def certificate(n: int, formula: Formula, limit: int = 20) -> Certificate:
    """Brute force: count the common opponents of every pair of seats.

    Checks that every seat has 2k different opponents (k with each colour),
    that two seats who meet share no opponent (principle 1) and that two seats
    who don't meet share at most two (principle 2). Returns the first
    ``limit`` violations in seat order and the total count.
    """
    formula = tuple(formula)
    violations: list[Violation] = []
    count = 0
    if n < 3:
        return Certificate(n, formula, (Violation("regularity", (1, 1)),), 1)
    offsets = [d % n for d in formula] + [(-d) % n for d in formula]
    neighbours = [[(x + o) % n for o in offsets] for x in range(n)]
    for x in range(n):
        opp = neighbours[x]
        opp_set = set(opp)
        for y in sorted(opp_set):
            if y == x or opp.count(y) > 1:
                if x <= y:
                    count += 1
                    if len(violations) < limit:
                        violations.append(Violation("regularity", (x + 1, y + 1)))
        shared: dict[int, list[int]] = {}
        for y in opp_set:
            for z in set(neighbours[y]):
                if z > x:
                    shared.setdefault(z, []).append(y)
        for z in sorted(shared):
            common = shared[z]
            meets = z in opp_set
            if (meets and common) or (not meets and len(common) > 2):
                count += 1
                if len(violations) < limit:
                    rule = "principle 1" if meets else "principle 2"
                    violations.append(
                        Violation(rule, (x + 1, z + 1), tuple(sorted(c + 1 for c in common)))
                    )
    return Certificate(n, formula, tuple(violations), count)


# ---------------------------------------------------------------------------
# Search: the valid formula with the smallest largest element, then lexicographic
# ---------------------------------------------------------------------------


def counting_lower_bound(k: int, *, odd: bool = False, even_n: bool = False) -> int:
    """The smallest n for which a valid k-number formula can exist (docs/silli.md §1).

    Any circulant needs ``n >= 2k² + 2k`` (``2k² + 2k + 1`` unless n/4 is a
    formula number); an all-odd formula on an even circle is bipartite and
    needs ``n >= 4k²`` (``4k² + 2`` unless n/4 is a formula number).
    """
    if odd and even_n:
        return 4 * k * k
    return 2 * k * k + 2 * k


@lru_cache(maxsize=1024)
def search_formula(n: int, k: int, odd: bool = False) -> Formula | None:
    """The valid formula with the smallest largest element, ties lexicographic.

    Exhaustive over numbers below n/2 (d and n - d give the same circle), so
    ``None`` means no valid formula of k numbers exists for n seats (of odd
    numbers only when ``odd``).
    """
    return next(valid_formulas(n, k, odd), None)


class _OutOfBudget(Exception):
    pass


@lru_cache(maxsize=4096)
def formula_exists(n: int, k: int, odd: bool = False, budget: int | None = None) -> bool | None:
    """Whether a valid formula of k numbers exists for n seats (of odd numbers only when
    ``odd``): the answer of :func:`search_formula`, but quicker where it can be (the counting
    bound, the natural and reserve formulas first).

    ``budget`` bounds the search by the numbers it may try; ``None`` when it ran out before
    knowing (no budget: the exhaustive search, which for 12 or more games near the smallest
    circles can take minutes).
    """
    if k < 1 or n < counting_lower_bound(k, odd=odd, even_n=n % 2 == 0):
        return False
    for reserve in (False, True):
        if is_valid(n, greedy_formula(k, odd=odd, reserve=reserve)):
            return True
    if budget is None:
        return search_formula(n, k, odd) is not None
    left = [budget]

    def tick() -> None:
        left[0] -= 1
        if left[0] < 0:
            raise _OutOfBudget

    try:
        return next(valid_formulas(n, k, odd, tick=tick), None) is not None
    except _OutOfBudget:
        return None


def valid_formulas(
    n: int,
    k: int,
    odd: bool = False,
    smallest: int = 1,
    *,
    tick: Callable[[], None] | None = None,
) -> Iterator[Formula]:
    """Every valid formula of k numbers in ``[smallest, n/2)``: by largest element,
    then lexicographic.

    ``tick`` is called once for every number tried (a caller's way to bound the work:
    it may raise to stop the search).

    With ``smallest = m`` every formula found keeps m consecutive seats apart
    (no two of them are a formula number away from each other).

    A backtracking search: a set that breaks a rule breaks it in every larger
    set too, so each number is added only while the partial formula stays
    valid (checked incrementally, see :func:`_try_add`).
    """
    if k < 1 or n < counting_lower_bound(k, odd=odd, even_n=n % 2 == 0):
        return
    step = 2 if odd else 1
    first = smallest + (1 if odd and smallest % 2 == 0 else 0)
    for largest in range(first + step * (k - 1), (n - 1) // 2 + 1, step):
        r = [0] * n
        signed: list[int] = []
        if tick is not None:
            tick()
        if _try_add(n, largest, signed, r):
            yield from _extend(n, k, largest, step, first, [largest], signed, r, tick)


def _extend(
    n: int,
    k: int,
    largest: int,
    step: int,
    start: int,
    members: list[int],
    signed: list[int],
    r: list[int],
    tick: Callable[[], None] | None = None,
) -> Iterator[Formula]:
    if len(members) == k:
        yield tuple(sorted(members))
        return
    need = k - len(members)
    for d in range(start, largest - step * (need - 1), step):
        if tick is not None:
            tick()
        r2 = r.copy()
        s2 = signed.copy()
        if _try_add(n, d, s2, r2):
            members.append(d)
            yield from _extend(n, k, largest, step, d + step, members, s2, r2, tick)
            members.pop()


def _try_add(n: int, d: int, signed: list[int], r: list[int]) -> bool:
    """Add ±d to the signed set if the formula stays valid; update r in place.

    ``r[v]`` counts ordered pairs of the signed set with sum v. Adding ±d only
    changes r where a new pair lands, so only those residues are re-checked.
    """
    e1, e2 = d % n, (-d) % n
    if e1 == 0 or e1 == e2 or e1 in signed or e2 in signed:
        return False
    if r[e1] or r[e2]:
        return False
    touched: list[int] = []
    for s in signed:
        for e in (e1, e2):
            v = (s + e) % n
            r[v] += 2
            touched.append(v)
    v1, v2 = (2 * e1) % n, (2 * e2) % n
    r[v1] += 1
    r[v2] += 1
    r[0] += 2
    touched.append(v1)
    touched.append(v2)
    signed.append(e1)
    signed.append(e2)
    members = set(signed)
    for v in touched:
        if v in members:
            return False
        if v != 0 and r[v] > 2:
            return False
    return True


# ---------------------------------------------------------------------------
# Selection
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class FormulaChoice:
    """The formula chosen (or given) for a closed circle, and why."""

    n: int
    games: int
    formula: Formula
    rule: str  # "natural", "reserve", "searched" or "given"
    odd: bool = False

    @property
    def k(self) -> int:
        return len(self.formula)


def formula_text(formula: Sequence[int]) -> str:
    """The usual dotted notation, e.g. ``1.4.10.17.29``."""
    return ".".join(str(d) for d in formula)


def games_to_k(games: int) -> int:
    if games < 2 or games % 2:
        raise NoFormulaError(
            f"{games} games per player is not possible in a closed circle: a formula of "
            "k numbers gives every player 2k games (k with White, k with Black); "
            "choose an even number such as 8 or 10."
        )
    return games // 2


def choose_formula(n: int, games: int, *, odd: bool = False) -> FormulaChoice:
    """The formula for n seats and ``games`` games per player (docs/silli.md §6).

    First natural, then second natural (reserve), then the searched formula
    with the smallest largest element. Raises :class:`NoFormulaError` with the
    reason and the alternatives when none exists.
    """
    k = games_to_k(games)
    natural = greedy_formula(k, odd=odd)
    if is_valid(n, natural):
        return FormulaChoice(n, games, natural, "natural", odd)
    reserve = greedy_formula(k, odd=odd, reserve=True)
    if is_valid(n, reserve):
        return FormulaChoice(n, games, reserve, "reserve", odd)
    found = search_formula(n, k, odd)
    if found is not None:
        return FormulaChoice(n, games, found, "searched", odd)
    raise NoFormulaError(no_formula_reason(n, games, odd=odd))


def check_given(n: int, games: int, formula: Sequence[int]) -> FormulaChoice:
    """Accept a formula given by hand if it has ``games / 2`` numbers and is valid.

    Raises :class:`NoFormulaError` listing the violated relations and the
    first violating seats otherwise.
    """
    k = games_to_k(games)
    given = tuple(sorted(formula))
    if len(given) != k:
        raise NoFormulaError(
            f"the formula {formula_text(given)} has {len(given)} numbers; "
            f"{games} games per player need {k}"
        )
    problems = bad_relations(n, given)
    if problems:
        seats = certificate(n, given, 3).violations
        detail = "; ".join(problems[:3]) + ("; e.g. " + "; ".join(map(str, seats)) if seats else "")
        raise NoFormulaError(f"{formula_text(given)} is not valid for {n} seats: {detail}")
    return FormulaChoice(n, games, given, "given", all(d % 2 for d in given))


def no_formula_reason(n: int, games: int, *, odd: bool = False) -> str:
    """A sentence saying why no formula exists and what the organizer can do."""
    k = games_to_k(games)
    family = "all-odd " if odd else ""
    if odd and n % 2 == 0 and n < counting_lower_bound(k, odd=True, even_n=True):
        why = (
            f"an {family}formula on an even circle needs at least {4 * k * k} seats "
            f"for {games} games"
        )
    elif n < counting_lower_bound(k):
        why = f"a closed circle needs at least {2 * k * k + 2 * k} seats for {games} games"
    else:
        why = "an exhaustive search found none"
    options = []
    for other_k in range(k - 1, 0, -1):
        if search_formula(n, other_k, odd) is not None or is_valid(n, greedy_formula(other_k)):
            options.append(f"{2 * other_k} games per player")
            break
    if odd:
        options.append("the ordinary (not all-odd) formulas")
    options.append(f"a round robin ({n - 1} games each)")
    options.append("larger groups")
    return (
        f"No valid {games}-game {family}formula exists for a closed circle of {n} seats "
        f"({why}). Use {', or '.join(options)}."
    )
