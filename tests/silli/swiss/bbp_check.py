"""The big check of the Dutch engine against the official bbpPairings (v6.0.0, 2025 Dutch rules).

    nice -n 10 .venv/bin/python tests/silli/swiss/bbp_check.py /path/to/bbpPairings.exe \\
        [--per-config 100] [--seed 1] [--jobs 1] [--baku-every 4] [--keep DIR] [--configs a,b]

Not part of the suite (the repository does not need bbpPairings): it runs the given build's
random tournament generator (``--dutch -g CONFIG -o FILE -s SEED``) for every configuration
below and ``--per-config`` seeds each (seeds ``--seed`` on), into a temporary directory (or
``--keep DIR``), then re-pairs every round of every tournament with our engine and compares
(``reference.check``: pairs, colours, bye).  The generator draws results, forfeits,
half-point byes, absences and withdrawals itself.  When it stops because no legal pairing
exists for a round (exit status 1, the rounds before it written), the build is asked again
(``-p``) about the round after the file's last one, as written, and its answer (``none``, or
the pairing) is kept beside the file as ``NAME.next`` for the comparison.

Baku rounds: for every ``--baku-every``-th tournament, every accelerated round (and the one
after) is cut out as the state before it, declared ``192 FIDE_DUTCH_2025_BAKU``, paired by the
build with ``-p`` and by our engine with :data:`Acceleration.BAKU`, and compared (the history
is the unaccelerated one the generator played; each round is paired from it with Baku's
virtual points).

Prints per configuration: tournaments, rounds, discrepant; then the Baku rounds.  Exit status
0 only if nothing is discrepant.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from apps.silli.swiss.acceleration import Acceleration, accelerated_rounds  # noqa: E402
from apps.silli.swiss.dutch import PairingError, _initial_colour, pair_round  # noqa: E402
from apps.silli.swiss.trf import Colour, decode_trf, parse_trf  # noqa: E402

if __package__:
    from .reference import _compare, check, parse_pairs
else:  # run as a script
    from reference import _compare, check, parse_pairs  # type: ignore[no-redef]

# name: (players, rounds, extra generator lines); None = the generator draws it (its own mix:
# 15-215 players, 5-15 rounds, and always its own rates of forfeits, byes, withdrawals)
CONFIGS: dict[str, tuple[int | None, int | None, str]] = {
    "default-mix": (None, None, ""),
    "p9r5": (9, 5, ""),
    "p10r9": (10, 9, ""),
    "p11r7": (11, 7, ""),
    "p12r5": (12, 5, ""),
    "p15r11": (15, 11, ""),
    "p16r7": (16, 7, ""),
    "p20r7": (20, 7, ""),
    "p21r7": (21, 7, ""),
    "p25r9": (25, 9, ""),
    "p30r9": (30, 9, ""),
    "p31r11": (31, 11, ""),
    "p40r7": (40, 7, ""),
    "p41r9": (41, 9, ""),
    "p55r9": (55, 9, ""),
    "p64r8": (64, 8, ""),
    "p80r9": (80, 9, ""),
    "p99r7": (99, 7, ""),
    "p150r5": (150, 5, ""),
    "p200r6": (200, 6, ""),
    # many absences, forfeits and withdrawals
    "p18r9-rough": (18, 9, "ForfeitRate=4\nRetiredRate=20\nHalfPointByeRate=10\n"),
    "p33r7-rough": (33, 7, "ForfeitRate=5\nRetiredRate=30\nHalfPointByeRate=15\n"),
}
BAKU_TYPE = "192 FIDE_DUTCH_2025_BAKU"


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def cut(text: str, round_number: int, total: int, baku: bool = False) -> str:
    """The TRF of the state before ``round_number``: earlier rounds, that round's announced
    absences (a cell without opponent that is not the PAB), scores recomputed, ``XXR``, and the
    initial colour the whole tournament shows (``XXC``)."""
    initial = _initial_colour(parse_trf(decode_trf(text.encode("latin-1"))))
    out = []
    for line in _lines(text):
        if line.startswith("001"):
            head, cells = line[:91].ljust(91), line[91:]
            kept = [cells[k : k + 10] for k in range(0, len(cells), 10)][:round_number]
            if len(kept) == round_number:
                last = kept[-1].split()
                if not (last and last[0] == "0000" and last[-1] != "U"):
                    kept.pop()
            points = sum(
                1.0 if c.split()[-1] in "1+WUF" else 0.5 if c.split()[-1] in "=HD" else 0.0
                for c in kept
                if c.split()
            )
            out.append(f"{head[:80]}{points:4.1f}{head[84:]}{''.join(kept)}".rstrip())
        elif line.strip() and line[:3] not in ("142", "XXR", "092", "192"):
            out.append(line)
    out.append(f"XXR {total}")
    out.append(f"XXC {'white1' if initial is Colour.WHITE else 'black1'}")
    if baku:
        out.append(BAKU_TYPE)
    return "\r".join(out) + "\r"


def _run(bbp: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([bbp, "--dutch", *args], capture_output=True, text=True, timeout=600)


def generate(bbp: str, name: str, seed: int, folder: Path) -> tuple[Path | None, str]:
    """One tournament (and its ``.next`` if the generator stopped); (path, problem)."""
    players, rounds, extra = CONFIGS[name]
    config = folder / f"{name}.cfg"
    if not config.exists():
        lines = [
            f"PlayersNumber={players}" if players else "",
            f"RoundsNumber={rounds}" if rounds else "",
        ]
        config.write_text("\n".join(x for x in lines if x) + "\n" + extra)
    (folder / name).mkdir(exist_ok=True)
    path = folder / name / f"s{seed}.trf"
    done = _run(bbp, "-g", str(config), "-o", str(path), "-s", str(seed))
    if done.returncode == 1 and path.exists():
        text = path.read_bytes().decode("latin-1")
        tournament = parse_trf(text)
        last = tournament.rounds_with_pairings
        probe = folder / name / f"s{seed}.probe"
        probe.write_bytes(
            cut(text, last + 1, tournament.total_rounds or last + 1).encode("latin-1")
        )
        again = _run(bbp, str(probe), "-p")
        probe.unlink()
        if again.returncode == 1:
            path.with_suffix(".next").write_text("none\n")
        elif again.returncode == 0:
            path.with_suffix(".next").write_text(again.stdout)
        else:
            return None, f"{name} seed {seed}: -p on the stopped tournament: {again.stderr.strip()}"
    elif done.returncode != 0:
        return None, f"{name} seed {seed}: generator exit {done.returncode}: {done.stderr.strip()}"
    return path, ""


def baku_rounds(bbp: str, path: Path) -> list[tuple[str, str]]:
    """(round label, problem or "") for every accelerated round of one tournament."""
    text = path.read_bytes().decode("latin-1")
    tournament = parse_trf(decode_trf(path.read_bytes()))
    total = tournament.total_rounds or tournament.rounds_with_pairings
    full, half = accelerated_rounds(total)
    results = []
    for r in range(1, min(full + half + 1, tournament.rounds_with_pairings) + 1):
        label = f"{path.parent.name}/{path.stem}-r{r}"
        content = cut(text, r, total, baku=True)
        probe = path.with_name(f"{path.stem}-baku-r{r}.trf")
        probe.write_bytes(content.encode("latin-1"))
        done = _run(bbp, str(probe), "-p")
        probe.unlink()
        state = parse_trf(decode_trf(content.encode("latin-1")))
        try:
            got = pair_round(state, r, Acceleration.BAKU)
        except PairingError as error:
            results.append((label, "" if done.returncode == 1 else f"no pairing: {error}"))
            continue
        if done.returncode != 0:
            results.append((label, f"the reference: exit {done.returncode} {done.stderr.strip()}"))
            continue
        want, bye = parse_pairs(done.stdout)
        results.append((label, _compare(got, want, bye)))
    return results


SUITE_CONFIGS = ("p9r5", "p10r9", "p11r7", "p12r5", "p16r7", "p18r9-rough", "p20r7", "p21r7")
SUITE_CONFIGS += ("p30r9", "p31r11", "p33r7-rough", "p40r7")
SUITE_SEEDS = range(1, 26)
SUITE_BAKU = ("p9r5", "p10r9", "p12r5", "p18r9-rough", "p21r7", "p30r9", "p33r7-rough", "p40r7")
SUITE_BAKU_SEEDS = range(1, 9)


def write_suite_data(bbp: str, out: Path) -> None:
    """The suite's two archives (``data/bbppairings_random.tar.xz``: SUITE_CONFIGS × SUITE_SEEDS,
    with their ``.next``; ``data/bbppairings_baku_rounds.tar.xz``: every accelerated round of
    SUITE_BAKU × SUITE_BAKU_SEEDS, ``CONFIG-sSEED-rN.trf`` and the build's ``.pairs``)."""
    import tarfile

    with tempfile.TemporaryDirectory(prefix="bbp_suite_") as holder:
        folder = Path(holder)
        with tarfile.open(out / "bbppairings_random.tar.xz", "w:xz", preset=9) as tar:
            for name in SUITE_CONFIGS:
                for seed in SUITE_SEEDS:
                    path, problem = generate(bbp, name, seed, folder)
                    if path is None:
                        raise SystemExit(problem)
                    for member in (path, path.with_suffix(".next")):
                        if member.exists():
                            tar.add(member, f"{name}/{member.name}")
        rounds = folder / "baku"
        rounds.mkdir()
        for name in SUITE_BAKU:
            for seed in SUITE_BAKU_SEEDS:
                path = folder / name / f"s{seed}.trf"
                text = path.read_bytes().decode("latin-1")
                tournament = parse_trf(decode_trf(path.read_bytes()))
                total = tournament.total_rounds or tournament.rounds_with_pairings
                full, half = accelerated_rounds(total)
                for r in range(1, min(full + half + 1, tournament.rounds_with_pairings) + 1):
                    trf = rounds / f"{name}-s{seed}-r{r}.trf"
                    trf.write_bytes(cut(text, r, total, baku=True).encode("latin-1"))
                    done = _run(bbp, str(trf), "-p")
                    if done.returncode != 0:  # no legal pairing: not kept
                        trf.unlink()
                        continue
                    trf.with_suffix(".pairs").write_text(done.stdout)
        with tarfile.open(out / "bbppairings_baku_rounds.tar.xz", "w:xz", preset=9) as tar:
            for member in sorted(rounds.iterdir()):
                tar.add(member, member.name)


def _task(job: tuple[str, str, int, str, bool]) -> tuple[str, object, str, list[tuple[str, str]]]:
    bbp, name, seed, folder, baku = job
    path, problem = generate(bbp, name, seed, Path(folder))
    if path is None:
        return name, None, problem, []
    verdict = check(str(path))
    return name, verdict, "", baku_rounds(bbp, path) if baku else []


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("bbp", help="path to bbpPairings.exe (v6.0.0)")
    parser.add_argument("--per-config", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--baku-every", type=int, default=4, help="0: no Baku rounds")
    parser.add_argument("--keep", help="write the tournaments here (kept)")
    parser.add_argument("--configs", help="comma-separated names (default: all)")
    parser.add_argument("--show", type=int, default=30)
    parser.add_argument(
        "--write-suite-data", metavar="DIR", help="only write the suite's two archives into DIR"
    )
    options = parser.parse_args()
    if options.write_suite_data:
        write_suite_data(options.bbp, Path(options.write_suite_data))
        return 0
    names = options.configs.split(",") if options.configs else list(CONFIGS)
    holder = None
    if options.keep:
        folder = Path(options.keep)
        folder.mkdir(parents=True, exist_ok=True)
    else:
        holder = tempfile.TemporaryDirectory(prefix="bbp_check_")
        folder = Path(holder.name)
    jobs = [
        (
            options.bbp,
            name,
            seed,
            str(folder),
            bool(options.baku_every) and (seed - options.seed) % options.baku_every == 0,
        )
        for name in names
        for seed in range(options.seed, options.seed + options.per_config)
    ]
    for name in names:  # the configuration files, before the workers race for them
        generate_config = folder / f"{name}.cfg"
        players, rounds, extra = CONFIGS[name]
        lines = [
            f"PlayersNumber={players}" if players else "",
            f"RoundsNumber={rounds}" if rounds else "",
        ]
        generate_config.write_text("\n".join(x for x in lines if x) + "\n" + extra)
    totals: dict[str, list[int]] = {name: [0, 0, 0, 0] for name in names}
    bad: list[str] = []
    baku_total = baku_bad = 0
    with ProcessPoolExecutor(options.jobs) as pool:
        for name, verdict, problem, baku in pool.map(_task, jobs, chunksize=4):
            if verdict is None:
                bad.append(problem)
                totals[name][3] += 1
                continue
            totals[name][0] += 1
            totals[name][1] += verdict.rounds  # type: ignore[attr-defined]
            if verdict.first_bad is not None:  # type: ignore[attr-defined]
                totals[name][2] += 1
                bad.append(f"{verdict.name} round {verdict.first_bad}: {verdict.detail}")  # type: ignore[attr-defined]
            for label, detail in baku:
                baku_total += 1
                if detail:
                    baku_bad += 1
                    bad.append(f"Baku {label}: {detail}")
    for line in bad[: options.show]:
        print(line)
    print("configuration        tournaments  rounds  discrepant  not generated")
    for name in names:
        t, r, d, e = totals[name]
        print(f"{name:20} {t:11} {r:7} {d:11} {e:14}")
    tournaments = sum(v[0] for v in totals.values())
    rounds = sum(v[1] for v in totals.values())
    discrepant = sum(v[2] for v in totals.values())
    print(f"total: {tournaments} tournaments, {rounds} rounds, {discrepant} discrepant")
    print(f"Baku rounds: {baku_total}, {baku_bad} discrepant")
    if holder is not None:
        holder.cleanup()
    return 0 if discrepant == 0 and baku_bad == 0 and not any(v[3] for v in totals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
