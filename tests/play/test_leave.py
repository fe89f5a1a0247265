"""Leave (docs/clock.md §5, docs/play-clock-ops.md): announced before it starts, within the
year's days (regular and special apart), cancellable before it begins; it stops both clocks in
all the player's games here, and the opponents are told."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.play.leave import cancel_leave, leave_overview, take_leave
from apps.play.models import Leave, PlayedGame
from tests.play.clockworld import moved, world
from tests.worlds.play import START, build_play_world

__all__ = ["world"]

DAY = timedelta(days=1)
TODAY = START.date()  # 2027-01-04
# The pages and the API take the real clock: their leave is next year's.
NEXT = date.today().year + 1


def test_leave_stops_both_clocks_in_every_game_of_the_player(
    db, django_capture_on_commit_callbacks, mailoutbox
):
    w = build_play_world(django_capture_on_commit_callbacks)
    black = w.users["black"]
    mine = PlayedGame.objects.filter(game__black__user=black) | PlayedGame.objects.filter(
        game__white__user=black
    )
    before = dict(mine.values_list("pk", "loses_at"))
    assert len(before) == 4  # the black player's four games, all with White to move
    mailoutbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        leave = take_leave(black, date(2027, 1, 10), date(2027, 1, 19), now=START)

    after = dict(mine.values_list("pk", "loses_at"))
    # Black is not to move anywhere: White's clocks stop for Black's ten days all the same.
    assert all(after[pk] == before[pk] + 10 * DAY for pk in before)
    event = AuditEvent.objects.get(action=Action.PLAY_LEAVE_TAKEN)
    assert event.actor == black and event.data["games"] == 4 and event.data["leave"] == leave.pk
    # Each opponent with an address is told once, with the games and their way in.
    opponents = {m.to[0] for m in mailoutbox}
    assert w.game.white.email in opponents and len(mailoutbox) == len(opponents) == 4
    notice = next(m for m in mailoutbox if m.to == [w.game.white.email])
    assert "on leave from 2027-01-10 to 2027-01-19" in notice.subject
    assert "/accounts/login/?next=" in notice.body or "/accounts/claim/" in notice.body


def test_cancelling_before_it_begins_runs_the_clocks_again(world):
    played = moved(world, [START + DAY])  # Black to move
    original = played.loses_at
    leave = take_leave(world.users["white"], date(2027, 1, 10), date(2027, 1, 14), now=START)
    played.refresh_from_db()
    assert played.loses_at == original + 5 * DAY
    cancel_leave(world.users["white"], leave.pk, now=START + DAY)
    played.refresh_from_db()
    assert played.loses_at == original
    assert Leave.objects.get(pk=leave.pk).cancelled_at is not None
    assert AuditEvent.objects.filter(action=Action.PLAY_LEAVE_CANCELLED).count() == 1


def test_a_leave_begun_cannot_be_cancelled_nor_anothers(world):
    white = world.users["white"]
    leave = take_leave(white, date(2027, 1, 10), date(2027, 1, 14), now=START)
    with pytest.raises(ActionError) as begun:
        cancel_leave(white, leave.pk, now=START + 6 * DAY)
    assert begun.value.code == ErrorCode.WRONG_STATUS
    with pytest.raises(ActionError) as foreign:
        cancel_leave(world.users["black"], leave.pk, now=START)
    assert foreign.value.code == ErrorCode.NOT_FOUND


@pytest.mark.parametrize(
    ("first", "last", "problem"),
    [
        (TODAY, TODAY + 2 * DAY, "not_in_advance"),
        (date(2027, 1, 12), date(2027, 1, 25), "overlap"),
        (date(2027, 2, 1), date(2027, 3, 31), "over_allowance"),
    ],
)
def test_a_leave_is_refused_with_the_reason_and_nothing_changes(world, first, last, problem):
    white = world.users["white"]
    take_leave(white, date(2027, 1, 20), date(2027, 1, 29), now=START)
    with pytest.raises(ActionError) as refused:
        take_leave(white, first, last, now=START)
    assert refused.value.code == ErrorCode.INVALID_INPUT
    assert [d["problem"] for d in refused.value.details] == [problem]
    assert Leave.objects.filter(user=white).count() == 1


def test_the_stage_sets_the_days_and_special_leave_counts_apart(
    db, django_capture_on_commit_callbacks
):
    w = build_play_world(django_capture_on_commit_callbacks, leave_days=10, special_leave_days=5)
    white = w.users["white"]
    take_leave(white, date(2027, 2, 1), date(2027, 2, 10), now=START)
    with pytest.raises(ActionError) as over:
        take_leave(white, date(2027, 3, 1), date(2027, 3, 1), now=START)
    assert "the allowance is 10" in over.value.message
    take_leave(white, date(2027, 3, 1), date(2027, 3, 5), special=True, now=START)
    with pytest.raises(ActionError):
        take_leave(white, date(2027, 4, 1), date(2027, 4, 1), special=True, now=START)
    [year, _next] = leave_overview(white.pk, TODAY).years
    assert (year.days, year.used, year.left) == (10, 10, 0)
    assert (year.special_days, year.special_used, year.special_left) == (5, 5, 0)


def test_the_api_shows_takes_and_cancels_leave(world, client):
    client.force_login(world.users["white"])
    url = "/api/me/leave/"
    overview = client.get(url).json()
    assert overview["years"][0]["days"] == 45 and overview["leave"] == []
    taken = client.post(
        url,
        {"starts_on": f"{NEXT}-06-01", "ends_on": f"{NEXT}-06-03"},
        content_type="application/json",
    )
    assert taken.status_code == 201
    assert taken.json()["days"] == 3 and taken.json()["cancellable"] is True
    bad = client.post(
        url,
        {"starts_on": f"{NEXT}-06-02", "ends_on": f"{NEXT}-06-02"},
        content_type="application/json",
    )
    assert bad.status_code == 400 and "overlaps" in bad.json()["message"]
    backwards = client.post(
        url,
        {"starts_on": f"{NEXT}-07-02", "ends_on": f"{NEXT}-07-01"},
        content_type="application/json",
    )
    assert backwards.status_code == 400
    years = {y["year"]: y for y in client.get(url).json()["years"]}
    assert years[NEXT]["used"] == 3 and years[NEXT]["left"] == 42
    assert client.delete(f"{url}{taken.json()['id']}/").status_code == 204
    assert client.delete(f"{url}{taken.json()['id']}/").status_code == 404
    client.logout()
    assert client.get(url).status_code == 403


def test_my_games_shows_the_leave_section_and_its_form_takes_leave(world, client):
    client.force_login(world.users["white"])
    page = client.get("/me/")
    assert page.status_code == 200 and 'id="leave"' in page.text
    answer = client.post("/me/leave/", {"starts_on": f"{NEXT}-06-01", "ends_on": f"{NEXT}-06-10"})
    assert answer.status_code == 302 and answer["Location"].endswith("/me/#leave")
    leave = Leave.objects.get(user=world.users["white"])
    page = client.get("/me/")
    assert str(NEXT) in page.text and f"/me/leave/{leave.pk}/cancel/" in page.text
    refused = client.post("/me/leave/", {"starts_on": f"{NEXT}-06-05", "ends_on": f"{NEXT}-06-06"})
    assert refused.status_code == 302 and Leave.objects.count() == 1
    assert "overlaps" in client.get("/me/").text
    assert client.post(f"/me/leave/{leave.pk}/cancel/").status_code == 302
    assert Leave.objects.get(pk=leave.pk).cancelled_at is not None


def test_a_player_with_no_game_here_sees_no_leave_section(world, client):
    client.force_login(world.users["stranger"])
    assert 'id="leave"' not in client.get("/me/").text
