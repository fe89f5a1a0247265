"""REST API of accounts: tokens, "my games", invitations, entries linked to accounts and
claimed by their players, a stage's TDs (organizers), who may create tournaments (staff).
The same actions and permissions as the pages."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.contrib.auth import get_user_model
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.authtoken.serializers import AuthTokenSerializer
from rest_framework.exceptions import NotFound, PermissionDenied
from rest_framework.parsers import MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.api import CsvParser, JsonParser, error_responses, request_csv_text
from apps.core.people import display_name, td_name
from apps.core.permissions import require_organizer
from apps.entrants.models import Entrant
from apps.entrants.serializers import PublicEntrantSerializer
from apps.groups.models import Group
from apps.stages.lookups import stage_for_action
from apps.stages.models import Tournament

from . import services
from .games import STATUS_LABELS, MyStage, my_stages
from .models import Invitation
from .throttles import SignInRateThrottle

if TYPE_CHECKING:
    from django.contrib.auth.models import User

# ---------------------------------------------------------------------------
# Serializers
# ---------------------------------------------------------------------------


class TokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="Send it as the header 'Authorization: Token <key>'.")


class TokenRequestSerializer(AuthTokenSerializer):
    """A user name and password."""

    # DRF's way to drop an inherited field (the stubs want a field).
    token = None  # type: ignore[assignment]


class ContactEntrantSerializer(PublicEntrantSerializer):
    contact = serializers.EmailField(
        allow_blank=True, help_text="The opponent's e-mail address ('' if unknown)."
    )


class MyOpponentSerializer(ContactEntrantSerializer):
    seat = serializers.IntegerField()


class MyGameSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The game's id (GET /api/games/{id}/).")
    url = serializers.CharField()
    number = serializers.IntegerField(help_text="The game's number in the group.")
    colour = serializers.ChoiceField(choices=["white", "black"], help_text="Your colour.")
    result = serializers.CharField(help_text="The result code; '' while in progress.")
    score = serializers.CharField(help_text="Your score: 1, ½, 0, + or −; '' in progress.")
    opponent = MyOpponentSerializer()


class LinkSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()


class MyStageRefSerializer(LinkSerializer):
    kind = serializers.CharField()
    order = serializers.IntegerField()
    status = serializers.CharField()


class MyGroupSerializer(LinkSerializer):
    number = serializers.IntegerField()


class DirectorContactSerializer(serializers.Serializer):
    name = serializers.CharField()
    contact = serializers.EmailField(allow_blank=True)


class TournamentRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    slug = serializers.CharField()
    name = serializers.CharField()


def _tournament(tournament: Tournament) -> dict:
    return {
        "id": tournament.pk,
        "url": reverse("api-tournament-detail", args=[tournament.slug]),
        "slug": tournament.slug,
        "name": tournament.name,
    }


class StandingSerializer(serializers.Serializer):
    place = serializers.CharField(help_text="e.g. 3 or 3-4.")
    points = serializers.DecimalField(max_digits=7, decimal_places=2, coerce_to_string=False)


class MyEntrySerializer(serializers.Serializer):
    tournament = TournamentRefSerializer()
    entrant = PublicEntrantSerializer()
    stage = MyStageRefSerializer()
    group = MyGroupSerializer(allow_null=True, help_text="null until the draw is published.")
    seat = serializers.IntegerField(allow_null=True)
    td = DirectorContactSerializer(allow_null=True)
    standing = StandingSerializer(allow_null=True, help_text="null before the first result.")
    status = serializers.ChoiceField(
        choices=list(STATUS_LABELS),
        help_text="registered (waiting for the draw), in_play, qualified (for a later stage), "
        "not_qualified, finished (a closed final) or withdrawn.",
    )
    games = MyGameSerializer(many=True)


class MyGroupRoleSerializer(MyGroupSerializer):
    tournament = serializers.CharField(help_text="The tournament's slug.")
    stage = serializers.IntegerField(help_text="The stage's id.")


class MeSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="Yours, for signing in; others never see it.")
    display_name = serializers.CharField(
        help_text="The name others see (set it at /me/name/); a neutral label when unset."
    )
    email = serializers.EmailField(allow_blank=True)
    entries = MyEntrySerializer(many=True, help_text="Each stage of each of your entries.")
    directs = MyGroupRoleSerializer(many=True, help_text="The groups you direct as TD.")
    organizes = TournamentRefSerializer(many=True, help_text="The tournaments you organize.")


def _entrant(entrant: Entrant) -> dict:
    return {
        "code": entrant.code,
        "name": entrant.name,
        "nation": entrant.nation,
        "rating": entrant.rating,
    }


def _group(group: Group) -> dict:
    return {
        "id": group.pk,
        "number": group.number,
        "url": reverse("api-group-detail", args=[group.pk]),
    }


def my_entry(card: MyStage) -> dict:
    stage = card.stage
    return {
        "tournament": _tournament(card.tournament),
        "entrant": _entrant(card.entrant),
        "stage": {
            "id": stage.pk,
            "url": reverse("api-stage-detail", args=[stage.pk]),
            "kind": stage.kind,
            "order": stage.order,
            "status": stage.status,
        },
        "group": _group(card.group) if card.group else None,
        "seat": card.seat,
        "td": {"name": card.td_name, "contact": card.td_contact} if card.td_name else None,
        "standing": {"place": card.place, "points": card.points} if card.place else None,
        "status": card.status,
        "games": [
            {
                "id": g.id,
                "url": reverse("api-game", args=[g.id]),
                "number": g.number,
                "colour": g.colour_name,
                "result": g.result,
                "score": g.score,
                "opponent": {**_entrant(g.opponent), "seat": g.opponent_seat, "contact": g.contact},
            }
            for g in card.games
        ],
    }


class InvitationSerializer(serializers.ModelSerializer):
    stage = serializers.IntegerField(source="stage_id", allow_null=True)
    group = serializers.IntegerField(source="group_number", allow_null=True)
    # null: the inviter's account is gone; not accepted yet.
    invited_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )
    accepted_by: serializers.SlugRelatedField[User] = serializers.SlugRelatedField(
        slug_field="username", read_only=True, allow_null=True
    )

    class Meta:
        model = Invitation
        fields = [
            "id",
            "email",
            "role",
            "stage",
            "group",
            "invited_by",
            "created_at",
            "accepted_at",
            "accepted_by",
        ]


class InvitationRequestSerializer(serializers.Serializer):
    email = serializers.EmailField()
    role = serializers.ChoiceField(choices=Invitation.Role.choices)
    stage = serializers.IntegerField(required=False, help_text="For a TD: the stage's id.")
    group = serializers.IntegerField(
        required=False, min_value=1, help_text="For a TD: the group's number in the stage."
    )


class LinkTokenSerializer(serializers.Serializer):
    token = serializers.CharField(help_text="The token at the end of the e-mailed link.")


class EntrantLinkRequestSerializer(serializers.Serializer):
    entrant = serializers.CharField(max_length=32, help_text="The entrant's code.")
    username = serializers.CharField(
        max_length=150, allow_blank=True, help_text="The player's user name; '' unlinks."
    )


class EntrantLinkSerializer(serializers.Serializer):
    entrant = serializers.CharField(help_text="The entrant's code.")
    username = serializers.CharField(allow_blank=True)


class ClaimLinksRequestSerializer(serializers.Serializer):
    entrants = serializers.ListField(
        child=serializers.CharField(max_length=32),
        min_length=1,
        max_length=1000,
        help_text="Entrant codes.",
    )


class SentSerializer(serializers.Serializer):
    sent = serializers.IntegerField(help_text="How many entries got a link.")


class EmailRequestSerializer(serializers.Serializer):
    email = serializers.EmailField()


class MessageSerializer(serializers.Serializer):
    message = serializers.CharField()


class ClaimedSerializer(serializers.Serializer):
    tournament = serializers.CharField(help_text="The tournament's slug.")
    entrant = PublicEntrantSerializer()


# ---------------------------------------------------------------------------
# Views
# ---------------------------------------------------------------------------


class ObtainTokenView(APIView):
    """Exchange a user name and password for your API token (made on first use); send it as
    the header ``Authorization: Token <key>``. Attempts are rate-limited per address."""

    authentication_classes: list = []
    throttle_classes = [SignInRateThrottle]

    @extend_schema(
        request=TokenRequestSerializer,
        responses={200: TokenSerializer, **error_responses(400, 429)},
    )
    def post(self, request) -> Response:
        params = TokenRequestSerializer(data=request.data, context={"request": request})
        params.is_valid(raise_exception=True)
        token = services.obtain_token(params.validated_data["user"])
        return Response({"token": token.key})


class ClaimLinkRequestView(APIView):
    """Ask for links to claim your entries: they are e-mailed to the address you give, one
    for each entry registered with it that no account holds yet. The answer is the same
    whether or not there were any. Rate-limited per address."""

    authentication_classes: list = []
    throttle_classes = [SignInRateThrottle]

    @extend_schema(
        request=EmailRequestSerializer,
        responses={202: MessageSerializer, **error_responses(400, 429)},
    )
    def post(self, request) -> Response:
        params = EmailRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        services.request_claim_links(params.validated_data["email"])
        message = _("If entries are registered with %(email)s, a link for each is on its way.")
        return Response(
            {"message": message % {"email": params.validated_data["email"]}},
            status=status.HTTP_202_ACCEPTED,
        )


class MeView(APIView):
    """My games: each stage of each of your entries (group, seat, opponents with colours,
    results and contacts, the TD, your standing and qualification status), and the groups
    and tournaments you direct or organize."""

    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: MeSerializer, **error_responses(403)})
    def get(self, request) -> Response:
        user = request.user
        directs = Group.objects.filter(td=user).select_related("stage__tournament")
        data = {
            "username": user.get_username(),
            "display_name": display_name(user),
            "email": user.email,
            "entries": [my_entry(card) for card in my_stages(user)],
            "directs": [
                {**_group(g), "tournament": g.stage.tournament.slug, "stage": g.stage_id}
                for g in directs.order_by("stage__tournament__slug", "stage__order", "number")
            ],
            "organizes": [_tournament(t) for t in user.organized_tournaments.order_by("name")],
        }
        return Response(MeSerializer(data).data)


class ClaimView(APIView):
    """Link the entry named by an e-mailed claim link to your account (again: no change)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=LinkTokenSerializer,
        responses={200: ClaimedSerializer, **error_responses(400, 403, 409)},
    )
    def post(self, request) -> Response:
        params = LinkTokenSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        entrant = services.claim_entry(request.user, params.validated_data["token"])
        return Response({"tournament": entrant.tournament.slug, "entrant": _entrant(entrant)})


class AcceptInvitationView(APIView):
    """Accept an e-mailed invitation with your account (again: no change)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        request=LinkTokenSerializer,
        responses={200: InvitationSerializer, **error_responses(400, 403, 404, 409)},
    )
    def post(self, request) -> Response:
        params = LinkTokenSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        invitation = services.accept_invitation(request.user, params.validated_data["token"])
        return Response(InvitationSerializer(invitation).data)


def organized_tournament(request, slug: str) -> Tournament:
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None:
        raise NotFound(_("There is no tournament %(slug)r.") % {"slug": slug})
    require_organizer(request.user, tournament)
    return tournament


class TournamentInvitationsView(APIView):
    """The tournament's invitations (GET), or invite a person by e-mail as co-organizer or
    as TD of a group (POST); organizers."""

    @extend_schema(responses={200: InvitationSerializer(many=True), **error_responses(403, 404)})
    def get(self, request, slug: str) -> Response:
        tournament = organized_tournament(request, slug)
        invitations = Invitation.objects.filter(tournament=tournament).select_related(
            "invited_by", "accepted_by"
        )
        return Response(InvitationSerializer(invitations, many=True).data)

    @extend_schema(
        request=InvitationRequestSerializer,
        responses={201: InvitationSerializer, **error_responses(400, 403, 404)},
    )
    def post(self, request, slug: str) -> Response:
        tournament = organized_tournament(request, slug)
        params = InvitationRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        data = params.validated_data
        stage = None
        if "stage" in data:
            stage = tournament.stages.filter(pk=data["stage"]).first()
            if stage is None:
                raise NotFound(
                    _("%(name)s has no stage %(id)s.")
                    % {"name": tournament.name, "id": data["stage"]}
                )
        invitation = services.invite(
            request.user,
            tournament,
            email=data["email"],
            role=data["role"],
            stage=stage,
            group_number=data.get("group"),
        )
        return Response(InvitationSerializer(invitation).data, status=status.HTTP_201_CREATED)


class EntrantLinkView(APIView):
    """Link an entry to a player's account by user name, or unlink it with '' (organizers)."""

    @extend_schema(
        request=EntrantLinkRequestSerializer,
        responses={200: EntrantLinkSerializer, **error_responses(400, 403, 404)},
    )
    def post(self, request, slug: str) -> Response:
        tournament = organized_tournament(request, slug)
        params = EntrantLinkRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        code, username = params.validated_data["entrant"], params.validated_data["username"]
        entrant = get_object_or_404(Entrant, tournament=tournament, code=code)
        player = None
        if username.strip():
            users = get_user_model().objects.filter(is_active=True)
            player = users.filter(username=username.strip()).first()
            if player is None:
                raise serializers.ValidationError(
                    {"username": _("There is no user %(name)r.") % {"name": username}}
                )
        entrant = services.link_entrant(request.user, entrant, player)
        return Response({"entrant": entrant.code, "username": player.username if player else ""})


class TournamentClaimLinksView(APIView):
    """E-mail claim links to the given entries that have an address and no account yet, one
    e-mail per address (organizers)."""

    @extend_schema(
        request=ClaimLinksRequestSerializer,
        responses={202: SentSerializer, **error_responses(400, 403, 404)},
    )
    def post(self, request, slug: str) -> Response:
        tournament = organized_tournament(request, slug)
        params = ClaimLinksRequestSerializer(data=request.data)
        params.is_valid(raise_exception=True)
        codes = set(params.validated_data["entrants"])
        entrants = list(Entrant.objects.filter(tournament=tournament, code__in=codes))
        missing = codes - {e.code for e in entrants}
        if missing:
            raise NotFound(
                _("%(name)s has no entrant %(codes)s.")
                % {"name": tournament.name, "codes": ", ".join(sorted(missing))}
            )
        sent = services.send_claim_links(request.user, entrants)
        return Response({"sent": sent}, status=status.HTTP_202_ACCEPTED)


# ---------------------------------------------------------------------------
# A stage's TDs (organizers)
# ---------------------------------------------------------------------------

STAGE_ID = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The stage's id.")


class TdQuerySerializer(serializers.Serializer):
    dry_run = serializers.BooleanField(
        default=False,
        help_text="1: check the file and answer with what it would do; write nothing.",
    )


class TdCsvJsonSerializer(serializers.Serializer):
    csv = serializers.CharField(
        trim_whitespace=False, help_text="Lines group,email (a header row group,email is optional)."
    )


class TdCsvFileSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="The CSV file group,email (UTF-8).")


class GroupRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    number = serializers.IntegerField()


class TdSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="The name the TD shows others.")
    email = serializers.EmailField(allow_blank=True)


class GroupTdSerializer(GroupRefSerializer):
    td = TdSerializer(allow_null=True, help_text="null while the group has no TD.")
    invited = serializers.ListField(
        child=serializers.EmailField(), help_text="Addresses invited as its TD, not yet accepted."
    )


class TdRowSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="The row's line in the file.")
    group = GroupRefSerializer()
    email = serializers.EmailField()
    action = serializers.ChoiceField(
        choices=[services.TdAction.ASSIGN, services.TdAction.UNCHANGED, services.TdAction.INVITE],
        help_text="assign: the account with this address becomes the TD; unchanged: it is the "
        "TD already; invite: no account has the address, an invitation is e-mailed.",
    )
    td = TdSerializer(allow_null=True, help_text="The account with the address; null to invite.")


class TdPlanSerializer(serializers.Serializer):
    dry_run = serializers.BooleanField(help_text="true: nothing was written.")
    assigned = serializers.IntegerField()
    invited = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    rows = TdRowSerializer(many=True, help_text="In group order.")


def _group_ref(group: Group) -> dict:
    return {
        "id": group.pk,
        "url": reverse("api-group-detail", args=[group.pk]),
        "number": group.number,
    }


def _td(user: User | None) -> dict | None:
    if user is None:
        return None
    return {"id": user.pk, "name": td_name(user), "email": user.email}


def _plan(plan: services.TdPlan, dry_run: bool) -> dict:
    return {
        "dry_run": dry_run,
        "assigned": plan.assigned,
        "invited": plan.invited,
        "unchanged": plan.unchanged,
        "rows": [
            {
                "line": row.line,
                "group": _group_ref(row.group),
                "email": row.email,
                "action": row.action,
                "td": _td(row.account),
            }
            for row in plan.rows
        ],
    }


def td_csv_text(request) -> str:
    """The CSV of a request: a text/csv body, a multipart file field ``file``, or
    ``{"csv": "..."}``."""
    return request_csv_text(request, TdCsvJsonSerializer)


class StageTdsView(APIView):
    """Every group of the stage with its TD (GET), or name many TDs at once from a CSV
    ``group,email`` (POST): an account with the address becomes the group's TD, any other
    address is invited as its TD by e-mail. All rows or none: every bad row (an unknown group,
    a bad address) is listed in ``details`` and nothing changes. ``?dry_run=1`` only checks
    the file. Organizers."""

    parser_classes = [CsvParser, JsonParser, MultiPartParser]

    @extend_schema(
        parameters=[STAGE_ID],
        responses={200: GroupTdSerializer(many=True), **error_responses(403, 404)},
    )
    def get(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        invited: dict[int, list[str]] = {}
        for number, email in (
            Invitation.objects.filter(
                stage=stage, role=Invitation.Role.TD, accepted_at__isnull=True
            )
            .order_by("created_at")
            .values_list("group_number", "email")
        ):
            if number is None:  # never: a TD's invitation names its group
                continue
            invited.setdefault(number, [])
            if email not in invited[number]:
                invited[number].append(email)
        groups = Group.objects.filter(stage=stage).select_related("td__profile").order_by("number")
        data = [
            {**_group_ref(g), "td": _td(g.td), "invited": invited.get(g.number, [])} for g in groups
        ]
        return Response(GroupTdSerializer(data, many=True).data)

    @extend_schema(
        parameters=[STAGE_ID, TdQuerySerializer],
        request={
            "text/csv": OpenApiTypes.STR,
            "application/json": TdCsvJsonSerializer,
            "multipart/form-data": TdCsvFileSerializer,
        },
        responses={200: TdPlanSerializer, **error_responses(400, 403, 404)},
    )
    def post(self, request, pk: int) -> Response:
        stage = stage_for_action(request, pk)
        query = TdQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        dry_run = query.validated_data["dry_run"]
        text = td_csv_text(request)
        if dry_run:
            plan = services.preview_tds(request.user, stage, text)
        else:
            plan = services.assign_tds(request.user, stage, text)
        return Response(TdPlanSerializer(_plan(plan, dry_run)).data)


# ---------------------------------------------------------------------------
# Who may create tournaments (staff)
# ---------------------------------------------------------------------------


class OrganizerSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The account's id.")
    url = serializers.CharField()
    username = serializers.CharField()
    display_name = serializers.CharField(help_text="The name the account shows others.")
    email = serializers.EmailField(allow_blank=True)
    holds = serializers.BooleanField(help_text="The account may create tournaments.")
    direct = serializers.BooleanField(
        help_text="Granted to the account itself (DELETE takes it away); false when the right "
        "comes from a group or a superuser account only."
    )


def _organizer(right: services.OrganizerRight) -> dict:
    account = right.account
    return {
        "id": account.pk,
        "url": reverse("api-organizer", args=[account.pk]),
        "username": account.get_username(),
        "display_name": display_name(account),
        "email": account.email,
        "holds": right.holds,
        "direct": right.direct,
    }


def _require_staff(request) -> None:
    if not request.user.is_staff:
        raise PermissionDenied(_("Only staff may see and change who may create tournaments."))


class OrganizerListView(generics.GenericAPIView):
    """The accounts that may create tournaments (the permission ``stages.add_tournament``,
    granted to them, through a group, or as superusers); staff."""

    permission_classes = [IsAuthenticated]
    queryset = get_user_model().objects.none()  # for introspection
    serializer_class = OrganizerSerializer

    @extend_schema(responses={200: OrganizerSerializer(many=True), **error_responses(403)})
    def get(self, request) -> Response:
        _require_staff(request)
        holders = services.organizer_right_holders().select_related("profile").order_by("username")
        page = self.paginate_queryset(holders)
        assert page is not None  # every list of the API is paginated
        rights = services.organizer_rights(page)
        return self.get_paginated_response(
            OrganizerSerializer([_organizer(rights[a.pk]) for a in page], many=True).data
        )


USER_ID = OpenApiParameter("user_id", int, OpenApiParameter.PATH, description="The account's id.")


class OrganizerView(APIView):
    """One account's right to create tournaments: GET shows it, PUT grants it, DELETE takes
    it away (a right held through a group or as a superuser stays: ``holds`` says so).
    Staff; audited."""

    permission_classes = [IsAuthenticated]

    def _account(self, request, user_id: int):
        _require_staff(request)
        account = get_user_model().objects.filter(pk=user_id).first()
        if account is None:
            raise NotFound(_("There is no account %(id)s.") % {"id": user_id})
        return account

    @extend_schema(
        parameters=[USER_ID], responses={200: OrganizerSerializer, **error_responses(403, 404)}
    )
    def get(self, request, user_id: int) -> Response:
        account = self._account(request, user_id)
        return Response(OrganizerSerializer(_organizer(services.organizer_right(account))).data)

    @extend_schema(
        parameters=[USER_ID],
        request=None,
        responses={200: OrganizerSerializer, **error_responses(403, 404, 409)},
    )
    def put(self, request, user_id: int) -> Response:
        account = self._account(request, user_id)
        right = services.grant_organizer_right(request.user, account)
        return Response(OrganizerSerializer(_organizer(right)).data)

    @extend_schema(
        parameters=[USER_ID],
        request=None,
        responses={200: OrganizerSerializer, **error_responses(403, 404)},
    )
    def delete(self, request, user_id: int) -> Response:
        account = self._account(request, user_id)
        right = services.revoke_organizer_right(request.user, account)
        return Response(OrganizerSerializer(_organizer(right)).data)
