"""What ``rating_report`` and ``norms`` share: a TRF file's players as rating input, and the
JSON array they print.

Ratings come from the ``001`` lines (columns 49–52; blank or ``0``: unrated), games from the
round cells. A rated game is a cell with an opponent and one of the results ``1``, ``=``,
``0``; the TRF's ``W D L`` (played, not rated), the forfeits ``+ -``, the byes and the games
without a result yet are not passed on. TRF files do not say how many rated games a player
had before the event: every player gets the ``rated_games`` given.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

from django.core.management.base import CommandError

from apps.ratings.games import Game, Player
from apps.scoring.trf.read import TrfError, decode_trf, parse_trf

RATED_RESULTS = {"1": Fraction(1), "=": Fraction(1, 2), "0": Fraction(0)}
"""The TRF result codes of a game played and rated, and the score each gives."""


def read_trf_players(path: str, rated_games: int) -> list[Player]:
    """The players of the TRF file at ``path``, in the file's order.

    Raises :class:`CommandError` with exit status 2 and a sentence for a file that cannot be
    read, is not a TRF file, or names an opponent without a ``001`` line.
    """
    try:
        text = decode_trf(Path(path).read_bytes())
    except OSError as error:
        raise CommandError(f"cannot read {path}: {error.strerror}", returncode=2) from error
    try:
        tournament = parse_trf(text)
    except TrfError as error:
        raise CommandError(f"{path}: {error}", returncode=2) from error
    if not tournament.players:
        raise CommandError(f"{path} has no player (001) lines: it is not a TRF file", returncode=2)
    known = {record.start_rank for record in tournament.players}
    players = []
    for record in tournament.players:
        games = []
        for number, cell in enumerate(record.rounds, start=1):
            if cell.opponent is None or cell.result not in RATED_RESULTS:
                continue
            if cell.opponent not in known:
                raise CommandError(
                    f"{path}: player {record.start_rank}, round {number}: "
                    f"opponent {cell.opponent} has no 001 line",
                    returncode=2,
                )
            games.append(Game(cell.opponent, RATED_RESULTS[cell.result]))
        rating = record.rating or None
        players.append(Player(record.start_rank, rating, rated_games, tuple(games)))
    return players


def json_array(objects: list[dict[str, object]]) -> str:
    """A JSON array with one object a line (docs/interfaces.md §7)."""
    return "[\n" + ",\n".join(json.dumps(o, ensure_ascii=False) for o in objects) + "\n]\n"
