"""The FIDE (Dutch) Swiss system, C.04.3 as in force from 1 February 2026, as weighted matchings.

Pure Python, deterministic (no chance anywhere: the initial colour comes from ``XXC`` or is read
off round 1).  Scores are kept in half-points.

**How a round is paired.**  Players present are ordered by pairing score (score plus virtual
points of the round, see :mod:`.acceleration`) and TPN (Art. 1.2).  Brackets are paired from
the top scoregroup down (Art. 1.9).  For each bracket (its moved-down players, MDPs, and its
resident players) one maximum-weight matching is solved (:mod:`.matching`) whose edge weights
are bit fields, most significant first:

=====  =====================================================================================
field  criterion
=====  =====================================================================================
C1-3   absolute: an edge exists only between players who have not met (any earlier pairing,
       forfeits included), and not between two non-topscorers with the same absolute colour
       preference; the pairing-allocated bye (PAB) is an edge to a bye vertex, only for
       players who have had no PAB and no win's points without playing (C2)
C4     completion: the bracket is first solved on its own players and the next scoregroup;
       if what it leaves cannot be completed (a perfect matching of all remaining players,
       checked with Edmonds' algorithm) it is solved again over *all* remaining players with
       a dominating 1 on every edge, which forces a complete round-pairing
C5     the PAB assignee's score is minimised once, up front: the bye vertex is joined only
       to eligible players of the lowest score that still allows a complete pairing
C6     pairs in the bracket (MDP–MDP edges are not pairs of a bracket)
C7     scores of the bracket's downfloaters, highest first (as b^level sums)
C8     pairs, then downfloater scores, in the following bracket (a look-ahead on the next
       scoregroup's residents)
C9     unplayed games of the PAB assignee (last bracket only)
C10-11 topscorers (last round) or their opponents getting |CD| > 2 / a third colour in a row
C12-13 players not getting their colour preference / their strong (or absolute) preference
C14-17 resident downfloaters with a downfloat 1 / 2 rounds before; MDP opponents with an
       upfloat 1 / 2 rounds before (interleaved as the rules order them: C14 C15 C16 C17)
C18-21 score differences of those MDPs / MDP opponents (an MDP left unpaired counting as a
       difference larger than any)
order  generation order of Art. 4, approximated: fewest exchanges between S1 and S2 of the
       remainder, then, per S1 player from the top, the lowest S2 partner; higher MDPs first
=====  =====================================================================================

Colours are then allocated per pair by Art. 5.2 (E.1–E.5).

What is *not* exact: the generation-order tie-break among candidates equal on every
criterion is the approximation described above, not the literal sequence of transpositions
and exchanges (D.1–D.3 / Art. 4); C9 is applied only in the last bracket.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum

from .acceleration import Acceleration, virtual_points
from .matching import has_perfect_matching, max_weight_matching
from .trf import Colour, Tournament

__all__ = [
    "PairingError",
    "Strength",
    "PlayerState",
    "Pairing",
    "player_states",
    "pair_round",
    "allocate_colours",
    "format_pairing",
    "round_to_pair",
]

DOWN = "down"
UP = "up"


class PairingError(ValueError):
    """The round cannot be paired; the message says why."""


class Strength(IntEnum):
    NONE = 0
    MILD = 1
    STRONG = 2
    ABSOLUTE = 3


@dataclass(frozen=True)
class PlayerState:
    """What the pairing of one round needs to know of a player."""

    number: int
    score: int
    """Real score before the round, in half-points."""
    pairing_score: int
    """Score plus the round's virtual points, in half-points: used for brackets only."""
    opponents: frozenset[int]
    colours: tuple[Colour, ...]
    """Colours of the games actually played, oldest first (unplayed rounds skipped)."""
    preference: Colour | None
    strength: Strength
    floats: tuple[str | None, str | None]
    """Float received in the previous round and two rounds before (``"down"``/``"up"``)."""
    bye_eligible: bool
    unplayed: int
    topscorer: bool

    @property
    def colour_difference(self) -> int:
        return sum(1 if c is Colour.WHITE else -1 for c in self.colours)


@dataclass(frozen=True)
class Pairing:
    round_number: int
    pairs: tuple[tuple[int, int], ...]
    """(white, black) start ranks, by board."""
    bye: int | None
    absent: tuple[int, ...]


def round_to_pair(tournament: Tournament) -> int:
    """The first round in which nobody has an opponent (or the PAB) yet."""
    return tournament.rounds_with_pairings + 1


def _preference(colours: tuple[Colour, ...]) -> tuple[Colour | None, Strength]:
    if not colours:
        return None, Strength.NONE
    difference = sum(1 if c is Colour.WHITE else -1 for c in colours)
    if difference > 1:
        return Colour.BLACK, Strength.ABSOLUTE
    if difference < -1:
        return Colour.WHITE, Strength.ABSOLUTE
    if len(colours) >= 2 and colours[-1] is colours[-2]:
        return colours[-1].other, Strength.ABSOLUTE
    if difference == 1:
        return Colour.BLACK, Strength.STRONG
    if difference == -1:
        return Colour.WHITE, Strength.STRONG
    return colours[-1].other, Strength.MILD


def _virtual(tournament: Tournament, acceleration: Acceleration) -> dict[int, dict[int, int]]:
    table: dict[int, dict[int, int]] = {n: dict(v) for n, v in tournament.virtual_points.items()}
    if acceleration is not Acceleration.NONE:
        if tournament.total_rounds is None:
            raise PairingError("acceleration needs the total number of rounds (XXR)")
        order = sorted(tournament.players)
        for player, rounds in virtual_points(order, tournament.total_rounds, acceleration).items():
            for round_number, value in rounds.items():
                table.setdefault(player, {})[round_number] = value
    return table


def player_states(
    tournament: Tournament,
    round_number: int | None = None,
    acceleration: Acceleration = Acceleration.NONE,
) -> tuple[int, list[PlayerState], list[int]]:
    """(round, states of the players to pair, absent players) for the round to pair."""
    if round_number is None:
        round_number = round_to_pair(tournament)
    virtual = _virtual(tournament, acceleration)
    players = tournament.players

    def score_before(number: int, k: int) -> int:
        return sum(cell.half_points for cell in players[number].rounds[: k - 1])

    def pairing_score_before(number: int, k: int) -> int:
        return score_before(number, k) + virtual.get(number, {}).get(k, 0)

    def float_in(number: int, k: int) -> str | None:
        if k < 1:
            return None
        cells = players[number].rounds
        if len(cells) < k:
            return None
        cell = cells[k - 1]
        if cell.played:
            assert cell.opponent is not None
            own = pairing_score_before(number, k)
            other = pairing_score_before(cell.opponent, k)
            if own > other:
                return DOWN
            if own < other:
                return UP
            return None
        if cell.half_points > 0 or cell.pairing_allocated_bye:
            return DOWN
        return None

    last_round = tournament.total_rounds is not None and round_number == tournament.total_rounds
    states: list[PlayerState] = []
    absent: list[int] = []
    for number in sorted(players):
        player = players[number]
        cells = player.rounds[: round_number - 1]
        if number in tournament.absent or (
            len(player.rounds) >= round_number
            and player.rounds[round_number - 1].opponent is None
            and not player.rounds[round_number - 1].pairing_allocated_bye
        ):
            absent.append(number)
            continue
        score = sum(cell.half_points for cell in cells)
        colours = tuple(cell.colour for cell in cells if cell.played and cell.colour is not None)
        preference, strength = _preference(colours)
        states.append(
            PlayerState(
                number=number,
                score=score,
                pairing_score=score + virtual.get(number, {}).get(round_number, 0),
                opponents=frozenset(c.opponent for c in cells if c.opponent is not None),
                colours=colours,
                preference=preference,
                strength=strength,
                floats=(float_in(number, round_number - 1), float_in(number, round_number - 2)),
                bye_eligible=not any(
                    c.pairing_allocated_bye or c.win_without_playing for c in cells
                ),
                unplayed=(round_number - 1) - sum(1 for c in cells if c.played),
                topscorer=last_round and score > round_number - 1,
            )
        )
    return round_number, states, absent


def _initial_colour(tournament: Tournament) -> Colour:
    if tournament.initial_colour is not None:
        return tournament.initial_colour
    for number in sorted(tournament.players):
        cells = tournament.players[number].rounds
        if cells and cells[0].played and cells[0].colour is not None:
            return cells[0].colour if number % 2 else cells[0].colour.other
    return Colour.WHITE


def allocate_colours(higher: PlayerState, lower: PlayerState, initial: Colour) -> tuple[int, int]:
    """(white, black) for a pair by Art. 5.2 (E.1–E.5); ``higher`` is the higher ranked."""

    def give(player: PlayerState, colour: Colour) -> tuple[int, int]:
        other = lower if player is higher else higher
        if colour is Colour.WHITE:
            return player.number, other.number
        return other.number, player.number

    a, b = higher, lower
    # E.1 grant both preferences (a player without one takes what is left).
    if a.preference is not None and a.preference is not b.preference:
        return give(a, a.preference)
    if a.preference is None and b.preference is not None:
        return give(b, b.preference)
    if a.preference is not None:
        # E.2 the stronger preference; two absolute ones: the wider colour difference.
        if a.strength != b.strength:
            stronger = a if a.strength > b.strength else b
            return give(stronger, a.preference)
        if a.strength is Strength.ABSOLUTE and abs(a.colour_difference) != abs(b.colour_difference):
            wider = a if abs(a.colour_difference) > abs(b.colour_difference) else b
            return give(wider, a.preference)
        # E.3 alternate to the most recent round where they had different colours.
        for ca, cb in zip(reversed(a.colours), reversed(b.colours), strict=False):
            if ca is not cb:
                return give(a, ca.other)
        # E.4 the higher ranked player's preference.
        return give(a, a.preference)
    # E.5 no preference at all.
    return give(a, initial if a.number % 2 else initial.other)


def _rank_key(state: PlayerState) -> tuple[int, int]:
    return (-state.pairing_score, state.number)


def _compatible(a: PlayerState, b: PlayerState) -> bool:
    if b.number in a.opponents or a.number in b.opponents:
        return False
    if (
        a.strength is Strength.ABSOLUTE
        and b.strength is Strength.ABSOLUTE
        and a.preference is b.preference
        and not a.topscorer
        and not b.topscorer
    ):
        return False
    return True


class _Round:
    """The working state of one round's pairing (vertices are indices in rank order)."""

    def __init__(self, states: list[PlayerState], initial: Colour) -> None:
        self.states = sorted(states, key=_rank_key)
        self.initial = initial
        n = len(self.states)
        self.n = n
        self.compat: list[set[int]] = [set() for _ in range(n)]
        for i in range(n):
            for j in range(i + 1, n):
                if _compatible(self.states[i], self.states[j]):
                    self.compat[i].add(j)
                    self.compat[j].add(i)
        self.bye_allowed: set[int] = set()
        self.odd = n % 2 == 1
        self._colour_cache: dict[tuple[int, int], tuple[int, int, int, int]] = {}

    # -- completion --------------------------------------------------------------------------
    def completable(self, remaining: Iterable[int], bye: set[int]) -> bool:
        vertices = sorted(remaining)
        index = {v: k for k, v in enumerate(vertices)}
        adjacency: list[list[int]] = [
            [index[w] for w in sorted(self.compat[v]) if w in index] for v in vertices
        ]
        if len(vertices) % 2:
            bye_vertex = len(vertices)
            adjacency.append([])
            for v in vertices:
                if v in bye:
                    adjacency[index[v]].append(bye_vertex)
                    adjacency[bye_vertex].append(index[v])
            return has_perfect_matching(len(vertices) + 1, adjacency)
        return has_perfect_matching(len(vertices), adjacency)

    # -- colour figures of a pair ------------------------------------------------------------
    def colour_costs(self, i: int, j: int) -> tuple[int, int, int, int]:
        """(C10, C11, C12, C13) failures of pairing vertices i < j."""
        key = (i, j)
        cached = self._colour_cache.get(key)
        if cached is not None:
            return cached
        a, b = self.states[i], self.states[j]
        white, _black = allocate_colours(a, b, self.initial)
        c10 = c11 = c12 = c13 = 0
        topscorers = a.topscorer or b.topscorer
        for player in (a, b):
            colour = Colour.WHITE if player.number == white else Colour.BLACK
            if player.preference is not None and colour is not player.preference:
                c12 += 1
                if player.strength >= Strength.STRONG:
                    c13 += 1
            if topscorers:
                difference = player.colour_difference + (1 if colour is Colour.WHITE else -1)
                if abs(difference) > 2:
                    c10 += 1
                if (
                    len(player.colours) >= 2
                    and player.colours[-1] is colour
                    and player.colours[-2] is colour
                ):
                    c11 += 1
        result = (c10, c11, c12, c13)
        self._colour_cache[key] = result
        return result


def _bits(value: int) -> int:
    return max(1, value.bit_length())


def _pack(
    edge_fields: list[tuple[int, int, list[int]]], field_count: int, vertex_count: int
) -> list[tuple[int, int, int]]:
    """Edges (i, j, benefits high->low) to (i, j, weight) with no field overflowing."""
    pairs_max = vertex_count // 2 + 1
    maxima = [0] * field_count
    for _i, _j, values in edge_fields:
        for f, value in enumerate(values):
            if value > maxima[f]:
                maxima[f] = value
    widths = [_bits(maxima[f] * pairs_max) + 1 for f in range(field_count)]
    offsets = [0] * field_count
    offset = 0
    for f in range(field_count - 1, -1, -1):
        offsets[f] = offset
        offset += widths[f]
    edges = []
    for i, j, values in edge_fields:
        weight = 0
        for f, value in enumerate(values):
            if value:
                weight |= value << offsets[f]
        if weight > 0:
            edges.append((i, j, weight))
    return edges


FIELDS = 20  # F0 completion, C6, C7, C8 pairs, C8 scores, C9, C10..C21 (12), cross, lex


def _levels(values: Iterable[int]) -> dict[int, int]:
    return {value: level for level, value in enumerate(sorted(set(values)))}


def _solve_bracket(
    rnd: _Round,
    bracket: list[int],
    mdps: set[int],
    following: list[int],
    others: list[int],
    full: bool,
    last: bool,
) -> dict[int, int]:
    """Mates of the bracket's players (partner vertex, -2 for the bye, absent if unpaired)."""
    states = rnd.states
    in_bracket = set(bracket)
    in_following = set(following)
    vertices = bracket + following + (others if full else [])
    index = {v: k for k, v in enumerate(vertices)}
    bye_vertex = -1
    if full and rnd.odd:
        bye_vertex = len(vertices)
    vertex_count = len(vertices) + (1 if bye_vertex >= 0 else 0)
    bracket_score = min(states[v].pairing_score for v in bracket)
    base = len(bracket) + 2
    level = _levels(states[v].pairing_score for v in bracket)
    value = {v: base ** level[states[v].pairing_score] for v in bracket}
    next_base = len(bracket) + len(following) + 2
    next_level = _levels(states[v].pairing_score for v in bracket + following)
    next_value = {v: next_base ** next_level[states[v].pairing_score] for v in bracket + following}
    # Score differences of MDPs paired here (C18-C21), with "unpaired" above all of them.
    differences = sorted({states[m].pairing_score - bracket_score for m in mdps})
    sd_level = {d: k for k, d in enumerate(differences)}
    sd_top = base ** (len(differences) + 1)
    # Generation order: BSNs of MDPs and residents.
    mdp_order = sorted(mdps, key=lambda v: (-states[v].pairing_score, states[v].number))
    mdp_rank = {v: k for k, v in enumerate(mdp_order)}
    residents = sorted((v for v in bracket if v not in mdps), key=lambda v: states[v].number)
    resident_bsn = {v: k + 1 for k, v in enumerate(residents)}
    paired_mdps = min(len(mdps), len(residents))
    remainder = len(residents) - paired_mdps
    n1 = remainder // 2
    order_base = len(residents) + 2
    order_exponent_top = n1 + len(mdps) + 1
    order_top = order_base ** (order_exponent_top + 1)
    max_unplayed = max((states[v].unplayed for v in vertices), default=0)

    edge_fields: list[tuple[int, int, list[int]]] = []
    for a_pos, a in enumerate(vertices):
        for b in vertices[a_pos + 1 :]:
            if b not in rnd.compat[a]:
                continue
            fields = [0] * FIELDS
            if full:
                fields[0] = 1
            a_in, b_in = a in in_bracket, b in in_bracket
            a_mdp, b_mdp = a in mdps, b in mdps
            if a_in and b_in and not (a_mdp and b_mdp):
                fields[1] = 1
                fields[2] = value[a] + value[b]
                i, j = (a, b) if a < b else (b, a)
                c10, c11, c12, c13 = rnd.colour_costs(i, j)
                fields[6] = 2 - c10
                fields[7] = 2 - c11
                fields[8] = 2 - c12
                fields[9] = 2 - c13
                if a_mdp or b_mdp:
                    mdp, resident = (a, b) if a_mdp else (b, a)
                    ms, rs = states[mdp], states[resident]
                    cost = base ** sd_level[ms.pairing_score - bracket_score]
                    fields[10] = 1 if rs.floats[0] == DOWN else 0
                    fields[12] = 1 if rs.floats[1] == DOWN else 0
                    fields[11] = 0 if rs.floats[0] == UP else 1
                    fields[13] = 0 if rs.floats[1] == UP else 1
                    fields[14] = sd_top - cost if ms.floats[0] == DOWN else 0
                    fields[15] = sd_top - (cost if rs.floats[0] == UP else 0)
                    fields[16] = sd_top - cost if ms.floats[1] == DOWN else 0
                    fields[17] = sd_top - (cost if rs.floats[1] == UP else 0)
                    exponent = n1 + (len(mdps) - mdp_rank[mdp])
                    fields[19] = order_top - resident_bsn[resident] * order_base**exponent
                else:
                    fields[10] = (states[a].floats[0] == DOWN) + (states[b].floats[0] == DOWN)
                    fields[12] = (states[a].floats[1] == DOWN) + (states[b].floats[1] == DOWN)
                    p, q = sorted((resident_bsn[a] - paired_mdps, resident_bsn[b] - paired_mdps))
                    if p <= n1 < q:
                        fields[18] = 1
                    exponent = max(0, n1 - max(p, 1))
                    fields[19] = order_top - max(q, 0) * order_base**exponent
            elif (
                (a_in and b in in_following)
                or (b_in and a in in_following)
                or (a in in_following and b in in_following)
            ):
                if not ((a_mdp and b in in_bracket) or (b_mdp and a in in_bracket)):
                    fields[3] = 1
                    fields[4] = next_value[a] + next_value[b]
            edge_fields.append((index[a], index[b], fields))
    if bye_vertex >= 0:
        for v in vertices:
            if v in rnd.bye_allowed:
                fields = [0] * FIELDS
                fields[0] = 1
                if last:
                    fields[5] = max_unplayed - states[v].unplayed + 1
                edge_fields.append((index[v], bye_vertex, fields))
    edges = _pack(edge_fields, FIELDS, vertex_count)
    mate = max_weight_matching(vertex_count, edges)
    result: dict[int, int] = {}
    for v in bracket:
        m = mate[index[v]]
        if m == -1:
            continue
        if m == bye_vertex:
            result[v] = -2
        else:
            result[v] = vertices[m]
    return result


def _no_pairing(round_number: int, count: int, reason: str) -> PairingError:
    return PairingError(f"round {round_number} cannot be paired: {reason}")


def pair_round(
    tournament: Tournament,
    round_number: int | None = None,
    acceleration: Acceleration = Acceleration.NONE,
) -> Pairing:
    """Pair the next round (or ``round_number``, from the rounds before it)."""
    round_number, states, absent = player_states(tournament, round_number, acceleration)
    if tournament.total_rounds is not None and round_number > tournament.total_rounds:
        raise PairingError(
            f"the tournament has {tournament.total_rounds} rounds (XXR) and all are paired"
        )
    count = len(states)
    if count == 0:
        raise _no_pairing(round_number, count, "no player is present")
    rnd = _Round(states, _initial_colour(tournament))
    everyone = set(range(count))
    if rnd.odd:
        eligible = [v for v in range(count) if rnd.states[v].bye_eligible]
        if not eligible:
            raise _no_pairing(
                round_number,
                count,
                f"{count} players are present, so one must get the pairing-allocated bye, but "
                "every one of them has already had a bye or a win without playing (C2)",
            )
        for score in sorted({rnd.states[v].pairing_score for v in eligible}):
            allowed = {v for v in eligible if rnd.states[v].pairing_score == score}
            if rnd.completable(everyone, allowed):
                rnd.bye_allowed = allowed
                break
        else:
            raise _no_pairing(
                round_number,
                count,
                f"no way to pair the {count} players present and give the bye to a player who "
                "may have it without a rematch (C1), a second bye or bye after a win without "
                "playing (C2), or two non-topscorers with the same absolute colour preference "
                "meeting (C3)",
            )
    elif not rnd.completable(everyone, set()):
        raise _no_pairing(
            round_number,
            count,
            f"no way to pair all {count} players present without a rematch (C1) or two "
            "non-topscorers with the same absolute colour preference meeting (C3)",
        )

    groups = sorted({s.pairing_score for s in rnd.states}, reverse=True)
    remaining = set(everyone)
    mdps: list[int] = []
    pairs: list[tuple[int, int]] = []
    bye: int | None = None
    for g, score in enumerate(groups):
        residents = [v for v in sorted(remaining) if rnd.states[v].pairing_score == score]
        bracket = mdps + [v for v in residents if v not in mdps]
        lower = sorted(remaining - set(bracket))
        last = not lower
        if last:
            mates = _solve_bracket(rnd, bracket, set(mdps), [], [], True, True)
        else:
            next_score = groups[g + 1]
            following = [v for v in lower if rnd.states[v].pairing_score == next_score]
            others = [v for v in lower if rnd.states[v].pairing_score != next_score]
            mates = _solve_bracket(rnd, bracket, set(mdps), following, others, False, False)
            paired = {v for v, m in mates.items() if m >= 0 and m in set(bracket)}
            if not rnd.completable(remaining - paired, rnd.bye_allowed):
                mates = _solve_bracket(rnd, bracket, set(mdps), following, others, True, False)
        in_bracket = set(bracket)
        done: set[int] = set()
        for v in bracket:
            m = mates.get(v, -1)
            if v in done:
                continue
            if m == -2:
                bye = v
                done.add(v)
            elif m >= 0 and m in in_bracket:
                pairs.append((v, m) if v < m else (m, v))
                done.add(v)
                done.add(m)
        remaining -= done
        mdps = [v for v in bracket if v not in done]
        if last and mdps:
            raise _no_pairing(round_number, count, "the last bracket could not be completed")
    ordered = sorted(
        pairs,
        key=lambda p: (
            -max(rnd.states[p[0]].pairing_score, rnd.states[p[1]].pairing_score),
            -(rnd.states[p[0]].pairing_score + rnd.states[p[1]].pairing_score),
            min(p),
        ),
    )
    result = tuple(allocate_colours(rnd.states[i], rnd.states[j], rnd.initial) for i, j in ordered)
    return Pairing(
        round_number=round_number,
        pairs=result,
        bye=rnd.states[bye].number if bye is not None else None,
        absent=tuple(absent),
    )


def format_pairing(pairing: Pairing) -> str:
    """The checkers' plain format: the number of pairs, then "white black" lines, a bye "N 0"."""
    lines = [f"{white} {black}" for white, black in pairing.pairs]
    if pairing.bye is not None:
        lines.append(f"{pairing.bye} 0")
    return "\n".join([str(len(lines)), *lines]) + "\n"


def pairing_map(pairing: Pairing) -> Mapping[int, int]:
    """Each paired player's opponent (0 for the bye)."""
    result: dict[int, int] = {}
    for white, black in pairing.pairs:
        result[white] = black
        result[black] = white
    if pairing.bye is not None:
        result[pairing.bye] = 0
    return result
