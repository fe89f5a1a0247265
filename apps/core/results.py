"""Game results: the one home of the result codes and of everything derived from them.

A game's result is stored as a short code (``Game.result``): ``"1-0"``, ``"0-1"``,
``"1/2-1/2"``, the forfeits ``"+-"``, ``"-+"`` and ``"--"`` (both forfeit), or ``""`` while
the game is in progress. :class:`Result` names those codes and says, for each, whether the
game is finished, played over the board or forfeited, what it means for each side
(:class:`SideOutcome`), how a crosstable and a TRF file write it, and how a person reads it
(its label). Every app uses this module instead of spelling codes or keeping its own tables.

The module knows nothing of the apps above ``apps.core``: the standings map
:class:`SideOutcome` to their own ``tiebreaks.Outcome``.
"""

from __future__ import annotations

import enum
from typing import Literal, TypeAlias

from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices

Side: TypeAlias = Literal["white", "black"]
"""One side of a game, by its colour."""


class SideOutcome(enum.Enum):
    """A finished game's result from one side: won, drawn or lost. A double forfeit is a
    loss for both sides."""

    WIN = "W"
    DRAW = "D"
    LOSS = "L"


class Result(TextChoices):
    """A game's result code, with its one label (translated) for pages, e-mails and the API.

    ``Result(code)`` turns a stored code into its member (``ValueError`` if it is none);
    members compare equal to their codes and can be stored in ``Game.result`` as they are.
    """

    NONE = "", _("in progress")
    WHITE_WINS = "1-0", "1-0"
    BLACK_WINS = "0-1", "0-1"
    DRAW = "1/2-1/2", "½-½"
    WHITE_FORFEIT_WIN = "+-", _("+− (White wins by forfeit)")
    BLACK_FORFEIT_WIN = "-+", _("−+ (Black wins by forfeit)")
    DOUBLE_FORFEIT = "--", _("−− (both forfeit)")

    @property
    def finished(self) -> bool:
        """True once the game has a result (played or forfeited); False while in progress."""
        return self is not Result.NONE

    @property
    def forfeit(self) -> bool:
        """True for the forfeits ``+-``, ``-+`` and ``--``: finished without being played."""
        return self in _FORFEITS

    @property
    def played(self) -> bool:
        """True for a result played over the board (``1-0``, ``0-1``, ``1/2-1/2``); False for
        a forfeit and for a game in progress."""
        return self.finished and not self.forfeit

    @property
    def outcomes(self) -> tuple[SideOutcome, SideOutcome]:
        """(White's, Black's) outcome of a finished game; ``ValueError`` while in progress."""
        try:
            return _OUTCOMES[self]
        except KeyError:
            raise ValueError("a game in progress has no outcome yet") from None

    def outcome(self, side: Side) -> SideOutcome:
        """The outcome of a finished game for ``side``; ``ValueError`` while in progress."""
        white, black = self.outcomes
        return white if side == "white" else black

    @property
    def symbols(self) -> tuple[str, str]:
        """(White's, Black's) crosstable symbol: ``1``, ``0``, ``½``, ``+`` or ``−`` (a minus
        sign); two empty strings while in progress."""
        return _SYMBOLS[self]

    @property
    def trf_codes(self) -> tuple[str, str]:
        """(White's, Black's) result code in a FIDE TRF file; two blanks while in progress."""
        return _TRF_CODES[self]

    @classmethod
    def forfeit_loss(cls, side: Side) -> Result:
        """The result a withdrawal gives each unfinished game of the withdrawn ``side``: a
        forfeit loss for it, a forfeit win for the opponent."""
        return cls.BLACK_FORFEIT_WIN if side == "white" else cls.WHITE_FORFEIT_WIN

    @classmethod
    def entry_order(cls) -> list[Result]:
        """The results in the order a TD reads them: played, forfeits, then in progress."""
        return [result for result in cls if result.finished] + [cls.NONE]

    @classmethod
    def entry_choices(cls) -> list[tuple[str, str | Promise]]:
        """``(code, label)`` pairs in :meth:`entry_order`, for a form's choices (the labels
        are lazy translations: they follow the language active when shown)."""
        return [(result.value, result.label) for result in cls.entry_order()]

    @classmethod
    def describe(cls, code: str, default: str | None = None) -> str:
        """The label of ``code`` in the active language; for a string that is no result
        code, ``default`` (the string itself when no default is given)."""
        try:
            return str(cls(code).label)
        except ValueError:
            return code if default is None else default


_W, _D, _L = SideOutcome.WIN, SideOutcome.DRAW, SideOutcome.LOSS

_FORFEITS = frozenset({Result.WHITE_FORFEIT_WIN, Result.BLACK_FORFEIT_WIN, Result.DOUBLE_FORFEIT})

_OUTCOMES: dict[Result, tuple[SideOutcome, SideOutcome]] = {
    Result.WHITE_WINS: (_W, _L),
    Result.BLACK_WINS: (_L, _W),
    Result.DRAW: (_D, _D),
    Result.WHITE_FORFEIT_WIN: (_W, _L),
    Result.BLACK_FORFEIT_WIN: (_L, _W),
    Result.DOUBLE_FORFEIT: (_L, _L),
}

_SYMBOLS: dict[Result, tuple[str, str]] = {
    Result.NONE: ("", ""),
    Result.WHITE_WINS: ("1", "0"),
    Result.BLACK_WINS: ("0", "1"),
    Result.DRAW: ("½", "½"),
    Result.WHITE_FORFEIT_WIN: ("+", "−"),
    Result.BLACK_FORFEIT_WIN: ("−", "+"),
    Result.DOUBLE_FORFEIT: ("−", "−"),
}

_TRF_CODES: dict[Result, tuple[str, str]] = {
    Result.NONE: (" ", " "),
    Result.WHITE_WINS: ("1", "0"),
    Result.BLACK_WINS: ("0", "1"),
    Result.DRAW: ("=", "="),
    Result.WHITE_FORFEIT_WIN: ("+", "-"),
    Result.BLACK_FORFEIT_WIN: ("-", "+"),
    Result.DOUBLE_FORFEIT: ("-", "-"),
}
