"""Rating reports and title-norm figures of a group or a stage, as rows for pages, CSV, the
API and other apps (a player's profile).

The figures come from the pure ``apps.ratings`` (docs/ratings.md): FIDE's rules by default,
any :class:`~apps.ratings.report.RatingSystem` when given. The input is read by
``apps.standings.rated``: the entrants' ratings (``Entrant.rating``, before the event) and
the group's finished games. The rated games a player had before the event (for K) come from
the rating list the stage used (:class:`~apps.ratinglists.models.StageRatingList`, the
list's ``games`` for the entrant's person); a player the list does not name, and every
player of a stage that used no list, counts 30 (K by the rating alone).

The functions other apps call:

* :func:`group_rating_report` and :func:`stage_rating_report` → :class:`ReportRow` list;
* :func:`norm_figures` (a group) and :func:`stage_norm_figures` → ``NormRow`` list
  (``apps.standings.rated``), each with a :class:`~apps.ratings.norms.NormFigure` per level;
* :func:`report_row_json`, :func:`norm_row_json`, :func:`report_csv`: their one JSON and
  CSV shape.
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from apps.core.csvfiles import safe_writer
from apps.groups.models import Group
from apps.ratings.norms import points_text
from apps.ratings.report import FIDE, RatingLine, RatingSystem, rating_report
from apps.stages.models import Stage
from apps.standings.rated import (
    DEFAULT_RATED_GAMES,
    UNOFFICIAL,
    GroupPlayer,
    NormRow,
    group_norm_figures,
    group_players,
    levels_named,
)

from .models import RatingListEntry, StageRatingList

__all__ = [
    "UNOFFICIAL",
    "NormRow",
    "ReportRow",
    "group_rating_report",
    "norm_figures",
    "norm_row_json",
    "report_csv",
    "report_row_json",
    "stage_norm_figures",
    "stage_rating_report",
]

EXPECTED_PLACES = Decimal("0.01")
"""Pages, CSV and the API show the expected score to two decimals (computed unrounded)."""


@dataclass(frozen=True)
class ReportRow:
    """One player's line of a rating report, with who they are."""

    who: GroupPlayer
    line: RatingLine

    @property
    def rating(self) -> int | None:
        return self.line.rating

    @property
    def games(self) -> int:
        return len(self.line.games)

    @property
    def score(self) -> Fraction:
        return self.line.score

    @property
    def score_text(self) -> str:
        return points_text(self.line.score)

    @property
    def expected(self) -> Decimal | None:
        """ΣE to two decimals (None: provisional)."""
        if self.line.expected is None:
            return None
        return self.line.expected.quantize(EXPECTED_PLACES, rounding=ROUND_HALF_UP)

    @property
    def k(self) -> int | None:
        return self.line.k

    @property
    def change(self) -> Decimal | None:
        return self.line.change

    @property
    def new_rating(self) -> Decimal | None:
        return self.line.new_rating

    @property
    def provisional(self) -> bool:
        return self.line.provisional


def _list_used(stage: Stage) -> int | None:
    """The id of the rating list the stage used, if any."""
    used = StageRatingList.objects.filter(stage_id=stage.pk)
    return used.values_list("rating_list_id", flat=True).first()


def _rated_games_before(list_id: int | None, people: Iterable[str]) -> dict[str, int]:
    """The rated games each person had before the event, from the list the stage used."""
    if list_id is None:
        return {}
    entries = RatingListEntry.objects.filter(rating_list_id=list_id, person__in=list(people))
    return dict(entries.values_list("person", "games"))


def group_rating_report(group: Group, system: RatingSystem = FIDE) -> list[ReportRow]:
    """The group's rating report, one row per seat in seat order."""
    return _group_report(group, system, _list_used(group.stage))


def _group_report(group: Group, system: RatingSystem, list_id: int | None) -> list[ReportRow]:
    players = group_players(group)
    before = _rated_games_before(list_id, (p.person for p in players))
    if before:
        default = DEFAULT_RATED_GAMES
        players = [
            replace(p, player=replace(p.player, rated_games=before.get(p.person, default)))
            for p in players
        ]
    lines = rating_report([p.player for p in players], system)
    return [ReportRow(p, line) for p, line in zip(players, lines, strict=True)]


def stage_groups(stage: Stage) -> list[Group]:
    """The stage's groups in number order (each knowing its stage)."""
    groups = list(Group.objects.filter(stage=stage).order_by("number"))
    for group in groups:
        group.stage = stage
    return groups


def stage_rating_report(
    stage: Stage, system: RatingSystem = FIDE, groups: Sequence[Group] | None = None
) -> list[ReportRow]:
    """Every group's report (or those of ``groups``, a page of them), group after group:
    each group is rated on its own games."""
    list_id = _list_used(stage)
    return [
        row
        for group in (stage_groups(stage) if groups is None else groups)
        for row in _group_report(group, system, list_id)
    ]


def norm_figures(group: Group, levels: Sequence[str] | None = None) -> list[NormRow]:
    """The group's norm figures at the levels named by code (default every level: GM, SIM,
    IM, CCM, CCE), one row per seat. An unknown code raises :class:`KeyError`."""
    return group_norm_figures(group, levels_named(levels))


def stage_norm_figures(stage: Stage, levels: Sequence[str] | None = None) -> list[NormRow]:
    return [row for group in stage_groups(stage) for row in norm_figures(group, levels)]


# ---------------------------------------------------------------------------
# One JSON and CSV shape
# ---------------------------------------------------------------------------


def _number(value: Decimal | Fraction | None) -> float | None:
    return None if value is None else float(value)


def _who_json(who: GroupPlayer) -> dict:
    return {
        "group": who.group_id,
        "group_number": who.group_number,
        "seat": who.seat,
        "code": who.code,
        "name": who.name,
        "nation": who.nation,
        "person": who.person,
    }


def report_row_json(row: ReportRow) -> dict:
    """One report row as the API gives it."""
    return {
        **_who_json(row.who),
        "rating": row.rating,
        "rated_games_before": row.who.player.rated_games,
        "games": row.games,
        "score": float(row.score),
        "expected": _number(row.expected),
        "k": row.k,
        "change": _number(row.change),
        "new_rating": _number(row.new_rating),
        "provisional": row.provisional,
    }


def norm_row_json(row: NormRow) -> dict:
    """One player's norm figures as the API gives them: one object per level."""
    return {
        **_who_json(row.who),
        "rating": row.who.rating,
        "norms": [
            {
                "level": code,
                "level_rating": figure.level.rating,
                "games": figure.games,
                "score": float(figure.score),
                "expected": float(figure.expected.quantize(Decimal("0.0001"))),
                "requirement": float(figure.requirement),
                "norm": figure.achieved,
                "text": figure.text(),
            }
            for code, figure in row.figures.items()
        ],
    }


REPORT_COLUMNS = (
    "group",
    "seat",
    "code",
    "name",
    "nation",
    "rating",
    "games",
    "score",
    "expected",
    "k",
    "change",
    "new_rating",
    "provisional",
)


def report_csv(rows: Iterable[ReportRow]) -> str:
    """The report as CSV (one row per player; empty cells where a provisional line has
    none)."""
    out = io.StringIO()
    writer = safe_writer(out)
    writer.writerow(REPORT_COLUMNS)
    for row in rows:
        writer.writerow(
            [
                row.who.group_number,
                row.who.seat,
                row.who.code,
                row.who.name,
                row.who.nation,
                "" if row.rating is None else row.rating,
                row.games,
                row.score_text,
                "" if row.expected is None else row.expected,
                "" if row.k is None else row.k,
                "" if row.change is None else row.change,
                "" if row.new_rating is None else row.new_rating,
                int(row.provisional),
            ]
        )
    return out.getvalue()
