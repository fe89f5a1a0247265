"""Late entrants of a Swiss stage: the action and its refusals, pairing numbers apart from
seats, what every page and file shows of a player who joined at round k, the API and the form.
"""

import io
import json
from collections import Counter

import pytest
from django.core.management import call_command
from django.urls import reverse

from apps.accounts.games import my_stages
from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.groups.services import group_lines
from apps.office.publication import draw_file, public_entrants_csv
from apps.office.swiss.late import LATE_ENTRY, add_late_entrant
from apps.office.swiss.pairing import start_next_round
from apps.office.swiss.state import swiss_state
from apps.silli.entrants import parse_entrants_csv
from apps.silli.swiss_system import pairing_order
from apps.silli.verify import verify_draw
from apps.stages.models import Stage
from apps.standings.groups import recompute_group
from apps.standings.models import GroupStanding
from apps.standings.trf_export import group_trf

from .conftest import api_client, user
from .test_swiss import drawn_and_published, play_round, swiss_stage

STRONG = {"name": "Zeta, Late", "nation": "NOR", "rating": 2990}


@pytest.fixture
def round_one_played(organizer, capture):
    """A Swiss of 9 players and 4 rounds, published, round 1 played (round 2 not paired)."""
    stage = drawn_and_published(organizer, swiss_stage(organizer, count=9, rounds=4), capture)
    play_round(organizer, stage, 1)
    return stage


def next_round(organizer, stage, capture):
    with capture(execute=True):
        return start_next_round(organizer, stage)


def seats_of(stage):
    return dict(Seat.objects.filter(group__stage=stage).values_list("entrant_id", "number"))


def pairs_of(stage, round_number):
    seat = seats_of(stage)
    games = Game.objects.filter(group__stage=stage, round=round_number).order_by("number")
    return [(seat[w], seat[b]) for w, b in games.values_list("white_id", "black_id")]


def unchanged(stage, size):
    group = stage.groups.get()
    return (
        group.size == size
        and Seat.objects.filter(group=group).count() == size
        and not AuditEvent.objects.filter(action=Action.SWISS_LATE_ENTRANT_ADDED).exists()
    )


# --- the action -------------------------------------------------------------------------------


def test_without_late_entrants_the_pairing_numbers_are_the_seats(round_one_played):
    state = swiss_state(round_one_played, cells=True)
    assert state.order == list(range(1, 10))


def test_a_strong_late_entrant_takes_the_last_seat_and_the_first_pairing_number(
    round_one_played, organizer, capture
):
    stage = round_one_played
    late = add_late_entrant(organizer, stage, **STRONG, email="zeta@example.org")
    group = Group.objects.get(stage=stage)
    assert group.size == 10
    assert (late.seat.number, late.pairing_number, late.first_round) == (10, 1, 2)
    assert late.entry.entrant.code == "E000010" and not late.existing
    entry = StageEntry.objects.get(stage=stage, entrant__code="E000010")
    assert (entry.source, entry.reason) == (StageEntry.Source.REGISTERED, LATE_ENTRY)
    event = AuditEvent.objects.get(action=Action.SWISS_LATE_ENTRANT_ADDED)
    assert event.actor == organizer and event.group_id == group.pk
    assert event.data | {"name": ""} == {
        "entrant": "E000010",
        "name": "",
        "nation": "NOR",
        "rating": 2990,
        "seat": 10,
        "pairing_number": 1,
        "first_round": 2,
        "existing": False,
        "generated_code": True,
    }
    state = swiss_state(stage, cells=True)
    assert state.order == [10, *range(1, 10)]
    assert [c.result for c in state.cells[10]] == ["Z"]  # round 1: not paired, 0 points

    assert next_round(organizer, stage, capture) == 2
    pairs = pairs_of(stage, 2)
    assert len(pairs) == 5 and not SwissBye.objects.filter(group=group, round=2).exists()
    assert sorted(s for pair in pairs for s in pair) == list(range(1, 11))
    # the engine paired pairing numbers: the same round from the TRF state in TPN, relabelled
    from apps.silli.swiss.dutch import pair_round
    from apps.silli.swiss.trf import parse_trf

    Game.objects.filter(group=group, round=2).delete()
    engine = pair_round(parse_trf(group_trf(group)), 2)
    seat_of = dict(enumerate(state.order, start=1))
    assert sorted((seat_of[w], seat_of[b]) for w, b in engine.pairs) == sorted(pairs)


def test_the_late_entrant_joins_the_round_after_the_last_one_paired(
    round_one_played, organizer, capture
):
    next_round(organizer, round_one_played, capture)  # round 2 paired, its games open
    late = add_late_entrant(organizer, round_one_played, name="Late, Low", nation="ITA")
    assert late.first_round == 3 and late.pairing_number == 10  # no rating: last
    state = swiss_state(round_one_played, cells=True)
    assert [c.result for c in state.cells[10]] == ["Z", "Z"]


def test_an_entrant_of_the_tournament_not_in_the_stage_is_entered_by_code(
    round_one_played, organizer
):
    stage = round_one_played
    old = Entrant.objects.create(
        tournament=stage.tournament, code="OLD-1", name="Old, Player", nation="ESP", rating=2100
    )
    late = add_late_entrant(organizer, stage, code="OLD-1", name="old, player", nation="esp")
    assert late.existing and late.entry.entrant == old
    assert Entrant.objects.filter(tournament=stage.tournament).count() == 10
    assert AuditEvent.objects.get(action=Action.SWISS_LATE_ENTRANT_ADDED).data["existing"]


def test_a_code_whose_entrant_has_other_details_is_refused_naming_them(round_one_played, organizer):
    stage = round_one_played
    Entrant.objects.create(
        tournament=stage.tournament, code="OLD-1", name="Old, Player", nation="ESP", rating=2100
    )
    with pytest.raises(ActionError) as refused:
        add_late_entrant(organizer, stage, code="OLD-1", name="Other", nation="FRA", rating=2000)
    assert refused.value.http_status == 409 and "OLD-1" in refused.value.message
    assert [d["field"] for d in refused.value.details] == ["name", "nation", "rating"]
    assert unchanged(stage, 9)


def test_an_entrant_already_in_the_stage_is_refused(round_one_played, organizer):
    stage = round_one_played
    seated = Seat.objects.filter(group__stage=stage).select_related("entrant").first().entrant
    with pytest.raises(ActionError, match="already an entrant of this stage") as refused:
        add_late_entrant(organizer, stage, code=seated.code, name=seated.name, nation=seated.nation)
    assert refused.value.code == ErrorCode.CONFLICT
    assert unchanged(stage, 9)


def test_every_bad_field_is_listed_and_nothing_changes(round_one_played, organizer):
    with pytest.raises(ActionError) as refused:
        add_late_entrant(organizer, round_one_played, name="", nation="XY", rating="strong")
    assert refused.value.http_status == 400
    assert {d["field"] for d in refused.value.details} == {"name", "nation", "rating"}
    assert unchanged(round_one_played, 9)


def test_only_organizers_add_late_entrants(round_one_played):
    with pytest.raises(ActionError) as refused:
        add_late_entrant(user("nosy"), round_one_played, **STRONG)
    assert refused.value.code == ErrorCode.PERMISSION_DENIED
    assert unchanged(round_one_played, 9)


def test_a_stage_that_is_not_swiss_takes_no_late_entrant(published, organizer):
    with pytest.raises(ActionError, match="not a Swiss stage") as refused:
        add_late_entrant(organizer, published, **STRONG)
    assert refused.value.http_status == 409


def test_a_swiss_stage_not_yet_published_takes_no_late_entrant(organizer, capture):
    stage = swiss_stage(organizer, count=8, rounds=3)
    with pytest.raises(ActionError, match="once it is drawn and published"):
        add_late_entrant(organizer, stage, **STRONG)  # registration closed, no draw
    from apps.office.services import start_draw

    with capture(execute=True):
        start_draw(organizer, stage, "seed")
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    with pytest.raises(ActionError, match="this stage is drawn"):
        add_late_entrant(organizer, stage, **STRONG)
    assert unchanged(stage, 8)


def test_no_late_entrant_once_every_round_is_paired_or_the_group_closed(organizer, capture):
    stage = drawn_and_published(organizer, swiss_stage(organizer, count=8, rounds=2), capture)
    Group.objects.filter(stage=stage).update(closed_at="2026-01-01T00:00Z")
    with pytest.raises(ActionError, match="The group is closed"):
        add_late_entrant(organizer, stage, **STRONG)
    Group.objects.filter(stage=stage).update(closed_at=None)
    play_round(organizer, stage, 1)
    next_round(organizer, stage, capture)
    with pytest.raises(ActionError, match="All 2 rounds are paired") as refused:
        add_late_entrant(organizer, stage, **STRONG)
    assert refused.value.http_status == 409
    assert unchanged(stage, 8)


# --- played to the end: pairing, rematches, standings, crosstable, start list, my games ------


def test_late_entrants_play_to_the_end_without_a_rematch(organizer, capture, client):
    stage = drawn_and_published(organizer, swiss_stage(organizer, count=9, rounds=5), capture)
    group = stage.groups.get()
    play_round(organizer, stage, 1)
    strong = add_late_entrant(organizer, stage, **STRONG)  # seat 10, pairing number 1
    next_round(organizer, stage, capture)
    play_round(organizer, stage, 2, offset=2)
    weak = add_late_entrant(organizer, stage, name="Last, Comer", nation="ITA", rating=1000)
    assert (weak.seat.number, weak.pairing_number, weak.first_round) == (11, 11, 3)
    for rnd in range(3, 6):
        next_round(organizer, stage, capture)
        play_round(organizer, stage, rnd, offset=rnd)
    assert swiss_state(stage).complete

    games = list(Game.objects.filter(group=group).values_list("round", "white_id", "black_id"))
    pairs = [frozenset((w, b)) for _, w, b in games]
    assert len(pairs) == len(set(pairs)), "a rematch"
    byes = list(SwissBye.objects.filter(group=group).values_list("round", "entrant_id"))
    assert max(Counter(e for _, e in byes).values()) == 1, "a second bye"
    joined = {strong.entry.entrant_id: 2, weak.entry.entrant_id: 3}
    everyone = set(seats_of(stage))
    for rnd in range(1, 6):
        present = {e for e in everyone if joined.get(e, 1) <= rnd}
        paired = [p for r, w, b in games if r == rnd for p in (w, b)]
        paired += [e for r, e in byes if r == rnd]
        assert sorted(paired) == sorted(present), f"round {rnd}"

    # standings: the rounds before they joined count nothing
    recompute_group(group.pk)
    late_row = GroupStanding.objects.get(group=group, entrant_id=weak.entry.entrant_id)
    played = Game.objects.filter(group=group, white_id=weak.entry.entrant_id).count()
    played += Game.objects.filter(group=group, black_id=weak.entry.entrant_id).count()
    bye = SwissBye.objects.filter(group=group, entrant_id=weak.entry.entrant_id).count()
    assert played + bye == 3 and late_row.finished == 3
    assert GroupStanding.objects.filter(group=group).count() == 11

    # the crosstable: "–" for the rounds not paired (seat 11: rounds 1 and 2)
    url = reverse("group-crosstable", args=[stage.tournament.slug, stage.order, 1])
    page = client.get(url).content.decode()
    row = page[page.index('id="seat-11"') :]
    row = row[: row.index("</tr>")]
    assert row.count('class="xc absent"') == 2 and "Last, Comer" in row
    row10 = page[page.index('id="seat-10"') :]
    assert row10[: row10.index("</tr>")].count('class="xc absent"') == 1

    # the start list: seat 11's rounds 1 and 2 are "not paired"
    (line,) = [
        ln
        for ln in group_lines(Group.objects.select_related("stage").get(pk=group.pk))
        if ln.seat.number == 11
    ]
    assert [(r.number, r.absent, r.bye) for r in line.by_round][:2] == [
        (1, True, False),
        (2, True, False),
    ]
    assert len(line.by_round) == 5
    group_page = client.get(reverse("group", args=[stage.tournament.slug, stage.order, 1]))
    assert "not paired in this round: no points" in group_page.content.decode()

    # my games: the two rounds before they joined, then their games
    player = user("latecomer")
    Entrant.objects.filter(pk=weak.entry.entrant_id).update(user=player)
    (card,) = my_stages(player)
    assert [(row.round, row.absent) for row in card.rows][:3] == [(1, True), (2, True), (3, False)]
    assert len(card.rows) == 5
    client.force_login(player)
    me = client.get("/me/").content.decode()
    assert me.count("not paired in this round — no points") == 2


# --- files: the TRF by pairing number, the draw still verifies -------------------------------


@pytest.mark.parametrize("acceleration", ["none", "baku"])
def test_swiss_pair_on_the_trf_export_pairs_what_the_stage_pairs(
    organizer, capture, acceleration, tmp_path
):
    stage = drawn_and_published(
        organizer,
        swiss_stage(organizer, count=13, rounds=5, acceleration=acceleration),
        capture,
    )
    group = stage.groups.get()
    play_round(organizer, stage, 1)
    add_late_entrant(organizer, stage, **STRONG)  # seat 14, pairing number 1
    add_late_entrant(organizer, stage, name="Mid, Dle", nation="FRA", rating=2200)
    recompute_group(group.pk)
    text = group_trf(group)
    by_number = {int(line[4:8]): line for line in text.splitlines() if line.startswith("001 ")}
    assert "Zeta, Late" in by_number[1] and by_number[1][91:99] == "0000 - Z"
    assert sorted(by_number) == list(range(1, 16))
    path = tmp_path / "stage.trf"
    path.write_text(text)
    out = io.StringIO()
    call_command("swiss_pair", str(path), stdout=out)
    lines = out.getvalue().split("\n")[1:-1]

    next_round(organizer, stage, capture)
    order = swiss_state(stage, cells=True).order
    assert order[0] == 14 and order == pairing_order(
        {s.number: s.entrant for s in Seat.objects.filter(group=group).select_related("entrant")}
    )
    seat_of = dict(enumerate(order, start=1))
    expected = [
        f"{seat_of[w]} {seat_of[b]}" for w, b in (map(int, ln.split()) for ln in lines) if b
    ]
    stored = [f"{w} {b}" for w, b in pairs_of(stage, 2)]
    assert sorted(stored) == sorted(expected)
    bye = SwissBye.objects.filter(group=group, round=2).values_list("entrant_id", flat=True)
    byes = [int(ln.split()[0]) for ln in lines if ln.endswith(" 0")]
    assert [seats_of(stage)[e] for e in bye] == [seat_of[t] for t in byes]


def test_the_published_entrant_list_leaves_late_entrants_out_so_the_draw_verifies(
    round_one_played, organizer
):
    add_late_entrant(organizer, round_one_played, **STRONG)
    text = public_entrants_csv(round_one_played)
    assert "Zeta" not in text
    report = verify_draw(json.loads(draw_file(round_one_played)), parse_entrants_csv(text))
    assert report.ok, report.problems


# --- the API and the form ---------------------------------------------------------------------


def test_a_late_entrant_through_the_api(round_one_played, organizer):
    stage = round_one_played
    url = f"/api/stages/{stage.pk}/late-entrants/"
    client = api_client(organizer)
    bad = client.post(url, {"name": "", "nation": "XY", "rating": "high"}, format="json")
    assert bad.status_code == 400
    assert {"name", "nation", "rating"} <= set(json.dumps(bad.json()["details"]).split('"'))
    assert api_client(user("nosy")).post(url, STRONG, format="json").status_code == 403
    assert api_client().post(url, STRONG, format="json").status_code == 403
    answer = client.post(url, {**STRONG, "code": "LATE-1"}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json() == {
        "code": "LATE-1",
        "name": "Zeta, Late",
        "nation": "NOR",
        "rating": 2990,
        "seat": 10,
        "pairing_number": 1,
        "first_round": 2,
        "existing": False,
    }
    again = client.post(url, {**STRONG, "code": "LATE-1"}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "conflict"
    assert Group.objects.get(stage=stage).size == 10


def test_the_api_refuses_a_stage_that_is_not_swiss(published, organizer):
    answer = api_client(organizer).post(
        f"/api/stages/{published.pk}/late-entrants/", STRONG, format="json"
    )
    assert answer.status_code == 409 and "not a Swiss stage" in answer.json()["message"]


def test_the_manage_page_adds_a_late_entrant(round_one_played, organizer, client):
    stage = round_one_played
    client.force_login(organizer)
    manage = reverse("stage-manage", args=[stage.tournament.slug, stage.order])
    page = client.get(manage).content.decode()
    assert "Add a late entrant" in page and "takes seat 10" in page
    url = reverse("stage-late-entrant", args=[stage.tournament.slug, stage.order])

    bad = client.post(url, {"name": "", "nation": "XY", "rating": "high"})
    assert bad.status_code == 400
    form = bad.context["late_form"]
    assert set(form.errors) == {"name", "nation", "rating"}
    assert "Nothing was saved" in bad.content.decode()

    done = client.post(url, {**STRONG, "code": "LATE-1"}, follow=True)
    text = done.content.decode()
    assert "Zeta, Late (LATE-1) joins the stage at seat 10 with pairing number 1" in text
    assert Group.objects.get(stage=stage).size == 10

    refused = client.post(url, {**STRONG, "code": "LATE-1"})
    assert refused.status_code == 409
    assert "already an entrant of this stage" in refused.content.decode()
    assert refused.context["late_form"].errors["code"]
    assert "Add a late entrant" in client.get(manage).content.decode()


def test_a_stranger_cannot_post_the_form(round_one_played, client):
    client.force_login(user("nosy"))
    url = reverse("stage-late-entrant", args=[round_one_played.tournament.slug, 1])
    assert client.post(url, STRONG).status_code == 403
    assert unchanged(round_one_played, 9)
