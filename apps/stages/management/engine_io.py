"""What the engine commands share: reading inputs and failing with exit status 2."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from django.core.management.base import CommandError

from apps.silli.entrants import (
    Entrant,
    EntrantCsvError,
    parse_earlier_groups_csv,
    parse_entrants_csv,
    parse_pairs_csv,
)


class Failure(CommandError):
    """An input or a draw that cannot be used: the sentence is the whole message."""

    def __init__(self, message: str) -> None:
        super().__init__(message, returncode=2)


def read_text(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise Failure(f"cannot read {path}: {exc.strerror}") from exc
    except UnicodeDecodeError as exc:
        raise Failure(f"{path} is not UTF-8 text") from exc


def load_entrants(path: str) -> list[Entrant]:
    try:
        return parse_entrants_csv(read_text(path))
    except EntrantCsvError as exc:
        rows = "\n".join(f"  {e}" for e in exc.errors)
        raise Failure(f"{path}: {len(exc.errors)} bad row(s), nothing was read:\n{rows}") from exc


def load_pairs(path: str | None) -> list[tuple[str, str]]:
    if not path:
        return []
    try:
        return parse_pairs_csv(read_text(path))
    except EntrantCsvError as exc:
        raise Failure(f"{path}: {exc}") from exc


def load_earlier_groups(path: str | None) -> dict[str, str] | None:
    if not path:
        return None
    try:
        return parse_earlier_groups_csv(read_text(path))
    except EntrantCsvError as exc:
        raise Failure(f"{path}: {exc}") from exc


def write_atomically(path: str, text: str) -> None:
    """Write the whole file or nothing (a temporary file renamed into place)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
