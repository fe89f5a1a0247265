"""The group's TRF file: XXR and the stored standings' points (the writer itself:
tests/scoring/test_trf_write.py)."""

from decimal import Decimal

import pytest
from django.urls import reverse

from apps.entrants.models import StageEntry
from apps.groups.models import Game
from apps.results.services import enter_result, withdraw_entrant
from apps.scoring.trf.read import parse_trf, standings_from_trf
from apps.standings.models import GroupStanding
from tests.worlds.results import *  # noqa: F403 (the fixtures of this world)

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", ""]


@pytest.mark.django_db
def test_the_trf_file_gives_the_stored_points_to_every_player(
    client, group, games, td, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        for index, game in enumerate(games[:120]):
            enter_result(td, game, RESULTS[index % len(RESULTS)], expected_version=0)
        entry = StageEntry.objects.get(stage=group.stage, entrant=games[200].white)
        withdraw_entrant(td, entry, "moved abroad")
    address = reverse("group-trf", args=["rw-cup", 1, 1])
    response = client.get(address)
    assert response.status_code == 200 and "attachment" in response["Content-Disposition"]
    text = response.content.decode()
    parsed = parse_trf(text)
    assert parsed.declared_rounds == 10  # 100 seats: every player has a game in every round
    assert len(parsed.players) == 100
    stored = {s.seat: s for s in GroupStanding.objects.filter(group=group)}
    from_file = {s.figures.id: s for s in standings_from_trf(text)}
    assert {seat: Decimal(str(float(f.figures.points))) for seat, f in from_file.items()} == {
        seat: s.points for seat, s in stored.items()
    }
    # with every game in its round and XXR = T, the tie-breaks agree as well
    for seat, s in stored.items():
        assert round(float(from_file[seat].figures.ts), 4) == round(float(s.figures["ts"]), 4)
        assert from_file[seat].label == s.place
    finished = sum(1 for p in parsed.players for r in p.rounds if r.result.strip())
    assert finished == 2 * Game.objects.filter(group=group).exclude(result="").count()
