"""Registration → draw job → publish, as services (tasks run in-process here)."""

import pytest
from django.contrib.auth.models import AnonymousUser

from apps.core.errors import ActionError, ErrorCode
from apps.entrants.models import Entrant
from apps.entrants.services import close_registration, engine_entrants, import_entrants
from apps.groups.models import Game, Group, Seat
from apps.office.draw import draw_settings
from apps.office.services import publish_draw, start_draw
from apps.silli.draw import draw_stage
from apps.stages.models import DrawJob, Stage

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_stored_draw_has_the_digest_of_silli_draw(cup, organizer, csv_3099):
    stage = cup.first_stage
    import_entrants(organizer, stage, csv_3099)
    stage = close_registration(organizer, stage)
    assert len(stage.entrants_digest) == 64
    job = start_draw(organizer, stage, "Lotto 17")
    job.refresh_from_db()
    assert job.status == DrawJob.Status.SUCCEEDED, job.error
    stage.refresh_from_db()
    assert stage.status == Stage.Status.DRAWN
    expected = draw_stage(engine_entrants(stage), draw_settings(stage), "Lotto 17")
    assert stage.draw_digest == expected.digest == job.digest
    assert list(Group.objects.filter(stage=stage).values_list("size", flat=True)) == (
        [104] * 9 + [103] * 21
    )
    assert Seat.objects.filter(stage=stage).count() == 3099
    assert Game.objects.filter(group__stage=stage).count() == 3099 * 5
    publish_draw(organizer, stage)
    stage.refresh_from_db()
    assert stage.status == Stage.Status.PUBLISHED
    with pytest.raises(ActionError) as err:
        start_draw(organizer, stage, "again")
    assert err.value.code == ErrorCode.WRONG_STATUS


def test_redraw_before_publishing_replaces_the_draw(cup, organizer, csv_3099):
    stage = cup.first_stage
    import_entrants(organizer, stage, csv_3099)
    close_registration(organizer, stage)
    start_draw(organizer, stage, "first")
    first = set(Game.objects.filter(group__stage=stage).values_list("white__code", "black__code"))
    start_draw(organizer, stage, "second")
    stage.refresh_from_db()
    second = set(Game.objects.filter(group__stage=stage).values_list("white__code", "black__code"))
    assert stage.seed == "second" and first != second
    assert Game.objects.filter(group__stage=stage).count() == 3099 * 5
    assert Group.objects.filter(stage=stage).count() == 30


def test_import_is_all_or_nothing_and_lists_every_bad_row(cup, organizer):
    stage = cup.first_stage
    bad = "code,name,nation\nA1,Ann,ITA\nA2,,GER\nA1,Cy,FRA\nA4,Dee,F\n"
    with pytest.raises(ActionError) as err:
        import_entrants(organizer, stage, bad)
    assert err.value.code == ErrorCode.BAD_ROWS
    assert [d["line"] for d in err.value.details] == [3, 4, 5]
    assert Entrant.objects.count() == 0
    import_entrants(organizer, stage, "code,name,nation\nA1,Ann,ITA\n")
    with pytest.raises(ActionError) as err:
        import_entrants(organizer, stage, "code,name,nation\nB1,Bo,ITA\nA1,Ann,ITA\n")
    assert err.value.details == [
        {"line": 3, "message": "code 'A1' is already registered in this tournament"}
    ]
    assert Entrant.objects.count() == 1


def test_only_organizers_act_and_statuses_are_enforced(cup, organizer, csv_3099):
    stage = cup.first_stage
    with pytest.raises(ActionError) as err:
        import_entrants(AnonymousUser(), stage, csv_3099)
    assert err.value.code == ErrorCode.PERMISSION_DENIED
    with pytest.raises(ActionError) as err:
        publish_draw(organizer, stage)
    assert err.value.code == ErrorCode.WRONG_STATUS
    with pytest.raises(ActionError) as err:
        start_draw(organizer, stage, "seed")
    assert err.value.code == ErrorCode.WRONG_STATUS


def test_an_impossible_draw_fails_the_job_with_the_sentence_and_writes_nothing(cup, organizer):
    stage = cup.first_stage
    rows = ["code,name,nation"] + [f"I{i},x,ITA" for i in range(40)]
    rows += [f"O{i},y,{n}" for i, n in enumerate(["GER", "FRA", "ESP", "POL"] * 16)]
    import_entrants(organizer, stage, "\n".join(rows) + "\n")
    close_registration(organizer, stage)
    job = start_draw(organizer, stage, "s")
    job.refresh_from_db()
    assert job.status == DrawJob.Status.FAILED
    assert "nation ITA has 40 entrants" in job.error
    assert not Group.objects.filter(stage=stage).exists()
