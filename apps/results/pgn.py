"""Games as PGN files: one game, a group's games or a stage's, for the downloads.

Pure formatting, no HTTP: :func:`game_pgn` writes one game, :func:`games_pgn` a file of
games one at a time (the downloads stream it), :func:`stage_games` / :func:`group_games` read
the games in the file's order without holding them all.

Each game gets the Seven Tag Roster, then the site's own tags:

* ``Event``: the tournament's name and the stage's kind (``"Accounts Cup, Preliminary"``);
  ``Site``: :data:`SITE`; ``Date``: the day the game was finished (``????.??.??`` unknown);
  ``Round``: the group's number and the game's (``"3.17"``: game 17 of group 3), in a Swiss
  stage the game's round (``"3"``);
  ``White``/``Black``: the entrants' names; ``Result``: see below.
* ``WhiteElo``/``BlackElo`` (rated entrants only), ``WhiteFed``/``BlackFed`` (their nations),
  ``WhiteCode``/``BlackCode`` (their entrant codes: a result import reads them back),
  ``Stage`` (the stage's order) and ``Group`` (the group's number).

Results: PGN knows only ``1-0``, ``0-1``, ``1/2-1/2`` and ``*``. A forfeit was not played, so
it has no moves; it is written as the result it counts as, with ``[Termination "forfeit"]``
and a comment saying who forfeited: ``+-`` as ``1-0``, ``-+`` as ``0-1``. A double forfeit
(``--``) has no PGN result (no side won, and it is no draw): it is written ``*`` with the
same tag and the comment ``{both forfeit}``; a reader that keeps the comment or the tag tells
it from a game in progress, which is ``*`` with ``[Termination "unterminated"]``. An
adjudicated result has ``[Termination "adjudication"]``.

The moves are the main line of the score the game keeps (``Game.pgn``, as a result import
checked and stored it with python-chess), read as text: the stored score's own tags, comments
and variations are left out (the file says what this site knows of the game).
A game without a score has only its result (and, for a forfeit, the comment).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict

from django.db.models import F, QuerySet
from django.utils import translation

from apps.core.results import Result
from apps.groups.models import Game, Group
from apps.stages.models import Stage

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    class _GroupNumber(TypedDict):
        group_number: int

    # A game read with its group's number.
    NumberedGame = WithAnnotations[Game, _GroupNumber]

MEDIA_TYPE = "application/x-chess-pgn"
CONTENT_TYPE = f"{MEDIA_TYPE}; charset=utf-8"
SITE = "Closed Circle"
UNKNOWN_DATE = "????.??.??"
# Games read per query while a file is written.
CHUNK = 2000

# A game's result code as a PGN result, and the Termination tag and comment it gets.
PGN_RESULTS: dict[Result, str] = {
    Result.NONE: "*",
    Result.WHITE_WINS: "1-0",
    Result.BLACK_WINS: "0-1",
    Result.DRAW: "1/2-1/2",
    Result.WHITE_FORFEIT_WIN: "1-0",
    Result.BLACK_FORFEIT_WIN: "0-1",
    Result.DOUBLE_FORFEIT: "*",
}
FORFEIT_COMMENTS: dict[Result, str] = {
    Result.WHITE_FORFEIT_WIN: "Black forfeits",
    Result.BLACK_FORFEIT_WIN: "White forfeits",
    Result.DOUBLE_FORFEIT: "both forfeit",
}
# The fields a file reads of each game and its players.
GAME_FIELDS = (
    "number",
    "round",
    "result",
    "adjudicated",
    "pgn",
    "finished_on",
    "group_id",
    *(f"{side}__{name}" for side in ("white", "black") for name in ("code", "name", "nation")),
    "white__rating",
    "black__rating",
)


@dataclass(frozen=True)
class Event:
    """What every game of a stage shares: the Event tag, the stage's order."""

    name: str
    stage_order: int
    swiss: bool = False
    """A Swiss stage: a game's Round tag is its round."""

    @classmethod
    def of(cls, stage: Stage) -> Event:
        # Files are read by programs everywhere: the stage's kind in English, whatever the
        # language of the request.
        with translation.override("en"):
            kind = str(stage.get_kind_display())
        return cls(f"{stage.tournament.name}, {kind}", stage.order, stage.is_swiss)


def pgn_result(code: str) -> str:
    """The PGN result token of a result code (``*`` for a game in progress and for a
    double forfeit)."""
    return PGN_RESULTS[Result(code)]


def _termination(result: Result, adjudicated: bool) -> str:
    if result.forfeit:
        return "forfeit"
    if not result.finished:
        return "unterminated"
    return "adjudication" if adjudicated else ""


_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_RESULT_TOKENS = ("1-0", "0-1", "1/2-1/2", "*")
# Export format: movetext lines of at most 79 characters.
WIDTH = 79


def _main_line(stored: str) -> tuple[dict[str, str], str]:
    """The stored score's tags and its main line's movetext (comments, variations and the
    result token left out). The stored score was checked on import and written by
    python-chess, so it is read as text here: a stage's file has many games, and parsing
    each again (every move checked) would cost milliseconds a game."""
    tags: dict[str, str] = {}
    lines = stored.strip().splitlines()
    i = 0
    while i < len(lines) and lines[i].lstrip().startswith("["):
        if match := _TAG.match(lines[i].strip()):
            tags[match[1]] = match[2]
        i += 1
    out: list[str] = []
    depth = 0
    text = "\n".join(lines[i:])
    j = 0
    while j < len(text):
        char = text[j]
        if char == "{":  # a comment, to its closing brace
            close = text.find("}", j)
            j = len(text) if close < 0 else close + 1
            continue
        if char == ";":  # a comment to the end of the line
            close = text.find("\n", j)
            j = len(text) if close < 0 else close + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(char)
        j += 1
    tokens = [t for t in "".join(out).split() if not t.startswith("$")]
    if tokens and tokens[-1] in _RESULT_TOKENS:
        tokens.pop()
    return tags, " ".join(tokens)


def _tag(name: str, value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'[{name} "{escaped}"]'


def game_pgn(game: Game, event: Event, group_number: int) -> str:
    """One game as PGN text, ending with a blank line (so games can be written one after the
    other). ``game`` has its players loaded."""
    result = Result(game.result)
    token = PGN_RESULTS[result]
    swiss_round = event.swiss and game.round
    headers: list[tuple[str, str]] = [
        ("Event", event.name),
        ("Site", SITE),
        ("Date", game.finished_on.strftime("%Y.%m.%d") if game.finished_on else UNKNOWN_DATE),
        ("Round", str(game.round) if swiss_round else f"{group_number}.{game.number}"),
        ("White", game.white.name),
        ("Black", game.black.name),
        ("Result", token),
    ]
    for side, entrant in (("White", game.white), ("Black", game.black)):
        if entrant.rating:
            headers.append((f"{side}Elo", str(entrant.rating)))
    for side, entrant in (("White", game.white), ("Black", game.black)):
        if entrant.nation:
            headers.append((f"{side}Fed", entrant.nation))
    headers += [
        ("WhiteCode", game.white.code),
        ("BlackCode", game.black.code),
        ("Stage", str(event.stage_order)),
        ("Group", str(group_number)),
    ]
    termination = _termination(result, game.adjudicated)
    if termination:
        headers.append(("Termination", termination))
    movetext = ""
    if result.forfeit:
        movetext = f"{{ {FORFEIT_COMMENTS[result]} }}"
    elif game.pgn:
        tags, movetext = _main_line(game.pgn)
        if "FEN" in tags:  # a game from a set-up position keeps it
            headers += [("SetUp", "1"), ("FEN", tags["FEN"])]
    body = textwrap.fill(f"{movetext} {token}".strip(), width=WIDTH, break_long_words=False)
    return "\n".join(_tag(name, value) for name, value in headers) + "\n\n" + body + "\n\n"


def games_pgn(games: Iterable[NumberedGame], event: Event) -> Iterator[str]:
    """A PGN file of ``games`` (each with a ``group_number``), a game at a time."""
    for game in games:
        yield game_pgn(game, event, game.group_number)


def _games(games: QuerySet[Game]) -> Iterator[NumberedGame]:
    return (
        games.select_related("white", "black")
        .only(*GAME_FIELDS)
        .annotate(group_number=F("group__number"))
        .order_by("group_number", "number")
        .iterator(chunk_size=CHUNK)
    )


def stage_games(stage: Stage) -> Iterator[NumberedGame]:
    """The stage's games by group, then number, read a chunk at a time."""
    return _games(Game.objects.filter(group__stage=stage))


def group_games(group: Group) -> Iterator[NumberedGame]:
    """The group's games by number, read a chunk at a time."""
    return _games(Game.objects.filter(group=group))


def stage_file_name(stage: Stage) -> str:
    return f"{stage.tournament.slug}-stage-{stage.order}-games.pgn"


def group_file_name(group: Group) -> str:
    stage = group.stage
    return f"{stage.tournament.slug}-stage-{stage.order}-group-{group.number}-games.pgn"


def game_file_name(game: Game) -> str:
    stage = game.group.stage
    return (
        f"{stage.tournament.slug}-stage-{stage.order}-group-{game.group.number}"
        f"-game-{game.number}.pgn"
    )
