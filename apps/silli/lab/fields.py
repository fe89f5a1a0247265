"""The fields a simulation plays: a stage's own entrants, or a synthetic field.

A field is a list of players in *rating order* (index 0 is the highest rated; equal ratings
keep the order given), each with an integer rating. Index + 1 is the player's *rating rank*,
which every measure is reported by.

Synthetic fields (the text after ``--field``):

* ``model1:N`` — O. Milvang's Model1 ("Accelerated pairing", rev. 6, 2017, fitted to Villa
  de Benasque and Politiken Cup 2015): ``0.4·N(1900, 400) + 0.6·N(2000, 300)``, truncated to
  [1000, 2700] (the paper's 432 model players range "from 2699 down to 1006");
* ``model2:N`` — Model2 (Reykjavik Open 2015): ``0.25·N(1900, 380) + 0.75·N(2200, 280)``,
  truncated to [1000, 2800] (the paper's model2 players range "from 1000 to 2770");
* ``linear:N:LOW:HIGH`` — N ratings equally spaced from HIGH down to LOW (the paper's
  "108 players range from 1000 to 2000, linear distribution").

The model fields are not drawn at random: like the paper, every simulated tournament plays
the *same* set of players, and that set is the N quantiles of the truncated mixture,
``rating_i = F⁻¹((i − ½) / N)`` rounded to an integer. So a field text names one field, and
the seed of a run only decides draws and results.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from ..entrants import Entrant

SYNTHETIC_NATION = "FID"
"""The nation of a synthetic player (a synthetic field is one nation: nations are not kept
apart when such a field is drawn)."""


class FieldError(ValueError):
    """A field text or a list of entrants that cannot be simulated; the message says why."""


@dataclass(frozen=True, slots=True)
class Mixture:
    """A mixture of normal distributions, truncated to [low, high]."""

    parts: tuple[tuple[float, float, float], ...]
    """(weight, mean, standard deviation) of each normal part."""
    low: float
    high: float

    def cdf(self, x: float) -> float:
        """The untruncated mixture's distribution function at ``x``."""
        return sum(
            w * 0.5 * (1.0 + math.erf((x - mu) / (sd * math.sqrt(2.0)))) for w, mu, sd in self.parts
        )

    def quantile(self, p: float) -> float:
        """The truncated mixture's ``p``-quantile (0 < p < 1), by bisection."""
        lo_mass, hi_mass = self.cdf(self.low), self.cdf(self.high)
        target = lo_mass + p * (hi_mass - lo_mass)
        lo, hi = self.low, self.high
        for _ in range(60):
            mid = (lo + hi) / 2.0
            if self.cdf(mid) < target:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2.0


MODEL1 = Mixture(((0.4, 1900.0, 400.0), (0.6, 2000.0, 300.0)), 1000.0, 2700.0)
MODEL2 = Mixture(((0.25, 1900.0, 380.0), (0.75, 2200.0, 280.0)), 1000.0, 2800.0)
MODELS = {"model1": MODEL1, "model2": MODEL2}
MAX_PLAYERS = 100_000


@dataclass(frozen=True, slots=True)
class Player:
    """One player of a field: its entrant (code, nation, person) and rating."""

    entrant: Entrant
    rating: int


@dataclass(frozen=True, slots=True)
class Field:
    """Players in rating order (highest first) and a name for reports."""

    name: str
    players: tuple[Player, ...]

    @property
    def ratings(self) -> list[int]:
        return [p.rating for p in self.players]

    @property
    def nations(self) -> int:
        return len({p.entrant.nation for p in self.players})

    def __len__(self) -> int:
        return len(self.players)


def _synthetic(name: str, ratings: Sequence[int]) -> Field:
    ordered = sorted(ratings, reverse=True)
    width = max(4, len(str(len(ordered))))
    players = tuple(
        Player(Entrant(f"L{i + 1:0{width}d}", f"Player {i + 1}", SYNTHETIC_NATION, r), r)
        for i, r in enumerate(ordered)
    )
    return Field(name, players)


def model_ratings(model: Mixture, count: int) -> list[int]:
    """The ``count`` quantile ratings of ``model``, highest first."""
    return sorted((round(model.quantile((i + 0.5) / count)) for i in range(count)), reverse=True)


def linear_ratings(count: int, low: int, high: int) -> list[int]:
    """``count`` ratings equally spaced from ``high`` down to ``low`` (rounded)."""
    if count == 1:
        return [high]
    step = (high - low) / (count - 1)
    return [round(high - i * step) for i in range(count)]


def _count(text: str, spec: str) -> int:
    if not text.isdigit() or not 2 <= int(text) <= MAX_PLAYERS:
        raise FieldError(f"field {spec!r}: the number of players must be 2..{MAX_PLAYERS}")
    return int(text)


def parse_field(spec: str) -> Field:
    """The synthetic field a text names (see the module docstring)."""
    parts = spec.strip().split(":")
    kind = parts[0].lower()
    if kind in MODELS and len(parts) == 2:
        return _synthetic(spec, model_ratings(MODELS[kind], _count(parts[1], spec)))
    if kind == "linear" and len(parts) == 4:
        count = _count(parts[1], spec)
        try:
            low, high = int(parts[2]), int(parts[3])
        except ValueError:
            raise FieldError(f"field {spec!r}: LOW and HIGH must be whole numbers") from None
        if not 0 <= low <= high <= 4000:
            raise FieldError(f"field {spec!r}: need 0 <= LOW <= HIGH <= 4000")
        return _synthetic(spec, linear_ratings(count, low, high))
    raise FieldError(
        f"unknown field {spec!r}; use model1:N, model2:N or linear:N:LOW:HIGH "
        "(or give a stage's entrants)"
    )


def entrants_field(entrants: Sequence[Entrant], name: str = "entrants") -> Field:
    """A stage's entrants as a field; every entrant needs a rating."""
    missing = [e.code for e in entrants if e.rating is None]
    if missing:
        shown = ", ".join(missing[:10]) + (" …" if len(missing) > 10 else "")
        raise FieldError(f"{len(missing)} entrant(s) without a rating: {shown}")
    if len(entrants) < 2:
        raise FieldError("a field needs at least two players")
    codes = [e.code for e in entrants]
    if len(set(codes)) != len(codes):
        raise FieldError("an entrant code appears twice")
    indexed = sorted(enumerate(entrants), key=lambda ie: (-(ie[1].rating or 0), ie[0]))
    return Field(name, tuple(Player(e, e.rating or 0) for _, e in indexed))
