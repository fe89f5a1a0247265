"""The Dutch engine against the official bbpPairings' own tournaments.

``data/bbppairings_random.tar.xz`` holds 300 random tournaments generated and paired, every
round, by the official bbpPairings v6.0.0 (https://github.com/BieremaBoyzProgramming/bbpPairings,
Apache-2.0; ``--dutch -g`` with the FIDE Dutch rules of 2025, the rules this engine implements):
25 each of 12 configurations from 9 to 40 players and 5 to 11 rounds, two of them with many
forfeits, byes and withdrawals (``bbp_check.SUITE_CONFIGS``); forfeits, half-point byes,
absences and withdrawals as its generator draws them.  Where the generator stopped because no
legal pairing exists for a round, ``NAME.next`` says so (``none``) and the engine must not find
one either.  See ``data/SOURCES.md`` for how the files were made.

Every round of every tournament, the first included, is paired again from the rounds before it
and compared with what bbpPairings paired: the pairs, who has White, and the bye.  FIDE's
endorsement test allows 10 discrepant tournaments in 5,000; here none is allowed (the big check,
``bbp_check.py``, and its figures are in the README).

``data/bbppairings_baku_rounds.tar.xz``: single rounds paired by the same build with the Baku
acceleration (``192 FIDE_DUTCH_2025_BAKU``), each compared the same way.
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

from apps.silli.swiss.acceleration import Acceleration
from apps.silli.swiss.dutch import pair_round
from apps.silli.swiss.trf import decode_trf, parse_trf

from .reference import check, parse_pairs

ARCHIVE = Path(__file__).parent / "data" / "bbppairings_random.tar.xz"


def _tournaments() -> list[tuple[str, bytes, bytes | None]]:
    with tarfile.open(ARCHIVE, "r:xz") as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}  # type: ignore[union-attr]
    return [
        (name, content, files.get(name[:-4] + ".next"))
        for name, content in sorted(files.items())
        if name.endswith(".trf")
    ]


TOURNAMENTS = _tournaments()


def test_the_archive_holds_the_tournaments():
    assert len(TOURNAMENTS) == 300
    groups = {name.split("/")[0] for name, _, _ in TOURNAMENTS}
    assert len(groups) == 12
    # some stopped for want of a legal pairing (the engine must find none either)
    assert any(after == b"none\n" for _, _, after in TOURNAMENTS)


@pytest.mark.parametrize(
    "name,content,after", TOURNAMENTS, ids=[name for name, _, _ in TOURNAMENTS]
)
def test_every_round_is_paired_as_bbppairings_paired_it(name, content, after, tmp_path):
    path = tmp_path / Path(name).name
    path.write_bytes(content)
    if after is not None:
        path.with_suffix(".next").write_bytes(after)
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
    assert len(BAKU_ROUNDS) == 328
    # field sizes where the official build's group A, ⌈N/2⌉, and FIDE's text's 2·⌈N/4⌉ differ
    # (9, 10, 18, 21, 33) and where they agree (12, 30, 40)
    assert {name.split("-")[0] for name, _, _ in BAKU_ROUNDS} == {
        "p9r5",
        "p10r9",
        "p12r5",
        "p18r9",
        "p21r7",
        "p30r9",
        "p33r7",
        "p40r7",
    }


@pytest.mark.parametrize(
    "name,content,expected", BAKU_ROUNDS, ids=[name for name, _, _ in BAKU_ROUNDS]
)
def test_a_baku_round_is_paired_as_bbppairings_paired_it(name, content, expected):
    round_number = int(name.rsplit("-r", 1)[1][:-4])
    tournament = parse_trf(decode_trf(content))
    want, bye = parse_pairs(expected)
    got = pair_round(tournament, round_number, Acceleration.BAKU)
    assert (set(got.pairs), got.bye) == (want, bye)
