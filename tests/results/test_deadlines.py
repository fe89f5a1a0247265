"""Dates and deadlines run themselves: the end of play sends the open games to adjudication
(as the system, once), players with unfinished games get one reminder before the end, and the
TD's results page and "my games" show the days left."""

from datetime import timedelta

import pytest
from django.core import mail
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.groups.models import Game
from apps.notifications import tasks as notification_tasks
from apps.notifications.services import update_preferences
from apps.results import closing
from apps.results import tasks as results_tasks
from apps.stages.models import Stage
from tests.worlds.published import build_world


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    world = build_world(django_capture_on_commit_callbacks)
    mail.outbox.clear()  # the start lists
    return world


def _ends_in(world, days: int | None) -> None:
    ends_on = None if days is None else timezone.localdate() + timedelta(days=days)
    Stage.objects.filter(pk=world.stage.pk).update(play_ends_on=ends_on)
    world.stage.refresh_from_db()


def _sent_to_adjudication():
    return AuditEvent.objects.filter(action=Action.STAGE_SENT_TO_ADJUDICATION)


# ---------------------------------------------------------------------------
# The end of play adjudicates by itself
# ---------------------------------------------------------------------------


def test_a_stage_whose_play_ended_goes_to_adjudication_once_as_the_system(world):
    _ends_in(world, -1)
    open_games = Game.objects.filter(group__stage=world.stage, result="").count()

    assert results_tasks.adjudicate_due_stages.delay().get() == [world.stage.pk]

    world.stage.refresh_from_db()
    requested = world.stage.adjudication_requested_at
    assert requested is not None
    event = _sent_to_adjudication().get()
    assert event.actor is None and event.stage_id == world.stage.pk
    assert event.data == {"games": open_games, "automatic": True}

    # Run again (the next night, or twice at once): nothing more happens.
    assert closing.adjudicate_due_stages() == []
    assert closing.adjudicate_due_stages(timezone.localdate() + timedelta(days=5)) == []
    world.stage.refresh_from_db()
    assert world.stage.adjudication_requested_at == requested
    assert _sent_to_adjudication().count() == 1


@pytest.mark.parametrize("days", [None, 0, 3])
def test_a_stage_still_in_play_or_without_an_end_date_is_left_alone(world, days):
    _ends_in(world, days)

    assert closing.adjudicate_due_stages() == []

    world.stage.refresh_from_db()
    assert world.stage.adjudication_requested_at is None
    assert not _sent_to_adjudication().exists()


def test_a_stage_whose_games_all_have_results_is_left_alone(world):
    _ends_in(world, -1)
    Game.objects.filter(group__stage=world.stage).update(result="1-0")

    assert closing.adjudicate_due_stages() == []
    assert not _sent_to_adjudication().exists()


def test_the_button_and_the_automatic_path_share_the_event(world):
    _ends_in(world, -1)

    closing.send_to_adjudication(world.users["organizer"], world.stage)

    event = _sent_to_adjudication().get()
    assert event.actor == world.users["organizer"] and event.data["automatic"] is False
    # The organizer was first: the night's run has nothing left to do.
    assert closing.adjudicate_due_stages() == []
    assert _sent_to_adjudication().count() == 1


# ---------------------------------------------------------------------------
# One reminder before the end
# ---------------------------------------------------------------------------


def _open_players(stage) -> set[str]:
    games = Game.objects.filter(group__stage=stage, result="").select_related("white", "black")
    return {e.email for g in games for e in (g.white, g.black)}


def test_players_with_unfinished_games_get_one_reminder(world):
    player = world.player_entrant
    Game.objects.filter(Q(white=player) | Q(black=player)).update(result="1-0")
    _ends_in(world, 3)
    expected = _open_players(world.stage)
    assert expected and player.email not in expected

    notification_tasks.send_deadline_reminders.delay()

    assert sorted(m.to[0] for m in mail.outbox) == sorted(expected)
    reminder = next(m for m in mail.outbox if m.to == [world.rival_entrant.email])
    assert "3 days left" in reminder.subject
    assert "3 days left in Accounts Cup" in reminder.body
    rival_games = Game.objects.filter(
        Q(white=world.rival_entrant) | Q(black=world.rival_entrant), result=""
    )
    for game in rival_games:
        assert f"{game.white.name} – {game.black.name}" in reminder.body

    # Run again, the same day or the next: nobody hears twice.
    notification_tasks.send_deadline_reminders.delay()
    tomorrow = (timezone.localdate() + timedelta(days=1)).isoformat()
    notification_tasks.send_deadline_reminders.delay(tomorrow)
    assert len(mail.outbox) == len(expected)


def test_no_reminder_too_early_after_the_end_or_when_turned_off(world, settings):
    _ends_in(world, 8)
    notification_tasks.send_deadline_reminders.delay()
    assert mail.outbox == []

    _ends_in(world, -1)
    notification_tasks.send_deadline_reminders.delay()
    assert mail.outbox == []

    settings.DEADLINE_REMINDER_DAYS = 10
    _ends_in(world, 8)
    update_preferences(world.users["rival"], result=False)
    notification_tasks.send_deadline_reminders.delay()
    sent_to = {m.to[0] for m in mail.outbox}
    assert world.player_entrant.email in sent_to
    assert world.rival_entrant.email not in sent_to


# ---------------------------------------------------------------------------
# Days left shown
# ---------------------------------------------------------------------------


def _results_page(client, world):
    client.force_login(world.users["td"])
    group = world.group
    url = reverse("group-results", args=[world.tournament.slug, world.stage.order, group.number])
    return client.get(url).content.decode()


def _me_page(client, world):
    client.force_login(world.users["player"])
    return client.get(reverse("me")).content.decode()


def test_days_left_on_the_td_page_and_on_my_games(client, world):
    assert "Play end" not in _results_page(client, world)
    assert "Play end" not in _me_page(client, world)

    _ends_in(world, 3)
    for page in (_results_page(client, world), _me_page(client, world)):
        assert "Play ends on" in page and "(3 days left)" in page

    _ends_in(world, -2)
    for page in (_results_page(client, world), _me_page(client, world)):
        assert "Play ended on" in page and "days left" not in page
