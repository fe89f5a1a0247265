"""Tie-break figures and standings of one group: the Buchholz chain and the Torino system.

Pure Python, no Django: usable from a notebook, a management command or a Celery task.

The input is one :class:`Player` per entrant, each with the :class:`Game` records of its
*finished* games (a game still in progress is simply not there yet). From these,
:func:`compute_figures` derives every figure of ``docs/standings.md`` §2–§4 as a
:class:`Figures`, and :func:`rank` orders the group by a chain of :class:`Key`
(:data:`TORINO`, :data:`BUCHHOLZ` or :data:`SWISS`, optionally followed by SB, wins, games
with Black).
Players still equal after the whole chain share a place (``"3-4"``);
:func:`strict_order` resolves such blocks by a seeded lot where a strict order is needed.

All arithmetic is exact (:class:`fractions.Fraction`; internally integers in units of the
smallest point fraction), so two figures tie exactly when they are equal. Convert to float
only for display.

Example, a double round robin of two players::

    >>> a = Player(1, (Game(2, Outcome.WIN, colour=Colour.WHITE),
    ...                Game(2, Outcome.DRAW, colour=Colour.BLACK)))
    >>> b = Player(2, (Game(1, Outcome.LOSS, colour=Colour.BLACK),
    ...                Game(1, Outcome.DRAW, colour=Colour.WHITE)))
    >>> [(s.label, s.figures.id, s.figures.points) for s in
    ...  rank(compute_figures([a, b], stage_games=2), TORINO)]
    [('1', 1, Fraction(3, 2)), ('2', 2, Fraction(1, 2))]
"""

from __future__ import annotations

import enum
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from itertools import groupby
from math import lcm
from operator import attrgetter, itemgetter
from typing import TypeAlias, TypeVar

PlayerId: TypeAlias = int | str
"""A player's id within one group (a seat number, a start rank, an entrant code)."""

PlayerIdT = TypeVar("PlayerIdT", bound=PlayerId)

KeyFigure: TypeAlias = Fraction | Decimal | int
"""One figure of a ranking key: a chain figure, or a stored one (an earlier stage's)."""


class Outcome(enum.Enum):
    """A game's result from one player's side. A double forfeit is a loss for both."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"


class Colour(enum.Enum):
    """The colour a player had in a game."""

    WHITE = "w"
    BLACK = "b"


class CutVariant(enum.Enum):
    """Which opponent TS-Cut1 and TS-Median remove (Ricca, *Torino System*, 2016).

    Each opponent met in a played game is an *entry* ``(rgp, gms)``: that opponent's real
    points and played games. TS-Cut1 removes the *low* entry, TS-Median the low and the
    *high* entry (two different entries). The low entry is:

    * ``POINTS``: the lowest rgp; on parity, the most games.
    * ``GAMES``: the most games; on parity, the lowest rgp.
    * ``RATIO``: the lowest rgp/gms; on parity, the most games.
    * ``TARGET``: the entry whose removal leaves the highest ratio (the player's best case).
    * ``HIGH``: not one entry: the lowest rgp leaves the numerator and the highest gms the
      denominator, possibly of two different opponents (artificial, kept for completeness).
    * ``NONE``: if the player has an unplayed game, nothing is removed (only the factor
      changes); otherwise as ``TARGET``.

    The high entry exchanges lowest and highest: the highest rgp (on parity the fewest
    games), the fewest games (on parity the highest rgp), the highest ratio (on parity the
    fewest games), the removal leaving the lowest ratio; ``HIGH`` also removes the highest
    rgp from the numerator and the lowest gms from the denominator.
    """

    TARGET = "target"
    POINTS = "points"
    GAMES = "games"
    RATIO = "ratio"
    HIGH = "high"
    NONE = "none"


class Unplayed(enum.Enum):
    """How the Buchholz figures (and SB) treat unplayed games.

    * ``CLASSIC``: only games against an opponent count, forfeits included, each worth the
      opponent's points; a round without an opponent (a TRF bye) contributes nothing.
    * ``FIDE2024``: FIDE tie-break regulations C.07 (2024), article 16. Every game the
      player did not play (forfeit won or lost, bye, absence) contributes a dummy opponent
      worth the player's own points. A played game contributes the opponent's points,
      except that the records after the opponent's withdrawal (the trailing records after
      the last one the opponent played or won) that have no paired opponent count as
      draws. Cuts remove the player's unplayed games that were not won first.
    """

    CLASSIC = "classic"
    FIDE2024 = "fide2024"


class Key(enum.Enum):
    """A figure that standings can be ordered by; higher is better for every key."""

    POINTS = "points"
    BH = "bh"
    BH_C1 = "bh_c1"
    BH_C2 = "bh_c2"
    TS = "ts"
    TS_CUT1 = "ts_cut1"
    TS_MEDIAN = "ts_median"
    SB = "sb"
    WINS = "wins"
    BLACK_GAMES = "black_games"


TORINO: tuple[Key, ...] = (Key.POINTS, Key.TS, Key.TS_CUT1)
"""The Torino chain: points, then TS, then TS-Cut1."""

BUCHHOLZ: tuple[Key, ...] = (Key.POINTS, Key.BH_C2, Key.BH_C1, Key.BH)
"""Silli's BUHOLZ chain: points, then BH-C2, then BH-C1, then BH."""

SWISS: tuple[Key, ...] = (Key.POINTS, Key.BH_C1, Key.BH, Key.SB, Key.WINS)
"""The usual Swiss chain (FIDE C.07's common choice for individual Swiss events): points,
then Buchholz Cut-1, Buchholz, Sonneborn-Berger, the number of wins."""

SYSTEMS: Mapping[str, tuple[Key, ...]] = {"torino": TORINO, "buchholz": BUCHHOLZ, "swiss": SWISS}
"""The chains by the names a tournament setting uses."""


@dataclass(frozen=True, slots=True)
class Scoring:
    """Points for a win, a draw and a loss (default 1, ½, 0); any value ``Fraction()`` takes.

    Requires ``win >= draw >= loss >= 0``.
    """

    win: Fraction = Fraction(1)
    draw: Fraction = Fraction(1, 2)
    loss: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        for name in ("win", "draw", "loss"):
            object.__setattr__(self, name, Fraction(getattr(self, name)))
        if not self.win >= self.draw >= self.loss >= 0:
            raise ValueError(f"scoring needs win >= draw >= loss >= 0, got {self}")

    def points(self, outcome: Outcome) -> Fraction:
        """The points an outcome is worth."""
        if outcome is Outcome.WIN:
            return self.win
        if outcome is Outcome.DRAW:
            return self.draw
        return self.loss


@dataclass(frozen=True, slots=True)
class Game:
    """One finished game from one player's side.

    In a TRF file a record is one round, so it may also be a round without an opponent
    (a bye, an absence): ``opponent`` is then ``None`` and ``played`` is false.

    * ``opponent``: the opponent's id, or ``None`` when no opponent was paired.
    * ``outcome``: the result for this player.
    * ``played``: true when the game was played to the end (adjudications count as played);
      false for forfeits, byes and absences. A played game needs an opponent.
    * ``colour``: the player's colour, ``None`` when there was none.
    """

    opponent: PlayerId | None
    outcome: Outcome
    played: bool = True
    colour: Colour | None = None

    def __post_init__(self) -> None:
        if self.played and self.opponent is None:
            raise ValueError("a played game needs an opponent")

    @property
    def unplayed_not_won(self) -> bool:
        """True for a forfeit loss, a double forfeit, a half- or zero-point bye, an absence.

        These are the games :attr:`Unplayed.FIDE2024` cuts first (FIDE C.07, 2024, art. 16).
        """
        return not self.played and self.outcome is not Outcome.WIN


@dataclass(frozen=True, slots=True)
class Player:
    """A player of the group and its finished games, in the order they were played.

    The order matters only for :attr:`Unplayed.FIDE2024`, which finds a withdrawal as the
    records after the last game the player played or won.
    """

    id: PlayerId
    games: Sequence[Game] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "games", tuple(self.games))


@dataclass(frozen=True, slots=True)
class Figures:
    """Every figure of one player (``docs/standings.md`` §2–§4).

    * ``points``: all points, forfeits and byes included. ``games``: the records (finished
      games; in a TRF file also rounds without an opponent). ``wins``: won records, forfeits
      and byes included. ``black_games``: played games with Black.
    * ``gms``: played games; ``rgp``: points from played games.
    * ``bh``, ``bh_c1``, ``bh_c2``: Buchholz with none, the lowest and the two lowest
      contributions removed (0 when the cut removes everything), as set by
      :class:`Unplayed`. ``sb``: Sonneborn-Berger, the same contributions each multiplied
      by the player's result in that game (1, ½, 0 whatever the :class:`Scoring`).
    * ``ts`` = Σ rgp_o / Σ gms_o × T² over the opponents o of the played games (0 without
      one). ``ts_cut1`` removes the low entry and uses T·(T−1), ``ts_median`` removes the
      low and the high entry and uses T·(T−2), as set by :class:`CutVariant`; both are 0
      when nothing is left.
    """

    id: PlayerId
    points: Fraction
    games: int
    gms: int
    rgp: Fraction
    bh: Fraction
    bh_c1: Fraction
    bh_c2: Fraction
    ts: Fraction
    ts_cut1: Fraction
    ts_median: Fraction
    sb: Fraction
    wins: int
    black_games: int

    def value(self, key: Key) -> Fraction | int:
        """The figure a :class:`Key` names."""
        figure: Fraction | int = getattr(self, key.value)
        return figure


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's place in a ranking: ``place`` to ``last`` (equal when not shared)."""

    place: int
    last: int
    figures: Figures

    @property
    def label(self) -> str:
        """``"3"``, or ``"3-4"`` for a shared place."""
        return str(self.place) if self.place == self.last else f"{self.place}-{self.last}"


_Entry: TypeAlias = tuple[int, int]  # an opponent's (rgp in units, gms)
_SB_SHARE = {Outcome.WIN: 2, Outcome.DRAW: 1, Outcome.LOSS: 0}  # in halves


def compute_figures(
    players: Iterable[Player],
    stage_games: int,
    *,
    scoring: Scoring = Scoring(),
    variant: CutVariant = CutVariant.TARGET,
    unplayed: Unplayed = Unplayed.CLASSIC,
) -> list[Figures]:
    """The :class:`Figures` of every player, in the order given.

    ``stage_games`` is T, the games per player in the stage (2k in a Silli group, n−1 or
    2(n−1) in a round robin, the rounds of a Swiss); it is only the Torino factor.

    Raises :class:`ValueError` for a repeated player id, a game against an id that is not
    in the group, or ``stage_games < 1``.
    """
    group = list(players)
    if stage_games < 1:
        raise ValueError(f"stage_games must be at least 1, got {stage_games}")
    scale = lcm(scoring.win.denominator, scoring.draw.denominator, scoring.loss.denominator)
    unit = {outcome: int(scoring.points(outcome) * scale) for outcome in Outcome}

    points: dict[PlayerId, int] = {}
    rgp: dict[PlayerId, int] = {}
    gms: dict[PlayerId, int] = {}
    for player in group:
        if player.id in points:
            raise ValueError(f"player {player.id!r} appears twice")
        total = real = played = 0
        for game in player.games:
            total += unit[game.outcome]
            if game.played:
                real += unit[game.outcome]
                played += 1
        points[player.id], rgp[player.id], gms[player.id] = total, real, played
    for player in group:
        for game in player.games:
            if game.opponent is not None and game.opponent not in points:
                raise ValueError(
                    f"player {player.id!r} has a game against unknown {game.opponent!r}"
                )

    fide = unplayed is Unplayed.FIDE2024
    opponent_value = (
        {p.id: points[p.id] + _withdrawal_adjustment(p.games, unit) for p in group}
        if fide
        else points
    )
    t = stage_games
    factors = (t * t, t * (t - 1), t * max(t - 2, 0))

    figures = []
    for player in group:
        contributions: list[tuple[bool, int, Outcome]] = []  # (kept first, value, outcome)
        entries: list[_Entry] = []
        wins = black_games = 0
        for game in player.games:
            if game.outcome is Outcome.WIN:
                wins += 1
            if game.played:
                opponent = game.opponent
                assert opponent is not None  # Game.__post_init__: a played game has one
                black_games += game.colour is Colour.BLACK
                entries.append((rgp[opponent], gms[opponent]))
                contributions.append((True, opponent_value[opponent], game.outcome))
            elif fide:
                contribution = (not game.unplayed_not_won, points[player.id], game.outcome)
                contributions.append(contribution)
            elif game.opponent is not None:
                contributions.append((True, points[game.opponent], game.outcome))

        contributions.sort(key=lambda c: (c[0], c[1]))
        bh = sum(c[1] for c in contributions)
        sb = sum(c[1] * _SB_SHARE[c[2]] for c in contributions)
        has_unplayed = len(entries) < len(player.games)
        num, den = sum(e[0] for e in entries), sum(e[1] for e in entries)
        cut1, median = _torino_cuts(entries, num, den, variant, has_unplayed)

        figures.append(
            Figures(
                id=player.id,
                points=Fraction(points[player.id], scale),
                games=len(player.games),
                gms=gms[player.id],
                rgp=Fraction(rgp[player.id], scale),
                bh=Fraction(bh, scale),
                bh_c1=Fraction(bh - sum(c[1] for c in contributions[:1]), scale),
                bh_c2=Fraction(bh - sum(c[1] for c in contributions[:2]), scale),
                ts=_torino_value(num, den, factors[0], scale),
                ts_cut1=_torino_value(num - cut1[0], den - cut1[1], factors[1], scale),
                ts_median=_torino_value(num - median[0], den - median[1], factors[2], scale),
                sb=Fraction(sb, 2 * scale),
                wins=wins,
                black_games=black_games,
            )
        )
    return figures


def _withdrawal_adjustment(games: Sequence[Game], unit: Mapping[Outcome, int]) -> int:
    """What FIDE C.07 (2024) art. 16 adds to a player's points when it is an opponent.

    The records after the last one played or won are the rounds after a withdrawal; those
    without a paired opponent count as draws.
    """
    adjustment = 0
    for game in reversed(games):
        if not game.unplayed_not_won:
            break
        if game.opponent is None:
            adjustment += unit[Outcome.DRAW] - unit[game.outcome]
    return adjustment


def _torino_value(num: int, den: int, factor: int, scale: int) -> Fraction:
    """``num / den × factor`` with num in point units; 0 when no game is left."""
    return Fraction(num * factor, den * scale) if den else Fraction(0)


def _torino_cuts(
    entries: list[_Entry], num: int, den: int, variant: CutVariant, has_unplayed: bool
) -> tuple[_Entry, _Entry]:
    """The (rgp, gms) that TS-Cut1 and TS-Median remove from numerator and denominator."""
    if not entries or (variant is CutVariant.NONE and has_unplayed):
        return (0, 0), (0, 0)
    if variant is CutVariant.HIGH:
        low_rgp = sorted(e[0] for e in entries)
        high_gms = sorted((e[1] for e in entries), reverse=True)
        median = (
            (low_rgp[0] + low_rgp[-1], high_gms[0] + high_gms[-1])
            if len(entries) > 1
            else entries[0]
        )
        return (low_rgp[0], high_gms[0]), median

    # Every other variant is an order from the low entry (first) to the high entry (last).
    # Ratios are compared exactly as integers: each times the lcm of their denominators.
    if variant is CutVariant.POINTS:
        ordered = sorted(entries, key=lambda e: (e[0], -e[1]))
    elif variant is CutVariant.GAMES:
        ordered = sorted(entries, key=lambda e: (-e[1], e[0]))
    elif variant is CutVariant.RATIO:
        common = lcm(*(e[1] for e in entries))
        ordered = sorted(entries, key=lambda e: (e[0] * (common // e[1]), -e[1]))
    else:  # TARGET, and NONE for a player without unplayed games: the ratio left, highest first
        common = lcm(*(den - e[1] for e in entries if den > e[1]))
        ordered = sorted(
            entries,
            key=lambda e: -(num - e[0]) * (common // (den - e[1])) if den > e[1] else 0,
        )
    low, high = ordered[0], ordered[-1]
    median = (low[0] + high[0], low[1] + high[1]) if len(ordered) > 1 else low
    return low, median


def rank(
    figures: Iterable[Figures],
    chain: Sequence[Key] = TORINO,
    fallback: Mapping[PlayerId, tuple[KeyFigure, ...]] | None = None,
) -> list[Standing]:
    """The players ordered by ``chain``, higher first; equal on every key share a place.

    ``fallback`` gives, per player, further keys compared after the chain (a later stage's
    results in the earlier stages: Silli's FINAL rule); every player needs a tuple of the
    same length. Players sharing a place keep the order in which they were given (e.g. seat
    order), and all of them carry the same ``place`` and ``last``.
    """
    extra = fallback or {}
    keyed = sorted(
        ((tuple(f.value(k) for k in chain) + extra.get(f.id, ()), f) for f in figures),
        key=itemgetter(0),
        reverse=True,
    )
    standings: list[Standing] = []
    for _, block in groupby(keyed, key=itemgetter(0)):
        members = [f for _, f in block]
        first = len(standings) + 1
        standings.extend(Standing(first, first + len(members) - 1, f) for f in members)
    return standings


def lot_order(ids: Iterable[PlayerIdT], seed: str) -> list[PlayerIdT]:
    """The ids in the order a seeded lot gives them.

    The lot sorts by the hexadecimal SHA-256 digest of ``f"{seed}|lot|{id}"`` (UTF-8),
    ascending, so anyone can redraw it from the published seed.
    """
    return sorted(ids, key=lambda i: hashlib.sha256(f"{seed}|lot|{i}".encode()).hexdigest())


def strict_order(standings: Sequence[Standing], seed: str) -> list[Standing]:
    """A strict order (places 1, 2, 3, …): every shared place decided by :func:`lot_order`.

    ``standings`` is a result of :func:`rank`; players not sharing a place keep theirs.
    """
    result: list[Standing] = []
    for place, block in groupby(standings, key=attrgetter("place")):
        members = {s.figures.id: s.figures for s in block}
        for offset, player_id in enumerate(lot_order(members, seed)):
            result.append(Standing(place + offset, place + offset, members[player_id]))
    return result
