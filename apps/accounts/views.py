"""Account pages: signing in (rate-limited), password reset, "my games", the API token,
invitations (sent by organizers, accepted through the e-mailed link) and claiming an entry.

Each view parses its input, calls one action of ``services`` and renders; an action's refusal
is shown on the page and changes nothing.
"""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.errors import ActionError
from apps.core.permissions import is_organizer
from apps.groups.models import Group
from apps.stages.models import Tournament
from apps.stages.views import show_refusal

from . import services
from .forms import AccountForm, ClaimRequestForm, InvitationForm
from .games import my_stages
from .models import Invitation
from .throttles import sign_in_allowed

TOO_MANY = 429


def _throttled_message(wait: float | None) -> str:
    return _("Too many attempts from your address; try again in %(seconds)s seconds.") % {
        "seconds": math.ceil(wait or 60)
    }


class SignInView(auth_views.LoginView):
    """Django's sign-in page, with attempts counted per client address (``sign_in`` rate)."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        allowed, wait = sign_in_allowed(request)
        if not allowed:
            context = self.get_context_data(
                form=AuthenticationForm(request), throttled=_throttled_message(wait)
            )
            return self.render_to_response(context, status=TOO_MANY)
        return super().post(request, *args, **kwargs)


class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset (the e-mailed link sets a new password), rate-limited like
    signing in because every request sends an e-mail."""

    def post(self, request: HttpRequest, *args, **kwargs) -> HttpResponse:
        allowed, wait = sign_in_allowed(request)
        if not allowed:
            context = self.get_context_data(
                form=self.get_form_class()(), throttled=_throttled_message(wait)
            )
            return self.render_to_response(context, status=TOO_MANY)
        return super().post(request, *args, **kwargs)


def _link_error(request: HttpRequest, error: ActionError) -> HttpResponse:
    return render(request, "accounts/link_error.html", {"error": error}, status=error.http_status)


# ---------------------------------------------------------------------------
# My games, my token
# ---------------------------------------------------------------------------


@login_required
def me(request: HttpRequest) -> HttpResponse:
    user = request.user
    context = {
        "cards": my_stages(user),
        "directs": Group.objects.filter(td=user)
        .select_related("stage__tournament")
        .order_by("stage__tournament__name", "stage__order", "number"),
        "organizes": user.organized_tournaments.order_by("name"),
    }
    return render(request, "accounts/me.html", context)


@login_required
def api_token(request: HttpRequest) -> HttpResponse:
    """Show the user's API token; POST makes a new one (the old one stops working)."""
    if request.method == "POST":
        services.regenerate_token(request.user)
        messages.success(request, _("Your new token is below; the old one no longer works."))
        return redirect("me-token")
    return render(request, "accounts/token.html", {"token": services.api_token(request.user)})


# ---------------------------------------------------------------------------
# Invitations
# ---------------------------------------------------------------------------


def invitations(request: HttpRequest, slug: str) -> HttpResponse:
    """The tournament's invitations, and a form to invite a co-organizer or a TD
    (organizers)."""
    cup = get_object_or_404(Tournament, slug=slug)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not is_organizer(request.user, cup):
        raise PermissionDenied(
            _("Only the organizers of %(name)s may open this page.") % {"name": cup.name}
        )
    stages = list(cup.stages.order_by("order"))
    initial = {"role": request.GET.get("role", ""), "group": request.GET.get("group", "")}
    if request.GET.get("stage"):
        initial["stage"] = request.GET["stage"]
    form = InvitationForm(
        request.POST if request.method == "POST" else None, stages=stages, initial=initial
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            try:
                invitation = services.invite(
                    request.user,
                    cup,
                    email=data["email"],
                    role=data["role"],
                    stage=next((s for s in stages if s.pk == data["stage"]), None),
                    group_number=data["group"],
                )
            except ActionError as error:
                show_refusal(request, error)
                status = error.http_status
            else:
                messages.success(
                    request,
                    _("An invitation as %(role)s is on its way to %(email)s.")
                    % {"role": invitation.role_text, "email": invitation.email},
                )
                return redirect("tournament-invitations", cup.slug)
        else:
            status = 400
    context = {
        "tournament": cup,
        "form": form,
        "invitations": Invitation.objects.filter(tournament=cup).select_related(
            "stage", "invited_by", "accepted_by"
        ),
    }
    return render(request, "accounts/invitations.html", context, status=status)


def _accept_or_join(request: HttpRequest, form: AccountForm, *, accept, join) -> int:
    """The POST of an e-mailed link's page: a signed-in user accepts the link, a visitor
    creates an account with it (and is signed in). Returns the page's status, 200 if done."""
    try:
        if request.user.is_authenticated:
            accept(request.user)
        elif form.is_valid():
            user = join(
                username=form.cleaned_data["username"],
                password=form.cleaned_data["password1"],
            )
            login(request, user)
        else:
            return 400
    except ActionError as error:
        show_refusal(request, error)
        return error.http_status
    return 200


def invitation(request: HttpRequest, token: str) -> HttpResponse:
    """The page of an e-mailed invitation: accept it signed in, or create an account."""
    try:
        the_invitation = services.invitation_for(token)
    except ActionError as error:
        return _link_error(request, error)
    form = AccountForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        status = _accept_or_join(
            request,
            form,
            accept=lambda user: services.accept_invitation(user, token),
            join=lambda **account: services.join_by_invitation(token, **account),
        )
        if status == 200:
            messages.success(
                request,
                _("Welcome: you are now %(role)s of %(tournament)s.")
                % {"role": the_invitation.role_text, "tournament": the_invitation.tournament.name},
            )
            return redirect("me")
    context = {"invitation": the_invitation, "form": form}
    return render(request, "accounts/invitation.html", context, status=status)


# ---------------------------------------------------------------------------
# Claiming an entry
# ---------------------------------------------------------------------------


def claim_request(request: HttpRequest) -> HttpResponse:
    """A player types their address; each of its unlinked entries gets a claim link there."""
    form = ClaimRequestForm(request.POST if request.method == "POST" else None)
    if request.method == "POST":
        allowed, wait = sign_in_allowed(request)
        if not allowed:
            messages.error(request, _throttled_message(wait))
            return render(request, "accounts/claim_request.html", {"form": form}, status=TOO_MANY)
        if form.is_valid():
            services.request_claim_links(form.cleaned_data["email"])
            return render(
                request,
                "accounts/claim_request.html",
                {"form": ClaimRequestForm(), "sent_to": form.cleaned_data["email"]},
            )
        return render(request, "accounts/claim_request.html", {"form": form}, status=400)
    return render(request, "accounts/claim_request.html", {"form": form})


def claim(request: HttpRequest, token: str) -> HttpResponse:
    """The page of an e-mailed claim link: link the entry to this account, or create one."""
    try:
        entrant = services.claimable_entrant(token)
    except ActionError as error:
        return _link_error(request, error)
    form = AccountForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        status = _accept_or_join(
            request,
            form,
            accept=lambda user: services.claim_entry(user, token),
            join=lambda **account: services.join_by_claim(token, **account),
        )
        if status == 200:
            messages.success(
                request,
                _("%(name)s (%(code)s, %(tournament)s) is linked to your account.")
                % {
                    "name": entrant.name,
                    "code": entrant.code,
                    "tournament": entrant.tournament.name,
                },
            )
            return redirect(reverse("me"))
    mine = request.user.is_authenticated and entrant.user_id == request.user.pk
    context = {"entrant": entrant, "form": form, "mine": mine}
    return render(request, "accounts/claim.html", context, status=status)
