"""Pages of registration by players: a stage's registration form, the player's "My
registrations" (state, withdraw) and the organizers' requests page (the eligibility checks,
approve or reject many at once with a reason). Each view parses its input, calls one action
(``registrations.py``) and renders."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError
from apps.core.pages import SignedInRequest, show_refusal
from apps.core.people import stored_display_name
from apps.stages.models import Stage
from apps.stages.pages import get_stage, organizer_page

from . import registration_rules as rules
from . import registrations
from .models import Registration
from .registration_forms import DecisionForm, RegistrationForm


@dataclass(frozen=True)
class Row:
    """A request as a page lists it: its place on the reserve list, its checks (the
    organizers' page) and whether its player may withdraw it (theirs)."""

    registration: Registration
    reserve_place: int | None
    checks: list[rules.Check] = field(default_factory=list)
    withdrawable: bool = False


def _register_url(stage: Stage) -> str:
    return reverse("stage-register", args=[stage.tournament.slug, stage.order])


@login_required
def register(request: SignedInRequest, slug: str, order: int) -> HttpResponse:
    """A stage's registration form (only stages open to players have one)."""
    stage = get_stage(slug, order)
    if not stage.open_registration:
        raise Http404(_("This stage does not take registrations from players."))
    mine = Registration.objects.filter(
        stage=stage, user=request.user, status__in=Registration.ACTIVE
    ).first()
    closed = rules.closed_reason(stage, timezone.localdate())
    rating_list = rules.stage_rating_list(stage)
    status = 200
    if request.method == "POST":
        form = RegistrationForm(request.POST)
        if form.is_valid():
            try:
                made = registrations.register(stage, actor=request.user, **form.cleaned_data)
            except ActionError as error:
                form.add_error(None, error.message)
                status = error.http_status
            else:
                if made.status == Registration.Status.RESERVE:
                    messages.success(
                        request,
                        _(
                            "Registered. The field is full: you are on the reserve list and "
                            "move up when a place becomes free."
                        ),
                    )
                else:
                    messages.success(
                        request, _("Registered. The organizers will approve or reject it.")
                    )
                return redirect("my-registrations")
        else:
            status = 400
    else:
        form = RegistrationForm(
            initial={
                "name": stored_display_name(request.user) or request.user.get_full_name(),
                "email": request.user.email,
            }
        )
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "form": form,
        "mine": mine,
        "closed": closed,
        "rules": rules.rules_summary(stage, rating_list),
        "rating_list": rating_list,
    }
    return render(request, "players/register.html", context, status=status)


@login_required
def my_registrations(request: SignedInRequest) -> HttpResponse:
    rows = list(
        Registration.objects.filter(user=request.user)
        .select_related("stage__tournament")
        .order_by("-created_at")
    )
    today = timezone.localdate()
    shown = [
        Row(
            row,
            registrations.reserve_place(row),
            withdrawable=row.is_active and not rules.closed_reason(row.stage, today),
        )
        for row in rows
    ]
    return render(request, "players/my_registrations.html", {"rows": shown})


@require_POST
@login_required
def withdraw(request: SignedInRequest, registration_id: int) -> HttpResponse:
    registration = get_object_or_404(Registration, pk=registration_id, user=request.user)
    try:
        registrations.withdraw(registration, actor=request.user)
    except ActionError as error:
        show_refusal(request, error)
    else:
        messages.success(request, _("Your registration is withdrawn."))
    return redirect("my-registrations")


@organizer_page
def requests_page(request: HttpRequest, stage: Stage) -> HttpResponse:
    """The organizers' page of a stage's requests: each with its eligibility checks; several
    chosen are approved or rejected at once."""
    rows = list(registrations.registrations_seen_by(request.user, stage))
    status = 200
    form = DecisionForm(request.POST or None, choices=[r.pk for r in rows])
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                done = registrations.decide(
                    stage, data["ids"], data["decision"], data["reason"], actor=request.user
                )
            except ActionError as error:
                show_refusal(request, error)
            else:
                if data["decision"] == registrations.Decision.APPROVE:
                    text = ngettext(
                        "%(count)s request approved: the player is an entrant now.",
                        "%(count)s requests approved: the players are entrants now.",
                        len(done),
                    )
                else:
                    text = ngettext(
                        "%(count)s request rejected.", "%(count)s requests rejected.", len(done)
                    )
                messages.success(request, text % {"count": len(done)})
            return redirect("stage-registrations", stage.tournament.slug, stage.order)
        status = 400
    rating_list = rules.stage_rating_list(stage)
    shown = [
        Row(
            row,
            registrations.reserve_place(row),
            checks=rules.eligibility(
                stage,
                federation=row.federation,
                rating=row.rating,
                rating_list_id=row.rating_list_id,
                rating_list=rating_list,
            ),
        )
        for row in rows
    ]
    counts = {s: sum(1 for r in rows if r.status == s) for s in Registration.Status.values}
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "rows": shown,
        "form": form,
        "counts": counts,
        "rules": rules.rules_summary(stage, rating_list),
        "places": registrations.places_taken(stage),
        "closed": rules.closed_reason(stage, timezone.localdate()),
        "register_url": _register_url(stage),
    }
    return render(request, "players/registrations.html", context, status=status)
