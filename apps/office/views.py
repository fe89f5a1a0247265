"""Pages of tournaments and stages: the public lists, the organizer's stage dashboard, and
setting up a season: creating a tournament, its settings, adding, changing and deleting stages.

Each view parses its input, calls at most one action (``services.py``) and renders; an action's
:class:`ActionError` becomes a message on the stage dashboard. The helpers shared with the entrant
and group pages (finding a stage, the organizer gate, showing a refusal) are in
``apps.stages.pages`` and ``apps.core.pages``.
"""

from __future__ import annotations

import gzip
import hashlib
import re
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, Subquery
from django.db.models.functions import Coalesce
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.cache import get_conditional_response, patch_cache_control, patch_vary_headers
from django.utils.formats import number_format
from django.utils.http import http_date, url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode
from apps.core.pages import show_refusal
from apps.core.permissions import is_organizer
from apps.entrants import services as registration
from apps.entrants.forms import ImportUploadForm
from apps.entrants.models import Entrant
from apps.groups.models import Group
from apps.groups.pages import group_rows
from apps.groups.rounds import adjudicator_note, round_deadline
from apps.ratinglists.display import ratings_from, stage_list_used
from apps.results import closing
from apps.results.forms import ResultImportUploadForm
from apps.silli.lab import LabReport
from apps.silli.lab.report import Measures
from apps.silli.lab.results import FORM_SD
from apps.stages import services as setup
from apps.stages.feasibility import message as feasibility_message
from apps.stages.feasibility import settings_warning, stage_feasibility
from apps.stages.models import DrawJob, Stage, Tournament
from apps.stages.pages import action_failed, manage_url, organizer_page, visible_stage
from apps.stages.settings_catalog import Text
from apps.standings.groups import drawn_games

from . import draw_errors, publication, seeds, services
from .draw import job_progress
from .forms import (
    DrawForm,
    EditTournamentForm,
    LateEntrantForm,
    NewTournamentForm,
    SettingsForm,
    StageForm,
    stage_initial,
    tournament_initial,
)
from .lab import runs as lab_service
from .models import LabRun
from .swiss.late import add_late_entrant
from .swiss.pairing import start_next_round
from .swiss.state import swiss_group, swiss_state

# ---------------------------------------------------------------------------
# Public pages
# ---------------------------------------------------------------------------


def home(request: HttpRequest) -> HttpResponse:
    # Each tournament's entrants, counted in a subquery that PostgreSQL answers from the
    # (tournament) index alone; a join with GROUP BY read every entrant row instead (four
    # times slower at 100,000 entrants).
    entrants = (
        Entrant.objects.filter(tournament=OuterRef("pk"))
        .order_by()
        .values("tournament")
        .annotate(n=Count("pk"))
        .values("n")
    )
    tournaments = Tournament.objects.annotate(
        entrant_count=Coalesce(Subquery(entrants), 0, output_field=IntegerField())
    ).prefetch_related(Prefetch("stages", Stage.objects.order_by("order")))
    context = {
        "tournaments": tournaments,
        "can_create": setup.can_create_tournaments(request.user),
    }
    return render(request, "stages/home.html", context)


def tournament(request: HttpRequest, slug: str) -> HttpResponse:
    cup = get_object_or_404(Tournament, slug=slug)
    # Each with the page's own attributes (set below).
    stages: list[Any] = list(cup.stages.order_by("order").annotate(entrant_count=Count("entries")))
    group_counts = dict(
        Group.objects.filter(stage__tournament=cup)
        .values("stage")
        .annotate(n=Count("id"))
        .values_list("stage", "n")
    )
    organizer = is_organizer(request.user, cup)
    for stage in stages:
        stage.group_count = group_counts.get(stage.pk, 0)
        stage.visible = organizer or stage.is_public
        stage.deletable = organizer and not stage.is_drawn
    return render(
        request,
        "stages/tournament.html",
        {"tournament": cup, "stages": stages, "organizer": organizer},
    )


# The stage page lists its groups this many at a time (a preliminary may have 1,000).
GROUPS_PER_PAGE = 100


def stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    groups = stage.groups.order_by("number")
    # Every group's certificate and size, not only this page's: counted by size in the
    # database (a few rows for 1,000 groups), which also gives the pager its count.
    by_size = list(
        groups.order_by()
        .values_list("size")
        .annotate(
            count=Count("pk"),
            uncertified=Count("pk", filter=Q(principles_hold=False) | ~Q(conflicts=[])),
        )
    )
    paginator = Paginator(groups, GROUPS_PER_PAGE)
    paginator.__dict__["count"] = sum(count for _, count, _ in by_size)  # its cached count
    page = paginator.get_page(request.GET.get("page"))
    rows = group_rows(page.object_list)
    organizer = is_organizer(request.user, stage.tournament)
    # Organizers follow a publication's queued work from here while it runs.
    progress = publication.publication_progress(stage) if organizer else None
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "rows": rows,
        "page": page,
        "group_count": paginator.count,
        "entrant_count": stage.entries.count(),
        "game_count": drawn_games(stage, (size for size, n, _ in by_size for _ in range(n))),
        "uncertified": sum(uncertified for _, _, uncertified in by_size),
        "organizer": organizer,
        "publication": progress if progress is not None and not progress.finished else None,
        "verify_command": verify_command(stage),
        "ratings_from": ratings_from(stage_list_used(stage)),
        # a Swiss stage is one group: its current round's deadline is the stage's
        "round_deadline": round_deadline(swiss_group(stage), stage=stage)
        if stage.is_swiss
        else None,
    }
    return render(request, "stages/stage.html", context)


def verify_command(stage: Stage) -> str:
    command = "python manage.py silli_verify DRAW.json --entrants entrants.csv"
    if stage.order > 1:
        command += " --met-before met-before.csv --earlier-groups earlier-groups.csv"
    return command


# ---------------------------------------------------------------------------
# The organizer's dashboard and its actions
# ---------------------------------------------------------------------------


@organizer_page
def manage(request: HttpRequest, stage: Stage) -> HttpResponse:
    return _manage_page(request, stage)


def _manage_page(
    request: HttpRequest,
    stage: Stage,
    *,
    late_form: LateEntrantForm | None = None,
    status: int = 200,
) -> HttpResponse:
    seed = seeds.generate_seed() if request.GET.get("generate") else stage.seed
    latest_job = stage.draw_jobs.first()
    group = swiss_group(stage) if stage.is_swiss and stage.is_public else None
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "Status": Stage.Status,
        "entrant_count": stage.entries.count(),
        "upload_form": ImportUploadForm(),
        "draw_form": DrawForm(initial={"seed": seed}),
        "can_draw": stage.status in (Stage.Status.REGISTRATION_CLOSED, Stage.Status.DRAWN),
        "latest_job": latest_job,
        "latest_error": draw_errors.translated(latest_job.error) if latest_job else "",
        "play": closing.play_summary(stage) if stage.is_public else None,
        # "Next:" on a published stage: assign TDs while some group has none.
        "groups_without_td": stage.groups.filter(td__isnull=True).count() if stage.is_public else 0,
        "results_upload_form": ResultImportUploadForm(auto_id="results_%s"),
        "swiss": swiss_state(stage) if stage.is_swiss else None,
        "round_deadline": round_deadline(group),
        "adjudicator_note": adjudicator_note(group),
        "late_form": late_form or LateEntrantForm(),
        "draw_warning": settings_warning(stage),
    }
    return render(request, "stages/manage.html", context, status=status)


@require_POST
@organizer_page
def next_round(request: HttpRequest, stage: Stage) -> HttpResponse:
    """A Swiss stage's next round: checked now, paired by a task (in-process without a
    broker, so usually done when the page comes back)."""
    try:
        number = start_next_round(
            request.user, stage, adjudicate_open=request.POST.get("adjudicate_open") == "1"
        )
    except ActionError as error:
        return action_failed(request, stage, error)
    state = swiss_state(stage)
    if state.paired >= number:
        messages.success(request, _("Round %(round)s is paired.") % {"round": number})
    else:
        messages.success(
            request,
            _("Round %(round)s is being paired; this page shows it once it is done.")
            % {"round": number},
        )
    # Back to the round pages when asked from there (their current round), else the dashboard.
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(back)
    return redirect(manage_url(stage) + "#rounds")


@require_POST
@organizer_page
def late_entrant(request: HttpRequest, stage: Stage) -> HttpResponse:
    """A Swiss stage's late entrant: seated at the end, paired from the next round on. A
    form with errors comes back on the manage page, each error at its field."""
    form = LateEntrantForm(request.POST)
    if not form.is_valid():
        return _manage_page(request, stage, late_form=form, status=400)
    values = {name: form.cleaned_data[name] for name in form.fields}
    try:
        late = add_late_entrant(request.user, stage, **values)
    except ActionError as error:
        if error.code == ErrorCode.PERMISSION_DENIED:
            show_refusal(request, error)
        fields = [d for d in error.details if d.get("field") in form.fields]
        for detail in fields:
            form.add_error(detail["field"], detail["message"])
        form.add_error(None, error.message)
        return _manage_page(request, stage, late_form=form, status=error.http_status)
    entrant = late.entry.entrant
    messages.success(
        request,
        _(
            "%(name)s (%(code)s) joins the stage at seat %(seat)s with pairing number "
            "%(tpn)s and is paired from round %(round)s on."
        )
        % {
            "name": entrant.name,
            "code": entrant.code,
            "seat": late.seat.number,
            "tpn": late.pairing_number,
            "round": late.first_round,
        },
    )
    return redirect(manage_url(stage) + "#rounds")


@require_POST
@organizer_page
def close(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        stage = registration.close_registration(request.user, stage)
    except ActionError as error:
        return action_failed(request, stage, error)
    messages.success(
        request,
        _("Registration is closed. Entrant list digest (SHA-256): %(digest)s")
        % {"digest": stage.entrants_digest},
    )
    return redirect(manage_url(stage))


@require_POST
@organizer_page
def reopen(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        registration.reopen_registration(request.user, stage)
    except ActionError as error:
        return action_failed(request, stage, error)
    messages.success(request, _("Registration is open again."))
    return redirect(manage_url(stage))


@require_POST
@organizer_page
def draw(request: HttpRequest, stage: Stage) -> HttpResponse:
    form = DrawForm(request.POST)
    seed = form.cleaned_data["seed"] if form.is_valid() else ""
    try:
        job = services.start_draw(request.user, stage, seed)
    except ActionError as error:
        return action_failed(request, stage, error)
    return redirect("draw-progress", stage.tournament.slug, stage.order, job.pk)


@require_POST
@organizer_page
def draw_cancel(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        services.cancel_draw(request.user, stage)
    except ActionError as error:
        return action_failed(request, stage, error)
    messages.success(
        request, _("The draw was cancelled; nothing was written. Draw again when ready.")
    )
    return redirect("stage-manage", stage.tournament.slug, stage.order)


@organizer_page
def draw_progress(request: HttpRequest, stage: Stage, job_id: int) -> HttpResponse:
    job = get_object_or_404(DrawJob, pk=job_id, stage=stage)
    latest_id = stage.draw_jobs.values_list("pk", flat=True).first()
    reviewable = (
        job.status == DrawJob.Status.SUCCEEDED
        and job.pk == latest_id
        and stage.status != Stage.Status.REGISTRATION_CLOSED
    )
    rows = group_rows(stage.groups.order_by("number")) if reviewable else []
    context = {
        **_failure_context(stage, job),
        "tournament": stage.tournament,
        "stage": stage,
        "job": job,
        "progress": job_progress(job),
        "replaced": latest_id != job.pk,
        "rows": rows,
        "uncertified": sum(1 for r in rows if not r.certified),
        "can_publish": reviewable and stage.status == Stage.Status.DRAWN,
    }
    return render(request, "stages/draw_progress.html", context)


def _failure_context(stage: Stage, job: DrawJob) -> dict[str, object]:
    """What a failed draw's page offers next: never a retry that cannot succeed.

    ``failure``: ``settings`` when the stage's settings cannot be drawn with its entrants
    (said with the nearest workable settings; the way out is to change them), ``engine``
    when the engine refused with this seed (the same seed fails again: another seed, or
    other settings), ``other`` when the job stopped (cancelled, lost, out of time: the same
    seed may succeed)."""
    if job.status != DrawJob.Status.FAILED:
        return {}
    found = None if stage.is_swiss else stage_feasibility(stage)
    if found is not None and not found.ok:
        return {"failure": "settings", "failure_message": feasibility_message(found)}
    if job.failure == DrawJob.Failure.SETTINGS:
        return {"failure": "settings", "failure_message": ""}
    if job.failure == DrawJob.Failure.ENGINE:
        return {"failure": "engine"}
    return {"failure": "other"}


@require_POST
@organizer_page
def publish(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        stage = services.publish_draw(request.user, stage)
    except ActionError as error:
        return action_failed(request, stage, error)
    messages.success(request, _("The draw is published: every group is now public."))
    return redirect("publication-progress", stage.tournament.slug, stage.order)


@organizer_page
def publication_progress(request: HttpRequest, stage: Stage) -> HttpResponse:
    """What the publication queued (standings, ranking, verification files) and how far it
    has come; the page polls the API (``api-stage-publication``) until all is done."""
    progress = publication.publication_progress(stage)
    if progress is None:
        return action_failed(request, stage, publication.not_published())
    context = {"tournament": stage.tournament, "stage": stage, "progress": progress}
    return render(request, "stages/publication_progress.html", context)


# ---------------------------------------------------------------------------
# What a stage publishes for verification
# ---------------------------------------------------------------------------

# How long a browser or a shared cache may keep a published stage's file without asking
# again. A published draw never changes (nothing redraws or edits it), so this could be much
# longer; an hour bounds how long copies outlive a correction made in the database (whose
# stored file is then deleted and built again, with a new ETag), and asking again after that
# costs a 304, not a download.
PUBLISHED_FILES_MAX_AGE = 60 * 60
ACCEPTS_GZIP = re.compile(r"\bgzip\b")  # as GZipMiddleware reads Accept-Encoding


def published_file(request: HttpRequest, slug: str, order: int, name: str) -> HttpResponse:
    """DRAW.json and its inputs, for anyone who may see the stage (``silli_verify``).

    The ETag is the SHA-256 of the file (weak: the same file goes compressed or not), so a
    conditional request for an unchanged file is answered 304. A published stage's files are
    public and never change: they are served as stored at publication (``publication``;
    built now if missing), gzip-compressed, as they are to clients that accept gzip, with
    ``Last-Modified`` (the publication) and ``Cache-Control: public, max-age=…``; a 304 reads
    only the stored digest. An organizer's preview of an unpublished draw is built on every
    request and may not be kept without asking (``private, no-cache``).
    """
    stage = visible_stage(request, slug, order)
    if name not in publication.FILES:
        raise Http404(_("No such file."))
    if not stage.draw_digest:
        raise Http404(_("This stage has no draw yet."))
    content_type, make = publication.FILES[name]
    if not publication.is_final(stage):
        return _preview_file(request, stage, name, content_type, make(stage))
    stored = publication.stored_file(stage, name)
    if stored is None:
        raise Http404(_("This stage has no draw yet."))
    etag = f'W/"{stored.sha256}"'
    assert stage.published_at is not None  # final: published
    last_modified = int(stage.published_at.timestamp())
    response = get_conditional_response(request, etag=etag, last_modified=last_modified)
    if response is None:
        data = bytes(stored.content_gzip)
        if ACCEPTS_GZIP.search(request.META.get("HTTP_ACCEPT_ENCODING", "")):
            response = HttpResponse(data)
            response["Content-Encoding"] = "gzip"  # GZipMiddleware leaves it as it is
        else:
            response = HttpResponse(gzip.decompress(data))
        _attachment(response, stage, name, content_type)
    response["ETag"] = etag
    response["Last-Modified"] = http_date(last_modified)
    patch_cache_control(response, public=True, max_age=PUBLISHED_FILES_MAX_AGE)
    patch_vary_headers(response, ("Accept-Encoding",))
    return response


def _preview_file(
    request: HttpRequest, stage: Stage, name: str, content_type: str, text: str | None
) -> HttpResponse:
    """An unpublished draw's file (organizers only): built now, compressed by GZipMiddleware."""
    if text is None:
        raise Http404(_("This stage has no draw yet."))
    raw = text.encode("utf-8")
    etag = f'W/"{hashlib.sha256(raw).hexdigest()}"'
    response = get_conditional_response(request, etag=etag)
    if response is None:
        response = _attachment(HttpResponse(raw), stage, name, content_type)
    response["ETag"] = etag
    patch_cache_control(response, private=True, no_cache=True)
    return response


def _attachment(response: HttpResponse, stage: Stage, name: str, content_type: str) -> HttpResponse:
    response["Content-Type"] = f"{content_type}; charset=utf-8"
    filename = f"{stage.tournament.slug}-stage-{stage.order}-{name}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


# ---------------------------------------------------------------------------
# Setting up a season: tournaments and their stages
# ---------------------------------------------------------------------------


def tournament_organizer_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Gate a tournament view to its organizers; the view receives the tournament.

    Visitors who are not signed in go to the login page, signed-in others get a 403 page.
    """

    @wraps(view)
    def gated(request: HttpRequest, slug: str, **kwargs) -> HttpResponse:
        cup = get_object_or_404(Tournament, slug=slug)
        if not request.user.is_authenticated:
            back = request.get_full_path() if request.method == "GET" else cup.get_absolute_url()
            return redirect_to_login(back)
        if not is_organizer(request.user, cup):
            raise PermissionDenied(
                _("Only the organizers of %(name)s may open this page.") % {"name": cup.name}
            )
        return view(request, cup, **kwargs)

    return gated


def _refused(form: SettingsForm, error: ActionError) -> int:
    """Put an action's refusal on the form; the status the page answers with."""
    if error.code == ErrorCode.PERMISSION_DENIED:
        raise PermissionDenied(error.message)
    form.add_refusal(error.details, error.message)
    return error.http_status


def _sections(form: SettingsForm) -> list[tuple[Text, str, list]]:
    """The form's fields in their groups: ``(title, reason, [(field, reason)])``. A group
    whose fields are all read-only for one reason says it once; otherwise each read-only
    field says why."""
    sections = []
    for title, names in form.GROUPS:
        fields = [(form[name], form.frozen_reason(name)) for name in names if name in form.fields]
        reasons = {reason for field, reason in fields if field.field.disabled}
        together = len(reasons) == 1 and all(field.field.disabled for field, _reason in fields)
        if together:
            sections.append((title, reasons.pop(), [(field, "") for field, _reason in fields]))
        else:
            sections.append((title, "", fields))
    return sections


def tournament_new(request: HttpRequest) -> HttpResponse:
    """Create a tournament (staff and users with the right to): its settings and stages."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not setup.can_create_tournaments(request.user):
        raise PermissionDenied(
            _("Only staff and users with the right to create tournaments may open this page.")
        )
    form = NewTournamentForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                cup = setup.new_tournament(request.user, **form.changes())
            except ActionError as error:
                status = _refused(form, error)
            else:
                messages.success(
                    request,
                    _(
                        "%(name)s is created, with its stages below. Next: open the "
                        "preliminary's Manage page and import the entrants."
                    )
                    % {"name": cup.name},
                )
                return redirect(cup.get_absolute_url())
    context = {"form": form, "sections": _sections(form), "tournament": None}
    return render(request, "office/tournament_form.html", context, status=status)


@tournament_organizer_page
def tournament_edit(request: HttpRequest, cup: Tournament) -> HttpResponse:
    """The tournament's settings; those that can no longer change are shown read-only."""
    form = EditTournamentForm(
        request.POST or None,
        initial=tournament_initial(cup),
        frozen=setup.frozen_tournament_fields(cup),
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                cup = setup.update_tournament(request.user, cup, **form.changes())
            except ActionError as error:
                status = _refused(form, error)
            else:
                messages.success(request, _("The tournament's settings are saved."))
                return redirect(cup.get_absolute_url())
    context = {"form": form, "sections": _sections(form), "tournament": cup}
    return render(request, "office/tournament_form.html", context, status=status)


@tournament_organizer_page
def stage_new(request: HttpRequest, cup: Tournament) -> HttpResponse:
    """Add a stage; the form starts with the defaults of the kind asked for (``?kind=``)."""
    kind = request.GET.get("kind", "")
    if kind not in Stage.Kind.values:
        kind = setup.suggested_kind(cup)
    model = Stage(tournament=cup, kind=kind, **setup.stage_defaults(kind))
    initial = {**stage_initial(model), "order": None}
    form = StageForm(request.POST or None, initial=initial, tournament=cup)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            changes = form.changes()
            if changes.get("order") is None:
                changes.pop("order", None)
            try:
                stage = setup.add_stage(request.user, cup, **changes)
            except ActionError as error:
                status = _refused(form, error)
            else:
                messages.success(
                    request,
                    _("The %(kind)s is stage %(order)s of %(name)s.")
                    % {"kind": stage.get_kind_display(), "order": stage.order, "name": cup.name},
                )
                _warn_settings(request, stage)
                return redirect(cup.get_absolute_url())
    context = {
        "form": form,
        "sections": _sections(form),
        "tournament": cup,
        "stage": None,
        "kind": kind,
        "kinds": Stage.Kind.choices,
    }
    return render(request, "office/stage_form.html", context, status=status)


@organizer_page
def stage_edit(request: HttpRequest, stage: Stage) -> HttpResponse:
    """A stage's settings; those that can no longer change are shown read-only with why."""
    cup = stage.tournament
    form = StageForm(
        request.POST or None,
        initial=stage_initial(stage),
        frozen=setup.frozen_stage_fields(stage),
        tournament=cup,
    )
    form.fields["order"].required = True
    form.fields["order"].help_text = _("1 is the first stage; the others move to make room.")
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                stage = setup.update_stage(request.user, stage, **form.changes())
            except ActionError as error:
                status = _refused(form, error)
            else:
                messages.success(
                    request,
                    _("The settings of the %(kind)s are saved.")
                    % {"kind": stage.get_kind_display()},
                )
                _warn_settings(request, stage)
                return redirect(cup.get_absolute_url())
    context = {
        "form": form,
        "sections": _sections(form),
        "tournament": cup,
        "stage": stage,
        "entrant_count": stage.entries.count(),
        "draw_warning": settings_warning(stage),
    }
    return render(request, "office/stage_form.html", context, status=status)


def _warn_settings(request: HttpRequest, stage: Stage) -> None:
    """Saved, but the draw will not make what the settings ask (or cannot draw them with
    the entrants so far): say so, with the nearest workable settings."""
    warning = settings_warning(stage)
    if warning:
        messages.warning(request, warning)


@require_POST
@organizer_page
def stage_delete(request: HttpRequest, stage: Stage) -> HttpResponse:
    cup = stage.tournament
    name = stage.get_kind_display()
    try:
        setup.delete_stage(request.user, stage)
    except ActionError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("The %(kind)s is deleted.") % {"kind": name})
    return redirect(cup.get_absolute_url())


# ---------------------------------------------------------------------------
# The format lab
# ---------------------------------------------------------------------------

LAB_SLOTS = 4
LAB_FIELDS = (
    "format",
    "group_size",
    "games_per_player",
    "balance_ratings",
    "double_round_robin",
    "rounds",
    "acceleration",
    "qualify_rule",
    "qualify_value",
    "qualify_relative",
)
LAB_CHECKBOXES = ("balance_ratings", "double_round_robin", "qualify_relative")


def _stage_candidate(stage: Stage) -> dict:
    """The stage's own settings as the lab's first candidate."""
    top = stage.qualify_rule in ("top_per_group", "top_overall")
    return {
        "format": stage.format,
        "group_size": stage.min_group_size,
        "games_per_player": stage.games_per_player,
        "balance_ratings": stage.balance_ratings,
        "double_round_robin": stage.double_round_robin,
        "rounds": 9,
        "acceleration": "none",
        "qualify_rule": stage.qualify_rule if top else "",
        "qualify_value": (
            f"{stage.qualify_value.normalize():f}" if top and stage.qualify_value else ""
        ),
        "qualify_relative": stage.qualify_relative if top else False,
    }


def _posted_candidates(post) -> list[dict]:
    """The filled candidate slots of the lab form (a slot without a format is left out)."""
    candidates = []
    for slot in range(1, LAB_SLOTS + 1):
        if not post.get(f"c{slot}-format"):
            continue
        candidate = {name: post.get(f"c{slot}-{name}", "") for name in LAB_FIELDS}
        for name in LAB_CHECKBOXES:
            candidate[name] = bool(post.get(f"c{slot}-{name}"))
        candidates.append(candidate)
    return candidates


@organizer_page
def lab(request: HttpRequest, stage: Stage) -> HttpResponse:
    """The format lab: compare candidate formats on the stage's entrants (organizers; runs
    start while registration is open)."""
    status = 200
    problems: list[str] = []
    if request.method == "POST":
        candidates = _posted_candidates(request.POST)
        tournaments = request.POST.get("tournaments", "")
        seed = request.POST.get("seed", "")
        try:
            run = lab_service.start_lab_run(request.user, stage, candidates, tournaments, seed)
        except ActionError as error:
            status = error.http_status
            problems = [d["message"] for d in error.details] or [error.message]
        else:
            return redirect("stage-lab-run", stage.tournament.slug, stage.order, run.pk)
    else:
        candidates = [_stage_candidate(stage), {**_stage_candidate(stage), "format": "swiss"}]
        tournaments = str(lab_service.DEFAULT_TOURNAMENTS)
        seed = lab_service.generate_seed()
    blank = {name: "" for name in LAB_FIELDS}
    slots = [
        {"number": n + 1, "values": candidates[n] if n < len(candidates) else blank}
        for n in range(LAB_SLOTS)
    ]
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "open": stage.status == Stage.Status.DRAFT,
        "slots": slots,
        "tournaments": tournaments,
        "seed": seed,
        "problems": problems,
        "runs": stage.lab_runs.all()[:20],
        "entrant_count": stage.entries.count(),
        "form_sd": FORM_SD,
        "limits": {
            "min": lab_service.MIN_TOURNAMENTS,
            "max": lab_service.MAX_TOURNAMENTS,
        },
    }
    return render(request, "office/lab.html", context, status=status)


def _lab_table(reports: list[LabReport]) -> list[dict]:
    """The comparison table: one row a measure, one cell a candidate."""
    measures = [r.measures for r in reports]

    def row(label: str, values: list) -> dict:
        return {"label": label, "values": ["—" if v is None else v for v in values]}

    def count(value: float) -> str:
        """A mean count: whole when it is (a format's games), else to a tenth."""
        places = 0 if float(value).is_integer() else 1
        return number_format(value, places, force_grouping=True)

    def share(m: Measures, over: int) -> str:
        return f"{100 * m.share_rating_diff_over[over]:.2f} %"

    def calendar(m: Measures) -> str:
        if m.calendar.rounds is not None:
            return _("%(n)s rounds") % {"n": m.calendar.rounds}
        return _("%(n)s games at once") % {"n": m.calendar.games_per_player}

    def top_player(m: Measures, key: str) -> str | None:
        rows = m.top_rated
        if not rows or getattr(rows[0], key) is None:
            return None
        return f"{100 * getattr(rows[0], key):.1f} %"

    def top_mean(m: Measures, key: str) -> str | None:
        rows = m.top_rated
        if not rows or getattr(rows[0], key) is None:
            return None
        return f"{100 * sum(getattr(r, key) for r in rows) / len(rows):.1f} %"

    top = measures[0].top if measures else 10
    rows = [
        row(_("Games per tournament"), [count(m.games_per_tournament) for m in measures]),
        row(_("Calendar"), [calendar(m) for m in measures]),
        row(_("Mean rating difference of a game"), [m.mean_opponent_diff for m in measures]),
        row(_("Worst round's mean rating difference"), [m.max_opponent_diff for m in measures]),
    ]
    for over in (200, 400, 600):
        rows.append(
            row(
                _("Games between players more than %(d)s points apart") % {"d": over},
                [share(m, over) for m in measures],
            )
        )
    rows += [
        row(_("Positive jumps, sum"), [m.sum_pos_jump for m in measures]),
        row(_("Positive jumps, largest (bad above 0.1)"), [m.max_pos_jump for m in measures]),
        row(
            _("Expectation factor"),
            [None if m.expectation is None else f"{100 * m.expectation:.1f} %" for m in measures],
        ),
        row(
            _("Highest rated player finishes in the top %(k)s") % {"k": top},
            [top_player(m, "finish_top") for m in measures],
        ),
        row(
            _("Highest rated player qualifies"),
            [top_player(m, "qualifies") for m in measures],
        ),
        row(
            _("Top %(k)s rated players qualify, on average") % {"k": top},
            [top_mean(m, "qualifies") for m in measures],
        ),
    ]
    return rows


def _lab_chart(labels: list[str], reports: list[LabReport]) -> dict:
    """What the charts draw (read by static/js/lab-charts.js)."""
    measures = [r.measures for r in reports]
    thresholds = list(measures[0].share_rating_diff_over) if measures else []
    return {
        "thresholds": [str(t) for t in thresholds],
        "candidates": [
            {
                "label": label,
                "shares": [round(100 * m.share_rating_diff_over[t], 3) for t in thresholds],
                "mean_score": [row.mean for row in m.score_by_rank],
                "finish_top": [round(100 * row.finish_top, 2) for row in m.top_rated],
                "qualifies": [
                    None if row.qualifies is None else round(100 * row.qualifies, 2)
                    for row in m.top_rated
                ],
            }
            for label, m in zip(labels, measures, strict=True)
        ],
        "text": {
            "shares_x": _("rating difference over (points)"),
            "shares_y": _("share of games (%)"),
            "score_x": _("rating rank (1 = highest rated)"),
            "score_y": _("mean points"),
            "top_x": _("rating rank"),
            "top_y": _("chance to qualify (%)"),
            "top_y_finish": _("chance to finish in the top (%)"),
        },
    }


@organizer_page
def lab_run(request: HttpRequest, stage: Stage, run_id: int) -> HttpResponse:
    run = get_object_or_404(LabRun, pk=run_id, stage=stage)
    succeeded = run.status == LabRun.Status.SUCCEEDED
    candidates = lab_service.candidates_of(run)
    labels = [c.label for c in candidates]
    reports = lab_service.reports_of(run)
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "run": run,
        "progress": lab_service.progress(run),
        "open": stage.status == Stage.Status.DRAFT,
        "labels": labels,
        "candidates": list(enumerate(candidates)),
        "table": _lab_table(reports) if succeeded else [],
        "chart": _lab_chart(labels, reports) if succeeded else None,
    }
    return render(request, "office/lab_run.html", context)


@require_POST
@organizer_page
def lab_apply(request: HttpRequest, stage: Stage, run_id: int, candidate: int) -> HttpResponse:
    run = get_object_or_404(LabRun, pk=run_id, stage=stage)
    back = redirect("stage-lab-run", stage.tournament.slug, stage.order, run.pk)
    try:
        lab_service.apply_candidate(request.user, run, candidate - 1)
    except ActionError as error:
        show_refusal(request, error)
        return back
    messages.success(
        request,
        _("The stage's settings are now those of candidate %(n)s: %(label)s.")
        % {"n": candidate, "label": lab_service.candidates_of(run)[candidate - 1].label},
    )
    return back
