"""Registration pages: preview a CSV import, confirm it, export the stage's entrants."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode
from apps.stages.models import Stage
from apps.stages.views import action_failed, manage_url, organizer_page

from . import services
from .forms import ImportConfirmForm, ImportUploadForm


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
    """Check an uploaded CSV and show what it would add, or every bad row; nothing is written."""
    form = ImportUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _import_page(request, stage, upload_form=form)
    text = form.cleaned_data["file"]
    try:
        preview = services.preview_import(stage, text)
    except ActionError as error:
        return _import_page(request, stage, error=error)
    return _import_page(
        request, stage, preview=preview, confirm_form=ImportConfirmForm(initial={"csv": text})
    )


@require_POST
@organizer_page
def import_confirm(request: HttpRequest, stage: Stage) -> HttpResponse:
    form = ImportConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The confirmation carried no file; upload it again."))
        return redirect(manage_url(stage))
    try:
        preview = services.import_entrants(request.user, stage, form.cleaned_data["csv"])
    except ActionError as error:
        if error.code == ErrorCode.BAD_ROWS:
            return _import_page(request, stage, error=error)
        return action_failed(request, stage, error)
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


@organizer_page
def export_csv(request: HttpRequest, stage: Stage) -> HttpResponse:
    response = HttpResponse(
        services.export_entrants_csv(stage), content_type="text/csv; charset=utf-8"
    )
    filename = f"{stage.tournament.slug}-stage-{stage.order}-entrants.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
