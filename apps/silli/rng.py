"""The draw's source of chance: a published, re-implementable generator.

Every random decision of a draw comes from a :class:`ChanceStream`. A stream is
named by a *seed* (the published text, e.g. a lottery result) and a *label*
(which decision it serves, e.g. ``"division"`` or ``"group/7/seating"``).
Its bytes are::

    SHA-256(f"{seed}|{label}|{0}") || SHA-256(f"{seed}|{label}|{1}") || ...

each input encoded as UTF-8, the counter written in decimal. The bytes are read
eight at a time as big-endian unsigned 64-bit words. An integer below ``m`` is
drawn by rejection sampling: words at or above ``2**64 - (2**64 % m)`` are
skipped and the result is ``word % m``. A list is shuffled by Fisher–Yates,
from the last position down to the second: position ``i`` swaps with position
``below(i + 1)``.

Python's :mod:`random` is never used: its algorithms are not a published
contract, this generator is (see ``docs/draw.md``).
"""

from __future__ import annotations

import hashlib
from collections.abc import MutableSequence
from typing import TypeVar

T = TypeVar("T")

_WORD = 1 << 64


class ChanceStream:
    """A deterministic stream of 64-bit words for one (seed, label)."""

    __slots__ = ("seed", "label", "_prefix", "_counter", "_words", "_pos")

    def __init__(self, seed: str, label: str) -> None:
        self.seed = seed
        self.label = label
        self._prefix = f"{seed}|{label}|"
        self._counter = 0
        self._words: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._pos = 4

    def word(self) -> int:
        """The next unsigned 64-bit word of the stream."""
        if self._pos == 4:
            digest = hashlib.sha256(f"{self._prefix}{self._counter}".encode()).digest()
            self._counter += 1
            self._words = (
                int.from_bytes(digest[0:8], "big"),
                int.from_bytes(digest[8:16], "big"),
                int.from_bytes(digest[16:24], "big"),
                int.from_bytes(digest[24:32], "big"),
            )
            self._pos = 0
        value = self._words[self._pos]
        self._pos += 1
        return value

    def below(self, m: int) -> int:
        """A uniform integer in ``[0, m)`` by rejection sampling (``m >= 1``)."""
        if m < 1:
            raise ValueError("below() needs m >= 1")
        if m == 1:
            return 0
        limit = _WORD - (_WORD % m)
        while True:
            w = self.word()
            if w < limit:
                return w % m

    def uniform(self) -> float:
        """A float in ``[0, 1)`` from the top 53 bits of one word."""
        return (self.word() >> 11) / float(1 << 53)

    def shuffle(self, items: MutableSequence[T]) -> None:
        """Shuffle ``items`` in place by Fisher–Yates (last position first)."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]
