"""A qualification whose count the next stage cannot draw is caught before confirming (issue
27, item 2): the preview says why and what would work, confirming is refused with it."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from apps.core.errors import ActionError, ErrorCode
from apps.qualification import services
from apps.results import closing
from apps.stages.models import Stage
from apps.stages.services import update_stage

pytestmark = pytest.mark.django_db(transaction=True)

SIXTY = (
    "10 games per player need groups of at least 69 (72 and 73 have no formula either); the "
    "next stage would receive 60 qualifiers. Nearest workable: 8 games per player (1 group of "
    "60); or 69 qualifiers (1 group of 69); or a round robin (1 group of 60, 59 games each)."
)


@pytest.fixture
def silli_semifinal(played, organizer) -> Stage:
    """The semifinal as a closed circle of 10 games, groups of at least 50."""
    semifinal = played.tournament.stages.get(order=2)
    return update_stage(
        organizer, semifinal, format=Stage.Format.SILLI, min_group_size=50, formula=None
    )


def test_sixty_qualifiers_for_ten_games_are_caught_before_confirming(
    played, organizer, silli_semifinal, client
):
    played = services.set_rule(organizer, played, rule="top_per_group", value=20)
    played = closing.close_stage(organizer, played)
    preview = services.preview(played)
    assert preview.total == 60
    assert preview.draw_problem == SIXTY and SIXTY in preview.blockers
    assert not preview.can_confirm

    client.force_login(organizer)
    html = client.get(reverse("stage-qualification", args=[played.tournament.slug, 1]))
    assert 'data-role="draw-problem"' in html.content.decode()
    assert SIXTY in html.content.decode()

    with pytest.raises(ActionError) as refused:
        services.confirm(organizer, played)
    assert refused.value.code == ErrorCode.DRAW_IMPOSSIBLE
    assert SIXTY in refused.value.message
    assert refused.value.details[0]["suggestions"][1]["value"] == 69
    assert not silli_semifinal.entries.exists()

    # The suggested count: 23 a group make 69, one group of 69 (a person's second entry
    # declines: one group holds one entry of each person; the next reserve takes its place).
    played = services.set_rule(organizer, played, rule="top_per_group", value=23)
    services.decline_extra_entries(organizer, played, "one entry per person")
    preview = services.preview(played)
    assert preview.total == 69 and not preview.draw_problem, preview.blockers
    assert preview.can_confirm, preview.blockers
    semifinal = services.confirm(organizer, played)
    assert semifinal.entries.count() == 69


def test_the_preview_says_when_the_next_draw_makes_fewer_larger_groups(
    played, organizer, silli_semifinal
):
    update_stage(organizer, silli_semifinal, games_per_player_override=8, min_group_size=46)
    played = services.set_rule(organizer, played, rule="top_per_group", value=31)
    played = closing.close_stage(organizer, played)
    preview = services.preview(played)
    assert preview.total == 93 and not preview.draw_problem
    note = (
        "8 games per player need groups of at least 46 (47 has no formula either): with 93 "
        "qualifiers the next stage's draw makes 1 group of 93, not 1 group of 47 and 1 of 46. "
        "Set the smallest group to 93 to ask for that."
    )
    assert preview.draw_note == note
    api = APIClient()
    api.force_authenticate(organizer)
    answer = api.get(reverse("api-stage-qualification", args=[played.pk]))
    assert answer.json()["draw_note"] == note
