"""Engine benchmarks: the whole draw of 3,099 and of 100,000 entrants, no database."""

from __future__ import annotations

import time
from collections import Counter

from apps.silli.draw import DrawSettings, draw_stage
from apps.silli.synth import make_entrants


def _timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def run() -> list[tuple[str, float, str]]:
    rows = []
    settings = DrawSettings(games_per_player=10, min_group_size=100)
    for count in (3_099, 100_000):
        entrants = make_entrants(
            count, f"bench-{count}", nations=60, largest_share=0.12, multi_entry_share=0.03
        )
        largest = Counter(e.nation for e in entrants).most_common(1)[0][1]
        multi = sum(1 for k in Counter(e.person for e in entrants).values() if k > 1)
        draw, seconds = _timed(lambda entrants=entrants: draw_stage(entrants, settings, "bench"))
        games = sum(len(g.games) for g in draw.groups)
        sizes = Counter(g.size for g in draw.groups)
        rows.append(
            (
                f"draw {count:,} entrants (10 games, 60 nations)",
                seconds,
                f"{len(draw.groups)} groups {dict(sizes)}, {games:,} games, largest nation "
                f"{largest / count:.1%}, {multi} multi-entry persons",
            )
        )
        _, json_seconds = _timed(draw.to_json)
        rows.append((f"  DRAW.json of {count:,} entrants", json_seconds, "serialisation"))
    return rows
