"""The floors of README.md's architecture hold.

`lint-imports` (the `.importlinter` contracts, run by `make lint` and CI) checks every import,
function-level ones too. Two things it cannot see are checked here: model references written as
strings (``ForeignKey("stages.Stage")``) must point down the same floors, and the contracts must
really fail on a back-pointing import (a contract that cannot fail guards nothing).
"""

from __future__ import annotations

import ast
import configparser
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / ".importlinter"


def floors() -> list[set[str]]:
    """The app labels on each floor, top first (``apps.office | apps.accounts`` is one floor)."""
    parser = configparser.ConfigParser()
    parser.read(CONFIG)
    layers = parser["importlinter:contract:floors"]["layers"].split("\n")
    return [
        {name.strip().removeprefix("apps.") for name in layer.split("|")}
        for layer in layers
        if layer.strip().startswith("apps.")
    ]


def floor_of(label: str) -> int:
    """0 for the bottom floor, growing upwards."""
    ordered = list(reversed(floors()))
    return next(i for i, layer in enumerate(ordered) if label in layer)


def string_model_references() -> list[tuple[str, str, int]]:
    """(app, referenced app, line) for every "app.Model" string in an app's non-migration code."""
    labels = set().union(*floors())
    found = []
    for path in sorted((ROOT / "apps").glob("*/**/*.py")):
        if "migrations" in path.parts:
            continue
        app = path.relative_to(ROOT / "apps").parts[0]
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                head, dot, model = node.value.partition(".")
                if dot and head in labels and head != app and model[:1].isupper():
                    found.append((app, head, node.lineno))
    return found


def test_every_app_is_on_a_floor():
    apps = {p.name for p in (ROOT / "apps").iterdir() if (p / "__init__.py").exists()}
    assert apps == set().union(*floors())


def test_string_model_references_point_down():
    upward = [
        (app, target, line)
        for app, target, line in string_model_references()
        if floor_of(target) >= floor_of(app)
    ]
    assert string_model_references(), "the scan found no references at all: is it broken?"
    assert upward == []


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    lint = Path(sys.executable).with_name("lint-imports")
    if not lint.exists():
        pytest.fail("lint-imports is not installed (it is a dev dependency in pyproject.toml)")
    return subprocess.run(
        [str(lint), "--config", str(tree / ".importlinter"), "--no-cache"],
        cwd=tree,
        capture_output=True,
        text=True,
        env={"PATH": str(Path(sys.executable).parent), "PYTHONPATH": str(tree)},
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the code and the contracts, to break."""
    for name in ("apps", "config"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(CONFIG, tmp_path / ".importlinter")
    return tmp_path


@pytest.mark.slow
def test_the_contracts_hold_and_fail_on_a_back_pointing_import(tree: Path):
    kept = _lint_imports(tree)
    assert kept.returncode == 0, kept.stdout + kept.stderr

    errors = tree / "apps" / "core" / "errors.py"
    errors.write_text(errors.read_text() + "\n\ndef _late():\n    from apps.office import draw\n")
    broken = _lint_imports(tree)
    assert broken.returncode != 0
    assert "apps.core.errors -> apps.office.draw" in broken.stdout
