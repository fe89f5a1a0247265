"""Stored and downloaded PGN is PGN other programs read as meant (issue 25, item 7): tag values
with ``"`` or ``\\`` escaped in the stored score, a file that stops being readable as games
says how many games were read and where it stopped, and a Swiss game's Round is its round."""

from __future__ import annotations

import io
import re
from datetime import date

import chess.pgn
import pytest

from apps.core.errors import ActionError, ErrorCode
from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.results.imports import import_results
from apps.results.pgn import Event, game_pgn
from tests.worlds.published import build_world

pytestmark = pytest.mark.django_db

SCHOLARS_MATE = "1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0"
# PGN standard 8.1.1: a tag value is a string token, in which a quote and a backslash are
# written behind a backslash.
TAG = re.compile(r'\[([A-Za-z0-9_]+) "((?:[^"\\]|\\["\\])*)"\]')
ODD_NAME = 'O"Brien \\ Jr, Pat'


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


def strict_tags(text: str) -> dict[str, str]:
    """The tag section of a PGN game read by the standard's grammar, values unescaped."""
    tags = {}
    for line in text.split("\n\n", 1)[0].splitlines():
        match = TAG.fullmatch(line)
        assert match, f"not a PGN tag: {line!r}"
        tags[match[1]] = re.sub(r'\\(["\\])', r"\1", match[2])
    return tags


def first_game(world) -> Game:
    return (
        Game.objects.filter(group=world.group)
        .select_related("white", "black")
        .order_by("number")
        .first()
    )


def test_a_stored_score_escapes_quotes_and_backslashes_in_its_tags(world):
    game = first_game(world)
    Entrant.objects.filter(pk=game.white_id).update(name=ODD_NAME)
    text = (
        f'[Event "A \\"quoted\\" event"]\n[White "x"]\n[Black "y"]\n[Result "1-0"]\n'
        f'[WhiteCode "{game.white.code}"]\n[BlackCode "{game.black.code}"]\n\n{SCHOLARS_MATE}\n'
    )
    import_results(world.users["td"], group=world.group, text=text)
    stored = Game.objects.get(pk=game.pk).pgn
    tags = strict_tags(stored)
    assert tags["White"] == ODD_NAME
    assert tags["Event"] == 'A "quoted" event'  # read unescaped, written escaped again
    assert chess.pgn.read_game(io.StringIO(stored)).mainline_moves()
    # importing the stored score again changes nothing
    again = import_results(world.users["td"], group=world.group, text=stored)
    assert (again.applied, again.unchanged) == (0, 1)


def headers_only(games: list[Game]) -> str:
    """Games as some publishers write them: tags only, no moves and no result token."""
    parts = []
    for i, g in enumerate(games):
        parts.append(
            f'[Event "Round 1"]\n[Round "1.{i + 1}"]\n[White "{g.white.name}"]\n'
            f'[Black "{g.black.name}"]\n[Result "1-0"]\n[WhiteCode "{g.white.code}"]\n'
            f'[BlackCode "{g.black.code}"]\n'
        )
    return "\n".join(parts)


@pytest.mark.parametrize("dry_run", [True, False])
def test_a_file_read_only_in_part_says_how_many_games_and_where_it_stopped(world, dry_run):
    games = list(
        Game.objects.filter(group=world.group).select_related("white", "black").order_by("number")
    )[:3]
    with pytest.raises(ActionError) as refused:
        import_results(
            world.users["td"], group=world.group, text=headers_only(games), dry_run=dry_run
        )
    error = refused.value
    assert error.code == ErrorCode.BAD_ROWS
    assert "up to line 9 (1 game read)" in error.message
    assert [d["line"] for d in error.details] == [9]
    assert "the game of line 1" in error.details[0]["message"]
    assert all(g.result == "" for g in Game.objects.filter(pk__in=[g.pk for g in games]))


def test_a_repeated_roster_tag_in_one_game_stops_the_reading_there(world):
    game = first_game(world)
    text = (
        f'[White "a"]\n[Black "b"]\n[Result "1-0"]\n[White "c"]\n'
        f'[WhiteCode "{game.white.code}"]\n\n{SCHOLARS_MATE}\n'
    )
    with pytest.raises(ActionError) as refused:
        import_results(world.users["td"], group=world.group, text=text, dry_run=True)
    assert [d["line"] for d in refused.value.details] == [4]


def test_a_swiss_games_round_tag_is_its_round_and_a_groups_is_group_dot_game():
    white = Entrant(code="W1", name="Rossi, Anna", nation="ITA")
    black = Entrant(code="B1", name="Novák, Jan", nation="CZE")
    game = Game(number=17, round=3, result="1-0", white=white, black=black)
    game.finished_on = date(2026, 1, 2)
    swiss = strict_tags(game_pgn(game, Event("Cup, Final", 1, swiss=True), 1))
    assert swiss["Round"] == "3"
    silli = strict_tags(game_pgn(game, Event("Cup, Final", 1), 2))
    assert silli["Round"] == "2.17"


def test_the_migration_escapes_the_tags_of_scores_stored_before():
    import importlib

    migration = importlib.import_module("apps.groups.migrations.0011_escape_stored_pgn_tags")
    old = f'[Event "Cup"]\n[White "{ODD_NAME}"]\n[Black "Plain"]\n\n1. e4 {{ a "quote" }} 1-0\n'
    fixed = migration.escaped(old)
    assert strict_tags(fixed) == {"Event": "Cup", "White": ODD_NAME, "Black": "Plain"}
    assert fixed.endswith('1. e4 { a "quote" } 1-0\n')  # the movetext is left as it was
