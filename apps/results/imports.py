"""Importing results in bulk: a CSV or PGN file of finished games, for a group (its TD or an
organizer) or a whole stage (organizers), all lines or none.

The work comes in three steps, none of them knowing HTTP:

1. **Reading** (:func:`read_csv`, :func:`read_pgn`) turns the file into :class:`Line` records,
   each with the line it starts on: who played White and Black (entrant codes, or the names of
   a PGN's ``White``/``Black`` tags), the result, the finish date and the game score parsed by
   python-chess (moves checked legal, the result checked against the end of the moves).
2. **Checking** finds each line's game in one read of the scope's seats and games, keyed by
   (White, Black), and says what is wrong with it: an unknown player, no such pairing, the
   colours swapped, a game listed twice, finished already with another result, a closed group.
3. **Applying** (:func:`import_results` without ``dry_run``) does it all again in one
   transaction with the groups locked (every write into a group locks it first, so their
   games, read a chunk at a time in the order of their ids, stay as read; the writing checks
   their versions all the same), so a refusal changes nothing and what is applied is what
   the locked rows allow. On PostgreSQL each chunk's changes are copied (COPY) into a
   temporary table, and at the end one ``UPDATE … FROM`` it writes the games and one
   ``INSERT … SELECT`` the audit: one ``results.imported`` event sums the import up, with a
   :class:`~apps.core.models.ResultChange` row per game changed (old and new result),
   which the game's history shows. The standings are marked once per group touched (many
   groups of a stage: one pass over the stage recomputes them, then its ranking). A file
   of plain lines (codes, results, dates; no score) is applied (or checked, in a dry run)
   on PostgreSQL without a line passing through Python (:func:`_apply_plain`): copied into
   a temporary table and paired with its games by joins; only a file with a bad line among
   them is judged line by line, which lists every bad line.

A file of 500,000 results is held as :class:`Lines` (about 30 bytes a line) and checked in
chunks: no record per line lives longer than its chunk.

A game finished already with the same result is *unchanged* (importing a file twice is
harmless); if the file brings a score or a finish date the game did not have (or another
one), those are stored without touching the result. An import never corrects a result: a
correction needs a reason, given on the game's own page.

No e-mail is sent per imported result: a file carries games that are long over, often a
whole stage's (500,000 results would be a million e-mails at once). Each player whose results
the import set gets one digest of them instead (:mod:`.notices`, after the commit, sent by
tasks in batches of players); the TDs find every imported result in their daily digest. The
reports of the games that got their results close (:mod:`.settling`).
"""

from __future__ import annotations

import csv
import gc
import heapq
import re
from array import array
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import TextIO, cast

import chess
import chess.pgn
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import results_imported
from apps.core.bulk import column_of, field_of, update_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.core.permissions import Actor, require_organizer, require_result_entry
from apps.core.results import Result
from apps.core.text import lines_with_nul
from apps.groups.models import Game, Group, Seat
from apps.stages.models import Stage
from apps.standings.freshness import schedule_recomputes

from .models import PGN_MAX_LENGTH, ResultImportJob
from .notices import tell_players_of_import
from .services import require_group_open, require_in_play, require_result_code
from .settling import IMPORT, settle_reports
from .signals import announce

FORMATS = ("csv", "pgn")
CSV_COLUMNS = ("white", "black", "result", "date", "pgn")
CSV_REQUIRED = ("white", "black", "result")
# Games (and groups) read and locked per query; on PostgreSQL games are read by an array of
# their ids, ARRAY_CHUNK a query.
CHUNK = 1000
ARRAY_CHUNK = 10_000
# The results an import sets.
FINISHED = frozenset(r.value for r in Result if r.finished)
# PGN results; a forfeit (not played) may stand in a Result tag only without moves.
PLAYED = (Result.WHITE_WINS, Result.BLACK_WINS, Result.DRAW)
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
PGN_DATE = re.compile(r"(\d{4})\.(\d{2})\.(\d{2})")
UNKNOWN_DATE = "????.??.??"
# A PGN tag pair on a line of its own (as python-chess reads tags).
TAG_LINE = chess.pgn.TAG_REGEX
# Reading tells its progress (:data:`Progress`) after every this many games or rows.
PROGRESS_EVERY = 1000
# How many of the changes a report keeps to show (it counts them all).
PREVIEW_ROWS = 500

# What reading tells as it goes: (the line reached, games or rows read so far).
Progress = Callable[[int, int], None]


# ---------------------------------------------------------------------------
# Records
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class Line:
    """One game of the file, as read: ``white``/``black`` are entrant codes, or names where
    ``by_name`` says so (a PGN game without a code tag for that side); ``problems`` are what
    reading found wrong."""

    line: int
    white: str
    black: str
    result: str
    finished_on: date | None = None
    score: _Score | _KeptScore | None = None
    by_name: tuple[bool, bool] = (False, False)
    problems: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Change:
    """What the import does to one game (for the preview, and then done)."""

    line: int
    game_id: int
    group_number: int
    number: int
    white: str
    black: str
    old: str
    new: str
    finished_on: date | None
    scored: bool  # the file brings a game score

    @property
    def result_set(self) -> bool:
        """False when only the score or the finish date of a finished game is added."""
        return self.old != self.new


@dataclass(frozen=True)
class ImportReport:
    """What an import did (or, in a dry run, would do): how many games it changes
    (``applied``), of those how many get their result (``results``), how many lines left
    their game as it was, and the first :data:`PREVIEW_ROWS` changes in the file's order
    (``changes``; a file of 500,000 results keeps no more than these)."""

    file_format: str
    dry_run: bool
    changes: list[Change]
    unchanged: int
    applied: int
    results: int

    @property
    def scores_only(self) -> int:
        """How many finished games only get a score or a finish date."""
        return self.applied - self.results


# The results a line may give, by their index in Lines (RESULT_OTHER: a text that is none).
RESULT_CODES: tuple[str, ...] = tuple(Result.values)
_RESULT_INDEX = {code: index for index, code in enumerate(RESULT_CODES)}
RESULT_OTHER = 255


class Lines:
    """The lines of a file as read, kept compactly: a line's number, players, result, finish
    date in arrays (the players' codes kept once each), its score and problems only when it
    has them — about 30 bytes a line, where the :class:`Line` records of a file of 500,000
    results held 300 MB. Reading one (``lines[i]``, iterating) gives a new :class:`Line`."""

    def __init__(self) -> None:
        self._numbers = array("q")
        self._whites: list[str] = []
        self._blacks: list[str] = []
        self._results = bytearray()
        self._dates = array("l")  # date ordinals, 0 for none
        self._by_name = bytearray()  # bit 0: White by name, bit 1: Black
        # (result, score, problems) of a line with a score or problems, or another result
        self._extras: dict[int, tuple[str, _KeptScore | None, list[str]]] = {}
        self._kept: dict[str, str] = {}  # each code (or name) once

    def append(self, line: Line) -> None:
        index = len(self._numbers)
        kept = self._kept
        self._numbers.append(line.line)
        self._whites.append(kept.setdefault(line.white, line.white))
        self._blacks.append(kept.setdefault(line.black, line.black))
        code = _RESULT_INDEX.get(line.result, RESULT_OTHER)
        self._results.append(code)
        self._dates.append(line.finished_on.toordinal() if line.finished_on else 0)
        self._by_name.append(line.by_name[0] | line.by_name[1] << 1)
        score = line.score
        if isinstance(score, _Score):
            # A bad line's score is never written; a good one's is kept as its text.
            keep = _has_moves(score) and not line.problems
            score = _KeptScore.of(score, line.result) if keep else None
        if code == RESULT_OTHER or score is not None or line.problems:
            self._extras[index] = (line.result, score, line.problems)

    def add(self, number: int, white: str, black: str, result: int, day: int) -> None:
        """Append a line read without a problem, a score or names: its number, the codes
        of its players, the index of its result in RESULT_CODES, its finish date's ordinal
        (0: none). (What :meth:`append` does with such a :class:`Line`, without one.)"""
        kept = self._kept
        self._numbers.append(number)
        self._whites.append(kept.setdefault(white, white))
        self._blacks.append(kept.setdefault(black, black))
        self._results.append(result)
        self._dates.append(day)
        self._by_name.append(0)

    def plain(self, index: int) -> bool:
        """Whether line ``index`` names its players by code and has no score, no problem
        and a result code (the lines :meth:`add` takes)."""
        return index not in self._extras and not self._by_name[index]

    def __len__(self) -> int:
        return len(self._numbers)

    def __getitem__(self, index: int) -> Line:
        extra = self._extras.get(index)
        if extra is None:
            result, score, problems = RESULT_CODES[self._results[index]], None, []
        else:
            result, score, problems = extra[0], extra[1], list(extra[2])
        day = self._dates[index]
        flags = self._by_name[index]
        return Line(
            self._numbers[index],
            self._whites[index],
            self._blacks[index],
            result,
            date.fromordinal(day) if day else None,
            score,
            (bool(flags & 1), bool(flags & 2)),
            problems,
        )

    def __iter__(self) -> Iterator[Line]:
        for index in range(len(self._numbers)):
            yield self[index]

    @classmethod
    def of(cls, lines: Iterable[Line]) -> Lines:
        kept = cls()
        for line in lines:
            kept.append(line)
        return kept


@dataclass(frozen=True)
class Problem:
    """What is wrong with a line (a line may have several)."""

    line: int
    message: str


# ---------------------------------------------------------------------------
# Reading game scores (python-chess)
# ---------------------------------------------------------------------------


class _LineCountingReader:
    """A text python-chess reads line by line (all it asks of a file), counting the lines
    read so far.

    python-chess ends a game's moves at a blank line only; files glued together often lack
    it before the next game's first tag. So a tag line right after a line of moves is
    preceded by a blank line that is not in the text (and not counted).

    What python-chess cannot tell from one game is stopped at: a game's tags followed,
    after a blank line, by more tags (a game without moves and without a result token:
    python-chess would read the next games' tags into it), or a tag of the Seven Tag Roster
    repeated in one game's tags. The reader then ends the text there (``stopped_at``: the
    line; ``stopped_game``: the line of the game left unfinished)."""

    ROSTER = frozenset({"Event", "Site", "Date", "Round", "White", "Black", "Result"})

    def __init__(self, text: str) -> None:
        self._text = _text_lines(text)  # not a StringIO: four bytes a character
        self._held = ""
        self._in_moves = False
        self._state = "start"  # start, tags, gap (a blank line after tags), moves
        self._tags: set[str] = set()
        self._game_line = 0
        self.number = 0
        self.stopped_at: int | None = None
        self.stopped_game = 0

    def readline(self) -> str:
        if self.stopped_at is not None:
            return ""
        if self._held:
            line, self._held = self._held, ""
            return self._counted(line)
        line = next(self._text, "")
        if not line:
            return line
        is_tag = TAG_LINE.match(line) is not None
        if is_tag and self._in_moves:
            self._held, self._in_moves = line, False
            self._state = "start"
            return "\n"
        self._in_moves = not (is_tag or line.isspace())
        return self._counted(line)

    def _counted(self, line: str) -> str:
        match = TAG_LINE.match(line)
        if match is not None:
            name = match.group(1)
            if self._state == "gap" or (self._state == "tags" and name in self._tags & self.ROSTER):
                self.stopped_at, self.stopped_game = self.number + 1, self._game_line
                return ""
            if self._state != "tags":
                self._tags, self._game_line = set(), self.number + 1
            self._tags.add(name)
            self._state = "tags"
        elif line.isspace():
            self._state = "gap" if self._state == "tags" else "start"
        else:
            self._state = "moves"
        self.number += 1
        return line

    def read(self) -> str:
        return self._held + "".join(self._text)


_UNESCAPE = re.compile(r'\\(["\\])')


class _ScoreExporter(chess.pgn.StringExporter):
    """python-chess's PGN writer, with tag values escaped as PGN requires (a ``"`` or ``\\``
    in a value behind a ``\\``): python-chess writes them as they are, which is not PGN
    (a name such as ``O"Brien`` broke the stored score for every PGN reader)."""

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        escaped = tagvalue.replace("\\", "\\\\").replace('"', '\\"')
        super().visit_header(tagname, escaped)


def stored_score(score: chess.pgn.Game) -> str:
    """A score as a game keeps it: python-chess's export (tags, comments and variations),
    its tag values escaped."""
    return score.accept(_ScoreExporter(headers=True, variations=True, comments=True))


@dataclass(slots=True)
class _KeptScore:
    """A game score read and checked, kept until the game it belongs to is known: its tags
    and its moves as the game keeps them (python-chess's export without the tags) — a few
    hundred bytes, where python-chess's game is a node a move (a 250,000-game PGN file's
    held 1.5 GB). :func:`_kept_text` writes it whole, as :func:`stored_score` writes the
    game."""

    headers: chess.pgn.Headers
    moves: str

    @classmethod
    def of(cls, game: _Score, result: str) -> _KeptScore:
        """``game`` (with moves) kept, its Result tag ``result`` (the result its moves end
        with in the text, as the stored score has them)."""
        game.headers["Result"] = result
        moves = game.accept(_ScoreExporter(headers=False, variations=True, comments=True))
        return cls(game.headers, moves)


def _kept_text(score: _KeptScore) -> str:
    """The kept score as :func:`stored_score` writes the game: its tags, a blank line, its
    moves."""
    tags = [
        '[{} "{}"]'.format(name, value.replace("\\", "\\\\").replace('"', '\\"'))
        for name, value in score.headers.items()
    ]
    return "\n".join([*tags, "", score.moves]) if tags else score.moves


class _Score(chess.pgn.Game):
    """A game as python-chess reads it, with what the import also needs to know: the line
    it starts on, the result written after its moves, and its first illegal move."""

    start_line = 0
    termination = ""
    illegal = ""  # e.g. "12… Nf3"


class _ScoreBuilder(chess.pgn.GameBuilder[_Score]):
    """python-chess's game builder, filling in :class:`_Score`'s extras; errors are
    collected in ``game.errors`` without being logged."""

    def __init__(self, reader: _LineCountingReader) -> None:
        super().__init__(Game=_Score)
        self.reader = reader

    def begin_game(self) -> None:
        super().begin_game()
        self.game.start_line = self.reader.number

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        # PGN escapes a quote and a backslash in a tag value; python-chess keeps the escapes
        super().visit_header(tagname, _UNESCAPE.sub(r"\1", tagvalue))

    def visit_result(self, result: str) -> None:
        self.game.termination = result
        super().visit_result(result)

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            move = board.parse_san(san)
            if not move:  # "--", a null move: no move at all
                raise chess.IllegalMoveError(f"null move {san!r}")
        except ValueError:
            if not self.game.illegal:
                dots = "." if board.turn == chess.WHITE else "…"
                self.game.illegal = f"{board.fullmove_number}{dots} {san}"
            raise
        return move

    def end_variation(self) -> None:
        # A stray ")" after an illegal move would pop the main line itself.
        if len(self.variation_stack) > 1:
            super().end_variation()

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)


def _read_score(reader: _LineCountingReader) -> _Score | None:
    """The next game of ``reader`` (None at the end). A text python-chess trips over gives a
    game whose ``errors`` say so, and the reading goes on after its next blank line."""
    builders: list[_ScoreBuilder] = []

    def builder() -> _ScoreBuilder:
        builders.append(_ScoreBuilder(reader))
        return builders[-1]

    try:
        return chess.pgn.read_game(cast(TextIO, reader), Visitor=builder)
    except Exception as error:  # any text comes in, and python-chess is not proof to all
        game = getattr(builders[-1], "game", None) if builders else None
        if game is None:
            game = _Score()
            game.start_line = reader.number
        game.errors.append(error)
        while (line := reader.readline()) and not line.isspace():
            pass
        return game


def _score_problems(game: _Score) -> list[str]:
    """What is wrong with a parsed game score by itself: an illegal move, a position or a
    text python-chess cannot read, a variant other than chess."""
    if game.illegal:
        return [_("illegal move %(move)s") % {"move": game.illegal}]
    if game.errors:
        return [
            _("the game score cannot be read: %(error)s") % {"error": error}
            for error in game.errors
        ]
    try:
        chess_game = game.headers.variant() is chess.Board
    except ValueError:
        chess_game = False
    if not chess_game:
        return [_("the game is %(variant)s, not chess") % {"variant": game.headers.get("Variant")}]
    return []


def _has_moves(game: _Score) -> bool:
    return bool(game.variations)


def _ending_problems(game: _Score, result: Result) -> list[str]:
    """The result against the moves: the result written after the moves, a forfeit with
    moves, a checkmate or a stalemate that says otherwise."""
    if result.forfeit and _has_moves(game):
        return [
            _("a forfeit (%(result)s) was not played: leave the game score out")
            % {"result": result.value}
        ]
    termination = game.termination
    if termination not in ("", "*") and termination != result:
        return [
            _("the result %(result)s does not match the result %(end)s after the moves")
            % {"result": result.value, "end": termination}
        ]
    if not _has_moves(game):
        return []
    board = game.end().board()
    if board.is_checkmate():
        won = Result.BLACK_WINS if board.turn == chess.WHITE else Result.WHITE_WINS
        if result != won:
            return [
                _("the moves end in checkmate, so the result is %(won)s, not %(result)s")
                % {"won": won.value, "result": result.value}
            ]
    elif (board.is_stalemate() or board.is_insufficient_material()) and result != Result.DRAW:
        return [
            _("the moves end in a drawn position, so the result is 1/2-1/2, not %(result)s")
            % {"result": result.value}
        ]
    return []


def pgn_date(value: str) -> tuple[date | None, str]:
    """A complete PGN date (YYYY.MM.DD) as a date; partial or unknown dates are no date.
    Second: the problem, if the date looks complete but is none."""
    match = PGN_DATE.fullmatch(value.strip())
    if match is None:
        return None, ""
    try:
        return date(*(int(part) for part in match.groups())), ""
    except ValueError:
        return None, _("the Date tag %(date)s is not a date") % {"date": value}


def _latest_date() -> date:
    """The latest finish date a file may give: tomorrow (a player ahead in time)."""
    return timezone.localdate() + timedelta(days=1)


def _check_date(day: date | None, latest: date | None = None) -> list[str]:
    """A finish date after tomorrow is a typing error (``latest``: :func:`_latest_date`, when
    the caller reads it once for a whole file)."""
    if day is not None and day > (latest or _latest_date()):
        return [_("the date %(date)s is in the future") % {"date": day.isoformat()}]
    return []


# ---------------------------------------------------------------------------
# Reading a CSV file
# ---------------------------------------------------------------------------


def _refuse_file(line: int, message: str) -> ActionError:
    """A file that cannot be read at all (its header, its text)."""
    return _bad_lines([Problem(line, message)])


def score_length_problem(length: int) -> str | None:
    """The refusal of a game score ``length`` characters long, or None if it is short enough:
    every road a score comes in by (result entry, reports, the API, the results import)
    keeps to ``PGN_MAX_LENGTH`` characters, the score as stored with its tags."""
    if length <= PGN_MAX_LENGTH:
        return None
    return _(
        "the game score is %(length)s characters long, more than the %(limit)s a game score "
        "may have; shorten its comments or variations"
    ) % {
        "length": number_format(length, force_grouping=True),
        "limit": number_format(PGN_MAX_LENGTH, force_grouping=True),
    }


def _csv_score(text: str, result: str) -> tuple[_Score | None, list[str]]:
    """A CSV cell's game score (PGN movetext or a whole PGN game) and its problems."""
    if not text.strip():
        return None, []
    too_long = score_length_problem(len(text))
    if too_long:
        return None, [too_long]  # not even read
    reader = _LineCountingReader(text)
    game = _read_score(reader)
    if game is None:
        return None, []
    problems = _score_problems(game)
    if reader.read().strip():
        problems.append(_("the pgn cell holds more than one game, or a blank line in the moves"))
    tag = game.headers.get("Result", "*")
    known = result in Result.values and not Result(result).forfeit  # forfeits: no moves
    if not problems and tag not in ("*", "") and tag != result and known:
        problems.append(
            _("the pgn's result %(tag)s does not match the result %(result)s")
            % {"tag": tag, "result": result}
        )
    return game, problems


def checked_game_score(game: Game, result: str, text: str) -> str:
    """One game's score (PGN movetext or a whole PGN game) checked as an import checks a
    CSV cell's, against ``result``: the score as the game keeps it (the players' names and
    codes, the event, the round and the result filled in), '' without moves. Refused with
    what is wrong (INVALID_INPUT). ``game`` comes with its players and tournament."""
    score, problems = _csv_score(text, result)
    if score is not None and not problems:
        problems = _ending_problems(score, Result(result))
    if problems:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The game score is refused: %(problems)s.") % {"problems": "; ".join(problems)},
            [{"field": "pgn", "message": problem} for problem in problems],
        )
    if score is None or not _has_moves(score):
        return ""
    headers = score.headers
    if _tag(score, "Event") == "":
        headers["Event"] = game.group.stage.tournament.name
    if _tag(score, "Round") == "" and game.round:
        headers["Round"] = str(game.round)
    headers["White"], headers["Black"] = game.white.name, game.black.name
    headers["Result"] = result
    headers["WhiteCode"], headers["BlackCode"] = game.white.code, game.black.code
    stored = stored_score(score)
    too_long = score_length_problem(len(stored))
    if too_long:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The game score is refused: %(problems)s.") % {"problems": too_long},
            [{"field": "pgn", "message": too_long}],
        )
    return stored


def read_csv(text: str, progress: Progress | None = None) -> Lines:
    """The lines of a results CSV: a header naming the columns ``white``, ``black``,
    ``result`` and optionally ``date`` and ``pgn`` (any order), then one game a line.

    A header that cannot be used refuses the file at once; every other problem stays with
    its line (:attr:`Line.problems`) so that all of them are listed together. ``progress``
    is told every :data:`PROGRESS_EVERY` rows.
    """
    reader = csv.reader(_text_lines(text.lstrip("\ufeff")))
    rows = _csv_rows(reader)
    header_line, header = next(rows, (1, []))
    names = [cell.strip().lower() for cell in header]
    while names and not names[-1]:  # a spreadsheet's trailing empty columns
        names.pop()
    unknown = [n for n in names if n not in CSV_COLUMNS]
    missing = [n for n in CSV_REQUIRED if n not in names]
    if unknown or missing or len(set(names)) != len(names):
        raise _refuse_file(
            header_line,
            _(
                "the first line must name the columns: white, black, result, and optionally "
                "date and pgn (found: %(found)s). A PGN file is imported with the format PGN."
            )
            % {"found": ", ".join(header) or _("nothing")},
        )
    lines = Lines()
    width = len(names)
    checked: dict[str, list[str]] = {}  # the problems of each result code met, checked once
    latest = _latest_date()
    # The plain line (codes, a finished result, an ISO date or none, no score) is read here
    # at once; any other goes through _csv_line, which finds its problems.
    white, black, result = names.index("white"), names.index("black"), names.index("result")
    when = names.index("date") if "date" in names else None
    score = names.index("pgn") if "pgn" in names else None
    plain = {code: index for index, code in enumerate(RESULT_CODES) if code in FINISHED}
    add = lines.add
    for number, row in rows:
        if progress is not None and lines and len(lines) % PROGRESS_EVERY == 0:
            progress(number, len(lines))
        if len(row) == width and (score is None or not row[score].strip()):
            code = plain.get(row[result].strip().removeprefix("'"))
            white_code, black_code = row[white].strip(), row[black].strip()
            if code is not None and white_code and black_code:
                day = 0
                if when is not None and (text_date := row[when].strip()):
                    parsed = _iso_date(text_date)
                    day = parsed.toordinal() if parsed is not None and parsed <= latest else -1
                if day >= 0:
                    add(number, white_code, black_code, code, day)
                    continue
        if len(row) > width and any(map(str.strip, row[width:])):
            lines.append(
                Line(
                    number,
                    "",
                    "",
                    "",
                    problems=[
                        _("the line has %(cells)s cells, the header %(columns)s")
                        % {"cells": len(row), "columns": len(names)}
                    ],
                )
            )
            continue
        cells = dict(zip(names, map(str.strip, row), strict=False))
        lines.append(_csv_line(number, cells, checked, latest))
    return lines


def _text_lines(text: str) -> Iterator[str]:
    """The lines of ``text`` as a file of it gives them (each up to its "\\n", kept), one at a
    time: a StringIO of a 10 MB file holds 40 MB."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:]
            return
        yield text[start : end + 1]
        start = end + 1


def _iso_date(text: str) -> date | None:
    """A date written YYYY-MM-DD, or None."""
    if not ISO_DATE.fullmatch(text):
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def _csv_rows(reader) -> Iterator[tuple[int, list[str]]]:
    """(the line a row starts on, its cells) for every row with something in it."""
    start = 1
    try:
        for row in reader:
            if any(map(str.strip, row)):
                yield start, row
            start = reader.line_num + 1
    except csv.Error as error:
        raise _refuse_file(
            start, _("the CSV cannot be read from here on: %(error)s") % {"error": error}
        ) from error


def _csv_line(
    number: int, cells: dict[str, str], checked: dict[str, list[str]], latest: date
) -> Line:
    """One line of a CSV file; ``checked`` keeps the problems of the result codes met so far
    (a file of 500,000 lines has a handful of codes), ``latest`` is :func:`_latest_date`."""
    # A leading apostrophe is how a spreadsheet keeps "+-" text (apps/core/csvfiles.py).
    result = cells.get("result", "").removeprefix("'")
    line = Line(number, cells.get("white", ""), cells.get("black", ""), result)
    if not line.white:
        line.problems.append(_("the white column is empty: give White's entrant code"))
    if not line.black:
        line.problems.append(_("the black column is empty: give Black's entrant code"))
    result_problems = checked.get(result)
    if result_problems is None:
        result_problems = checked[result] = _result_problems(result)
    line.problems += result_problems
    when = cells.get("date", "")
    if when:
        try:
            if not ISO_DATE.fullmatch(when):
                raise ValueError(when)
            line.finished_on = date.fromisoformat(when)
        except ValueError:
            line.problems.append(
                _("the date %(date)r is not a date written YYYY-MM-DD") % {"date": when}
            )
    score, problems = _csv_score(cells.get("pgn", ""), result)
    line.score = score
    line.problems += problems
    if score is not None and line.finished_on is None and not problems:
        line.finished_on, problem = pgn_date(score.headers.get("Date", UNKNOWN_DATE))
        line.problems += [problem] if problem else []
    line.problems += _check_date(line.finished_on, latest)
    if score is not None and not line.problems:
        line.problems += _ending_problems(score, Result(result))
    return line


def _result_problems(result: str) -> list[str]:
    """The import's result check: a result code (the check every result entry makes) of a
    finished game."""
    try:
        code = require_result_code(result)
    except ActionError as refused:
        return [refused.message]
    if not code.finished:
        return [
            _(
                "the result is missing: an import sets finished games only (1-0, 0-1, "
                "1/2-1/2, +-, -+, --)"
            )
        ]
    return []


# ---------------------------------------------------------------------------
# Reading a PGN file
# ---------------------------------------------------------------------------


def read_pgn(text: str) -> Lines:
    """The games of a PGN file. A game's players are its ``WhiteCode``/``BlackCode`` tags
    (entrant codes), or else its ``White``/``Black`` tags (names); its result is the
    ``Result`` tag, its finish date the ``Date`` tag when complete (YYYY.MM.DD). The games
    up to where the file can no longer be read as games (:func:`read_pgn_until`)."""
    return read_pgn_until(text)[0]


def read_pgn_until(text: str, progress: Progress | None = None) -> tuple[Lines, Problem | None]:
    """The games of a PGN file up to where it stops being readable as games, and (None if
    it never does) where and why it stopped, with how many games were read. ``progress`` is
    told every :data:`PROGRESS_EVERY` games."""
    reader = _LineCountingReader(text.lstrip("\ufeff"))
    lines = Lines()
    while (game := _read_score(reader)) is not None:
        lines.append(_pgn_line(game))
        if progress is not None and len(lines) % PROGRESS_EVERY == 0:
            progress(reader.number, len(lines))
    if reader.stopped_at is None:
        return lines, None
    count = len(lines)
    message = ngettext(
        "reading stopped here: a new game's tags begin before the game of line %(game)s has "
        "its moves or a result token (1-0, 0-1, 1/2-1/2 or *); %(count)s game was read up "
        "to here, that one included, and the rest of the file was not read",
        "reading stopped here: a new game's tags begin before the game of line %(game)s has "
        "its moves or a result token (1-0, 0-1, 1/2-1/2 or *); %(count)s games were read up "
        "to here, that one included, and the rest of the file was not read",
        count,
    ) % {"game": reader.stopped_game, "count": count}
    return lines, Problem(reader.stopped_at, message)


def _tag(game: _Score | _KeptScore, name: str) -> str:
    value = game.headers.get(name, "").strip()
    return "" if value == "?" else value


def _pgn_line(game: _Score) -> Line:
    white_code, black_code = _tag(game, "WhiteCode"), _tag(game, "BlackCode")
    tag = game.headers.get("Result", "*")
    line = Line(
        game.start_line,
        white_code or _tag(game, "White"),
        black_code or _tag(game, "Black"),
        tag,
        score=game,
        by_name=(not white_code, not black_code),
    )
    if not line.white:
        line.problems.append(_("no WhiteCode or White tag names the White player"))
    if not line.black:
        line.problems.append(_("no BlackCode or Black tag names the Black player"))
    line.problems += _score_problems(game)
    if tag not in Result.values or not Result(tag).finished:
        line.problems.append(
            _("the Result tag is %(tag)s: only finished games (1-0, 0-1, 1/2-1/2) can be imported")
            % {"tag": tag or "''"}
        )
    line.finished_on, problem = pgn_date(game.headers.get("Date", UNKNOWN_DATE))
    line.problems += [problem] if problem else []
    line.problems += _check_date(line.finished_on)
    if not line.problems:
        line.problems += _ending_problems(game, Result(tag))
    return line


def guess_format(text: str) -> str:
    """``pgn`` for a text that starts with a tag (``[``), else ``csv``."""
    return "pgn" if text.lstrip("\ufeff \t\r\n").startswith("[") else "csv"


def refuse_nul(text: str) -> None:
    """Refuse a file with NUL characters, each line with one listed (400, ``bad_rows``)."""
    nul_lines = lines_with_nul(text)
    if nul_lines:
        raise _bad_lines(
            [
                Problem(
                    number,
                    _(
                        "the line holds a NUL character (U+0000), which no code, name or "
                        "score has; remove it"
                    ),
                )
                for number in nul_lines
            ]
        )


def read_lines(text: str, file_format: str, progress: Progress | None = None) -> Lines:
    """The file's lines, read as ``file_format`` (``csv`` or ``pgn``), telling ``progress``
    as it goes. A file with NUL characters is refused before it is read, each line with one
    listed (no code, name, tag or score can hold NUL: PostgreSQL's text cannot)."""
    refuse_nul(text)
    stop = None
    if file_format == "pgn":
        lines, stop = read_pgn_until(text, progress)
    else:
        lines = read_csv(text, progress)
    if stop is not None:
        raise ActionError(
            ErrorCode.BAD_ROWS,
            ngettext(
                "The file could be read as PGN games only up to line %(line)s (%(count)s game "
                "read); nothing was imported. Correct it and import the whole file again.",
                "The file could be read as PGN games only up to line %(line)s (%(count)s games "
                "read); nothing was imported. Correct it and import the whole file again.",
                len(lines),
            )
            % {"line": stop.line, "count": len(lines)},
            [{"line": stop.line, "message": stop.message}],
        )
    if not lines:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The file holds no results: nothing was imported.")
            if file_format == "csv"
            else _("The file holds no PGN games: nothing was imported."),
        )
    return lines


# ---------------------------------------------------------------------------
# Checking against the games
# ---------------------------------------------------------------------------


def _name_key(name: str) -> str:
    return " ".join(name.split()).casefold()


def _rows(query: models.QuerySet, types: Sequence[str]) -> Iterator[tuple]:
    """The rows of a ``values_list`` query of columns of PostgreSQL ``types``: on
    PostgreSQL streamed by ``COPY (query) TO STDOUT`` (a plain query's whole result is held
    at once, a server-side cursor's round trips and Django's work a row cost more than the
    rows: seconds for a stage's 500,000 games)."""
    if connection.vendor != "postgresql":
        yield from query.iterator(chunk_size=10_000)
        return
    sql = connection.ops.compose_sql(*query.query.sql_with_params())  # type: ignore[attr-defined]
    with connection.cursor() as cursor:
        with cursor.copy(f"COPY ({sql}) TO STDOUT") as copy:
            copy.set_types(list(types))
            yield from copy.rows()


def pair(white: int, black: int) -> int:
    """One int for a game's (White, Black) (ids are bigints: below 2**63)."""
    return white << 64 | black


class _Pairs:
    """The games of a scope by (White, Black): ``get(white, black)`` is the game's id or
    None. Read in the order of (White, Black), kept as two sorted arrays of 8-byte numbers
    looked up by bisection (16 bytes a game; a dict of 500,000 games held 56 MB), or as a
    dict when an id does not fit in 32 bits."""

    def __init__(self) -> None:
        self._keys = array("q")
        self._games = array("q")
        self._dict: dict[int, int] | None = None

    def add(self, white: int, black: int, game: int) -> None:
        """Add a game; call it in the order of (White, Black)."""
        if self._dict is None and (white >> 31 or black >> 32):
            self._dict = {
                pair(key >> 32, key & 0xFFFFFFFF): value
                for key, value in zip(self._keys, self._games, strict=True)
            }
            self._keys, self._games = array("q"), array("q")
        if self._dict is not None:
            self._dict[pair(white, black)] = game
        else:
            self._keys.append(white << 32 | black)
            self._games.append(game)

    def get(self, white: int, black: int) -> int | None:
        if self._dict is not None:
            return self._dict.get(pair(white, black))
        if white >> 31 or black >> 32:
            return None
        key = white << 32 | black
        keys = self._keys
        at = bisect_left(keys, key)
        return self._games[at] if at < len(keys) and keys[at] == key else None

    def __len__(self) -> int:
        return len(self._games) if self._dict is None else len(self._dict)


@dataclass
class _Scope:
    """The players and games a file may name: one group's, or a whole stage's."""

    stage: Stage
    group: Group | None
    codes: dict[str, int] = field(default_factory=dict)  # code -> entrant id
    players: dict[int, tuple[str, str, int]] = field(default_factory=dict)  # (code, name, group)
    groups: dict[int, Group] = field(default_factory=dict)
    games: _Pairs = field(default_factory=_Pairs)
    # name key -> entrants, made when a line first names a player by name (a PGN file)
    _names: dict[str, list[int]] | None = None
    # A group's import: unknown codes that play in another group of the stage -> its number.
    elsewhere: dict[str, int] = field(default_factory=dict)

    @classmethod
    def read(cls, stage: Stage, group: Group | None) -> _Scope:
        """Three queries: the groups, the seats with the entrants' codes and names, and the
        games' (White, Black) pairs."""
        scope = cls(stage, group)
        groups = Group.objects.filter(pk=group.pk) if group else stage.groups.all()
        scope.groups = {g.pk: g for g in groups.only("id", "stage_id", "number", "closed_at")}
        seats = Seat.objects.filter(group=group) if group else Seat.objects.filter(stage=stage)
        for entrant, code, name, group_id in _rows(
            seats.values_list("entrant_id", "entrant__code", "entrant__name", "group_id"),
            ("int8", "text", "text", "int8"),
        ):
            scope.codes[code] = entrant
            scope.players[entrant] = (code, name, group_id)
        games = (
            Game.objects.filter(group=group) if group else Game.objects.filter(group__stage=stage)
        )
        pairs = games.order_by("white_id", "black_id").values_list("white_id", "black_id", "id")
        add = scope.games.add
        for white, black, game_id in _rows(pairs, ("int8", "int8", "int8")):
            add(white, black, game_id)
        return scope

    @property
    def names(self) -> dict[str, list[int]]:
        """The entrants by their names (as :func:`_name_key` writes them)."""
        if self._names is None:
            self._names = defaultdict(list)
            for entrant, (_code, name, _group) in self.players.items():
                self._names[_name_key(name)].append(entrant)
        return self._names

    def where(self) -> str:
        if self.group is not None:
            return _("group %(number)s") % {"number": self.group.number}
        return _("this stage")

    def shown(self, entrant: int) -> str:
        code, name, _group = self.players[entrant]
        return f"{name} ({code})"

    def group_number(self, entrant: int) -> int:
        return self.groups[self.players[entrant][2]].number


def _find_elsewhere(scope: _Scope, lines: Iterable[Line]) -> None:
    """For a group's import, find where the unknown codes play in the stage (one query per
    chunk of them), to say "plays in group 5" rather than "unknown"."""
    if scope.group is None:
        return
    unknown = sorted(
        {
            who
            for line in lines
            for who, by_name in zip((line.white, line.black), line.by_name, strict=True)
            if who and not by_name and who not in scope.codes
        }
    )
    for start in range(0, len(unknown), CHUNK):
        scope.elsewhere.update(
            Seat.objects.filter(stage=scope.stage, entrant__code__in=unknown[start : start + CHUNK])
            .values_list("entrant__code", "group__number")
            .iterator()
        )


def _player(scope: _Scope, who: str, by_name: bool, problems: list[str]) -> int | None:
    """The entrant a line names, or None (with the reason added to ``problems``)."""
    if not by_name:
        entrant = scope.codes.get(who)
        if entrant is None and who in scope.elsewhere:
            problems.append(
                _("%(code)s plays in group %(other)s, not in %(where)s")
                % {"code": who, "other": scope.elsewhere[who], "where": scope.where()}
            )
        elif entrant is None:
            problems.append(
                _("unknown player %(code)s: no entrant of %(where)s has this code")
                % {"code": who, "where": scope.where()}
            )
        return entrant
    found = scope.names.get(_name_key(who), [])
    if len(found) == 1:
        return found[0]
    if not found:
        problems.append(
            _("unknown player %(name)r: no entrant of %(where)s has this name")
            % {"name": who, "where": scope.where()}
        )
    else:
        problems.append(
            _(
                "%(count)s entrants of %(where)s are named %(name)r: add WhiteCode and "
                "BlackCode tags with their codes"
            )
            % {"count": len(found), "where": scope.where(), "name": who}
        )
    return None


def _pairing(scope: _Scope, line: Line) -> tuple[int, int] | None:
    """The game a line is about and its group, or None with the reasons in
    ``line.problems``."""
    problems: list[str] = []
    white = _player(scope, line.white, line.by_name[0], problems) if line.white else None
    black = _player(scope, line.black, line.by_name[1], problems) if line.black else None
    line.problems[:0] = problems
    if white is None or black is None:
        return None
    if white == black:
        line.problems.insert(
            0, _("White and Black are the same player, %(who)s") % {"who": scope.shown(white)}
        )
        return None
    game = scope.games.get(white, black)
    if game is not None:
        return game, scope.players[white][2]
    if scope.games.get(black, white) is not None:
        line.problems.insert(
            0,
            _("colours swapped: this pairing has %(white)s as White")
            % {"white": scope.shown(black)},
        )
    elif scope.group is None and scope.group_number(white) != scope.group_number(black):
        line.problems.insert(
            0,
            _("%(white)s (group %(wg)s) and %(black)s (group %(bg)s) are in different groups")
            % {
                "white": scope.shown(white),
                "wg": scope.group_number(white),
                "black": scope.shown(black),
                "bg": scope.group_number(black),
            },
        )
    else:
        line.problems.insert(
            0,
            _("no such pairing: %(white)s and %(black)s do not meet in group %(group)s")
            % {
                "white": scope.shown(white),
                "black": scope.shown(black),
                "group": scope.group_number(white),
            },
        )
    return None


@dataclass(slots=True)
class _GameRow:
    """A game as the import reads and writes it: every field it needs, no model instance (a
    stage's import reads hundreds of thousands of games)."""

    pk: int
    group_id: int
    number: int
    round: int | None
    white_id: int
    black_id: int
    result: str
    adjudicated: bool
    version: int
    updated_at: datetime | None
    pgn: str
    finished_on: date | None


# _GameRow's fields, as the games' query names them.
GAME_FIELDS = (
    "id",
    "group_id",
    "number",
    "round",
    "white_id",
    "black_id",
    "result",
    "adjudicated",
    "version",
    "updated_at",
    "pgn",
    "finished_on",
)


def _games(ids: Sequence[int], *, lock: bool) -> dict[int, _GameRow]:
    """The games by id, every field the import reads or writes; locked (in id order, so two
    imports never wait for each other crosswise) when ``lock``."""
    ordered = sorted(ids)
    if connection.vendor == "postgresql":
        return _games_by_array(ordered, lock=lock)
    games = Game.objects.order_by("pk")
    if lock:
        games = games.select_for_update(no_key=True, of=("self",))
    found: dict[int, _GameRow] = {}
    for start in range(0, len(ordered), CHUNK):
        chunk = games.filter(pk__in=ordered[start : start + CHUNK]).values_list(*GAME_FIELDS)
        found.update((row[0], _GameRow(*row)) for row in chunk)
    return found


def _games_by_array(ordered: list[int], *, lock: bool) -> dict[int, _GameRow]:
    """:func:`_games` on PostgreSQL: the ids of ARRAY_CHUNK games in one array parameter a
    query. (``pk__in`` costs microseconds of Python an id, more than the query itself.)"""
    quote = connection.ops.quote_name
    meta = Game._meta
    columns = ", ".join(quote(column_of(field_of(Game, name))) for name in GAME_FIELDS)
    key = quote(column_of(meta.pk))
    sql = (
        f"SELECT {columns} FROM {quote(meta.db_table)} WHERE {key} = ANY(%s::bigint[])"
        f" ORDER BY {key}"
    )
    if lock:
        sql += " FOR NO KEY UPDATE"  # apps.core.locking
    found: dict[int, _GameRow] = {}
    with connection.cursor() as cursor:
        for start in range(0, len(ordered), ARRAY_CHUNK):
            # The ids as an array's text: psycopg's list adapter costs a microsecond an id.
            chunk = ordered[start : start + ARRAY_CHUNK]
            cursor.execute(sql, ["{" + ",".join(map(str, chunk)) + "}"])
            found.update((row[0], _GameRow(*row)) for row in cursor.fetchall())
    return found


def _stored_pgn(scope: _Scope, game: _GameRow, line: Line, result: Result) -> str:
    """The score as the game keeps it: a whole PGN game, its Seven Tag Roster filled in (the
    players' names, the result; the event, the round and the date when the file left them
    unknown) and the players' codes added, as python-chess writes it. Empty without moves."""
    score = line.score
    if score is None or (isinstance(score, _Score) and not _has_moves(score)):
        return ""
    headers = score.headers
    white_code, white_name, _group = scope.players[game.white_id]
    black_code, black_name, _group = scope.players[game.black_id]
    if _tag(score, "Event") == "":
        headers["Event"] = scope.stage.tournament.name
    if headers.get("Date", UNKNOWN_DATE) in ("", UNKNOWN_DATE) and line.finished_on:
        headers["Date"] = line.finished_on.strftime("%Y.%m.%d")
    if _tag(score, "Round") == "" and game.round:
        headers["Round"] = str(game.round)
    headers["White"], headers["Black"] = white_name, black_name
    headers["Result"] = result.value
    headers["WhiteCode"], headers["BlackCode"] = white_code, black_code
    return stored_score(score) if isinstance(score, _Score) else _kept_text(score)


class _Plan:
    """What checking the lines against their games found: every problem, the counts, the
    first :data:`PREVIEW_ROWS` changes (in the file's order) and the groups whose games
    change (``entered_groups``: whose results change). The changes themselves go to a
    :class:`_Sink` as they are found."""

    def __init__(self) -> None:
        # (line, rank, order, message): a line's problems in the order they are found, a
        # "listed twice" first (rank 0)
        self._problems: list[tuple[int, int, int, str]] = []
        self.unchanged = 0
        self.applied = 0
        self.results = 0
        self._preview: list[tuple[int, int, Change]] = []  # a heap of (-line, order, change)
        self.groups: set[int] = set()
        self.entered_groups: set[int] = set()

    def problem(self, line: int, message: str, rank: int = 1) -> None:
        self._problems.append((line, rank, len(self._problems), message))

    @property
    def problems(self) -> list[Problem]:
        return [Problem(line, message) for line, _r, _o, message in sorted(self._problems)]

    def wants(self, line: int) -> bool:
        """Whether a change of ``line`` is among the first PREVIEW_ROWS (for the report)."""
        return len(self._preview) < PREVIEW_ROWS or line < -self._preview[0][0]

    def keep(self, change: Change) -> None:
        item = (-change.line, self.applied, change)
        if len(self._preview) < PREVIEW_ROWS:
            heapq.heappush(self._preview, item)
        else:
            heapq.heapreplace(self._preview, item)

    def report(self, file_format: str, dry_run: bool) -> ImportReport:
        changes = [change for _l, _o, change in sorted(self._preview, reverse=True)]
        return ImportReport(
            file_format, dry_run, changes, self.unchanged, self.applied, self.results
        )


# The staged columns of a change: the game's new values, its group and its result before.
STAGED = (
    ("id", "bigint"),
    ("group_id", "bigint"),
    ("old", "text"),
    ("new", "text"),
    ("adjudicated", "boolean"),
    ("version", "integer"),
    ("updated_at", "timestamp with time zone"),
    ("pgn", "text"),
    ("finished_on", "date"),
)
STAGED_TABLE = "_results_import"


class _Sink:
    """Where the changes go as they are found: nowhere in a dry run; on PostgreSQL a
    temporary table (:data:`STAGED`), one COPY a chunk, from which one ``UPDATE … FROM``
    writes the games and one ``INSERT … SELECT`` the audit's :class:`ResultChange` rows;
    elsewhere a list."""

    def __init__(self, *, keep: bool) -> None:
        self.keep = keep
        self.staged = keep and connection.vendor == "postgresql"
        self.rows: list[tuple] = []
        if self.staged:
            columns = ", ".join(f"{name} {kind}" for name, kind in STAGED)
            with connection.cursor() as cursor:
                cursor.execute(f"DROP TABLE IF EXISTS {STAGED_TABLE}")
                cursor.execute(f"CREATE TEMPORARY TABLE {STAGED_TABLE} ({columns}) ON COMMIT DROP")

    def write(self, rows: list[tuple]) -> None:
        """Stage a chunk of changes (rows of :data:`STAGED`)."""
        if not self.keep or not rows:
            return
        if not self.staged:
            self.rows += rows
            return
        names = ", ".join(name for name, _kind in STAGED)
        with connection.cursor() as cursor:
            with cursor.copy(f"COPY {STAGED_TABLE} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)


def _locked_groups(ids: set[int]) -> dict[int, Group]:
    """The groups, locked (in id order) and read again: a group closed meanwhile refuses its
    lines. Locked before their games, as result entry and closing a group take them
    (``apps.core.locking``)."""
    groups = (
        Group.objects.select_for_update(no_key=True, of=("self",))
        .only("id", "stage_id", "number", "closed_at")
        .order_by("pk")
    )
    found: dict[int, Group] = {}
    ordered = sorted(ids)
    for start in range(0, len(ordered), CHUNK):
        found.update((g.pk, g) for g in groups.filter(pk__in=ordered[start : start + CHUNK]))
    return found


def _judge(scope: _Scope, lines: Lines, *, lock: bool, sink: _Sink) -> _Plan:
    """Every line against its game: what to change (to ``sink``), what is unchanged, and
    every problem. With ``lock`` the groups are locked first (and then read again).

    Two passes: each line is paired with its game (or gets its problems), then the games
    are read, ARRAY_CHUNK at a time in the order of their ids, and each line
    is checked against its game; a chunk's changes go to the sink together. Nothing but a
    game id and a line's index a line is held between them."""
    plan = _Plan()
    _find_elsewhere(scope, lines)
    game_ids = array("q")
    indexes = array("q")  # the index in ``lines`` of the line of game_ids[i]
    good = bytearray()  # whether that line has no problem
    groups: set[int] = set()
    codes, games, players = scope.codes, scope.games, scope.players
    whites, blacks = lines._whites, lines._blacks
    for index in range(len(lines)):
        if lines.plain(index):  # the line of most files: both codes known, their game found
            white, black = codes.get(whites[index]), codes.get(blacks[index])
            if white is not None and black is not None:
                game_id = games.get(white, black)
                if game_id is not None:
                    game_ids.append(game_id)
                    indexes.append(index)
                    good.append(1)
                    groups.add(players[white][2])
                    continue
        line = lines[index]
        paired = _pairing(scope, line)
        if paired is not None:
            game_ids.append(paired[0])
            indexes.append(index)
            good.append(not line.problems)
            if not line.problems:
                groups.add(paired[1])
        for message in line.problems:
            plan.problem(line.line, message)
    # In the order of the games' ids, a game's lines in the file's order: a game listed
    # again is refused on its later lines.
    count = len(game_ids)
    # one int each: (game, position) in order (a list of tuples would hold four times more)
    order = sorted(game_id * count + position for position, game_id in enumerate(game_ids))
    matched = array("q")  # positions in game_ids
    previous = first = -1
    for packed in order:
        game_id, position = divmod(packed, count)
        if game_id == previous:
            line = lines[indexes[position]]
            plan.problem(
                line.line,
                _("the game is listed twice: also on line %(line)s")
                % {"line": lines[indexes[first]].line},
                rank=0,
            )
            continue
        previous, first = game_id, position
        if good[position]:
            matched.append(position)
    del order, good
    if lock:  # the groups first, then their games (the lock order: apps.core.locking)
        locked = _locked_groups(groups)
    else:
        locked = scope.groups
    now = timezone.now()
    results: dict[str, Result] = {r.value: r for r in Result}
    for start in range(0, len(matched), ARRAY_CHUNK):
        chunk = matched[start : start + ARRAY_CHUNK]
        # Read, not locked: with their groups locked no other write changes them (every
        # write into a group locks it first: apps.core.locking), and locking half a million
        # rows wrote each one more time. The UPDATE checks their versions all the same.
        rows_read = _games([game_ids[position] for position in chunk], lock=False)
        rows = []
        for position in chunk:
            index = indexes[position]
            scored: Line | None = None
            if lines.plain(index):
                number, day = lines._numbers[index], lines._dates[index]
                result = results[RESULT_CODES[lines._results[index]]]
                finished_on = date.fromordinal(day) if day else None
            else:
                scored = lines[index]
                number, finished_on = scored.line, scored.finished_on
                result = results[scored.result]
            game = rows_read[game_ids[position]]
            row = _check(scope, plan, number, result, finished_on, scored, game, locked, now)
            if row is not None:
                rows.append(row)
        sink.write(rows)
    return plan


def _check(
    scope: _Scope,
    plan: _Plan,
    number: int,
    result: Result,
    finished_on: date | None,
    line: Line | None,
    game: _GameRow,
    groups: dict[int, Group],
    now: datetime,
) -> tuple | None:
    """One line (its number, result, finish date; ``line`` itself when it may have a score)
    against its game: a problem, unchanged, or the change (counted, kept for the report if
    among the first) as the staged row (:data:`STAGED`) of the game's new values."""
    if game.result and game.result != result:
        plan.problem(
            number,
            _(
                "the game is finished already with %(old)s; a correction is made on "
                "the game's page, with a reason"
            )
            % {"old": Result.describe(game.result)},
        )
        return None
    pgn = "" if line is None else _stored_pgn(scope, game, line, result)
    too_long = score_length_problem(len(pgn))
    if too_long:
        plan.problem(number, too_long)
        return None
    new_score = bool(pgn) and pgn != game.pgn
    new_date = finished_on is not None and finished_on != game.finished_on
    if game.result and not (new_score or new_date):
        plan.unchanged += 1
        return None
    group = groups[game.group_id]
    try:
        require_group_open(group)
    except ActionError as refused:
        plan.problem(number, refused.message)
        return None
    finished_on = finished_on if new_date else game.finished_on
    if plan.wants(number):
        plan.keep(
            Change(
                number,
                game.pk,
                group.number,
                game.number,
                scope.shown(game.white_id),
                scope.shown(game.black_id),
                game.result,
                result.value,
                finished_on,
                new_score,
            )
        )
    plan.applied += 1
    plan.groups.add(game.group_id)
    if game.result:
        # The result stays, and so does when it was entered: the standings order finished
        # games by that (FIDE's rules for unplayed games).
        adjudicated, updated_at = game.adjudicated, game.updated_at
    else:
        adjudicated, updated_at = False, now
        plan.results += 1
        plan.entered_groups.add(game.group_id)
    return (
        game.pk,
        game.group_id,
        game.result,
        result.value,
        adjudicated,
        game.version + 1,
        updated_at,
        pgn if new_score else game.pgn,
        finished_on,
    )


def _bad_lines(problems: Sequence[Problem]) -> ActionError:
    count = len({p.line for p in problems})
    return ActionError(
        ErrorCode.BAD_ROWS,
        ngettext(
            "The file has %(count)s bad line; nothing was imported. Correct it and import the "
            "whole file again.",
            "The file has %(count)s bad lines; nothing was imported. Correct them and import "
            "the whole file again.",
            count,
        )
        % {"count": count},
        [{"line": p.line, "message": p.message} for p in problems],
    )


# ---------------------------------------------------------------------------
# The action
# ---------------------------------------------------------------------------


def import_results(
    user: Actor,
    *,
    text: str,
    file_format: str | None = None,
    group: Group | None = None,
    stage: Stage | None = None,
    dry_run: bool = False,
) -> ImportReport:
    """Import a file of results into ``group`` (its TD or an organizer) or, without a
    group, into ``stage`` (organizers): every line or none, in this request. (A file too big
    for a request is imported by a job: ``import_jobs.start_import``.)

    ``file_format`` is ``csv`` or ``pgn`` (None: guessed, see :func:`guess_format`). A dry
    run checks everything and writes nothing. Refusals: permission (403), the stage not in
    play (409), a results import job of the group or stage waiting or running (409, not for
    a dry run), an empty file (400), bad lines (400, ``bad_rows``, each with its line).
    """
    stage = import_scope(user, group=group, stage=stage)
    file_format = checked_format(text, file_format)
    if not dry_run:
        refuse_while_job_runs(stage, group)
    with _cycle_collection_paused():
        lines = read_lines(text, file_format)
        return apply_lines(user, stage, group, lines, file_format, dry_run=dry_run)


def import_scope(user: Actor, *, group: Group | None, stage: Stage | None) -> Stage:
    """Who may import into ``group`` (its TD, organizers) or ``stage`` (organizers), the
    stage in play: the stage, or refused (403, 409)."""
    if group is not None:
        stage = group.stage
        require_result_entry(user, group)
    elif stage is not None:
        require_organizer(user, stage.tournament)
    else:
        raise ValueError("an import needs a group or a stage")
    require_in_play(stage)
    return stage


def checked_format(text: str, file_format: str | None) -> str:
    """``file_format`` (None: guessed from ``text``), refused unless csv or pgn (400)."""
    file_format = file_format or guess_format(text)
    if file_format not in FORMATS:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("%(format)r is no file format here; use csv or pgn.") % {"format": file_format},
        )
    return file_format


def running_job(stage: Stage, group: Group | None) -> ResultImportJob | None:
    """The results import job waiting or running that an import into ``group`` (None: the
    whole ``stage``) would overlap: one of the same group, or of the whole stage (for a
    stage's import, of any of its groups)."""
    jobs = ResultImportJob.objects.filter(stage=stage, status__in=ResultImportJob.UNFINISHED)
    if group is not None:
        jobs = jobs.filter(models.Q(group=group) | models.Q(group__isnull=True))
    return jobs.select_related("group").order_by("-id").first()


def refuse_while_job_runs(stage: Stage, group: Group | None) -> None:
    """Refuse an import into ``group`` (or ``stage``) while a results import job into it
    waits or runs (409), saying which one and how far it is."""
    running = running_job(stage, group)
    if running is None:
        return
    where = (
        _("group %(number)s") % {"number": running.group.number}
        if running.group is not None
        else _("the whole stage")
    )
    raise ActionError(
        ErrorCode.CONFLICT,
        _(
            "A results import into %(where)s is already %(status)s (started %(when)s, line "
            "%(done)s of %(total)s read). Wait for it to finish, then import again."
        )
        % {
            "where": where,
            "status": _("waiting for a worker")
            if running.status == ResultImportJob.Status.PENDING
            else _("running"),
            "when": timezone.localtime(running.created_at).strftime("%Y-%m-%d %H:%M"),
            "done": running.done_lines,
            "total": running.total_lines,
        },
    )


def apply_lines(
    user: Actor | None,
    stage: Stage,
    group: Group | None,
    lines: Lines,
    file_format: str,
    *,
    dry_run: bool,
    job: int | None = None,
) -> ImportReport:
    """Check the lines read against the games and, unless ``dry_run``, apply them — every
    one or none (bad lines: 400 ``bad_rows``) — in one transaction with the groups (then
    their games) locked. Inside a caller's transaction (a job's, ``job`` its id for the
    audit event), a savepoint."""
    with _cycle_collection_paused():
        if dry_run:
            if connection.vendor == "postgresql" and _all_plain(lines):
                with transaction.atomic():  # its temporary tables live in a transaction
                    report = _apply_plain(user, stage, group, lines, file_format, job, dry_run=True)
                if report is not None:
                    return report
            scope = _Scope.read(stage, group)
            plan = _judge(scope, lines, lock=False, sink=_Sink(keep=False))
            if plan._problems:
                raise _bad_lines(plan.problems)
            return plan.report(file_format, True)
        with transaction.atomic():
            if connection.vendor == "postgresql" and _all_plain(lines):
                report = _apply_plain(user, stage, group, lines, file_format, job)
                if report is not None:
                    return report
            scope = _Scope.read(stage, group)
            sink = _Sink(keep=True)
            plan = _judge(scope, lines, lock=True, sink=sink)
            # The stage as it is now that its games and groups are locked (closing a stage
            # locks it and then closes its groups: it is over, or waits for this import).
            require_in_play(Stage.objects.only("id", "status").get(pk=stage.pk))
            if plan._problems:
                raise _bad_lines(plan.problems)
            scope.games = _Pairs()  # no longer needed; the writing needs the memory
            _apply(user, scope, plan, sink, file_format, job)
    return plan.report(file_format, False)


@contextmanager
def _cycle_collection_paused() -> Iterator[None]:
    """Python's cycle collector paused (if it runs) for an import: a file of 500,000 results
    keeps millions of objects alive (lines, games, changes), none of them garbage, and the
    full collections their allocation sets off walk them all again and again (two thirds of
    reading the CSV, a quarter of the import's Python time). Whatever cycles become garbage
    meanwhile are collected after."""
    running = gc.isenabled()
    if running:
        gc.disable()
    try:
        yield
    finally:
        if running:
            gc.enable()


# The columns of Game an import writes, from the staged columns of the same names
# (``result`` from ``new``).
WRITTEN = ("result", "adjudicated", "version", "updated_at", "pgn", "finished_on")
STAGED_AS = {"result": "new"}


def _apply(
    user: Actor | None,
    scope: _Scope,
    plan: _Plan,
    sink: _Sink,
    file_format: str,
    job: int | None = None,
) -> None:
    """Write the staged changes (inside the import's transaction): the games, the audit
    event with its per-game rows, the standings marks of the groups whose results changed.
    On PostgreSQL the games by one ``UPDATE … FROM`` the staged table and the audit's rows
    by one ``INSERT … SELECT`` from it: no change passes through Python again."""
    if sink.staged:
        quote = connection.ops.quote_name
        table = quote(Game._meta.db_table)
        assignments = ", ".join(
            f"{quote(column_of(field_of(Game, name)))} = staged.{STAGED_AS.get(name, name)}"
            for name in WRITTEN
        )
        with connection.cursor() as cursor:
            # Fresh statistics: the planner joins half a million staged rows by hashing.
            cursor.execute(f"ANALYZE {STAGED_TABLE}")
            cursor.execute(
                f"UPDATE {table} AS target SET {assignments} FROM {STAGED_TABLE} AS staged"
                f" WHERE target.{quote(column_of(Game._meta.pk))} = staged.id"
                f" AND target.{quote(column_of(field_of(Game, 'version')))} = staged.version - 1"
            )
            if cursor.rowcount != plan.applied:  # a game changed by a write that broke the order
                raise ActionError(
                    ErrorCode.CONFLICT,
                    _(
                        "Some of the games changed while the file was being imported; nothing "
                        "was imported. Import the file again."
                    ),
                )
        changes_select = f"SELECT id, group_id, old, new FROM {STAGED_TABLE}"
        event = _audit(user, scope, plan, file_format, job, changes_select=changes_select)
        with connection.cursor() as cursor:
            cursor.execute(f"DROP TABLE {STAGED_TABLE}")
    else:
        rows = sink.rows
        update_rows(
            Game,
            WRITTEN,
            ((pk, new, *values) for pk, _group, _old, new, *values in rows),
        )
        event = _audit(
            user,
            scope,
            plan,
            file_format,
            job,
            changes=[(pk, group_id, old, new) for pk, group_id, old, new, *_v in rows],
        )
    _after_apply(user, scope, plan, event)


def _after_apply(user: Actor | None, scope: _Scope, plan: _Plan, event: AuditEvent) -> None:
    """What follows writing an import's changes: the reports of the games that got their
    results close; the players hear of them (one digest each, after the commit); the
    standings of the groups whose results changed are marked (one pass over the stage
    recomputes them); the change is announced."""
    entered_groups = sorted(plan.entered_groups)
    settle_reports(user, IMPORT, group_ids=entered_groups)
    tell_players_of_import(event)
    schedule_recomputes(entered_groups)
    announce(scope.stage, entered_groups)


def _audit(
    user: Actor | None,
    scope: _Scope,
    plan: _Plan,
    file_format: str,
    job: int | None,
    **changes,
) -> AuditEvent:
    return results_imported(
        user,
        stage=scope.stage,
        group=scope.group,
        file_format=file_format,
        entered=plan.results,
        scored=plan.applied - plan.results,
        unchanged=plan.unchanged,
        groups=plan.groups,
        job=job,
        **changes,
    )


# ---------------------------------------------------------------------------
# Applying a file of plain lines on PostgreSQL: set-based
# ---------------------------------------------------------------------------

# The temporary tables of :func:`_apply_plain`: the lines, the scope's codes, the lines
# paired with their games, the changes.
PLAIN_LINES = "_import_lines"
PLAIN_CODES = "_import_codes"
PLAIN_MATCHED = "_import_matched"
PLAIN_STAGED = "_import_staged"
# Characters COPY's text format escapes (a code holding one is copied by write_row).
_COPY_SPECIAL = re.compile(r"[\\\t\n\r]")


def _all_plain(lines: Lines) -> bool:
    """Whether every line names its players by code and has no score, no problem and a
    result code (what :meth:`Lines.add` takes)."""
    return not lines._extras and not any(lines._by_name)


def _copy_lines(cursor, lines: Lines) -> None:
    """The lines into PLAIN_LINES (line, white, black, result, finished_on), as COPY's text,
    written a chunk at a time (no value passes through an adapter)."""
    names = "line, white, black, result, finished_on"
    numbers, whites, blacks = lines._numbers, lines._whites, lines._blacks
    results, dates = lines._results, lines._dates
    days: dict[int, str] = {0: "\\N"}
    with cursor.copy(f"COPY {PLAIN_LINES} ({names}) FROM STDIN") as copy:
        if any(_COPY_SPECIAL.search(code) for code in lines._kept):
            for index in range(len(numbers)):
                day = dates[index]
                copy.write_row(
                    (
                        numbers[index],
                        whites[index],
                        blacks[index],
                        RESULT_CODES[results[index]],
                        date.fromordinal(day) if day else None,
                    )
                )
            return
        for start in range(0, len(numbers), ARRAY_CHUNK):
            end = min(start + ARRAY_CHUNK, len(numbers))
            text = []
            for index in range(start, end):
                day = dates[index]
                shown = days.get(day)
                if shown is None:
                    shown = days[day] = date.fromordinal(day).isoformat()
                text.append(
                    f"{numbers[index]}\t{whites[index]}\t{blacks[index]}\t"
                    f"{RESULT_CODES[results[index]]}\t{shown}\n"
                )
            copy.write("".join(text))


def _apply_plain(
    user: Actor | None,
    stage: Stage,
    group: Group | None,
    lines: Lines,
    file_format: str,
    job: int | None,
    *,
    dry_run: bool = False,
) -> ImportReport | None:
    """:func:`apply_lines` of a file of plain lines (codes, a finished result, a date or
    none; no score) on PostgreSQL, inside its transaction, without a line or a game passing
    through Python: the lines are copied into a temporary table, paired with their games
    by joins, the groups locked, the changes staged from the locked games, then written by
    one ``UPDATE … FROM`` and one ``INSERT … SELECT`` as :func:`_apply` writes them. A dry
    run locks nothing and writes nothing: it reports what the staged changes are.

    Returns None, having changed nothing (its temporary tables dropped; the groups may
    stay locked), when any line is not a plain good one — an unknown code, no such pairing,
    a game listed twice, a pairing with two games, a result other than the game's, a
    closed group: the lines are then judged one by one (:func:`_judge`), which says what
    is wrong with each."""
    quote = connection.ops.quote_name
    game_table, group_table = quote(Game._meta.db_table), quote(Group._meta.db_table)
    seat_table = quote(Seat._meta.db_table)
    entrant_model = Seat._meta.get_field("entrant").related_model
    entrant_table = quote(entrant_model._meta.db_table)  # type: ignore[union-attr]

    def col(model: type[models.Model], name: str) -> str:
        return quote(column_of(field_of(model, name)))

    g_id, g_group, g_white, g_black = (col(Game, n) for n in ("id", "group", "white", "black"))
    g_result, g_version = col(Game, "result"), col(Game, "version")
    g_finished, g_adjudicated, g_updated = (
        col(Game, n) for n in ("finished_on", "adjudicated", "updated_at")
    )
    if group is not None:
        seats_where, games_where = f"s.{col(Seat, 'group')} = %s", f"g.{g_group} = %s"
        scope_id = group.pk
    else:
        seats_where = f"s.{col(Seat, 'stage')} = %s"
        games_where = (
            f"g.{g_group} IN (SELECT {col(Group, 'id')} FROM {group_table}"
            f" WHERE {col(Group, 'stage')} = %s)"
        )
        scope_id = stage.pk
    with connection.cursor() as cursor:

        def drop() -> None:
            tables = ", ".join((PLAIN_LINES, PLAIN_CODES, PLAIN_MATCHED, PLAIN_STAGED))
            cursor.execute(f"DROP TABLE IF EXISTS {tables}")

        drop()
        cursor.execute(
            f"CREATE TEMPORARY TABLE {PLAIN_LINES} (line bigint, white text, black text,"
            " result text, finished_on date) ON COMMIT DROP"
        )
        _copy_lines(cursor, lines)
        cursor.execute(
            f"CREATE TEMPORARY TABLE {PLAIN_CODES} ON COMMIT DROP AS"
            f" SELECT e.{col(entrant_model, 'code')} AS code, s.{col(Seat, 'entrant')} AS entrant"
            f" FROM {seat_table} s JOIN {entrant_table} e"
            f" ON e.{col(entrant_model, 'id')} = s.{col(Seat, 'entrant')} WHERE {seats_where}",
            [scope_id],
        )
        # Each line with its game (inner joins: a line without one is missed, and counted).
        cursor.execute(
            f"CREATE TEMPORARY TABLE {PLAIN_MATCHED} ON COMMIT DROP AS"
            f" SELECT l.line, l.result, l.finished_on, g.{g_id} AS game, g.{g_group} AS grp"
            f" FROM {PLAIN_LINES} l JOIN {PLAIN_CODES} w ON w.code = l.white"
            f" JOIN {PLAIN_CODES} b ON b.code = l.black"
            f" JOIN {game_table} g ON g.{g_white} = w.entrant AND g.{g_black} = b.entrant"
            f" WHERE {games_where}",
            [scope_id],
        )
        cursor.execute(
            f"SELECT count(*), count(DISTINCT line), count(DISTINCT game) FROM {PLAIN_MATCHED}"
        )
        matched, paired_lines, games = cursor.fetchone()
        # Every line paired with one game of its own (none missing, listed twice, or with
        # two games of the same pairing).
        if not (matched == paired_lines == games == len(lines)):
            drop()
            return None
        # The groups first, then their games (the lock order: apps.core.locking); a group
        # closed meanwhile refuses its lines.
        cursor.execute(
            f"SELECT {col(Group, 'id')}, {col(Group, 'closed_at')} IS NOT NULL FROM {group_table}"
            f" WHERE {col(Group, 'id')} IN (SELECT DISTINCT grp FROM {PLAIN_MATCHED})"
            f" ORDER BY {col(Group, 'id')}" + ("" if dry_run else " FOR NO KEY UPDATE")
        )
        closed = {group_id for group_id, is_closed in cursor.fetchall() if is_closed}
        # The games as they are now that their groups are locked (no other write changes
        # them: every write into a group locks it first). A finished game keeps its result
        # and when it was entered; a finish date the game lacks (or another one) is stored.
        new_date = f"m.finished_on IS NOT NULL AND m.finished_on IS DISTINCT FROM g.{g_finished}"
        cursor.execute(
            f"CREATE TEMPORARY TABLE {PLAIN_STAGED} ON COMMIT DROP AS"
            f" SELECT g.{g_id} AS id, g.{g_group} AS group_id, g.{g_result} AS old,"
            " m.result AS new, m.line,"
            f" CASE WHEN g.{g_result} = '' THEN false ELSE g.{g_adjudicated} END AS adjudicated,"
            f" g.{g_version} + 1 AS version,"
            f" CASE WHEN g.{g_result} = '' THEN %s ELSE g.{g_updated} END AS updated_at,"
            f" CASE WHEN {new_date} THEN m.finished_on ELSE g.{g_finished} END AS finished_on"
            f" FROM {PLAIN_MATCHED} m JOIN {game_table} g ON g.{g_id} = m.game"
            f" WHERE g.{g_result} = '' OR (g.{g_result} = m.result AND {new_date})",
            [timezone.now()],
        )
        applied = cursor.rowcount
        cursor.execute(
            f"SELECT count(*) FROM {PLAIN_MATCHED} m JOIN {game_table} g ON g.{g_id} = m.game"
            f" WHERE g.{g_result} <> '' AND g.{g_result} <> m.result"
        )
        (conflicts,) = cursor.fetchone()
        cursor.execute(f"SELECT group_id, old = '' FROM {PLAIN_STAGED} GROUP BY 1, 2")
        changed = cursor.fetchall()
        if conflicts or any(group_id in closed for group_id, _entered in changed):
            drop()
            return None
        plan = _Plan()
        plan.applied = applied
        plan.unchanged = len(lines) - applied
        plan.groups = {group_id for group_id, _entered in changed}
        plan.entered_groups = {group_id for group_id, entered in changed if entered}
        if plan.entered_groups:
            cursor.execute(f"SELECT count(*) FROM {PLAIN_STAGED} WHERE old = ''")
            (plan.results,) = cursor.fetchone()
        # The first changes, for the report.
        cursor.execute(
            f"SELECT s.line, s.id, gr.{col(Group, 'number')}, g.{col(Game, 'number')},"
            f" we.{col(entrant_model, 'name')}, we.{col(entrant_model, 'code')},"
            f" be.{col(entrant_model, 'name')}, be.{col(entrant_model, 'code')},"
            " s.old, s.new, s.finished_on"
            f" FROM (SELECT * FROM {PLAIN_STAGED} ORDER BY line LIMIT %s) s"
            f" JOIN {game_table} g ON g.{g_id} = s.id"
            f" JOIN {group_table} gr ON gr.{col(Group, 'id')} = s.group_id"
            f" JOIN {entrant_table} we ON we.{col(entrant_model, 'id')} = g.{g_white}"
            f" JOIN {entrant_table} be ON be.{col(entrant_model, 'id')} = g.{g_black}"
            " ORDER BY s.line",
            [PREVIEW_ROWS],
        )
        for row in cursor.fetchall():
            line, pk, group_number, number, white_name, white_code = row[:6]
            black_name, black_code, old, new, finished_on = row[6:]
            white, black = f"{white_name} ({white_code})", f"{black_name} ({black_code})"
            change = Change(
                line, pk, group_number, number, white, black, old, new, finished_on, False
            )
            plan.keep(change)
        if dry_run:
            drop()
            return plan.report(file_format, True)
        require_in_play(Stage.objects.only("id", "status").get(pk=stage.pk))
        written = ", ".join(
            f"{col(Game, name)} = staged.{STAGED_AS.get(name, name)}"
            for name in WRITTEN
            if name != "pgn"  # a plain line brings no score
        )
        cursor.execute(f"ANALYZE {PLAIN_STAGED}")
        cursor.execute(
            f"UPDATE {game_table} AS target SET {written} FROM {PLAIN_STAGED} AS staged"
            f" WHERE target.{g_id} = staged.id AND target.{g_version} = staged.version - 1"
        )
        if cursor.rowcount != applied:  # cannot be, with the groups locked; as _apply says
            raise ActionError(
                ErrorCode.CONFLICT,
                _(
                    "Some of the games changed while the file was being imported; nothing "
                    "was imported. Import the file again."
                ),
            )
    scope = _Scope(stage, group)
    changes_select = f"SELECT id, group_id, old, new FROM {PLAIN_STAGED}"
    event = _audit(user, scope, plan, file_format, job, changes_select=changes_select)
    with connection.cursor() as cursor:
        drop_tables = ", ".join((PLAIN_LINES, PLAIN_CODES, PLAIN_MATCHED, PLAIN_STAGED))
        cursor.execute(f"DROP TABLE {drop_tables}")
    _after_apply(user, scope, plan, event)
    return plan.report(file_format, False)
