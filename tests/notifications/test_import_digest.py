"""Players hear of their imported results: one digest e-mail per player per import, listing
each of their games whose result the import set, sent by tasks in batches of players after
the commit, once each, following the "results of my games" preference."""

from __future__ import annotations

import re

from django.core import mail
from django.db.models import Q

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.groups.models import Game
from apps.notifications import services, tasks
from apps.notifications.services import update_preferences
from apps.results.imports import import_results


def _games(world, count: int) -> list[Game]:
    """The group's first ``count`` games."""
    return list(
        Game.objects.filter(group=world.group).select_related("white", "black").order_by("number")
    )[:count]


def _csv(games, result="1-0") -> str:
    rows = [f"{g.white.code},{g.black.code},{result}" for g in games]
    return "white,black,result\n" + "\n".join(rows) + "\n"


def _players(games) -> dict[int, list[Game]]:
    players: dict[int, list[Game]] = {}
    for g in games:
        players.setdefault(g.white_id, []).append(g)
        players.setdefault(g.black_id, []).append(g)
    return players


def _import(world, capture, text):
    with capture(execute=True):
        return import_results(world.users["td"], group=world.group, text=text)


def test_an_import_sends_one_digest_per_player_with_all_their_games(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    monkeypatch.setattr(services, "IMPORT_DIGEST_BATCH", 3)  # several batches, one e-mail each
    games = _games(world, 12)
    players = _players(games)
    mail.outbox.clear()
    assert _import(world, django_capture_on_commit_callbacks, _csv(games)).results == 12
    by_address = {}
    for message in mail.outbox:
        assert message.to[0] not in by_address, "two digests to one player"
        by_address[message.to[0]] = message
    entrants = {g.white_id: g.white for g in games} | {g.black_id: g.black for g in games}
    assert set(by_address) == {entrants[pk].email for pk in players}
    for pk, own in players.items():
        message = by_address[entrants[pk].email]
        count = len(own)
        assert f"{count} result" in message.subject and world.tournament.name in message.subject
        for g in own:
            assert f"{g.white.name} – {g.black.name}  1-0" in message.body
            assert f"/games/{g.number}/" in message.body
        others = [g for g in games if g not in own]
        assert all(f"/games/{g.number}/\n" not in message.body for g in others)

    # Run again (a retried task): nothing goes twice.
    [event] = AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED)
    mail.outbox.clear()
    tasks.results_imported.delay(event.pk)
    assert mail.outbox == []


def test_importing_the_same_file_again_sends_nothing(world, django_capture_on_commit_callbacks):
    games = _games(world, 3)
    _import(world, django_capture_on_commit_callbacks, _csv(games))
    mail.outbox.clear()
    assert _import(world, django_capture_on_commit_callbacks, _csv(games)).unchanged == 3
    assert mail.outbox == []


def test_the_digest_follows_the_results_preference_and_carries_the_way_in(
    world, django_capture_on_commit_callbacks
):
    mine = Q(white=world.player_entrant) | Q(black=world.player_entrant)
    game = Game.objects.filter(mine, group=world.group).select_related("white", "black").first()
    other = game.black if game.white_id == world.player_entrant.pk else game.white
    update_preferences(world.users["player"], result=False)
    mail.outbox.clear()
    _import(world, django_capture_on_commit_callbacks, _csv([game], "1/2-1/2"))
    [message] = mail.outbox  # the player turned results off; the opponent has no account
    assert message.to == [other.email]
    assert re.search(r"/accounts/claim/[^/\s]+/\?next=%2Fme%2F", message.body)
    assert re.search(r"/accounts/claim/[^/\s]+/not-me/", message.body)


def test_a_player_with_an_account_gets_a_sign_in_link(world, django_capture_on_commit_callbacks):
    mine = Q(white=world.player_entrant) | Q(black=world.player_entrant)
    game = Game.objects.filter(mine, group=world.group).select_related("white", "black").first()
    mail.outbox.clear()
    _import(world, django_capture_on_commit_callbacks, _csv([game], "0-1"))
    [message] = [m for m in mail.outbox if m.to == [world.player_entrant.email]]
    assert "/accounts/login/?next=%2Fme%2F" in message.body
    assert "/accounts/claim/" not in message.body


def test_an_import_that_sets_no_result_queues_no_digest(
    world, django_capture_on_commit_callbacks, monkeypatch
):
    [game] = _games(world, 1)
    queued: list[int] = []
    monkeypatch.setattr(tasks.results_imported, "delay", queued.append)
    _import(world, django_capture_on_commit_callbacks, _csv([game]))
    assert len(queued) == 1
    # The same result with a finish date: the score/date of a finished game, no result set.
    text = f"white,black,result,date\n{game.white.code},{game.black.code},1-0,2026-01-02\n"
    _import(world, django_capture_on_commit_callbacks, text)
    assert len(queued) == 1


def test_a_site_in_italian_writes_the_digest_and_its_way_in_in_italian(
    world, django_capture_on_commit_callbacks, settings
):
    settings.LANGUAGE_CODE = "it"
    games = _games(world, 2)
    mail.outbox.clear()
    _import(world, django_capture_on_commit_callbacks, _csv(games))
    bodies = [m.body for m in mail.outbox]
    assert bodies and all("da un file di risultati" in b for b in bodies)
    assert any("collega questa iscrizione a un account" in b for b in bodies)
    assert all("tuo risultato" in m.subject or "tuoi risultati" in m.subject for m in mail.outbox)
