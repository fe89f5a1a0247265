"""A group's recompute on PostgreSQL reads only some columns of its group, stage and
tournament (groups._RECOMPUTE_FIELDS); Django would load any other one the first time it is
used, one query each. In every format (and a later stage, whose fallback keys are read as
before) the recompute sends no query through Django: every field it uses was read."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.results.services import enter_result
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage
from apps.stages.services import create_tournament
from apps.standings import groups as group_standings
from apps.standings.models import GroupStanding

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.postgres]

FORMATS = {
    "silli": ({"kind": Stage.Kind.PRELIMINARY, "games_per_player_override": 6}, 40),
    "round robin": (
        {"kind": Stage.Kind.FINAL, "format": Stage.Format.ROUND_ROBIN, "min_group_size": 6},
        12,
    ),
    "double round robin": (
        {
            "kind": Stage.Kind.FINAL,
            "format": Stage.Format.ROUND_ROBIN,
            "min_group_size": 6,
            "double_round_robin": True,
        },
        12,
    ),
    "swiss": ({"kind": Stage.Kind.FINAL, "format": Stage.Format.SWISS, "swiss_rounds": 5}, 20),
}


def django_queries(fn) -> list[str]:
    sent: list[str] = []

    def count(execute, sql, params, many, context):
        sent.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(count):
        fn()
    return sent


@pytest.mark.parametrize("name", FORMATS)
def test_a_recompute_uses_no_field_it_did_not_read(name, django_capture_on_commit_callbacks):
    organizer = get_user_model().objects.create_user("org", "org@example.org", "pw-org-123")
    spec, count = FORMATS[name]
    cup = create_tournament(organizer, name="Read Cup", slug="read-cup", stages=[spec])
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(count, "reads")))
    stage = close_registration(organizer, stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, stage, "reads")
    with django_capture_on_commit_callbacks(execute=True):
        publish_draw(organizer, stage)
    game = Game.objects.filter(group__stage=stage, result="").order_by("pk").first()
    assert game is not None
    with django_capture_on_commit_callbacks(execute=True):
        enter_result(organizer, game, "1-0", expected_version=game.version)
    group = Group.objects.get(pk=game.group_id)
    rows = GroupStanding.objects.filter(group=group).count()

    # Once after the result was entered, then with its rows as stored.
    for _ in range(2):
        with django_capture_on_commit_callbacks(execute=False):
            assert django_queries(lambda: group_standings.recompute_group(group.pk)) == []
    assert GroupStanding.objects.filter(group=group).count() == rows == group.size
