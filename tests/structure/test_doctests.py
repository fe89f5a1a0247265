"""The examples in the pure packages' docstrings run and say what they show.

Every module of ``apps.silli`` and ``apps.scoring`` (no Django: importing them needs no set-up)
is searched for ``>>>`` examples, as ``python -m doctest`` would.
"""

from __future__ import annotations

import doctest
import importlib
import io
import pkgutil

import pytest

PURE_PACKAGES = ("apps.silli", "apps.scoring")


def pure_modules() -> list[str]:
    names = []
    for package in PURE_PACKAGES:
        path = importlib.import_module(package).__path__
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(path, prefix=f"{package}.")]
    return sorted(names)


def examples(name: str) -> list[doctest.DocTest]:
    return [t for t in doctest.DocTestFinder().find(importlib.import_module(name)) if t.examples]


@pytest.mark.parametrize("name", pure_modules())
def test_the_docstring_examples_run(name):
    runner = doctest.DocTestRunner()
    report = io.StringIO()
    for test in examples(name):
        runner.run(test, out=report.write)
    assert runner.failures == 0, report.getvalue()


def test_the_examples_are_found():
    found = {name for name in pure_modules() if examples(name)}
    assert {
        "apps.scoring.points",
        "apps.scoring.qualification",
        "apps.scoring.tiebreaks",
        "apps.silli.division",
    } <= found
