"""Pages of rating lists (import, a list, an import job), a stage's choice of list, and the
rating reports of a group and a stage (page and CSV)."""

from __future__ import annotations

from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Page, Paginator
from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError

from apps.core.api import decode_text
from apps.core.errors import ActionError, ErrorCode
from apps.core.pages import show_refusal
from apps.core.permissions import can_enter_results, is_organizer
from apps.groups.models import Group
from apps.ratings.norms import UNOFFICIAL
from apps.stages.models import Stage
from apps.stages.pages import organizer_page, visible_stage

from . import display, reports, services
from .forms import ApplyForm, ImportForm
from .models import RatingList, RatingListImportJob

ENTRIES_PAGE = 100
GROUPS_PAGE = 20


def _manager(request: HttpRequest) -> HttpResponse | None:
    """The login page for the public, a 403 for signed-in users who may not manage lists."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not services.can_manage_rating_lists(request.user):
        raise PermissionDenied(_("Only staff and organizers may import rating lists."))
    return None


def rating_lists(request: HttpRequest) -> HttpResponse:
    """The lists, newest first, and the import form (a big file: its job's page)."""
    refused = _manager(request)
    if refused is not None:
        return refused
    posted = request.method == "POST"
    form = ImportForm(request.POST if posted else None, request.FILES if posted else None)
    error: dict | None = None
    preview = None
    status = 200
    if posted:
        if form.is_valid():
            data = form.cleaned_data
            try:
                text = decode_text(data["file"].read())
                outcome = services.import_or_start(
                    request.user,
                    name=data["name"],
                    list_date=data["list_date"],
                    source=data["source"],
                    text=text,
                    dry_run=data["dry_run"],
                )
            except ActionError as refusal:
                if refusal.code == ErrorCode.PERMISSION_DENIED:
                    raise PermissionDenied(refusal.message) from refusal
                error = {"message": refusal.message, "details": refusal.details}
                status = refusal.http_status
            except ParseError as unreadable:  # a file that is not UTF-8 text
                error, status = {"message": str(unreadable.detail), "details": []}, 400
            else:
                if isinstance(outcome, RatingListImportJob):
                    return redirect("rating-list-job", outcome.pk)
                if outcome.rating_list is not None:
                    return redirect("rating-list", outcome.rating_list.pk)
                preview = outcome.checked.preview()
        else:
            status = 400
    context = {
        "lists": RatingList.objects.all()[:200],
        "form": form,
        "error": error,
        "preview": preview,
    }
    return render(request, "ratinglists/lists.html", context, status=status)


def rating_list(request: HttpRequest, list_id: int) -> HttpResponse:
    """One list: its details and its rows, a page at a time, found by ID or name."""
    refused = _manager(request)
    if refused is not None:
        return refused
    listed = get_object_or_404(RatingList, pk=list_id)
    entries = listed.entries.order_by("-rating", "person")
    query = request.GET.get("q", "").strip()
    if query:
        entries = entries.filter(Q(person=query) | Q(name__icontains=query))
    page = Paginator(entries, ENTRIES_PAGE).get_page(request.GET.get("page"))
    context = {"list": listed, "page": page, "query": query}
    return render(request, "ratinglists/list.html", context)


def rating_list_job(request: HttpRequest, job_id: int) -> HttpResponse:
    """An import job's progress bar, then the preview, the list written or every bad row."""
    refused = _manager(request)
    if refused is not None:
        return refused
    job = get_object_or_404(RatingListImportJob, pk=job_id).stop_if_stalled()
    context = {
        "job": job,
        "progress": display.job_progress(job),
        "error": {"message": job.error, "details": job.details} if job.error else None,
    }
    return render(request, "ratinglists/job.html", context)


@organizer_page
def stage_rating_list(request: HttpRequest, stage: Stage) -> HttpResponse:
    """Which list the stage's entrants took their ratings from; taking them from one."""
    form = ApplyForm(request.POST if request.method == "POST" else None)
    if form.is_bound and form.is_valid():
        try:
            services.apply_rating_list(request.user, stage, form.cleaned_data["rating_list"])
        except ActionError as refusal:
            show_refusal(request, refusal)
        return redirect("stage-rating-list", stage.tournament.slug, stage.order)
    used = display.stage_list_used(stage)
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "form": form,
        "used": used,
        "ratings_from": display.ratings_from(used),
    }
    return render(request, "ratinglists/stage.html", context, status=400 if form.errors else 200)


# ---------------------------------------------------------------------------
# Rating reports
# ---------------------------------------------------------------------------


def _visible_group(request: HttpRequest, slug: str, order: int, number: int) -> Group:
    stage = visible_stage(request, slug, order)
    group = get_object_or_404(Group, stage=stage, number=number)
    group.stage = stage
    return group


def _report_page(
    request: HttpRequest,
    stage: Stage,
    group: Group | None,
    rows: list[reports.ReportRow],
    page: Page | None = None,
) -> HttpResponse:
    used = display.stage_list_used(stage)
    if group is None:
        csv_url = reverse("stage-rating-report-csv", args=[stage.tournament.slug, stage.order])
    else:
        csv_url = reverse(
            "group-rating-report-csv", args=[stage.tournament.slug, stage.order, group.number]
        )
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "rows": rows,
        "ratings_from": display.ratings_from(used),
        "csv_url": csv_url,
        "organizer": is_organizer(request.user, stage.tournament),
        "can_enter": group is not None and can_enter_results(request.user, group),
        "unofficial": UNOFFICIAL,
        "page": page,
    }
    return render(request, "ratinglists/report.html", context)


def _csv(text: str, name: str) -> HttpResponse:
    answer = HttpResponse(text, content_type="text/csv; charset=utf-8")
    answer["Content-Disposition"] = f'attachment; filename="{name}"'
    return answer


def group_rating_report(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    group = _visible_group(request, slug, order, number)
    return _report_page(request, group.stage, group, reports.group_rating_report(group))


def group_rating_report_csv(
    request: HttpRequest, slug: str, order: int, number: int
) -> HttpResponse:
    group = _visible_group(request, slug, order, number)
    text = reports.report_csv(reports.group_rating_report(group))
    return _csv(text, f"{slug}-s{order}-g{number}-rating-report.csv")


def stage_rating_report(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    """The stage's report a page of groups at a time (the CSV and the API have it whole)."""
    stage = visible_stage(request, slug, order)
    page = Paginator(reports.stage_groups(stage), GROUPS_PAGE).get_page(request.GET.get("page"))
    rows = reports.stage_rating_report(stage, groups=list(page.object_list))
    return _report_page(request, stage, None, rows, page)


def stage_rating_report_csv(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    return _csv(
        reports.report_csv(reports.stage_rating_report(stage)), f"{slug}-s{order}-rating-report.csv"
    )
