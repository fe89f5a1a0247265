"""REST API routes (mounted at /api/); the schema is at /api/schema/, the docs at /api/docs/."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularRedocView
from rest_framework.routers import SimpleRouter

from apps.core.api import EndpointNotFoundView
from apps.entrants.api import EntrantImportView, StageEntrantCsvView, StageEntrantListView
from apps.groups.api import GroupViewSet, PlayerSearchView
from apps.stages.api import (
    CloseRegistrationView,
    DrawJobProgressView,
    DrawView,
    PublishView,
    ReopenRegistrationView,
    StageViewSet,
    TournamentViewSet,
)

router = SimpleRouter()
router.register("tournaments", TournamentViewSet, basename="api-tournament")
router.register("stages", StageViewSet, basename="api-stage")
router.register("groups", GroupViewSet, basename="api-group")

urlpatterns = [
    *router.urls,
    path(
        "stages/<int:pk>/entrants/",
        StageEntrantListView.as_view(),
        name="api-stage-entrants",
    ),
    path(
        "stages/<int:pk>/entrants.csv",
        StageEntrantCsvView.as_view(),
        name="api-stage-entrants-csv",
    ),
    path(
        "stages/<int:pk>/entrants/import/",
        EntrantImportView.as_view(),
        name="api-stage-entrants-import",
    ),
    path(
        "stages/<int:pk>/close-registration/",
        CloseRegistrationView.as_view(),
        name="api-stage-close-registration",
    ),
    path(
        "stages/<int:pk>/reopen-registration/",
        ReopenRegistrationView.as_view(),
        name="api-stage-reopen-registration",
    ),
    path("stages/<int:pk>/draw/", DrawView.as_view(), name="api-stage-draw"),
    path("stages/<int:pk>/publish/", PublishView.as_view(), name="api-stage-publish"),
    path("draw-jobs/<int:pk>/", DrawJobProgressView.as_view(), name="api-draw-job"),
    path("players/", PlayerSearchView.as_view(), name="api-players"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
    # Last: any other /api/ address answers 404 in the API's error format.
    re_path(r"^", EndpointNotFoundView.as_view(), name="api-not-found"),
]

# Results and standings, inserted before the catch-all above (which must stay last).
from apps.results.api import (  # noqa: E402
    GameResultView,
    GameView,
    GroupDirectorView,
    WithdrawalView,
)
from apps.standings.api import (  # noqa: E402
    GroupCrosstableView,
    GroupStandingsView,
    StageRankingView,
)

urlpatterns[-1:-1] = [
    path("games/<int:pk>/", GameView.as_view(), name="api-game"),
    path("games/<int:pk>/result/", GameResultView.as_view(), name="api-game-result"),
    path("groups/<int:pk>/td/", GroupDirectorView.as_view(), name="api-group-td"),
    path("groups/<int:pk>/standings/", GroupStandingsView.as_view(), name="api-group-standings"),
    path(
        "groups/<int:pk>/crosstable/",
        GroupCrosstableView.as_view(),
        name="api-group-crosstable",
    ),
    path("stages/<int:pk>/ranking/", StageRankingView.as_view(), name="api-stage-ranking"),
    path("stages/<int:pk>/withdrawals/", WithdrawalView.as_view(), name="api-stage-withdrawals"),
]

# The end of a stage: closing and qualification (before the catch-all too).
from apps.qualification.api import (  # noqa: E402
    AdjudicationView,
    CloseGroupView,
    CloseStageView,
    ConfirmView,
    DeclineView,
    PrequalifiedView,
    QualificationRuleView,
    QualificationView,
    ReopenGroupView,
)

urlpatterns[-1:-1] = [
    path("stages/<int:pk>/close/", CloseStageView.as_view(), name="api-stage-close"),
    path(
        "stages/<int:pk>/adjudication/",
        AdjudicationView.as_view(),
        name="api-stage-adjudication",
    ),
    path(
        "stages/<int:pk>/qualification/",
        QualificationView.as_view(),
        name="api-stage-qualification",
    ),
    path(
        "stages/<int:pk>/qualification/rule/",
        QualificationRuleView.as_view(),
        name="api-stage-qualification-rule",
    ),
    path(
        "stages/<int:pk>/qualification/prequalified/",
        PrequalifiedView.as_view(),
        name="api-stage-qualification-prequalified",
    ),
    path(
        "stages/<int:pk>/qualification/declined/",
        DeclineView.as_view(),
        name="api-stage-qualification-declined",
    ),
    path(
        "stages/<int:pk>/qualification/confirm/",
        ConfirmView.as_view(),
        name="api-stage-qualification-confirm",
    ),
    path("groups/<int:pk>/close/", CloseGroupView.as_view(), name="api-group-close"),
    path("groups/<int:pk>/reopen/", ReopenGroupView.as_view(), name="api-group-reopen"),
]

# Accounts: tokens, "my games", invitations, entries and their players; e-mail preferences.
# Inserted before the catch-all, which must stay last.
from apps.accounts.api import (  # noqa: E402
    AcceptInvitationView,
    ClaimLinkRequestView,
    ClaimView,
    EntrantLinkView,
    MeView,
    ObtainTokenView,
    TournamentClaimLinksView,
    TournamentInvitationsView,
)
from apps.notifications.api import PreferencesView  # noqa: E402

urlpatterns[-1:-1] = [
    path("auth/token/", ObtainTokenView.as_view(), name="api-auth-token"),
    path("auth/claim-links/", ClaimLinkRequestView.as_view(), name="api-auth-claim-links"),
    path("me/", MeView.as_view(), name="api-me"),
    path("me/claims/", ClaimView.as_view(), name="api-me-claims"),
    path("me/notifications/", PreferencesView.as_view(), name="api-me-notifications"),
    path("invitations/accept/", AcceptInvitationView.as_view(), name="api-invitations-accept"),
    path(
        "tournaments/<slug:slug>/invitations/",
        TournamentInvitationsView.as_view(),
        name="api-tournament-invitations",
    ),
    path(
        "tournaments/<slug:slug>/entrant-links/",
        EntrantLinkView.as_view(),
        name="api-tournament-entrant-links",
    ),
    path(
        "tournaments/<slug:slug>/claim-links/",
        TournamentClaimLinksView.as_view(),
        name="api-tournament-claim-links",
    ),
]
