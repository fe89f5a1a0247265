"""Check the Dutch engine against tournaments paired by a reference engine, FIDE-style.

    .venv/bin/python tests/silli/swiss/reference.py FILE_OR_DIR ... [--jobs 2] [--show 20]

Each file is one whole tournament in TRF, every round paired by the reference engine (the
random tournaments a FIDE-endorsed engine's generator writes, e.g. bbpPairings' ``-g``). Every
round, the first included, is paired again by our engine from the rounds before it and that
round's announced absences, and compared with the reference: the pairs, each pair's colours
and the pairing-allocated bye. As in FIDE's endorsement test (C.04.A), a tournament is
*discrepant* when any of its rounds differs; the test allows 10 in 5,000.

A directory is read for ``*.trf`` (sorted). The first differing round of each discrepant
tournament is printed (``--show``), with what differs.

A tournament the reference could not finish (bbpPairings' generator stops, exit status 1, when
no legal pairing exists for a round, and writes the rounds before it) comes with a sidecar
``NAME.next``: ``none`` if the reference finds no legal pairing for the round after the last
one in the file (then ours must not find one either), or the reference's pairing of that round
(its ``-p`` output). ``bbp_check.py`` writes them.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from apps.silli.swiss.dutch import Pairing, PairingError, _initial_colour, pair_round  # noqa: E402
from apps.silli.swiss.trf import (  # noqa: E402
    RoundCell,
    Tournament,
    TrfError,
    TrfPlayer,
    decode_trf,
    parse_trf,
)


def before_round(tournament: Tournament, round_number: int) -> Tournament:
    """The tournament as it stood when ``round_number`` was paired: the rounds before it,
    and for the round itself only the announced absences (no opponent, not the bye)."""
    players = {}
    for number, p in tournament.players.items():
        cells = list(p.rounds[: round_number - 1])
        while len(cells) < round_number - 1:  # a short line: not there those rounds
            cells.append(RoundCell(None, None, "Z"))
        if len(p.rounds) >= round_number:
            cell = p.rounds[round_number - 1]
            if cell.opponent is None and cell.result not in ("U", " "):
                cells.append(cell)
        else:
            cells.append(RoundCell(None, None, "Z"))
        players[number] = TrfPlayer(p.number, p.name, p.rating, p.points, cells, p.line)
    # Without an XXC line the initial colour is the one round 1 shows (the reference drew it);
    # without an XXR line the tournament has the rounds the file holds (as the reference reads it).
    return Tournament(
        players,
        tournament.total_rounds or tournament.rounds_with_pairings,
        tournament.initial_colour or _initial_colour(tournament),
        tournament.virtual_points,
        set(),
    )


def reference_round(tournament: Tournament, round_number: int):
    """The reference's round: {(white, black)} and the bye (None without one)."""
    games, bye = set(), None
    for number, p in tournament.players.items():
        if len(p.rounds) < round_number:
            continue
        cell = p.rounds[round_number - 1]
        if cell.opponent is not None:
            if cell.colour is not None and cell.colour.value == "w":
                games.add((number, cell.opponent))
        elif cell.result == "U":
            bye = number
    return games, bye


@dataclass
class Verdict:
    name: str
    rounds: int
    first_bad: int | None = None
    detail: str = ""


def check(path: str) -> Verdict:
    try:
        tournament = parse_trf(decode_trf(Path(path).read_bytes()))
    except TrfError as error:
        return Verdict(path, 0, 0, f"unreadable: {error}")
    last = tournament.rounds_with_pairings
    verdict = Verdict(path, last)
    for r in range(1, last + 1):
        want, want_bye = reference_round(tournament, r)
        try:
            got = pair_round(before_round(tournament, r), round_number=r)
        except PairingError as error:
            verdict.first_bad, verdict.detail = r, f"no pairing: {error}"
            return verdict
        detail = _compare(got, want, want_bye)
        if detail:
            verdict.first_bad, verdict.detail = r, detail
            return verdict
    sidecar = Path(path).with_suffix(".next")
    if sidecar.exists():
        verdict.rounds += 1
        r = last + 1
        expected = sidecar.read_text().split()
        try:
            got = pair_round(before_round(tournament, r), round_number=r)
        except PairingError as error:
            if expected != ["none"]:
                verdict.first_bad, verdict.detail = r, f"no pairing: {error}"
            return verdict
        if expected == ["none"]:
            verdict.first_bad = r
            verdict.detail = f"the reference finds no legal pairing, ours {sorted(got.pairs)}"
            return verdict
        want, want_bye = parse_pairs(" ".join(expected))
        detail = _compare(got, want, want_bye)
        if detail:
            verdict.first_bad, verdict.detail = r, detail
    return verdict


def parse_pairs(text: str) -> tuple[set[tuple[int, int]], int | None]:
    """bbpPairings' ``-p`` output (the number of pairs, then ``white black``, the bye ``N 0``)."""
    words = text.split()
    pairs = list(zip(map(int, words[1::2]), map(int, words[2::2]), strict=True))
    if len(pairs) != int(words[0]):
        raise ValueError(f"{words[0]} pairs announced, {len(pairs)} given")
    return {(w, b) for w, b in pairs if b}, next((w for w, b in pairs if not b), None)


def _compare(got: Pairing, want: set[tuple[int, int]], want_bye: int | None) -> str:
    """What differs between our pairing and the reference's ("" if nothing)."""
    mine = set(got.pairs)
    if mine == want and got.bye == want_bye:
        return ""
    pairs_mine = {frozenset(p) for p in mine}
    pairs_want = {frozenset(p) for p in want}
    if pairs_mine == pairs_want and got.bye == want_bye:
        swapped = sorted(p for p in mine - want)
        return f"colours differ in {len(swapped)} pair(s): ours {swapped[:6]}"
    only_mine = sorted(tuple(sorted(p)) for p in pairs_mine - pairs_want)
    only_ref = sorted(tuple(sorted(p)) for p in pairs_want - pairs_mine)
    return (
        f"pairs differ: ours {only_mine[:6]} reference {only_ref[:6]}; "
        f"bye ours {got.bye} reference {want_bye}"
    )


def files(args: list[str]) -> list[str]:
    found: list[str] = []
    for arg in args:
        path = Path(arg)
        found += sorted(map(str, path.glob("*.trf"))) if path.is_dir() else [arg]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--show", type=int, default=20)
    options = parser.parse_args()
    paths = files(options.paths)
    with ProcessPoolExecutor(options.jobs) as pool:
        verdicts = list(pool.map(check, paths, chunksize=8))
    bad = [v for v in verdicts if v.first_bad is not None]
    rounds = sum(v.rounds for v in verdicts)
    for v in bad[: options.show]:
        print(f"{v.name} round {v.first_bad}/{v.rounds}: {v.detail}")
    print(
        f"{len(verdicts)} tournaments, {rounds} rounds: {len(bad)} discrepant "
        f"({len(verdicts) - len(bad)} identical in every round's pairs, colours and bye)"
    )
    return 0 if len(bad) * 500 <= len(verdicts) else 1


if __name__ == "__main__":
    sys.exit(main())
