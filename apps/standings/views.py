"""Standings pages and exports: a group's standings and crosstable, the stage's unified
ranking, and their CSV and TRF files. Public when the stage is public, always for organizers.

While a recompute is pending the pages say since when; organizers get a button that forces
one (a POST to the page itself: the group's standings or crosstable recompute that group,
the ranking every group of the stage). The ranking page and its CSV read the stage's stored
ranking (a page at a time; the file streamed), and say when it is being rebuilt.

"Find a player" lives here too: each entry found shows its games' results and links, its
points and place (the group's stored standings), besides its opponents.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext

from apps.core.errors import ActionError
from apps.core.pages import show_refusal
from apps.core.permissions import is_group_td, is_organizer
from apps.core.results import Result
from apps.groups.models import Game, Group, Seat
from apps.groups.services import Opponent, SeatLine, lines_for_seats, player_search
from apps.ratings.norms import NORM_LEVELS
from apps.scoring.points import points_text
from apps.stages.models import Stage, Tournament
from apps.stages.pages import visible_stage
from apps.stages.permissions import public_stages_filter

from .crosstable import (
    ByeCell,
    Cell,
    Crosstable,
    Row,
    build,
    crosstable_csv,
    standings_csv,
)
from .display import (
    colour_columns,
    compact_cells,
    figure_text,
    key_labels,
)
from .freshness import ranking_state, stage_pending
from .groups import chain
from .models import GroupStanding, RankingFile, StandingsMark
from .pairing_list import pairing_list_csv
from .ranking import StoredRanking, ranking_csv, stored_ranking_file
from .rated import UNOFFICIAL, crosstable_players, group_norm_figures
from .services import force_recompute
from .trf_export import group_trf

RANKING_PAGE = 100
ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as GZipMiddleware reads Accept-Encoding
MATRIX_MAX = 30  # round robins up to this size get the full seat-by-seat matrix


@dataclass(frozen=True)
class Line:
    """A crosstable row with what its page shows."""

    row: Row
    # in column order; None on the diagonal or where no game is; a Swiss round's bye
    cells: Sequence[Cell | ByeCell | None]
    points: str
    figures: list[str]
    own: bool = False
    # the crosstable page's cells of the row, written here (:class:`CellWriter`)
    cells_html: str = ""


class CellWriter:
    """The crosstable's result cells as HTML, written in Python: a 100-player group has a
    thousand, and the template's tags took most of the page's time for them. The words are
    translated once a page."""

    def __init__(self, matrix: bool, rounds: int, games_url: str) -> None:
        self.matrix, self.rounds = matrix, rounds
        self.games_url = escape(games_url)
        words = {
            "bye_title": _("pairing-allocated bye: a win"),
            "bye": _("bye"),
            "White": _("White"),
            "Black": _("Black"),
            "against": _("against seat"),
            "adjudicated": _("adjudicated"),
            "W": pgettext("White, one letter", "W"),
            "B": pgettext("Black, one letter", "B"),
            "absent": _("not paired in this round: no points"),
            "own": _("own seat"),
        }
        self.words = {key: escape(word) for key, word in words.items()}

    def cell(self, cell: Cell | ByeCell | None, column: int, seat: int) -> str:
        w = self.words
        if cell is not None and cell.bye:
            return f'<td class="xc bye" title="{w["bye_title"]}">{w["bye"]}</td>'
        if isinstance(cell, Cell):
            white = cell.colour == "W"
            classes = "xc" + (" latest" if cell.latest else "") + ("" if cell.result else " open")
            title = f"{w['White'] if white else w['Black']} {w['against']} {cell.opponent_seat}"
            if cell.adjudicated:
                title += f" ({w['adjudicated']})"
            if cell.finished_on:
                title += f", {cell.finished_on:%Y-%m-%d}"
            chip = (w["W"] if white else w["B"]) if self.matrix else str(cell.opponent_seat)
            return (
                f'<td class="{classes}" title="{title}">'
                f'<span class="chip {"white" if white else "black"}">{chip}</span>'
                f'<a class="sym" href="{self.games_url}{cell.number}/">'
                f"{escape(cell.symbol or '·')}</a></td>"
            )
        if self.rounds:
            return f'<td class="xc absent" title="{w["absent"]}">–</td>'
        if self.matrix and column == seat:
            return f'<td class="xc self" aria-label="{w["own"]}">×</td>'
        return '<td class="xc"></td>'

    def row(self, cells: Sequence[Cell | ByeCell | None], seat: int) -> str:
        return mark_safe(  # noqa: S308 - every value above is escaped or a number
            "".join(self.cell(cell, column, seat) for column, cell in enumerate(cells, start=1))
        )


def lines(
    table: Crosstable,
    rows: list[Row],
    matrix: bool,
    own: set[int],
    rounds: int = 0,
    writer: CellWriter | None = None,
) -> list[Line]:
    """The rows as shown: the seat-by-seat ``matrix``, a Swiss stage's ``rounds`` (one column
    a round), else each row's White then Black games; with ``writer``, their cells' HTML."""
    size = len(table.rows)
    whites, blacks = colour_columns(table.rows)
    result = []
    for row in rows:
        cells: Sequence[Cell | ByeCell | None]
        if rounds:
            cells = row.by_round(rounds)
        elif matrix:
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
                writer.row(cells, row.seat) if writer is not None else "",
            )
        )
    return result


def visible_group(request: HttpRequest, slug: str, order: int, number: int) -> Group:
    stage = visible_stage(request, slug, order)
    # With its standings mark (if it ever had one): the pages say when a recompute is pending.
    group = get_object_or_404(
        Group.objects.select_related("standings_mark"), stage=stage, number=number
    )
    group.stage = stage
    return group


def _context(request: HttpRequest, group: Group, table: Crosstable, **more) -> dict:
    stage = group.stage
    organizer = is_organizer(request.user, stage.tournament)
    return {
        # can_enter_results(), without asking again whether the user is an organizer
        "can_enter": organizer or is_group_td(request.user, group),
        "can_recompute": organizer and stage.is_public,
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "table": table,
        "key_labels": key_labels(table.keys),
        "provisional": table.counts["in_progress"] > 0,
        "pending_since": _pending_since(group),
        **more,
    }


def _pending_since(group: Group) -> datetime | None:
    try:
        return group.standings_mark.pending_since
    except StandingsMark.DoesNotExist:
        return None


def _force_recompute(request: HttpRequest, stage: Stage, group: Group | None = None):
    """The organizers' "Recompute the standings" button, back to the page it is on."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.path)
    try:
        groups = force_recompute(request.user, stage, group)
    except ActionError as error:
        show_refusal(request, error)
    else:
        messages.success(
            request,
            ngettext(
                "The standings of %(count)s group are being recomputed; reload in a moment.",
                "The standings of %(count)s groups are being recomputed; reload in a moment.",
                len(groups),
            )
            % {"count": len(groups)},
        )
    return redirect(request.path)


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
    if request.method == "POST":
        return _force_recompute(request, group.stage, group)
    table = build(group)
    context = _context(
        request,
        group,
        table,
        lines=lines(table, table.by_place(), False, set()),
        # a Swiss group's rounds: each round's page has the standings after it
        after_rounds=range(1, table.rounds_paired + 1) if group.stage.is_swiss else [],
    )
    return render(request, "standings/standings.html", context)


def group_crosstable(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    if request.method == "POST":
        return _force_recompute(request, group.stage, group)
    table = build(group)
    size = len(table.rows)
    rounds = table.rounds_paired if group.stage.is_swiss else 0
    matrix = not rounds and size <= MATRIX_MAX and all(len(r.cells) == size - 1 for r in table.rows)
    own: set[int] = set()
    if request.user.is_authenticated:
        own = set(
            Seat.objects.filter(group=group, entrant__user=request.user).values_list(
                "number", flat=True
            )
        )
    # Each game's page (the results app's "game" route) is its group's address + games/N/.
    writer = CellWriter(matrix, rounds, group.get_absolute_url() + "games/")
    context = _context(
        request,
        group,
        table,
        matrix=matrix,
        rounds=range(1, rounds + 1),
        columns=range(1, size + 1),
        colour_columns=colour_columns(table.rows),
        lines=lines(table, table.rows, matrix, own, rounds, writer),
        # Each game's page (the results app's "game" route) is its group's address + games/N/.
        games_url=group.get_absolute_url() + "games/",
        # Title-norm figures at every level, from the entrants' ratings and the games.
        norm_levels=list(NORM_LEVELS.values()),
        norms=[
            row
            for row in group_norm_figures(group, players=crosstable_players(table))
            if any(f.games for f in row.figures.values())
        ],
        unofficial=UNOFFICIAL,
        # The rating report (apps.ratinglists, above this app) is at the group's address too.
        rating_report_url=group.get_absolute_url() + "rating-report/",
    )
    return render(request, "standings/crosstable.html", context)


def stage_ranking_page(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    if request.method == "POST":
        return _force_recompute(request, stage)
    keys = [k.value for k in chain(stage.tournament)][1:]
    # The stored ranking, read a page at a time (the page's positions only).
    state = ranking_state(stage, heal=True)
    rows = StoredRanking(stage, state)
    # Sliced only, never iterated whole (the stubs want an iterable).
    paginator: Paginator[dict] = Paginator(rows, RANKING_PAGE)  # type: ignore[arg-type]
    page = paginator.get_page(request.GET.get("page"))
    for row in page.object_list:
        row["points_text"] = points_text(row["points"])
        row["figure_texts"] = [figure_text(k, row["figures"].get(k)) for k in keys]
    pending = stage_pending(stage)
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "page": page,
        "key_labels": key_labels(keys),
        "unified": stage.tournament.ranking == stage.tournament.Ranking.UNIFIED,
        # Standings are stored from a group's first result on.
        "groups_without_results": stage.groups.filter(standings_at__isnull=True).count(),
        "pending": pending,
        # The stored ranking waits for its rebuild (groups being updated say it already): the
        # page shows the last one built.
        "ranking_pending_since": None if pending.groups else state.pending_since,
        "can_recompute": stage.is_public and is_organizer(request.user, stage.tournament),
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


def group_pairings_csv(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    """The group's pairing list to fill in for the results import (:mod:`.pairing_list`)."""
    group = visible_group(request, slug, order, number)
    text = pairing_list_csv(group) or ""
    return _download(text, "text/csv", f"{_file_stem(group)}-pairings.csv")


def group_round_pairings_csv(
    request: HttpRequest, slug: str, order: int, number: int, round_number: int
) -> HttpResponse:
    """One round's pairing list (a Swiss group); 404 for a round without games."""
    group = visible_group(request, slug, order, number)
    text = pairing_list_csv(group, round_number)
    if text is None:
        raise Http404("no games in this round")
    return _download(text, "text/csv", f"{_file_stem(group)}-round-{round_number}-pairings.csv")


def group_trf_file(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = visible_group(request, slug, order, number)
    return _download(group_trf(group), "text/plain", f"{_file_stem(group)}.trf")


class StreamedFile(StreamingHttpResponse):
    """A download sent as it is written. Callers written for a whole response (test clients)
    may still read ``content``: that reads the whole stream, which is then sent from memory."""

    _whole: bytes | None = None

    # Readable whole, unlike the stubs' StreamingHttpResponse (see above).
    @property
    def content(self) -> bytes:  # type: ignore[override]
        if self._whole is None:
            self._whole = self.getvalue()
            self.streaming_content = [self._whole]
        return self._whole


def stage_ranking_csv(
    request: HttpRequest, slug: str, order: int
) -> HttpResponse | StreamingHttpResponse:
    """The stored ranking as a CSV file: as stored with the ranking by its last rebuild
    (``ranking.store_ranking_file``), gzip-compressed as it is to clients that accept gzip,
    with its digest as ETag (a conditional request for the same file is answered 304);
    written from the stored rows while sent if it was not stored, or its entrants changed
    since (``models.RankingFile``)."""
    stage = visible_stage(request, slug, order)
    ranking_state(stage, heal=True)
    filename = f"{stage.tournament.slug}-stage-{stage.order}-ranking.csv"
    stored = stored_ranking_file(stage)
    if stored is None:
        streamed = StreamedFile(ranking_csv(stage), content_type="text/csv; charset=utf-8")
        streamed["Content-Disposition"] = f'attachment; filename="{filename}"'
        return streamed
    etag = f'W/"{stored.sha256}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        data = bytes(
            RankingFile.objects.filter(pk=stored.pk).values_list("content_gzip", flat=True)[0]
        )
        if ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            response = HttpResponse(data)
            response["Content-Encoding"] = "gzip"  # GZipMiddleware leaves it as it is
        else:
            response = HttpResponse(gzip.decompress(data))
        response["Content-Type"] = "text/csv; charset=utf-8"
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["ETag"] = etag
    # The ranking changes with every rebuild: asked again each time, answered 304 if the
    # same (an organizer's preview of a stage not public is kept by no shared cache).
    patch_cache_control(response, no_cache=True, private=not stage.is_public)
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


# ---------------------------------------------------------------------------
# Find a player
# ---------------------------------------------------------------------------

# "Find a player" shows this many entries a page (``?q=…&page=N``, the shared _pager.html);
# each entry lists the player's games, so 25 keep a page of a 100,000-entrant event near 40 ms.
FIND_PER_PAGE = 25


@dataclass(frozen=True)
class FoundGame:
    """One game of an entry found: the opponent, and the result from the entry's side
    ('' while the game is open)."""

    opponent: Opponent
    result: str


@dataclass(frozen=True)
class FoundEntry:
    """An entry found: its seat and games, and its standing (None until computed)."""

    line: SeatLine
    games: list[FoundGame]
    standing: GroupStanding | None

    @property
    def seat(self) -> Seat:
        return self.line.seat

    @property
    def points(self) -> str:
        return points_text(self.standing.points) if self.standing is not None else ""


def found_entries(lines: list[SeatLine]) -> list[FoundEntry]:
    """Each line with its games' results and its stored standing (two queries)."""
    group_ids = {line.seat.group_id for line in lines}
    ids = {line.seat.entrant_id for line in lines}
    # Their own games only (not every game numbered alike in those groups), unordered: the
    # model's ordering would join the tournament and stage to sort them.
    results = {
        (group_id, number): result
        for group_id, number, result in Game.objects.filter(group_id__in=group_ids)
        .filter(Q(white_id__in=ids) | Q(black_id__in=ids))
        .order_by()
        .values_list("group_id", "number", "result")
    }
    standings = {
        (s.group_id, s.entrant_id): s
        for s in GroupStanding.objects.filter(
            group_id__in=group_ids, entrant_id__in={line.seat.entrant_id for line in lines}
        )
    }
    found = []
    for line in lines:
        games = []
        for o in line.opponents:
            code = results.get((line.seat.group_id, o.game), "")
            white, black = Result(code).symbols if code else ("", "")
            games.append(FoundGame(o, white if o.colour == "W" else black))
        key = (line.seat.group_id, line.seat.entrant_id)
        found.append(FoundEntry(line, games, standings.get(key)))
    return found


def find_player(request: HttpRequest, slug: str) -> HttpResponse:
    """Entrants placed in the tournament's published stages, by name (contains) or exact code
    (indexed on PostgreSQL: see ``groups.services.player_search``), ``FIND_PER_PAGE`` a page,
    each with its games (result and link), points and place.

    Paged like the stage page: Django's ``Paginator.get_page`` reads the count and one page
    (LIMIT/OFFSET); a page number that is not a number gives the first page, one past the end
    the last page."""
    cup = get_object_or_404(Tournament, slug=slug)
    query = request.GET.get("q", "").strip()
    page = None
    entries: list[FoundEntry] = []
    if query:
        seats = (
            Seat.objects.filter(public_stages_filter("stage__"), stage__tournament=cup)
            .filter(player_search(query))
            .select_related("entrant", "group", "stage")
            .order_by("stage__order", "entrant__name", "entrant__code")
        )
        page = Paginator(seats, FIND_PER_PAGE).get_page(request.GET.get("page"))
        entries = found_entries(lines_for_seats(list(page.object_list)))
    return render(
        request,
        "groups/find_player.html",
        {"tournament": cup, "query": query, "page": page, "lines": entries},
    )
