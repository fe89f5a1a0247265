"""The e-mails of registration by players: after each change of a request (registered,
moved up from the reserve list, approved, rejected, withdrawn) its player is told the new
state at the request's contact address; when a request arrives or a player withdraws one,
the tournament's organizers are told too, with a link to the requests page (and a sign-in
link that returns there). Each message's key is the change's audit event, so a
task run twice sends it once (``apps.notifications.delivery``)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.notifications.delivery import Message, absolute_url, deliverable
from apps.notifications.models import Kind
from apps.notifications.services import in_site_language

from .models import Registration
from .registrations import reserve_place


@in_site_language
def registration_messages(registration_id: int, event_id: int) -> list[Message]:
    """The message telling the player of request ``registration_id`` about change
    ``event_id`` (none when the address takes no e-mail)."""
    registration = (
        Registration.objects.select_related("stage__tournament").filter(pk=registration_id).first()
    )
    event = AuditEvent.objects.filter(pk=event_id).first()
    if registration is None or event is None or not deliverable(registration.email):
        return []
    stage = registration.stage
    status = event.data.get("status", registration.status)
    context = {
        "registration": registration,
        "stage": stage,
        "tournament": stage.tournament,
        "status": status,
        "status_display": Registration.Status(status).label,
        "moved_up": event.action == Action.PLAYER_REGISTRATION_MOVED_UP,
        "reason": event.data.get("reason", ""),
        "reserve_place": reserve_place(registration) if status == registration.status else None,
        "mine_url": absolute_url(reverse("my-registrations")),
    }
    subject = _("Your registration · %(tournament)s, %(stage)s: %(status)s") % {
        "tournament": stage.tournament.name,
        "stage": stage.get_kind_display(),
        "status": context["status_display"],
    }
    body = render_to_string("players/email/registration.txt", context)
    return [
        Message(
            Kind.REGISTRATION,
            f"registration:{registration.pk}:{event_id}",
            registration.email,
            subject,
            body,
        )
    ]


# The changes the organizers hear of: the players' own (their decisions they know already).
ORGANIZER_CHANGES = (Action.PLAYER_REGISTERED, Action.PLAYER_REGISTRATION_WITHDRAWN)


@in_site_language
def organizer_messages(registration_id: int, event_id: int) -> list[Message]:
    """One e-mail to each organizer of the tournament (active, a deliverable address) when
    the change ``event_id`` is a request arriving or withdrawn: who, the state, the places
    taken, and the way to the requests page. Sent whatever their preferences: it is work for
    them, like a round's deadline."""
    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None or event.action not in ORGANIZER_CHANGES:
        return []
    registration = (
        Registration.objects.select_related("stage__tournament").filter(pk=registration_id).first()
    )
    if registration is None:
        return []
    stage = registration.stage
    tournament = stage.tournament
    addresses = list(
        dict.fromkeys(
            person.email.strip().lower()
            for person in tournament.organizers.filter(is_active=True).order_by("pk")
            if deliverable(person.email.strip())
        )
    )
    if not addresses:
        return []
    path = reverse("stage-registrations", args=[tournament.slug, stage.order])
    status = event.data.get("status", registration.status)
    arrived = event.action == Action.PLAYER_REGISTERED
    context = {
        "registration": registration,
        "stage": stage,
        "tournament": tournament,
        "arrived": arrived,
        "status_display": Registration.Status(status).label,
        "was": event.data.get("was", ""),
        "requests_url": absolute_url(path),
        "sign_in_url": absolute_url(f"{reverse('login')}?{urlencode({'next': path})}"),
    }
    subject = (
        _("New registration request · %(tournament)s, %(stage)s: %(name)s")
        if arrived
        else _("Registration withdrawn · %(tournament)s, %(stage)s: %(name)s")
    ) % {
        "tournament": tournament.name,
        "stage": stage.get_kind_display(),
        "name": registration.name,
    }
    body = render_to_string("players/email/registration_organizer.txt", context)
    key = f"registration-organizer:{registration.pk}:{event_id}"
    return [Message(Kind.REGISTRATION, key, address, subject, body) for address in addresses]
