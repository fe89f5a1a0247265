"""TRF import and the standings_from_trf report (apps/scoring/trf/read.py).

The real tournaments are in ``tests/data/trf/`` (``tests/data/README.md`` says where each
comes from).
"""

import re
from fractions import Fraction as F
from pathlib import Path

import pytest

from apps.scoring.tiebreaks import (
    BUCHHOLZ,
    Colour,
    CutVariant,
    Figures,
    Game,
    Outcome,
    Standing,
    Unplayed,
    compute_figures,
)
from apps.scoring.trf.read import (
    CSV_HEADER,
    TrfError,
    TrfRound,
    decode_trf,
    parse_trf,
    players_from_trf,
    standings_csv,
    standings_from_trf,
)
from tests.scoring.test_torino_paper import PLAYERS as PAPER_PLAYERS

TRF_DIR = Path(__file__).resolve().parent.parent / "data" / "trf"
ROUNDS = {"gros_2010_after_r4.trf": 4}  # state after round 4 of 9 (tests/data/README.md)


def trf_files() -> list[str]:
    return sorted(p.name for p in TRF_DIR.glob("*.trf"))


def test_the_real_tournaments_are_in_the_repository():
    assert len(trf_files()) == 10
    assert (TRF_DIR / "fwwrc_2024_scalachess_snapshot.txt").is_file()


def read(name: str) -> str:
    return decode_trf((TRF_DIR / name).read_bytes())


def figures_of(name: str, unplayed: Unplayed = Unplayed.FIDE2024) -> dict[int, Figures]:
    tournament = parse_trf(read(name))
    stage_games = tournament.stage_games(ROUNDS.get(name))
    players = players_from_trf(tournament, stage_games)
    return {f.id: f for f in compute_figures(players, stage_games, unplayed=unplayed)}


def player_line(rank: int, points: str, cells: list[str], name: str = "Player") -> str:
    """A TRF16 001 line: the fixed columns up to 91, then one 10-character cell per round."""
    head = f"001 {rank:4d} m  g {name:<33} 2100 ITA {12345678:>11} 1990/01/01 {points:>4} {rank:4d}"
    assert len(head) == 89
    return head + "  " + "  ".join(cells)


SMALL = "\n".join(
    [
        "012 Small test",
        "XXR 3",
        player_line(1, "2.0", ["   2 w 1", "   3 b =", "0000 - H"]),
        player_line(2, "1.0", ["   1 b 0", "0000 - U", "   3 w -"]),
        player_line(3, "1.5", ["0000 - Z", "   1 w =", "   2 b +"]),
        player_line(4, "0.0", []),
    ]
)


# --- the parser -----------------------------------------------------------------------


def test_player_records_are_read_from_their_fixed_columns():
    tournament = parse_trf(SMALL)
    assert (tournament.name, tournament.declared_rounds) == ("Small test", 3)
    first = tournament.players[0]
    assert (first.start_rank, first.name, first.rating, first.fide_id, first.points) == (
        1,
        "Player",
        2100,
        "12345678",
        F(2),
    )
    assert first.rounds == (
        TrfRound(2, Colour.WHITE, "1"),
        TrfRound(3, Colour.BLACK, "="),
        TrfRound(None, None, "H"),
    )
    assert tournament.players[3].rounds == ()


def test_result_codes_become_games_played_only_with_an_opponent_and_a_played_code():
    players = {p.id: p.games for p in players_from_trf(parse_trf(SMALL), 3)}
    assert players[1] == (
        Game(2, Outcome.WIN, True, Colour.WHITE),
        Game(3, Outcome.DRAW, True, Colour.BLACK),
        Game(None, Outcome.DRAW, False, None),
    )
    assert players[2][1:] == (
        Game(None, Outcome.WIN, False, None),  # U: pairing-allocated bye
        Game(3, Outcome.LOSS, False, Colour.WHITE),  # -: forfeit loss
    )
    assert players[3][0] == Game(None, Outcome.LOSS, False, None)  # Z
    # a line with no round cells: zero-point byes up to T
    assert players[4] == (Game(None, Outcome.LOSS, False, None),) * 3


@pytest.mark.parametrize(
    ("cell", "game"),
    [
        ("   2 w W", Game(2, Outcome.WIN, True, Colour.WHITE)),  # not rated, still played
        ("   2 b D", Game(2, Outcome.DRAW, True, Colour.BLACK)),
        ("   2 w L", Game(2, Outcome.LOSS, True, Colour.WHITE)),
        ("   2 - +", Game(2, Outcome.WIN, False, None)),  # forfeit written with colour -
        ("0000 - F", Game(None, Outcome.WIN, False, None)),
        ("0000 - +", Game(None, Outcome.WIN, False, None)),  # old-style pairing bye
        ("       -", Game(None, Outcome.LOSS, False, None)),  # lichess: absent, no opponent
        ("        ", Game(None, Outcome.LOSS, False, None)),  # blank: as Z
        ("   0 - 1", Game(None, Outcome.WIN, False, None)),  # no opponent: never played
    ],
)
def test_every_trf_result_code(cell, game):
    text = "\n".join([player_line(1, "0.0", [cell]), player_line(2, "0.0", [])])
    assert players_from_trf(parse_trf(text), 1)[0].games == (game,)


def test_a_paired_game_without_a_result_is_not_finished_and_left_out():
    text = "\n".join([player_line(1, "0.0", ["   2 w  "]), player_line(2, "0.0", ["   1 b  "])])
    assert [p.games for p in players_from_trf(parse_trf(text), 1)] == [(), ()]


def test_t_is_the_option_else_xxr_else_the_round_cells():
    tournament = parse_trf(SMALL)
    assert (tournament.stage_games(), tournament.stage_games(2)) == (3, 2)
    without_xxr = parse_trf(SMALL.replace("XXR 3\n", ""))
    assert without_xxr.stage_games() == 3


def test_rounds_after_t_are_ignored():
    players = {p.id: p.games for p in players_from_trf(parse_trf(SMALL), 2)}
    assert len(players[1]) == 2 and players[1][1].opponent == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (player_line(1, "0.0", ["   2 w X"]), "result 'X'"),
        (player_line(1, "0.0", ["   2 x 1"]), "colour 'x'"),
        (player_line(1, "0.0", ["  2a w 1"]), "opponent '2a'"),
        (player_line(1, "x.5", []), "points"),
        ("XXR nine", "XXR"),
        (player_line(1, "0.0", []) + "\n" + player_line(1, "0.0", []), "same start rank"),
    ],
)
def test_malformed_lines_are_refused_with_their_place(text, message):
    with pytest.raises(TrfError, match=message):
        parse_trf(text)


def test_an_opponent_without_a_player_line_is_refused():
    with pytest.raises(TrfError, match="opponent 7 has no 001 line"):
        players_from_trf(parse_trf(player_line(1, "1.0", ["   7 w 1"])), 1)


def test_files_that_are_not_utf8_are_read_as_latin1():
    assert decode_trf("012 Müller".encode("latin-1")) == "012 Müller"
    assert decode_trf("012 Müller".encode()) == "012 Müller"


# --- the report -----------------------------------------------------------------------


def test_csv_has_the_interface_header_and_plain_numbers():
    figures = Figures(
        id=7,
        points=F(11, 2),
        games=7,
        gms=6,
        rgp=F(9, 2),
        bh=F(61, 2),
        bh_c1=F(28),
        bh_c2=F(53, 3),
        ts=F(26775, 1000),
        ts_cut1=F(2, 3),
        ts_median=F(0),
        sb=F(0),
        wins=0,
        black_games=0,
    )
    csv = standings_csv([Standing(3, 4, figures)])
    assert csv == (
        "id,points,games,gms,rgp,bh,bh_c1,bh_c2,ts,ts_c1,ts_median,rank\n"
        "7,5.5,7,6,4.5,30.5,28.0,17.67,26.78,0.67,0.00,3-4\n"
    )


def test_small_file_end_to_end():
    standings = standings_from_trf(SMALL, chain=BUCHHOLZ)
    assert standings_csv(standings).splitlines() == [
        CSV_HEADER,
        # BH 2 (1) + 3 (1.5); TS (0 + 0.5) / (1 + 1) * 9, Cut1 drops 2: 0.5 / 1 * 6
        "1,2.0,3,2,1.5,2.5,1.5,0.0,2.25,3.00,0.00,1",
        # BH 1 (2) + 2 by forfeit (1); TS 1.5 / 2 * 9, Cut1 drops the only opponent
        "3,1.5,3,1,0.5,3.0,2.0,0.0,6.75,0.00,0.00,2",
        "2,1.0,3,1,0.0,3.5,2.0,0.0,6.75,0.00,0.00,3",
        "4,0.0,3,0,0.0,0.0,0.0,0.0,0.00,0.00,0.00,4",
    ]


# --- the real tournaments ---------------------------------------------------------------


@pytest.mark.parametrize("name", trf_files())
def test_every_trf_file_gives_one_csv_row_per_player(name):
    text = read(name)
    count = len(parse_trf(text).players)
    for variant in CutVariant:
        for unplayed in Unplayed:
            standings = standings_from_trf(
                text, rounds=ROUNDS.get(name), variant=variant, unplayed=unplayed
            )
            lines = standings_csv(standings).splitlines()
            assert lines[0] == CSV_HEADER
            assert len(lines) == count + 1
            assert all(
                re.fullmatch(r"\d+(,\d+(\.\d+)?){10},\d+(-\d+)?", line) for line in lines[1:]
            )
    standings_from_trf(text, rounds=ROUNDS.get(name), chain=BUCHHOLZ)


@pytest.mark.parametrize("name", trf_files())
def test_recomputed_points_are_the_points_written_in_the_file(name):
    # The only exception (tests/data/README.md): Gros player 43's 1.0 includes round 5's
    # half-point bye, which T = 4 leaves out.
    written = {p.start_rank: p.points for p in parse_trf(read(name)).players}
    computed = {pid: f.points for pid, f in figures_of(name).items()}
    differ = {
        pid: (written[pid], computed[pid]) for pid in written if written[pid] != computed[pid]
    }
    assert differ == ({43: (F(1), F(1, 2))} if name == "gros_2010_after_r4.trf" else {})


@pytest.mark.parametrize("name", trf_files())
def test_every_game_is_read_on_both_players_lines(name):
    tournament = parse_trf(read(name))
    stage_games = tournament.stage_games(ROUNDS.get(name))
    players = {p.id: p for p in players_from_trf(tournament, stage_games)}
    reverse = {Outcome.WIN: Outcome.LOSS, Outcome.DRAW: Outcome.DRAW, Outcome.LOSS: Outcome.WIN}
    for player in players.values():
        for number, game in enumerate(player.games):
            if game.opponent is None:
                continue
            other = players[game.opponent].games[number]
            assert (other.opponent, other.played) == (player.id, game.played)
            if game.played:
                assert other.outcome is reverse[game.outcome]


def test_fwwrc_buchholz_agrees_with_the_scalachess_snapshot_for_all_110_players():
    # Every game of this file was played, so both conventions give the same figures.
    snapshot = (TRF_DIR / "fwwrc_2024_scalachess_snapshot.txt").read_text(encoding="utf-8")
    pattern = r"Player\((\d+),Some\(\d+\)\),([\d.]+),List\(([\d.]+), ([\d.]+), [\d.]+\)"
    published = {
        fide: (F(pts), F(c1), F(bh)) for fide, pts, c1, bh in re.findall(pattern, snapshot)
    }
    assert len(published) == 110
    by_fide_id = {
        p.fide_id: p.start_rank for p in parse_trf(read("fwwrc_2024_from_pgn.trf")).players
    }
    for unplayed in Unplayed:
        figures = figures_of("fwwrc_2024_from_pgn.trf", unplayed)
        ours = {fide: figures[rank] for fide, rank in by_fide_id.items()}
        assert {k: (f.points, f.bh_c1, f.bh) for k, f in ours.items()} == published


# FIDE C.07 (2024) art. 16 by hand: a played game counts the opponent's points, with the
# opponent's absences after withdrawing counted as draws; each own unplayed round counts
# the player's own points; cuts take the unplayed rounds not won first.
FIDE2024_BY_HAND = [
    # (file, player, BH, BH-C1, BH-C2)
    # David: opponents 3+2.5+6.5+6+6+4.5+6+4 = 38.5, and his round-2 H counts his own 6;
    # the H goes first although 2.5 is lower.
    ("fide_c07_2023_exercise_r9.trf", 4, F(89, 2), F(77, 2), F(36)),
    # Nick: opponents 6+4+4+2.5+3 = 19.5, four unplayed rounds at his own 3 (PAB U, forfeit
    # win, two Z); only the two Z are cut first.
    ("fide_c07_2023_exercise_r9.trf", 12, F(63, 2), F(57, 2), F(51, 2)),
    # Jessica: 6+4+2.5+4+4.5+3 = 24, plus H, forfeit loss and PAB at her own 3.
    ("fide_c07_2023_exercise_r9.trf", 9, F(33), F(30), F(27)),
    # 27 withdrew after round 5 (rounds 6-7 blank): 21.5 + 2 x 4, the blanks cut first.
    ("karl_mala_2005.trf", 27, F(59, 2), F(51, 2), F(43, 2)),
    # 167 lost to 27, who counts 4 + 2 x 1/2 = 5 instead of 4: classic 22 + 1.
    ("karl_mala_2005.trf", 167, F(23), F(43, 2), F(19)),
    # 13 lost by forfeit, then left: every round a dummy at his own 0.
    ("karl_mala_2005.trf", 13, F(0), F(0), F(0)),
    # 1: F, Z and a win over 76 (3.5 points), then absent: 3.5 + 6 x 2; five Z cut first.
    ("san_viator_2018.trf", 1, F(31, 2), F(27, 2), F(23, 2)),
    # 76: 4.5+2+4+2.5+4+4.5 (1 counts 2 + 4 x 1/2) + forfeit win at own 3.5.
    ("san_viator_2018.trf", 76, F(25), F(23), F(41, 2)),
    # 4: forfeit win over 25 at own 6 + 6.5+5.5+5.5+6.5+6.5+5.5+5.5+5 = 52.5; not cut first.
    ("capo_dorso_2012.trf", 4, F(105, 2), F(95, 2), F(42)),
    # 36: round-1 Z at own 4.5 + 36 from opponents; the Z goes first, then 3.5.
    ("capo_dorso_2012.trf", 36, F(81, 2), F(36), F(65, 2)),
    # 8 lost round 4 by forfeit: 1.5+3+4 + own 2; that round goes first.
    ("gros_2010_after_r4.trf", 8, F(21, 2), F(17, 2), F(7)),
    # 21 won round 4 by forfeit: 0.5+3.5+1.5 + own 3, cut as an ordinary 3.
    ("gros_2010_after_r4.trf", 21, F(17, 2), F(8), F(13, 2)),
    # 13 played three rounds and was then absent: 8+4+5 + 7 x own 1.
    ("lichess_2020-05-29_mai_5plus0.trf", 13, F(24), F(23), F(22)),
    # 1 beat 13, who counts 1 + 7 x 1/2 = 4.5: classic 49 + 3.5.
    ("lichess_2020-05-29_mai_5plus0.trf", 1, F(105, 2), F(99, 2), F(91, 2)),
    # 8 joined in round 6: 2+3+4+8+2 + five rounds at own 4.5.
    ("lichess_2020-05-29_mai_5plus0.trf", 8, F(83, 2), F(37), F(65, 2)),
    # 1's pairing-allocated bye counts own 7.5 and is a won round: the lowest, 2, goes.
    ("lichess_2020-06-26_juni_blitz.trf", 1, F(45), F(43), F(81, 2)),
    # 3: 3.5+3+4+5+5 = 20.5, Z and F at own 4.5; the Z goes first, then 3.
    ("torino_paper_2016.trf", 3, F(59, 2), F(25), F(22)),
    # 8 beat 19, who played once and counts 0 + 6 x 1/2 = 3: classic 26.5 + 3.
    ("torino_paper_2016.trf", 8, F(59, 2), F(53, 2), F(47, 2)),
    # 19: 8's 4.5 and six absences at own 0, which the cuts take.
    ("torino_paper_2016.trf", 19, F(9, 2), F(9, 2), F(9, 2)),
    # A round robin without unplayed games: as classic, 4+5.5+4.5+5+2.5+4.5+4.5+3.5+5.5.
    ("uzchess_cup_2025_from_pgn.trf", 2, F(79, 2), F(37), F(67, 2)),
]


@pytest.mark.parametrize(("name", "player", "bh", "bh_c1", "bh_c2"), FIDE2024_BY_HAND)
def test_fide2024_buchholz_follows_c07_article_16(name, player, bh, bh_c1, bh_c2):
    f = figures_of(name)[player]
    assert (f.bh, f.bh_c1, f.bh_c2) == (bh, bh_c1, bh_c2)


def test_fide2024_figures_of_the_fwwrc_file_are_its_classic_ones():
    assert figures_of("fwwrc_2024_from_pgn.trf") == figures_of(
        "fwwrc_2024_from_pgn.trf", Unplayed.CLASSIC
    )


def test_torino_paper_file_is_the_papers_table():
    for unplayed in Unplayed:
        from_file = figures_of("torino_paper_2016.trf", unplayed)
        from_paper = {f.id: f for f in compute_figures(PAPER_PLAYERS, 7, unplayed=unplayed)}
        assert from_file == from_paper


def test_torino_paper_csv_row_of_player_2():
    csv = standings_csv(standings_from_trf(read("torino_paper_2016.trf")))
    assert csv.splitlines()[1] == "2,7.0,7,7,7.0,30.0,26.5,23.0,30.33,26.68,21.58,1"
