"""The e-mails of reported results: the opponent of a new report is asked to confirm or
dispute it; a dispute goes to the reporter and the group's TD. (A result that stands sends
the usual result e-mails, from ``services.set_result``.) Each message has its key, so a task
run twice sends it once (``apps.notifications.delivery``)."""

from __future__ import annotations

from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.people import td_name
from apps.core.results import Result
from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.notifications.delivery import Message, absolute_url, deliverable
from apps.notifications.models import Kind
from apps.notifications.services import entrant_recipients, in_site_language, way_in

from .models import ResultReport

# Reports follow the "results of my games" preference, as deadline reminders do.
PREFERENCE = Kind.RESULT


def game_page(game: Game) -> str:
    stage = game.group.stage
    return reverse(
        "game", args=[stage.tournament.slug, stage.order, game.group.number, game.number]
    )


def _report(report_id: int) -> ResultReport:
    return ResultReport.objects.select_related(
        "game__group__stage__tournament", "game__group__td", "game__white", "game__black"
    ).get(pk=report_id)


def _context(report: ResultReport) -> dict:
    game = report.game
    group = game.group
    reporter = game.white if report.reporter_side == "white" else game.black
    opponent = game.black if report.reporter_side == "white" else game.white
    return {
        "report": report,
        "game": game,
        "group": group,
        "stage": group.stage,
        "tournament": group.stage.tournament,
        "reporter": reporter,
        "opponent": opponent,
        "result": Result.describe(report.result),
        "days": group.stage.report_accept_days,
        "game_url": absolute_url(game_page(game)),
        "me_url": absolute_url(reverse("me")),
        "preferences_url": absolute_url(reverse("me-notifications")),
    }


def _subject(context: dict, what: str) -> str:
    game = context["game"]
    return _(
        "%(what)s · %(tournament)s, %(stage)s, group %(number)s: %(white)s – %(black)s %(result)s"
    ) % {
        "what": what,
        "tournament": context["tournament"].name,
        "stage": context["stage"].get_kind_display(),
        "number": context["group"].number,
        "white": game.white.name,
        "black": game.black.name,
        "result": context["result"],
    }


@in_site_language
def report_messages(report_id: int) -> list[Message]:
    """The reporter's opponent, while the report awaits their answer."""
    report = _report(report_id)
    if report.status != ResultReport.Status.PENDING:
        return []
    context = _context(report)
    opponent = context["opponent"]
    found = entrant_recipients(PREFERENCE, Entrant.objects.filter(pk=opponent.pk))
    if opponent.pk not in found:
        return []
    return [
        Message(
            Kind.REPORT,
            f"report:{report.pk}",
            found[opponent.pk].address,
            _subject(context, _("Confirm a result")),
            render_to_string(
                "notifications/email/report.txt",
                {**context, **way_in(found[opponent.pk], game_page(report.game) + "#answer")},
            ),
        )
    ]


@in_site_language
def dispute_messages(report_id: int) -> list[Message]:
    """The reporter and the group's TD, once the opponent disputed the report."""
    report = _report(report_id)
    if report.status != ResultReport.Status.DISPUTED:
        return []
    context = _context(report)
    subject = _subject(context, _("Result disputed"))
    messages = []
    reporter = context["reporter"]
    found = entrant_recipients(PREFERENCE, Entrant.objects.filter(pk=reporter.pk))
    if reporter.pk in found:
        body = render_to_string(
            "notifications/email/report_disputed.txt",
            {**context, **way_in(found[reporter.pk], game_page(report.game))},
        )
        messages.append(
            Message(
                Kind.REPORT,
                f"report:{report.pk}:disputed",
                found[reporter.pk].address,
                subject,
                body,
            )
        )
    td = report.game.group.td
    if td is not None and deliverable(td.email or ""):
        body = render_to_string(
            "notifications/email/report_disputed.txt",
            {**context, "for_td": True, "td_name": td_name(td)},
        )
        messages.append(
            Message(Kind.REPORT, f"report:{report.pk}:disputed", td.email, subject, body)
        )
    return messages
