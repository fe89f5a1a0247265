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

All arithmetic is exact, so two figures tie exactly when they are equal: on integers, points
in units of the smallest point fraction and each Torino figure a fraction of two integers
(:class:`FigureTable`); :class:`fractions.Fraction` only in what :func:`compute_figures`
returns. Convert to float only for display.

The compact form is the fast one (a standings recompute runs after every result):
:func:`figure_table` takes each player's games as :data:`Record` tuples of integers and
:func:`rank_table` orders the resulting :class:`FigureTable`; :func:`compute_figures` and
:func:`rank` are the same computation over :class:`Player` and :class:`Figures`.

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
from operator import attrgetter
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


# ---------------------------------------------------------------------------
# The compact form: integer columns
# ---------------------------------------------------------------------------

WIN, DRAW, LOSS = 0, 1, 2
"""The outcome codes of a :data:`Record` (win, draw, loss from the player's side)."""

OUTCOME_CODE: Mapping[Outcome, int] = {Outcome.WIN: WIN, Outcome.DRAW: DRAW, Outcome.LOSS: LOSS}

Record: TypeAlias = tuple[int, int, bool, bool]
"""One finished game (or TRF round) of a player in compact form, as :class:`Game` says it:
``(opponent, outcome, played, black)`` — the opponent's index in the group (``-1`` without
an opponent), the outcome code (:data:`WIN`, :data:`DRAW`, :data:`LOSS`), whether it was
played, whether the player had Black."""

_SHARE = (2, 1, 0)  # a contribution's Sonneborn-Berger share per outcome code, in halves

# Each figure's unit: "scale" (1/scale point), "sb" (1/(2·scale) point), "count" (a whole
# number) or "torino" (a fraction per player).
_UNITS: Mapping[str, str] = {
    "points": "scale",
    "games": "count",
    "gms": "count",
    "rgp": "scale",
    "bh": "scale",
    "bh_c1": "scale",
    "bh_c2": "scale",
    "ts": "torino",
    "ts_cut1": "torino",
    "ts_median": "torino",
    "sb": "sb",
    "wins": "count",
    "black_games": "count",
}


@dataclass(frozen=True, slots=True)
class FigureTable:
    """The :class:`Figures` of a group as integer columns: index ``i`` is the group's i-th
    player (``ids[i]``), as given to :func:`figure_table`.

    Exact, without a :class:`~fractions.Fraction`: ``points``, ``rgp``, ``bh``, ``bh_c1``,
    ``bh_c2`` count units of ``1/scale`` point, ``sb`` units of ``1/(2·scale)``; ``games``,
    ``gms``, ``wins``, ``black_games`` are counts; each Torino figure is a fraction of its own,
    ``ts[i] / ts_den[i]`` (not reduced; ``0 / 1`` when no game is left).
    """

    ids: Sequence[PlayerId]
    scale: int
    points: list[int]
    games: list[int]
    gms: list[int]
    rgp: list[int]
    bh: list[int]
    bh_c1: list[int]
    bh_c2: list[int]
    sb: list[int]
    ts: list[int]
    ts_den: list[int]
    ts_cut1: list[int]
    ts_cut1_den: list[int]
    ts_median: list[int]
    ts_median_den: list[int]
    wins: list[int]
    black_games: list[int]

    def __len__(self) -> int:
        return len(self.ids)

    def exact(self, name: str, i: int) -> tuple[int, int]:
        """Player ``i``'s figure ``name`` (a :class:`Figures` field but ``id``) as
        ``(numerator, denominator)``, not reduced."""
        unit = _UNITS[name]
        numerator: int = getattr(self, name)[i]
        if unit == "count":
            return numerator, 1
        if unit == "scale":
            return numerator, self.scale
        if unit == "sb":
            return numerator, 2 * self.scale
        denominator: int = getattr(self, f"{name}_den")[i]
        return numerator, denominator

    def denominators(self, name: str) -> int | list[int]:
        """The denominator of figure ``name`` (a :class:`Figures` field but ``id``): one for
        every player (1 for a count), or each player's (a Torino figure)."""
        unit = _UNITS[name]
        if unit == "count":
            return 1
        if unit == "scale":
            return self.scale
        if unit == "sb":
            return 2 * self.scale
        denominators: list[int] = getattr(self, f"{name}_den")
        return denominators

    def column(self, key: Key) -> list[int]:
        """Every player's figure ``key`` as an integer that orders and ties exactly as the
        figure does (the Torino fractions over their least common denominator)."""
        name = key.value
        values: list[int] = getattr(self, name)
        if _UNITS[name] != "torino":
            return values
        denominators: list[int] = getattr(self, f"{name}_den")
        common = lcm(*set(denominators))
        return [n * (common // d) for n, d in zip(values, denominators, strict=True)]

    def figures(self) -> list[Figures]:
        """Every player's :class:`Figures`, in the table's order (Fractions made here only)."""
        made: dict[tuple[int, int], Fraction] = {}

        def exact(numerator: int, denominator: int) -> Fraction:
            found = made.get((numerator, denominator))
            if found is None:
                found = made[numerator, denominator] = Fraction(numerator, denominator)
            return found

        scale, sb_scale = self.scale, 2 * self.scale
        return [
            Figures(
                id=player_id,
                points=exact(self.points[i], scale),
                games=self.games[i],
                gms=self.gms[i],
                rgp=exact(self.rgp[i], scale),
                bh=exact(self.bh[i], scale),
                bh_c1=exact(self.bh_c1[i], scale),
                bh_c2=exact(self.bh_c2[i], scale),
                ts=exact(self.ts[i], self.ts_den[i]),
                ts_cut1=exact(self.ts_cut1[i], self.ts_cut1_den[i]),
                ts_median=exact(self.ts_median[i], self.ts_median_den[i]),
                sb=exact(self.sb[i], sb_scale),
                wins=self.wins[i],
                black_games=self.black_games[i],
            )
            for i, player_id in enumerate(self.ids)
        ]


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
    in the group, or ``stage_games < 1``. The work is :func:`figure_table`'s.
    """
    group = list(players)
    if stage_games < 1:
        raise ValueError(f"stage_games must be at least 1, got {stage_games}")
    index: dict[PlayerId, int] = {}
    for i, player in enumerate(group):
        if player.id in index:
            raise ValueError(f"player {player.id!r} appears twice")
        index[player.id] = i
    records: list[list[Record]] = []
    for player in group:
        own: list[Record] = []
        for game in player.games:
            opponent = -1
            if game.opponent is not None:
                found = index.get(game.opponent)
                if found is None:
                    raise ValueError(
                        f"player {player.id!r} has a game against unknown {game.opponent!r}"
                    )
                opponent = found
            outcome = game.outcome
            code = WIN if outcome is Outcome.WIN else DRAW if outcome is Outcome.DRAW else LOSS
            own.append((opponent, code, game.played, game.colour is Colour.BLACK))
        records.append(own)
    table = figure_table(
        records,
        stage_games,
        ids=[p.id for p in group],
        scoring=scoring,
        variant=variant,
        unplayed=unplayed,
    )
    return table.figures()


def figure_table(
    records: Sequence[Sequence[Record]],
    stage_games: int,
    *,
    ids: Sequence[PlayerId] | None = None,
    scoring: Scoring = Scoring(),
    variant: CutVariant = CutVariant.TARGET,
    unplayed: Unplayed = Unplayed.CLASSIC,
) -> FigureTable:
    """:func:`compute_figures` over compact input: ``records[i]`` are the i-th player's
    :data:`Record` in the order they were played, ``ids[i]`` its id (default: ``i``).

    All arithmetic is on integers (points in units of the smallest fraction); the result is a
    :class:`FigureTable`, which :func:`rank_table` orders. Raises :class:`ValueError` for
    ``stage_games < 1``, an opponent index outside the group, a played game without an
    opponent or an unknown outcome code.
    """
    if stage_games < 1:
        raise ValueError(f"stage_games must be at least 1, got {stage_games}")
    size = len(records)
    player_ids: Sequence[PlayerId] = range(size) if ids is None else ids
    if len(player_ids) != size:
        raise ValueError(f"{len(player_ids)} ids for {size} players")
    scale = lcm(scoring.win.denominator, scoring.draw.denominator, scoring.loss.denominator)
    unit = (int(scoring.win * scale), int(scoring.draw * scale), int(scoring.loss * scale))

    points, rgp, gms = [0] * size, [0] * size, [0] * size
    for i, own in enumerate(records):
        total = real = played = 0
        for opponent, outcome, is_played, _black in own:
            if not (-1 <= opponent < size and 0 <= outcome <= 2) or (is_played and opponent < 0):
                raise ValueError(
                    f"player {player_ids[i]!r}: bad record {(opponent, outcome, is_played)!r}"
                )
            total += unit[outcome]
            if is_played:
                real += unit[outcome]
                played += 1
        points[i], rgp[i], gms[i] = total, real, played

    if unplayed is Unplayed.CLASSIC and variant is CutVariant.TARGET:
        return _classic_target_table(records, stage_games, player_ids, scale, points, rgp, gms)
    return _general_table(
        records, stage_games, player_ids, scale, unit, points, rgp, gms, variant, unplayed
    )


def _general_table(
    records: Sequence[Sequence[Record]],
    stage_games: int,
    player_ids: Sequence[PlayerId],
    scale: int,
    unit: tuple[int, int, int],
    points: list[int],
    rgp: list[int],
    gms: list[int],
    variant: CutVariant,
    unplayed: Unplayed,
) -> FigureTable:
    """:func:`figure_table` after its points, for every variant and rule for unplayed games."""
    fide = unplayed is Unplayed.FIDE2024
    value = points
    if fide:
        # FIDE C.07 (2024) art. 16: as an opponent, a player's records after the last one
        # played or won (a withdrawal) count as draws where no opponent was paired.
        value = points[:]
        for i, own in enumerate(records):
            for opponent, outcome, is_played, _black in reversed(own):
                if is_played or outcome == WIN:
                    break
                if opponent < 0:
                    value[i] += unit[DRAW] - unit[outcome]

    factors = _torino_factors(stage_games)
    none_variant = variant is CutVariant.NONE
    rows: list[tuple[int, ...]] = []  # a player's figures after points (_table_of)
    for i, own in enumerate(records):
        kept: list[int] = []  # contributions, cut in order of value
        first: list[int] = []  # fide2024: own unplayed games not won, cut before the others
        entry_rgp: list[int] = []  # the opponents of played games: rgp and gms
        entry_gms: list[int] = []
        add_rgp, add_gms, add_kept = entry_rgp.append, entry_gms.append, kept.append
        sb = wins = black_games = 0
        mine = points[i]
        for opponent, outcome, is_played, black in own:
            if outcome == WIN:
                wins += 1
            if is_played:
                if black:
                    black_games += 1
                add_rgp(rgp[opponent])
                add_gms(gms[opponent])
                contribution = value[opponent]
                add_kept(contribution)
            elif fide:
                contribution = mine
                (kept if outcome == WIN else first).append(mine)
            elif opponent >= 0:
                contribution = points[opponent]
                kept.append(contribution)
            else:
                continue
            sb += contribution * _SHARE[outcome]

        bh = sum(kept) + sum(first)
        lowest = sorted(first) + sorted(kept) if first else sorted(kept)
        cut1 = lowest[0] if lowest else 0
        cut2 = cut1 + lowest[1] if len(lowest) > 1 else cut1
        own_figures = (len(own), bh, bh - cut1, bh - cut2, sb, wins, black_games)

        num, den = sum(entry_rgp), sum(entry_gms)
        if not entry_rgp or (none_variant and len(entry_rgp) < len(own)):
            low_rgp = low_gms = median_rgp = median_gms = 0
        else:
            low_rgp, low_gms, median_rgp, median_gms = _torino_cuts(
                entry_rgp, entry_gms, num, den, variant
            )
        rows.append(
            own_figures
            + _torino_figures(num, den, low_rgp, low_gms, median_rgp, median_gms, factors, scale)
        )

    return _table_of(player_ids, scale, points, rgp, gms, rows)


def _classic_target_table(
    records: Sequence[Sequence[Record]],
    stage_games: int,
    player_ids: Sequence[PlayerId],
    scale: int,
    points: list[int],
    rgp: list[int],
    gms: list[int],
) -> FigureTable:
    """:func:`figure_table` after its points for the rules a recompute uses
    (:attr:`Unplayed.CLASSIC`, :attr:`CutVariant.TARGET`), in one pass per player: what
    :func:`_general_table` computes for them (the property tests compare the two)."""
    factors = _torino_factors(stage_games)
    rows: list[tuple[int, ...]] = []  # a player's figures after points (_table_of)
    for own in records:
        kept: list[int] = []  # contributions: the opponents' points, played or not
        entry_rgp: list[int] = []  # the opponents of played games: rgp and gms
        entry_gms: list[int] = []
        sb = wins = black_games = 0
        for opponent, outcome, is_played, black in own:
            if opponent < 0:  # no opponent (never played): no contribution
                if outcome == WIN:
                    wins += 1
                continue
            contribution = points[opponent]
            kept.append(contribution)
            if outcome == WIN:
                wins += 1
                sb += contribution + contribution
            elif outcome == DRAW:
                sb += contribution
            if is_played:
                entry_rgp.append(rgp[opponent])
                entry_gms.append(gms[opponent])
                if black:
                    black_games += 1
        bh = sum(kept)
        if len(kept) > 1:
            kept.sort()
            cut1 = kept[0]
            cut2 = cut1 + kept[1]
        else:
            cut1 = cut2 = kept[0] if kept else 0
        own_figures = (len(own), bh, bh - cut1, bh - cut2, sb, wins, black_games)

        if not entry_rgp:
            rows.append(own_figures + _NO_TORINO)
            continue
        num, den = sum(entry_rgp), sum(entry_gms)
        # _torino_cuts' TARGET: the low entry leaves the highest ratio (the first such), the
        # high entry the lowest (the last such); by value, which is all the cuts use.
        low_rgp = high_rgp = entry_rgp[0]
        low_gms = high_gms = entry_gms[0]
        if len(entry_rgp) > 1:
            low_left = high_left = num - low_rgp
            low_den = high_den = den - low_gms
            entries = zip(entry_rgp, entry_gms, strict=True)
            next(entries)
            for r, g in entries:
                left, rest = num - r, den - g
                if left * low_den > low_left * rest:
                    low_rgp, low_gms, low_left, low_den = r, g, left, rest
                if left * high_den <= high_left * rest:
                    high_rgp, high_gms, high_left, high_den = r, g, left, rest
            median_rgp, median_gms = low_rgp + high_rgp, low_gms + high_gms
        else:
            median_rgp, median_gms = low_rgp, low_gms
        rows.append(
            own_figures
            + _torino_figures(num, den, low_rgp, low_gms, median_rgp, median_gms, factors, scale)
        )

    return _table_of(player_ids, scale, points, rgp, gms, rows)


_NO_TORINO = (0, 1, 0, 1, 0, 1)  # the Torino figures of a player without a played game


def _table_of(
    player_ids: Sequence[PlayerId],
    scale: int,
    points: list[int],
    rgp: list[int],
    gms: list[int],
    rows: list[tuple[int, ...]],
) -> FigureTable:
    """The :class:`FigureTable` of the figures after points, a row per player: games, bh,
    bh_c1, bh_c2, sb, wins, black games, then ts, ts_cut1 and ts_median, each numerator and
    denominator."""
    columns = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in range(13)]
    games, bh, c1, c2, sb, wins, black, ts, ts_den, cut1, cut1_den, median, median_den = columns
    return FigureTable(
        ids=player_ids,
        scale=scale,
        points=points,
        games=games,
        gms=gms,
        rgp=rgp,
        bh=bh,
        bh_c1=c1,
        bh_c2=c2,
        sb=sb,
        ts=ts,
        ts_den=ts_den,
        ts_cut1=cut1,
        ts_cut1_den=cut1_den,
        ts_median=median,
        ts_median_den=median_den,
        wins=wins,
        black_games=black,
    )


def _torino_factors(t: int) -> tuple[int, int, int]:
    """The factors of ts, ts_cut1 and ts_median for ``t`` games per player."""
    return t * t, t * (t - 1), t * max(t - 2, 0)


def _torino_figures(
    rgp: int,
    gms: int,
    low_rgp: int,
    low_gms: int,
    median_rgp: int,
    median_gms: int,
    factors: tuple[int, int, int],
    scale: int,
) -> tuple[int, int, int, int, int, int]:
    """ts, ts_cut1 and ts_median, each numerator and denominator, from the opponents' rgp and
    gms and what each cut takes off them (``factors``: :func:`_torino_factors`)."""
    return (
        *_torino_quotient(rgp, gms, factors[0], scale),
        *_torino_quotient(rgp - low_rgp, gms - low_gms, factors[1], scale),
        *_torino_quotient(rgp - median_rgp, gms - median_gms, factors[2], scale),
    )


def _torino_quotient(rgp: int, gms: int, factor: int, scale: int) -> tuple[int, int]:
    """A Torino figure's numerator and denominator from what is left of the opponents' rgp
    and gms after its cut (0/1 when no game is left)."""
    return (rgp * factor, gms * scale) if gms else (0, 1)


def _torino_cuts(
    entry_rgp: list[int], entry_gms: list[int], num: int, den: int, variant: CutVariant
) -> tuple[int, int, int, int]:
    """The (rgp, gms) that TS-Cut1 and TS-Median remove from numerator and denominator, for
    a player with at least one played game, as ``(cut1 rgp, cut1 gms, median rgp, median
    gms)``."""
    count = len(entry_rgp)
    if variant is CutVariant.HIGH:
        low_rgp, high_gms = min(entry_rgp), max(entry_gms)
        if count > 1:
            return low_rgp, high_gms, low_rgp + max(entry_rgp), high_gms + min(entry_gms)
        return low_rgp, high_gms, low_rgp, high_gms

    # Every other variant orders the entries from the low entry to the high one: the low is
    # the first entry with the least key, the high the last one with the greatest (the
    # order a stable sort gives). Ratios are compared exactly as integers: each times the
    # lcm of their denominators.
    keys: list[tuple[int, int]]
    if variant is CutVariant.POINTS:
        keys = [(r, -g) for r, g in zip(entry_rgp, entry_gms, strict=True)]
    elif variant is CutVariant.GAMES:
        keys = [(-g, r) for r, g in zip(entry_rgp, entry_gms, strict=True)]
    elif variant is CutVariant.RATIO:
        common = lcm(*entry_gms)
        keys = [(r * (common // g), -g) for r, g in zip(entry_rgp, entry_gms, strict=True)]
    elif count == 1:  # TARGET, NONE: nothing is left whichever is removed
        return entry_rgp[0], entry_gms[0], entry_rgp[0], entry_gms[0]
    else:
        # TARGET, and NONE for a player without unplayed games: the low entry leaves the
        # highest ratio (num - rgp) / (den - gms) (the first such), the high entry the lowest
        # (the last such); with two entries or more every den - gms is positive, so ratios
        # compare exactly by cross-multiplying.
        low = high = 0
        low_left, low_den = high_left, high_den = num - entry_rgp[0], den - entry_gms[0]
        for j in range(1, count):
            left, rest = num - entry_rgp[j], den - entry_gms[j]
            if left * low_den > low_left * rest:
                low, low_left, low_den = j, left, rest
            if left * high_den <= high_left * rest:
                high, high_left, high_den = j, left, rest
        low_rgp, low_gms = entry_rgp[low], entry_gms[low]
        return low_rgp, low_gms, low_rgp + entry_rgp[high], low_gms + entry_gms[high]
    low = keys.index(min(keys))
    if count == 1:
        return entry_rgp[low], entry_gms[low], entry_rgp[low], entry_gms[low]
    greatest = max(keys)
    high = count - 1 - keys[::-1].index(greatest)
    low_rgp, low_gms = entry_rgp[low], entry_gms[low]
    return low_rgp, low_gms, low_rgp + entry_rgp[high], low_gms + entry_gms[high]


# ---------------------------------------------------------------------------
# Standings
# ---------------------------------------------------------------------------


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

    The chain's figures are compared as integers (each key's fractions over their least
    common denominator): the same order and the same ties as the fractions.
    """
    given = list(figures)
    columns = [_integer_column([f.value(k) for f in given]) for k in chain]
    places = _places(columns, [f.id for f in given], fallback)
    return [Standing(place, last, given[i]) for i, place, last in places]


def rank_table(
    table: FigureTable,
    chain: Sequence[Key] = TORINO,
    fallback: Mapping[PlayerId, tuple[KeyFigure, ...]] | None = None,
) -> list[tuple[int, int, int]]:
    """:func:`rank` over a :class:`FigureTable`: ``(index, place, last)`` per player, best
    first (the index into the table's columns)."""
    return _places([table.column(k) for k in chain], table.ids, fallback)


def _integer_column(values: list[Fraction | int]) -> list[Fraction | int] | list[int]:
    """One key's figures as integers that order and tie as they do (fractions over their
    least common denominator); anything else (e.g. a Decimal) as given."""
    if all(isinstance(v, (int, Fraction)) for v in values):
        common = lcm(*{v.denominator for v in values})
        return [v.numerator * (common // v.denominator) for v in values]
    return values


def _places(
    columns: Sequence[Sequence[KeyFigure]],
    ids: Sequence[PlayerId],
    fallback: Mapping[PlayerId, tuple[KeyFigure, ...]] | None,
) -> list[tuple[int, int, int]]:
    keys: list[tuple[KeyFigure, ...]] = [()] * len(ids)
    if columns:
        keys = list(zip(*columns, strict=True))
    if fallback:
        keys = [key + fallback.get(pid, ()) for key, pid in zip(keys, ids, strict=True)]
    # A stable sort: equal keys keep the order given, also with reverse=True.
    order = sorted(range(len(keys)), key=keys.__getitem__, reverse=True)
    places: list[tuple[int, int, int]] = []
    start = 0
    while start < len(order):
        key = keys[order[start]]
        end = start + 1
        while end < len(order) and keys[order[end]] == key:
            end += 1
        places.extend((order[j], start + 1, end) for j in range(start, end))
        start = end
    return places


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
