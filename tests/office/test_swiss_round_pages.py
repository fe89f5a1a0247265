"""A Swiss stage's own pages: a page a round (boards with White, Black, their points before
the round and the result; the bye; the players not paired), results entered on it through the
one result form, the standings after each round, and no closed-circle wording anywhere on the
stage; the same round through the API."""

import re
from fractions import Fraction
from html import unescape

import pytest
from django.urls import reverse

from apps.core.models import AuditEvent
from apps.entrants.models import StageEntry
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Seat, SwissBye
from apps.office.services import publish_draw, start_draw
from apps.office.swiss.late import add_late_entrant
from apps.results.services import enter_result, withdraw_entrant
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from apps.standings.groups import compute_group, recompute_group
from apps.standings.models import GroupStanding
from apps.standings.swiss_rounds import round_sheet

from .conftest import api_client, user
from .test_swiss import drawn_and_published, play_round, swiss_stage

ROUNDS = 4


@pytest.fixture
def organizer(db):
    return user("roundsorg")


@pytest.fixture
def stage(organizer, django_capture_on_commit_callbacks):
    """A published Swiss of 11 players and 4 rounds: round 1 paired, with a bye."""
    return drawn_and_published(
        organizer,
        swiss_stage(organizer, count=11, rounds=ROUNDS),
        django_capture_on_commit_callbacks,
    )


def round_url(stage, number, group=1):
    return reverse("group-round", args=[stage.tournament.slug, stage.order, group, number])


def group_url(stage, name="group", *args):
    return reverse(name, args=[stage.tournament.slug, stage.order, 1, *args])


def text(response) -> str:
    """The page's visible text, tags out, spaces folded."""
    html = response.content.decode()
    html = re.sub(r"<(script|style)\b.*?</\1>", " ", html, flags=re.S)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def played_through(organizer, stage, capture, rounds):
    """Play ``rounds`` rounds (the last result of each pairs the next, as in production)."""
    for number in range(1, rounds + 1):
        with capture(execute=True):
            play_round(organizer, stage, number, offset=number)
    recompute_group(stage.groups.get().pk)


# ---------------------------------------------------------------------------
# The round page
# ---------------------------------------------------------------------------


def test_a_round_page_lists_every_board_and_the_bye(client, stage):
    group = stage.groups.get()
    page = client.get(round_url(stage, 1))
    assert page.status_code == 200
    body = text(page)
    assert "Round 1 of 4" in body
    games = list(Game.objects.filter(group=group, round=1).order_by("number"))
    assert len(games) == 5
    html = page.content.decode()
    rows = re.findall(r'<tr id="board-(\d+)">(.*?)</tr>', html, flags=re.S)
    assert [int(n) for n, _ in rows] == [1, 2, 3, 4, 5]
    for (_n, row), game in zip(rows, games, strict=True):
        white, black = row.index(game.white.name), row.index(game.black.name)
        assert white < black  # White, then the result, then Black
        assert "(0)" in row  # nobody has a point before round 1
    bye = SwissBye.objects.get(group=group, round=1).entrant
    bye_line = re.search(r'<p class="bye-line".*?</p>', html, flags=re.S).group(0)
    assert bye.name in bye_line
    assert "Not paired" not in body
    # the public sees results, not forms
    assert "<form" not in html.split('id="pairings"')[1].split('id="standings"')[0]


def test_points_before_the_round_and_results_shown(organizer, client, stage, capture):
    played_through(organizer, stage, capture, 1)
    group = stage.groups.get()
    sheet = round_sheet(group, 2)
    after_one = {
        s.figures.id: s.figures.points for s in compute_group(group, through_round=1).standings
    }
    for board in sheet.boards:
        assert board.white.points == after_one[board.white.entrant_id]
        assert board.black.points == after_one[board.black.entrant_id]
    assert any(b.white.points or b.black.points for b in sheet.boards)
    page = client.get(round_url(stage, 1)).content.decode()
    for game in Game.objects.filter(group=group, round=1):
        board = next(b for b in round_sheet(group, 1).boards if b.game_id == game.pk)
        assert board.result_text in page
    # round 1's bye has a win's point before round 2
    bye = SwissBye.objects.get(group=group, round=1).entrant_id
    assert after_one[bye] == 1


def test_absent_players_are_listed_with_the_reason(organizer, client, stage, capture):
    played_through(organizer, stage, capture, 1)
    late = add_late_entrant(organizer, stage, name="Late Larry", nation="ITA", rating=2000)
    assert late.first_round == 3
    quitter = Game.objects.filter(group__stage=stage, round=2).order_by("number").first().white
    with capture(execute=True):
        withdraw_entrant(organizer, StageEntry.objects.get(stage=stage, entrant=quitter), "ill")
    two = client.get(round_url(stage, 2)).content.decode()
    absent = re.search(r'<p class="absent-line".*?</p>', two, flags=re.S).group(0)
    assert "Late Larry" in absent and quitter.name not in absent
    assert "badge wd" not in absent
    # the withdrawal made the quitter's round-2 game a forfeit: still a board of round 2
    board = re.search(rf'<tr id="board-1">.*?{re.escape(quitter.name)}.*?</tr>', two, flags=re.S)
    assert board is not None and ("+−" in board.group(0) or "−+" in board.group(0))
    with capture(execute=True):
        play_round(organizer, stage, 2)
    three = client.get(round_url(stage, 3)).content.decode()
    absent = re.search(r'<p class="absent-line".*?</p>', three, flags=re.S).group(0)
    assert quitter.name in absent and "badge wd" in absent
    assert "Late Larry" not in absent and "Late Larry" in three.split('id="pairings"')[1]


def test_the_rounds_address_goes_to_the_current_round(organizer, client, stage, capture):
    assert client.get(group_url(stage, "group-rounds"))["Location"] == round_url(stage, 1)
    played_through(organizer, stage, capture, 1)
    assert client.get(group_url(stage, "group-rounds"))["Location"] == round_url(stage, 2)
    page = client.get(round_url(stage, 2)).content.decode()
    assert 'aria-current="page">2</a>' in page
    assert f'href="{round_url(stage, 1)}"' in page
    assert client.get(round_url(stage, 3)).status_code == 404  # not paired yet
    assert client.get(round_url(stage, 0)).status_code == 404


def other_stage(organizer, capture, fmt: str, count: int, slug: str):
    """A published stage of another format (one group)."""
    cup = create_tournament(
        organizer,
        name=slug.title(),
        slug=slug,
        games_per_player=6,
        stages=[{"format": fmt, "min_group_size": count}],
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(count, slug)))
    close_registration(organizer, stage)
    with capture(execute=True):
        start_draw(organizer, stage, "seed")
    with capture(execute=True):
        publish_draw(organizer, stage)
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PUBLISHED
    return stage


def test_a_stage_of_another_format_has_no_round_pages(client, organizer, capture):
    stage = other_stage(organizer, capture, "round_robin", 6, "rr")
    assert client.get(round_url(stage, 1)).status_code == 404
    assert client.get(group_url(stage, "group-rounds")).status_code == 404
    group = stage.groups.get()
    assert api_client().get(f"/api/groups/{group.pk}/rounds/1/").status_code == 404
    body = text(client.get(group_url(stage)))
    assert "Rounds" not in body


# ---------------------------------------------------------------------------
# Results entered round by round
# ---------------------------------------------------------------------------


def test_the_td_gets_a_form_on_each_open_board_and_it_posts_through_the_action(
    organizer, client, stage
):
    group = stage.groups.get()
    td = user("roundtd")
    group.td = td
    group.save(update_fields=["td"])
    client.force_login(td)
    url = round_url(stage, 1)
    html = client.get(url).content.decode()
    games = list(Game.objects.filter(group=group, round=1).order_by("number"))
    form_url = group_url(stage, "game-result", games[0].number)
    assert html.count('class="board-result"') == 5
    assert f'action="{form_url}"' in html
    answer = client.post(
        form_url,
        {"result": "1-0", "version": games[0].version, "next": f"{url}#board-1"},
    )
    assert answer.status_code == 302 and answer["Location"] == f"{url}#board-1"
    games[0].refresh_from_db()
    assert games[0].result == "1-0" and games[0].version == 1
    # the one action's audit event, by the TD
    event = AuditEvent.objects.filter(action="result.entered").order_by("-id").first()
    assert event is not None and event.actor_id == td.pk
    page = client.get(url).content.decode()
    assert page.count('class="board-result"') == 4  # the finished board has no form ...
    correct = f"{form_url}?next={url}%23board-1"
    assert correct in page  # ... but a link to correct it, back to this page
    form_page = client.get(f"{form_url}?next={url}%23board-1").content.decode()
    assert f'href="{url}#board-1"' in form_page  # "Back" goes to the round


def test_a_correction_without_a_reason_is_refused_and_nothing_changes(organizer, client, stage):
    group = stage.groups.get()
    game = Game.objects.filter(group=group, round=1).order_by("number").first()
    enter_result(organizer, game, "1-0", expected_version=0)
    client.force_login(organizer)
    url = group_url(stage, "game-result", game.number)
    answer = client.post(url, {"result": "0-1", "version": 1, "next": round_url(stage, 1)})
    assert answer.status_code == 400
    game.refresh_from_db()
    assert game.result == "1-0"


def test_strangers_get_no_forms_and_cannot_post(client, stage):
    client.force_login(user("nosy"))
    html = client.get(round_url(stage, 1)).content.decode()
    assert 'class="board-result"' not in html
    game = Game.objects.filter(group__stage=stage, round=1).first()
    answer = client.post(
        group_url(stage, "game-result", game.number), {"result": "1-0", "version": 0}
    )
    assert answer.status_code == 403
    game.refresh_from_db()
    assert game.result == ""


def test_the_organizer_pairs_the_next_round_from_the_round_page(
    organizer, client, stage, capture, monkeypatch
):
    from apps.office.swiss import tasks
    from apps.office.swiss.pairing import pair_next_round

    queued = []
    # No worker: the queued pairings wait (the last result would pair the round by itself).
    monkeypatch.setattr(tasks.pair_swiss_round, "delay", lambda *args: queued.append(args))
    client.force_login(organizer)
    html = client.get(round_url(stage, 1)).content.decode()
    assert "Pair round 2" in html and "disabled" in html.split("Pair round 2")[0][-120:]
    with capture(execute=True):
        play_round(organizer, stage, 1)
    html = client.get(round_url(stage, 1)).content.decode()
    assert "disabled" not in html.split("Pair round 2")[0][-120:]
    queued.clear()
    next_round = reverse("stage-next-round", args=[stage.tournament.slug, stage.order])
    with capture(execute=True):
        # a "next" off the site is not followed: back to the dashboard
        answer = client.post(next_round, {"next": "https://elsewhere.example/"})
    assert answer["Location"] == reverse("stage-manage", args=[stage.tournament.slug, 1]) + (
        "#rounds"
    )
    assert queued == [(stage.pk, 2, organizer.pk)]
    pair_next_round(organizer, stage, 2)  # what the queued task does
    with capture(execute=True):
        play_round(organizer, stage, 2)
    queued.clear()
    with capture(execute=True):
        answer = client.post(next_round, {"next": group_url(stage, "group-rounds")})
    assert answer["Location"] == group_url(stage, "group-rounds")
    assert queued == [(stage.pk, 3, organizer.pk)]
    pair_next_round(organizer, stage, 3)
    assert client.get(answer["Location"])["Location"] == round_url(stage, 3)


# ---------------------------------------------------------------------------
# Standings after each round
# ---------------------------------------------------------------------------


def test_standings_after_a_round_count_only_its_rounds(organizer, client, stage, capture):
    played_through(organizer, stage, capture, ROUNDS)
    group = stage.groups.get()
    final = {
        s.entrant_id: (s.place, Fraction(str(s.points)))
        for s in GroupStanding.objects.filter(group=group)
    }
    last = round_sheet(group, ROUNDS)
    assert {
        line.player.entrant_id: (line.place, Fraction(line.points)) for line in last.standings
    } == final
    two = round_sheet(group, 2)
    after_two = {line.player.entrant_id: Fraction(line.points) for line in two.standings}
    assert after_two != {e: p for e, (_, p) in final.items()}
    # after round 2 nobody has more than 2 points, and every point comes from rounds 1-2
    assert max(after_two.values()) <= 2
    expected = compute_group(group, through_round=2)
    assert [s.figures.id for s in expected.standings] == [
        line.player.entrant_id for line in two.standings
    ]
    page = text(client.get(round_url(stage, 2)))
    assert "Standings after round 2" in page
    assert "The games of the later rounds are not counted here." in page
    top = two.standings[0]
    assert f"{top.place} {top.player.name}" in page
    # the group's standings page leads to the standings after each round
    standings = client.get(group_url(stage, "group-standings")).content.decode()
    for number in range(1, ROUNDS + 1):
        assert f'href="{round_url(stage, number)}#standings"' in standings


# ---------------------------------------------------------------------------
# No closed-circle clothes on a Swiss stage
# ---------------------------------------------------------------------------

SILLI_WORDS = re.compile(
    r"games per player|formula|principle|certificate|closed circle|conflict|violat"
    r"|groups of at least|nations kept apart",
    re.IGNORECASE,
)


def silli_words(body: str) -> list[str]:
    # the site's name, "Closed Circle", is in every page's top bar and footer
    return SILLI_WORDS.findall(body.replace("Closed Circle", ""))


def test_no_silli_wording_on_any_page_of_a_swiss_stage(organizer, client, stage, capture):
    played_through(organizer, stage, capture, 1)
    client.force_login(organizer)
    slug, order = stage.tournament.slug, stage.order
    job = stage.draw_jobs.first()
    pages = {
        "tournament": reverse("tournament", args=[slug]),
        "stage": reverse("stage", args=[slug, order]),
        "manage": reverse("stage-manage", args=[slug, order]),
        "draw review": reverse("draw-progress", args=[slug, order, job.pk]),
        "group": group_url(stage),
        "standings": group_url(stage, "group-standings"),
        "crosstable": group_url(stage, "group-crosstable"),
        "results": group_url(stage, "group-results"),
        "round 1": round_url(stage, 1),
        "round 2": round_url(stage, 2),
    }
    for name, address in pages.items():
        page = client.get(address)
        assert page.status_code == 200, name
        body = text(page)
        if name == "tournament":
            # the tournament's own settings (every stage's default) stay
            body = body.split("Settings")[0]
        assert silli_words(body) == [], (name, silli_words(body))
    assert "Rounds 4" in text(client.get(pages["stage"]))
    group_page = text(client.get(pages["group"]))
    assert "Rounds 4 · round 1 · round 2" in group_page
    assert "Dutch system" in group_page
    review = text(client.get(pages["draw review"]))
    assert "Round 1 of 4 is paired" in review
    results = client.get(pages["results"]).content.decode()
    assert 'id="results-grid"' not in results and round_url(stage, 2) in results


def test_a_closed_circle_stage_keeps_its_words(client, organizer, capture):
    """The same templates still say formula, games per player and certificate for Silli."""
    stage = other_stage(organizer, capture, "silli", 30, "silli")
    body = text(client.get(group_url(stage)))
    assert "Games per player 6" in body and "Formula" in body and "principles hold" in body
    assert "Rounds" not in body
    stage_page = text(client.get(reverse("stage", args=[stage.tournament.slug, stage.order])))
    assert "Games per player 6" in stage_page and "Certificate" in stage_page


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------


def test_a_round_through_the_api(organizer, stage, capture):
    played_through(organizer, stage, capture, 2)
    group = stage.groups.get()
    answer = api_client().get(f"/api/groups/{group.pk}/rounds/2/")
    assert answer.status_code == 200
    body = answer.json()
    assert body["group"] == group.pk and body["round"] == 2 and body["rounds"] == ROUNDS
    assert body["paired"] == 3 and body["open_games"] == 0
    games = list(Game.objects.filter(group=group, round=2).order_by("number"))
    assert [b["game"] for b in body["boards"]] == [g.pk for g in games]
    first = body["boards"][0]
    assert first["board"] == 1 and first["result"] == games[0].result
    assert first["url"] == f"/api/games/{games[0].pk}/"
    assert first["white"]["entrant"]["code"] == games[0].white.code
    sheet = round_sheet(group, 2)
    assert first["white"]["points_before"] == float(sheet.boards[0].white.points)
    bye = SwissBye.objects.get(group=group, round=2).entrant
    assert body["bye"]["entrant"]["code"] == bye.code
    assert body["absent"] == []
    assert [r["entrant"]["code"] for r in body["standings"]] == [
        line.player.code for line in sheet.standings
    ]
    assert body["standings"][0]["place"] == "1" or "-" in body["standings"][0]["place"]
    seats = Seat.objects.filter(group=group).count()
    assert len(body["standings"]) == seats
    missing = api_client().get(f"/api/groups/{group.pk}/rounds/4/")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


# ---------------------------------------------------------------------------
# Cached for the public, in Italian too
# ---------------------------------------------------------------------------


def test_the_round_page_is_cached_for_the_public_until_a_result_changes_it(
    organizer, client, stage
):
    group = stage.groups.get()
    url = round_url(stage, 1)
    api = f"/api/groups/{group.pk}/rounds/1/"
    assert client.get(url)["X-Cache"] == "miss"
    assert client.get(url)["X-Cache"] == "hit"
    assert client.get(api)["X-Cache"] == "miss"
    assert client.get(api)["X-Cache"] == "hit"
    game = Game.objects.filter(group=group, round=1).order_by("number").first()
    enter_result(organizer, game, "0-1", expected_version=0)
    again = client.get(url)
    assert again["X-Cache"] == "miss"
    assert re.search(r'<tr id="board-1">.*?>0-1</a>', again.content.decode(), flags=re.S)
    assert client.get(api).json()["boards"][0]["result"] == "0-1"


def test_the_round_page_in_italian(client, stage):
    body = text(client.get(round_url(stage, 1), HTTP_ACCEPT_LANGUAGE="it"))
    assert "Turno 1 di 4" in body
    assert "Abbinamenti" in body and "Scacchiera" in body and "Riposo" in body
    assert "Classifica dopo il turno 1" in body
    assert "Pairings" not in body and "Standings after" not in body
