"""The Dutch engine against a FIDE-endorsed engine's own tournaments.

``data/bbppairings_random.tar.xz`` holds 160 random tournaments generated and paired, every
round, by bbpPairings (https://github.com/BieremaBoyzProgramming/bbpPairings, Apache-2.0;
``--dutch -g`` with the FIDE Dutch rules of 2025, the rules this engine implements), in
groups: 12 players × 5 rounds, 20 × 7, 30 × 9, 40 × 7, 31 × 11, 60 × 9, and the generator's
default mix (up to 90 players, 5 rounds); forfeits, half-point byes, absences and
withdrawals as its generator draws them. See ``data/SOURCES.md`` for how the files were made.

Every round of every tournament, the first included, is paired again from the rounds before it
and compared with what bbpPairings paired: the pairs, who has White, and the bye. FIDE's
endorsement test allows 10 discrepant tournaments in 5,000; here none is allowed (the full
check of 5,187 such tournaments, by ``reference.py``, is reported in the README).

``data/bbppairings_baku_rounds.tar.xz``: 350 single rounds paired by the same engine with the
Baku acceleration (C.04.5.1), each compared the same way.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from apps.silli.swiss.acceleration import Acceleration
from apps.silli.swiss.dutch import pair_round
from apps.silli.swiss.trf import decode_trf, parse_trf

from .reference import check

ARCHIVE = Path(__file__).parent / "data" / "bbppairings_random.tar.xz"


def _tournaments() -> list[tuple[str, bytes]]:
    with tarfile.open(ARCHIVE, "r:xz") as tar:
        return [
            (member.name, tar.extractfile(member).read())  # type: ignore[union-attr]
            for member in tar.getmembers()
            if member.isfile()
        ]


TOURNAMENTS = _tournaments()


def test_the_archive_holds_the_tournaments():
    assert len(TOURNAMENTS) == 160
    groups = {name.split("/")[0] for name, _ in TOURNAMENTS}
    assert len(groups) == 7


@pytest.mark.parametrize("name,content", TOURNAMENTS, ids=[name for name, _ in TOURNAMENTS])
def test_every_round_is_paired_as_bbppairings_paired_it(name, content, tmp_path):
    path = tmp_path / Path(name).name
    path.write_bytes(content)
    verdict = check(str(path))
    assert verdict.rounds >= 5
    assert verdict.first_bad is None, f"round {verdict.first_bad}: {verdict.detail}"


# -- Baku acceleration, round by round ----------------------------------------------------------
BAKU_ARCHIVE = Path(__file__).parent / "data" / "bbppairings_baku_rounds.tar.xz"


def _baku_rounds() -> list[tuple[str, bytes, str]]:
    with tarfile.open(BAKU_ARCHIVE, "r:xz") as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]
    return [
        (name, content, files[name[:-4] + ".pairs"].decode())
        for name, content in sorted(files.items())
        if name.endswith(".trf")
    ]


BAKU_ROUNDS = _baku_rounds()


def test_the_baku_archive_holds_its_rounds():
    assert len(BAKU_ROUNDS) == 350
    # every field size here is one for which FIDE's group A, 2·⌈N/4⌉, is also ⌈N/2⌉
    assert {name.split("-")[1] for name, _, _ in BAKU_ROUNDS} == {
        "p12",
        "p20",
        "p31",
        "p40",
        "p60",
        "p80",
    }


@pytest.mark.parametrize(
    "name,content,expected", BAKU_ROUNDS, ids=[name for name, _, _ in BAKU_ROUNDS]
)
def test_a_baku_round_is_paired_as_bbppairings_paired_it(name, content, expected):
    round_number = int(name.rsplit("-r", 1)[1][:-4])
    tournament = parse_trf(decode_trf(content))
    lines = expected.split()
    pairs = list(zip(map(int, lines[1::2]), map(int, lines[2::2]), strict=True))
    assert len(pairs) == int(lines[0])
    want = {(w, b) for w, b in pairs if b}
    bye = next((w for w, b in pairs if not b), None)
    got = pair_round(tournament, round_number, Acceleration.BAKU)
    assert (set(got.pairs), got.bye) == (want, bye)
