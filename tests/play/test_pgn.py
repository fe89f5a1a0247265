"""The score of a game played here (moves with their dates in ``[%date …]`` comments), read
by pgn-extract (Debian's package): one game, no error, the result matching the moves, and the
dates kept as comments."""

from __future__ import annotations

import subprocess
from datetime import timedelta

import pytest

from apps.groups.models import Game
from apps.play.services import make_move, resign
from tests.conftest import pgn_extract_path
from tests.worlds.play import START, build_play_world

pytestmark = [pytest.mark.django_db, pytest.mark.pgn_extract]


@pytest.fixture
def world(django_capture_on_commit_callbacks):
    return build_play_world(django_capture_on_commit_callbacks)


def extract(tmp_path, text: str, *options: str) -> subprocess.CompletedProcess:
    source = tmp_path / "game.pgn"
    source.write_text(text, encoding="utf-8")
    command = [pgn_extract_path() or "pgn-extract", *options, str(source)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@pytest.mark.parametrize("ending", ["mate", "resignation"])
def test_pgn_extract_reads_a_played_game_with_its_dates(world, tmp_path, ending):
    users = (world.users["white"], world.users["black"])
    moves = ["f3", "e5", "g4", "Qh4#"] if ending == "mate" else ["e4", "e5", "Nf3"]
    at = START
    for ply, san in enumerate(moves):
        at += timedelta(days=1, hours=3)
        make_move(actor=users[ply % 2], game_id=world.game.pk, move=san, after_ply=ply, now=at)
    if ending == "resignation":
        resign(actor=users[1], game_id=world.game.pk, now=at + timedelta(days=2))
    pgn = Game.objects.get(pk=world.game.pk).pgn
    assert "[%date 2027-01-05T13:00:00Z]" in pgn
    result = extract(tmp_path, pgn, "-r", "--nobadresults")
    assert result.returncode == 0, result.stderr
    assert "error" not in result.stderr.lower(), result.stderr
    written = extract(tmp_path, pgn, "--nobadresults", "-s")
    assert written.stdout.count("[Event ") == 1, written.stderr
    assert "[%date 2027-01-05T13:00:00Z]" in written.stdout
    expected = "0-1" if ending == "mate" else "1-0"
    assert f'[Result "{expected}"]' in written.stdout
