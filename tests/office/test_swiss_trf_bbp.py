"""A Swiss stage's TRF export, at every moment of play, read by the official bbpPairings
(issue 25, items 2-4).

Each scenario plays a Swiss stage through the services and exports its group's TRF after each
round is paired (the round in play, no result yet), half-way through the round and when the
round is finished (with late entrants and withdrawals where the scenario has them). The files
as written, and what bbpPairings v6.0.0 (``--dutch FILE -p``) paired from each of them, are
kept in tests/data/bbp/ (its README: how they were made). Without bbpPairings the test checks
that the export still writes those files byte for byte and that the stage paired what
bbpPairings paired from them; with ``BBP_PAIRINGS`` pointing at a bbpPairings binary it also
runs the checker (``-c``) and the pairer (``-p``) on every export.

``BBP_WRITE_DATA=1`` (with ``BBP_PAIRINGS``) rewrites tests/data/bbp/ from the scenarios.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import pytest

from apps.entrants.models import StageEntry
from apps.groups.models import Game, Seat, SwissBye
from apps.office.swiss.deadlines import swiss_deadlines_due
from apps.office.swiss.late import add_late_entrant
from apps.office.swiss.pairing import start_next_round
from apps.office.swiss.state import swiss_state
from apps.results.services import enter_result, withdraw_entrant
from apps.silli.swiss_system import pairing_order
from apps.standings.groups import recompute_group
from apps.standings.trf_export import group_trf

from .test_swiss import CYCLE, drawn_and_published, swiss_stage

DATA = Path(__file__).resolve().parents[1] / "data" / "bbp"
BBP = os.environ.get("BBP_PAIRINGS", "")
WRITE = os.environ.get("BBP_WRITE_DATA") == "1"


@dataclass(frozen=True)
class Scenario:
    name: str
    count: int
    rounds: int
    acceleration: str = "none"
    seed: str = "s"
    late: dict[int, list[dict]] = field(default_factory=dict)
    """after round r is finished: the late entrants who join"""
    withdraw: dict[int, list[int]] = field(default_factory=dict)
    """after round r is finished: the seats withdrawn"""
    adjudicate: tuple[int, ...] = ()
    """rounds whose deadline passes with half the games open, sent to adjudication"""


SCENARIOS = [
    Scenario("open20", 20, 5, withdraw={2: [7]}),
    Scenario(
        "baku13_late",
        13,
        5,
        "baku",
        late={
            1: [
                {"name": "Zeta, Late", "nation": "NOR", "rating": 2990},
                {"name": "Mid, Dle", "nation": "FRA", "rating": 2200},
            ]
        },
    ),
    Scenario("baku9", 9, 4, "baku", seed="n"),
    Scenario(
        "odd15",
        15,
        6,
        seed="o",
        withdraw={3: [2]},
        late={4: [{"name": "Late, Comer", "nation": "ESP", "rating": 2100}]},
        adjudicate=(5,),
    ),
    Scenario("open24_adj", 24, 9, seed="x24", withdraw={5: [1]}, adjudicate=(3, 6)),
    Scenario(
        "baku41_late",
        41,
        7,
        "baku",
        seed="x41",
        late={1: [{"name": "Zed, Top", "nation": "USA", "rating": 2800}]},
        adjudicate=(2,),
    ),
    Scenario(
        "baku30_late",
        30,
        7,
        "baku",
        seed="x30",
        late={
            1: [{"name": "Alpha, Late", "nation": "GER", "rating": 2750}],
            2: [{"name": "Beta, Late", "nation": "ITA", "rating": 1900}],
        },
        withdraw={2: [4], 3: [17]},
    ),
]


def pairing_numbers(group) -> dict[int, int]:
    """seat → pairing number now."""
    seats = {
        s.number: s.entrant for s in Seat.objects.filter(group=group).select_related("entrant")
    }
    return {seat: n for n, seat in enumerate(pairing_order(seats), 1)}


def tpn_pairs(stage, number: int, tpn: dict[int, int]) -> list[str]:
    """Round ``number`` as the stage paired it, by the pairing numbers ``tpn`` (seat → number),
    as bbpPairings prints a pairing: ``white black`` by board, the bye as ``player 0``; sorted."""
    group = stage.groups.get()
    seat_of = {s.entrant_id: s.number for s in Seat.objects.filter(group=group)}
    games = Game.objects.filter(group=group, round=number).values_list("white_id", "black_id")
    lines = [f"{tpn[seat_of[w]]} {tpn[seat_of[b]]}" for w, b in games]
    byes = SwissBye.objects.filter(group=group, round=number).values_list("entrant_id", flat=True)
    lines += [f"{tpn[seat_of[e]]} 0" for e in byes]
    return sorted(lines)


def bbp_pairs(output: str) -> list[str]:
    """bbpPairings' ``-p`` output (the number of pairs, then one pair a line): sorted pairs."""
    return sorted(line.strip() for line in output.strip().splitlines()[1:])


def enter(organizer, games, offset=0):
    for i, game in enumerate(games):
        game.refresh_from_db()
        enter_result(
            organizer, game, CYCLE[(i + offset) % len(CYCLE)], expected_version=game.version
        )


def play(organizer, capture, scenario: Scenario) -> list[tuple[str, str, list[str] | None]]:
    """Play the scenario; every export as (file name, text, the round a pairing program
    should pair from it as the stage paired it — None for the last file)."""
    stage = drawn_and_published(
        organizer,
        swiss_stage(
            organizer,
            count=scenario.count,
            rounds=scenario.rounds,
            acceleration=scenario.acceleration,
            seed=scenario.seed,
        ),
        capture,
    )
    group = stage.groups.get()
    exports: list[tuple[str, str, int | None, dict[int, int]]] = []

    def export(label: str, pairs_round: int | None) -> None:
        recompute_group(group.pk)
        name = f"{scenario.name}_{label}.trf"
        exports.append((name, group_trf(group), pairs_round, pairing_numbers(group)))

    for number in range(1, scenario.rounds + 1):
        games = list(Game.objects.filter(group=group, round=number).order_by("number"))
        export(f"r{number}_paired", number)
        half = len(games) // 2
        enter(organizer, games[:half], number)
        export(f"r{number}_half", number)
        if number in scenario.adjudicate:
            stage.swiss_at_deadline = "adjudicate"
            stage.swiss_round_days = 1
            stage.save(update_fields=["swiss_at_deadline", "swiss_round_days"])
            current = swiss_state(stage).current
            current.due_at = current.started_at - timedelta(seconds=1)
            current.save(update_fields=["due_at"])
            with capture(execute=False):
                swiss_deadlines_due()
            assert swiss_state(stage).adjudicating
            export(f"r{number}_adjudicating", number + 1)
            # the stage pairs the next round now; the adjudicator's results come later, draws
            # here (another result would make the next round's pairing, made on draws, differ
            # from what the final results give: a checker then flags it)
            with capture(execute=True):
                start_next_round(organizer, stage)
            for game in games[half:]:
                game.refresh_from_db()
                enter_result(organizer, game, "1/2-1/2", expected_version=game.version)
            continue
        enter(organizer, games[half:], number)
        for seat in scenario.withdraw.get(number, []):
            entry = StageEntry.objects.get(stage=stage, entrant__seats__number=seat)
            withdraw_entrant(organizer, entry, "withdrew")
        for late in scenario.late.get(number, []):
            add_late_entrant(organizer, stage, **late)
        last = number == scenario.rounds
        export(f"r{number}_done", None if last else number + 1)
        if not last and swiss_state(stage).paired == number:
            with capture(execute=True):
                start_next_round(organizer, stage)
    return [(name, text, tpn_pairs(stage, r, tpn) if r else None) for name, text, r, tpn in exports]


def run_bbp(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([BBP, "--dutch", *args], capture_output=True, text=True, timeout=120)


@pytest.fixture
def organizer(db):
    from .conftest import user

    return user("swissorg")


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.name)
def test_every_export_is_the_file_bbppairings_accepted_and_pairs_as_the_stage(
    organizer, capture, scenario, tmp_path
):
    exports = play(organizer, capture, scenario)
    if WRITE:
        assert BBP, "BBP_WRITE_DATA needs BBP_PAIRINGS"
        DATA.mkdir(exist_ok=True)
        for name, text, _pairs in exports:
            (DATA / name).write_bytes(text.encode())
            pairs = run_bbp(str(DATA / name), "-p")
            if pairs.returncode == 0:
                (DATA / name).with_suffix(".pairs").write_text(pairs.stdout)
    for name, text, expected in exports:
        stored = DATA / name
        assert stored.exists(), f"{name}: not in tests/data/bbp (BBP_WRITE_DATA=1 writes it)"
        assert text.encode() == stored.read_bytes(), f"{name}: the export changed"
        if expected is not None:
            by_bbp = bbp_pairs(stored.with_suffix(".pairs").read_text())
            assert by_bbp == expected, f"{name}: bbpPairings paired otherwise"
    if BBP:
        for name, text, expected in exports:
            path = tmp_path / name
            path.write_bytes(text.encode())
            checked = run_bbp(str(path), "-c")
            # the checker answers 0 even when it finds another pairing: it then prints both
            lines = [line for line in checked.stdout.splitlines() if line.strip()]
            discrepancies = [line for line in lines if not re.fullmatch(r".*: Round #\d+", line)]
            assert checked.returncode == 0 and not discrepancies, (
                f"{name}: {checked.stdout}{checked.stderr}"
            )
            if expected is not None:
                paired = run_bbp(str(path), "-p")
                assert paired.returncode == 0, f"{name}: {paired.stderr}"
                assert bbp_pairs(paired.stdout) == expected, name
