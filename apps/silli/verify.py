"""Verifying a published draw: re-run it, then check every rule on what was published.

:func:`verify_draw` takes DRAW.json (as parsed JSON), the entrant list and the
pairs that met before. It reports two things:

* **identical**: the draw re-run from the recorded seed and settings gives the
  same groups, and the published digest is the digest of the published groups;
* **constraints**: checked directly on the published groups, without trusting
  the engine — group sizes, every entrant seated once, the games are exactly
  those of the group's formula (or Berger table) on the published seats, each
  player's colours, principles 1 and 2 by brute force, no forbidden pair
  meeting beyond the conflicts the certificate lists as allowed, entries of one
  person in different groups, and every nation's count per group within one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .division import group_sizes
from .draw import (
    DrawError,
    DrawSettings,
    division_sizes_of,
    draw_stage,
    earlier_groups_digest,
    groups_digest,
    met_before_map,
    pairs_digest,
)
from .entrants import Entrant, entrants_digest
from .seating import forbidden_reason
from .systems import pairing_system


@dataclass(slots=True)
class VerifyReport:
    identical: bool = False
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.identical and not self.problems


def verify_draw(
    data: Mapping[str, Any],
    entrants: Sequence[Entrant],
    met_before_pairs: Iterable[tuple[str, str]] = (),
    earlier_group: Mapping[str, str] | None = None,
) -> VerifyReport:
    """Re-run and check a published draw (see the module docstring)."""
    report = VerifyReport()
    pairs = list(met_before_pairs)
    try:
        settings = DrawSettings.from_dict(data)
        seed = str(data["seed"])
        groups = list(data["groups"])
    except (KeyError, TypeError, ValueError, DrawError) as exc:
        report.problems.append(f"DRAW.json is not a draw file: {exc}")
        return report

    published = groups_digest(groups)
    if published != data.get("digest"):
        report.problems.append(
            "the published digest is not the digest of the published groups "
            "(the file was changed after the draw)"
        )
    if data.get("entrants_digest") != entrants_digest(entrants):
        report.problems.append("the entrant list is not the one the draw was made from")
    if data.get("met_before_digest", pairs_digest(())) != pairs_digest(pairs):
        report.problems.append("the met-before pairs are not the ones the draw was made from")
    if data.get("earlier_groups_digest", earlier_groups_digest(None)) != earlier_groups_digest(
        earlier_group
    ):
        report.problems.append("the earlier groups are not the ones the draw was made from")

    try:
        again = draw_stage(entrants, settings, seed, pairs, earlier_group)
    except DrawError as exc:
        report.problems.append(f"re-running the draw failed: {exc}")
    else:
        report.identical = again.digest == published == data.get("digest")
        if again.digest != published:
            report.problems.append(
                f"re-running the draw gives digest {again.digest}, the file's groups give "
                f"{published}"
            )
    _check_constraints(groups, settings, entrants, met_before_map(pairs), report)
    return report


def _check_constraints(
    groups: list[Mapping[str, Any]],
    settings: DrawSettings,
    entrants: Sequence[Entrant],
    met_before: Mapping[str, frozenset[str]],
    report: VerifyReport,
) -> None:
    by_code = {e.code: e for e in entrants}
    problems = report.problems
    system = pairing_system(settings.format)
    if system.one_group:
        expected_sizes = [len(entrants)] if entrants else []
    else:
        try:
            expected_sizes = division_sizes_of(len(entrants), settings)
        except DrawError:
            expected_sizes = group_sizes(len(entrants), settings.min_group_size)
    sizes = [len(g.get("seats", [])) for g in groups]
    if sizes != expected_sizes:
        problems.append(f"group sizes {sizes[:5]}… are not the expected {expected_sizes[:5]}…")
    seated = Counter(s["entrant"] for g in groups for s in g.get("seats", []))
    missing = sorted(set(by_code) - set(seated))
    extra = sorted(c for c in seated if c not in by_code or seated[c] > 1)
    if missing:
        problems.append(f"{len(missing)} entrant(s) not seated, e.g. {missing[0]}")
    if extra:
        problems.append(f"{len(extra)} seat(s) hold unknown or repeated entrants, e.g. {extra[0]}")
    if missing or extra:
        return

    nation_counts: dict[str, list[int]] = {}
    person_groups: dict[str, list[int]] = {}
    for index, g in enumerate(groups):
        number = g.get("number", index + 1)
        codes = [s["entrant"] for s in sorted(g["seats"], key=lambda s: s["seat"])]
        n = len(codes)
        if [s["seat"] for s in sorted(g["seats"], key=lambda s: s["seat"])] != list(
            range(1, n + 1)
        ):
            problems.append(f"group {number}: seats are not numbered 1..{n}")
            continue
        for s in g["seats"]:
            if by_code[s["entrant"]].nation != s.get("nation"):
                problems.append(f"group {number}: seat {s['seat']} shows the wrong nation")
        schedule, faults = system.expected_games(n, g, settings)
        problems.extend(f"group {number}: {fault}" for fault in faults)
        expected = [(codes[w - 1], codes[b - 1]) for w, b in schedule]
        actual = [(x["white"], x["black"]) for x in g.get("games", [])]
        if actual != expected:
            problems.append(f"group {number}: the games are not those of its seats and formula")
        whites = Counter(w for w, _ in actual)
        blacks = Counter(b for _, b in actual)
        if system.closed_circle and any(
            whites[c] != settings.games_per_player // 2
            or blacks[c] != settings.games_per_player // 2
            for c in codes
        ):
            problems.append(f"group {number}: a player does not have equal White and Black games")
        listed = {
            (c["white"], c["black"]) for c in (g.get("certificate") or {}).get("conflicts", [])
        }
        same_nation = 0
        rematches = met_before if settings.avoid_rematches else {}
        for w, b in actual:
            reason = forbidden_reason(by_code[w], by_code[b], settings.separate_nations, rematches)
            if reason is None:
                continue
            if (w, b) not in listed:
                problems.append(f"group {number}: {w} and {b} meet ({reason}) unlisted")
            elif system.closed_circle:
                if reason == "same nation":
                    same_nation += 1
                else:
                    problems.append(f"group {number}: {w} and {b} meet ({reason})")
        if same_nation > settings.allowed_nation_games:
            problems.append(
                f"group {number}: {same_nation} same-nation games, more than the "
                f"{settings.allowed_nation_games} allowed"
            )
        for nation, count in Counter(by_code[c].nation for c in codes).items():
            nation_counts.setdefault(nation, [0] * len(groups))[index] = count
        for c in codes:
            person_groups.setdefault(by_code[c].person, []).append(index)
    for nation, counts in sorted(nation_counts.items()):
        if max(counts) - min(counts) > 1:
            problems.append(
                f"nation {nation} is spread unevenly: {min(counts)} to {max(counts)} per group"
            )
    for person, where in sorted(person_groups.items()):
        if len(where) != len(set(where)):
            problems.append(f"person {person} has two entries in one group")
