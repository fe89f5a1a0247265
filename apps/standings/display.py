"""Standings figures as the pages, exports and e-mails write them, and a crosstable row's
games in the order the compact tables show them."""

from __future__ import annotations

from decimal import Decimal

from django.utils.translation import pgettext_lazy

from apps.scoring.points import points_text

from .crosstable import Cell, Row

# Column heads of the tie-break figures; the systems' own abbreviations stay as they are.
KEY_LABELS = {
    "points": pgettext_lazy("column: points", "Pts"),
    "ts": "TS",
    "ts_cut1": "TS-Cut1",
    "ts_median": "TS-Median",
    "bh": "BH",
    "bh_c1": "BH-C1",
    "bh_c2": "BH-C2",
    "sb": "SB",
    "wins": pgettext_lazy("column: games won", "Wins"),
    "black_games": pgettext_lazy("column: games with Black", "Black"),
}
TORINO_KEYS = {"ts", "ts_cut1", "ts_median"}


def figure_text(key: str, value: str | None) -> str:
    if value is None or value == "":
        return "–"
    if key in TORINO_KEYS:
        return f"{Decimal(value):.2f}"
    return points_text(value)


def key_labels(keys: list[str]) -> list[str]:
    return [str(KEY_LABELS.get(k, k)) for k in keys]


def ordered_cells(row: Row, size: int) -> list[Cell]:
    """A row's games in formula order: White games by distance, then Black games."""

    def order(cell: Cell) -> tuple[int, int]:
        if cell.colour == "W":
            return (0, (cell.opponent_seat - row.seat) % size)
        return (1, (row.seat - cell.opponent_seat) % size)

    return sorted(row.cells.values(), key=order)


def colour_columns(rows: list[Row]) -> tuple[int, int]:
    """How many White and Black game columns a compact table needs (the most of any row)."""
    whites = max((sum(c.colour == "W" for c in r.cells.values()) for r in rows), default=0)
    blacks = max((sum(c.colour == "B" for c in r.cells.values()) for r in rows), default=0)
    return whites, blacks


def compact_cells(row: Row, size: int, whites: int, blacks: int) -> list[Cell | None]:
    """The row's White games then its Black games, each padded to its column count."""
    cells = ordered_cells(row, size)
    white = [c for c in cells if c.colour == "W"]
    black = [c for c in cells if c.colour == "B"]
    return white + [None] * (whites - len(white)) + black + [None] * (blacks - len(black))
