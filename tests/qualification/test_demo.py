"""The demo shows tournaments in every state (the 3,099-entrant Demo Cup runs in `make run`)."""

import io

import pytest
from django.core.management import call_command

from apps.office import demo
from apps.stages.models import Stage, Tournament
from apps.standings.models import GroupStanding

pytestmark = pytest.mark.django_db(transaction=True)


def test_demo_masters_has_a_closed_preliminary_and_a_round_robin_final_in_play():
    cup = demo.create_demo_masters(log=lambda _: None)

    preliminary, final = cup.stages.order_by("order")
    assert preliminary.status == Stage.Status.CLOSED
    assert final.status == Stage.Status.PUBLISHED and final.format == Stage.Format.ROUND_ROBIN
    assert [g.size for g in final.groups.all()] == [11]
    assert GroupStanding.objects.filter(group__stage=final).count() == 11


def test_the_demo_command_creates_only_the_missing_demos(monkeypatch):
    made = []
    monkeypatch.setattr(
        demo,
        "DEMOS",
        {
            "demo-open-2027": lambda log: made.append("open") or demo.create_demo_open(log),
            "demo-masters": lambda log: made.append("masters"),
        },
    )

    call_command("demo", stdout=io.StringIO())
    call_command("demo", stdout=io.StringIO())

    assert made == ["open", "masters", "masters"]
    open_cup = Tournament.objects.get(slug="demo-open-2027")
    assert open_cup.first_stage.status == Stage.Status.DRAFT
    assert open_cup.first_stage.entries.count() == 240
