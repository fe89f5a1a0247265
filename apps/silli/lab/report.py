"""The report of a lab run, as typed values with a JSON round trip.

A :class:`LabReport` is the run's settings (the field, the format, the qualification, the
seed, the players' form) and the :class:`Measures` of its tally (:func:`.measures.report`
says what each measure is). :meth:`LabReport.to_json` is the JSON the product stores
(``LabRun.results``), the API answers and ``format_lab --json`` prints, one flat object;
:meth:`LabReport.from_json` reads it back into the same report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from .formats import LabFormat, format_from_json
from .measures import MICRO, Tally


@dataclass(frozen=True, slots=True)
class RankScore:
    """One rating rank's final score over the run."""

    rank: int
    """The rating rank (1 = highest rated)."""
    rating: int
    mean: float
    """The mean final score, byes included."""
    sd: float
    """Its standard deviation over the tournaments."""
    elo_expected: float
    """The mean Elo-expected score of the player's games (a bye counts as its point)."""


@dataclass(frozen=True, slots=True)
class TopRated:
    """One of the highest rated players' chances."""

    rank: int
    rating: int
    finish_top: float
    """The share of tournaments they finish in the top of the unified ranking."""
    qualifies: float | None
    """The share of tournaments they qualify in (None: the run has no qualification rule)."""


@dataclass(frozen=True, slots=True)
class Calendar:
    """How long a tournament takes: ``rounds`` played one after another (Swiss, round robin),
    or ``games_per_player`` played all at once (Silli); the other is None."""

    rounds: int | None = None
    games_per_player: int | None = None

    def to_json(self) -> dict[str, int]:
        if self.rounds is not None:
            return {"rounds": self.rounds}
        assert self.games_per_player is not None
        return {"games_per_player": self.games_per_player}

    @classmethod
    def from_json(cls, data: Mapping[str, int]) -> Calendar:
        return cls(data.get("rounds"), data.get("games_per_player"))


@dataclass(frozen=True, slots=True)
class Measures:
    """The measures of a run's tally (see :mod:`.measures`)."""

    tournaments: int
    players: int
    share_rating_diff_over: Mapping[int, float]
    """Threshold (rating points) → the share of games whose players are further apart."""
    mean_opponent_diff: float
    max_opponent_diff: float | None
    """The largest of the per-round means (None: no game was played)."""
    opponent_diff_by_round: tuple[float | None, ...]
    sum_pos_jump: float
    max_pos_jump: float
    expectation: float | None
    """The expectation factor (None: Silli, whose games run at the same time)."""
    games_per_tournament: float
    calendar: Calendar
    top: int
    """How many of the highest rated players :attr:`top_rated` follows."""
    top_rated: tuple[TopRated, ...]
    score_by_rank: tuple[RankScore, ...]

    def to_json(self) -> dict[str, object]:
        return {
            "tournaments": self.tournaments,
            "players": self.players,
            "share_rating_diff_over": {
                str(t): share for t, share in self.share_rating_diff_over.items()
            },
            "mean_opponent_diff": self.mean_opponent_diff,
            "max_opponent_diff": self.max_opponent_diff,
            "opponent_diff_by_round": list(self.opponent_diff_by_round),
            "sum_pos_jump": self.sum_pos_jump,
            "max_pos_jump": self.max_pos_jump,
            "expectation": self.expectation,
            "games_per_tournament": self.games_per_tournament,
            "calendar": self.calendar.to_json(),
            "top": self.top,
            "top_rated": [asdict(row) for row in self.top_rated],
            "score_by_rank": [asdict(row) for row in self.score_by_rank],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Measures:
        return cls(
            tournaments=data["tournaments"],
            players=data["players"],
            share_rating_diff_over={int(t): s for t, s in data["share_rating_diff_over"].items()},
            mean_opponent_diff=data["mean_opponent_diff"],
            max_opponent_diff=data["max_opponent_diff"],
            opponent_diff_by_round=tuple(data["opponent_diff_by_round"]),
            sum_pos_jump=data["sum_pos_jump"],
            max_pos_jump=data["max_pos_jump"],
            expectation=data["expectation"],
            games_per_tournament=data["games_per_tournament"],
            calendar=Calendar.from_json(data["calendar"]),
            top=data["top"],
            top_rated=tuple(TopRated(**row) for row in data["top_rated"]),
            score_by_rank=tuple(RankScore(**row) for row in data["score_by_rank"]),
        )


@dataclass(frozen=True, slots=True)
class LabReport:
    """A run's settings and its measures."""

    field: str
    """The field's name (a stage's entrants, ``model1:432`` …)."""
    format: LabFormat
    qualify: str | None
    """The qualification rule as ``top:K`` … (:attr:`.formats.Qualification.text`), or None."""
    seed: str
    form_sd: float
    """σ of the players' form (:mod:`.results`)."""
    measures: Measures

    def to_json(self) -> dict[str, object]:
        """The report as one flat JSON object: the settings, then the measures."""
        return {
            "field": self.field,
            "format": self.format.to_json(),
            "qualify": self.qualify,
            "seed": self.seed,
            "form_sd": self.form_sd,
            **self.measures.to_json(),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LabReport:
        return cls(
            field=data["field"],
            format=format_from_json(data["format"]),
            qualify=data["qualify"],
            seed=data["seed"],
            # Reports made before the players' form was modelled have none: they played at σ 0.
            form_sd=data.get("form_sd", 0.0),
            measures=Measures.from_json(data),
        )


def _round(x: float, places: int = 6) -> float:
    return round(x, places)


def measure(tally: Tally, ratings: Sequence[int], with_qualification: bool) -> Measures:
    """The measures of ``tally``, whose players are rated ``ratings`` (see :mod:`.measures`)."""
    n, count = tally.players, max(tally.tournaments, 1)
    means = [s / 2 / count for s in tally.score]
    rows = []
    for p in range(n):
        variance = max(0.0, tally.score_sq[p] / 4 / count - means[p] ** 2)
        rows.append(
            RankScore(
                rank=p + 1,
                rating=ratings[p],
                mean=_round(means[p], 4),
                sd=_round(math.sqrt(variance * count / (count - 1)) if count > 1 else 0.0, 4),
                elo_expected=_round(tally.expected[p] / MICRO / count, 4),
            )
        )
    jumps = [means[p + 1] - means[p] for p in range(n - 1)]
    positive = [j for j in jumps if j > 0]
    games = max(tally.games, 1)
    by_round = tuple(
        _round(d / g, 2) if g else None
        for d, g in zip(tally.round_diff, tally.round_games, strict=True)
    )
    k = len(tally.finish_top)
    top_rated = tuple(
        TopRated(
            rank=r + 1,
            rating=ratings[r],
            finish_top=_round(tally.finish_top[r] / count, 4),
            qualifies=_round(tally.qualified[r] / count, 4) if with_qualification else None,
        )
        for r in range(k)
    )
    return Measures(
        tournaments=tally.tournaments,
        players=n,
        share_rating_diff_over={
            t: _round(c / games) for t, c in zip(tally.thresholds, tally.over, strict=True)
        },
        mean_opponent_diff=_round(tally.diff_sum / games, 2),
        max_opponent_diff=max((d for d in by_round if d is not None), default=None),
        opponent_diff_by_round=by_round,
        sum_pos_jump=_round(sum(positive), 4),
        max_pos_jump=_round(max(positive, default=0.0), 4),
        expectation=(
            _round(tally.expect_hits / 2 / tally.expect_cases)
            if tally.chronological and tally.expect_cases
            else None
        ),
        games_per_tournament=_round(tally.games / count, 2),
        calendar=(
            Calendar(rounds=tally.rounds)
            if tally.chronological
            else Calendar(games_per_player=tally.games_per_player)
        ),
        top=k,
        top_rated=top_rated,
        score_by_rank=tuple(rows),
    )
