"""A visitor downloads what a published stage offers and verifies the draw with silli_verify."""

import json
from io import StringIO

import pytest
from django.core.management import call_command

from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)


def download(client, stage, name):
    url = f"/t/{stage.tournament.slug}/s/{stage.order}/files/{name}"
    response = client.get(url)
    return response


def test_the_public_verifies_a_published_draw(client, published_stage, tmp_path):
    stage = published_stage
    draw = download(client, stage, "DRAW.json")
    entrants = download(client, stage, "entrants.csv")
    assert draw.status_code == entrants.status_code == 200
    text = entrants.content.decode()
    assert text.startswith("code,name,nation,rating,person\n") and "@" not in text
    data = json.loads(draw.content)
    assert data["digest"] == stage.draw_digest and data["entrants_digest"] == stage.entrants_digest
    (tmp_path / "DRAW.json").write_bytes(draw.content)
    (tmp_path / "entrants.csv").write_bytes(entrants.content)
    out = StringIO()
    call_command(
        "silli_verify",
        str(tmp_path / "DRAW.json"),
        "--entrants",
        str(tmp_path / "entrants.csv"),
        stdout=out,
    )
    assert "identical" in out.getvalue() and "verified" in out.getvalue()


def test_files_of_an_unpublished_stage_are_not_public(client, drawn_stage):
    assert download(client, drawn_stage, "DRAW.json").status_code == 404
    assert download(client, drawn_stage, "entrants.csv").status_code == 404


@pytest.mark.parametrize("name", ["secrets.txt", "../DRAW.json"])
def test_unknown_files_are_404(client, published_stage, name):
    assert download(client, published_stage, name).status_code == 404
