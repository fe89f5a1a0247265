"""A result entered or corrected e-mails both players; a withdrawal e-mails the withdrawn
player and each opponent whose game became a forfeit; each TD gets a daily digest of the
changes in their groups (Celery beat, or ``manage.py send_td_digests``)."""

from datetime import timedelta
from io import StringIO

from django.conf import settings
from django.core import mail
from django.core.management import call_command
from django.utils import timezone, translation

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.notifications import tasks
from apps.notifications.services import (
    td_digest_message,
    update_preferences,
    withdrawal_messages,
)
from apps.results.services import enter_result, withdraw_entrant


def _enter(world, capture, game, result, reason=""):
    with capture(execute=True):
        enter_result(world.users["td"], game, result, expected_version=game.version, reason=reason)
    game.refresh_from_db()
    return game


def test_both_players_hear_of_a_result_and_of_its_correction(
    world, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    game = world.player_game
    _enter(world, django_capture_on_commit_callbacks, game, "1-0")
    assert sorted(m.to[0] for m in mail.outbox) == sorted([game.white.email, game.black.email])
    first = mail.outbox[0]
    # the subject names the tournament and the stage (issue 27)
    assert first.subject == (
        f"Accounts Cup, Preliminary, group 1: {game.white.name} – {game.black.name} 1-0"
    )
    assert "was entered" in first.body

    mail.outbox.clear()
    _enter(world, django_capture_on_commit_callbacks, game, "0-1", reason="scoresheet misread")
    assert len(mail.outbox) == 2
    body = mail.outbox[0].body
    assert "was corrected" in body and "It was: 1-0" in body and "scoresheet misread" in body


def test_a_stale_result_task_sends_nothing_and_a_player_may_turn_results_off(
    world, django_capture_on_commit_callbacks
):
    game = world.player_game
    _enter(world, django_capture_on_commit_callbacks, game, "1/2-1/2")
    mail.outbox.clear()
    assert tasks.result_changed.delay(game.pk, game.version - 1).get() == 0  # superseded
    assert tasks.result_changed.delay(game.pk, game.version).get() == 0  # sent already

    update_preferences(world.users["player"], result=False)
    _enter(world, django_capture_on_commit_callbacks, game, "1-0", reason="typo")
    assert [m.to[0] for m in mail.outbox] == [
        e.email for e in (game.white, game.black) if e != world.player_entrant
    ]


def test_a_withdrawal_tells_the_player_and_each_opponent_once(
    world, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    entry = StageEntry.objects.get(stage=world.stage, entrant=world.player_entrant)
    with django_capture_on_commit_callbacks(execute=True):
        changed = withdraw_entrant(world.users["td"], entry, "moved abroad")
    assert len(changed) == 4
    opponents = world.opponents_emails(world.player_entrant)
    assert sorted(m.to[0] for m in mail.outbox) == sorted(opponents | {entry.entrant.email})
    own = next(m for m in mail.outbox if m.to == [entry.entrant.email])
    assert "you were withdrawn" in own.body and own.body.count("your score: −") == 4
    other = next(m for m in mail.outbox if m.to != [entry.entrant.email])
    assert "forfeit win for you" in other.body and "moved abroad" in other.body
    tasks.entrant_withdrawn.delay(entry.pk)
    assert len(mail.outbox) == 5


def test_the_withdrawal_e_mails_and_digest_read_the_games_marks_not_the_audit_event(
    world, django_capture_on_commit_callbacks
):
    player = world.player_entrant
    _enter(world, django_capture_on_commit_callbacks, world.player_game, "1-0")
    entry = StageEntry.objects.get(stage=world.stage, entrant=player)
    changed = withdraw_entrant(world.users["td"], entry, "moved abroad")  # e-mails not sent
    assert len(changed) == 3
    assert set(Game.objects.filter(forfeited_by=player).values_list("pk", flat=True)) == {
        g.pk for g in changed
    }
    event = AuditEvent.objects.get(action=Action.ENTRANT_WITHDRAWN)
    del event.data["games"]  # kept for the record only: no reader may need it
    event.save(update_fields=["data"])

    messages = withdrawal_messages(entry.pk)
    own = next(m for m in messages if m.recipient == player.email)
    assert own.body.count("your score: −") == 3 and "moved abroad" in own.body
    opponents = {m.recipient for m in messages} - {player.email}
    assert opponents == {(g.black if g.white_id == player.pk else g.white).email for g in changed}
    digest = td_digest_message(world.users["td"].pk, timezone.localdate())
    assert f"withdrawal of {player.code} (3 forfeits) — moved abroad" in digest.body


def test_each_td_gets_one_digest_of_the_day_in_their_groups(
    world, django_capture_on_commit_callbacks
):
    game = world.player_game
    _enter(world, django_capture_on_commit_callbacks, game, "1-0")
    _enter(world, django_capture_on_commit_callbacks, game, "0-1", reason="typo")
    mail.outbox.clear()
    today = timezone.localdate().isoformat()

    out = StringIO()
    call_command("send_td_digests", "--date", today, stdout=out)
    assert out.getvalue().strip() == f"{today}: 1 TD(s) with changes, 1 digest(s) sent."
    [digest] = mail.outbox
    assert digest.to == ["td1@people.test"]
    assert f"{game.white.name} – {game.black.name} in progress → 1-0" in digest.body
    assert "1-0 → 0-1 (typo)" in digest.body
    assert "/t/acc-cup/s/1/g/1/results/" in digest.body

    assert tasks.send_td_digests.delay(today).get() == 1  # one TD queued, nothing sent again
    call_command("send_td_digests", "--date", today, stdout=StringIO())
    assert len(mail.outbox) == 1

    yesterday = (timezone.localdate() - timedelta(days=1)).isoformat()
    out = StringIO()
    call_command("send_td_digests", stdout=out)
    assert out.getvalue().startswith(f"{yesterday}: 0 TD(s)")


def test_a_td_who_turned_the_digest_off_gets_none(world, django_capture_on_commit_callbacks):
    _enter(world, django_capture_on_commit_callbacks, world.player_game, "1-0")
    update_preferences(world.users["td"], td_digest=False)
    mail.outbox.clear()
    tasks.send_td_digests.delay(timezone.localdate().isoformat())
    assert mail.outbox == []


def test_celery_beat_runs_the_digest_task_every_morning():
    from config.celery import app

    entry = settings.CELERY_BEAT_SCHEDULE["td-digests"]
    assert entry["task"] in app.tasks
    assert entry["task"] == tasks.send_td_digests.name
    assert entry["schedule"].hour == {5}


def test_e_mails_are_written_in_the_site_language_whoever_acts(
    world, django_capture_on_commit_callbacks
):
    mail.outbox.clear()
    with translation.override("it"):  # the TD's browser asks for Italian
        _enter(world, django_capture_on_commit_callbacks, world.player_game, "1-0")
    assert mail.outbox and all("was entered" in m.body for m in mail.outbox)


def test_the_td_digest_lists_the_results_an_import_set(world, django_capture_on_commit_callbacks):
    """An import writes one audit event and a row per game (no event a game): the TD's
    digest still lists each game whose result it set."""
    from apps.results.imports import import_results

    game = world.player_game
    text = f"white,black,result\n{game.white.code},{game.black.code},1-0\n"
    with django_capture_on_commit_callbacks(execute=True):
        import_results(world.users["td"], group=game.group, text=text)
    assert not AuditEvent.objects.filter(action=Action.RESULT_ENTERED).exists()
    mail.outbox.clear()
    today = timezone.localdate().isoformat()
    out = StringIO()
    call_command("send_td_digests", "--date", today, stdout=out)
    assert out.getvalue().strip() == f"{today}: 1 TD(s) with changes, 1 digest(s) sent."
    [digest] = mail.outbox
    assert f"{game.white.name} – {game.black.name} in progress → 1-0" in digest.body
