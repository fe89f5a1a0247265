"""The rating report and norm figures of a real group equal the worked example of
docs/ratings.md §5 (computed there by hand), with ratings and rated games from a list."""

from __future__ import annotations

from decimal import Decimal

from apps.ratinglists.reports import group_rating_report, norm_figures, stage_rating_report
from tests.ratings import worked_example as example


def by_number(rows):
    return {int(r.who.code[1:]): r for r in rows}


def test_the_report_is_the_worked_examples(example_group):
    rows = by_number(group_rating_report(example_group))
    assert len(rows) == 10
    for cells in example.table("5.3"):
        number = int(cells[0])
        row = rows[number]
        assert row.games == int(cells[2])
        assert row.score == example.points(cells[3])
        if cells[1] == "—":
            assert row.provisional and row.k is None and row.change is None
            continue
        assert row.rating == int(cells[1])
        assert row.expected == Decimal(cells[4]).quantize(Decimal("0.01"))
        assert row.line.expected.quantize(Decimal("0.0001")) == Decimal(cells[4])
        assert row.k == int(cells[6])
        assert row.change == Decimal(cells[7])
        assert row.new_rating == Decimal(cells[8])


def test_the_stage_report_is_its_groups(example_group):
    assert [r.line for r in stage_rating_report(example_group.stage)] == [
        r.line for r in group_rating_report(example_group)
    ]


def test_norm_figures_are_the_worked_examples(example_group):
    rows = by_number(norm_figures(example_group, ["IM", "CCM"]))
    for code, title in (("IM", "5.6 Norm figures"), ("CCM", "5.6 Norm figures")):
        index = 0 if code == "IM" else 1
        for cells in example.tables(title)[index]:
            figure = rows[int(cells[0])].figures[code]
            assert figure.games == int(cells[1])
            assert figure.score == example.points(cells[2])
            assert figure.requirement == example.points(cells[4])
            assert figure.text() == cells[5]
