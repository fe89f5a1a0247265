"""The integer tie-breaks (apps/scoring/tiebreaks.py) against the Fraction implementation they
replaced (tests/scoring/oracle_tiebreaks.py, kept as it was): the same figures, of the same
types, and the same places for every chain, option, cut variant and rule for unplayed games,
on random groups with forfeits, double forfeits, byes, absences and withdrawals."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from apps.scoring import tiebreaks as tb

from . import oracle_tiebreaks as old

KINDS = ["played", "played", "played", "forfeit", "double forfeit"]
REVERSED = {tb.Outcome.WIN: tb.Outcome.LOSS, tb.Outcome.DRAW: tb.Outcome.DRAW}
REVERSED[tb.Outcome.LOSS] = tb.Outcome.WIN
SCORINGS = [
    tb.Scoring(),
    tb.Scoring(3, 1, 0),
    tb.Scoring(2, 1, 0),
    tb.Scoring(1, F(1, 3), F(1, 7)),
    tb.Scoring(F(5, 2), F(5, 4), F(5, 6)),
    tb.Scoring(1, 1, 1),
]
EXTRAS = [(), (tb.Key.SB,), (tb.Key.WINS,), (tb.Key.BLACK_GAMES,), (tb.Key.SB, tb.Key.WINS)]
ALL_KEYS = tuple(tb.Key)


@st.composite
def groups(draw) -> tuple[list[tb.Player], int]:
    """A group of 1–12 players over T rounds: in each round the players still in are paired
    at random (played games, forfeits, double forfeits); an odd one out gets a bye of any
    outcome or is absent; a player may withdraw, after which each of its games is a forfeit
    loss (and its opponent's a forfeit win) and its rounds without an opponent absences.
    Sometimes a few extra games between any two players (a Silli group's games are not
    rounds), and players with no game at all. Ids are ints or strings."""
    size = draw(st.integers(1, 12))
    stage_games = draw(st.integers(1, 8))
    strings = draw(st.booleans())
    ids = [f"p{i}" if strings else i * 3 + 1 for i in range(size)]
    games: dict[int, list[tb.Game]] = {i: [] for i in range(size)}
    withdraws = {
        i: draw(st.integers(0, stage_games)) for i in range(size) if draw(st.integers(0, 5)) == 0
    }
    rounds = draw(st.integers(0, stage_games))
    for round_number in range(rounds):
        seats = draw(st.permutations(range(size)))
        gone = {i for i, after in withdraws.items() if round_number >= after}
        for white, black in zip(seats[::2], seats[1::2], strict=False):
            colour_w, colour_b = tb.Colour.WHITE, tb.Colour.BLACK
            if white in gone or black in gone:
                if white in gone and black in gone:
                    ours = theirs = tb.Outcome.LOSS
                else:
                    ours = tb.Outcome.LOSS if white in gone else tb.Outcome.WIN
                    theirs = REVERSED[ours]
                played = False
            else:
                kind = draw(st.sampled_from(KINDS))
                outcome = draw(st.sampled_from(tb.Outcome))
                if kind == "double forfeit":
                    ours = theirs = tb.Outcome.LOSS
                else:
                    ours, theirs = outcome, REVERSED[outcome]
                played = kind == "played"
            if not played and draw(st.booleans()):
                colour_w = colour_b = None  # type: ignore[assignment]
            games[white].append(tb.Game(ids[black], ours, played, colour_w))
            games[black].append(tb.Game(ids[white], theirs, played, colour_b))
        if size % 2:
            last = seats[-1]
            outcome = tb.Outcome.LOSS if last in gone else draw(st.sampled_from(tb.Outcome))
            games[last].append(tb.Game(None, outcome, False))
    for _ in range(draw(st.integers(0, 6)) if size > 1 else 0):
        white, black = draw(st.lists(st.integers(0, size - 1), min_size=2, max_size=2, unique=True))
        outcome = draw(st.sampled_from(tb.Outcome))
        played = draw(st.booleans())
        games[white].append(tb.Game(ids[black], outcome, played, tb.Colour.WHITE))
        games[black].append(tb.Game(ids[white], REVERSED[outcome], played, tb.Colour.BLACK))
    order = draw(st.permutations(range(size)))
    return [tb.Player(ids[i], games[i]) for i in order], stage_games


def as_old(players: list[tb.Player]) -> list[old.Player]:
    return [
        old.Player(
            p.id,
            [
                old.Game(
                    g.opponent,
                    old.Outcome(g.outcome.value),
                    g.played,
                    None if g.colour is None else old.Colour(g.colour.value),
                )
                for g in p.games
            ],
        )
        for p in players
    ]


def figure_values(figures) -> list[tuple]:
    """Each player's figures with the type of each (a Fraction stays a Fraction)."""
    names = [n for n in tb.Figures.__dataclass_fields__]
    return [tuple((getattr(f, n), type(getattr(f, n))) for n in names) for f in figures]


def places(standings) -> list[tuple[int, int, object]]:
    return [(s.place, s.last, s.figures.id) for s in standings]


@st.composite
def fallbacks(draw, ids: list) -> dict | None:
    """Earlier stages' keys for some (or all) players, equal ones likely: Decimals as stored,
    -Infinity for a stage without a record; None for a first stage."""
    if draw(st.booleans()):
        return None
    length = draw(st.integers(1, 4))
    values = st.sampled_from([Decimal("-Infinity"), Decimal("0"), Decimal("1.5"), Decimal("3")])
    keys = {}
    for pid in ids:
        if draw(st.integers(0, 6)):
            keys[pid] = tuple(draw(values) for _ in range(length))
    return keys


@settings(max_examples=600, deadline=None)
@given(
    groups(),
    st.sampled_from(tb.CutVariant),
    st.sampled_from(tb.Unplayed),
    st.sampled_from(SCORINGS),
    st.sampled_from(sorted(tb.SYSTEMS)),
    st.sampled_from(EXTRAS),
    st.data(),
)
def test_figures_and_places_are_the_oracles(group, variant, unplayed, scoring, system, extra, data):
    players, stage_games = group
    options = {"variant": variant, "unplayed": unplayed}
    new = tb.compute_figures(players, stage_games, scoring=scoring, **options)
    expected = old.compute_figures(
        as_old(players),
        stage_games,
        scoring=old.Scoring(scoring.win, scoring.draw, scoring.loss),
        variant=old.CutVariant(variant.value),
        unplayed=old.Unplayed(unplayed.value),
    )
    assert figure_values(new) == figure_values(expected)

    chain = tb.SYSTEMS[system] + extra
    old_chain = tuple(old.Key(k.value) for k in chain)
    fallback = data.draw(fallbacks([p.id for p in players]))
    assert places(tb.rank(new, chain, fallback)) == places(old.rank(expected, old_chain, fallback))
    # Any key in any order, too.
    keys = data.draw(st.lists(st.sampled_from(ALL_KEYS), max_size=4))
    assert places(tb.rank(new, keys)) == places(
        old.rank(expected, [old.Key(k.value) for k in keys])
    )

    # The compact path (what a standings recompute runs) gives the same figures and places.
    table = tb.figure_table(
        compact(players), stage_games, ids=[p.id for p in players], scoring=scoring, **options
    )
    assert figure_values(table.figures()) == figure_values(expected)
    ranked = tb.rank_table(table, chain, fallback)
    assert [(place, last, table.ids[i]) for i, place, last in ranked] == places(
        old.rank(expected, old_chain, fallback)
    )
    for i, figures in enumerate(expected):
        for name in tb.Figures.__dataclass_fields__:
            if name != "id":
                numerator, denominator = table.exact(name, i)
                assert F(numerator, denominator) == getattr(figures, name)


def compact(players: list[tb.Player]) -> list[list[tb.Record]]:
    index = {p.id: i for i, p in enumerate(players)}
    return [
        [
            (
                -1 if g.opponent is None else index[g.opponent],
                tb.OUTCOME_CODE[g.outcome],
                g.played,
                g.colour is tb.Colour.BLACK,
            )
            for g in p.games
        ]
        for p in players
    ]


@settings(max_examples=400, deadline=None)
@given(groups(), st.sampled_from(SCORINGS))
def test_the_recomputes_fast_path_is_the_general_one(group, scoring):
    """figure_table's own pass for the rules a recompute uses (classic unplayed games, the
    target cut) gives every column the general pass gives (and so the oracle's figures)."""
    players, stage_games = group
    records = compact(players)
    ids = [p.id for p in players]
    fast = tb.figure_table(records, stage_games, ids=ids, scoring=scoring)
    scale = fast.scale
    unit = (int(scoring.win * scale), int(scoring.draw * scale), int(scoring.loss * scale))
    general = tb._general_table(
        records,
        stage_games,
        ids,
        scale,
        unit,
        fast.points,
        fast.rgp,
        fast.gms,
        tb.CutVariant.TARGET,
        tb.Unplayed.CLASSIC,
    )
    assert fast == general


@settings(max_examples=100, deadline=None)
@given(groups(), st.data())
def test_strict_order_is_the_oracles(group, data):
    players, stage_games = group
    seed = data.draw(st.text(max_size=5))
    new = tb.strict_order(tb.rank(tb.compute_figures(players, stage_games), tb.BUCHHOLZ), seed)
    expected = old.strict_order(
        old.rank(old.compute_figures(as_old(players), stage_games), old.BUCHHOLZ), seed
    )
    assert places(new) == places(expected)


@pytest.mark.parametrize(
    ("players", "stage_games"),
    [
        ([tb.Player(1), tb.Player(1)], 3),
        ([tb.Player(1, [tb.Game(9, tb.Outcome.WIN)])], 3),
        ([tb.Player(1, [tb.Game(9, tb.Outcome.WIN)]), tb.Player(1)], 3),
        ([tb.Player(1)], 0),
    ],
)
def test_bad_input_is_refused_with_the_oracles_message(players, stage_games):
    with pytest.raises(ValueError) as expected:
        old.compute_figures(as_old(players), stage_games)
    with pytest.raises(ValueError, match=str(expected.value)):
        tb.compute_figures(players, stage_games)


@pytest.mark.parametrize(
    "record",
    [(5, tb.WIN, True, False), (-2, tb.WIN, False, False), (-1, tb.WIN, True, False)]
    + [(0, 3, True, False), (0, -1, True, False)],
)
def test_a_bad_compact_record_is_refused(record):
    with pytest.raises(ValueError, match="bad record"):
        tb.figure_table([[record], []], 3)
