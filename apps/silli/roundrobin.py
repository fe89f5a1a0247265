"""Round robin by Berger tables (FIDE C.05, Annex 1), single or double.

For an even number of seats n, round r (1..n-1) pairs seat n with seat
``p = 1 + ((r - 1)·n/2) mod (n - 1)`` (p has White in odd rounds, seat n in
even rounds) and, for i = 1..n/2 - 1, seat ``p + i`` (White) with seat
``p - i`` (both counted mod n - 1 on seats 1..n-1). An odd number of seats
plays as n + 1 with a bye: games against seat n + 1 are left out. A double
round robin repeats the rounds with colours reversed.
"""

from __future__ import annotations


def berger_rounds(n: int, *, double: bool = False) -> list[list[tuple[int, int]]]:
    """The rounds of a round robin on seats 1..n as lists of (white, black) seats."""
    if n < 2:
        raise ValueError("a round robin needs at least 2 players")
    size = n + (n % 2)
    m = size - 1
    rounds: list[list[tuple[int, int]]] = []
    for r in range(1, size):
        p = 1 + ((r - 1) * (size // 2)) % m
        games = [(p, size) if r % 2 else (size, p)]
        for i in range(1, size // 2):
            games.append(((p - 1 + i) % m + 1, (p - 1 - i) % m + 1))
        rounds.append([(w, b) for w, b in games if w <= n and b <= n])
    if double:
        rounds += [[(b, w) for w, b in games] for games in rounds]
    return rounds


def round_robin_games(n: int, *, double: bool = False) -> list[tuple[int, int, int]]:
    """Every game as (round, white seat, black seat), round by round."""
    return [
        (r, w, b)
        for r, games in enumerate(berger_rounds(n, double=double), start=1)
        for w, b in games
    ]
