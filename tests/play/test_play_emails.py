"""The e-mails of games played here (apps/play/notices.py): an opponent's move at once or in
the day's digest (the player's choice among their e-mail preferences), each with the player's
way in; each e-mail once, however often its task runs."""

from __future__ import annotations

from datetime import timedelta

from apps.notifications.delivery import send_all
from apps.notifications.services import update_preferences
from apps.play import notices, tasks
from tests.play.clockworld import moved, world
from tests.worlds.play import START

__all__ = ["world"]

DAY = timedelta(days=1)


def test_the_player_to_move_hears_of_the_opponents_move_once(world, mailoutbox):
    played = moved(world, [START + timedelta(hours=5)])  # White's 1st move; Black to move
    mailoutbox.clear()
    assert tasks.move_made(played.pk, 1) == 1
    assert tasks.move_made(played.pk, 1) == 0  # a retried task sends nothing more
    [mail] = mailoutbox
    assert mail.to == [world.game.black.email]
    assert "played 1. Nf3" in mail.subject
    assert "/accounts/login/?next=" in mail.body  # signed out: sign in and come back
    assert f"/g/{world.group.number}/" in mail.body  # the game's page


def test_a_move_followed_by_another_is_not_announced(world, mailoutbox):
    played = moved(world, [START + timedelta(hours=5), START + timedelta(hours=6)])
    assert notices.move_messages(played.pk, 1) == []
    assert len(notices.move_messages(played.pk, 2)) == 1


def test_a_player_who_turned_moves_off_gets_none(world):
    played = moved(world, [START + timedelta(hours=5)])
    update_preferences(world.users["black"], move=False)
    assert notices.move_messages(played.pk, 1) == []


def test_the_daily_digest_lists_the_days_moves_for_those_who_chose_it(world, mailoutbox):
    day = (START + DAY).date()
    moved(world, [START + DAY + timedelta(hours=h) for h in (1, 2, 3)])  # W, B, W
    assert notices.digest_messages(world.users["black"].pk, day) == []  # not chosen: none
    update_preferences(world.users["black"], move_digest=True, move=False)
    assert notices.digest_users() == [world.users["black"].pk]
    mailoutbox.clear()
    assert tasks.send_move_digests(day.isoformat()) == 1
    [mail] = mailoutbox
    assert mail.to == [world.game.black.email]
    assert "2 moves" in mail.subject
    assert "1. Nf3" in mail.body and "2. Ng1" in mail.body and "Nf6" not in mail.body
    assert send_all(notices.digest_messages(world.users["black"].pk, day)) == 0  # once
    # The day before had none of these moves.
    assert notices.digest_messages(world.users["black"].pk, START.date()) == []


def test_a_move_made_through_the_action_e_mails_the_player_now_to_move(
    world, mailoutbox, django_capture_on_commit_callbacks
):
    from apps.play.services import make_move

    mailoutbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        make_move(
            actor=world.users["white"],
            game_id=world.game.pk,
            move="e4",
            after_ply=0,
            now=START + timedelta(hours=1),
        )
    [mail] = mailoutbox
    assert mail.to == [world.game.black.email]
    assert "1. e4" in mail.subject
