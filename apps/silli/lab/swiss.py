"""Swiss pairings for the lab: a fast approximation of the Dutch system, and the exact engine.

Players are the indices 0..n−1 of a field in rating order; the initial order (TPN) is the
same, so player ``i`` has TPN ``i + 1``. Scores are in half-points. The pairing score is the
score plus the round's virtual points of :mod:`apps.silli.swiss.acceleration` (none, Baku or
Milvang's general scheme), exactly as the exact engine counts them.

**The fast approximation** (:func:`pair_fast`), one round:

1. *Bye.* With an odd number of players, the pairing-allocated bye goes to the player with
   the lowest pairing score, the lowest ranked among those, who has not had a bye (so nobody
   gets two).
2. *Score groups from the top.* The others are ordered by pairing score, then TPN, and cut
   into score groups. A group's bracket is the players floated down from above (MDPs, first)
   and its residents.
3. *MDPs first.* The MDPs, from the top, meet residents: each the highest resident it may
   meet among those that keep the most colour-fitting pairs (below).
4. *Top half against bottom half.* The remaining residents are split into S1 (the top
   ⌊m/2⌋) and S2 (the rest); each S1 player, from the top, meets the first S2 player still
   free whom it may meet and who keeps the number of pairs in which both players get their
   colour preference at the most the two halves allow (counted from the numbers wanting
   White, Black or either): S1[i] meets S2[i] unless a rematch or the colours say otherwise,
   which is the Dutch system's lowest transposition among those with the fewest colour
   failures. S1 players left over meet each other when they can.
5. *Floats.* Whoever is still unpaired (the odd player, the last of S2, or a player with no
   partner left) floats down into the next group. If that leaves more players unpaired than
   the bracket's parity needs, a short search looks for a pairing of the whole bracket (all
   but its lowest possible player when odd), as the Dutch system maximises the pairs (C6).
6. *No rematches, ever.* If the last group cannot be completed, the brackets above are
   merged back one by one and the merged pool is paired by a depth-first search that tries,
   for its first free player, partners from the ideal one (half the pool below) outwards,
   until every player is paired without a rematch.
   "May meet" means: not met before and (as C3) not two players with the same absolute
   colour preference, unless one is a topscorer in the last round; only this final search
   gives up C3 when nothing else works.
7. *Colours by preference,* as the Dutch rules allocate them (C.04.3 Art. 5.2): grant both
   preferences; else the stronger preference (absolute > strong > mild; between two absolute
   ones the wider colour difference); else alternate to the last round the two had different
   colours; else the higher ranked player's preference; with no preference at all, the
   higher ranked player gets White when its TPN is odd.

What is left out of the Dutch system: exchanges between S1 and S2 for colours, strong
preferences (C13), the float history (C14–C21) and the completion look-ahead. These move a
few pairs within a score group and barely change rating differences: on 100 tournaments of
108 players (1000–2000, linear, 9 rounds, plain or Baku) every share of games over a rating
difference agrees with the exact engine's within one percentage point, 0.7 at most
(tests/silli/lab/test_slow.py).

**The exact engine** (:class:`ExactSwiss`) is :func:`apps.silli.swiss.dutch.pair_round` on a
:class:`~apps.silli.swiss.trf.Tournament` built from the same state; it costs about a tenth
of a second per round for 108 players and seconds for 432.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..swiss.acceleration import Acceleration, virtual_points
from ..swiss.dutch import pair_round
from ..swiss.trf import Colour, RoundCell, Tournament, TrfPlayer

WHITE = 1
BLACK = -1
FAST = "fast"
EXACT = "exact"
ENGINES = (FAST, EXACT)
SEARCH_LIMIT = 200_000
BRACKET_SEARCH_LIMIT = 2_000


class SwissLabError(ValueError):
    """A round that cannot be paired without a rematch (e.g. a Swiss with nearly as many
    rounds as players)."""


@dataclass
class SwissState:
    """The state of a Swiss tournament between rounds."""

    ratings: Sequence[int]
    rounds: int
    acceleration: Acceleration = Acceleration.NONE
    score: list[int] = field(default_factory=list)
    opponents: list[set[int]] = field(default_factory=list)
    colours: list[list[int]] = field(default_factory=list)
    had_bye: list[bool] = field(default_factory=list)
    virtual: dict[int, dict[int, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        n = len(self.ratings)
        self.score = [0] * n
        self.opponents = [set() for _ in range(n)]
        self.colours = [[] for _ in range(n)]
        self.had_bye = [False] * n
        self.virtual = virtual_points(list(range(n)), self.rounds, self.acceleration)

    @property
    def size(self) -> int:
        return len(self.ratings)

    def pairing_score(self, player: int, round_number: int) -> int:
        return self.score[player] + self.virtual[player].get(round_number, 0)

    def record(self, white: int, black: int, white_result: int) -> None:
        """A played game; ``white_result`` is White's score in half-points."""
        self.opponents[white].add(black)
        self.opponents[black].add(white)
        self.colours[white].append(WHITE)
        self.colours[black].append(BLACK)
        self.score[white] += white_result
        self.score[black] += 2 - white_result

    def record_bye(self, player: int) -> None:
        """The pairing-allocated bye: a win's points, no game."""
        self.had_bye[player] = True
        self.score[player] += 2


@dataclass(frozen=True, slots=True)
class RoundPairing:
    pairs: tuple[tuple[int, int], ...]
    """(white, black) players."""
    bye: int | None


# ---------------------------------------------------------------------------
# Colours
# ---------------------------------------------------------------------------

NO_PREFERENCE, MILD, STRONG, ABSOLUTE = 0, 1, 2, 3


def preference(colours: Sequence[int]) -> tuple[int, int]:
    """(colour wanted or 0, strength) from the colours played, as C.04.3 defines them."""
    if not colours:
        return 0, NO_PREFERENCE
    difference = sum(colours)
    if difference > 1:
        return BLACK, ABSOLUTE
    if difference < -1:
        return WHITE, ABSOLUTE
    if len(colours) >= 2 and colours[-1] == colours[-2]:
        return -colours[-1], ABSOLUTE
    if difference == 1:
        return BLACK, STRONG
    if difference == -1:
        return WHITE, STRONG
    return -colours[-1], MILD


def allocate(state: SwissState, higher: int, lower: int) -> tuple[int, int]:
    """(white, black) for a pair; ``higher`` is the higher ranked of the two."""
    a_pref, a_strength = preference(state.colours[higher])
    b_pref, b_strength = preference(state.colours[lower])

    def give(player: int, colour: int) -> tuple[int, int]:
        other = lower if player == higher else higher
        return (player, other) if colour == WHITE else (other, player)

    if a_pref and a_pref != b_pref:
        return give(higher, a_pref)
    if not a_pref and b_pref:
        return give(lower, b_pref)
    if a_pref:
        if a_strength != b_strength:
            return give(higher if a_strength > b_strength else lower, a_pref)
        a_diff, b_diff = abs(sum(state.colours[higher])), abs(sum(state.colours[lower]))
        if a_strength == ABSOLUTE and a_diff != b_diff:
            return give(higher if a_diff > b_diff else lower, a_pref)
        for ca, cb in zip(
            reversed(state.colours[higher]), reversed(state.colours[lower]), strict=False
        ):
            if ca != cb:
                return give(higher, -ca)
        return give(higher, a_pref)
    return give(higher, WHITE if higher % 2 == 0 else BLACK)


# ---------------------------------------------------------------------------
# The fast approximation
# ---------------------------------------------------------------------------


def choose_bye(state: SwissState, round_number: int) -> int | None:
    """The bye of step 1, or None for an even number of players."""
    if state.size % 2 == 0:
        return None
    eligible = [p for p in range(state.size) if not state.had_bye[p]]
    if not eligible:
        raise SwissLabError(f"round {round_number}: every player has had the bye")
    return min(eligible, key=lambda p: (state.pairing_score(p, round_number), -p))


class _Rules:
    """Who may meet whom in one round, and who would both get their colour."""

    def __init__(self, state: SwissState, round_number: int) -> None:
        self.opponents = state.opponents
        self.preferences = [preference(c) for c in state.colours]
        last = round_number == state.rounds
        self.topscorer = [last and s > round_number - 1 for s in state.score]

    def allowed(self, p: int, q: int, strict: bool = True) -> bool:
        """No rematch; with ``strict``, not two non-topscorers with the same absolute
        colour preference either (C3)."""
        if q in self.opponents[p]:
            return False
        if not strict:
            return True
        (cp, sp), (cq, sq) = self.preferences[p], self.preferences[q]
        return not (
            sp == ABSOLUTE
            and sq == ABSOLUTE
            and cp == cq
            and not self.topscorer[p]
            and not self.topscorer[q]
        )

    def fits(self, p: int, q: int) -> bool:
        """Both can have the colour they prefer."""
        cp, cq = self.preferences[p][0], self.preferences[q][0]
        return cp == 0 or cq == 0 or cp != cq

    def colour_of(self, p: int) -> int:
        return self.preferences[p][0]


def _counts(rules: _Rules, players: Sequence[int]) -> list[int]:
    """How many of ``players`` want White, want Black, have no preference."""
    counts = [0, 0, 0]
    for p in players:
        c = rules.colour_of(p)
        counts[0 if c == WHITE else 1 if c == BLACK else 2] += 1
    return counts


def _most_fits(c1: Sequence[int], c2: Sequence[int]) -> int:
    """The most pairs between two groups with colour counts ``c1`` (each paired) and ``c2``
    in which both players can have their preference (rematches aside)."""
    w1, b1, n1 = c1
    w2, b2, n2 = c2
    wb, bw = min(w1, b2), min(b1, w2)
    into_none = min(n2, (w1 - wb) + (b1 - bw))
    spare = (b2 - wb) + (w2 - bw) + (n2 - into_none)
    return wb + bw + into_none + min(n1, spare)


def _assign(
    s1: Sequence[int], s2: Sequence[int], rules: _Rules
) -> tuple[list[tuple[int, int]], list[int], list[int]]:
    """Pair each of ``s1`` (from the top) with a player of ``s2``: the first one in ``s2``'s
    order that keeps the number of colour-fitting pairs at its maximum (the Dutch system's
    lowest transposition among those with the fewest colour failures), rematches never.

    Returns (pairs, unpaired of s1, unpaired of s2)."""
    counts1, counts2 = _counts(rules, s1), _counts(rules, s2)
    free = [True] * len(s2)
    pairs: list[tuple[int, int]] = []
    alone: list[int] = []
    for p in s1:
        cp = rules.colour_of(p)
        kp = 0 if cp == WHITE else 1 if cp == BLACK else 2
        target = _most_fits(counts1, counts2)
        counts1[kp] -= 1
        best, best_value = -1, -1
        for k, q in enumerate(s2):
            if not free[k] or not rules.allowed(p, q):
                continue
            cq = rules.colour_of(q)
            kq = 0 if cq == WHITE else 1 if cq == BLACK else 2
            counts2[kq] -= 1
            value = rules.fits(p, q) + _most_fits(counts1, counts2)
            counts2[kq] += 1
            if value > best_value:
                best, best_value = k, value
                if value >= target:
                    break
        if best < 0:
            alone.append(p)
            continue
        q = s2[best]
        free[best] = False
        cq = rules.colour_of(q)
        counts2[0 if cq == WHITE else 1 if cq == BLACK else 2] -= 1
        pairs.append((p, q))
    return pairs, alone, [q for k, q in enumerate(s2) if free[k]]


def _pair_bracket(
    mdps: list[int], residents: list[int], rules: _Rules
) -> tuple[list[tuple[int, int]], list[int]]:
    """Steps 3–5 on one bracket: (pairs; players floating down)."""
    pairs, floating, rest = _assign(mdps, residents, rules)
    half = len(rest) // 2
    more, left, unpaired = _assign(rest[:half], rest[half:], rules)
    pairs += more
    rest = left + unpaired
    while len(rest) > 1:
        more, left, unpaired = _assign(rest[:1], rest[1:], rules)
        pairs += more
        floating += left
        rest = unpaired
    floating += rest
    if len(floating) > (len(mdps) + len(residents)) % 2:
        better = _most_pairs([*mdps, *residents], rules, len(floating))
        if better is not None:
            return better
    return pairs, floating


def _most_pairs(
    bracket: list[int], rules: _Rules, floats: int
) -> tuple[list[tuple[int, int]], list[int]] | None:
    """Pairs leaving fewer than ``floats`` players of the bracket unpaired (the Dutch
    system's C6), found by a short search: first all of them, else all but one, leaving out
    the lowest ranked possible; None when the search finds nothing better."""
    if len(bracket) % 2 == 0:
        found = _search(bracket, rules, True, BRACKET_SEARCH_LIMIT)
        return (found, []) if found is not None else None
    if floats <= 1:
        return None
    for k in range(len(bracket) - 1, -1, -1):
        found = _search(bracket[:k] + bracket[k + 1 :], rules, True, BRACKET_SEARCH_LIMIT)
        if found is not None:
            return found, [bracket[k]]
    return None


def _search(
    pool: list[int], rules: _Rules, strict: bool, limit: int = SEARCH_LIMIT
) -> list[tuple[int, int]] | None:
    """A perfect matching of ``pool`` (in rank order) by :meth:`_Rules.allowed`, or None
    (also when ``limit`` steps did not find one)."""
    budget = [limit]

    def solve(free: list[int]) -> list[tuple[int, int]] | None:
        if not free:
            return []
        budget[0] -= 1
        if budget[0] < 0:
            return None
        p, others = free[0], free[1:]
        ideal = len(free) // 2 - 1
        order = sorted(range(len(others)), key=lambda k: (abs(k - ideal), k))
        for k in order:
            q = others[k]
            if not rules.allowed(p, q, strict):
                continue
            found = solve(others[:k] + others[k + 1 :])
            if found is not None:
                return [(p, q), *found]
        return None

    return solve(list(pool))


def pair_fast(state: SwissState, round_number: int) -> RoundPairing:
    """One round by the fast approximation (see the module docstring)."""
    bye = choose_bye(state, round_number)
    players = [p for p in range(state.size) if p != bye]
    key = {p: state.pairing_score(p, round_number) for p in players}
    players.sort(key=lambda p: (-key[p], p))
    groups: list[list[int]] = []
    for p in players:
        if groups and key[groups[-1][0]] == key[p]:
            groups[-1].append(p)
        else:
            groups.append([p])

    rules = _Rules(state, round_number)
    paired: list[list[tuple[int, int]]] = []  # per bracket
    mdps: list[int] = []
    for residents in groups:
        pairs, mdps = _pair_bracket(mdps, residents, rules)
        mdps.sort(key=lambda p: (-key[p], p))
        paired.append(pairs)
    if mdps:
        pool = list(mdps)
        while True:
            if not paired:
                raise SwissLabError(f"round {round_number}: no pairing without a rematch")
            for a, b in paired.pop():
                pool += [a, b]
            pool.sort(key=lambda p: (-key[p], p))
            found = _search(pool, rules, True) or _search(pool, rules, False)
            if found is not None:
                paired.append(found)
                break
    rank = {p: k for k, p in enumerate(players)}
    result = []
    for pairs in paired:
        for a, b in pairs:
            higher, lower = (a, b) if rank[a] < rank[b] else (b, a)
            result.append(allocate(state, higher, lower))
    return RoundPairing(tuple(result), bye)


# ---------------------------------------------------------------------------
# The exact engine
# ---------------------------------------------------------------------------


class ExactSwiss:
    """The Dutch engine (:func:`apps.silli.swiss.dutch.pair_round`) fed round by round."""

    def __init__(self, state: SwissState) -> None:
        self.state = state
        self.tournament = Tournament(
            {
                p + 1: TrfPlayer(p + 1, f"P{p + 1}", state.ratings[p], "0")
                for p in range(state.size)
            },
            total_rounds=state.rounds,
            initial_colour=Colour.WHITE,
        )

    def pair(self, round_number: int) -> RoundPairing:
        pairing = pair_round(self.tournament, round_number, self.state.acceleration)
        pairs = tuple((w - 1, b - 1) for w, b in pairing.pairs)
        return RoundPairing(pairs, pairing.bye - 1 if pairing.bye is not None else None)

    def record(self, white: int, black: int, white_result: int) -> None:
        codes = {2: ("1", "0"), 1: ("=", "="), 0: ("0", "1")}[white_result]
        players = self.tournament.players
        players[white + 1].rounds.append(RoundCell(black + 1, Colour.WHITE, codes[0]))
        players[black + 1].rounds.append(RoundCell(white + 1, Colour.BLACK, codes[1]))

    def record_bye(self, player: int) -> None:
        self.tournament.players[player + 1].rounds.append(RoundCell(None, None, "U"))
