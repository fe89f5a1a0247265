"""The worked example of docs/ratings.md §5, read from the page: its group and its tables."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from apps.ratings.games import Game, Player

DOC = Path(__file__).resolve().parents[2] / "docs" / "ratings.md"

SYMBOLS = {
    "1": (Fraction(1), True),
    "½": (Fraction(1, 2), True),
    "0": (Fraction(0), True),
    "+": (Fraction(1), False),
    "−": (Fraction(0), False),
}
"""The crosstable's result symbols: score and whether the game was played."""


def section(title: str) -> str:
    """The text of the ``###`` section whose heading starts with ``title``."""
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"### {title}")
    end = text.find("\n#", start + 1)
    return text[start : end if end != -1 else len(text)]


def tables(title: str) -> list[list[list[str]]]:
    """Every table of a section, as rows of cells (header and separator left out)."""
    found: list[list[list[str]]] = []
    rows: list[list[str]] | None = None
    for line in section(title).splitlines():
        if not line.startswith("|"):
            rows = None
            continue
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if rows is None:
            rows = []
            found.append(rows)
        elif not set("".join(cells)) <= set("-"):
            rows.append(cells)
    return found


def table(title: str) -> list[list[str]]:
    """The one table of a section."""
    (only,) = tables(title)
    return only


def points(text: str) -> Fraction:
    """``4½``, ``½``, ``6`` as a fraction."""
    if text.endswith("½"):
        return Fraction(int(text[:-1] or 0)) + Fraction(1, 2)
    return Fraction(int(text))


def rating(text: str) -> int | None:
    return None if text == "—" else int(text)


def names() -> dict[int, str]:
    return {int(row[0]): row[1] for row in table("5.1")}


def players() -> list[Player]:
    """The group of §5.1."""
    group = []
    for row in table("5.1"):
        number = int(row[0])
        games = []
        for opponent, symbol in enumerate(row[4:14], start=1):
            if opponent != number:
                score, played = SYMBOLS[symbol]
                games.append(Game(opponent, score, played))
        group.append(Player(number, rating(row[2]), int(row[3]), tuple(games)))
    return group
