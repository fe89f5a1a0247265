"""The code gives exactly the figures of the worked example in docs/ratings.md §5."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from apps.ratings.elo import decimal, expected_score
from apps.ratings.games import rated_games
from apps.ratings.norms import CCM, IM, norm_figures, points_text
from apps.ratings.report import FIDE, rating_report
from tests.ratings.worked_example import names, players, points, rating, table, tables

FOUR = Decimal("0.0001")


def four(value: Decimal) -> str:
    return str(value.quantize(FOUR, rounding=ROUND_HALF_UP))


def test_the_crosstable_is_consistent_both_ways_with_its_points_column():
    group = {p.id: p for p in players()}
    assert len(group) == 10
    for row in table("5.1"):
        player = group[int(row[0])]
        assert sum((g.score for g in player.games), start=points("0")) == points(row[14])
        for game in player.games:
            back = next(g for g in group[game.opponent].games if g.opponent == player.id)
            assert back.score == 1 - game.score and back.played == game.played


def test_every_expected_score_and_sum():
    lines = {line.id: line for line in rating_report(players())}
    rows = table("5.2")
    assert [int(row[0]) for row in rows] == list(range(1, 10))
    for row in rows:
        line = lines[int(row[0])]
        expected = {g.opponent: g.expected for g in line.games}
        for opponent, cell in enumerate(row[1:10], start=1):
            if cell in ("×", "—"):
                assert opponent not in expected
            else:
                value = expected[opponent]
                assert value is not None and four(value) == cell
        assert line.expected is not None and four(line.expected) == row[10]


def test_the_rating_report():
    lines = rating_report(players())
    rows = table("5.3")
    assert len(rows) == len(lines) == 10
    for row, line in zip(rows, lines, strict=True):
        assert (str(line.id), len(line.games), line.score) == (row[0], int(row[2]), points(row[3]))
        assert line.rating == rating(row[1])
        if line.rating is None:
            assert line.provisional and row[8] == "provisional"
            assert (line.expected, line.k, line.change, line.new_rating) == (None,) * 4
            continue
        assert line.expected is not None and not line.provisional
        assert four(line.expected) == row[4]
        assert four(decimal(line.score) - line.expected) == row[5]
        assert (str(line.k), str(line.change), str(line.new_rating)) == (row[6], row[7], row[8])


def test_the_k_examples_of_a_long_event():
    for row in table("5.4"):
        assert FIDE.k(int(row[0]), int(row[1]), int(row[2])) == int(row[3])


def test_dvoraks_im_requirement_in_full():
    assert names()[4] == "Dvořák"
    rows = table("5.5")
    opponents = [g.opponent for g in rated_games(players())[4]]
    assert [int(row[0]) for row in rows] == opponents
    for row in rows:
        assert int(row[2]) == IM.rating - int(row[1])
        assert four(expected_score(IM.rating, int(row[1]))) == row[3]
    figure = norm_figures(players(), IM)[3]
    assert four(figure.expected) == "5.5374"
    assert (points_text(figure.requirement), figure.games, figure.achieved) == ("6", 8, True)
    assert figure.text() == "IM norm: needs 6, has 6 ✓"


def test_the_norm_figures_of_the_group_at_im_and_ccm():
    im_rows, ccm_rows = tables("5.6")
    for level, rows in ((IM, im_rows), (CCM, ccm_rows)):
        figures = norm_figures(players(), level)
        assert len(rows) == len(figures) == 10
        for row, figure in zip(rows, figures, strict=True):
            assert [str(figure.id), str(figure.games), points_text(figure.score)] == row[:3]
            assert four(figure.expected) == row[3]
            assert points_text(figure.requirement) == row[4]
            assert figure.text() == row[5]
