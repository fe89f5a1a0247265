"""Result entry pages for a group's TD and the tournament's organizers.

The results page is a crosstable-like grid: one row per seat, one cell per opponent; the row's
White games are links to the game's form (every game is entered from its White player's row),
which ``static/js/results.js`` opens in a dialog. Each view parses its input, calls one action
(:func:`~apps.results.services.enter_result`, :func:`~apps.results.services.withdraw_entrant`,
:func:`~apps.groups.services.assign_td`, :func:`~apps.results.imports.import_results`) and
renders; a refusal is shown, nothing changes.

A results file (CSV or PGN) is imported in two steps, for a group by its TD and for a whole
stage by an organizer: the upload is previewed (a dry run listing every bad line, or what it
would change), then the confirmation carries the previewed text back and imports it. A big
file (``import_jobs.runs_as_job``) is previewed by a dry-run import job instead: the upload
leads to the job's progress page, which shows the preview once the file is checked, and its
confirmation starts the import job from the file the dry run kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode
from apps.core.pages import show_refusal
from apps.core.permissions import is_organizer
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group
from apps.groups.rounds import adjudicator_note, round_deadline
from apps.groups.services import assign_td
from apps.scoring.points import points_text
from apps.stages.models import Stage
from apps.stages.pages import manage_url, organizer_page
from apps.standings.crosstable import build
from apps.standings.display import colour_columns, compact_cells

from . import import_jobs
from .closing import play_deadline
from .forms import (
    DirectorForm,
    ResultForm,
    ResultImportConfirmForm,
    ResultImportUploadForm,
    WithdrawalForm,
)
from .history import game_history, recent_changes, result_label
from .imports import ImportReport, import_results, running_job
from .models import ResultImportJob
from .pages import game_url, result_entry_page, results_url
from .reports import report_queue
from .services import enter_result, withdraw_entrant

# ---------------------------------------------------------------------------
# Pages
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GridCell:
    number: int  # the game's number in the group
    opponent: int  # the opponent's seat
    opponent_name: str
    colour: str  # "W" or "B": this row's colour
    symbol: str
    result: str
    version: int
    adjudicated: bool
    latest: bool
    url: str  # the game's form, for the row's White games; "" for its Black games


@dataclass(frozen=True)
class GridRow:
    seat: int
    code: str
    name: str
    nation: str
    points: str
    withdrawn: bool
    cells: list[GridCell | None]  # White games, then Black games; None pads a short row


def grid(group: Group) -> tuple[list[GridRow], dict[str, int], tuple[int, int]]:
    """The results grid, the group's status counts and the number of White and Black game
    columns (five queries)."""
    table = build(group)
    numbers = dict(Game.objects.filter(group=group).values_list("id", "number"))
    withdrawn = set(
        StageEntry.objects.filter(
            stage_id=group.stage_id,
            entrant_id__in=[r.entrant_id for r in table.rows],
            withdrawn_at__isnull=False,
        ).values_list("entrant_id", flat=True)
    )
    name_of = {r.seat: r.name for r in table.rows}
    whites, blacks = colour_columns(table.rows)
    rows = []
    for row in table.rows:
        cells = [
            None
            if c is None
            else GridCell(
                numbers[c.game_id],
                c.opponent_seat,
                name_of[c.opponent_seat],
                c.colour,
                c.symbol,
                c.result,
                c.version,
                c.adjudicated,
                c.latest,
                game_url(group, numbers[c.game_id]) if c.colour == "W" else "",
            )
            for c in compact_cells(row, group.size, whites, blacks)
        ]
        rows.append(
            GridRow(
                row.seat,
                row.code,
                row.name,
                row.nation,
                points_text(row.points),
                row.entrant_id in withdrawn,
                cells,
            )
        )
    return rows, table.counts, (whites, blacks)


@dataclass(frozen=True)
class RoundCount:
    """A Swiss round on the results page: its games and those still without a result."""

    number: int
    games: int
    open_games: int


def round_counts(group: Group) -> list[RoundCount]:
    """A Swiss group's rounds paired so far, each with its games and open games (one query);
    its results are entered on each round's page."""
    rows = (
        Game.objects.filter(group=group, round__isnull=False)
        .values("round")
        .annotate(games=Count("pk"), open_games=Count("pk", filter=Q(result="")))
        .order_by("round")
    )
    return [RoundCount(r["round"] or 0, r["games"], r["open_games"]) for r in rows]


@result_entry_page
def results(request: HttpRequest, group: Group) -> HttpResponse:
    rows, counts, (whites, blacks) = grid(group)
    playing = [(r.code, f"{r.seat}. {r.name} ({r.nation})") for r in rows if not r.withdrawn]
    context = {
        "tournament": group.stage.tournament,
        "stage": group.stage,
        "group": group,
        "rows": rows,
        "counts": counts,
        "whites": whites,
        "blacks": blacks,
        "open_for_results": group.stage.status == Stage.Status.PUBLISHED and not group.is_closed,
        "organizer": is_organizer(request.user, group.stage.tournament),
        "withdrawal_form": WithdrawalForm(entrants=playing),
        "result_form": ResultForm(auto_id="dialog_%s"),
        "import_form": ResultImportUploadForm(auto_id="import_%s"),
        "changes": recent_changes(group),
        "deadline": play_deadline(group.stage),
        "round_deadline": round_deadline(group),
        "adjudicator_note": adjudicator_note(group),
        # A Swiss group's results are entered round by round, on each round's page.
        "swiss_rounds": round_counts(group) if group.stage.is_swiss else [],
    }
    context["disputed"], context["pending"] = report_queue(group)
    return render(request, "results/results.html", context)


@result_entry_page
def game_result(request: HttpRequest, group: Group, game_number: int) -> HttpResponse:
    """One game's form (GET) and its save (POST); the page also lists the game's history."""
    game = get_object_or_404(
        Game.objects.select_related("white", "black"), group=group, number=game_number
    )
    game.group = group
    error = None
    status = 200
    if request.method == "POST":
        form = ResultForm(request.POST)
        if form.is_valid():
            data = form.cleaned_data
            try:
                enter_result(
                    request.user,
                    game,
                    data["result"],
                    expected_version=data["version"],
                    adjudicated=data["adjudicated"],
                    reason=data["reason"],
                    # Only the game's own form has these (not the grid's dialog).
                    pgn=data["pgn"] if "pgn" in request.POST else None,
                    finished_on=data["finished_on"],
                )
            except ActionError as refused:
                if refused.code == ErrorCode.PERMISSION_DENIED:
                    raise PermissionDenied(refused.message) from refused
                error, status = refused, refused.http_status
                if refused.code == ErrorCode.CONFLICT:
                    game.refresh_from_db()
                    form = ResultForm.for_game(game)  # what is stored now, to enter again
            else:
                messages.success(
                    request,
                    _("Saved: %(white)s – %(black)s %(result)s.")
                    % {
                        "white": game.white.name,
                        "black": game.black.name,
                        "result": result_label(data["result"]),
                    },
                )
                return redirect(_next(request, group, game))
        else:
            status = 400
    else:
        form = ResultForm.for_game(game)
    came_from = request.POST.get("next") or request.GET.get("next", "")
    context = {
        "tournament": group.stage.tournament,
        "stage": group.stage,
        "group": group,
        "game": game,
        "result_label": result_label(game.result),
        "form": form,
        "error": error,
        "history": game_history(game),
        "next": came_from,
        # "Back": where the form came from (a Swiss round's page), else the results grid.
        "back": _safe(request, came_from) or f"{results_url(group)}#game-{game.number}",
    }
    return render(request, "results/game.html", context, status=status)


def _safe(request: HttpRequest, target: str) -> str:
    """``target`` if it is an address on this site, else ""."""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ""


def _next(request: HttpRequest, group: Group, game: Game) -> str:
    return (
        _safe(request, request.POST.get("next", "")) or f"{results_url(group)}#game-{game.number}"
    )


@require_POST
@result_entry_page
def withdraw(request: HttpRequest, group: Group) -> HttpResponse:
    """Withdraw one of the group's entrants (their open games become forfeit losses)."""
    entries = StageEntry.objects.filter(
        stage_id=group.stage_id, entrant__seats__group=group
    ).select_related("entrant")
    form = WithdrawalForm(
        request.POST, entrants=[(e.entrant.code, e.entrant.name) for e in entries]
    )
    if not form.is_valid():
        messages.error(request, _("Choose an entrant of the group and give the reason."))
        return redirect(results_url(group))
    entry = next(e for e in entries if e.entrant.code == form.cleaned_data["entrant"])
    try:
        changed = withdraw_entrant(request.user, entry, form.cleaned_data["reason"])
    except ActionError as refused:
        if refused.code == ErrorCode.PERMISSION_DENIED:
            raise PermissionDenied(refused.message) from refused
        messages.error(request, refused.message)
    else:
        messages.success(
            request,
            ngettext(
                "%(name)s has withdrawn: %(count)s open game became a forfeit loss.",
                "%(name)s has withdrawn: %(count)s open games became forfeit losses.",
                len(changed),
            )
            % {"name": entry.entrant.name, "count": len(changed)},
        )
    return redirect(results_url(group))


@require_POST
@organizer_page
def director(request: HttpRequest, stage: Stage, number: int) -> HttpResponse:
    """The organizer names the group's TD (by username)."""
    group = get_object_or_404(Group, stage=stage, number=number)
    group.stage = stage
    form = DirectorForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("username", []):
            # A form's error list yields texts (the stubs also say ValidationError).
            messages.error(request, str(error))
        return redirect(group.get_absolute_url())
    td = form.cleaned_data["username"]
    try:
        assign_td(request.user, group, td)
    except ActionError as refused:
        if refused.code == ErrorCode.PERMISSION_DENIED:
            raise PermissionDenied(refused.message) from refused
        messages.error(request, refused.message)
    else:
        if td is None:
            messages.success(request, _("Group %(number)s has no TD now.") % {"number": number})
        else:
            messages.success(
                request,
                _("%(name)s is now the TD of group %(number)s.")
                % {"name": td.get_username(), "number": number},
            )
    return redirect(group.get_absolute_url())


# ---------------------------------------------------------------------------
# Importing a results file: a group's (its TD, organizers) or a stage's (organizers)
# ---------------------------------------------------------------------------

# How many planned changes the preview lists (it counts them all).
PREVIEW_ROWS = 500


def _import_urls(stage: Stage, group: Group | None) -> dict[str, str]:
    """The preview and confirm addresses of the import, and where it goes back to."""
    if group is None:
        args: list = [stage.tournament.slug, stage.order]
        names = ("stage-results-import", "stage-results-import-confirm")
        back = manage_url(stage)
    else:
        args = [stage.tournament.slug, stage.order, group.number]
        names = ("group-results-import", "group-results-import-confirm")
        back = results_url(group)
    return {
        "preview_url": reverse(names[0], args=args),
        "confirm_url": reverse(names[1], args=args),
        "back_url": back,
    }


def _import_page(
    request: HttpRequest,
    stage: Stage,
    group: Group | None,
    *,
    upload_form: ResultImportUploadForm | None = None,
    report: ImportReport | None = None,
    confirm_form: ResultImportConfirmForm | None = None,
    error: ActionError | None = None,
) -> HttpResponse:
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "upload_form": upload_form or ResultImportUploadForm(),
        "report": report,
        "shown_changes": report.changes[:PREVIEW_ROWS] if report else [],
        "confirm_form": confirm_form,
        "error": error,
        **_import_urls(stage, group),
    }
    if error is not None:
        status = error.http_status
    else:
        status = 400 if upload_form is not None and upload_form.errors else 200
    return render(request, "results/import.html", context, status=status)


def _import_refused(refused: ActionError) -> None:
    if refused.code == ErrorCode.PERMISSION_DENIED:
        raise PermissionDenied(refused.message) from refused


def _preview_import(request: HttpRequest, stage: Stage, group: Group | None) -> HttpResponse:
    """Check an uploaded results file (a dry run): every bad line, or what it would do."""
    form = ResultImportUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, stage, group, upload_form=form)
    text = form.cleaned_data["file"]
    if import_jobs.runs_as_job(text):
        return _start_job(request, stage, group, text, form.cleaned_data["format"], dry_run=True)
    try:
        report = import_results(
            request.user,
            group=group,
            stage=stage,
            text=text,
            file_format=form.cleaned_data["format"],
            dry_run=True,
        )
    except ActionError as refused:
        _import_refused(refused)
        return _import_page(request, stage, group, error=refused)
    confirm = ResultImportConfirmForm(initial={"text": text, "format": report.file_format})
    return _import_page(request, stage, group, report=report, confirm_form=confirm)


def _confirm_import(request: HttpRequest, stage: Stage, group: Group | None) -> HttpResponse:
    """Import the previewed file (all lines or none: the checks are made again)."""
    back = _import_urls(stage, group)["back_url"]
    form = ResultImportConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The confirmation carried no file; upload it again."))
        return redirect(back)
    if import_jobs.runs_as_job(form.cleaned_data["text"]):  # a page from a smaller limit
        return _start_job(
            request,
            stage,
            group,
            form.cleaned_data["text"],
            form.cleaned_data["format"],
            dry_run=False,
        )
    try:
        report = import_results(
            request.user,
            group=group,
            stage=stage,
            text=form.cleaned_data["text"],
            file_format=form.cleaned_data["format"],
        )
    except ActionError as refused:
        _import_refused(refused)
        if refused.code in (ErrorCode.BAD_ROWS, ErrorCode.INVALID_INPUT):
            return _import_page(request, stage, group, error=refused)
        messages.error(request, refused.message)
        return redirect(back)
    messages.success(
        request,
        ngettext(
            "Imported: %(count)s game changed, %(unchanged)s line unchanged.",
            "Imported: %(count)s games changed, %(unchanged)s lines unchanged.",
            report.applied,
        )
        % {"count": report.applied, "unchanged": report.unchanged},
    )
    return redirect(back)


@require_POST
@result_entry_page
def group_import_preview(request: HttpRequest, group: Group) -> HttpResponse:
    return _preview_import(request, group.stage, group)


@require_POST
@result_entry_page
def group_import_confirm(request: HttpRequest, group: Group) -> HttpResponse:
    return _confirm_import(request, group.stage, group)


@require_POST
@organizer_page
def stage_import_preview(request: HttpRequest, stage: Stage) -> HttpResponse:
    return _preview_import(request, stage, None)


@require_POST
@organizer_page
def stage_import_confirm(request: HttpRequest, stage: Stage) -> HttpResponse:
    return _confirm_import(request, stage, None)


# ---------------------------------------------------------------------------
# A big results file: the import job's pages
# ---------------------------------------------------------------------------


def _start_job(
    request: HttpRequest,
    stage: Stage,
    group: Group | None,
    text: str,
    file_format: str | None,
    *,
    dry_run: bool,
) -> HttpResponse:
    """Start an import job for a big file and show its progress page (while another import
    of the group or stage waits or runs, that one's, with the refusal)."""
    try:
        job = import_jobs.start_import(
            request.user,
            group=group,
            stage=stage,
            text=text,
            file_format=file_format,
            dry_run=dry_run,
        )
    except ActionError as refused:
        _import_refused(refused)
        running = running_job(stage, group)
        if refused.code == ErrorCode.CONFLICT and running is not None:
            show_refusal(request, refused)
            return redirect(import_jobs.page_url(running))
        return _import_page(request, stage, group, error=refused)
    return redirect(import_jobs.page_url(job))


def _job_page(request: HttpRequest, stage: Stage, group: Group | None, job_id: int) -> HttpResponse:
    """A results import job's progress bar (polled by ``results-import-progress.js``; a
    refresh without JavaScript), then its outcome: a dry run's preview with its
    confirmation, what was imported, or every bad line."""
    job = get_object_or_404(ResultImportJob, pk=job_id, stage=stage, group=group)
    job = job.stop_if_stalled()
    job.stage, job.group = stage, group
    preview = job.result if job.dry_run and job.status == ResultImportJob.Status.SUCCEEDED else None
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "job": job,
        "progress": import_jobs.job_progress(job),
        "report": job.result,
        "preview": preview,
        "can_confirm": preview is not None and import_jobs.confirmable(job),
        "confirmation": job.confirmations.order_by("-id").first() if job.dry_run else None,
        "error": {"message": job.error, "details": job.details} if job.error else None,
        "upload_form": ResultImportUploadForm(),
        "preview_rows": import_jobs.PREVIEW_ROWS,
        **_import_urls(stage, group),
    }
    return render(request, "results/import_job.html", context)


def _job_confirm(
    request: HttpRequest, stage: Stage, group: Group | None, job_id: int
) -> HttpResponse:
    """Start the import a dry-run job previewed, from the file the job kept."""
    preview = get_object_or_404(ResultImportJob, pk=job_id, stage=stage, group=group, dry_run=True)
    preview.stage, preview.group = stage, group
    try:
        job = import_jobs.confirm_import(request.user, preview)
    except ActionError as refused:
        show_refusal(request, refused)
        return redirect(import_jobs.page_url(preview))
    return redirect(import_jobs.page_url(job))


@result_entry_page
def group_import_job(request: HttpRequest, group: Group, job_id: int) -> HttpResponse:
    return _job_page(request, group.stage, group, job_id)


@require_POST
@result_entry_page
def group_import_job_confirm(request: HttpRequest, group: Group, job_id: int) -> HttpResponse:
    return _job_confirm(request, group.stage, group, job_id)


@organizer_page
def stage_import_job(request: HttpRequest, stage: Stage, job_id: int) -> HttpResponse:
    return _job_page(request, stage, None, job_id)


@require_POST
@organizer_page
def stage_import_job_confirm(request: HttpRequest, stage: Stage, job_id: int) -> HttpResponse:
    return _job_confirm(request, stage, None, job_id)
