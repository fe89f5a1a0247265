"""The format lab: simulating a stage's format many times to see how fair it plays.

Pure Python (no Django, no numpy), typed and deterministic: a run is a function of the field,
the format, the seed and the number of tournaments. The parts:

* :mod:`~apps.silli.lab.fields` — the field: a stage's entrants or ``model1:N``,
  ``model2:N`` (Milvang's models) and ``linear:N:LOW:HIGH``;
* :mod:`~apps.silli.lab.results` — results from the Elo expectation with a draw model that
  keeps it;
* :mod:`~apps.silli.lab.swiss` — a fast approximation of the Dutch Swiss system, and the
  exact engine (:mod:`apps.silli.swiss.dutch`) fed round by round;
* :mod:`~apps.silli.lab.formats` — Silli stages and round robins (by the product's own
  division and group draw) and Swiss tournaments, one simulated tournament each;
* :mod:`~apps.silli.lab.measures` — the measures of O. Milvang's "Accelerated pairing";
* :mod:`~apps.silli.lab.report` — a run's report: its settings and measures, typed, and their
  JSON;
* :mod:`~apps.silli.lab.engine` — a run and its report.
"""

from .engine import LabConfig, run, simulate
from .fields import Field, FieldError, entrants_field, parse_field
from .formats import (
    FormatError,
    LabFormat,
    Qualification,
    RoundRobinFormat,
    SilliFormat,
    SwissFormat,
    parse_qualification,
)
from .report import LabReport

__all__ = [
    "Field",
    "FieldError",
    "FormatError",
    "LabConfig",
    "LabFormat",
    "LabReport",
    "Qualification",
    "RoundRobinFormat",
    "SilliFormat",
    "SwissFormat",
    "entrants_field",
    "parse_field",
    "parse_qualification",
    "run",
    "simulate",
]
