"""The qualification page and CSV as the public and the organizer read them."""

import csv
import io

import pytest
from django.urls import reverse

from apps.qualification import services
from apps.results import closing

pytestmark = pytest.mark.django_db(transaction=True)


def url(stage, name: str) -> str:
    return reverse(name, args=[stage.tournament.slug, stage.order])


def test_the_public_reads_the_list_and_only_the_organizer_gets_the_forms(client, played, organizer):
    played = services.set_rule(organizer, played, rule="top_per_group", value=7)

    page = client.get(url(played, "stage-qualification")).content.decode()

    assert "the top 7 of each group" in page and "Provisional" in page
    # (a qualifier's reason, e.g. "1st in group 1: top 7"; the 1st may be a withdrawn entrant)
    assert "in group 1: top 7" in page and 'id="prequalify-form"' not in page
    client.force_login(organizer)
    page = client.get(url(played, "stage-qualification")).content.decode()
    assert 'id="prequalify-form"' in page and 'id="decline_id_code"' not in page
    assert 'id="decline_code"' in page and 'id="prequalified_code"' in page


def test_the_csv_lists_qualifiers_then_prequalified_then_reserves(client, played, organizer):
    played = services.set_rule(organizer, played, rule="top_per_group", value=7)
    played = closing.close_stage(organizer, played)
    services.add_prequalified(
        organizer, played, code="PQ-1", name="Pre Q", nation="ITA", reason="earlier Cup"
    )

    response = client.get(url(played, "stage-qualification-csv"))

    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    statuses = [r["status"] for r in rows]
    assert statuses[:21] == ["qualified"] * 21
    assert statuses[21] == "prequalified" and rows[21]["code"] == "PQ-1"
    assert set(statuses[22:]) == {"reserve"}
    assert all("½" not in r["points"] for r in rows)  # exact decimals, e.g. 6.5
