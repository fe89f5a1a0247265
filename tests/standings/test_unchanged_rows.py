"""Rows that stay the same are not written again (PostgreSQL): the digest of the rows a
recompute computed (groups.rows_text, rows_digest) is the digest the database computes of the
stored rows when they are the same, so the stage's pass copies none of them; a group's
recompute whose rows have the fingerprint it computes (groups._fingerprint) writes none, and
the rest of it happens (the group's time, its mark settled) but the pages keep their version
and a ranking not pending stays as it is; and rows that differ (changed behind its back) are
written again, by a forced recompute (which drops the fingerprints) and by the stage's pass
(which compares what is stored)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.utils import timezone

from apps.core import pagecache
from apps.core.models import PageVersion
from apps.entrants.models import StageEntry
from apps.groups.models import Group
from apps.results.services import enter_result, withdraw_entrant
from apps.standings import groups as group_standings
from apps.standings.models import GroupStanding, RankingMark
from apps.standings.services import force_recompute
from tests.worlds.healing import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.healing import mark, open_games, up_to_date

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", "1/2-1/2"]


def row_versions(group_ids: list[int]) -> dict[int, str]:
    """Each stored row's version (its xmin): a row written again gets a new one."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT id, xmin::text FROM standings_groupstanding WHERE group_id = ANY(%s)",
            [group_ids],
        )
        return dict(cursor.fetchall())


def stored_digest(group_id: int) -> str | None:
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {group_standings._stored_digest_sql('%s')}", [group_id])
        return cursor.fetchone()[0]


def computed_digest(group_id: int) -> str | None:
    group = Group.objects.select_related("stage__tournament").get(pk=group_id)
    return group_standings.rows_digest(
        group_standings.rows_text(group_standings.compute_group(group))
    )


def page_version(group_id: int) -> int:
    found = PageVersion.objects.filter(scope=pagecache.GROUP, object_id=group_id)
    return found.values_list("version", flat=True).first() or 0


@pytest.fixture
def played(organizer, published_stage, queued) -> list[int]:
    """Results of every kind in both groups (halves, forfeits, a double forfeit, shared
    places) and a withdrawal; the groups recomputed. The groups' ids."""
    for group in Group.objects.filter(stage=published_stage).order_by("pk"):
        for i, game in enumerate(open_games(group)[::2]):
            enter_result(organizer, game, RESULTS[i % len(RESULTS)], expected_version=game.version)
    entry = StageEntry.objects.filter(stage=published_stage).order_by("pk").first()
    assert entry is not None
    withdraw_entrant(organizer, entry, "moved abroad")
    ids = list(
        Group.objects.filter(stage=published_stage).order_by("pk").values_list("pk", flat=True)
    )
    for pk in ids:
        group_standings.recompute_group(pk)
    return ids


def test_the_digest_of_the_rows_computed_is_the_digest_of_the_rows_stored(played):
    stored = GroupStanding.objects.filter(group_id__in=played)
    assert stored.filter(withdrawn=True).exists()
    assert stored.exclude(place__regex=r"^[0-9]+$").exists()  # a shared place
    assert stored.exclude(points__in=[int(p) for p in range(20)]).exists()  # a half point
    for pk in played:
        assert stored_digest(pk) is not None
        assert computed_digest(pk) == stored_digest(pk)


def test_a_recompute_of_stored_rows_writes_none_and_does_the_rest(played):
    pk = played[0]
    group = Group.objects.get(pk=pk)
    before = row_versions([pk])
    standings_at = group.standings_at
    page = page_version(pk)
    ranking = RankingMark.objects.get(stage_id=group.stage_id).changes
    assert RankingMark.objects.get(stage_id=group.stage_id).pending_since is None
    settled = mark(group)
    assert settled is not None and standings_at is not None
    changes = settled.changes

    assert group_standings.recompute_group(pk) == len(before)

    assert row_versions([pk]) == before  # not one row written
    stamped = Group.objects.get(pk=pk).standings_at
    assert stamped is not None and stamped > standings_at
    assert page_version(pk) == page  # the pages show the same standings
    ranking_mark = RankingMark.objects.get(stage_id=group.stage_id)
    assert ranking_mark.pending_since is None and ranking_mark.changes == ranking  # as it was
    after = mark(group)
    assert after is not None and after.changes == changes and after.pending_since is None
    assert up_to_date(group)


def test_a_recompute_of_stored_rows_wakes_a_ranking_rebuild_that_waits_for_it(played, monkeypatch):
    """A ranking rebuild that found groups still pending waits for their recomputes (no
    request stands); the last of them queues it, also when its rows were as stored."""
    pk = played[0]
    group = Group.objects.get(pk=pk)
    mark(group)
    waiting = RankingMark.objects.filter(stage_id=group.stage_id)
    waiting.update(pending_since=timezone.now(), requested_at=None)
    changes = waiting.get().changes
    sent: list[int] = []
    monkeypatch.setattr(
        "apps.standings.tasks.rebuild_stage_ranking.apply_async",
        lambda args, countdown: sent.append(args[0]),
    )
    before = row_versions([pk])

    group_standings.recompute_group(pk)

    assert row_versions([pk]) == before
    assert sent == [group.stage_id]
    woken = waiting.get()
    assert woken.changes == changes + 1 and woken.requested_at is not None


def test_the_stage_pass_writes_no_stored_row_again(played, published_stage):
    before = row_versions(played)
    times = dict(Group.objects.filter(pk__in=played).values_list("pk", "standings_at"))

    assert group_standings.recompute_stage(published_stage.pk) == len(played)

    assert row_versions(played) == before
    for pk, at in Group.objects.filter(pk__in=played).values_list("pk", "standings_at"):
        before_at = times[pk]
        assert at is not None and before_at is not None and at > before_at


@pytest.mark.parametrize("recompute", ["group", "stage"])
def test_rows_changed_behind_its_back_are_written_again(
    played, organizer, published_stage, recompute
):
    pk = played[1]
    expected = list(
        GroupStanding.objects.filter(group_id=pk)
        .order_by("position")
        .values_list("entrant_id", "place", "points", "figures", "withdrawn")
    )
    last = GroupStanding.objects.filter(group_id=pk).order_by("-position").first()
    assert last is not None
    figures = dict(last.figures, sb="99")
    GroupStanding.objects.filter(pk=last.pk).update(points=last.points + 1, figures=figures)
    untouched = row_versions([played[0]])
    assert stored_digest(pk) != computed_digest(pk)

    if recompute == "group":
        # A recompute trusts the rows' fingerprints (nothing in the product writes a row
        # without one): these rows are written again by a forced recompute, which drops them.
        group_standings.recompute_group(pk)
        assert stored_digest(pk) != computed_digest(pk)
        force_recompute(organizer, published_stage, Group.objects.get(pk=pk))
        group_standings.recompute_group(pk)
    else:
        group_standings.recompute_stage(published_stage.pk)

    assert stored_digest(pk) == computed_digest(pk)
    assert (
        list(
            GroupStanding.objects.filter(group_id=pk)
            .order_by("position")
            .values_list("entrant_id", "place", "points", "figures", "withdrawn")
        )
        == expected
    )
    assert row_versions([played[0]]) == untouched
