"""When a Swiss round (2 and later) is paired, each player with an address gets their pairing:
the round, the opponent with colour and contact, the game's page — or word of their bye. Once
each, however often the task runs; never to a player who turned start lists off."""

import pytest
from django.core import mail
from django.db.models import Q
from django.urls import reverse

from apps.entrants.models import Entrant
from apps.groups.models import Game, SwissBye
from apps.notifications import services, tasks
from apps.notifications.models import Kind, SentNotification
from apps.notifications.services import update_preferences
from apps.office.swiss.pairing import pair_next_round, start_next_round
from apps.office.swiss.state import swiss_state
from tests.office.conftest import user
from tests.office.test_swiss import drawn_and_published, play_round, swiss_stage
from tests.worlds.published import make_user

COUNT = 9  # odd: every round has a bye


def contact(entrant) -> str:
    """The opponent's line as the e-mail gives it."""
    rating = f", {entrant.rating}" if entrant.rating else ""
    return f"{entrant.name} ({entrant.code}, {entrant.nation}{rating}) {entrant.email or '–'}"


@pytest.fixture
def organizer(db):
    return user("swissorg")


@pytest.fixture
def round_one(organizer, django_capture_on_commit_callbacks, settings):
    """A published Swiss of nine (the invented players' example.org addresses delivered),
    round 1 played, the start lists' e-mails cleared."""
    settings.NOTIFICATIONS_SKIP_DOMAINS = []
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=COUNT, rounds=3), django_capture_on_commit_callbacks
    )
    play_round(organizer, stage, 1)
    mail.outbox.clear()
    return stage


def pair_round_two(organizer, stage, capture):
    with capture(execute=True):
        assert start_next_round(organizer, stage) == 2
    assert swiss_state(stage).paired == 2


def test_pairing_round_two_sends_each_player_their_pairing_once(
    organizer,
    round_one,
    django_capture_on_commit_callbacks,
):
    stage = round_one
    group = stage.groups.get()
    pair_round_two(organizer, stage, django_capture_on_commit_callbacks)

    entrants = {e.pk: e for e in Entrant.objects.filter(seats__group=group)}
    assert len(mail.outbox) == COUNT
    assert sorted(m.to[0] for m in mail.outbox) == sorted(e.email for e in entrants.values())
    by_address = {m.to[0]: m for m in mail.outbox}
    assert all(m.subject == "Swiss Cup, Final: your pairing in round 2" for m in mail.outbox), (
        mail.outbox[0].subject
    )

    bye = SwissBye.objects.get(group=group, round=2)
    bye_mail = by_address[bye.entrant.email]
    assert "round 2 of Swiss Cup (Final) is paired." in bye_mail.body
    assert "You have the bye in round 2" in bye_mail.body
    assert "against" not in bye_mail.body

    games = Game.objects.filter(group=group, round=2).select_related("white", "black")
    assert games.count() == COUNT // 2
    for game in games:
        url = reverse("game", args=["swiss-cup", stage.order, group.number, game.number])
        for me, them, colour in (
            (game.white, game.black, "White"),
            (game.black, game.white, "Black"),
        ):
            body = by_address[me.email].body
            assert f"You play {colour} against:" in body
            assert contact(them) in body
            assert url in body
            assert "bye" not in body

    keys = set(SentNotification.objects.values_list("kind", "key"))
    assert (Kind.START_LIST, services.round_key(stage.pk, 2, bye.entrant_id)) in keys

    # a redelivered task, and a repeated pairing of the same round, send nothing more
    assert tasks.swiss_round_paired.delay(stage.pk, 2).get() == 0
    with django_capture_on_commit_callbacks(execute=True):
        assert not pair_next_round(organizer, stage, 2).created
    assert len(mail.outbox) == COUNT


def test_round_one_sends_no_pairing_e_mail(round_one):
    # round 1's pairing went out with the start lists
    assert services.swiss_round_messages(round_one.pk, 1) == []
    assert tasks.swiss_round_paired.delay(round_one.pk, 1).get() == 0


def test_players_who_turned_start_lists_off_or_have_no_address_get_none(
    organizer,
    round_one,
    django_capture_on_commit_callbacks,
):
    stage = round_one
    players = list(Entrant.objects.filter(seats__group__stage=stage).order_by("code"))
    quiet, silent = players[0], players[-1]
    account = make_user("quiet")
    quiet.user = account
    quiet.save()
    update_preferences(account, start_list=False)
    silent.email = ""
    silent.save()

    pair_round_two(organizer, stage, django_capture_on_commit_callbacks)

    sent_to = {m.to[0] for m in mail.outbox}
    assert len(mail.outbox) == COUNT - 2
    assert quiet.email not in sent_to and account.email not in sent_to
    assert not SentNotification.objects.filter(
        key=services.round_key(stage.pk, 2, quiet.pk)
    ).exists()
    assert (
        SentNotification.objects.filter(key__startswith=f"round:{stage.pk}:2:").count() == COUNT - 2
    )
    # their opponents still get theirs, with the contact the start list gives ("–": none)
    game = Game.objects.get(Q(white=silent) | Q(black=silent), group__stage=stage, round=2)
    opponent = game.black if game.white_id == silent.pk else game.white
    assert opponent.pk != quiet.pk
    body = next(m.body for m in mail.outbox if m.to == [opponent.email])
    assert contact(silent) in body and contact(silent).endswith(" –")
