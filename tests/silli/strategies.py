"""Hypothesis strategies for entrant lists.

Hypothesis draws a handful of parameters (size, nations, largest share,
multi-entry share, a seed); the entrants themselves are built from a chance
stream, so examples stay small while the lists vary widely.
"""

from hypothesis import strategies as st

from apps.silli.entrants import Entrant
from apps.silli.rng import ChanceStream

NATIONS = ["ITA", "GER", "RUS", "USA", "POL", "CZE", "ESP", "FRA", "NED", "ENG", "BRA", "ARG"]


@st.composite
def entrant_lists(draw, min_size=50, max_size=320, max_share=0.25):
    """Entrants with skewed nations (largest at most ``max_share``) and multi-entry persons."""
    size = draw(st.integers(min_size, max_size))
    nations = NATIONS[: draw(st.integers(4, len(NATIONS)))]
    share = draw(st.floats(1 / len(nations), max_share))
    multi = draw(st.sampled_from([0.0, 0.05, 0.2]))
    rng = ChanceStream(draw(st.text(max_size=6)), "entrants")
    cap = max(1, int(size * share))
    per_nation = dict.fromkeys(nations, 0)
    entrants: list[Entrant] = []
    person = 0
    while len(entrants) < size:
        nation = nations[0] if per_nation[nations[0]] < cap else nations[rng.below(len(nations))]
        if per_nation[nation] >= cap:
            nation = min(per_nation, key=per_nation.get)
        person += 1
        entries = 1 + (rng.uniform() < multi) * (1 + rng.below(2))
        for _ in range(max(1, min(entries, size - len(entrants), cap - per_nation[nation]))):
            code = f"C{len(entrants):05d}"
            entrants.append(
                Entrant(code, f"Name {code}", nation, 1800 + rng.below(800), f"P{person}")
            )
            per_nation[nation] += 1
    return entrants
