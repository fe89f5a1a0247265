"""The growth benchmark's reading of the app benchmark's lines (tests/bench/growth.py)."""

import pytest

from tests.bench.growth import exponent, parse

OUTPUT = "\n".join(
    [
        "# Closed Circle benchmarks — 2026-11-27 17:45:29, 2 cores, load 1.0 / 1.0 / 1.0",
        f"app        {'import 30,000 entrants (import_entrants)':58s}     1.435 s   detail 3 s",
        f"app        {'  read ranking page 1 (100 rows)':58s}     0.003 s   best of 5",
        f"app        {'(done)':58s}               17:46:22, load 7.5 / 7.9 / 6.4",
    ]
)


def test_steps_are_named_alike_at_every_size():
    assert parse(OUTPUT, 30_000) == {
        "import N entrants (import_entrants)": 1.435,
        "read ranking page 1 (100 rows)": 0.003,
    }


@pytest.mark.parametrize(
    ("small", "large", "expected"),
    [
        ((10_000, 1.0), (100_000, 10.0), 1.0),  # linear
        ((10_000, 2.0), (100_000, 2.0), 0.0),  # does not depend on the field
        ((10_000, 1.0), (100_000, 100.0), 2.0),  # quadratic
    ],
)
def test_the_exponent_tells_linear_from_constant_and_quadratic(small, large, expected):
    assert exponent(small, large) == pytest.approx(expected)


def test_no_exponent_from_a_time_of_zero():
    assert exponent((10_000, 0.0), (100_000, 1.0)) is None
