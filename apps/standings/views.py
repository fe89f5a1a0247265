"""Standings pages and exports: a group's standings and crosstable, the stage's unified
ranking, and their CSV and TRF files. Public when the stage is public, always for organizers.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from decimal import Decimal

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import pgettext_lazy

from apps.core.permissions import can_enter_results
from apps.groups.models import Group, Seat
from apps.stages.models import Stage
from apps.stages.views import visible_stage

from .crosstable import Cell, Crosstable, Row, build, crosstable_csv, standings_csv
from .services import chain, stage_ranking
from .trf_export import group_trf

RANKING_PAGE = 100
MATRIX_MAX = 30  # round robins up to this size get the full seat-by-seat matrix
# Column heads of the tie-break figures; the systems' own abbreviations stay as they are.
KEY_LABELS = {
    "points": pgettext_lazy("column: points", "Pts"),
    "ts": "TS",
    "ts_cut1": "TS-Cut1",
    "ts_median": "TS-Median",
    "bh": "BH",
    "bh_c1": "BH-C1",
    "bh_c2": "BH-C2",
    "sb": "SB",
    "wins": pgettext_lazy("column: games won", "Wins"),
    "black_games": pgettext_lazy("column: games with Black", "Black"),
}
TORINO_KEYS = {"ts", "ts_cut1", "ts_median"}


# ---------------------------------------------------------------------------
# Presentation (shared with the result entry page)
# ---------------------------------------------------------------------------


def points_text(value) -> str:
    """Points as a chess player writes them: 6½, ½, 7, or two decimals if not in halves."""
    value = Decimal(str(value))
    whole, rest = divmod(value, 1)
    if rest == 0:
        return str(int(whole))
    if rest == Decimal("0.5"):
        return f"{int(whole)}½" if whole else "½"
    return f"{value:.2f}"


def figure_text(key: str, value: str | None) -> str:
    if value in (None, ""):
        return "–"
    if key in TORINO_KEYS:
        return f"{Decimal(value):.2f}"
    return points_text(value)


def key_labels(keys: list[str]) -> list[str]:
    return [str(KEY_LABELS.get(k, k)) for k in keys]


def ordered_cells(row: Row, size: int) -> list[Cell]:
    """A row's games in formula order: White games by distance, then Black games."""

    def order(cell: Cell) -> tuple[int, int]:
        if cell.colour == "W":
            return (0, (cell.opponent_seat - row.seat) % size)
        return (1, (row.seat - cell.opponent_seat) % size)

    return sorted(row.cells.values(), key=order)


def colour_columns(rows: list[Row]) -> tuple[int, int]:
    """How many White and Black game columns a compact table needs (the most of any row)."""
    whites = max((sum(c.colour == "W" for c in r.cells.values()) for r in rows), default=0)
    blacks = max((sum(c.colour == "B" for c in r.cells.values()) for r in rows), default=0)
    return whites, blacks


def compact_cells(row: Row, size: int, whites: int, blacks: int) -> list[Cell | None]:
    """The row's White games then its Black games, each padded to its column count."""
    cells = ordered_cells(row, size)
    white = [c for c in cells if c.colour == "W"]
    black = [c for c in cells if c.colour == "B"]
    return white + [None] * (whites - len(white)) + black + [None] * (blacks - len(black))


@dataclass(frozen=True)
class Line:
    """A crosstable row with what its page shows."""

    row: Row
    cells: list[Cell | None]  # in column order; None on the diagonal or where no game is
    points: str
    figures: list[str]
    own: bool = False


def lines(table: Crosstable, rows: list[Row], matrix: bool, own: set[int]) -> list[Line]:
    size = len(table.rows)
    whites, blacks = colour_columns(table.rows)
    result = []
    for row in rows:
        if matrix:
            cells = [row.cells.get(seat) for seat in range(1, size + 1)]
        else:
            cells = compact_cells(row, table.group.size, whites, blacks)
        result.append(
            Line(
                row,
                cells,
                points_text(row.points),
                [figure_text(k, row.figures.get(k)) for k in table.keys],
                row.seat in own,
            )
        )
    return result


def visible_group(request: HttpRequest, slug: str, order: int, number: int) -> Group:
    stage = visible_stage(request, slug, order)
    group = get_object_or_404(Group, stage=stage, number=number)
    group.stage = stage
    return group


def _context(request: HttpRequest, group: Group, table: Crosstable, **more) -> dict:
    stage = group.stage
    return {
        "can_enter": can_enter_results(request.user, group),
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "table": table,
        "key_labels": key_labels(table.keys),
        "provisional": table.counts["in_progress"] > 0,
        **more,
    }


def _download(text: str, content_type: str, filename: str) -> HttpResponse:
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _file_stem(group: Group) -> str:
    return f"{group.stage.tournament.slug}-stage-{group.stage.order}-group-{group.number}"


# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------


def group_standings(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    table = build(group)
    context = _context(request, group, table, lines=lines(table, table.by_place(), False, set()))
    return render(request, "standings/standings.html", context)


def group_crosstable(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    table = build(group)
    size = len(table.rows)
    matrix = size <= MATRIX_MAX and all(len(r.cells) == size - 1 for r in table.rows)
    own: set[int] = set()
    if request.user.is_authenticated:
        own = set(
            Seat.objects.filter(group=group, entrant__user=request.user).values_list(
                "number", flat=True
            )
        )
    context = _context(
        request,
        group,
        table,
        matrix=matrix,
        columns=range(1, size + 1),
        colour_columns=colour_columns(table.rows),
        lines=lines(table, table.rows, matrix, own),
    )
    return render(request, "standings/crosstable.html", context)


def stage_ranking_page(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    keys = [k.value for k in chain(stage.tournament)][1:]
    page = Paginator(stage_ranking(stage), RANKING_PAGE).get_page(request.GET.get("page"))
    for row in page.object_list:
        row["points_text"] = points_text(row["points"])
        row["figure_texts"] = [figure_text(k, row["figures"].get(k)) for k in keys]
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "page": page,
        "key_labels": key_labels(keys),
        "unified": stage.tournament.ranking == stage.tournament.Ranking.UNIFIED,
        # Standings are stored from a group's first result on.
        "groups_without_results": stage.groups.filter(standings_at__isnull=True).count(),
    }
    return render(request, "standings/ranking.html", context)


# ---------------------------------------------------------------------------
# Files
# ---------------------------------------------------------------------------


def group_crosstable_csv(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    return _download(
        crosstable_csv(build(group)), "text/csv", f"{_file_stem(group)}-crosstable.csv"
    )


def group_standings_csv(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    return _download(standings_csv(build(group)), "text/csv", f"{_file_stem(group)}-standings.csv")


def group_trf_file(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    return _download(group_trf(group), "text/plain", f"{_file_stem(group)}.trf")


def ranking_csv(stage: Stage) -> str:
    """The ranking as CSV: place, group, seat, entrant, points, the chain's tie-breaks, games."""
    keys = [k.value for k in chain(stage.tournament)][1:]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["place", "group", "seat", "code", "name", "nation", "rating", "points", *keys]
        + ["finished", "scheduled", "withdrawn"]
    )
    for row in stage_ranking(stage):
        writer.writerow(
            [
                row["place"],
                row["group__number"],
                row["seat"],
                row["entrant__code"],
                row["entrant__name"],
                row["entrant__nation"],
                row["entrant__rating"] or "",
                row["points"],
                *(row["figures"].get(k, "") for k in keys),
                row["finished"],
                row["scheduled"],
                int(row["withdrawn"]),
            ]
        )
    return out.getvalue()


def stage_ranking_csv(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    filename = f"{stage.tournament.slug}-stage-{stage.order}-ranking.csv"
    return _download(ranking_csv(stage), "text/csv", filename)
