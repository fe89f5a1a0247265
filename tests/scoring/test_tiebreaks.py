"""Tie-break figures, standings and the seeded lot (apps/scoring/tiebreaks.py)."""

import hashlib
from dataclasses import replace
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.scoring.tiebreaks import (
    BUCHHOLZ,
    SWISS,
    SYSTEMS,
    TORINO,
    Colour,
    CutVariant,
    Figures,
    Game,
    Key,
    Outcome,
    Player,
    Scoring,
    Unplayed,
    compute_figures,
    lot_order,
    rank,
    strict_order,
)

W, D, L = Outcome.WIN, Outcome.DRAW, Outcome.LOSS
WHITE, BLACK = Colour.WHITE, Colour.BLACK

# A round robin of four (T = 3) with one forfeit:
#   round 1: 1-2 1-0, 3-4 draw;  round 2: 3-1 draw, 2 wins by forfeit against 4;
#   round 3: 4-1 1-0, 2-3 1-0.    (the first named player has White)
# points 1: 3/2, 2: 2, 3: 1, 4: 3/2;  played games 1: 3, 2: 2, 3: 3, 4: 2;
# real points 1: 3/2, 2: 1, 3: 1, 4: 3/2.
GROUP = [
    Player(1, [Game(2, W, colour=WHITE), Game(3, D, colour=BLACK), Game(4, L, colour=BLACK)]),
    Player(2, [Game(1, L, colour=BLACK), Game(4, W, False, WHITE), Game(3, W, colour=WHITE)]),
    Player(3, [Game(4, D, colour=WHITE), Game(1, D, colour=WHITE), Game(2, L, colour=BLACK)]),
    Player(4, [Game(3, D, colour=BLACK), Game(2, L, False, BLACK), Game(1, W, colour=WHITE)]),
]


def figures(players=GROUP, stage_games=3, **options) -> dict[int, Figures]:
    return {f.id: f for f in compute_figures(players, stage_games, **options)}


def column(name: str, players=GROUP, **options) -> dict[int, object]:
    return {pid: getattr(f, name) for pid, f in figures(players, **options).items()}


def test_points_games_and_real_games():
    assert column("points") == {1: F(3, 2), 2: F(2), 3: F(1), 4: F(3, 2)}
    assert column("games") == {1: 3, 2: 3, 3: 3, 4: 3}
    assert column("gms") == {1: 3, 2: 2, 3: 3, 4: 2}
    assert column("rgp") == {1: F(3, 2), 2: F(1), 3: F(1), 4: F(3, 2)}


def test_wins_count_forfeits_and_black_games_count_only_played_games():
    assert column("wins") == {1: 1, 2: 2, 3: 0, 4: 1}
    assert column("black_games") == {1: 2, 2: 1, 3: 1, 4: 1}


def test_classic_buchholz_counts_forfeits_at_the_opponents_points():
    # 2: 1 (3/2) + 4 by forfeit (3/2) + 3 (1) = 4;  4: 3 (1) + 2 by forfeit (2) + 1 (3/2).
    assert column("bh") == {1: F(9, 2), 2: F(4), 3: F(5), 4: F(9, 2)}
    assert column("bh_c1") == {1: F(7, 2), 2: F(3), 3: F(7, 2), 4: F(7, 2)}
    assert column("bh_c2") == {1: F(2), 2: F(3, 2), 3: F(2), 4: F(2)}


def test_fide2024_buchholz_counts_each_own_unplayed_game_at_own_points():
    fide = {"unplayed": Unplayed.FIDE2024}
    # 2: 1 (3/2) + dummy (own 2) + 3 (1);  4: 3 (1) + dummy (own 3/2) + 1 (3/2).
    assert column("bh", **fide) == {1: F(9, 2), 2: F(9, 2), 3: F(5), 4: F(4)}
    # 2's dummy is a won game, so the lowest goes; 4's dummy is a lost one: it goes first,
    # although 3's 1 point is lower.
    assert column("bh_c1", **fide) == {1: F(7, 2), 2: F(7, 2), 3: F(7, 2), 4: F(5, 2)}
    assert column("bh_c2", **fide) == {1: F(2), 2: F(2), 3: F(2), 4: F(3, 2)}


def test_sonneborn_berger_weighs_each_contribution_by_the_result():
    # 1: win against 2 (2) + draw against 3 (1/2 * 1);  3: two draws against 3/2.
    assert column("sb") == {1: F(5, 2), 2: F(5, 2), 3: F(3, 2), 4: F(2)}
    # fide2024: 2's forfeit win is worth its own 2 points, 4's forfeit loss nothing.
    assert column("sb", unplayed=Unplayed.FIDE2024) == {1: F(5, 2), 2: F(3), 3: F(3, 2), 4: F(2)}


def test_ts_sums_real_points_over_real_games_of_the_opponents_of_played_games():
    # 1: (1 + 1 + 3/2) / (2 + 3 + 2) * 9;  2: (3/2 + 1) / (3 + 3) * 9 (the forfeit vanishes).
    assert column("ts") == {1: F(9, 2), 2: F(15, 4), 3: F(36, 7), 4: F(15, 4)}


@pytest.mark.parametrize(
    ("variant", "player_3"),
    [
        (CutVariant.TARGET, F(15, 4)),  # drop 1 (3/2 in 3): 5/2 in 4 is the best ratio left
        (CutVariant.POINTS, F(18, 5)),  # drop 2, the lowest rgp (1 in 2): 3 in 5
        (CutVariant.GAMES, F(15, 4)),  # drop 1, the most games
        (CutVariant.RATIO, F(15, 4)),  # 1 and 2 both score 1/2 a game: the most games, 1
        (CutVariant.HIGH, F(9, 2)),  # 1 point of 2 and 3 games of 1: 3 in 4
        (CutVariant.NONE, F(15, 4)),  # 3 played every game: as target
    ],
)
def test_ts_cut1_variants_choose_the_low_opponent_and_use_t_times_t_minus_1(variant, player_3):
    assert figures(variant=variant)[3].ts_cut1 == player_3


def test_ts_cut1_none_only_changes_the_factor_for_a_player_with_an_unplayed_game():
    none = figures(variant=CutVariant.NONE)
    target = figures(variant=CutVariant.TARGET)
    assert none[2].ts_cut1 == F(5, 2) == none[2].ts * 2 / 3  # (3/2 + 1) / 6 * 6
    assert target[2].ts_cut1 == F(3)  # drops 3: 3/2 in 3


def test_ts_median_drops_the_low_and_the_high_opponent_and_uses_t_times_t_minus_2():
    # 1's opponents (rgp, gms): 2 (1, 2), 3 (1, 3), 4 (3/2, 2). Dropping 3 leaves the highest
    # ratio, dropping 4 the lowest: 2 is left, 1/2 a game, times 3.
    median = column("ts_median")
    assert median[1] == median[3] == F(3, 2)
    assert median[2] == 0  # two opponents, both dropped


def test_other_points_for_win_draw_loss_scale_every_point_figure():
    three = figures(scoring=Scoring(3, 1, 0))
    assert (three[1].points, three[2].points, three[4].points) == (F(4), F(6), F(4))
    assert three[1].bh == 6 + 2 + 4
    assert three[1].ts == F(3 + 2 + 4, 7) * 9


def test_scoring_must_not_reward_a_loss_over_a_draw():
    with pytest.raises(ValueError):
        Scoring(1, 0, F(1, 2))


# Player 2 withdraws after round 1: round 2 is a forfeit loss against 3, round 3 an absence.
#   round 1: 1-2 1-0, 3-4 draw;  round 2: 1-4 draw, 3 wins by forfeit against 2;
#   round 3: 3-1 1-0, 4 a full-point bye, 2 absent.
WITHDRAWAL = [
    Player(1, [Game(2, W, colour=WHITE), Game(4, D, colour=WHITE), Game(3, L, colour=BLACK)]),
    Player(2, [Game(1, L, colour=BLACK), Game(3, L, False), Game(None, L, False)]),
    Player(3, [Game(4, D, colour=WHITE), Game(2, W, False), Game(1, W, colour=WHITE)]),
    Player(4, [Game(3, D, colour=BLACK), Game(1, D, colour=BLACK), Game(None, W, False)]),
]


def test_fide2024_counts_rounds_after_a_withdrawal_without_opponent_as_draws():
    fide = figures(WITHDRAWAL, unplayed=Unplayed.FIDE2024)
    classic = figures(WITHDRAWAL)
    # As 1's opponent, 2 is worth 0 (round 1) + 0 (the forfeit had an opponent) + 1/2.
    assert classic[1].bh == 0 + 2 + F(5, 2)
    assert fide[1].bh == F(1, 2) + 2 + F(5, 2)
    # 3: 4 (2) + dummy for the forfeit win (own 5/2) + 1 (3/2); the won dummy is no VUR.
    assert (fide[3].bh, fide[3].bh_c1, fide[3].bh_c2) == (F(6), F(9, 2), F(5, 2))
    # 2: 1 (3/2) + two lost dummies at 2's own 0 points, cut first.
    assert (fide[2].bh, fide[2].bh_c1, fide[2].bh_c2) == (F(3, 2), F(3, 2), F(3, 2))
    assert (classic[2].bh, classic[2].bh_c1, classic[2].bh_c2) == (F(4), F(5, 2), F(0))


def test_a_player_without_games_has_zero_everywhere():
    alone = figures([Player("x")], stage_games=10)["x"]
    assert (alone.points, alone.games, alone.bh, alone.ts, alone.ts_cut1) == (0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("players", "stage_games", "message"),
    [
        ([Player(1), Player(1)], 3, "twice"),
        ([Player(1, [Game(9, W)])], 3, "unknown"),
        ([Player(1)], 0, "at least 1"),
    ],
)
def test_inconsistent_input_is_refused(players, stage_games, message):
    with pytest.raises(ValueError, match=message):
        compute_figures(players, stage_games)


def test_a_played_game_needs_an_opponent():
    with pytest.raises(ValueError, match="opponent"):
        Game(None, W)


# --- standings ------------------------------------------------------------------------


def labels(standings) -> list[tuple[str, int]]:
    return [(s.label, s.figures.id) for s in standings]


def test_torino_chain_orders_by_points_then_ts():
    assert labels(rank(figures().values(), TORINO)) == [("1", 2), ("2", 1), ("3", 4), ("4", 3)]


def test_players_equal_on_every_key_share_a_place_in_the_order_given():
    # 1 and 4: 3/2 points, BH-C2 2, BH-C1 7/2, BH 9/2.
    standings = rank(figures().values(), BUCHHOLZ)
    assert labels(standings) == [("1", 2), ("2-3", 1), ("2-3", 4), ("4", 3)]
    assert [(s.place, s.last) for s in standings] == [(1, 1), (2, 3), (2, 3), (4, 4)]
    reversed_input = rank(reversed(figures().values()), BUCHHOLZ)
    assert labels(reversed_input) == [("1", 2), ("2-3", 4), ("2-3", 1), ("4", 3)]


def test_swiss_chain_is_bh_cut1_bh_then_sonneborn_berger():
    # 1 and 4 are equal on points, BH-C1 (7/2) and BH (9/2); SB (5/2 against 2) puts 1 first.
    assert SWISS == (Key.POINTS, Key.BH_C1, Key.BH, Key.SB, Key.WINS)
    assert SYSTEMS["swiss"] is SWISS
    assert labels(rank(figures().values(), SWISS)) == [("1", 2), ("2", 1), ("3", 4), ("4", 3)]


@pytest.mark.parametrize(
    ("extra", "order"),
    [
        ((Key.SB,), [2, 1, 4, 3]),  # SB 5/2 against 2
        ((Key.WINS,), None),  # one win each
        ((Key.BLACK_GAMES,), [2, 1, 4, 3]),  # two games with Black against one
    ],
)
def test_optional_keys_after_the_chain_decide_what_it_left_equal(extra, order):
    standings = rank(figures().values(), BUCHHOLZ + extra)
    if order is None:
        assert labels(standings)[1:3] == [("2-3", 1), ("2-3", 4)]
    else:
        assert labels(standings) == [(str(n), pid) for n, pid in enumerate(order, 1)]


def test_earlier_stages_decide_what_the_chain_left_equal():
    # 1 and 4 share place 2-3 on the Buchholz chain; the previous stage's keys part them.
    fallback = {1: (F(5), F(30)), 2: (F(6), F(0)), 3: (F(9), F(0)), 4: (F(5), F(31))}
    standings = rank(figures().values(), BUCHHOLZ, fallback)
    assert labels(standings) == [("1", 2), ("2", 4), ("3", 1), ("4", 3)]
    equal_before = {**fallback, 4: fallback[1]}
    assert labels(rank(figures().values(), BUCHHOLZ, equal_before))[1:3] == [
        ("2-3", 1),
        ("2-3", 4),
    ]


def test_the_lot_sorts_by_the_sha256_of_seed_lot_id():
    ids = [1, 4, "AB-17", 22]
    digest = {i: hashlib.sha256(f"draw 2025|lot|{i}".encode()).hexdigest() for i in ids}
    assert lot_order(ids, "draw 2025") == sorted(ids, key=digest.__getitem__)
    assert lot_order(ids, "draw 2025") == lot_order(reversed(ids), "draw 2025")


def test_a_strict_order_resolves_only_shared_places_by_lot():
    standings = rank(figures().values(), BUCHHOLZ)
    orders = set()
    for seed in ("a", "b", "c", "d", "e", "f", "g", "h"):
        strict = strict_order(standings, seed)
        assert [(s.place, s.last) for s in strict] == [(1, 1), (2, 2), (3, 3), (4, 4)]
        assert strict[0].figures.id == 2 and strict[3].figures.id == 3
        assert [s.figures.id for s in strict[1:3]] == lot_order([1, 4], seed)
        orders.add(tuple(s.figures.id for s in strict))
    assert len(orders) == 2  # the seed decides, both ways


# --- properties -----------------------------------------------------------------------


@st.composite
def groups(draw, complete: bool = False) -> tuple[list[Player], int]:
    """Random groups of T rounds (rematches allowed).

    ``complete``: an even group where everyone played all T games. Otherwise any group:
    played games, forfeits, double forfeits and, in an odd group, a bye or absence a round.
    """
    size = draw(st.sampled_from([2, 4, 6, 8]) if complete else st.integers(1, 7))
    stage_games = draw(st.integers(1, 6))
    kinds = ["played"] if complete else ["played", "played", "forfeit", "double forfeit"]
    games: dict[int, list[Game]] = {i: [] for i in range(size)}
    for _ in range(stage_games):
        seats = draw(st.permutations(range(size)))
        for white, black in zip(seats[::2], seats[1::2], strict=False):
            outcome, kind = draw(st.sampled_from(Outcome)), draw(st.sampled_from(kinds))
            ours, theirs = (L, L) if kind == "double forfeit" else (outcome, _REVERSED[outcome])
            games[white].append(Game(black, ours, kind == "played", WHITE))
            games[black].append(Game(white, theirs, kind == "played", BLACK))
        if size % 2:
            games[seats[-1]].append(Game(None, draw(st.sampled_from(Outcome)), False))
    return [Player(i, games[i]) for i in range(size)], stage_games


_REVERSED = {W: L, D: D, L: W}


@settings(max_examples=150, deadline=None)
@given(groups(complete=True))
def test_without_unplayed_games_ts_equals_buchholz(group):
    players, stage_games = group
    for f in compute_figures(players, stage_games):
        assert f.ts == f.bh


@settings(max_examples=150, deadline=None)
@given(groups(complete=True), st.sampled_from(CutVariant), st.sampled_from(Unplayed))
def test_on_complete_groups_cuts_never_raise_a_figure(group, variant, unplayed):
    players, stage_games = group
    for f in compute_figures(players, stage_games, variant=variant, unplayed=unplayed):
        assert f.bh_c2 <= f.bh_c1 <= f.bh
        assert f.ts_median <= f.ts_cut1 <= f.ts
        # and the Torino cuts are the Buchholz cuts, as the paper requires
        assert f.ts_cut1 == f.bh_c1


@settings(max_examples=100, deadline=None)
@given(groups(complete=True).filter(lambda g: g[1] >= 2), st.sampled_from(CutVariant))
def test_on_complete_groups_ts_median_is_buchholz_without_lowest_and_highest(group, variant):
    players, stage_games = group
    by_id = {f.id: f for f in compute_figures(players, stage_games)}
    for player, f in zip(
        players, compute_figures(players, stage_games, variant=variant), strict=True
    ):
        opponents = [by_id[g.opponent].points for g in player.games]
        assert f.ts_median == f.bh - min(opponents) - max(opponents)


@settings(max_examples=150, deadline=None)
@given(
    groups(),
    st.data(),
    st.sampled_from(CutVariant),
    st.sampled_from(Unplayed),
)
def test_every_figure_and_place_is_invariant_under_renumbering(group, data, variant, unplayed):
    players, stage_games = group
    new_ids = data.draw(st.permutations([f"p{i}" for i in range(len(players))]))
    rename = dict(zip((p.id for p in players), new_ids, strict=True))
    renamed = [
        Player(rename[p.id], [_renamed(g, rename) for g in p.games])
        for p in data.draw(st.permutations(players))
    ]
    options = {"variant": variant, "unplayed": unplayed}
    before = compute_figures(players, stage_games, **options)
    after = {f.id: f for f in compute_figures(renamed, stage_games, **options)}
    for f in before:
        assert replace(after[rename[f.id]], id=f.id) == f
    places = {s.figures.id: s.label for s in rank(before, TORINO + BUCHHOLZ[1:])}
    renamed_places = {s.figures.id: s.label for s in rank(after.values(), TORINO + BUCHHOLZ[1:])}
    assert {rename[pid]: label for pid, label in places.items()} == renamed_places


def _renamed(game: Game, rename: dict) -> Game:
    opponent = None if game.opponent is None else rename[game.opponent]
    return Game(opponent, game.outcome, game.played, game.colour)
