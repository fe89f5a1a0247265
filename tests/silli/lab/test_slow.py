"""The slow checks of issue 16: the fast Swiss against the exact Dutch engine, and the paper.

    .venv/bin/pytest tests/silli/lab/test_slow.py -m slow -s

Each prints its table (run with ``-s`` to see it).
"""

import time

import pytest

from apps.silli.lab import LabConfig, SwissFormat, parse_field, run
from apps.silli.swiss.acceleration import Acceleration

pytestmark = pytest.mark.slow

# O. Milvang, "Accelerated pairing" (rev. 6, 2017), "Uninteresting games": Model1, 432 players,
# 9 rounds; the share (%) of games with a rating difference over each threshold.
PAPER = {
    "swiss": [73.88, 49.21, 31.80, 23.42, 18.58, 13.94, 7.53, 4.61, 2.89, 1.78, 1.07, 0.60, 0.37],
    "baku": [81.46, 53.92, 30.17, 16.31, 8.81, 5.13, 3.07, 1.82, 1.16, 0.71, 0.44, 0.24, 0.15],
}
THRESHOLDS = list(range(200, 801, 50))


def shares(report):
    return [100 * report.measures.share_rating_diff_over[t] for t in THRESHOLDS]


@pytest.mark.parametrize("acceleration", [Acceleration.NONE, Acceleration.BAKU])
def test_fast_swiss_agrees_with_the_exact_engine(acceleration):
    """100 tournaments of 108 players (1000-2000, linear, as in the paper): every
    share-over-threshold within one percentage point of the exact engine's."""
    field = parse_field("linear:108:1000:2000")
    reports, seconds = {}, {}
    for engine in ("fast", "exact"):
        start = time.perf_counter()
        config = LabConfig(field, SwissFormat(9, acceleration, engine), "agreement", top=0)
        reports[engine] = run(config, 100)
        seconds[engine] = time.perf_counter() - start
    fast, exact = shares(reports["fast"]), shares(reports["exact"])
    print(f"\n{acceleration.value}: fast {seconds['fast']:.1f} s, exact {seconds['exact']:.1f} s")
    for t, a, b in zip(THRESHOLDS, fast, exact, strict=True):
        print(f"  > {t}: fast {a:6.2f} %  exact {b:6.2f} %  ({a - b:+.2f})")
    assert all(abs(a - b) <= 1.0 for a, b in zip(fast, exact, strict=True))
    mean_fast, mean_exact = (reports[e].measures.mean_opponent_diff for e in ("fast", "exact"))
    assert abs(mean_fast - mean_exact) < 5


# The paper's "Rating difference" table: the mean opponent difference over all games.
PAPER_MEAN = {"swiss": 286, "baku": 273}


def test_the_papers_table():
    """Model1, 432 players, 9 rounds, plain Swiss and Baku, 200 tournaments each: the same
    ordering as the paper at every threshold, each share within 3 percentage points of its
    table and the mean opponent difference within 5 points. (The players' form, σ = 85, was
    set on the plain Swiss's mean opponent difference; the rest are checks.)"""
    field = parse_field("model1:432")
    ours, means = {}, {}
    for name, acceleration in (("swiss", Acceleration.NONE), ("baku", Acceleration.BAKU)):
        config = LabConfig(field, SwissFormat(9, acceleration), "paper", top=0)
        report = run(config, 200)
        ours[name], means[name] = shares(report), report.measures.mean_opponent_diff
    print("\n  >      Swiss paper/ours     Baku paper/ours")
    for i, t in enumerate(THRESHOLDS):
        print(
            f"  {t}  {PAPER['swiss'][i]:6.2f} {ours['swiss'][i]:6.2f}"
            f"    {PAPER['baku'][i]:6.2f} {ours['baku'][i]:6.2f}"
        )
    print(f"  mean {PAPER_MEAN['swiss']} {means['swiss']}    {PAPER_MEAN['baku']} {means['baku']}")
    for i in range(len(THRESHOLDS)):
        paper_order = PAPER["swiss"][i] > PAPER["baku"][i]
        assert (ours["swiss"][i] > ours["baku"][i]) == paper_order, THRESHOLDS[i]
        for name in ("swiss", "baku"):
            assert abs(ours[name][i] - PAPER[name][i]) <= 3.0, (name, THRESHOLDS[i])
    for name in ("swiss", "baku"):
        assert abs(means[name] - PAPER_MEAN[name]) <= 5, name


def test_without_form_the_shares_run_low():
    """What the form is for: with every player at their rating (σ = 0) the plain Swiss's
    shares at 200 and 250 points run more than 5 points below the paper's."""
    config = LabConfig(parse_field("model1:432"), SwissFormat(9), "paper", top=0, form_sd=0)
    low = shares(run(config, 50))
    assert PAPER["swiss"][0] - low[0] > 5 and PAPER["swiss"][1] - low[1] > 5
