"""The PGN we write, read by a program nobody here wrote: pgn-extract (Debian's package).

A stage's download holds every kind of game we write — a score imported with a comment and a
variation, a player whose name has a quote and a backslash, a stored score with an escaped
event, forfeits of each kind, an adjudication, games in progress — and pgn-extract reads every
one of them as a game, with no error and no result at odds with the game (``-r``,
``--nobadresults``), and extracts them all.
"""

from __future__ import annotations

import re
import subprocess

import pytest

from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.results.imports import import_results
from tests.conftest import pgn_extract_path
from tests.results.test_pgn_export import body, download, games_of, scored_game
from tests.results.test_pgn_validity import ODD_NAME, SCHOLARS_MATE
from tests.worlds.published import build_world

pytestmark = [pytest.mark.django_db, pytest.mark.pgn_extract]


@pytest.fixture
def world(db, django_capture_on_commit_callbacks):
    return build_world(django_capture_on_commit_callbacks)


def pgn_extract(tmp_path, text: str, *options: str) -> subprocess.CompletedProcess:
    source = tmp_path / "stage.pgn"
    source.write_text(text, encoding="utf-8")
    command = [pgn_extract_path() or "pgn-extract", *options, str(source)]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def every_kind_of_game(world) -> None:
    scored_game(world)  # game 1: 1-0 with a score, from a PGN import
    games = games_of(world.group)
    odd = games[1]
    Entrant.objects.filter(pk=odd.white_id).update(name=ODD_NAME)
    text = (
        f'[Event "A \\"quoted\\" event"]\n[White "x"]\n[Black "y"]\n[Result "1-0"]\n'
        f'[WhiteCode "{odd.white.code}"]\n[BlackCode "{odd.black.code}"]\n\n{SCHOLARS_MATE}\n'
    )
    import_results(world.users["td"], group=world.group, text=text)
    for game, result in zip(games[2:5], ("+-", "-+", "--"), strict=True):
        Game.objects.filter(pk=game.pk).update(result=result)
    Game.objects.filter(pk=games[5].pk).update(result="1/2-1/2", adjudicated=True)


def test_pgn_extract_reads_every_game_of_a_stage_without_an_error(world, tmp_path):
    every_kind_of_game(world)
    text = body(download("api-stage-games-pgn", world.stage.pk))
    written = text.count("[Event ")
    assert written == Game.objects.filter(group__stage=world.stage).count()

    report = pgn_extract(tmp_path, text, "-r", "--nobadresults")
    assert report.returncode == 0, report.stderr
    diagnostics = report.stderr + report.stdout
    assert not re.search(r"(?i)error|illegal|unexpected|missing|inconsistent", diagnostics), (
        diagnostics
    )

    out = tmp_path / "out.pgn"
    extracted = pgn_extract(tmp_path, text, "-s", "--nobadresults", f"-o{out}")
    assert extracted.returncode == 0, extracted.stderr
    read = out.read_text(encoding="utf-8")
    assert read.count("[Event ") == written  # not one game dropped
    assert '[White "O\\"Brien \\\\ Jr, Pat"]' in read  # the name as written, escaped
    assert "Qxf7#" in read


def test_pgn_extract_finds_a_broken_file_broken(world, tmp_path):
    """The check can fail: an illegal move is reported and its game dropped, a result at odds
    with the moves is reported."""
    text = body(download("api-stage-games-pgn", world.stage.pk))
    broken = (
        text
        + '\n[Event "x"]\n[Result "1-0"]\n\n1. e4 e5 2. Ke3 Kf6 1-0\n'
        + '\n[Event "y"]\n[Result "0-1"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 0-1\n'
    )
    report = pgn_extract(tmp_path, broken, "-r", "--nobadresults")
    diagnostics = report.stderr + report.stdout
    assert "Failed to make move 2. Ke3" in diagnostics
    assert "inconsistent" in diagnostics
    out = tmp_path / "out.pgn"
    pgn_extract(tmp_path, broken, "-s", "--nobadresults", f"-o{out}")
    assert out.read_text(encoding="utf-8").count("[Event ") == text.count("[Event ") + 1
