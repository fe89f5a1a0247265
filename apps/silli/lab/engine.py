"""A run of the lab: N tournaments of one field in one format, and their measures.

:func:`simulate` counts tournaments ``start..stop-1`` into a :class:`~.measures.Tally`;
:func:`finish` makes the report of a tally (:class:`~.report.LabReport`) and :func:`run` does
the whole run. Each tournament depends only on (seed, index) and tallies merge exactly, so
``run`` gives the same report however the indices are split (the ``format_lab`` command
spreads them over processes).
"""

from __future__ import annotations

from dataclasses import dataclass

from .fields import Field
from .formats import LabFormat, Qualification, play, tournament_seed
from .measures import THRESHOLDS, Tally, standings
from .report import LabReport, measure
from .results import FORM_SD, check_form_sd

DEFAULT_TOP = 10


@dataclass(frozen=True, slots=True)
class LabConfig:
    """Everything a run depends on besides the number of tournaments."""

    field: Field
    format: LabFormat
    seed: str
    qualification: Qualification | None = None
    top: int = DEFAULT_TOP
    thresholds: tuple[int, ...] = THRESHOLDS
    form_sd: float = FORM_SD
    """σ of the players' form (:mod:`.results`); 0 plays every player at their rating."""

    def __post_init__(self) -> None:
        if self.top < 0:
            raise ValueError("top must not be negative")
        check_form_sd(self.form_sd)

    def new_tally(self) -> Tally:
        return Tally(len(self.field), self.top, self.thresholds)


def simulate(config: LabConfig, start: int, stop: int) -> Tally:
    """Play tournaments ``start`` to ``stop - 1`` and count them."""
    tally = config.new_tally()
    ratings = config.field.ratings
    for index in range(start, stop):
        played = play(config.field, config.format, config.seed, index, config.form_sd)
        if config.top or config.qualification is not None:
            finish, qualified = standings(
                played,
                config.format.tiebreak,
                config.top,
                config.qualification,
                tournament_seed(config.seed, index),
            )
        else:
            finish, qualified = set(), None
        tally.add(played, ratings, finish, qualified)
    return tally


def finish(config: LabConfig, tally: Tally) -> LabReport:
    """The report of a finished tally: the settings, then the measures."""
    return LabReport(
        field=config.field.name,
        format=config.format,
        qualify=config.qualification.text if config.qualification else None,
        seed=config.seed,
        form_sd=config.form_sd,
        measures=measure(tally, config.field.ratings, config.qualification is not None),
    )


def run(config: LabConfig, tournaments: int) -> LabReport:
    """The report of ``tournaments`` tournaments (indices 0..tournaments-1), in one process."""
    if tournaments < 1:
        raise ValueError("at least one tournament")
    return finish(config, simulate(config, 0, tournaments))
