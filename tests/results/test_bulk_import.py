"""Importing results from CSV and PGN files: every refusal listed by line and changing
nothing, idempotent imports, stored game scores and dates, one standings recompute per
group, the API (group and stage) and the pages (upload, preview, confirm)."""

from __future__ import annotations

import gc
from datetime import date

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from apps.core import bulk
from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent, ResultChange
from apps.core.people import display_name
from apps.entrants.models import Entrant
from apps.groups.models import Game, Group
from apps.results import imports
from apps.results.history import game_history, recent_changes, result_label
from apps.results.imports import import_results
from apps.results.services import enter_result
from apps.stages.models import Stage
from tests.worlds.published import build_world
from tests.worlds.results import api_client

pytestmark = pytest.mark.django_db

HEADER = "white,black,result,date,pgn"
SCHOLARS_MATE = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"
FOOLS_MATE = "1. f3 e5 2. g4 Qh4# 0-1"
SHUFFLE_DRAW = "1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2"
# 12... Nf3 is illegal: no black knight reaches f3.
ILLEGAL_AT_12 = (
    "1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O "
    "9. h3 Nb8 10. d4 Nbd7 11. Nbd2 Bb7 12. Bc2 Nf3"
)


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


def games_of(group: Group) -> list[Game]:
    return list(
        Game.objects.filter(group=group).select_related("white", "black").order_by("number")
    )


def line(game: Game, result: str, when: str = "", pgn: str = "") -> str:
    return f'{game.white.code},{game.black.code},{result},{when},"{pgn}"'


def csv_file(*lines: str) -> str:
    return "\n".join([HEADER, *lines]) + "\n"


def snapshot(group: Group) -> list[tuple]:
    return list(
        Game.objects.filter(group=group)
        .order_by("number")
        .values_list("result", "version", "pgn", "finished_on")
    )


def refused(user, text: str, **scope) -> ActionError:
    with pytest.raises(ActionError) as error:
        import_results(user, text=text, **scope)
    return error.value


def messages_by_line(error: ActionError) -> dict[int, str]:
    assert error.code == ErrorCode.BAD_ROWS
    found: dict[int, str] = {}
    for detail in error.details:
        found.setdefault(detail["line"], detail["message"])
    return found


def pgn_game(game: Game, movetext: str, result: str, *, by_name=False, date_tag="") -> str:
    tags = [
        '[Event "Club championship"]',
        '[Site "?"]',
        f'[Date "{date_tag or "????.??.??"}"]',
        '[Round "?"]',
        f'[White "{game.white.name}"]',
        f'[Black "{game.black.name}"]',
        f'[Result "{result}"]',
    ]
    if not by_name:
        tags += [f'[WhiteCode "{game.white.code}"]', f'[BlackCode "{game.black.code}"]']
    return "\n".join(tags) + "\n\n" + movetext + "\n"


# ---------------------------------------------------------------------------
# CSV: a good file, and importing it again
# ---------------------------------------------------------------------------


def test_a_good_csv_applies_and_a_second_import_changes_nothing(world):
    td, group = world.users["td"], world.group
    games = games_of(group)
    text = csv_file(
        line(games[0], "1-0", "2025-03-01", SCHOLARS_MATE),
        line(games[1], "0-1"),
        line(games[2], "1/2-1/2", "2025-03-02"),
        line(games[3], "+-"),
        line(games[4], "'-+"),  # as a spreadsheet keeps "+-" text
        line(games[5], "--"),
    )
    report = import_results(td, group=group, text=text)
    assert (report.applied, report.results, report.unchanged) == (6, 6, 0)
    assert report.file_format == "csv"
    stored = {g.number: g for g in games_of(group)}
    expected = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--"]
    assert [stored[g.number].result for g in games[:6]] == expected
    assert all(stored[g.number].version == 1 and stored[g.number].updated_at for g in games[:6])
    first = stored[games[0].number]
    assert first.finished_on == date(2025, 3, 1)
    assert first.pgn.startswith('[Event "Accounts Cup"]\n[Site "?"]\n[Date "2025.03.01"]')
    assert f'[White "{first.white.name}"]' in first.pgn
    assert f'[WhiteCode "{first.white.code}"]' in first.pgn and '[Result "1-0"]' in first.pgn
    assert first.pgn.rstrip().endswith("4. Qxf7# 1-0")
    assert stored[games[2].number].finished_on == date(2025, 3, 2)
    assert stored[games[1].number].pgn == "" and stored[games[1].number].finished_on is None
    # the audit trail: one import event, and one ResultChange row per game, which each
    # game's history and the group's recent changes show
    summary = AuditEvent.objects.get(action=Action.RESULTS_IMPORTED)
    assert not AuditEvent.objects.filter(action=Action.RESULT_ENTERED).exists()
    assert summary.group_id == group.pk and summary.actor_id == td.pk
    assert (summary.data["entered"], summary.data["scored"]) == (6, 0)
    changes = ResultChange.objects.filter(event=summary)
    assert sorted(changes.values_list("game_id", "old", "new")) == sorted(
        (g.pk, "", result) for g, result in zip(games[:6], expected, strict=True)
    )
    assert set(changes.values_list("group_id", flat=True)) == {group.pk}
    history = game_history(stored[games[0].number])
    assert [(c.what, c.who, c.old, c.new) for c in history] == [
        ("imported", display_name(td), result_label(""), result_label("1-0"))
    ]
    assert sorted((c.what, c.game) for c in recent_changes(group)) == sorted(
        ("imported", f"{g.white.name} – {g.black.name}") for g in games[:6]
    )

    before = snapshot(group)
    again = import_results(td, group=group, text=text)
    assert (again.applied, again.unchanged) == (0, 6)
    assert snapshot(group) == before
    assert ResultChange.objects.count() == 6
    assert len(game_history(stored[games[0].number])) == 1


def test_a_dry_run_writes_nothing(world):
    group = world.group
    games = games_of(group)
    before = snapshot(group)
    events = AuditEvent.objects.count()
    report = import_results(
        world.users["td"],
        group=group,
        text=csv_file(line(games[0], "1-0"), line(games[1], "0-1")),
        dry_run=True,
    )
    assert report.dry_run and report.applied == 2
    assert [c.number for c in report.changes] == [games[0].number, games[1].number]
    assert snapshot(group) == before and AuditEvent.objects.count() == events


def test_a_finished_game_with_the_same_result_is_unchanged_and_may_get_its_score(world):
    organizer, group = world.users["organizer"], world.group
    game = games_of(group)[0]
    enter_result(organizer, game, "1-0", expected_version=0)
    report = import_results(organizer, group=group, text=csv_file(line(game, "1-0")))
    assert (report.applied, report.unchanged) == (0, 1)
    entered_at = Game.objects.get(pk=game.pk).updated_at
    report = import_results(
        organizer, group=group, text=csv_file(line(game, "1-0", "2025-01-05", SCHOLARS_MATE))
    )
    assert (report.applied, report.results, report.scores_only) == (1, 0, 1)
    stored = Game.objects.get(pk=game.pk)
    assert (stored.result, stored.version, stored.finished_on) == ("1-0", 2, date(2025, 1, 5))
    assert "Qxf7#" in stored.pgn
    # the result and the moment it was entered stay (the standings order games by it)
    assert stored.updated_at == entered_at
    assert [c.what for c in game_history(stored)] == ["entered"]


@pytest.mark.parametrize("copy_above", [None, 0], ids=["a few games", "many games"])
def test_results_and_scores_are_written_together(world, monkeypatch, copy_above):
    # A few games are written a statement each; many (on PostgreSQL) by COPY into a
    # temporary table and one UPDATE: the same values either way.
    if copy_above is not None:
        monkeypatch.setattr(bulk, "COPY_ABOVE", copy_above)
    organizer, group = world.users["organizer"], world.group
    games = games_of(group)
    enter_result(organizer, games[0], "1-0", expected_version=0)
    entered_at = Game.objects.get(pk=games[0].pk).updated_at
    before = snapshot(group)
    text = csv_file(
        line(games[0], "1-0", "2025-01-05", SCHOLARS_MATE),  # its score and date only
        line(games[1], "0-1", "2025-01-06"),
        line(games[2], "1/2-1/2", "", SHUFFLE_DRAW),
        line(games[3], "+-"),
    )
    report = import_results(organizer, group=group, text=text)
    assert (report.applied, report.results, report.scores_only) == (4, 3, 1)
    first, second, third, fourth = (Game.objects.get(pk=g.pk) for g in games[:4])
    assert (first.result, first.version, first.finished_on) == ("1-0", 2, date(2025, 1, 5))
    assert "Qxf7#" in first.pgn and first.updated_at == entered_at
    assert (second.result, second.version, second.finished_on) == ("0-1", 1, date(2025, 1, 6))
    assert second.pgn == "" and not second.adjudicated
    assert (third.result, third.version, third.finished_on) == ("1/2-1/2", 1, None)
    assert third.pgn.rstrip().endswith("4. Ng1 Ng8 1/2-1/2")
    assert (fourth.result, fourth.version, fourth.pgn) == ("+-", 1, "")
    assert all(g.updated_at > entered_at for g in (second, third, fourth))
    assert snapshot(group)[4:] == before[4:]


# ---------------------------------------------------------------------------
# CSV: every refusal, each with its line, and nothing changed
# ---------------------------------------------------------------------------


def test_every_bad_line_is_listed_and_nothing_is_applied(world):
    organizer, group = world.users["organizer"], world.group
    games = games_of(group)
    other = games_of(world.other_group)[0]
    enter_result(organizer, games[5], "1-0", expected_version=0)
    pairs = {(g.white_id, g.black_id) for g in games}
    a, b = next(
        (x, y)
        for x in {g.white for g in games}
        for y in {g.black for g in games}
        if x != y and (x.pk, y.pk) not in pairs and (y.pk, x.pk) not in pairs
    )
    text = csv_file(
        line(games[0], "1-0"),  # 2: good
        f"NOBODY,{games[1].black.code},1-0,,",  # 3: unknown player
        f"{games[1].white.code},{other.white.code},1-0,,",  # 4: plays in the other group
        f"{a.code},{b.code},1-0,,",  # 5: no such pairing
        f"{games[2].black.code},{games[2].white.code},1-0,,",  # 6: colours swapped
        line(games[5], "0-1"),  # 7: finished already with 1-0
        line(games[5], "1-0"),  # 8: listed twice (and unchanged)
        line(games[3], "1/2-1/2", "", ILLEGAL_AT_12),  # 9: illegal move
        line(games[4], "0-1", "", SCHOLARS_MATE),  # 10: the pgn says 1-0
        line(games[0], "1-0"),  # 11: listed twice
        line(games[6], "2-0"),  # 12: no result code
        line(games[7], "", ""),  # 13: no result
        line(games[8], "1-0", "2025-02-30"),  # 14: no date
        line(games[9], "1-0", "2999-01-01"),  # 15: in the future
        line(games[10], "+-", "", SCHOLARS_MATE),  # 16: a forfeit with moves
        line(games[11], "0-1", "", FOOLS_MATE),  # 17: good
    )
    before = snapshot(group)
    events = AuditEvent.objects.count()
    error = refused(organizer, text, group=group)
    found = messages_by_line(error)
    assert sorted(found) == list(range(3, 17))
    assert "unknown player NOBODY" in found[3]
    assert f"plays in group {world.other_group.number}, not in group" in found[4]
    assert "no such pairing" in found[5]
    assert found[6].startswith("colours swapped: this pairing has ")
    assert games[2].white.name in found[6]
    assert "finished already with 1-0" in found[7]
    assert found[8] == "the game is listed twice: also on line 7"
    assert found[9] == "illegal move 12… Nf3"
    assert "does not match the result 0-1" in found[10]
    assert found[11] == "the game is listed twice: also on line 2"
    assert "'2-0' is not a result code" in found[12]
    assert "the result is missing" in found[13]
    assert "2025-02-30" in found[14] and "in the future" in found[15]
    assert "forfeit" in found[16]
    assert "14 bad lines; nothing was imported" in error.message
    assert snapshot(group) == before and AuditEvent.objects.count() == events


def test_a_closed_group_refuses_its_changes_but_not_its_unchanged_lines(world):
    organizer, group = world.users["organizer"], world.group
    games = games_of(group)
    enter_result(organizer, games[0], "1-0", expected_version=0)
    Group.objects.filter(pk=group.pk).update(closed_at=timezone.now())
    group.refresh_from_db()
    error = refused(organizer, csv_file(line(games[0], "1-0"), line(games[1], "0-1")), group=group)
    assert messages_by_line(error) == {
        3: f"Group {group.number} is closed; an organizer can reopen it for a correction."
    }
    assert import_results(organizer, group=group, text=csv_file(line(games[0], "1-0"))).unchanged


def test_a_stage_not_in_play_refuses_with_409(world):
    organizer = world.users["organizer"]
    Stage.objects.filter(pk=world.stage.pk).update(status=Stage.Status.CLOSED)
    world.stage.refresh_from_db()
    error = refused(organizer, csv_file(line(games_of(world.group)[0], "1-0")), stage=world.stage)
    assert error.code == ErrorCode.WRONG_STATUS and error.http_status == 409


def test_only_the_groups_td_and_organizers_import(world):
    game = games_of(world.group)[0]
    text = csv_file(line(game, "1-0"))
    for role in ("other_td", "player", "anonymous"):
        error = refused(world.users[role], text, group=world.group)
        assert error.code == ErrorCode.PERMISSION_DENIED
    error = refused(world.users["td"], text, stage=world.stage)
    assert error.code == ErrorCode.PERMISSION_DENIED
    assert Game.objects.get(pk=game.pk).result == ""


def test_a_file_that_cannot_be_read_is_refused_at_once(world):
    td, group = world.users["td"], world.group
    error = refused(td, "code,name\nA,B\n", group=group, file_format="csv")
    assert messages_by_line(error)[1].startswith("the first line must name the columns")
    error = refused(td, HEADER + "\n", group=group)
    assert error.code == ErrorCode.INVALID_INPUT


# ---------------------------------------------------------------------------
# PGN
# ---------------------------------------------------------------------------


def test_a_pgn_file_by_codes_and_by_unique_names_stores_scores_and_dates(world):
    td, group = world.users["td"], world.group
    games = games_of(group)
    text = "\n".join(
        [
            pgn_game(games[0], SCHOLARS_MATE, "1-0", date_tag="2025.04.05"),
            pgn_game(games[1], FOOLS_MATE, "0-1", by_name=True, date_tag="2025.04.??"),
            pgn_game(games[2], SHUFFLE_DRAW, "1/2-1/2", by_name=True),
        ]
    )
    report = import_results(td, group=group, text=text)
    assert report.file_format == "pgn" and report.results == 3
    first, second, third = (Game.objects.get(pk=g.pk) for g in games[:3])
    assert (first.result, first.finished_on) == ("1-0", date(2025, 4, 5))
    assert (second.result, second.finished_on) == ("0-1", None)
    assert third.result == "1/2-1/2"
    for stored, game in ((first, games[0]), (second, games[1])):
        roster = stored.pgn.splitlines()[:7]
        assert [tag.split()[0] for tag in roster] == [
            "[Event",
            "[Site",
            "[Date",
            "[Round",
            "[White",
            "[Black",
            "[Result",
        ]
        assert roster[0] == '[Event "Club championship"]'
        assert f'[BlackCode "{game.black.code}"]' in stored.pgn
    assert first.pgn.rstrip().endswith("Qxf7# 1-0")
    # the stored scores import again as they are (here glued together without the blank
    # line a PGN file puts between games): nothing changes
    again = import_results(td, group=group, text="\n".join([first.pgn, second.pgn, third.pgn]))
    assert (again.applied, again.unchanged) == (0, 3)


def test_pgn_refusals_name_the_game_by_its_first_line(world):
    td, group = world.users["td"], world.group
    games = games_of(group)
    shared = games[3].white.name
    Entrant.objects.filter(pk=games[4].white_id).update(name=shared)
    parts = [
        pgn_game(games[0], ILLEGAL_AT_12 + " 1-0", "1-0"),
        pgn_game(games[1], FOOLS_MATE, "1-0"),  # the tag says 1-0, the moves 0-1
        pgn_game(games[2], "1. e4 e5 *", "*"),  # not finished
        # a name two entrants share now
        pgn_game(games[4], SCHOLARS_MATE, "1-0", by_name=True).replace(games[4].white.name, shared),
        pgn_game(games[5], SCHOLARS_MATE, "1-0").replace(games[5].black.code, "NOBODY"),
    ]
    text = "\n".join(parts)
    starts = [1]
    for part in parts[:-1]:
        starts.append(starts[-1] + part.count("\n") + 1)
    error = refused(td, text, group=group)
    found = messages_by_line(error)
    assert sorted(found) == starts
    assert found[starts[0]] == "illegal move 12… Nf3"
    assert "does not match the result 0-1 after the moves" in found[starts[1]]
    assert "the Result tag is *" in found[starts[2]]
    assert f"2 entrants of group {group.number} are named" in found[starts[3]]
    assert "unknown player NOBODY" in found[starts[4]]
    assert all(g.result == "" for g in games_of(group))


PGN_PIECES = st.sampled_from(
    [
        '[Event "x"]\n',
        '[Result "1-0"]\n',
        '[FEN "bad"]\n',
        '[Variant "Atomic"]\n',
        "1. e4 ",
        "e5 ",
        "Nf3 ",
        "a1 ",
        "( ",
        ") ",
        "{ c } ",
        "1-0",
        "*",
        "\n\n",
        "--",
        " $1",
        "?",
        ";x\n",
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(st.lists(PGN_PIECES, max_size=30).map("".join), st.text(max_size=80)))
@example("a1)a3")  # python-chess itself trips over a ")" after an illegal move
def test_any_text_is_read_or_refused_never_a_crash(text):
    imports.read_pgn(text)
    cell = text.replace('"', '""')
    imports.read_csv(f'{HEADER}\nA,B,1-0,,"{cell}"\n')
    try:
        imports.read_csv(text)
    except ActionError as error:
        assert error.code == ErrorCode.BAD_ROWS


# ---------------------------------------------------------------------------
# Standings, and a 100-player group's 500 results
# ---------------------------------------------------------------------------


def test_an_import_leaves_the_cycle_collector_as_it_found_it(world):
    # The import pauses it while it reads, checks and writes (millions of objects for a
    # stage's file), and resumes it after, refused or not.
    td, group, games = world.users["td"], world.group, games_of(world.group)
    assert gc.isenabled()
    import_results(td, group=group, text=csv_file(line(games[0], "1-0")))
    assert gc.isenabled()
    with pytest.raises(ActionError):
        import_results(td, group=group, text=csv_file(line(games[0], "0-1")))
    assert gc.isenabled()
    gc.disable()
    try:
        import_results(td, group=group, text=csv_file(line(games[1], "1-0")), dry_run=True)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_standings_are_marked_once_for_every_group_of_a_stage_import(world, monkeypatch):
    calls = []
    real = imports.schedule_recomputes
    monkeypatch.setattr(
        imports, "schedule_recomputes", lambda ids: calls.append(list(ids)) or real(ids)
    )
    group_games, other_games = games_of(world.group), games_of(world.other_group)
    text = csv_file(
        *(line(g, "1-0") for g in group_games[:5]), *(line(g, "0-1") for g in other_games[:5])
    )
    report = import_results(world.users["organizer"], stage=world.stage, text=text)
    assert report.results == 10
    assert calls == [sorted([world.group.pk, world.other_group.pk])]
    assert Group.objects.filter(pk__in=calls[0], standings_pending=True).count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_hundred_player_groups_500_results_import_in_a_fixed_number_of_queries(
    published_stage, organizer, django_assert_max_num_queries
):
    group = published_stage.groups.order_by("number").first()
    games = games_of(group)
    assert len(games) == 500
    results = ["1-0", "0-1", "1/2-1/2"]
    text = csv_file(
        *(
            line(g, results[i % 3], "2025-05-01", SHUFFLE_DRAW if i % 3 == 2 else "")
            for i, g in enumerate(games)
        )
    )
    # A fixed number of statements whatever the number of lines (the page versions' three
    # bumps after the commit included, and the players' digest tasks, run in-process here:
    # their players' addresses are at example.org, so none is sent, and the check that no
    # import job runs in the group or its stage, and on SQLite the recompute's read of the
    # group's byes, which PostgreSQL reads with its games, and the import's result-change
    # rows, which SQLite takes 200 a statement — its 999 parameters — where PostgreSQL takes
    # them in one: three statements here); the time it takes is the benchmarks' business.
    with django_assert_max_num_queries(54):
        report = import_results(organizer, group=group, text=text)
    assert report.results == 500
    assert Game.objects.filter(group=group, result="").count() == 0
    assert import_results(organizer, group=group, text=text).unchanged == 500


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------


def group_url(group: Group, query: str = "") -> str:
    return f"/api/groups/{group.pk}/results/import/{query}"


def stage_url(stage: Stage, query: str = "") -> str:
    return f"/api/stages/{stage.pk}/results/import/{query}"


def test_api_group_import_in_every_body_form(world):
    td, group = world.users["td"], world.group
    games = games_of(group)
    client = api_client(td)
    text = csv_file(line(games[0], "1-0"))
    response = client.post(group_url(group, "?dry_run=1"), text, content_type="text/csv")
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "dry_run": True,
        "format": "csv",
        "applied": 1,
        "results": 1,
        "unchanged": 0,
        "errors": [],
    }
    assert Game.objects.get(pk=games[0].pk).result == ""
    assert client.post(group_url(group), text, content_type="text/csv").json()["applied"] == 1
    pgn = pgn_game(games[1], FOOLS_MATE, "0-1")
    response = client.post(group_url(group), pgn, content_type="application/x-chess-pgn")
    assert response.json()["format"] == "pgn" and response.json()["applied"] == 1
    response = client.post(
        group_url(group), {"csv": csv_file(line(games[2], "1/2-1/2"))}, format="json"
    )
    assert response.json()["applied"] == 1
    upload = SimpleUploadedFile("games.txt", pgn_game(games[3], SCHOLARS_MATE, "1-0").encode())
    response = client.post(
        group_url(group, "?format=pgn"), {"file": upload, "dry_run": "1"}, format="multipart"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["format"] == "pgn" and response.json()["dry_run"] is True
    assert [g.result for g in games_of(group)[:4]] == ["1-0", "0-1", "1/2-1/2", ""]


def test_api_refusals(world):
    group, games = world.group, games_of(world.group)
    text = csv_file(line(games[0], "1-0"), line(games[0], "1-0"))
    response = api_client(world.users["td"]).post(group_url(group), text, content_type="text/csv")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "bad_rows" and body["details"] == [
        {"line": 3, "message": "the game is listed twice: also on line 2"}
    ]
    good = csv_file(line(games[0], "1-0"))
    for user in (world.users["other_td"], world.users["player"], None):
        response = api_client(user).post(group_url(group), good, content_type="text/csv")
        assert response.status_code == 403
    response = api_client(world.users["td"]).post(
        stage_url(world.stage), good, content_type="text/csv"
    )
    assert response.status_code == 403
    missing = Group(pk=999_999)
    response = api_client(world.users["td"]).post(group_url(missing), good, content_type="text/csv")
    assert response.status_code == 404
    Stage.objects.filter(pk=world.stage.pk).update(status=Stage.Status.CLOSED)
    response = api_client(world.users["organizer"]).post(
        stage_url(world.stage), good, content_type="text/csv"
    )
    assert response.status_code == 409 and response.json()["code"] == "wrong_status"
    assert Game.objects.get(pk=games[0].pk).result == ""


def test_api_stage_import(world):
    games = [games_of(world.group)[0], games_of(world.other_group)[0]]
    text = csv_file(*(line(g, "1-0") for g in games))
    client = api_client(world.users["organizer"])
    response = client.post(stage_url(world.stage), text, content_type="text/csv")
    assert response.status_code == 200 and response.json()["results"] == 2
    assert {g.result for g in Game.objects.filter(pk__in=[g.pk for g in games])} == {"1-0"}


# ---------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------


def page_url(name: str, group: Group) -> str:
    stage = group.stage
    return reverse(name, args=[stage.tournament.slug, stage.order, group.number])


def test_page_flow_upload_preview_fix_confirm(world, client):
    td, group = world.users["td"], world.group
    games = games_of(group)
    client.force_login(td)
    page = client.get(page_url("group-results", group)).content.decode()
    assert page_url("group-results-import", group) in page
    bad = csv_file(line(games[0], "1-0"), f"NOBODY,{games[1].black.code},0-1,,")
    response = client.post(
        page_url("group-results-import", group),
        {"file": SimpleUploadedFile("results.csv", bad.encode())},
    )
    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page and "unknown player NOBODY" in page
    good = csv_file(line(games[0], "1-0", "2025-06-01"), line(games[1], "0-1"))
    response = client.post(
        page_url("group-results-import", group),
        {"file": SimpleUploadedFile("results.csv", good.encode())},
    )
    assert response.status_code == 200
    assert response.context["report"].applied == 2
    assert Game.objects.get(pk=games[0].pk).result == ""  # a preview writes nothing
    confirm = response.context["confirm_form"]
    response = client.post(
        page_url("group-results-import-confirm", group),
        {"text": confirm.initial["text"], "format": confirm.initial["format"]},
    )
    assert response.status_code == 302 and response["Location"] == page_url("group-results", group)
    first = Game.objects.get(pk=games[0].pk)
    assert (first.result, first.finished_on) == ("1-0", date(2025, 6, 1))
    assert Game.objects.get(pk=games[1].pk).result == "0-1"
    game_page = client.get(
        reverse(
            "game-result",
            args=[world.stage.tournament.slug, world.stage.order, group.number, games[0].number],
        )
    ).content.decode()
    assert "2025-06-01" in game_page and "imported" in game_page


def test_stage_page_flow_and_who_may_use_it(world, client):
    stage = world.stage
    args = [stage.tournament.slug, stage.order]
    games = [games_of(world.group)[0], games_of(world.other_group)[0]]
    text = "\n".join(pgn_game(g, SCHOLARS_MATE, "1-0") for g in games)
    client.force_login(world.users["td"])
    upload = SimpleUploadedFile("stage.pgn", text.encode())
    response = client.post(reverse("stage-results-import", args=args), {"file": upload})
    assert response.status_code == 403
    client.force_login(world.users["organizer"])
    assert (
        reverse("stage-results-import", args=args)
        in client.get(reverse("stage-manage", args=args)).content.decode()
    )
    upload = SimpleUploadedFile("stage.pgn", text.encode())
    response = client.post(reverse("stage-results-import", args=args), {"file": upload})
    assert response.status_code == 200 and response.context["report"].results == 2
    confirm = response.context["confirm_form"]
    response = client.post(
        reverse("stage-results-import-confirm", args=args),
        {"text": confirm.initial["text"], "format": "pgn"},
    )
    assert response.status_code == 302
    assert all(Game.objects.get(pk=g.pk).pgn for g in games)


KEPT_SCORES = [
    SCHOLARS_MATE,
    # a long game with a comment before the moves, NAGs, comments and variations (the text
    # wraps at 80 columns)
    "{ A club game } 1. e4 $1 e5 2. Nf3 { the main line } Nc6 ( 2... d6 3. d4 ) 3. Bb5 a6 "
    "4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 "
    "11. c4 c6 12. cxb5 axb5 13. Nc3 Bb7 14. Bg5 b4 15. Nb1 h6 16. Bh4 c5 17. dxe5 1/2-1/2",
    # a game from a set-up position, its tags escaped
    '[Event "The \\"Open\\" \\\\ Cup"]\n[SetUp "1"]\n[FEN "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"]\n\n'
    "1. e4 Kd7 2. e5 Ke6 1/2-1/2",
]


@pytest.mark.parametrize("text", KEPT_SCORES)
def test_a_score_kept_compactly_is_stored_as_the_game_would_be(text):
    """A checked line keeps its score as tags and moves' text (not python-chess's nodes);
    written out it is the very text python-chess writes of the game."""

    def read():
        game = imports._read_score(imports._LineCountingReader(text))
        assert game is not None and not game.errors
        return game

    def fill(headers, result):
        headers["White"], headers["Black"] = 'O"Brien, Pat \\ Jr', "Rossi, Anna"
        headers["Result"] = result
        headers["WhiteCode"], headers["BlackCode"] = "E1", "E2"

    result = read().headers.get("Result", "*")
    if result == "*":
        result = "1/2-1/2" if "1/2-1/2" in text else "1-0"
    whole = read()
    fill(whole.headers, result)
    kept = imports._KeptScore.of(read(), result)
    fill(kept.headers, result)
    assert imports._kept_text(kept) == imports.stored_score(whole)
    assert len(kept.moves) < 1000


def test_a_stage_import_queues_one_pass_over_the_stage_not_a_task_a_group(
    world, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """Many groups of a stage changed by one import: one stage pass recomputes them (and
    queues the ranking), no recompute task a group."""
    from apps.standings import tasks as standings_tasks

    settings.STANDINGS_STAGE_BATCH = 2  # the world's stage has two groups
    queued = []
    for task in (
        standings_tasks.recompute_group_standings,
        standings_tasks.recompute_stage_standings,
    ):
        monkeypatch.setattr(
            task, "apply_async", lambda args, _name=task.name, **kw: queued.append((_name, args))
        )
    group_games, other_games = games_of(world.group), games_of(world.other_group)
    text = csv_file(line(group_games[0], "1-0"), line(other_games[0], "0-1"))
    with django_capture_on_commit_callbacks(execute=True):
        import_results(world.users["organizer"], stage=world.stage, text=text)
    assert queued == [(standings_tasks.recompute_stage_standings.name, (world.stage.pk,))]


def test_the_game_page_and_the_api_show_the_result_an_import_set(world, client):
    """The import writes no event per game; the game's history (its TD page and the API)
    still shows the import's change of it, once, by the importer."""
    td, group = world.users["td"], world.group
    game, other = games_of(group)[:2]
    import_results(td, group=group, text=csv_file(line(game, "1-0"), line(other, "0-1")))
    client.force_login(td)
    page = client.get(
        reverse(
            "game-result",
            args=[world.tournament.slug, world.stage.order, group.number, game.number],
        )
    )
    assert page.status_code == 200
    [change] = page.context["history"]
    assert (change.what, change.who, change.new) == ("imported", display_name(td), "1-0")
    assert "imported" in page.content.decode()
    history = api_client(td).get(reverse("api-game", args=[game.pk])).json()["history"]
    assert [(h["action"], h["old"], h["new"], h["actor"]) for h in history] == [
        (Action.RESULT_ENTERED, "", "1-0", display_name(td))
    ]


@pytest.mark.postgres
@pytest.mark.parametrize("plain", [True, False], ids=["set-based", "line by line"])
def test_a_game_changed_behind_the_import_s_back_refuses_the_whole_file(world, monkeypatch, plain):
    """The games are read, not locked (their groups are): a write that changed one anyway,
    breaking the lock order, is caught by the versions the UPDATE checks — nothing is
    imported. The same for a file of plain lines (set-based) and one judged line by line."""
    td, group = world.users["td"], world.group
    games = games_of(group)
    check_stage = imports.require_in_play
    checks = []

    def change_then_check(stage):
        checks.append(stage)
        if len(checks) == 2:  # the last check before the writing: the changes are staged
            Game.objects.filter(pk=games[1].pk).update(version=7)
        check_stage(stage)

    monkeypatch.setattr(imports, "require_in_play", change_then_check)
    if not plain:
        monkeypatch.setattr(imports, "_all_plain", lambda lines: False)
    before = snapshot(group)
    with pytest.raises(ActionError) as refused:
        import_results(td, group=group, text=csv_file(line(games[0], "1-0"), line(games[1], "0-1")))
    assert refused.value.code == ErrorCode.CONFLICT
    assert "nothing was imported" in refused.value.message
    assert snapshot(group) == before
    assert not ResultChange.objects.exists()


# ---------------------------------------------------------------------------
# A file of plain lines on PostgreSQL: applied set-based, or judged line by line
# ---------------------------------------------------------------------------


def _spy_set_based(monkeypatch) -> list:
    """What each set-based application returned (a report, or None: judged line by line)."""
    returned: list = []
    apply_plain = imports._apply_plain

    def spy(*args, **kwargs):
        returned.append(apply_plain(*args, **kwargs))
        return returned[-1]

    monkeypatch.setattr(imports, "_apply_plain", spy)
    return returned


@pytest.mark.parametrize("plain", [True, False], ids=["set-based", "line by line"])
def test_plain_lines_set_results_dates_and_leave_the_unchanged_as_line_by_line(
    world, monkeypatch, plain
):
    """A stage's file of plain lines (codes, results, dates; no score) does the same set-based
    (PostgreSQL) as judged line by line: new results entered, a finished game given a
    finish date (its result and when it was entered kept), games finished with the same
    result unchanged; the report, the games, one event and its ResultChange rows."""
    organizer, group = world.users["organizer"], world.group
    returned = _spy_set_based(monkeypatch)
    if not plain:
        monkeypatch.setattr(imports, "_all_plain", lambda lines: False)
    games = games_of(group)
    entered_at = timezone.now().replace(microsecond=0)
    for game, result, day in ((games[2], "1/2-1/2", None), (games[3], "1-0", None)):
        Game.objects.filter(pk=game.pk).update(
            result=result, version=1, updated_at=entered_at, adjudicated=True, finished_on=day
        )
    Game.objects.filter(pk=games[4].pk).update(
        result="0-1", version=1, updated_at=entered_at, finished_on=date(2025, 2, 1)
    )
    text = "\n".join(
        [
            "white,black,result,date",
            f"{games[0].white.code},{games[0].black.code},1-0,2025-03-01",
            f"{games[1].white.code},{games[1].black.code},0-1,",
            f"{games[2].white.code},{games[2].black.code},1/2-1/2,",  # unchanged
            f"{games[3].white.code},{games[3].black.code},1-0,2025-03-04",  # a date only
            f"{games[4].white.code},{games[4].black.code},0-1,2025-02-01",  # unchanged
        ]
    )
    before = snapshot(group)
    preview = import_results(organizer, stage=world.stage, text=text, dry_run=True)
    assert snapshot(group) == before and not ResultChange.objects.exists()
    assert not AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).exists()
    report = import_results(organizer, stage=world.stage, text=text)

    set_based = plain and connection.vendor == "postgresql"
    assert [r is not None for r in returned] == ([True, True] if set_based else [])
    assert preview.dry_run and not report.dry_run
    assert (preview.applied, preview.results, preview.unchanged) == (3, 2, 2)
    assert preview.changes == report.changes
    assert (report.applied, report.results, report.unchanged) == (3, 2, 2)
    assert [
        (c.line, c.game_id, c.group_number, c.number, c.old, c.new, c.finished_on, c.scored)
        for c in report.changes
    ] == [
        (2, games[0].pk, group.number, games[0].number, "", "1-0", date(2025, 3, 1), False),
        (3, games[1].pk, group.number, games[1].number, "", "0-1", None, False),
        (5, games[3].pk, group.number, games[3].number, "1-0", "1-0", date(2025, 3, 4), False),
    ]
    first = report.changes[0]
    assert (first.white, first.black) == (
        f"{games[0].white.name} ({games[0].white.code})",
        f"{games[0].black.name} ({games[0].black.code})",
    )
    stored = {g.pk: g for g in games_of(group)}
    assert [
        (stored[g.pk].result, stored[g.pk].version, stored[g.pk].finished_on, stored[g.pk].pgn)
        for g in games[:5]
    ] == [
        ("1-0", 1, date(2025, 3, 1), ""),
        ("0-1", 1, None, ""),
        ("1/2-1/2", 1, None, ""),
        ("1-0", 2, date(2025, 3, 4), ""),
        ("0-1", 1, date(2025, 2, 1), ""),
    ]
    assert not stored[games[0].pk].adjudicated and stored[games[0].pk].updated_at > entered_at
    assert stored[games[3].pk].adjudicated and stored[games[3].pk].updated_at == entered_at
    event = AuditEvent.objects.get(action=Action.RESULTS_IMPORTED)
    assert (event.data["entered"], event.data["scored"], event.data["unchanged"]) == (2, 1, 2)
    assert event.stage_id == world.stage.pk and event.group_id is None
    assert sorted(
        ResultChange.objects.values_list("event_id", "game_id", "group_id", "old", "new")
    ) == sorted(
        [
            (event.pk, games[0].pk, group.pk, "", "1-0"),
            (event.pk, games[1].pk, group.pk, "", "0-1"),
            (event.pk, games[3].pk, group.pk, "1-0", "1-0"),
        ]
    )
    history = game_history(stored[games[0].pk])
    assert [(c.what, c.old, c.new) for c in history] == [
        ("imported", result_label(""), result_label("1-0"))
    ]


def test_bad_plain_lines_are_each_listed_with_their_line_and_nothing_changes(world, monkeypatch):
    """Plain lines that are not all good (an unknown code, a game finished with another
    result, a game listed twice, a closed group's game) are judged line by line, each bad
    one listed with its line; nothing is written."""
    td, group = world.users["td"], world.group
    returned = _spy_set_based(monkeypatch)
    games = games_of(group)
    Game.objects.filter(pk=games[2].pk).update(result="0-1", version=1)
    text = "\n".join(
        [
            "white,black,result",
            f"{games[0].white.code},{games[0].black.code},1-0",  # good
            f"NOBODY,{games[1].black.code},1-0",
            f"{games[2].white.code},{games[2].black.code},1-0",  # finished with 0-1
            f"{games[3].white.code},{games[3].black.code},1-0",
            f"{games[3].white.code},{games[3].black.code},0-1",  # listed twice
        ]
    )
    before = snapshot(group)
    error = refused(td, text, group=group)
    messages = messages_by_line(error)
    assert sorted(messages) == [3, 4, 6]
    assert "unknown player NOBODY" in messages[3]
    assert "finished already" in messages[4]
    assert "listed twice: also on line 5" in messages[6]
    assert messages_by_line(refused(td, text, group=group, dry_run=True)) == messages
    assert snapshot(group) == before
    assert not ResultChange.objects.exists()
    assert not AuditEvent.objects.filter(action=Action.RESULTS_IMPORTED).exists()
    # judged line by line after the set-based pass (PostgreSQL) found them
    set_based = connection.vendor == "postgresql"
    assert returned == ([None, None] if set_based else [])

    # a closed group refuses the lines that would change its games, set-based or not
    Group.objects.filter(pk=group.pk).update(closed_at=timezone.now())
    good = "\n".join(["white,black,result", f"{games[0].white.code},{games[0].black.code},1-0"])
    assert sorted(messages_by_line(refused(world.users["organizer"], good, group=group))) == [2]
    assert snapshot(group) == before
    assert returned == ([None, None, None] if set_based else [])


def test_codes_with_a_backslash_or_a_tab_are_paired_set_based(world, monkeypatch):
    """COPY's text escapes a backslash and a tab: a code holding one still finds its game."""
    td, group = world.users["td"], world.group
    returned = _spy_set_based(monkeypatch)
    games = games_of(group)
    Entrant.objects.filter(pk=games[0].white_id).update(code="W\\N")
    Entrant.objects.filter(pk=games[0].black_id).update(code="B\tX")
    text = "\n".join(["white,black,result", "W\\N,B\tX,1-0"])
    report = import_results(td, group=group, text=text)
    assert (report.applied, report.results) == (1, 1)
    assert Game.objects.get(pk=games[0].pk).result == "1-0"
    assert report.changes[0].white.endswith("(W\\N)")
    assert [r is not None for r in returned] == (
        [True] if connection.vendor == "postgresql" else []
    )
