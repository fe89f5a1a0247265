"""HTML page routes."""

from django.contrib.auth import views as auth_views
from django.urls import path

from apps.accounts import views as accounts
from apps.entrants import views as entrants
from apps.groups import views as groups
from apps.stages import views as stages

STAGE = "t/<slug:slug>/s/<int:order>/"

urlpatterns = [
    path("", stages.home, name="home"),
    path("accounts/login/", accounts.SignInView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="logout"),
    path("t/<slug:slug>/", stages.tournament, name="tournament"),
    path("t/<slug:slug>/find/", groups.find_player, name="find-player"),
    path(STAGE, stages.stage, name="stage"),
    path(STAGE + "g/<int:number>/", groups.group, name="group"),
    path(STAGE + "manage/", stages.manage, name="stage-manage"),
    path(STAGE + "close/", stages.close, name="stage-close"),
    path(STAGE + "reopen/", stages.reopen, name="stage-reopen"),
    path(STAGE + "draw/", stages.draw, name="stage-draw"),
    path(STAGE + "draw/<int:job_id>/", stages.draw_progress, name="draw-progress"),
    path(STAGE + "publish/", stages.publish, name="stage-publish"),
    path(STAGE + "import/", entrants.import_preview, name="stage-import"),
    path(STAGE + "import/confirm/", entrants.import_confirm, name="stage-import-confirm"),
    path(STAGE + "entrants.csv", entrants.export_csv, name="stage-entrants-csv"),
    path(STAGE + "files/<str:name>", stages.published_file, name="stage-file"),
]

# Results and standings of groups and stages.
from apps.results import views as results  # noqa: E402
from apps.standings import views as standings  # noqa: E402

GROUP = STAGE + "g/<int:number>/"

urlpatterns += [
    path(GROUP + "td/", results.director, name="group-td"),
    path(GROUP + "results/", results.results, name="group-results"),
    path(GROUP + "results/game/<int:game_number>/", results.game_result, name="game-result"),
    path(GROUP + "results/withdraw/", results.withdraw, name="group-withdraw"),
    path(GROUP + "standings/", standings.group_standings, name="group-standings"),
    path(GROUP + "crosstable/", standings.group_crosstable, name="group-crosstable"),
    path(GROUP + "standings.csv", standings.group_standings_csv, name="group-standings-csv"),
    path(GROUP + "crosstable.csv", standings.group_crosstable_csv, name="group-crosstable-csv"),
    path(GROUP + "group.trf", standings.group_trf_file, name="group-trf"),
    path(STAGE + "ranking/", standings.stage_ranking_page, name="stage-ranking"),
    path(STAGE + "ranking.csv", standings.stage_ranking_csv, name="stage-ranking-csv"),
]

# The end of a stage: closing, qualification.
from apps.qualification import views as qualification  # noqa: E402

urlpatterns += [
    path(GROUP + "close/", qualification.group_close, name="group-close"),
    path(GROUP + "reopen/", qualification.group_reopen, name="group-reopen"),
    path(STAGE + "finish/", qualification.stage_finish, name="stage-finish"),
    path(STAGE + "adjudication/", qualification.stage_adjudication, name="stage-adjudication"),
    path(STAGE + "qualification/", qualification.qualification, name="stage-qualification"),
    path(
        STAGE + "qualification.csv",
        qualification.qualification_csv,
        name="stage-qualification-csv",
    ),
    path(
        STAGE + "qualification/rule/",
        qualification.qualification_rule,
        name="stage-qualification-rule",
    ),
    path(
        STAGE + "qualification/prequalify/",
        qualification.qualification_prequalify,
        name="stage-qualification-prequalify",
    ),
    path(
        STAGE + "qualification/decline/",
        qualification.qualification_decline,
        name="stage-qualification-decline",
    ),
    path(
        STAGE + "qualification/confirm/",
        qualification.qualification_confirm,
        name="stage-qualification-confirm",
    ),
]

# Accounts: password reset, invitations, claiming an entry, "my games", e-mail preferences.
from apps.notifications import views as notifications  # noqa: E402

urlpatterns += [
    path("accounts/password-reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path(
        "accounts/password-reset/sent/",
        auth_views.PasswordResetDoneView.as_view(),
        name="password_reset_done",
    ),
    path(
        "accounts/reset/<uidb64>/<token>/",
        auth_views.PasswordResetConfirmView.as_view(),
        name="password_reset_confirm",
    ),
    path(
        "accounts/reset/done/",
        auth_views.PasswordResetCompleteView.as_view(),
        name="password_reset_complete",
    ),
    path("accounts/invitation/<str:token>/", accounts.invitation, name="invitation"),
    path("accounts/claim/", accounts.claim_request, name="claim-request"),
    path("accounts/claim/<str:token>/", accounts.claim, name="claim"),
    path("me/", accounts.me, name="me"),
    path("me/notifications/", notifications.preferences, name="me-notifications"),
    path("me/token/", accounts.api_token, name="me-token"),
    path("t/<slug:slug>/invitations/", accounts.invitations, name="tournament-invitations"),
]
