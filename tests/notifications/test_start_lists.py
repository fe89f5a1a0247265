"""When a draw is published every player with an address gets their start list: group,
seat, opponents with colours and contacts, the TD's contact — one task per group."""

import pytest
from django.core import mail

from apps.core.people import td_name
from apps.groups.models import Seat
from apps.notifications import tasks
from apps.notifications.models import SentNotification
from apps.notifications.services import update_preferences
from tests.worlds.published import build_world


def test_every_player_gets_one_start_list_with_opponents_colours_and_the_td(world):
    assert len(mail.outbox) == 24
    assert sorted(m.to[0] for m in mail.outbox) == sorted(
        world.emails(world.group) | world.emails(world.other_group)
    )
    mine = next(m for m in mail.outbox if m.to == [world.player_entrant.email])
    assert mine.subject == "Accounts Cup, Preliminary: your start list in group 1"
    assert "You play in group 1, seat 1." in mine.body
    for address in world.opponents_emails(world.player_entrant):
        assert address in mine.body
    assert mine.body.count("White  ") == 2 and mine.body.count("Black  ") == 2
    # The TD by their display name (none set: a neutral label), never their login name.
    td = world.users["td"]
    assert f"Tournament director: {td_name(td)} <td1@people.test>" in mine.body
    assert "td1 <" not in mine.body
    assert "/t/acc-cup/s/1/g/1/" in mine.body
    others = world.emails(world.other_group) - world.opponents_emails(world.player_entrant)
    assert not any(address in mine.body for address in others - {world.player_entrant.email})
    assert SentNotification.objects.filter(kind="start_list").count() == 24


def test_publishing_queues_one_task_per_group(world, never_run):
    queued = never_run(tasks.send_start_lists)
    assert tasks.draw_published(world.stage.pk) == 2
    assert sorted(queued) == sorted([world.group.pk, world.other_group.pk])


def test_a_repeated_task_sends_nothing_again(world):
    mail.outbox.clear()
    assert tasks.send_start_lists.delay(world.group.pk).get() == 0
    assert tasks.draw_published.delay(world.stage.pk).get() == 2
    assert mail.outbox == []


@pytest.mark.django_db
def test_no_start_list_for_players_who_turned_it_off_or_reserved_domains(
    django_capture_on_commit_callbacks, settings
):
    settings.NOTIFICATIONS_SKIP_DOMAINS = ["players.test"]
    world = build_world(django_capture_on_commit_callbacks)
    assert mail.outbox == []  # every address is at a skipped domain

    settings.NOTIFICATIONS_SKIP_DOMAINS = []
    update_preferences(world.users["player"], start_list=False)
    SentNotification.objects.all().delete()
    assert tasks.send_start_lists.delay(world.group.pk).get() == 11
    assert world.player_entrant.email not in {m.to[0] for m in mail.outbox}


@pytest.mark.django_db
def test_an_entry_without_address_uses_its_account_address(django_capture_on_commit_callbacks):
    world = build_world(django_capture_on_commit_callbacks)
    mail.outbox.clear()
    SentNotification.objects.all().delete()
    seat = Seat.objects.get(group=world.group, number=1)
    seat.entrant.email = ""
    seat.entrant.save()
    tasks.send_start_lists.delay(world.group.pk)
    assert "player@people.test" in {m.to[0] for m in mail.outbox}
