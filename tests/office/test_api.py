"""Setting up a season through the API: tournaments and stages are created, changed and
deleted; who may; what is frozen when; bad values are named; every change is audited."""

from decimal import Decimal

import pytest

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.stages.models import Stage, Tournament
from tests.office.conftest import api_client

pytestmark = pytest.mark.django_db


def fields_of(answer) -> set[str]:
    return {d["field"] for d in answer.json()["details"]}


def events(action: Action) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(action=action).order_by("id"))


# ---------------------------------------------------------------------------
# Tournaments
# ---------------------------------------------------------------------------


def test_a_user_with_the_right_creates_a_tournament_and_organizes_it(api_creator, creator):
    answer = api_creator.post(
        "/api/tournaments/",
        {
            "name": "Spring Cup 2027",
            "games_per_player": 8,
            "points": {"win": 2, "draw": 1, "loss": 0},
            "tiebreak": "buchholz",
            "ranking": "unified",
            "description": "Open to every member.",
            "contact_email": "td@example.org",
            "starts_on": "2027-03-01",
            "ends_on": "2028-02-28",
            "stage_kinds": ["preliminary", "semifinal", "final"],
        },
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["slug"] == "spring-cup-2027"
    assert body["url"] == "/api/tournaments/spring-cup-2027/"
    assert answer["Location"] == body["url"]
    assert body["points"] == {"win": 2, "draw": 1, "loss": 0}
    assert (body["tiebreak"], body["ranking"]) == ("buchholz", "unified")
    assert body["description"] == "Open to every member."
    assert body["contact_email"] == "td@example.org"
    assert (body["starts_on"], body["ends_on"]) == ("2027-03-01", "2028-02-28")
    assert [s["kind"] for s in body["stages"]] == ["preliminary", "semifinal", "final"]

    cup = Tournament.objects.get(slug="spring-cup-2027")
    assert list(cup.organizers.all()) == [creator]
    semifinal, final = cup.stages.get(order=2), cup.stages.get(order=3)
    assert semifinal.separate_nations and semifinal.avoid_rematches
    assert not final.separate_nations and final.avoid_rematches
    assert final.games_per_player == 8
    [event] = events(Action.TOURNAMENT_CREATED)
    assert event.actor == creator and event.tournament_id == cup.pk
    assert event.data["stages"] == ["preliminary", "semifinal", "final"]


def test_a_new_tournament_starts_with_a_preliminary_and_a_slug_from_its_name(api_creator, cup):
    answer = api_creator.post("/api/tournaments/", {"name": "Setup Cup"}, format="json")
    assert answer.status_code == 201
    assert answer.json()["slug"] == "setup-cup-2"  # setup-cup is taken
    assert [s["kind"] for s in answer.json()["stages"]] == ["preliminary"]
    assert answer.json()["games_per_player"] == 10


def test_a_slug_another_tournament_has_is_refused_naming_the_field(api_creator, cup):
    answer = api_creator.post(
        "/api/tournaments/", {"name": "Another", "slug": "setup-cup"}, format="json"
    )
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_input"
    assert fields_of(answer) == {"slug"}
    assert not Tournament.objects.filter(name="Another").exists()


@pytest.mark.parametrize("who", ["api_org", "api_joe", "api_anon"])
def test_without_the_right_nobody_creates_a_tournament(request, who, cup):
    answer = request.getfixturevalue(who).post("/api/tournaments/", {"name": "X"}, format="json")
    assert answer.status_code == 403
    assert answer.json()["code"] in {"permission_denied", "not_authenticated"}
    assert not Tournament.objects.filter(name="X").exists()


def test_staff_create_tournaments(staff):
    answer = api_client(staff).post("/api/tournaments/", {"name": "Staff Cup"}, format="json")
    assert answer.status_code == 201


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"games_per_player": 61}, "games_per_player", "beyond what a correspondence stage"),
        ({"games_per_player": 1}, "games_per_player", "at least 2 games"),
        ({"games_per_player": 9}, "games_per_player", "even"),
        ({"points": {"win": 0.5, "draw": 1}}, "points.draw", "more than a win"),
        ({"points": {"loss": 1}}, "points.loss", "more than a draw"),
        ({"points": {"win": 0, "draw": 0}}, "points.win", "some points"),
        ({"starts_on": "2027-05-01", "ends_on": "2027-04-01"}, "ends_on", "before the start"),
        ({"tiebreak": "sonneborn"}, "tiebreak", ""),
        ({"contact_email": "nope"}, "contact_email", ""),
    ],
)
def test_bad_tournament_values_are_refused_naming_the_field(api_creator, data, field, words):
    answer = api_creator.post("/api/tournaments/", {"name": "Bad Cup", **data}, format="json")
    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_input"
    assert fields_of(answer) == {field}
    assert words in answer.json()["message"]
    assert not Tournament.objects.filter(name="Bad Cup").exists()


def test_organizers_change_the_settings_and_the_change_is_audited(api_org, organizer, cup):
    answer = api_org.patch(
        f"/api/tournaments/{cup.slug}/",
        {"description": "Rules: ICCF.", "points": {"win": 3, "draw": 1}, "tiebreak": "buchholz"},
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    assert answer.json()["points"] == {"win": 3, "draw": 1, "loss": 0}
    cup.refresh_from_db()
    assert (cup.points_win, cup.points_draw, cup.tiebreak) == (3, 1, "buchholz")
    [event] = events(Action.TOURNAMENT_UPDATED)
    assert event.actor == organizer
    assert event.data["changes"] == {
        "description": ["", "Rules: ICCF."],
        "points_win": ["1", "3"],
        "points_draw": ["0.5", "1"],
        "tiebreak": ["torino", "buchholz"],
    }


def test_a_new_slug_moves_the_tournament_and_a_taken_one_is_refused(api_org, cup, creator):
    Tournament.objects.create(name="Other", slug="other")
    taken = api_org.patch(f"/api/tournaments/{cup.slug}/", {"slug": "other"}, format="json")
    assert taken.status_code == 400 and fields_of(taken) == {"slug"}
    moved = api_org.patch(f"/api/tournaments/{cup.slug}/", {"slug": "cup-2027"}, format="json")
    assert moved.status_code == 200
    assert moved.json()["url"] == "/api/tournaments/cup-2027/"


def test_only_organizers_change_a_tournament(api_joe, api_anon, cup):
    for client in (api_joe, api_anon):
        answer = client.patch(f"/api/tournaments/{cup.slug}/", {"name": "Mine"}, format="json")
        assert answer.status_code == 403
    cup.refresh_from_db()
    assert cup.name == "Setup Cup"
    assert not events(Action.TOURNAMENT_UPDATED)


def test_games_per_player_freeze_once_a_stage_playing_them_closes_registration(
    api_org, cup, closed
):
    answer = api_org.patch(f"/api/tournaments/{cup.slug}/", {"games_per_player": 8}, format="json")
    # The round-robin preliminary does not play them: the Silli semifinal is still open.
    assert answer.status_code == 200
    closed.format = Stage.Format.SILLI
    closed.save()
    answer = api_org.patch(f"/api/tournaments/{cup.slug}/", {"games_per_player": 12}, format="json")
    assert answer.status_code == 409
    assert answer.json()["code"] == "wrong_status"
    assert "registration is closed" in answer.json()["message"]
    assert fields_of(answer) == {"games_per_player"}
    cup.refresh_from_db()
    assert cup.games_per_player == 8


def test_points_and_tiebreaks_freeze_once_a_stage_is_published(api_org, cup, published):
    answer = api_org.patch(
        f"/api/tournaments/{cup.slug}/",
        {"points": {"win": 3}, "description": "changed too"},
        format="json",
    )
    assert answer.status_code == 409
    assert "published" in answer.json()["message"]
    assert fields_of(answer) == {"points_win"}
    cup.refresh_from_db()
    assert cup.points_win == 1 and cup.description == ""  # nothing changed
    # What is not frozen still changes; a frozen field sent unchanged is no change.
    answer = api_org.patch(
        f"/api/tournaments/{cup.slug}/",
        {"points": {"win": 1}, "description": "ok", "starts_on": "2027-01-01"},
        format="json",
    )
    assert answer.status_code == 200


# ---------------------------------------------------------------------------
# Stages
# ---------------------------------------------------------------------------


def test_a_stage_is_added_with_its_kinds_defaults(api_org, organizer, cup):
    answer = api_org.post(
        f"/api/tournaments/{cup.slug}/stages/",
        {"kind": "final", "format": "round_robin", "min_group_size": 12},
        format="json",
    )
    assert answer.status_code == 201, answer.json()
    body = answer.json()
    assert body["url"] == f"/api/stages/{body['id']}/"
    assert answer["Location"] == body["url"]
    assert (body["kind"], body["order"], body["status"]) == ("final", 4, "draft")
    assert body["separate_nations"] is False and body["avoid_rematches"] is True
    assert body["games_per_player"] == 10 and body["games_per_player_override"] is None
    [event] = events(Action.STAGE_CREATED)
    assert event.actor == organizer and event.stage_id == body["id"]
    assert event.data["settings"]["kind"] == "final"
    assert event.data["settings"]["separate_nations"] is False


def test_defaults_per_kind_apply_only_when_not_given(api_org, cup):
    url = f"/api/tournaments/{cup.slug}/stages/"
    semifinal = api_org.post(url, {"kind": "semifinal"}, format="json").json()
    assert semifinal["separate_nations"] is True and semifinal["avoid_rematches"] is True
    final = api_org.post(url, {"kind": "final", "separate_nations": True}, format="json").json()
    assert final["separate_nations"] is True
    # Without a kind: the next in preliminary → semifinal → final (the last stage is a final).
    assert api_org.post(url, {}, format="json").json()["kind"] == "final"


def test_a_stage_placed_before_others_moves_them_on(api_org, cup):
    answer = api_org.post(
        f"/api/tournaments/{cup.slug}/stages/", {"kind": "preliminary", "order": 1}, format="json"
    )
    assert answer.status_code == 201
    kinds = list(cup.stages.order_by("order").values_list("kind", flat=True))
    assert kinds == ["preliminary", "preliminary", "semifinal", "final"]
    far = api_org.post(f"/api/tournaments/{cup.slug}/stages/", {"order": 9}, format="json")
    assert far.status_code == 400 and fields_of(far) == {"order"}


def test_only_organizers_add_stages(api_joe, api_anon, cup):
    for client in (api_joe, api_anon):
        answer = client.post(f"/api/tournaments/{cup.slug}/stages/", {}, format="json")
        assert answer.status_code == 403
    assert cup.stages.count() == 3


def test_a_stage_changes_and_the_change_is_audited(api_org, organizer, preliminary):
    url = f"/api/stages/{preliminary.pk}/"
    answer = api_org.patch(
        url,
        {
            "games_per_player": 8,
            "min_group_size": 50,
            "formula": [1, 3, 8, 17],
            "qualify_rule": "top_per_group",
            "qualify_value": 20,
            "qualify_relative": True,
            "play_starts_on": "2027-04-01",
            "play_ends_on": "2028-04-01",
        },
        format="json",
    )
    assert answer.status_code == 200, answer.json()
    body = answer.json()
    assert (body["games_per_player"], body["games_per_player_override"]) == (8, 8)
    assert body["formula"] == [1, 3, 8, 17]
    assert (body["qualify_rule"], body["qualify_value"]) == ("top_per_group", 20)
    assert body["play_ends_on"] == "2028-04-01"
    [event] = events(Action.STAGE_UPDATED)
    assert event.actor == organizer
    assert event.data["changes"]["min_group_size"] == [100, 50]
    assert event.data["changes"]["games_per_player_override"] == [None, 8]
    assert event.data["changes"]["qualify_value"] == [None, "20"]
    # null: the tournament's games again (and the formula, which no longer fits, goes).
    back = api_org.patch(url, {"games_per_player": None, "formula": None}, format="json")
    assert back.json()["games_per_player"] == 10
    assert back.json()["games_per_player_override"] is None


def test_nothing_sent_is_no_change(api_org, preliminary):
    answer = api_org.patch(f"/api/stages/{preliminary.pk}/", {}, format="json")
    assert answer.status_code == 200
    assert not events(Action.STAGE_UPDATED)


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ({"min_group_size": 1001}, "min_group_size", "beyond what one group's TD can run"),
        ({"min_group_size": 1}, "min_group_size", "at least 2 players"),
        ({"games_per_player": 62}, "games_per_player", "beyond what a correspondence stage"),
        ({"games_per_player": 7}, "games_per_player", "even"),
        ({"formula": [1, 4, 4, 10, 17]}, "formula", "once"),
        ({"formula": [0, 4, 10, 17, 32]}, "formula", "1 or more"),
        ({"formula": [1, 4, 10]}, "formula", "10 games per player need 5"),
        ({"formula": "1,4"}, "formula", ""),
        ({"format": "round_robin", "formula": [1, 4, 10, 17, 32]}, "formula", "round robin"),
        ({"format": "round_robin", "games_per_player": 8}, "games_per_player", "round robin"),
        ({"qualify_rule": "top_per_group", "qualify_value": 2.5}, "qualify_value", "whole"),
        (
            {"qualify_rule": "top_overall", "qualify_value": 120, "qualify_relative": True},
            "qualify_value",
            "100",
        ),
        (
            {"qualify_rule": "loss_cap", "qualify_value": 3, "qualify_relative": True},
            "qualify_relative",
            "cannot be relative",
        ),
        ({"qualify_rule": "threshold"}, "qualify_value", "value"),
        ({"play_starts_on": "2027-05-01", "play_ends_on": "2027-01-01"}, "play_ends_on", ""),
        ({"kind": "quarterfinal"}, "kind", ""),
        ({"format": "knockout"}, "format", ""),
        ({"format": "swiss"}, "swiss_rounds", "number of rounds"),
        ({"format": "swiss", "swiss_rounds": 0}, "swiss_rounds", "at least one round"),
        ({"format": "swiss", "swiss_rounds": 61}, "swiss_rounds", "beyond what"),
        ({"format": "swiss", "swiss_rounds": 5, "games_per_player": 8}, "games_per_player", ""),
        (
            {"format": "swiss", "swiss_rounds": 5, "swiss_acceleration": "x"},
            "swiss_acceleration",
            "",
        ),
        ({"swiss_rounds": 5}, "swiss_rounds", "Only a Swiss stage"),
        ({"swiss_acceleration": "baku"}, "swiss_acceleration", "Only a Swiss stage"),
    ],
)
def test_bad_stage_values_are_refused_naming_the_field(api_org, preliminary, data, field, words):
    answer = api_org.patch(f"/api/stages/{preliminary.pk}/", data, format="json")
    assert answer.status_code == 400, answer.json()
    assert answer.json()["code"] == "invalid_input"
    assert fields_of(answer) == {field}
    assert words in answer.json()["message"]
    assert not events(Action.STAGE_UPDATED)


def test_a_new_stage_with_bad_values_is_not_added(api_org, cup):
    answer = api_org.post(
        f"/api/tournaments/{cup.slug}/stages/", {"min_group_size": 5000}, format="json"
    )
    assert answer.status_code == 400 and fields_of(answer) == {"min_group_size"}
    assert cup.stages.count() == 3


def test_after_registration_closes_the_pairing_settings_are_frozen(api_org, closed):
    url = f"/api/stages/{closed.pk}/"
    answer = api_org.patch(
        url, {"min_group_size": 6, "play_starts_on": "2027-01-01"}, format="json"
    )
    assert answer.status_code == 409
    assert answer.json()["code"] == "wrong_status"
    assert "Registration is closed" in answer.json()["message"]
    assert "Reopen registration" in answer.json()["message"]
    assert fields_of(answer) == {"min_group_size"}
    closed.refresh_from_db()
    assert closed.min_group_size == 12 and closed.play_starts_on is None  # nothing changed
    assert not events(Action.STAGE_UPDATED)
    # The same value is no change; the play period, the rule and the kind still change.
    same = api_org.patch(url, {"min_group_size": 12, "format": "round_robin"}, format="json")
    assert same.status_code == 200
    ok = api_org.patch(
        url,
        {"play_starts_on": "2027-01-01", "qualify_rule": "top_overall", "qualify_value": 4},
        format="json",
    )
    assert ok.status_code == 200, ok.json()


def test_after_the_draw_kind_order_and_pairing_are_frozen(api_org, drawn):
    url = f"/api/stages/{drawn.pk}/"
    for data, field in [
        ({"kind": "final"}, "kind"),
        ({"order": 2}, "order"),
        ({"separate_nations": False}, "separate_nations"),
        ({"min_group_size": 20}, "min_group_size"),
    ]:
        answer = api_org.patch(url, data, format="json")
        assert answer.status_code == 409, data
        assert answer.json()["code"] == "wrong_status"
        assert "drawn" in answer.json()["message"]
        assert fields_of(answer) == {field}
    assert api_org.delete(url).status_code == 409
    assert Stage.objects.filter(pk=drawn.pk, kind="preliminary", order=1).exists()
    assert api_org.patch(url, {"play_ends_on": "2028-01-01"}, format="json").status_code == 200


def test_an_undrawn_stage_is_deleted_and_the_later_ones_move_up(api_org, organizer, cup):
    semifinal = cup.stages.get(order=2)
    answer = api_org.delete(f"/api/stages/{semifinal.pk}/")
    assert answer.status_code == 204
    assert list(cup.stages.order_by("order").values_list("order", "kind")) == [
        (1, "preliminary"),
        (2, "final"),
    ]
    [event] = events(Action.STAGE_DELETED)
    assert event.actor == organizer and event.stage_id == semifinal.pk
    assert event.data == {"kind": "semifinal", "order": 2, "status": "draft"}


def test_only_organizers_change_or_delete_stages(api_joe, api_anon, preliminary):
    url = f"/api/stages/{preliminary.pk}/"
    for client in (api_joe, api_anon):
        assert client.patch(url, {"min_group_size": 50}, format="json").status_code == 403
        assert client.delete(url).status_code == 403
    preliminary.refresh_from_db()
    assert preliminary.min_group_size == 100


def test_a_stage_moves_to_another_place(api_org, cup):
    final = cup.stages.get(order=3)
    answer = api_org.patch(f"/api/stages/{final.pk}/", {"order": 1}, format="json")
    assert answer.status_code == 200
    assert list(cup.stages.order_by("order").values_list("kind", flat=True)) == [
        "final",
        "preliminary",
        "semifinal",
    ]
    answer = api_org.patch(f"/api/stages/{final.pk}/", {"order": 3}, format="json")
    assert list(cup.stages.order_by("order").values_list("kind", flat=True)) == [
        "preliminary",
        "semifinal",
        "final",
    ]
    assert api_org.patch(f"/api/stages/{final.pk}/", {"order": 4}, format="json").status_code == 400


def test_a_drawn_stage_keeps_its_place_when_others_move(api_org, cup, drawn):
    final = cup.stages.get(order=3)
    answer = api_org.patch(f"/api/stages/{final.pk}/", {"order": 1}, format="json")
    assert answer.status_code == 409
    assert "keeps its place" in answer.json()["message"]
    assert cup.stages.get(pk=final.pk).order == 3


def test_the_qualification_rule_is_stored_as_given(api_org, preliminary):
    answer = api_org.patch(
        f"/api/stages/{preliminary.pk}/",
        {"qualify_rule": "threshold", "qualify_value": "6.5"},
        format="json",
    )
    assert answer.status_code == 200
    preliminary.refresh_from_db()
    assert preliminary.qualify_value == Decimal("6.5")
