"""The stage's unified ranking is stored, not recomputed per request: rebuilt once for many
group recomputes (marked, coalesced, swept like the group standings), equal to the ranking
computed from the stored standings, read a page at a time by pages and API, streamed as CSV,
and shown with "being updated" while a rebuild is pending. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import gzip
import io
import threading
from contextlib import nullcontext
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from apps.core import pagecache
from apps.entrants.models import StageEntry
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.results.services import enter_result, withdraw_entrant
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from apps.standings import freshness, ranking, services
from apps.standings import groups as group_standings
from apps.standings.models import GroupStanding, RankingFile, RankingMark, StageRankingRow
from apps.standings.ranking import ranking_csv

BEING_UPDATED = "The standings are being updated: results entered since"
ROW_FIELDS = (*ranking.RANKING_FIELDS, "place")


@pytest.fixture
def organizer(db):
    return get_user_model().objects.create_user("rank-org", "rank-org@example.org")


def publish(organizer, capture, *, entrants: int = 240, size: int = 40) -> Stage:
    """A published stage of ``entrants`` in groups of ``size`` (six games each), its standings
    and ranking computed on commit."""
    cup = create_tournament(
        organizer,
        name="Stored Ranking Cup",
        slug="stored-ranking",
        games_per_player=6,
        ranking="unified",
        stages=[{"min_group_size": size}, {"kind": Stage.Kind.FINAL, "min_group_size": 6}],
    )
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(entrants, "stored-ranking")))
    close_registration(organizer, stage)
    with capture(execute=True):
        start_draw(organizer, stage, "stored ranking seed")
    stage.refresh_from_db()
    with capture(execute=True):
        publish_draw(organizer, stage)
    stage.refresh_from_db()
    return stage


@pytest.fixture
def stage(organizer, django_capture_on_commit_callbacks) -> Stage:
    return publish(organizer, django_capture_on_commit_callbacks)


def open_games(stage: Stage, number: int) -> list[Game]:
    return list(
        Game.objects.filter(group__stage=stage, group__number=number, result="").order_by("number")
    )


def stored(stage: Stage) -> list[dict]:
    return list(ranking.iter_stage_ranking(stage.pk))


def computed(stage: Stage) -> list[dict]:
    return [{f: row[f] for f in ROW_FIELDS} for row in ranking.compute_stage_ranking(stage)]


def ranking_mark(stage: Stage) -> RankingMark:
    return RankingMark.objects.get(stage=stage)


def play(user, stage: Stage, capture, results: dict[int, list[str]]) -> None:
    """Enter ``results`` (group number -> results of its first open games), tasks run."""
    with capture(execute=True):
        for number, codes in results.items():
            for game, code in zip(open_games(stage, number), codes, strict=False):
                enter_result(user, game, code, expected_version=game.version)


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    """``with run(execute=True):`` runs what the block queues on commit (tasks in process)."""
    return django_capture_on_commit_callbacks


def enter(run, user, game: Game, result: str = "1-0") -> Game:
    """Enter a result; its group's recompute runs (and marks the ranking)."""
    with run(execute=True):
        return enter_result(user, game, result, expected_version=game.version)


@pytest.fixture
def rebuilds(monkeypatch) -> list[int]:
    """Every ranking stored (the stage of each rebuild that wrote rows)."""
    stored_for: list[int] = []
    store = ranking.store_ranking

    def counting(stage, order, **kwargs):
        stored_for.append(stage.pk)
        return store(stage, order, **kwargs)

    monkeypatch.setattr(ranking, "store_ranking", counting)
    return stored_for


@pytest.fixture
def queued(monkeypatch) -> list[int]:
    """Ranking rebuilds are recorded instead of sent (or run): the stages, in order."""
    sent: list[int] = []
    monkeypatch.setattr(
        "apps.standings.tasks.rebuild_stage_ranking.apply_async",
        lambda args, countdown: sent.append(args[0]),
    )
    return sent


# ---------------------------------------------------------------------------
# What is stored
# ---------------------------------------------------------------------------


def test_the_publication_stores_the_ranking_of_every_entrant(stage):
    mark = ranking_mark(stage)
    assert mark.pending_since is None and mark.built_at is not None and mark.entrants == 240
    rows = stored(stage)
    assert rows == computed(stage)
    assert [r.position for r in StageRankingRow.objects.filter(stage=stage)] == list(range(1, 241))
    # Before any result everyone is equal: one shared place, in group and seat order.
    assert {r["place"] for r in rows} == {"1-240"}
    assert [(r["group__number"], r["seat"]) for r in rows[:2]] == [(1, 1), (1, 2)]


def test_stored_rows_equal_the_computed_ranking_after_results_change(
    organizer, stage, django_capture_on_commit_callbacks
):
    play(
        organizer,
        stage,
        django_capture_on_commit_callbacks,
        {1: ["1-0", "1/2-1/2", "0-1", "+-"], 2: ["0-1", "1-0"], 5: ["1/2-1/2"], 6: ["-+"]},
    )
    rows = stored(stage)
    assert rows == computed(stage)
    places = [r["place"] for r in rows]
    assert places[0] != "1-240" and len(set(places)) > 3  # winners, shared places, the rest
    assert ranking_mark(stage).pending_since is None

    # A correction and a withdrawal change the standings again: the ranking follows.
    game = Game.objects.filter(group__stage=stage, group__number=1).exclude(result="").first()
    entry = StageEntry.objects.get(stage=stage, entrant=open_games(stage, 3)[0].white)
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(organizer, game, "0-1", expected_version=game.version, reason="typo")
        withdraw_entrant(organizer, entry, "left")
    rows = stored(stage)
    assert rows == computed(stage)
    assert [r["withdrawn"] for r in rows].count(True) == 1
    assert ranking.stage_ranking(stage) == rows


def test_a_rebuild_replaces_changed_rows_only_and_deletes_those_past_the_end(stage):
    order = ranking.ranking_order(stage)
    assert ranking.store_ranking(stage, order[:-10], stored=240) == 230
    assert StageRankingRow.objects.filter(stage=stage).count() == 230
    swapped = [order[1], order[0], *order[2:]]
    assert ranking.store_ranking(stage, swapped, stored=230) == 240
    rows = stored(stage)
    assert [r["entrant_id"] for r in rows[:2]] == [order[1][0], order[0][0]]
    assert [r["entrant_id"] for r in rows] == [entrant for entrant, _group, _place in swapped]


def test_stage_ranking_reads_the_stored_rows_when_fresh_and_computes_when_stale(
    organizer, stage, queued, run, django_assert_num_queries
):
    with django_assert_num_queries(2):  # the mark, the rows
        ranking.stage_ranking(stage)
    game = enter(run, organizer, open_games(stage, 2)[0])  # the group recomputes
    assert queued == [stage.pk] and ranking_mark(stage).pending_since is not None
    fresh = computed(stage)
    assert stored(stage) != fresh  # the last stored ranking misses the result
    assert ranking.stage_ranking(stage) == fresh  # qualification gets the right answer
    assert fresh[0]["entrant_id"] == game.white_id and fresh[0]["place"] == "1"


# ---------------------------------------------------------------------------
# Once per change, coalesced, idempotent
# ---------------------------------------------------------------------------


def test_many_group_recomputes_cause_one_rebuild(organizer, stage, rebuilds, run):
    groups = list(Group.objects.filter(stage=stage).values_list("pk", flat=True))
    assert len(groups) == 6
    with run(execute=True):
        services.force_recompute(organizer, stage)
    assert rebuilds == [stage.pk]
    # A result in each of three groups, entered at once (one transaction, as an import).
    rebuilds.clear()
    play(organizer, stage, run, {1: ["1-0"], 3: ["0-1"], 4: ["1-0"]})
    assert rebuilds == [stage.pk]
    assert stored(stage) == computed(stage)


def test_marks_coalesce_and_the_rebuild_clears_them_once(organizer, stage, queued, rebuilds, run):
    before = ranking_mark(stage).changes
    for number in (1, 2, 3):
        enter(run, organizer, open_games(stage, number)[0])
    mark = ranking_mark(stage)
    assert mark.changes == before + 3 and mark.pending_since is not None
    assert queued == [stage.pk]  # one rebuild asked for three recomputes

    assert ranking.rebuild_ranking(stage.pk) == 240
    assert rebuilds == [stage.pk] and ranking_mark(stage).pending_since is None
    assert stored(stage) == computed(stage)
    # A duplicate or redelivered task finds the mark cleared and does nothing.
    assert ranking.rebuild_ranking(stage.pk) is None
    assert rebuilds == [stage.pk]


def test_the_rebuild_waits_for_the_groups_still_being_recomputed(
    organizer, stage, queued, rebuilds, run
):
    waiting = open_games(stage, 2)[0]
    enter_result(organizer, waiting, "1-0", expected_version=0)  # its recompute not run yet
    enter(run, organizer, open_games(stage, 1)[0])
    assert queued == [stage.pk]
    # Group 2 still waits for its recompute: the rebuild waits too, and asks to be queued.
    assert ranking.rebuild_ranking(stage.pk) is None
    assert rebuilds == [] and ranking_mark(stage).requested_at is None
    with run(execute=True):
        group_standings.recompute_group(waiting.group_id)  # the last one queues the rebuild again
    assert queued == [stage.pk, stage.pk]
    assert ranking.rebuild_ranking(stage.pk) == 240
    assert rebuilds == [stage.pk] and stored(stage) == computed(stage)


def test_a_rebuild_waits_no_longer_than_the_stale_delay(organizer, stage, queued, rebuilds, run):
    enter_result(organizer, open_games(stage, 2)[0], "1-0", expected_version=0)
    enter(run, organizer, open_games(stage, 1)[0])
    old = timezone.now() - timedelta(minutes=5)
    RankingMark.objects.filter(stage=stage).update(pending_since=old)
    assert ranking.rebuild_ranking(stage.pk) == 240
    assert rebuilds == [stage.pk]


def test_a_change_marked_during_a_rebuild_keeps_the_mark_and_queues_the_next(
    organizer, stage, queued, run, monkeypatch
):
    enter(run, organizer, open_games(stage, 1)[0])
    assert queued == [stage.pk]
    order = ranking.ranking_order

    def while_computing(stage_):
        rows = order(stage_)
        # A group recompute commits between the rebuild's read and its end.
        freshness.mark_rankings(stage_)
        return rows

    monkeypatch.setattr(ranking, "ranking_order", while_computing)
    started = timezone.now()
    with run(execute=True):
        assert ranking.rebuild_ranking(stage.pk) == 240
    mark = ranking_mark(stage)
    assert mark.pending_since is not None and mark.pending_since >= started
    assert mark.built_at is not None and mark.entrants == 240
    assert queued == [stage.pk, stage.pk]  # the next rebuild is queued


def test_the_sweep_queues_rankings_waiting_too_long(organizer, stage, queued, run):
    enter(run, organizer, open_games(stage, 1)[0])
    with run(execute=True):
        assert freshness.STAGE_RANKING.sweep() == []  # marked and asked for just now
        old = timezone.now() - timedelta(minutes=5)
        RankingMark.objects.filter(stage=stage).update(pending_since=old, requested_at=old)
        assert freshness.STAGE_RANKING.sweep() == [stage.pk]
        assert freshness.STAGE_RANKING.sweep() == []  # asked for again just now
    assert queued == [stage.pk, stage.pk]


def test_an_earlier_stages_change_marks_the_later_rankings(organizer, stage, queued, run):
    final = stage.tournament.stages.get(order=2)
    RankingMark.objects.create(stage=final, built_at=timezone.now())
    game = open_games(stage, 1)[0]
    enter_result(organizer, game, "1-0", expected_version=0)
    with run(execute=True):
        group_standings.recompute_group(game.group_id)
    # In play, the stage's change is its own: no later stage has entrants yet.
    assert ranking_mark(final).pending_since is None and queued == [stage.pk]
    # Closed (a correction after the qualification): the later stage's ranking follows.
    Stage.objects.filter(pk=stage.pk).update(status=Stage.Status.CLOSED)
    RankingMark.objects.filter(stage=stage).update(requested_at=None)
    with run(execute=True):
        group_standings.recompute_group(game.group_id)
    assert ranking_mark(final).pending_since is not None
    assert sorted(queued) == sorted([stage.pk, stage.pk, final.pk])


def test_a_stage_with_standings_and_no_ranking_gets_one_when_read(stage, client, queued, run):
    """Standings stored before rankings were (a database migrated with them): the first
    reader asks for the rebuild; the page says the ranking is being updated meanwhile."""
    RankingMark.objects.filter(stage=stage).delete()
    StageRankingRow.objects.filter(stage=stage).delete()
    with run(execute=True):
        html = client.get(ranking_url(stage)).content.decode()
    assert BEING_UPDATED in html and "No standings yet" in html
    assert queued == [stage.pk]
    with run(execute=True):
        assert client.get(ranking_url(stage)).status_code == 200
    assert queued == [stage.pk]  # asked for once
    assert ranking.rebuild_ranking(stage.pk) == 240
    html = client.get(ranking_url(stage)).content.decode()
    assert BEING_UPDATED not in html and "Page 1 of 3" in html


# ---------------------------------------------------------------------------
# Pages, API and CSV read the stored rows
# ---------------------------------------------------------------------------


def ranking_url(stage: Stage) -> str:
    return reverse("stage-ranking", args=[stage.tournament.slug, stage.order])


def ranking_queries(captured: CaptureQueriesContext) -> list[str]:
    table = StageRankingRow._meta.db_table
    return [q["sql"] for q in captured.captured_queries if table in q["sql"]]


def test_page_2_reads_only_its_rows(organizer, stage, client, django_capture_on_commit_callbacks):
    play(organizer, stage, django_capture_on_commit_callbacks, {1: ["1-0", "0-1"], 4: ["1-0"]})
    rows = stored(stage)
    client.get(ranking_url(stage))  # the tournament is looked up once per process
    counts = []
    for number in (1, 2, 3):
        with CaptureQueriesContext(connection) as captured:
            html = client.get(ranking_url(stage) + f"?page={number}").content.decode()
        counts.append(len(captured.captured_queries))
        # Nothing is computed: the group standings are not read, the stored rows are, once.
        standings = GroupStanding._meta.db_table
        assert not [q for q in captured.captured_queries if standings in q["sql"]]
        [read] = ranking_queries(captured)
        assert "LIMIT" not in read.upper() and "OFFSET" not in read.upper()
        expected = rows[(number - 1) * 100 : number * 100]
        assert html.count("<tr") == len(expected) + 1
        for row in expected[:3] + expected[-3:]:
            assert row["entrant__name"] in html
        assert f"Page {number} of 3" in html
    assert counts[0] == counts[1] == counts[2]
    assert "position" in read and str(200) in read  # page 3: positions 201 to 240


def test_the_api_pages_read_the_stored_rows(organizer, stage, django_capture_on_commit_callbacks):
    play(organizer, stage, django_capture_on_commit_callbacks, {2: ["1-0", "1-0"], 6: ["0-1"]})
    rows = stored(stage)
    api = APIClient()
    first = api.get(f"/api/stages/{stage.pk}/ranking/").json()
    assert first["count"] == 240 and len(first["results"]) == 100
    assert first["ranking_pending_since"] is None and first["ranking_at"] is not None
    assert first["pending_groups"] == 0
    with CaptureQueriesContext(connection) as captured:
        second = api.get(f"/api/stages/{stage.pk}/ranking/?page=2").json()
    assert len(ranking_queries(captured)) == 1
    assert [r["entrant"]["code"] for r in second["results"]] == [
        r["entrant__code"] for r in rows[100:200]
    ]
    top = second["results"][0]
    assert (top["place"], top["group"], top["seat"]) == (
        rows[100]["place"],
        rows[100]["group__number"],
        rows[100]["seat"],
    )
    sized = api.get(f"/api/stages/{stage.pk}/ranking/?page=2&page_size=150").json()
    assert [r["entrant"]["code"] for r in sized["results"]] == [
        r["entrant__code"] for r in rows[150:240]
    ]
    assert api.get(f"/api/stages/{stage.pk}/ranking/?page=4").status_code == 404


def old_ranking_csv(stage: Stage) -> str:
    """The file as it was written before the ranking was stored: computed, then written."""
    keys = [k.value for k in group_standings.chain(stage.tournament)][1:]
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(
        ["place", "group", "seat", "code", "name", "nation", "rating", "points", *keys]
        + ["finished", "scheduled", "withdrawn"]
    )
    for row in ranking.compute_stage_ranking(stage):
        writer.writerow(
            [
                row["place"],
                row["group__number"],
                row["seat"],
                row["entrant__code"],
                row["entrant__name"],
                row["entrant__nation"],
                row["entrant__rating"] or "",
                row["points"],
                *(row["figures"].get(k, "") for k in keys),
                row["finished"],
                row["scheduled"],
                int(row["withdrawn"]),
            ]
        )
    return out.getvalue()


def test_the_csv_is_stored_with_the_ranking_and_has_the_same_content_as_before(
    organizer, stage, client, monkeypatch, django_capture_on_commit_callbacks
):
    play(
        organizer,
        stage,
        django_capture_on_commit_callbacks,
        {1: ["1-0", "1/2-1/2"], 3: ["0-1", "+-"], 5: ["1-0"]},
    )
    address = reverse("stage-ranking-csv", args=[stage.tournament.slug, 1])
    # Stored by the rebuild: sent as stored, compressed to a client that accepts gzip.
    assert RankingFile.objects.filter(stage=stage).exists()
    response = client.get(address)
    assert not response.streaming and response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"].endswith('-ranking.csv"')
    text = response.content.decode()
    assert text == old_ranking_csv(stage)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == 240 and rows[0]["place"] == "1" and rows[0]["points"] == "1.50"
    zipped = client.get(address, HTTP_ACCEPT_ENCODING="gzip")
    assert zipped["Content-Encoding"] == "gzip"
    assert gzip.decompress(zipped.content).decode() == text
    # Asked again with its ETag: not sent again.
    again = client.get(address, HTTP_IF_NONE_MATCH=response["ETag"])
    assert again.status_code == 304
    # The same writer over the computed rows gives the same file too.
    assert "".join(ranking_csv(stage, ranking.compute_stage_ranking(stage))) == text

    # Without a stored file (a ranking stored before files were), it is written while sent,
    # in chunks, with the same content.
    RankingFile.objects.filter(stage=stage).delete()
    monkeypatch.setattr("apps.standings.ranking.CSV_CHUNK_ROWS", 50)
    streamed = client.get(address)
    assert streamed.streaming
    chunks = list(streamed.streaming_content)
    assert len(chunks) >= 5  # the header, then 50 rows at a time
    assert b"".join(chunks).decode() == text


def test_an_entrant_changed_after_the_rebuild_is_in_the_csv(
    organizer, stage, client, django_capture_on_commit_callbacks
):
    play(organizer, stage, django_capture_on_commit_callbacks, {1: ["1-0"]})
    address = reverse("stage-ranking-csv", args=[stage.tournament.slug, 1])
    stored_file = RankingFile.objects.get(stage=stage)
    assert stored_file.version == ranking.file_version(stage)
    assert ranking.ranking_csv_text(stage) == client.get(address).content.decode()
    # An entrant's change moves the stage's page versions (its audit event does, on commit).
    entry = StageEntry.objects.filter(stage=stage).select_related("entrant").first()
    entry.entrant.name = "Renamed, Somebody"
    entry.entrant.save(update_fields=["name"])
    pagecache.bump_now([(pagecache.STAGE, stage.pk)])
    response = client.get(address)
    assert response.streaming  # not the stored file: written from the stored rows
    assert "Renamed, Somebody" in response.content.decode()


def test_pages_say_the_ranking_is_being_updated_and_show_the_last_rows(
    organizer, stage, client, queued, run
):
    before = stored(stage)
    game = enter(run, organizer, open_games(stage, 2)[0])
    assert queued == [stage.pk]  # the group is up to date, the ranking is not

    html = client.get(ranking_url(stage)).content.decode()
    assert BEING_UPDATED in html
    assert "The standings of 1 group" not in html  # no group is being updated
    first_row = html[html.index("<tbody>") :].split("</tr>")[0]
    assert before[0]["entrant__name"] in first_row  # the last stored ranking
    body = APIClient().get(f"/api/stages/{stage.pk}/ranking/").json()
    assert body["ranking_pending_since"] is not None and body["pending_groups"] == 0
    assert body["results"][0]["entrant"]["code"] == before[0]["entrant__code"]
    csv_text = client.get(reverse("stage-ranking-csv", args=[stage.tournament.slug, 1]))
    assert csv_text.content.decode().count("\n") == 241
    assert queued == [stage.pk]  # reading asks for nothing more: the rebuild is on its way

    ranking.rebuild_ranking(stage.pk)
    html = client.get(ranking_url(stage)).content.decode()
    assert BEING_UPDATED not in html
    first_row = html[html.index("<tbody>") :].split("</tr>")[0]
    assert game.white.name in first_row
    body = APIClient().get(f"/api/stages/{stage.pk}/ranking/").json()
    assert body["ranking_pending_since"] is None


# ---------------------------------------------------------------------------
# Two workers
# ---------------------------------------------------------------------------


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_workers_rebuilding_at_once_take_turns(organizer, monkeypatch):
    """Two rebuilds of one stage at the same moment: the stage's lock makes the second wait,
    then find the mark cleared; the stored rows are one whole ranking."""
    # On-commit callbacks run by themselves in a transactional test: nothing to capture.
    stage = publish(organizer, lambda execute: nullcontext())
    RankingMark.objects.filter(stage=stage).update(pending_since=timezone.now(), changes=99)
    order = ranking.ranking_order
    inside = threading.Barrier(2, timeout=10)
    entered: list[str] = []

    def counted(stage_):
        entered.append(threading.current_thread().name)
        return order(stage_)

    monkeypatch.setattr(ranking, "ranking_order", counted)
    results: dict[str, int | None] = {}

    def worker(name: str) -> None:
        try:
            inside.wait()
            results[name] = ranking.rebuild_ranking(stage.pk, wait_for_groups=False)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker, args=(n,), name=n) for n in ("a", "b")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert sorted(results.values(), key=lambda v: v or 0) == [None, 240]
    assert len(entered) == 1  # the second found the mark cleared under the lock
    assert ranking_mark(stage).pending_since is None
    assert stored(stage) == computed(stage)
