"""Safe buttons: every page loads static/js/confirm.js and its dialog; the forms whose action
cannot be taken back carry ``data-confirm`` with a sentence saying what will happen (without
JavaScript they submit as before)."""

from pathlib import Path

import pytest
from django.conf import settings

from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db

TEMPLATES = Path(settings.BASE_DIR) / "templates"


def test_every_page_loads_the_script_and_its_dialog(client):
    page = client.get("/").text
    assert '<script src="/static/js/confirm.js" defer></script>' in page
    assert '<dialog id="confirm-dialog"' in page and "data-confirm-yes" in page
    script = (Path(settings.BASE_DIR) / "static" / "js" / "confirm.js").read_text()
    assert "data-confirm" in script or "dataset.confirm" in script
    assert "preventDefault" in script and "window.confirm" in script


@pytest.mark.parametrize(
    ("template", "action", "words"),
    [
        (
            "qualification/qualification.html",
            "stage-qualification-confirm",
            "Confirm the qualifiers?",
        ),
        ("stages/manage.html", "stage-finish", "Close the stage?"),
        ("results/results.html", "group-withdraw", "Withdraw this player?"),
        ("accounts/token.html", "", "Make a new token?"),
        ("accounts/stage_tds.html", "stage-tds", "Assign the TDs of this file?"),
        ("accounts/staff_organizers.html", "staff-organizer", "create tournaments?"),
    ],
)
def test_irreversible_forms_ask_first(template, action, words):
    text = (TEMPLATES / template).read_text()
    tags = [chunk.split(">")[0] for chunk in text.split("<form")[1:]]
    assert any(action in tag and "data-confirm=" in tag and words in tag for tag in tags)


def test_the_staff_page_asks_before_taking_a_right_away(world, web):
    page = web(world.users["staff"]).get("/staff/organizers/").text
    assert 'data-confirm="Let ' in page
