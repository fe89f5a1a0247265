"""Account pages: signing in (rate-limited), password reset, "my games", one's display name,
the API token, invitations (sent by organizers, accepted through the e-mailed link), claiming
an entry, a stage's TDs (organizers) and who may create tournaments (staff).

Each view parses its input, calls one action of ``services`` and renders; an action's refusal
is shown on the page and changes nothing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.db.models import Count, F, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.http import url_has_allowed_host_and_scheme, urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from apps.core.errors import ActionError, ErrorCode
from apps.core.pages import SignedInRequest, show_refusal
from apps.core.people import display_name, stored_display_name, td_name
from apps.core.permissions import is_organizer
from apps.groups.models import Game, Group
from apps.groups.rounds import RoundDeadline, round_deadline
from apps.groups.services import assign_td
from apps.play.leave import leave_overview
from apps.play.leave_forms import LeaveForm
from apps.results.closing import PlayDeadline, play_deadline
from apps.results.models import ResultReport
from apps.stages.models import Stage, Tournament
from apps.stages.pages import organizer_page

from . import services
from .forms import (
    AccountForm,
    ClaimRequestForm,
    DisplayNameForm,
    GroupTdForm,
    InvitationForm,
    OrganizerSearchForm,
    TdUploadForm,
)
from .games import my_stages
from .models import Invitation
from .throttles import sign_in_allowed

TOO_MANY = 429


def _throttled_message(wait: float | None) -> str:
    return _("Too many attempts from your address; try again in %(seconds)s seconds.") % {
        "seconds": math.ceil(wait or 60)
    }


class SignInView(auth_views.LoginView):
    """Django's sign-in page, with attempts counted per client address (``sign_in`` rate).

    An account signing in for the first time with no name to show others (no display name,
    no full name: the first account, made by ``createsuperuser``, would be "Organizer 1"
    everywhere, its TD invitations included) is asked for one right away, and then goes where
    it was going ("Later" goes there at once; the name can be set at any time from the top
    bar)."""

    def form_valid(self, form: AuthenticationForm) -> HttpResponse:
        user = form.get_user()
        first = user.last_login is None  # signing in sets it
        response = super().form_valid(form)
        if not first or stored_display_name(user) or (user.get_full_name() or "").strip():
            return response
        query = urlencode({"next": self.get_success_url(), "first": "1"})
        return redirect(f"{reverse('me-name')}?{query}")

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
def me(request: SignedInRequest) -> HttpResponse:
    user = request.user
    cards = my_stages(user)
    today = timezone.localdate()
    context = {
        "cards": cards,
        # Each card with its stage's end of play (None without a date) and, in a Swiss stage,
        # its current round's deadline (None without one).
        "entries": [
            (card, play_deadline(card.stage, today), round_deadline(card.group, stage=card.stage))
            for card in cards
        ],
        "directs": Group.objects.filter(td=user)
        .select_related("stage__tournament")
        .order_by("stage__tournament__name", "stage__order", "number"),
        "organizes": user.organized_tournaments.order_by("name"),
        "shown_as": display_name(user),
        "named": bool(stored_display_name(user)),
        # Leave from games played here (apps/play/leave.py): days used and left, the form.
        "leave": leave_overview(user.pk),
        "leave_form": LeaveForm(),
    }
    return render(request, "accounts/me.html", context)


@dataclass(frozen=True)
class DirectedGroup:
    """A group the user directs, as the TD dashboard shows it."""

    group: Group
    open_games: int
    disputed: int
    pending: int
    deadline: PlayDeadline | None
    round_deadline: RoundDeadline | None


@login_required
def td_dashboard(request: SignedInRequest) -> HttpResponse:
    """The TD's dashboard: every group they direct, across tournaments and stages, with its
    open games, reports to answer and deadlines, and one queue of the disputes (and of the
    reports awaiting the opponent) of all those groups, oldest first."""
    user = request.user
    groups = list(
        Group.objects.filter(td=user)
        .select_related("stage__tournament")
        .order_by(
            F("closed_at").desc(nulls_first=True),
            "stage__tournament__name",
            "stage__order",
            "number",
        )
    )
    ids = [g.pk for g in groups]
    open_games = dict(
        Game.objects.filter(group_id__in=ids, result="")
        .values_list("group_id")
        .annotate(count=Count("pk"))
        .order_by()
    )
    reports = list(
        ResultReport.objects.filter(
            game__group_id__in=ids,
            game__result="",
            status__in=(ResultReport.Status.DISPUTED, ResultReport.Status.PENDING),
        )
        .select_related("game__white", "game__black", "game__group__stage__tournament")
        .order_by("created_at", "pk")
    )
    disputed = [r for r in reports if r.status == ResultReport.Status.DISPUTED]
    pending = [r for r in reports if r.status == ResultReport.Status.PENDING]
    today = timezone.localdate()
    rows = [
        DirectedGroup(
            g,
            open_games.get(g.pk, 0),
            sum(1 for r in disputed if r.game.group_id == g.pk),
            sum(1 for r in pending if r.game.group_id == g.pk),
            play_deadline(g.stage, today),
            round_deadline(g, stage=g.stage),
        )
        for g in groups
    ]
    context = {"rows": rows, "disputed": disputed, "pending": pending}
    return render(request, "accounts/td_dashboard.html", context)


@login_required
def me_name(request: SignedInRequest) -> HttpResponse:
    """The name others see for one's account: on group pages, as TD, in a game's history."""
    user = request.user
    initial = {"display_name": stored_display_name(user)}
    form = DisplayNameForm(request.POST if request.method == "POST" else None, initial=initial)
    # Asked for right after the first sign-in (SignInView): then on to where one was going.
    goto = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(
        goto, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        goto = ""
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                services.set_display_name(user, form.cleaned_data["display_name"])
            except ActionError as error:
                show_refusal(request, error)
                status = error.http_status
            else:
                messages.success(
                    request, _("Others now see you as %(name)s.") % {"name": display_name(user)}
                )
                return redirect(goto or "me")
        else:
            status = 400
    context = {
        "form": form,
        "shown_as": display_name(user),
        "next": goto,
        "first": bool(request.GET.get("first") or request.POST.get("first")),
    }
    return render(request, "accounts/name.html", context, status=status)


@login_required
def api_token(request: SignedInRequest) -> HttpResponse:
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
            "stage", "invited_by__profile", "accepted_by__profile"
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
                display_name=form.cleaned_data["display_name"],
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
    # A new account's name starts as the entry's (the person claiming it is that entrant).
    form = AccountForm(
        request.POST if request.method == "POST" else None,
        initial={"display_name": entrant.name},
    )
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
            return redirect(_claim_next(request))
    mine = request.user.is_authenticated and entrant.user_id == request.user.pk
    context = {
        "entrant": entrant,
        "form": form,
        "mine": mine,
        "token": token,
        "next": _claim_next(request),
    }
    return render(request, "accounts/claim.html", context, status=status)


def _claim_next(request: HttpRequest) -> str:
    """Where a claim link leads once the entry is claimed: the page the e-mail was about
    (its ``next``, a path of this site), else "My games"."""
    target = request.GET.get("next", "")
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("me")


def claim_refuse(request: HttpRequest, token: str) -> HttpResponse:
    """ "Not me": the person a claim link reached says the entry is not theirs (a GET asks,
    a POST refuses; no account needed)."""
    try:
        entrant = services.claimable_entrant(token)
    except ActionError as error:
        return _link_error(request, error)
    if request.method == "POST":
        try:
            services.refuse_claim(token)
        except ActionError as error:
            show_refusal(request, error)
            return render(
                request,
                "accounts/claim_refuse.html",
                {"entrant": entrant, "token": token},
                status=error.http_status,
            )
        return render(request, "accounts/claim_refuse.html", {"entrant": entrant, "done": True})
    return render(request, "accounts/claim_refuse.html", {"entrant": entrant, "token": token})


# ---------------------------------------------------------------------------
# A stage's TDs (organizers)
# ---------------------------------------------------------------------------


def _td_page(
    request: HttpRequest,
    stage: Stage,
    *,
    upload_form: TdUploadForm | None = None,
    plan: services.TdPlan | None = None,
    error: ActionError | None = None,
    status: int = 200,
) -> HttpResponse:
    groups = list(
        Group.objects.filter(stage=stage).select_related("td__profile").order_by("number")
    )
    pending: dict[int, list[str]] = {}
    for number, email in (
        Invitation.objects.filter(stage=stage, role=Invitation.Role.TD, accepted_at__isnull=True)
        .order_by("created_at")
        .values_list("group_number", "email")
    ):
        if number is None:  # never: a TD's invitation names its group
            continue
        addresses = pending.setdefault(number, [])
        if email.lower() not in {a.lower() for a in addresses}:
            addresses.append(email)
    rows = [
        {
            "group": g,
            "td_name": td_name(g.td) if g.td else "",
            "td_email": g.td.email if g.td else "",
            "invited": pending.get(g.number, []),
        }
        for g in groups
    ]
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "rows": rows,
        "without_td": sum(1 for g in groups if g.td_id is None),
        "upload_form": upload_form or TdUploadForm(),
        "plan": plan,
        "error": error,
    }
    return render(request, "accounts/stage_tds.html", context, status=status)


@organizer_page
def stage_tds(request: HttpRequest, stage: Stage) -> HttpResponse:
    """Every group of the stage with its TD (name and address) and open invitations; a CSV
    ``group,email`` names many TDs at once: ``preview`` shows what it would do, ``apply``
    does it (all rows or none, every bad row listed)."""
    if request.method != "POST":
        return _td_page(request, stage)
    form = TdUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _td_page(request, stage, upload_form=form, status=400)
    text = form.cleaned_data["text"]
    try:
        if "apply" not in request.POST:
            plan = services.preview_tds(request.user, stage, text)
            confirm = TdUploadForm(initial={"csv": text})
            return _td_page(request, stage, upload_form=confirm, plan=plan)
        plan = services.assign_tds(request.user, stage, text)
    except ActionError as error:
        if error.code == ErrorCode.PERMISSION_DENIED:
            raise PermissionDenied(error.message) from error
        return _td_page(request, stage, upload_form=form, error=error, status=error.http_status)
    messages.success(request, _td_summary(plan))
    return redirect("stage-tds", stage.tournament.slug, stage.order)


def _td_summary(plan: services.TdPlan) -> str:
    parts = [
        ngettext("%(count)s TD assigned", "%(count)s TDs assigned", plan.assigned)
        % {"count": plan.assigned},
        ngettext("%(count)s invitation sent", "%(count)s invitations sent", plan.invited)
        % {"count": plan.invited},
    ]
    if plan.unchanged:
        parts.append(
            ngettext("%(count)s group unchanged", "%(count)s groups unchanged", plan.unchanged)
            % {"count": plan.unchanged}
        )
    return ", ".join(parts) + "."


@require_POST
@organizer_page
def stage_td_group(request: HttpRequest, stage: Stage) -> HttpResponse:
    """One group's TD: ``email`` names (or invites) them; ``remove`` leaves the group
    without a TD."""
    back = redirect(reverse("stage-tds", args=[stage.tournament.slug, stage.order]))
    if "remove" in request.POST:
        number = request.POST.get("group", "")
        group = get_object_or_404(Group, stage=stage, number=int(number) if number.isdigit() else 0)
        try:
            assign_td(request.user, group, None)
        except ActionError as error:
            show_refusal(request, error)
            return back
        messages.success(request, _("Group %(number)s has no TD now.") % {"number": group.number})
        return back
    form = GroupTdForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for message in errors:
                # A form's error list yields texts (the stubs also say ValidationError).
                messages.error(request, str(message))
        return _td_page(request, stage, status=400)
    number, email = form.cleaned_data["group"], form.cleaned_data["email"]
    try:
        plan = services.assign_group_td(request.user, stage, number, email)
    except ActionError as error:
        if not error.details:
            show_refusal(request, error)
        for row in error.details:
            messages.error(request, row["message"])
        return back
    row = plan.rows[0]
    if row.action == services.TdAction.INVITE:
        message = _(
            "No account has the address %(email)s: it is invited as TD of group %(number)s."
        )
    elif row.action == services.TdAction.UNCHANGED:
        message = _("%(name)s is the TD of group %(number)s already.")
    else:
        message = _("%(name)s is now the TD of group %(number)s.")
    messages.success(
        request, message % {"email": email, "number": number, "name": row.account_name}
    )
    return back


# ---------------------------------------------------------------------------
# Who may create tournaments (staff)
# ---------------------------------------------------------------------------

ACCOUNTS_PER_PAGE = 50


def _staff_only(request: HttpRequest) -> HttpResponse | None:
    """A redirect to sign in, a 403, or None for staff."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not request.user.is_staff:
        raise PermissionDenied(_("Only staff may open this page."))
    return None


def staff_organizers(request: HttpRequest) -> HttpResponse:
    """Every account, with a search, and whether it may create tournaments: a button grants
    or takes away the right (staff)."""
    refused = _staff_only(request)
    if refused is not None:
        return refused
    form = OrganizerSearchForm(request.GET or None)
    accounts = get_user_model().objects.select_related("profile").order_by("username")
    query, holders = "", False
    if form.is_valid():
        query = form.cleaned_data["q"].strip()
        if query:
            accounts = accounts.filter(
                Q(username__icontains=query)
                | Q(email__icontains=query)
                | Q(first_name__icontains=query)
                | Q(last_name__icontains=query)
                | Q(profile__display_name__icontains=query)
            )
        holders = form.cleaned_data["holders"]
        if holders:
            accounts = accounts.filter(pk__in=services.organizer_right_holders().values("pk"))
    page = Paginator(accounts, ACCOUNTS_PER_PAGE).get_page(request.GET.get("page"))
    rights = services.organizer_rights(page.object_list)
    rows = [
        {"account": a, "name": display_name(a), "right": rights[a.pk]} for a in page.object_list
    ]
    params = request.GET.copy()
    params.pop("page", None)
    context = {
        "form": form,
        "query": query,
        "holders": holders,
        "page": page,
        "rows": rows,
        "params": params.urlencode(),
    }
    return render(request, "accounts/staff_organizers.html", context)


@require_POST
def staff_organizer(request: HttpRequest, user_id: int) -> HttpResponse:
    """Grant (``right=grant``) or take away (``right=revoke``) one account's right to create
    tournaments (staff); back to the list."""
    refused = _staff_only(request)
    if refused is not None:
        return refused
    account = get_object_or_404(get_user_model(), pk=user_id)
    grant = request.POST.get("right") == "grant"
    try:
        if grant:
            right = services.grant_organizer_right(request.user, account)
        else:
            right = services.revoke_organizer_right(request.user, account)
    except ActionError as error:
        show_refusal(request, error)
    else:
        name = display_name(account)
        if grant:
            messages.success(request, _("%(name)s may create tournaments.") % {"name": name})
        elif right.holds:
            messages.warning(
                request,
                _(
                    "%(name)s still may create tournaments: the right comes from a group or a "
                    "superuser account (change it in the admin)."
                )
                % {"name": name},
            )
        else:
            messages.success(
                request, _("%(name)s may no longer create tournaments.") % {"name": name}
            )
    back = request.POST.get("next", "")
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = reverse("staff-organizers")
    return redirect(back)
