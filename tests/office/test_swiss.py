"""A Swiss stage in the product: settings, the draw's round 1, the next rounds, standings."""

import json
from collections import Counter

import pytest
from django.urls import reverse

from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent
from apps.core.results import Result
from apps.entrants.models import StageEntry
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Seat, SwissBye
from apps.office.publication import draw_file
from apps.office.services import publish_draw, start_draw
from apps.office.swiss import pairing
from apps.office.swiss.pairing import pair_next_round, start_next_round
from apps.office.swiss.state import swiss_state
from apps.results.services import enter_result, withdraw_entrant
from apps.silli.entrants import entrants_csv
from apps.silli.swiss.dutch import PairingError
from apps.silli.synth import make_entrants
from apps.silli.verify import verify_draw
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from apps.standings.groups import recompute_group
from apps.standings.models import GroupStanding
from apps.standings.trf_export import group_trf

from .conftest import api_client, user

ENTRANTS = 20
ROUNDS = 5
# A fixed cycle of results: mostly decisive, some draws, now and then a forfeit.
CYCLE = ["1-0", "0-1", "1/2-1/2", "1-0", "0-1", "1-0", "+-", "1/2-1/2", "0-1", "-+"]


def swiss_stage(organizer, *, count=ENTRANTS, rounds=ROUNDS, acceleration="none", seed="s"):
    cup = create_tournament(
        organizer,
        name="Swiss Cup",
        slug="swiss-cup",
        tiebreak="buchholz",
        stages=[
            {
                "kind": Stage.Kind.FINAL,
                "format": Stage.Format.SWISS,
                "swiss_rounds": rounds,
                "swiss_acceleration": acceleration,
            }
        ],
    )
    stage = cup.stages.get()
    import_entrants(organizer, stage, entrants_csv(make_entrants(count, seed)))
    return close_registration(organizer, stage)


def drawn_and_published(organizer, stage, capture):
    with capture(execute=True):
        start_draw(organizer, stage, "swiss seed")
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN, stage.draw_jobs.first().error
    with capture(execute=True):
        publish_draw(organizer, stage)
    stage.refresh_from_db()
    return stage


def play_round(organizer, stage, round_number, offset=0):
    games = Game.objects.filter(group__stage=stage, round=round_number, result="")
    for i, game in enumerate(games.order_by("number")):
        enter_result(
            organizer, game, CYCLE[(i + offset) % len(CYCLE)], expected_version=game.version
        )


@pytest.fixture
def organizer(db):
    return user("swissorg")


def test_the_draw_seats_in_initial_order_and_pairs_round_one(
    organizer, django_capture_on_commit_callbacks
):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=21), django_capture_on_commit_callbacks
    )
    group = stage.groups.get()
    assert group.size == 21 and stage.groups.count() == 1
    seats = list(Seat.objects.filter(group=group).order_by("number").select_related("entrant"))
    keys = [(-s.entrant.rating, s.entrant.name.casefold()) for s in seats]
    assert keys == sorted(keys)
    games = Game.objects.filter(group=group)
    assert games.count() == 10 and set(games.values_list("round", flat=True)) == {1}
    bye = SwissBye.objects.get(group=group)
    assert bye.round == 1
    playing = set(games.values_list("white_id", flat=True)) | set(
        games.values_list("black_id", flat=True)
    )
    assert bye.entrant_id not in playing and len(playing) == 20
    # the published DRAW.json verifies
    entrants = make_entrants(21, "s")
    report = verify_draw(json.loads(draw_file(stage)), entrants)
    assert report.ok, report.problems


def test_a_swiss_of_five_rounds_played_to_the_end(organizer, django_capture_on_commit_callbacks):
    capture = django_capture_on_commit_callbacks
    stage = drawn_and_published(organizer, swiss_stage(organizer), capture)
    group = stage.groups.get()
    assert group.formula_text == "Swiss"  # not "round robin": no formula, a Dutch rule
    for rnd in range(1, ROUNDS + 1):
        state = swiss_state(stage)
        assert state.paired == rnd
        # refused while games are open
        with pytest.raises(ActionError) as refused:
            pair_next_round(organizer, stage)
        assert refused.value.http_status == 409
        if rnd == 2:
            # one player leaves during round 2: their game is forfeited, later rounds absent
            entry = StageEntry.objects.filter(stage=stage).order_by("entrant__code").first()
            withdrawn_id = entry.entrant_id
            with capture(execute=True):
                withdraw_entrant(organizer, entry, "moved house")
        play_round(organizer, stage, rnd, offset=rnd)
        if rnd < ROUNDS:
            with capture(execute=True):
                assert start_next_round(organizer, stage) == rnd + 1
            # the task ran on commit; asking for the same round again changes nothing
            again = pair_next_round(organizer, stage, rnd + 1)
            assert not again.created
            assert Game.objects.filter(group=group, round=rnd + 2).count() == 0
    state = swiss_state(stage)
    assert state.paired == ROUNDS and state.complete and state.open_games == 0
    with pytest.raises(ActionError) as done:
        pair_next_round(organizer, stage)
    assert done.value.http_status == 409

    games = list(Game.objects.filter(group=group).values_list("round", "white_id", "black_id"))
    results = Game.objects.filter(group=group).values_list("white_id", "black_id", "result")
    # no two players play each other twice; a forfeited pairing may be made again (FIDE)
    played = [frozenset((w, b)) for w, b, result in results if Result(result).played]
    assert len(played) == len(set(played)), "a rematch"
    byes = list(SwissBye.objects.filter(group=group).values_list("round", "entrant_id"))
    assert max(Counter(e for _, e in byes).values()) == 1, "a second bye"
    everyone = set(Seat.objects.filter(group=group).values_list("entrant_id", flat=True))
    for rnd in range(1, ROUNDS + 1):
        present = everyone - ({withdrawn_id} if rnd > 2 else set())
        paired = [p for r, w, b in games if r == rnd for p in (w, b)]
        paired += [e for r, e in byes if r == rnd]
        assert len(paired) == len(set(paired))
        assert set(paired) == present, f"round {rnd}"
    assert withdrawn_id not in {e for r, e in byes if r > 2}

    recompute_group(group.pk)
    standings = GroupStanding.objects.filter(group=group)
    assert standings.count() == ENTRANTS
    # a bye counts a win's point
    for _, entrant in byes:
        row = standings.get(entrant_id=entrant)
        scored = sum(
            {"1-0": 1, "+-": 1, "1/2-1/2": 0.5}.get(r, 0)
            for r in Game.objects.filter(group=group, white_id=entrant).values_list(
                "result", flat=True
            )
        ) + sum(
            {"0-1": 1, "-+": 1, "1/2-1/2": 0.5}.get(r, 0)
            for r in Game.objects.filter(group=group, black_id=entrant).values_list(
                "result", flat=True
            )
        )
        assert float(row.points) == scored + 1
    assert (
        AuditEvent.objects.filter(action=Action.SWISS_ROUND_PAIRED, stage_id=stage.pk).count()
        == ROUNDS - 1
    )
    # the TRF export writes the rounds
    trf = group_trf(group)
    assert "XXR    5" in trf or "XXR 5" in trf


# --- settings, API and page -------------------------------------------------------------------


def test_an_organizer_sets_up_a_swiss_stage_through_the_api(organizer, db):
    cup = create_tournament(organizer, name="Api Swiss", slug="api-swiss")
    client = api_client(organizer)
    answer = client.post(
        f"/api/tournaments/{cup.slug}/stages/",
        {"kind": "final", "format": "swiss", "swiss_rounds": 7, "swiss_acceleration": "baku"},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert (body["format"], body["swiss_rounds"], body["swiss_acceleration"]) == (
        "swiss",
        7,
        "baku",
    )
    changed = client.patch(f"/api/stages/{body['id']}/", {"swiss_rounds": 9}, format="json")
    assert changed.status_code == 200 and changed.json()["swiss_rounds"] == 9
    refused = client.patch(f"/api/stages/{body['id']}/", {"swiss_rounds": None}, format="json")
    assert refused.status_code == 400
    assert "swiss_rounds" in json.dumps(refused.json()["details"])


def test_the_draw_refuses_more_rounds_than_opponents(organizer, db):
    stage = swiss_stage(organizer, count=6, rounds=6)
    with pytest.raises(ActionError, match="needs at least 7 entrants"):
        start_draw(organizer, stage, "seed")


def test_next_round_through_the_api(organizer, django_capture_on_commit_callbacks):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=10, rounds=3), django_capture_on_commit_callbacks
    )
    url = f"/api/stages/{stage.pk}/next-round/"
    client = api_client(organizer)
    assert client.get(url).json()["paired"] == 1
    busy = client.post(url)
    assert busy.status_code == 409 and "without a result" in busy.json()["message"]
    assert api_client(user("nosy")).post(url).status_code == 403
    assert api_client().post(url).status_code == 403
    play_round(organizer, stage, 1)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(url)
    # the test's transaction holds the task until the callbacks run: 202, then done
    assert answer.status_code == 202, answer.json()
    assert answer.json()["requested"] == 2 and answer["Location"] == url
    assert client.get(url).json() | {"stage": 0} == {
        "stage": 0,
        "rounds": 3,
        "paired": 2,
        "open_games": 5,
        "complete": False,
        "can_pair_next": False,
        "failure": "",
        "pairing": None,
        "pairing_asked_at": None,
        "due_at": None,
        "deadline_passed": False,
        "at_deadline": "",
    }
    # a second request while round 2 is open is refused: never two rounds at once
    assert client.post(url).status_code == 409
    assert Game.objects.filter(group__stage=stage, round=3).count() == 0


def test_a_round_asked_for_and_not_paired_yet_is_shown_until_paired_or_failed(
    organizer, client, django_capture_on_commit_callbacks
):
    """Its task waits for a worker, or its worker was lost (the broker hands it out again
    later): the page and the API say the round was asked for, rather than nothing."""
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=10, rounds=3), django_capture_on_commit_callbacks
    )
    play_round(organizer, stage, 1)
    assert swiss_state(stage).pairing is None
    start_next_round(organizer, stage)  # its task is sent on commit: never, in this test
    state = swiss_state(stage)
    assert (state.paired, state.pairing, state.failure) == (1, 2, "")
    assert state.pairing_asked_at is not None
    api = api_client(organizer).get(f"/api/stages/{stage.pk}/next-round/").json()
    assert api["pairing"] == 2 and api["pairing_asked_at"]
    client.force_login(organizer)
    manage = client.get(reverse("stage-manage", args=[stage.tournament.slug, stage.order]))
    assert 'id="swiss-pairing"' in manage.content.decode()
    assert "Round 2 was asked for at" in manage.content.decode()

    pairing.record_failure(stage.pk, 2, None, "Round 2 could not be paired: a test.")
    state = swiss_state(stage)
    assert (state.pairing, state.failure) == (None, "Round 2 could not be paired: a test.")
    start_next_round(organizer, stage)  # asked again after the failure
    assert swiss_state(stage).pairing == 2
    pair_next_round(organizer, stage, 2)
    state = swiss_state(stage)
    assert (state.paired, state.pairing) == (2, None)


def test_a_queued_round_that_cannot_be_paired_says_why(
    organizer, django_capture_on_commit_callbacks, monkeypatch
):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=10, rounds=3), django_capture_on_commit_callbacks
    )
    play_round(organizer, stage, 1)

    def impossible(*args, **kwargs):
        raise PairingError("no pairing for this test")

    monkeypatch.setattr(pairing, "pair_next", impossible)
    with django_capture_on_commit_callbacks(execute=True):
        start_next_round(organizer, stage)
    state = swiss_state(stage)
    assert state.paired == 1 and "no pairing for this test" in state.failure
    assert AuditEvent.objects.filter(action=Action.SWISS_ROUND_FAILED).count() == 1


def test_the_manage_page_pairs_the_next_round(
    organizer, client, django_capture_on_commit_callbacks
):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=10, rounds=3), django_capture_on_commit_callbacks
    )
    client.force_login(organizer)
    manage = reverse("stage-manage", args=[stage.tournament.slug, stage.order])
    page = client.get(manage)
    assert "Pair the next round" in page.content.decode()
    assert "Round 1 of 3 is paired." in page.content.decode()
    play_round(organizer, stage, 1)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(
            reverse("stage-next-round", args=[stage.tournament.slug, stage.order]), follow=True
        )
    assert "Round 2 is being paired" in answer.content.decode()
    assert "Round 2 of 3 is paired." in client.get(manage).content.decode()
    assert swiss_state(stage).paired == 2


def test_the_last_result_of_a_round_pairs_the_next_one(
    organizer, django_capture_on_commit_callbacks
):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=9, rounds=3), django_capture_on_commit_callbacks
    )
    games = list(Game.objects.filter(group__stage=stage, round=1).order_by("number"))
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(organizer, games[0], "1-0", expected_version=games[0].version)
    assert swiss_state(stage).paired == 1  # games still open: nothing queued
    for game in games[1:-1]:
        enter_result(organizer, game, "0-1", expected_version=game.version)
    last = games[-1]
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(organizer, last, "1/2-1/2", expected_version=last.version)
    state = swiss_state(stage)
    assert state.paired == 2 and state.open_games == 4
    event = AuditEvent.objects.get(action=Action.SWISS_ROUND_PAIRED)
    assert event.actor is None and event.data["round"] == 2  # the system paired it
    assert SwissBye.objects.filter(group__stage=stage).count() == 2


def test_the_crosstable_shows_a_swiss_group_round_by_round(
    organizer, client, django_capture_on_commit_callbacks
):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=9, rounds=3), django_capture_on_commit_callbacks
    )
    play_round(organizer, stage, 1)
    with django_capture_on_commit_callbacks(execute=True):
        start_next_round(organizer, stage)
    group = stage.groups.get()
    recompute_group(group.pk)
    url = reverse("group-crosstable", args=[stage.tournament.slug, stage.order, group.number])
    page = client.get(url).content.decode()
    assert "R1" in page and "R2" in page and "R3" not in page
    assert page.count(">bye</td>") == 2  # one a round
    bye = SwissBye.objects.get(group=group, round=1)
    standing = GroupStanding.objects.get(group=group, entrant=bye.entrant)
    assert standing.points == 1 and standing.finished == 1


@pytest.mark.parametrize("acceleration", ["none", "baku"])
def test_the_trf_export_pairs_the_same_next_round(
    organizer, django_capture_on_commit_callbacks, acceleration
):
    from apps.silli.swiss.dutch import pair_round
    from apps.silli.swiss.trf import parse_trf

    stage = drawn_and_published(
        organizer,
        swiss_stage(organizer, count=13, rounds=4, acceleration=acceleration),
        django_capture_on_commit_callbacks,
    )
    group = stage.groups.get()
    play_round(organizer, stage, 1)
    recompute_group(group.pk)
    text = group_trf(group)
    assert "XXR 4" in text and "0000 - U" in text
    assert ("XXA " in text) == (acceleration != "none")
    # the file alone (virtual points from its XXA lines) pairs what the stage pairs
    again = pair_round(parse_trf(text), 2)
    with django_capture_on_commit_callbacks(execute=True):
        start_next_round(organizer, stage)
    seat = dict(Seat.objects.filter(group=group).values_list("entrant_id", "number"))
    stored = [
        (seat[w], seat[b])
        for w, b in Game.objects.filter(group=group, round=2)
        .order_by("number")
        .values_list("white_id", "black_id")
    ]
    assert sorted(stored) == sorted(again.pairs)
    bye = SwissBye.objects.get(group=group, round=2)
    assert seat[bye.entrant_id] == again.bye
