"""Exported files neutralise spreadsheet formulas (OWASP's CSV injection advice): a name that
begins with =, +, - or @ comes out with a quote in front, in every CSV a group or a stage
offers, and in the TRF file; plain numbers are left alone."""

from __future__ import annotations

import pytest
from django.db import transaction
from django.urls import reverse

from apps.core.csvfiles import safe_cell
from apps.entrants.models import Entrant
from apps.groups.models import Seat
from apps.standings.freshness import mark_rankings
from apps.standings.groups import recompute_group
from apps.standings.ranking import rebuild_ranking
from tests.worlds.results import *  # noqa: F403 (the fixtures of this world)

HOSTILE = '=HYPERLINK("http://evil.test","click")'


@pytest.mark.parametrize(
    "value, shown",
    [
        ("=1+2", "'=1+2"),
        ("+33 1 23", "'+33 1 23"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"),
        ("\rx", "'\rx"),
        ("-1", "-1"),
        ("+0.5", "+0.5"),
        ("Rossi, Anna", "Rossi, Anna"),
        (7, 7),
    ],
)
def test_safe_cell(value, shown):
    assert safe_cell(value) == shown


def test_every_export_quotes_a_formula_name(client, organizer, group):
    seat = Seat.objects.select_related("entrant").get(group=group, number=1)
    # A name from before input was checked (imports refuse such names now).
    Entrant.objects.filter(pk=seat.entrant_id).update(name=HOSTILE)
    # The stored files have it after their next rebuild (a change made without an action,
    # as here, marks nothing): the group's (its standings' rows hold no name, so they stay
    # as they are) and the stage ranking's, marked here as an action would.
    recompute_group(group.pk)
    with transaction.atomic():
        mark_rankings(group.stage)
    rebuild_ranking(group.stage_id, wait_for_groups=False)
    client.force_login(organizer)
    stage = group.stage
    args = [stage.tournament.slug, stage.order]
    files = {
        "standings.csv": reverse("group-standings-csv", args=[*args, group.number]),
        "crosstable.csv": reverse("group-crosstable-csv", args=[*args, group.number]),
        "group.trf": reverse("group-trf", args=[*args, group.number]),
        "ranking.csv": reverse("stage-ranking-csv", args=args),
    }
    for name, address in files.items():
        text = client.get(address).content.decode()
        assert "'=HYPERLINK(" in text, name
        assert ",=HYPERLINK(" not in text and ',"=HYPERLINK(' not in text, name
