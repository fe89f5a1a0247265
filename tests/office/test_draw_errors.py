"""A failed draw's sentence in the reader's language (apps/office/draw_errors.py, issue 27:
the draw-failure text stayed English). Each sentence is made by the engine itself, so a
changed engine sentence fails here instead of silently staying English."""

from __future__ import annotations

import pytest
from django.utils import translation

from apps.office.draw_errors import translated
from apps.silli.draw import DrawError, DrawSettings, draw_group
from apps.silli.entrants import Entrant


def engine_error(members: list[Entrant], settings: DrawSettings) -> str:
    with pytest.raises(DrawError) as failed:
        draw_group(3, members, settings, "seed", {})
    return str(failed.value)


def field(n: int, nations: str = "ABCDEFGHIJ") -> list[Entrant]:
    return [Entrant(f"E{i:03}", f"P{i}", nations[i % len(nations)] * 3) for i in range(n)]


def test_a_group_too_small_for_any_formula_reads_in_italian():
    english = engine_error(field(20), DrawSettings(games_per_player=10))
    assert english.startswith("Group 3 (20 seats): No valid 10-game formula exists")
    assert translated(english) == english  # the active language is English
    with translation.override("it"):
        italian = translated(english)
    assert italian.startswith("Girone 3 (20 posti): Non esiste una formula valida da 10 partite")
    assert "un cerchio chiuso richiede almeno 60 posti per 10 partite" in italian
    assert (
        "gironi più grandi" in italian and "un girone all'italiana (19 partite ciascuno)" in italian
    )
    assert "No valid" not in italian and "larger groups" not in italian


def test_a_nation_too_large_for_the_circle_reads_in_italian():
    members = field(30, "A")[:16] + field(30, "BCDEFGHIJK")[16:]
    english = engine_error(members, DrawSettings(games_per_player=4, min_group_size=10))
    assert "nation AAA has 16 entrants, more than the 15 (half the circle)" in english
    with translation.override("it"):
        italian = translated(english)
    assert italian.startswith("Girone 3 (30 posti, 4 partite per giocatore): la nazione AAA")
    assert "più dei 15 (metà del cerchio)" in italian
    assert "consenti alcune partite tra giocatori della stessa nazione" in italian


def test_a_sentence_the_engine_does_not_write_is_shown_as_it_is():
    with translation.override("it"):
        assert translated("Cancelled: something else") == "Cancelled: something else"
