"""A group's pairing list as a CSV to fill in for the results import: the group's games (or a
Swiss round's), one a line, under the results import's columns ``white,black,result,date,pgn``
(docs/interfaces.md §5 and §6): the players' entrant codes, and for a finished game its result
and the day it ended (importing those again changes nothing). A TD writes the results of the
open games in, and imports the file on the group's *Import results* page (the lines of games
still open are left out or refused: an import sets finished games only). The bye of a Swiss
round is no game and has no line. Cells are written as spreadsheets keep them as text
(``'+-``, which the import reads back)."""

from __future__ import annotations

import io

from apps.core.csvfiles import safe_writer
from apps.groups.models import Game, Group

# The results import's columns (apps/results/imports.py, CSV_COLUMNS).
COLUMNS = ("white", "black", "result", "date", "pgn")


def pairing_list_csv(group: Group, round_number: int | None = None) -> str | None:
    """The group's games (``round_number``: that round's only) as the results import's CSV;
    None for a round without games."""
    games = Game.objects.filter(group=group)
    if round_number is not None:
        games = games.filter(round=round_number)
    rows = list(
        games.order_by("number").values_list("white__code", "black__code", "result", "finished_on")
    )
    if round_number is not None and not rows:
        return None
    out = io.StringIO()
    writer = safe_writer(out)
    writer.writerow(COLUMNS)
    for white, black, result, finished_on in rows:
        day = finished_on.isoformat() if result and finished_on else ""
        writer.writerow([white, black, result, day, ""])
    return out.getvalue()
