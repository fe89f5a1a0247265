"""Pages of tournaments and stages: the public lists and the organizer's stage dashboard.

Each view parses its input, calls at most one action (``services.py``) and renders; an action's
:class:`ActionError` becomes a message on the stage dashboard. The helpers at the top (finding a
stage, the organizer gate, showing an action's refusal) are shared by the entrant and group pages.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import wraps

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db.models import Count, Prefetch
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import pgettext_lazy
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import can_view_stage, is_organizer
from apps.entrants.forms import ImportUploadForm
from apps.groups.models import Group
from apps.results.models import Game

from . import closing, publication, services
from .draw import job_progress
from .forms import DrawForm
from .models import DrawJob, Stage, Tournament

TOP_NATIONS = 5
# How the engine chose a group's formula (``Group.rule``), as the pages name it.
FORMULA_RULES = {
    "natural": pgettext_lazy("formula rule", "natural"),
    "reserve": pgettext_lazy("formula rule", "reserve"),
    "searched": pgettext_lazy("formula rule", "searched"),
    "given": pgettext_lazy("formula rule", "given"),
    "all-odd natural": pgettext_lazy("formula rule", "all-odd natural"),
    "all-odd reserve": pgettext_lazy("formula rule", "all-odd reserve"),
    "all-odd searched": pgettext_lazy("formula rule", "all-odd searched"),
    "wide": pgettext_lazy("formula rule", "wide"),
}


# ---------------------------------------------------------------------------
# Shared by the stage, entrant and group pages
# ---------------------------------------------------------------------------


def get_stage(slug: str, order: int) -> Stage:
    return get_object_or_404(
        Stage.objects.select_related("tournament"), tournament__slug=slug, order=order
    )


def visible_stage(request: HttpRequest, slug: str, order: int) -> Stage:
    """The stage, or 404 when the visitor may not see it yet (the public sees published ones)."""
    stage = get_stage(slug, order)
    if not can_view_stage(request.user, stage):
        raise Http404(_("No such stage."))
    return stage


def organizer_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Gate a stage view to the tournament's organizers; the view receives the stage.

    Visitors who are not signed in go to the login page, signed-in others get a 403 page.
    """

    @wraps(view)
    def gated(request: HttpRequest, slug: str, order: int, **kwargs) -> HttpResponse:
        stage = get_stage(slug, order)
        if not request.user.is_authenticated:
            back = request.get_full_path() if request.method == "GET" else manage_url(stage)
            return redirect_to_login(back)
        if not is_organizer(request.user, stage.tournament):
            raise PermissionDenied(
                _("Only the organizers of %(name)s may open this page.")
                % {"name": stage.tournament.name}
            )
        return view(request, stage, **kwargs)

    return gated


def manage_url(stage: Stage) -> str:
    return reverse("stage-manage", args=[stage.tournament.slug, stage.order])


def show_refusal(request: HttpRequest, error: ActionError) -> None:
    """An action's refusal as a message on the next page (nothing was changed); a permission
    refusal is a 403 page instead."""
    if error.code == ErrorCode.PERMISSION_DENIED:
        raise PermissionDenied(error.message)
    messages.error(request, error.message)


def action_failed(request: HttpRequest, stage: Stage, error: ActionError) -> HttpResponse:
    """Show an action's refusal on the stage dashboard (nothing was changed)."""
    show_refusal(request, error)
    return redirect(manage_url(stage))


@dataclass(frozen=True)
class GroupRow:
    """A group as the stage page and the draw review list it."""

    group: Group
    same_nation: int
    rematches: int
    same_person: int
    nations: list[tuple[str, int]]
    more_nations: int

    @property
    def certified(self) -> bool:
        return self.group.principles_hold and not self.group.conflicts

    @property
    def formula_text(self) -> str:
        """The formula as d1.d2…dk, or "round robin" in the visitor's language."""
        return self.group.formula_text if self.group.formula else _("round robin")

    @property
    def rule_label(self) -> str:
        return str(FORMULA_RULES.get(self.group.rule, self.group.rule))


def group_rows(groups: Iterable[Group]) -> list[GroupRow]:
    rows = []
    for group in groups:
        reasons = Counter(c.get("reason") for c in group.conflicts)
        mix = [(nation, count) for nation, count in group.nation_mix]
        rows.append(
            GroupRow(
                group=group,
                same_nation=reasons["same nation"],
                rematches=reasons["met before"],
                same_person=reasons["same person"],
                nations=mix[:TOP_NATIONS],
                more_nations=max(0, len(mix) - TOP_NATIONS),
            )
        )
    return rows


# ---------------------------------------------------------------------------
# Public pages
# ---------------------------------------------------------------------------


def home(request: HttpRequest) -> HttpResponse:
    tournaments = Tournament.objects.annotate(entrant_count=Count("entrants")).prefetch_related(
        Prefetch("stages", Stage.objects.order_by("order"))
    )
    return render(request, "stages/home.html", {"tournaments": tournaments})


def tournament(request: HttpRequest, slug: str) -> HttpResponse:
    cup = get_object_or_404(Tournament, slug=slug)
    stages = list(cup.stages.order_by("order").annotate(entrant_count=Count("entries")))
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
    return render(
        request,
        "stages/tournament.html",
        {"tournament": cup, "stages": stages, "organizer": organizer},
    )


def stage(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    rows = group_rows(stage.groups.order_by("number"))
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "rows": rows,
        "entrant_count": stage.entries.count(),
        "game_count": Game.objects.filter(group__stage=stage).count() if rows else 0,
        "uncertified": sum(1 for r in rows if not r.certified),
        "organizer": is_organizer(request.user, stage.tournament),
        "verify_command": verify_command(stage),
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
    seed = services.generate_seed() if request.GET.get("generate") else stage.seed
    latest_job = stage.draw_jobs.first()
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "Status": Stage.Status,
        "entrant_count": stage.entries.count(),
        "upload_form": ImportUploadForm(),
        "draw_form": DrawForm(initial={"seed": seed}),
        "can_draw": stage.status in (Stage.Status.REGISTRATION_CLOSED, Stage.Status.DRAWN),
        "latest_job": latest_job,
        "play": closing.play_summary(stage) if stage.is_public else None,
    }
    return render(request, "stages/manage.html", context)


@require_POST
@organizer_page
def close(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        stage = services.close_registration(request.user, stage)
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
        services.reopen_registration(request.user, stage)
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


@require_POST
@organizer_page
def publish(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        stage = services.publish_draw(request.user, stage)
    except ActionError as error:
        return action_failed(request, stage, error)
    messages.success(request, _("The draw is published: every group is now public."))
    return redirect(stage.get_absolute_url())


# ---------------------------------------------------------------------------
# What a stage publishes for verification
# ---------------------------------------------------------------------------

PUBLISHED_FILES = {
    "DRAW.json": ("application/json", publication.draw_file),
    "entrants.csv": ("text/csv", publication.public_entrants_csv),
    "met-before.csv": ("text/csv", publication.met_before_csv),
    "earlier-groups.csv": ("text/csv", publication.earlier_groups_csv),
}


def published_file(request: HttpRequest, slug: str, order: int, name: str) -> HttpResponse:
    """DRAW.json and its inputs, for anyone who may see the stage (``silli_verify``)."""
    stage = visible_stage(request, slug, order)
    if name not in PUBLISHED_FILES:
        raise Http404(_("No such file."))
    content_type, make = PUBLISHED_FILES[name]
    text = make(stage) if stage.draw_digest else None
    if text is None:
        raise Http404(_("This stage has no draw yet."))
    response = HttpResponse(text, content_type=f"{content_type}; charset=utf-8")
    filename = f"{stage.tournament.slug}-stage-{stage.order}-{name}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
