"""The published generator: fixed vectors (also printed in docs/draw.md) and behaviour."""

import hashlib
from collections import Counter

from apps.silli.rng import ChanceStream


def test_words_are_big_endian_slices_of_sha256_blocks():
    stream = ChanceStream("seed", "label")
    block0 = hashlib.sha256(b"seed|label|0").digest()
    block1 = hashlib.sha256(b"seed|label|1").digest()
    words = [stream.word() for _ in range(5)]
    assert words[:4] == [int.from_bytes(block0[i : i + 8], "big") for i in range(0, 32, 8)]
    assert words[4] == int.from_bytes(block1[:8], "big")


def test_documented_vectors():
    stream = ChanceStream("2026-11-21 Lotto Bari 17", "example")
    assert [stream.below(10) for _ in range(10)] == DOC_BELOW
    items = list(range(1, 11))
    ChanceStream("2026-11-21 Lotto Bari 17", "example/shuffle").shuffle(items)
    assert items == DOC_SHUFFLE


def test_rejection_sampling_is_uniform_enough_and_in_range():
    stream = ChanceStream("u", "v")
    counts = Counter(stream.below(7) for _ in range(7000))
    assert set(counts) == set(range(7))
    assert all(850 < c < 1150 for c in counts.values())


def test_rejection_skips_words_at_or_above_the_limit():
    class Fixed(ChanceStream):
        def __init__(self, words):
            super().__init__("x", "y")
            self._queue = list(words)

        def word(self):
            return self._queue.pop(0)

    m = 3
    limit = (1 << 64) - ((1 << 64) % m)
    assert Fixed([limit, limit + 1, 7]).below(m) == 7 % m


def test_other_seed_or_label_gives_other_stream():
    a = [ChanceStream("a", "x").word() for _ in range(3)]
    assert a != [ChanceStream("b", "x").word() for _ in range(3)]
    assert a != [ChanceStream("a", "y").word() for _ in range(3)]


def test_shuffle_is_a_permutation():
    items = list(range(100))
    ChanceStream("s", "t").shuffle(items)
    assert sorted(items) == list(range(100)) and items != list(range(100))


DOC_BELOW = [4, 0, 6, 9, 1, 9, 7, 4, 8, 7]
DOC_SHUFFLE = [1, 10, 5, 8, 9, 6, 7, 3, 4, 2]
