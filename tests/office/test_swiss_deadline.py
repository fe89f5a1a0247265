"""A Swiss round's deadline: the stage's settings (form and API), each round's start and due
time, and the hourly sweep — before, at and after the deadline, in both modes (adjudicate:
the open games count as draws for the next round's pairing only; td: nothing is paired, the
TD and organizers are e-mailed once), run twice, and left alone without a deadline."""

import json
from datetime import datetime, timedelta

import pytest
from django.core import mail
from django.urls import reverse
from django.utils import timezone

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant
from apps.groups.models import Game, Seat, SwissRound
from apps.notifications.models import SentNotification
from apps.office.forms import StageForm
from apps.office.swiss import tasks as swiss_tasks
from apps.office.swiss.deadlines import swiss_deadlines_due
from apps.office.swiss.pairing import pair_next_round, start_next_round
from apps.office.swiss.state import swiss_state
from apps.results.services import enter_result
from apps.stages.models import Stage
from apps.stages.services import (
    PAIRING_FIELDS,
    REGISTRATION_FIELDS,
    create_tournament,
    update_stage,
)
from apps.standings.groups import recompute_group
from apps.standings.models import GroupStanding

from .conftest import api_client, user
from .test_swiss import drawn_and_published, swiss_stage

DAYS = 14
HOUR = timedelta(hours=1)


def published(organizer, capture, *, days=DAYS, mode="adjudicate", count=10, rounds=3):
    """A published Swiss (round 1 paired by the draw) whose rounds last ``days``."""
    stage = swiss_stage(organizer, count=count, rounds=rounds)
    update_stage(organizer, stage, swiss_round_days=days, swiss_at_deadline=mode)
    return drawn_and_published(organizer, stage, capture)


def first_round(stage) -> SwissRound:
    return SwissRound.objects.get(group__stage=stage, number=1)


def play_all_but(organizer, stage, round_number, left_open=1):
    """Every game of the round gets a result except the last ``left_open`` ones (by number),
    which are returned."""
    games = list(Game.objects.filter(group__stage=stage, round=round_number).order_by("number"))
    for i, game in enumerate(games[:-left_open]):
        enter_result(organizer, game, ["1-0", "0-1"][i % 2], expected_version=game.version)
    return games[-left_open:]


def deadline_events(stage):
    return AuditEvent.objects.filter(action=Action.SWISS_ROUND_DEADLINE_PASSED, stage_id=stage.pk)


# --- settings ----------------------------------------------------------------------------------


def stage_form_data(**changes) -> dict:
    data = {
        "kind": "final",
        "order": 1,
        "format": "swiss",
        "swiss_rounds": 5,
        "min_group_size": 100,
        "allowed_nation_games": 0,
        "report_accept_days": 7,
        "doubling_after": 20,  # as the page shows it (empty: no doubling)
        "frozen_fields": "",
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("days", "valid"), [("", True), ("1", True), ("365", True), ("0", False), ("366", False)]
)
def test_the_stage_form_takes_the_days_each_round_lasts(db, organizer, days, valid):
    cup = create_tournament(organizer, name="Form Cup", slug="form-cup")
    form = StageForm(stage_form_data(swiss_round_days=days), tournament=cup)
    assert form.is_valid() is valid, form.errors
    if valid:
        assert form.cleaned_data["swiss_round_days"] == (int(days) if days else None)
        assert form.cleaned_data["swiss_at_deadline"] == "adjudicate"  # the default
    else:
        assert "swiss_round_days" in form.errors


def test_the_mode_must_be_one_of_the_two(db, organizer):
    cup = create_tournament(organizer, name="Form Cup", slug="form-cup")
    assert StageForm(stage_form_data(swiss_at_deadline="td"), tournament=cup).is_valid()
    form = StageForm(stage_form_data(swiss_at_deadline="later"), tournament=cup)
    assert not form.is_valid() and "swiss_at_deadline" in form.errors


def test_the_settings_page_sets_the_deadline_while_registration_is_closed(client, organizer, db):
    stage = swiss_stage(organizer, count=10, rounds=3)
    client.force_login(organizer)
    url = reverse("stage-edit", args=[stage.tournament.slug, stage.order])
    html = client.get(url).content.decode()
    assert 'name="swiss_round_days"' in html and 'name="swiss_at_deadline"' in html
    # the pairing and registration settings are frozen (registration closed); the play
    # period is not
    answer = client.post(
        url,
        {
            "kind": "final",
            "order": 1,
            "report_accept_days": 7,
            "swiss_round_days": 21,
            "swiss_at_deadline": "td",
            "doubling_after": 20,  # as the page shows it (empty: no doubling)
            "frozen_fields": ",".join((*PAIRING_FIELDS, *REGISTRATION_FIELDS)),
        },
    )
    assert answer.status_code == 302, answer.content.decode()
    stage.refresh_from_db()
    assert (stage.swiss_round_days, stage.swiss_at_deadline) == (21, "td")
    event = AuditEvent.objects.filter(action=Action.STAGE_UPDATED).latest("id")
    assert event.data["changes"] == {
        "swiss_round_days": [None, 21],
        "swiss_at_deadline": ["adjudicate", "td"],
    }


def test_the_api_sets_and_checks_the_deadline(db, organizer):
    cup = create_tournament(organizer, name="Api Cup", slug="api-cup")
    client = api_client(organizer)
    created = client.post(
        f"/api/tournaments/{cup.slug}/stages/",
        {
            "kind": "final",
            "format": "swiss",
            "swiss_rounds": 7,
            "swiss_round_days": 30,
            "swiss_at_deadline": "td",
        },
        format="json",
    )
    assert created.status_code == 201, created.json()
    body = created.json()
    assert (body["swiss_round_days"], body["swiss_at_deadline"]) == (30, "td")
    url = f"/api/stages/{body['id']}/"
    for bad in ({"swiss_round_days": 0}, {"swiss_round_days": 400}, {"swiss_at_deadline": "x"}):
        refused = client.patch(url, bad, format="json")
        assert refused.status_code == 400, bad
        assert next(iter(bad)) in json.dumps(refused.json()["details"])
    cleared = client.patch(url, {"swiss_round_days": None}, format="json")
    assert cleared.status_code == 200 and cleared.json()["swiss_round_days"] is None
    # only a Swiss stage has round deadlines
    other = client.post(
        f"/api/tournaments/{cup.slug}/stages/",
        {"kind": "final", "format": "round_robin", "swiss_round_days": 7},
        format="json",
    )
    assert other.status_code == 400
    assert "swiss_round_days" in json.dumps(other.json()["details"])


# --- a round's start and due time --------------------------------------------------------------


def test_publishing_starts_round_one_with_its_deadline(organizer, capture):
    stage = published(organizer, capture)
    rnd = first_round(stage)
    assert rnd.started_at == stage.published_at
    assert rnd.due_at == stage.published_at + timedelta(days=DAYS)
    assert rnd.deadline_passed_at is None


def test_each_later_round_starts_when_it_is_paired(organizer, capture):
    stage = published(organizer, capture)
    play_all_but(organizer, stage, 1, left_open=1)
    (last,) = Game.objects.filter(group__stage=stage, round=1, result="")
    before = timezone.now()
    with capture(execute=True):
        enter_result(organizer, last, "1/2-1/2", expected_version=last.version)
    two = SwissRound.objects.get(group__stage=stage, number=2)
    assert two.started_at >= before and two.due_at == two.started_at + timedelta(days=DAYS)
    # round 1 is over: its deadline passing later touches nothing (round 2 is due later)
    assert first_round(stage).due_at < two.due_at
    assert swiss_deadlines_due(two.due_at) == []
    assert first_round(stage).deadline_passed_at is None


# --- the sweep ---------------------------------------------------------------------------------


def test_nothing_happens_before_or_at_the_deadline(organizer, capture):
    stage = published(organizer, capture)
    play_all_but(organizer, stage, 1)
    due = first_round(stage).due_at
    with capture(execute=True) as callbacks:
        assert swiss_deadlines_due(due - HOUR) == []
        assert swiss_deadlines_due(due) == []
    assert callbacks == []
    assert first_round(stage).deadline_passed_at is None and not deadline_events(stage).exists()
    assert swiss_state(stage).paired == 1


def test_adjudicate_pairs_the_next_round_with_the_open_game_as_a_draw(organizer, capture):
    stage = published(organizer, capture)
    (open_game,) = play_all_but(organizer, stage, 1)
    group = stage.groups.get()
    seat = dict(Seat.objects.filter(group=group).values_list("entrant_id", "number"))
    white, black = seat[open_game.white_id], seat[open_game.black_id]
    state = swiss_state(stage)
    assert not state.can_pair_next and state.as_dict()["deadline_passed"] is False

    now = first_round(stage).due_at + HOUR
    with capture() as callbacks:  # held: look at the state before the round is paired
        assert swiss_deadlines_due(now) == [stage.pk]
    rnd = first_round(stage)
    assert (rnd.deadline_passed_at, rnd.at_deadline, rnd.open_at_deadline) == (
        now,
        "adjudicate",
        1,
    )
    event = deadline_events(stage).get()
    assert event.actor is None and event.group_id == group.pk
    assert (event.data["round"], event.data["open_games"], event.data["mode"]) == (
        1,
        1,
        "adjudicate",
    )
    state = swiss_state(stage, cells=True)
    assert state.adjudicating and state.can_pair_next and state.open_games == 1
    # for pairing only: a draw, played, colours as paired
    w, b = state.cells[white][0], state.cells[black][0]
    assert (w.opponent, w.white, w.result) == (black, True, "=")
    assert (b.opponent, b.white, b.result) == (white, False, "=")

    for callback in callbacks:  # the pairing task, then the TDs' e-mail
        callback()
    state = swiss_state(stage)
    assert state.paired == 2 and state.open_games == 5 and not state.adjudicating
    assert (
        AuditEvent.objects.filter(action=Action.SWISS_ROUND_PAIRED, stage_id=stage.pk).count() == 1
    )
    two = SwissRound.objects.get(group=group, number=2)
    assert two.due_at == two.started_at + timedelta(days=DAYS)

    # the standings do not count the open game; the adjudicated result counts once entered
    recompute_group(group.pk)
    row = GroupStanding.objects.get(group=group, entrant_id=open_game.white_id)
    points_before = row.points
    open_game.refresh_from_db()
    assert open_game.result == ""
    with capture(execute=True):
        enter_result(
            organizer, open_game, "1-0", expected_version=open_game.version, adjudicated=True
        )
    recompute_group(group.pk)
    row = GroupStanding.objects.get(group=group, entrant_id=open_game.white_id)
    assert row.points == points_before + 1
    # ... and for every later pairing; round 3 waits for round 2's games
    state = swiss_state(stage, cells=True)
    assert state.cells[white][0].result == "1" and state.cells[black][0].result == "0"
    assert state.paired == 2


def test_pairing_a_round_twice_after_the_deadline_writes_it_once(organizer, capture):
    stage = published(organizer, capture)
    play_all_but(organizer, stage, 1)
    with capture(execute=True):
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    # the organizer's button and a redelivered task find round 2 paired
    assert not pair_next_round(organizer, stage, 2).created
    assert Game.objects.filter(group__stage=stage, round=2).count() == 5


def test_the_organizer_may_pair_at_once_after_an_adjudicated_deadline(organizer, capture):
    stage = published(organizer, capture)
    play_all_but(organizer, stage, 1, left_open=2)
    with capture(execute=False):  # the queued round is lost (no broker, say)
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    with capture(execute=True):
        assert start_next_round(organizer, stage) == 2
    assert swiss_state(stage).paired == 2


def test_td_mode_pairs_nothing_and_mails_the_td_and_organizers_once(organizer, capture, settings):
    settings.NOTIFICATIONS_SKIP_DOMAINS = []
    stage = published(organizer, capture, mode="td")
    group = stage.groups.get()
    td = user("swisstd")
    group.td = td
    group.save(update_fields=["td"])
    games = play_all_but(organizer, stage, 1, left_open=2)
    mail.outbox.clear()
    now = first_round(stage).due_at + HOUR
    for _ in range(2):
        with capture(execute=True):
            swiss_deadlines_due(now)
    assert deadline_events(stage).count() == 1
    assert deadline_events(stage).get().data["mode"] == "td"
    state = swiss_state(stage)
    assert state.paired == 1 and not state.can_pair_next and not state.adjudicating
    sent = sorted(m.to[0] for m in mail.outbox)
    assert sent == ["org@example.org", "swisstd@example.org"]
    message = mail.outbox[0]
    assert "round 1 ended with 2 games unfinished" in message.subject
    assert f"Game {games[0].number}:" in message.body and "They are left to you" in message.body
    assert "Round 2 is paired once every game of round 1 has a result." in message.body
    assert SentNotification.objects.filter(key=f"swiss-deadline:{stage.pk}:1").count() == 2
    # the task again (a redelivery) sends nothing more
    assert swiss_tasks.swiss_deadlines.delay(now.isoformat()).get() == []
    from apps.notifications import tasks as notify

    assert notify.swiss_round_deadline.delay(stage.pk, 1).get() == 0

    # the round pairs itself, as always, once the last result is in
    for game in games:
        game.refresh_from_db()
        with capture(execute=True):
            enter_result(organizer, game, "0-1", expected_version=game.version)
    assert swiss_state(stage).paired == 2


def test_adjudicate_mode_tells_the_td_the_games_went_to_adjudication(organizer, capture, settings):
    settings.NOTIFICATIONS_SKIP_DOMAINS = []
    stage = published(organizer, capture)
    play_all_but(organizer, stage, 1)
    mail.outbox.clear()
    with capture(execute=True):
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    deadline_mails = [m for m in mail.outbox if "ended with" in m.subject]
    assert [m.to for m in deadline_mails] == [["org@example.org"]]
    body = deadline_mails[0].body
    assert "They went to adjudication" in body and "Round 2 is paired now" in body


def test_in_td_mode_the_organizer_sends_the_open_games_to_adjudication_and_pairs(
    organizer, capture, client
):
    """After a td-mode deadline, one action (the Manage page's button or the API) switches the
    round to adjudication and pairs the next one: the open game is a draw for this pairing."""
    stage = published(organizer, capture, mode="td")
    (open_game,) = play_all_but(organizer, stage, 1)
    group = stage.groups.get()
    seat = dict(Seat.objects.filter(group=group).values_list("entrant_id", "number"))
    url = f"/api/stages/{stage.pk}/next-round/"
    api = api_client(organizer)
    manage = reverse("stage-manage", args=[stage.tournament.slug, stage.order])
    client.force_login(organizer)

    # before the deadline: refused, nothing changed
    early = api.post(url, {"adjudicate_open": True}, format="json")
    assert early.status_code == 409
    assert "once its deadline has passed" in early.json()["message"]
    assert 'id="adjudicate-round"' not in client.get(manage).content.decode()

    with capture(execute=True):
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    html = client.get(manage).content.decode()
    assert 'id="adjudicate-round"' in html
    assert "Send the open game to adjudication and pair round 2" in html
    # without the flag the round still waits
    assert api.post(url, {}, format="json").status_code == 409
    assert api.post(url, {"adjudicate_open": "maybe"}, format="json").status_code == 400
    assert not first_round(stage).adjudicating

    with capture(execute=True):
        answer = client.post(
            reverse("stage-next-round", args=[stage.tournament.slug, stage.order]),
            {"adjudicate_open": "1"},
        )
    assert answer.status_code == 302
    rnd = first_round(stage)
    assert rnd.adjudicating and rnd.at_deadline == "adjudicate"
    event = AuditEvent.objects.get(
        action=Action.SWISS_ROUND_SENT_TO_ADJUDICATION, stage_id=stage.pk
    )
    assert event.actor_id == organizer.pk
    assert (event.data["round"], event.data["open_games"]) == (1, 1)
    state = swiss_state(stage, cells=True)
    assert state.paired == 2
    white, black = seat[open_game.white_id], seat[open_game.black_id]
    assert state.cells[white][0].result == "=" and state.cells[black][0].result == "="
    assert 'id="adjudicate-round"' not in client.get(manage).content.decode()


def test_sending_to_adjudication_is_refused_when_there_is_nothing_to_switch(organizer, capture):
    stage = published(organizer, capture)  # adjudicate mode: the deadline does it
    play_all_but(organizer, stage, 1)
    with capture():  # the next round's pairing held back
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    answer = api_client(organizer).post(
        f"/api/stages/{stage.pk}/next-round/", {"adjudicate_open": True}, format="json"
    )
    assert answer.status_code == 409
    assert "already with the adjudicator" in answer.json()["message"]
    assert not AuditEvent.objects.filter(action=Action.SWISS_ROUND_SENT_TO_ADJUDICATION).exists()
    td = user("notorganizer")
    refused = api_client(td).post(
        f"/api/stages/{stage.pk}/next-round/", {"adjudicate_open": True}, format="json"
    )
    assert refused.status_code in (403, 404)


def test_a_round_whose_games_all_finished_is_only_marked(organizer, capture):
    stage = published(organizer, capture, rounds=1)  # the last round: nothing to pair after it
    play_all_but(organizer, stage, 1, left_open=1)
    (last,) = Game.objects.filter(group__stage=stage, result="")
    enter_result(organizer, last, "1-0", expected_version=last.version)
    with capture(execute=True) as callbacks:
        assert swiss_deadlines_due(first_round(stage).due_at + HOUR) == [stage.pk]
    assert callbacks == []  # no pairing, no e-mail
    assert first_round(stage).open_at_deadline == 0


def test_the_last_rounds_open_games_go_to_adjudication_without_a_pairing(organizer, capture):
    stage = published(organizer, capture, rounds=1)
    play_all_but(organizer, stage, 1)
    with capture(execute=True):
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    assert first_round(stage).adjudicating
    assert swiss_state(stage).paired == 1
    assert not AuditEvent.objects.filter(action=Action.SWISS_ROUND_FAILED).exists()


def test_a_stage_without_a_deadline_is_left_alone(organizer, capture):
    stage = published(organizer, capture, days=None)
    play_all_but(organizer, stage, 1)
    rnd = first_round(stage)
    assert rnd.due_at is None
    assert swiss_deadlines_due(timezone.now() + timedelta(days=3650)) == []
    assert not deadline_events(stage).exists() and swiss_state(stage).paired == 1


def test_a_closed_stage_is_left_alone(organizer, capture):
    stage = published(organizer, capture)
    play_all_but(organizer, stage, 1)
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.CLOSED)
    assert swiss_deadlines_due(first_round(stage).due_at + HOUR) == []


# --- API and pages -----------------------------------------------------------------------------


def test_the_next_round_api_shows_the_deadline(organizer, capture):
    stage = published(organizer, capture)
    url = f"/api/stages/{stage.pk}/next-round/"
    client = api_client(organizer)
    body = client.get(url).json()
    due = first_round(stage).due_at
    assert datetime.fromisoformat(body["due_at"]) == due
    assert body["deadline_passed"] is False and body["at_deadline"] == ""
    play_all_but(organizer, stage, 1)
    with capture():  # the next round's pairing held back
        swiss_deadlines_due(due + HOUR)
    body = client.get(url).json()
    assert (body["deadline_passed"], body["at_deadline"], body["can_pair_next"]) == (
        True,
        "adjudicate",
        True,
    )
    schema = client.get("/api/schema/?format=json").json()
    fields = schema["components"]["schemas"]["SwissRounds"]["properties"]
    assert {"due_at", "deadline_passed", "at_deadline"} <= set(fields)


def test_the_pages_show_the_rounds_deadline_and_what_happened(organizer, capture, client):
    stage = published(organizer, capture)
    group = stage.groups.get()
    slug, order = stage.tournament.slug, stage.order
    client.force_login(organizer)
    manage = reverse("stage-manage", args=[slug, order])
    group_page = reverse("group", args=[slug, order, group.number])
    results = reverse("group-results", args=[slug, order, group.number])
    stage_page = reverse("stage", args=[slug, order])
    for url in (manage, group_page, results, stage_page):
        html = client.get(url).content.decode()
        assert "Round 1 ends on" in html and "(14 days left)" in html, url
    # a player sees it on "My games"
    player = user("swissplayer")
    Entrant.objects.filter(pk=Seat.objects.filter(group=group).first().entrant_id).update(
        user=player
    )
    client.force_login(player)
    assert "Round 1 ends on" in client.get(reverse("me")).content.decode()
    client.force_login(organizer)
    play_all_but(organizer, stage, 1)
    with capture():
        swiss_deadlines_due(first_round(stage).due_at + HOUR)
    html = client.get(manage).content.decode()
    assert "its 1 unfinished game went to adjudication" in html
    assert "The unfinished games of round 1 are with the adjudicator" in html
    assert "The unfinished games of round 1 are with the adjudicator" in (
        client.get(results).content.decode()
    )


# --- two sweeps at once (PostgreSQL) -----------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_sweeps_at_once_act_once(django_capture_on_commit_callbacks, settings):
    from tests.results.test_concurrency import race

    settings.NOTIFICATIONS_SKIP_DOMAINS = []
    organizer = user("raceorg")
    stage = published(organizer, django_capture_on_commit_callbacks)
    play_all_but(organizer, stage, 1, left_open=2)
    mail.outbox.clear()
    now = first_round(stage).due_at + HOUR
    outcomes = race(lambda: swiss_deadlines_due(now), lambda: swiss_deadlines_due(now))
    assert sorted(sum(outcomes, [])) == [stage.pk]
    assert deadline_events(stage).count() == 1
    assert (
        AuditEvent.objects.filter(action=Action.SWISS_ROUND_PAIRED, stage_id=stage.pk).count() == 1
    )
    assert Game.objects.filter(group__stage=stage, round=2).count() == 5
    assert [m.to for m in mail.outbox if "ended with" in m.subject] == [["raceorg@example.org"]]
