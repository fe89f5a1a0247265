"""Qualification through the service: preview, changes, confirmation, the next stages."""

from fractions import Fraction

import pytest

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, StageEntry
from apps.qualification import services
from apps.results import closing
from apps.results.simulate import simulate_results
from apps.stages.models import Stage
from apps.standings.models import GroupStanding

from .conftest import publish

pytestmark = pytest.mark.django_db(transaction=True)


def qualified_codes(stage: Stage) -> list[str]:
    preview = services.preview(stage)
    return [preview.entrants[d.candidate.id].code for d in preview.outcome.qualifiers]


def test_the_preview_is_provisional_until_the_stage_closes(played, organizer):
    played = services.set_rule(organizer, played, rule="top_per_group", value=7)

    preview = services.preview(played)

    assert preview.provisional
    assert "Close the stage first" in " ".join(preview.blockers)
    assert preview.qualifier_count == 21
    with pytest.raises(ActionError) as refused:
        services.confirm(organizer, played)
    assert refused.value.code == ErrorCode.WRONG_STATUS


def test_top_per_group_prequalified_and_declined_reach_the_semifinal(played, organizer):
    played = services.set_rule(organizer, played, rule="top_per_group", value=7)
    played = closing.close_stage(organizer, played)
    before = services.preview(played)
    withdrawn = set(
        StageEntry.objects.filter(stage=played, withdrawn_at__isnull=False).values_list(
            "entrant_id", flat=True
        )
    )
    assert withdrawn, "the fixture withdraws a few entrants"
    assert not {d.candidate.id for d in before.outcome.qualifiers} & withdrawn
    leader = before.outcome.qualifiers[0]
    first_reserve = next(d for d in before.outcome.reserves if d.candidate.group == 1)

    services.decline(
        organizer, played, code=before.entrants[leader.candidate.id].code, reason="no time"
    )
    services.add_prequalified(
        organizer,
        played,
        code="CUP3-01",
        name="Anna Prequalified",
        nation="ITA",
        rating=2450,
        reason="finalist of the 3rd Cup",
    )
    after = services.preview(played)
    ids = [d.candidate.id for d in after.outcome.qualifiers]
    assert leader.candidate.id not in ids and first_reserve.candidate.id in ids
    assert "declined" in next(
        d.reason for d in after.outcome.qualifiers if d.candidate.id == first_reserve.candidate.id
    )
    assert after.total == 22 and after.can_confirm

    semifinal = services.confirm(organizer, played)

    assert semifinal.status == Stage.Status.REGISTRATION_CLOSED and semifinal.entrants_digest
    sources = dict(
        StageEntry.objects.filter(stage=semifinal).values_list("entrant__code", "source")
    )
    assert len(sources) == 22 and sources["CUP3-01"] == StageEntry.Source.PREQUALIFIED
    assert list(sources.values()).count(StageEntry.Source.QUALIFIED) == 21
    event = AuditEvent.objects.get(action=Action.QUALIFICATION_CONFIRMED)
    assert event.data["qualified"] == 21 and event.data["prequalified"] == 1
    with pytest.raises(ActionError) as again:
        services.confirm(organizer, played)
    assert again.value.code == ErrorCode.WRONG_STATUS
    with pytest.raises(ActionError):
        services.add_prequalified(
            organizer, played, code="CUP3-02", reason="late", name="X Y", nation="FRA"
        )


def test_round_robin_stages_run_to_final_standings_with_earlier_stages_deciding_ties(
    played, organizer
):
    played = services.set_rule(organizer, played, rule="top_per_group", value=11, relative=True)
    played = closing.close_stage(organizer, played)
    semifinal = services.confirm(organizer, played)  # 11 % of 100: 33, three groups of 11
    semifinal = publish(organizer, semifinal, "semifinal seed")
    assert [g.size for g in semifinal.groups.order_by("number")] == [11, 11, 11]
    assert semifinal.groups.first().formula == []  # round robin
    simulate_results(organizer, semifinal, share=1.0, withdrawals=0)
    semifinal = services.set_rule(organizer, semifinal, rule="top_per_group", value=2)
    semifinal = closing.close_stage(organizer, semifinal)
    final = services.confirm(organizer, semifinal)
    final = publish(organizer, final, "final seed")
    simulate_results(organizer, final, share=1.0, withdrawals=0)

    rows = list(GroupStanding.objects.filter(group__stage=final).order_by("position"))
    assert len(rows) == 6 and all(r.finished == 5 for r in rows)
    # Equal on the final's own keys: the one better in the semifinal is placed first.
    semi = {
        r.entrant_id: (r.points, r.figures)
        for r in GroupStanding.objects.filter(group__stage=semifinal)
    }
    for a, b in zip(rows, rows[1:], strict=False):
        if (a.points, a.figures) == (b.points, b.figures):
            assert a.place != b.place or semi[a.entrant_id] == semi[b.entrant_id]


def test_a_loss_cap_counts_the_earlier_stages(played, organizer):
    played = services.set_rule(organizer, played, rule="loss_cap", value=Fraction(7, 2))
    played = closing.close_stage(organizer, played)
    semifinal = services.confirm(organizer, played)
    semifinal = publish(organizer, semifinal, "semifinal seed")
    simulate_results(organizer, semifinal, share=1.0, withdrawals=0)
    semifinal = services.set_rule(organizer, semifinal, rule="loss_cap", value=6)

    candidates = services.candidates(semifinal)

    earlier = {
        r.entrant_id: r.finished - r.points
        for r in GroupStanding.objects.filter(group__stage=played)
    }
    assert candidates and all(c.earlier_lost == Fraction(str(earlier[c.id])) for c in candidates)
    assert [c for c in candidates if c.earlier_lost > Fraction(7, 2)] == []
    for decision in services.preview(semifinal).outcome.qualifiers:
        c = decision.candidate
        assert c.finished - c.points + c.earlier_lost <= 6


def test_a_person_with_more_places_than_the_next_stage_has_groups_must_let_one_decline(
    played, organizer
):
    played = services.set_rule(organizer, played, rule="top_overall", value=11)
    played = closing.close_stage(organizer, played)
    first, second = services.preview(played).outcome.qualifiers[:2]
    entrants = services.preview(played).entrants
    Entrant.objects.filter(pk=second.candidate.id).update(
        person=entrants[first.candidate.id].person
    )

    preview = services.preview(played)  # 11 qualifiers: one semifinal group of 11

    assert any("holds 2 places" in b for b in preview.blockers), preview.blockers
    with pytest.raises(ActionError, match="holds 2 places"):
        services.confirm(organizer, played)
    declined = services.decline_extra_entries(organizer, played, "one entry per person")
    # The lower entry declines, the higher stays. (Other persons of the simulated field may
    # hold two of the places too, depending on the simulated results: theirs decline as well.)
    declined_ids = {a.entrant_id for a in declined}
    assert second.candidate.id in declined_ids and first.candidate.id not in declined_ids
    assert services.preview(played).can_confirm
    semifinal = services.confirm(organizer, played)
    assert semifinal.entries.count() == 11
