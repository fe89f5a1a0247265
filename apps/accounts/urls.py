"""Page routes of the accounts app (included by ``config/web_urls.py``)."""

from django.contrib.auth import views as auth_views
from django.urls import path

from apps.stages.pages import STAGE

from . import views

urlpatterns = [
    path("accounts/login/", views.SignInView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="logout"),
    path("accounts/password-reset/", views.PasswordResetView.as_view(), name="password_reset"),
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
    path("accounts/invitation/<str:token>/", views.invitation, name="invitation"),
    path("accounts/claim/", views.claim_request, name="claim-request"),
    path("accounts/claim/<str:token>/", views.claim, name="claim"),
    path("accounts/claim/<str:token>/not-me/", views.claim_refuse, name="claim-refuse"),
    path("me/", views.me, name="me"),
    path("me/name/", views.me_name, name="me-name"),
    path("me/td/", views.td_dashboard, name="me-td"),
    path("me/token/", views.api_token, name="me-token"),
    path("t/<slug:slug>/invitations/", views.invitations, name="tournament-invitations"),
    path(STAGE + "tds/", views.stage_tds, name="stage-tds"),
    path(STAGE + "tds/group/", views.stage_td_group, name="stage-tds-group"),
    path("staff/organizers/", views.staff_organizers, name="staff-organizers"),
    path("staff/organizers/<id:user_id>/", views.staff_organizer, name="staff-organizer"),
]
