"""The measures of a run, after O. Milvang, "Accelerated pairing" (rev. 6, 2017).

Players are counted by *rating rank* (1 = highest rated). Over N tournaments:

* ``score_by_rank``: per rating rank, the mean final score (points, byes included), its
  standard deviation over the tournaments, and the mean Elo-expected score (the sum of
  E = 1/(1 + 10^(−d/400)) over the player's games, byes counted as their point);
* ``sum_pos_jump`` / ``max_pos_jump``: with m_r the mean score of rating rank r, a *positive
  jump* is m_{r+1} − m_r > 0 (a lower rated player expected to score more than the one just
  above); the sum and the maximum of these over r. The paper calls a method bad when the
  maximum exceeds 0.1. Both include sampling noise (about 0.8·√2/√N points per difference),
  so they shrink as N grows: the paper used 10 000 tournaments;
* ``share_rating_diff_over``: for each threshold t = 200, 250, …, 800 the share of played
  games whose players' ratings differ by more than t (the paper's "uninteresting games");
* ``mean_opponent_diff``: the mean rating difference of all played games;
  ``max_opponent_diff``: the largest of the per-round means (each round's mean over all
  tournaments); ``opponent_diff_by_round`` lists them;
* ``expectation`` (the paper's *expectation factor*, "if you win a game, you will expect to
  meet a stronger player in the next round; if you lose, a weaker one"): over every player's
  consecutive played games, after a decisive one, the share where the next opponent is
  stronger (after a win) or weaker (after a loss) than the one just played; an equally rated
  next opponent counts half. Only for formats whose rounds follow one another (Swiss, round
  robin); ``None`` for Silli, whose games run at the same time;
* ``top_rated``: for each of the ``top`` highest rated players, the probability of finishing
  in the top ``top`` of the stage's unified ranking (points, then the tie-break chain; a tie
  at the cut decided by the product's seeded lot) and, with a qualification rule, of
  qualifying;
* ``games_per_tournament`` and the calendar: rounds (Swiss, round robin) or games per player
  (Silli, all played at once).

All tallies are integers (half-points, rating points, micro-points of expected score), so
tallies of parts of a run merge exactly, in any grouping, into the same report.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from ...scoring.qualification import Candidate, qualify
from ...scoring.tiebreaks import SYSTEMS as CHAINS
from ...scoring.tiebreaks import (
    Colour,
    Game,
    KeyFigure,
    Outcome,
    Player,
    compute_figures,
    lot_order,
)
from .formats import Played, Qualification
from .results import expected_score

THRESHOLDS: tuple[int, ...] = tuple(range(200, 801, 50))
MICRO = 1_000_000
SCALE = 1_000_000_000
_OUTCOME = {2: Outcome.WIN, 1: Outcome.DRAW, 0: Outcome.LOSS}


@dataclass
class Tally:
    """What a run has counted so far; :meth:`merge` adds another part of the run."""

    players: int
    top: int
    thresholds: tuple[int, ...] = THRESHOLDS
    tournaments: int = 0
    score: list[int] = field(default_factory=list)
    """Per player: sum of final scores, in half-points."""
    score_sq: list[int] = field(default_factory=list)
    """Per player: sum of squared final scores, in half-points²."""
    expected: list[int] = field(default_factory=list)
    """Per player: sum of Elo-expected scores, in micro-points."""
    games: int = 0
    diff_sum: int = 0
    over: list[int] = field(default_factory=list)
    round_games: list[int] = field(default_factory=list)
    round_diff: list[int] = field(default_factory=list)
    expect_hits: int = 0
    """Expectation met, in halves (2 a hit, 1 an equally rated next opponent)."""
    expect_cases: int = 0
    finish_top: list[int] = field(default_factory=list)
    qualified: list[int] = field(default_factory=list)
    rounds: int = 0
    games_per_player: int = 0
    chronological: bool = True

    def __post_init__(self) -> None:
        n, k = self.players, min(self.top, self.players)
        self.score = self.score or [0] * n
        self.score_sq = self.score_sq or [0] * n
        self.expected = self.expected or [0] * n
        self.over = self.over or [0] * len(self.thresholds)
        self.finish_top = self.finish_top or [0] * k
        self.qualified = self.qualified or [0] * k

    def merge(self, other: Tally) -> None:
        if (other.players, other.top, other.thresholds) != (
            self.players,
            self.top,
            self.thresholds,
        ):
            raise ValueError("tallies of different runs cannot be merged")
        self.tournaments += other.tournaments
        for mine, theirs in (
            (self.score, other.score),
            (self.score_sq, other.score_sq),
            (self.expected, other.expected),
            (self.over, other.over),
            (self.finish_top, other.finish_top),
            (self.qualified, other.qualified),
        ):
            for i, value in enumerate(theirs):
                mine[i] += value
        self.games += other.games
        self.diff_sum += other.diff_sum
        _add_padded(self.round_games, other.round_games)
        _add_padded(self.round_diff, other.round_diff)
        self.expect_hits += other.expect_hits
        self.expect_cases += other.expect_cases
        self.rounds = max(self.rounds, other.rounds)
        self.games_per_player = max(self.games_per_player, other.games_per_player)
        self.chronological = self.chronological and other.chronological

    def add(
        self,
        played: Played,
        ratings: Sequence[int],
        finish_top: set[int],
        qualified: set[int] | None,
    ) -> None:
        """Count one tournament."""
        n = self.players
        self.tournaments += 1
        self.rounds = max(self.rounds, played.rounds)
        self.games_per_player = max(self.games_per_player, *played.games_per_player)
        self.chronological = self.chronological and played.chronological
        score = [0] * n
        expected = [0.0] * n
        while len(self.round_games) < played.rounds:
            self.round_games.append(0)
            self.round_diff.append(0)
        thresholds = self.thresholds
        over = self.over
        history: list[list[tuple[int, int, int]]] = [[] for _ in range(n)]
        for round_number, white, black, result in played.games:
            rw, rb = ratings[white], ratings[black]
            diff = abs(rw - rb)
            score[white] += result
            score[black] += 2 - result
            e = expected_score(rw - rb)
            expected[white] += e
            expected[black] += 1.0 - e
            self.games += 1
            self.diff_sum += diff
            self.round_games[round_number - 1] += 1
            self.round_diff[round_number - 1] += diff
            for t, threshold in enumerate(thresholds):
                if diff > threshold:
                    over[t] += 1
                else:
                    break
            if played.chronological:
                history[white].append((round_number, rb, result))
                history[black].append((round_number, rw, 2 - result))
        for _round, player in played.byes:
            score[player] += 2
            expected[player] += 1.0
        for p in range(n):
            self.score[p] += score[p]
            self.score_sq[p] += score[p] * score[p]
            self.expected[p] += round(expected[p] * MICRO)
        if played.chronological:
            for games in history:
                games.sort()
                for (_r, opponent, result), (_r2, following, _res) in zip(
                    games, games[1:], strict=False
                ):
                    if result == 1:
                        continue
                    self.expect_cases += 1
                    if following == opponent:
                        self.expect_hits += 1
                    elif (following > opponent) == (result == 2):
                        self.expect_hits += 2
        for rank in range(len(self.finish_top)):
            if rank in finish_top:
                self.finish_top[rank] += 1
            if qualified is not None and rank in qualified:
                self.qualified[rank] += 1


def _add_padded(mine: list[int], theirs: Sequence[int]) -> None:
    while len(mine) < len(theirs):
        mine.append(0)
    for i, value in enumerate(theirs):
        mine[i] += value


# ---------------------------------------------------------------------------
# Standings of one tournament
# ---------------------------------------------------------------------------


def standings(
    played: Played,
    tiebreak: str,
    top: int,
    qualification: Qualification | None,
    seed: str,
) -> tuple[set[int], set[int] | None]:
    """(the players finishing in the top ``top`` of the unified ranking, the qualifiers or
    None without a rule), by the product's tie-breaks and qualification rules."""
    chain = CHAINS[tiebreak]
    records: dict[int, list[tuple[int, Game]]] = {p: [] for g in played.groups for p in g}
    for round_number, white, black, result in played.games:
        records[white].append((round_number, Game(black, _OUTCOME[result], True, Colour.WHITE)))
        records[black].append((round_number, Game(white, _OUTCOME[2 - result], True, Colour.BLACK)))
    for round_number, player in played.byes:
        records[player].append((round_number, Game(None, Outcome.WIN, False)))
    keys: dict[int, tuple[KeyFigure, ...]] = {}
    candidates: list[Candidate] = []
    for number, (members, t) in enumerate(
        zip(played.groups, played.games_per_player, strict=True), start=1
    ):
        players = [
            Player(p, tuple(g for _, g in sorted(records[p], key=lambda rg: rg[0])))
            for p in members
        ]
        for figures in compute_figures(players, t):
            assert isinstance(figures.id, int)
            key = tuple(_scaled(figures.value(k)) for k in chain)
            keys[figures.id] = key
            if qualification is not None:
                candidates.append(
                    Candidate(
                        figures.id,
                        number,
                        len(members),
                        t,
                        figures.points,
                        figures.games,
                        key,
                    )
                )
    qualified = None
    if qualification is not None:
        outcome = qualify(candidates, qualification.spec, seed)
        qualified = {int(d.candidate.id) for d in outcome.qualifiers}
    return _top_of(keys, top, seed), qualified


def _scaled(value: Fraction | int) -> int:
    """A figure as a whole number of billionths, rounded half up: the same order and the same
    ties as the exact figure (two different figures of a group differ by far more than a
    billionth: their denominators are small), at the cost of an integer comparison."""
    value = Fraction(value)
    return (value.numerator * SCALE + value.denominator // 2) // value.denominator


def _top_of(keys: dict[int, tuple[KeyFigure, ...]], top: int, seed: str) -> set[int]:
    """The first ``top`` by key; a block tied at the cut ordered by the seeded lot."""
    if top <= 0:
        return set()
    ordered = sorted(keys, key=keys.__getitem__, reverse=True)
    if top >= len(ordered):
        return set(ordered)
    cut = keys[ordered[top - 1]]
    first = top - 1
    while first > 0 and keys[ordered[first - 1]] == cut:
        first -= 1
    last = top
    while last < len(ordered) and keys[ordered[last]] == cut:
        last += 1
    block = lot_order(ordered[first:last], seed)
    return set(ordered[:first]) | set(block[: top - first])
