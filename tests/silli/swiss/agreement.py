"""Re-pair every round of real TRF files from the rounds before it and compare with what was played.

    .venv/bin/python tests/silli/swiss/agreement.py FILE.trf ...

Imperfect by nature: the events may have used other engines, older rules or manual changes.
A round's absences (cells with no opponent, other than a pairing-allocated bye) are announced.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from apps.silli.swiss.dutch import PairingError, pair_round  # noqa: E402
from apps.silli.swiss.trf import Tournament, TrfPlayer, decode_trf, parse_trf  # noqa: E402


def before_round(tournament: Tournament, round_number: int) -> Tournament:
    players = {}
    for number, p in tournament.players.items():
        cells = list(p.rounds[: round_number - 1])
        if len(p.rounds) >= round_number:
            cell = p.rounds[round_number - 1]
            if cell.opponent is None and cell.result not in "U+":
                while len(cells) < round_number - 1:
                    cells.append(type(cell)(None, None, "Z"))
                cells.append(cell)
        else:  # no cell at all for the round (withdrawn): absent, as TRF16 reads a short line
            from apps.silli.swiss.trf import RoundCell

            while len(cells) < round_number:
                cells.append(RoundCell(None, None, "Z"))
        players[number] = TrfPlayer(p.number, p.name, p.rating, p.points, cells, p.line)
    return Tournament(
        players,
        tournament.total_rounds,
        tournament.initial_colour,
        tournament.virtual_points,
        set(),
    )


def actual(tournament: Tournament, round_number: int):
    pairs, colours, bye = set(), set(), None
    for number, p in tournament.players.items():
        if len(p.rounds) < round_number:
            continue
        cell = p.rounds[round_number - 1]
        if cell.opponent is not None:
            pairs.add(frozenset((number, cell.opponent)))
            if cell.colour is not None and cell.colour.value == "w":
                colours.add((number, cell.opponent))
        elif cell.result in "U+" and cell.result != " ":
            bye = number
    return pairs, colours, bye


def main(paths):
    total_rounds = total_same = 0
    for path in paths:
        tournament = parse_trf(decode_trf(Path(path).read_bytes()))
        last = tournament.rounds_with_pairings
        rows = []
        for r in range(2, last + 1):
            want_pairs, want_colours, want_bye = actual(tournament, r)
            start = time.perf_counter()
            try:
                got = pair_round(before_round(tournament, r), round_number=r)
            except PairingError as error:
                rows.append(f"r{r}: error {error}")
                continue
            seconds = time.perf_counter() - start
            got_pairs = {frozenset(p) for p in got.pairs}
            same = len(got_pairs & want_pairs)
            colour_same = sum(1 for p in got.pairs if p in want_colours)
            identical = got_pairs == want_pairs and got.bye == want_bye
            total_rounds += 1
            total_same += identical
            rows.append(
                f"r{r}: {same}/{len(want_pairs)} pairs as played, colours {colour_same}/{same}, "
                f"bye {got.bye} (played {want_bye}){' IDENTICAL' if identical else ''} "
                f"[{seconds:.2f}s]"
            )
        print(Path(path).name)
        for row in rows:
            print("  " + row)
    print(f"identical rounds: {total_same}/{total_rounds}")


if __name__ == "__main__":
    main(sys.argv[1:])
