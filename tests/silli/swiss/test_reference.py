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
check of 4,957 such tournaments, by ``reference.py``, is reported in the README).
"""

from __future__ import annotations

import tarfile
from pathlib import Path

import pytest

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
