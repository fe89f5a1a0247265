"""Registration pages: preview a CSV import (adding to the list or replacing it), confirm it,
the list of the stage's entrants with adding, changing and removing one, and the export.

A big file (more data rows than ``jobs.job_rows()``) is previewed by a dry-run import job:
the upload leads to the job's progress page, which shows the preview once the file is
checked, and its confirmation starts the import job from the file the dry run kept."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode
from apps.core.pages import show_refusal
from apps.stages.models import Stage
from apps.stages.pages import action_failed, manage_url, organizer_page

from . import jobs, services
from .forms import EntrantForm, ImportConfirmForm, ImportUploadForm
from .models import ImportJob, StageEntry

PAGE_SIZE = 100


def _import_page(
    request: HttpRequest,
    stage: Stage,
    *,
    upload_form: ImportUploadForm | None = None,
    preview: services.ImportPreview | None = None,
    confirm_form: ImportConfirmForm | None = None,
    error: ActionError | None = None,
) -> HttpResponse:
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "upload_form": upload_form or ImportUploadForm(),
        "preview": preview,
        "confirm_form": confirm_form,
        "error": error,
    }
    refused = error is not None or (upload_form is not None and upload_form.errors)
    return render(request, "entrants/import.html", context, status=400 if refused else 200)


@require_POST
@organizer_page
def import_preview(request: HttpRequest, stage: Stage) -> HttpResponse:
    """Check an uploaded CSV and show what it would do — add entrants, or (``replace``) add,
    change and remove them by code —, or every bad row; nothing is written."""
    form = ImportUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, stage, upload_form=form)
    text, mode = form.cleaned_data["file"], form.cleaned_data["mode"]
    rows = jobs.data_rows(text)
    if jobs.runs_as_job(rows):
        return _start_job(request, stage, text, mode=mode, dry_run=True, rows=rows)
    preview: services.ImportPreview
    try:
        if mode == "replace":
            preview = services.preview_replace(stage, text)
        else:
            preview = services.preview_import(stage, text)
    except ActionError as error:
        return _import_page(request, stage, error=error)
    confirm = ImportConfirmForm(initial={"csv": text, "mode": mode})
    return _import_page(request, stage, preview=preview, confirm_form=confirm)


@require_POST
@organizer_page
def import_confirm(request: HttpRequest, stage: Stage) -> HttpResponse:
    form = ImportConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The confirmation carried no file; upload it again."))
        return redirect(manage_url(stage))
    replace = form.cleaned_data["mode"] == "replace"
    rows = jobs.data_rows(form.cleaned_data["csv"])
    if jobs.runs_as_job(rows):  # a preview page from before the file counted as big
        return _start_job(
            request, stage, form.cleaned_data["csv"], mode=form.cleaned_data["mode"], rows=rows
        )
    preview: services.ImportPreview
    try:
        if replace:
            preview = services.replace_entrants(request.user, stage, form.cleaned_data["csv"])
        else:
            preview = services.import_entrants(request.user, stage, form.cleaned_data["csv"])
    except ActionError as error:
        if error.code == ErrorCode.BAD_ROWS:
            return _import_page(request, stage, error=error)
        return action_failed(request, stage, error)
    if isinstance(preview, services.ReplacePreview):
        messages.success(
            request,
            _(
                "The entrant list of %(stage)s is replaced: %(added)s added, %(changed)s "
                "changed, %(removed)s removed, %(count)s entrants now."
            )
            % {
                "stage": stage.get_kind_display(),
                "added": len(preview.added),
                "changed": len(preview.changed),
                "removed": len(preview.removed),
                "count": preview.count,
            },
        )
    else:
        messages.success(
            request,
            ngettext(
                "Imported %(count)s entrant into %(stage)s.",
                "Imported %(count)s entrants into %(stage)s.",
                preview.count,
            )
            % {"count": preview.count, "stage": stage.get_kind_display()},
        )
    return redirect(manage_url(stage))


# ---------------------------------------------------------------------------
# A big file: the import job's pages
# ---------------------------------------------------------------------------


def import_job_url(job: ImportJob) -> str:
    return reverse("stage-import-job", args=[job.stage.tournament.slug, job.stage.order, job.pk])


def _start_job(
    request: HttpRequest, stage: Stage, text: str, *, mode: str, rows: int, dry_run: bool = False
) -> HttpResponse:
    """Start an import job for a big file and show its progress page (while another import
    of the stage runs, that one's, with the refusal)."""
    try:
        job = jobs.start_import(request.user, stage, text, mode=mode, dry_run=dry_run, rows=rows)
    except ActionError as error:
        running = stage.import_jobs.filter(status__in=ImportJob.UNFINISHED).order_by("-id").first()
        if error.code == ErrorCode.CONFLICT and running is not None:
            show_refusal(request, error)
            return redirect(import_job_url(running))
        if error.code == ErrorCode.PERMISSION_DENIED:
            return action_failed(request, stage, error)
        return _import_page(request, stage, error=error)
    return redirect(import_job_url(job))


@organizer_page
def import_job(request: HttpRequest, stage: Stage, job_id: int) -> HttpResponse:
    """An import job's progress bar (polled by ``import-progress.js``; a refresh without
    JavaScript), then its outcome: a dry run's preview with its confirmation, the entrants
    imported, or every bad row."""
    job = get_object_or_404(ImportJob, pk=job_id, stage=stage).stop_if_stalled()
    job.stage = stage
    preview = jobs.stored_preview(job)
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "job": job,
        "progress": jobs.job_progress(job),
        "preview": preview,
        "can_confirm": preview is not None and jobs.confirmable(job),
        "confirmation": job.confirmations.order_by("-id").first() if job.dry_run else None,
        "error": {"message": job.error, "details": job.details} if job.error else None,
        "upload_form": ImportUploadForm(initial={"mode": job.mode}),
    }
    return render(request, "entrants/import_job.html", context)


@require_POST
@organizer_page
def import_job_confirm(request: HttpRequest, stage: Stage, job_id: int) -> HttpResponse:
    """Start the import a dry-run job previewed, from the file the job kept."""
    preview = get_object_or_404(ImportJob, pk=job_id, stage=stage, dry_run=True)
    preview.stage = stage
    try:
        job = jobs.confirm_import(request.user, preview)
    except ActionError as error:
        show_refusal(request, error)
        return redirect(import_job_url(preview))
    return redirect(import_job_url(job))


# ---------------------------------------------------------------------------
# The entrant list: adding, changing and removing one entrant
# ---------------------------------------------------------------------------


def entrants_url(stage: Stage) -> str:
    return reverse("stage-entrants", args=[stage.tournament.slug, stage.order])


def _refused(form: EntrantForm, error: ActionError) -> None:
    """An action's refusal on the form: each refused field at its field, the rest on top."""
    fields = [d for d in error.details if d.get("field") in form.fields]
    for detail in fields:
        form.add_error(detail["field"], detail["message"])
    if not fields:
        field = "code" if error.code == ErrorCode.CONFLICT and "code" in form.fields else None
        form.add_error(field, error.message)


def _entrant_values(form: EntrantForm) -> dict:
    return {name: value for name, value in form.cleaned_data.items() if name in form.fields}


@organizer_page
def entrant_list(request: HttpRequest, stage: Stage) -> HttpResponse:
    """The stage's entrants (a page of 100, found by name or code); while registration is
    open, a form to add one and, on each row, links to change or remove it. POST: add."""
    form = EntrantForm(auto_id="add_%s")
    status = 200
    if request.method == "POST":
        form = EntrantForm(request.POST, auto_id="add_%s")
        if form.is_valid():
            try:
                entry = services.add_entrant(request.user, stage, **_entrant_values(form))
            except ActionError as error:
                if error.code == ErrorCode.PERMISSION_DENIED:
                    show_refusal(request, error)
                _refused(form, error)
                status = error.http_status
            else:
                messages.success(
                    request,
                    _("%(name)s (%(code)s) is registered.")
                    % {"name": entry.entrant.name, "code": entry.entrant.code},
                )
                return redirect(entrants_url(stage))
        else:
            status = 400
    query = request.GET.get("q", "").strip()[:200]  # no NUL: NulCharacterMiddleware
    # The entrant's refused claim link ("not me") too: the list marks its address.
    entries = StageEntry.objects.filter(stage=stage).select_related("entrant__claim_refusal")
    if query:
        entries = entries.filter(Q(entrant__name__icontains=query) | Q(entrant__code=query))
    page = Paginator(entries.order_by("entrant__code"), PAGE_SIZE).get_page(request.GET.get("page"))
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "open": stage.status == Stage.Status.DRAFT,
        "page": page,
        "query": query,
        "form": form,
    }
    return render(request, "entrants/entrants.html", context, status=status)


@organizer_page
def entrant_edit(request: HttpRequest, stage: Stage, code: str) -> HttpResponse:
    """Change one entrant's details (not the code) while registration is open."""
    entries = StageEntry.objects.select_related("entrant").filter(stage=stage)
    entry = entries.filter(entrant__code=code).first()  # no NUL: NulCharacterMiddleware
    if entry is None:
        raise Http404(_("No entrant of this stage has the code %(code)s.") % {"code": code})
    try:
        services.require_registration_open(stage)
    except ActionError as error:
        messages.error(request, error.message)
        return redirect(entrants_url(stage))
    entrant = entry.entrant
    status = 200
    if request.method == "POST":
        form = EntrantForm(request.POST, editing=True)
        if form.is_valid():
            try:
                services.update_entrant(request.user, stage, code, **_entrant_values(form))
            except ActionError as error:
                if error.code == ErrorCode.PERMISSION_DENIED:
                    show_refusal(request, error)
                _refused(form, error)
                status = error.http_status
            else:
                messages.success(
                    request, _("The details of %(code)s are saved.") % {"code": entrant.code}
                )
                return redirect(entrants_url(stage))
        else:
            status = 400
    else:
        form = EntrantForm(
            editing=True,
            initial={
                "name": entrant.name,
                "nation": entrant.nation,
                "rating": entrant.rating,
                "person": "" if entrant.person == entrant.code else entrant.person,
                "email": entrant.email,
            },
        )
    context = {"tournament": stage.tournament, "stage": stage, "entrant": entrant, "form": form}
    return render(request, "entrants/edit.html", context, status=status)


@require_POST
@organizer_page
def entrant_remove(request: HttpRequest, stage: Stage, code: str) -> HttpResponse:
    """Take one entrant off the list while registration is open."""
    try:
        gone = services.remove_entrant(request.user, stage, code)
    except ActionError as error:
        show_refusal(request, error)
    else:
        messages.success(
            request,
            _("%(name)s (%(code)s) is removed from the list.")
            % {"name": gone.name, "code": gone.code},
        )
    return redirect(entrants_url(stage))


@organizer_page
def export_csv(request: HttpRequest, stage: Stage) -> HttpResponse:
    response = HttpResponse(
        services.export_entrants_csv(stage), content_type="text/csv; charset=utf-8"
    )
    filename = f"{stage.tournament.slug}-stage-{stage.order}-entrants.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
