"""The e-mails of registration by players: after each change of a request (registered,
moved up from the reserve list, approved, rejected, withdrawn) its player is told the new
state at the request's contact address. Each message's key is the change's audit event, so a
task run twice sends it once (``apps.notifications.delivery``)."""

from __future__ import annotations

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
