"""CSV files that are safe to open in a spreadsheet.

A cell that begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula to
Excel, LibreOffice and Google Sheets ("CSV injection"). As OWASP recommends, such a cell is
written with a single quote in front, which spreadsheets show as text; plain numbers ("-1",
"+0.5") stay as they are. The csv module already quotes separators and quotes inside cells.
The published entrant list (``entrants.csv``) is written by the engine and is not passed
through here: it must read back byte for byte for ``silli_verify``, and entrant names may not
begin with these characters in the first place.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import IO, Any

from apps.silli.entrants import FORMULA_PREFIXES as FIELD_FORMULA_PREFIXES

# The entrant fields' guard (apps/silli/entrants.py), plus the tab and carriage return that
# no field may hold but another cell might.
FORMULA_PREFIXES = (*FIELD_FORMULA_PREFIXES, "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?\d+(?:[.,]\d+)?")


def safe_cell(value: Any) -> Any:
    """``value`` as a spreadsheet shows it as text, if it would otherwise be a formula."""
    if (
        isinstance(value, str)
        and value.startswith(FORMULA_PREFIXES)
        and not PLAIN_NUMBER.fullmatch(value)
    ):
        return "'" + value
    return value


class SafeWriter:
    """``csv.writer`` whose rows are written with :func:`safe_cell` on every cell."""

    def __init__(self, out: IO[str]) -> None:
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row: Iterable[Any]) -> Any:
        return self._writer.writerow([safe_cell(cell) for cell in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)


def safe_writer(out: IO[str]) -> SafeWriter:
    return SafeWriter(out)
