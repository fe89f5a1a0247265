"""API routes of the accounts app (included under /api/ by ``config/api_urls.py``)."""

from django.urls import path

from .api import (
    AcceptInvitationView,
    ClaimLinkRequestView,
    ClaimView,
    EntrantLinkView,
    MeView,
    ObtainTokenView,
    OrganizerListView,
    OrganizerView,
    StageTdsView,
    TournamentClaimLinksView,
    TournamentInvitationsView,
)

urlpatterns = [
    path("auth/token/", ObtainTokenView.as_view(), name="api-auth-token"),
    path("auth/claim-links/", ClaimLinkRequestView.as_view(), name="api-auth-claim-links"),
    path("me/", MeView.as_view(), name="api-me"),
    path("me/claims/", ClaimView.as_view(), name="api-me-claims"),
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
    path("stages/<id:pk>/tds/", StageTdsView.as_view(), name="api-stage-tds"),
    path("organizers/", OrganizerListView.as_view(), name="api-organizers"),
    path("organizers/<id:user_id>/", OrganizerView.as_view(), name="api-organizer"),
]
