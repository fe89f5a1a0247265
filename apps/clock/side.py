"""The two sides of a game, and whose move a ply is."""

from __future__ import annotations

import enum


class Side(enum.StrEnum):
    """One side of a game, by its colour. Members compare equal to ``"white"`` and
    ``"black"``, the words ``apps.core.results.Side`` and the ``cc_clock`` files use."""

    WHITE = "white"
    BLACK = "black"

    @property
    def other(self) -> Side:
        """The opponent's side."""
        return Side.BLACK if self is Side.WHITE else Side.WHITE

    @classmethod
    def of_ply(cls, ply: int) -> Side:
        """The side that makes ``ply``, counted from 1 for White's first move."""
        if ply < 1:
            raise ValueError(f"plies are counted from 1, not {ply}")
        return cls.WHITE if ply % 2 else cls.BLACK


def own_move_number(ply: int) -> int:
    """Which of its side's own moves ``ply`` is: plies 1 and 2 are each side's 1st move,
    plies 19 and 20 their 10th."""
    if ply < 1:
        raise ValueError(f"plies are counted from 1, not {ply}")
    return (ply + 1) // 2
