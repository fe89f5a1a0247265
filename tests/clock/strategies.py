"""Hypothesis strategies for clock controls and games: moves a few hours to many days apart
(whole days too, to land on the 24-hour boundaries) and leave around them."""

from datetime import UTC, date, datetime, timedelta

from hypothesis import strategies as st

from apps.clock import Fischer, GameTimes, Leave, MovesInDays

DAY = timedelta(days=1)
ORIGIN = datetime(2027, 1, 1, tzinfo=UTC)

doubling = st.none() | st.integers(0, 25)
controls = st.one_of(
    st.builds(
        MovesInDays, moves=st.integers(1, 12), days=st.integers(1, 60), doubling_after=doubling
    ),
    st.builds(
        Fischer, base=st.integers(1, 40), increment=st.integers(0, 5), doubling_after=doubling
    ),
)

gaps = st.one_of(
    st.integers(0, 3 * 24 * 3600 * 10**6).map(lambda us: timedelta(microseconds=us)),
    st.integers(0, 50 * 24 * 3600).map(lambda s: timedelta(seconds=s)),
    st.integers(0, 40).map(lambda days: days * DAY),
)
starts = st.integers(0, 365 * 24 * 3600).map(lambda s: ORIGIN + timedelta(seconds=s))


@st.composite
def leaves(draw, around: date, most: int = 3):
    """Up to ``most`` leave periods near ``around``."""
    periods = []
    for _ in range(draw(st.integers(0, most))):
        first = around + timedelta(days=draw(st.integers(-10, 200)))
        periods.append(Leave(first, first + timedelta(days=draw(st.integers(0, 20)))))
    return periods


@st.composite
def games(draw, max_plies: int = 30):
    """A game: its times and leave, and a ``now`` not before its last move."""
    start = draw(starts)
    moves, moment = [], start
    for gap in draw(st.lists(gaps, max_size=max_plies)):
        moment += gap
        moves.append(moment)
    white, black = draw(leaves(start.date())), draw(leaves(start.date()))
    now = moment + draw(gaps)
    return GameTimes(start, moves, white, black), now
