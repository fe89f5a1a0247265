"""How the API describes the format lab: the request, and a run's answer.

A run's candidates and reports are typed values (:mod:`.candidates`,
:class:`apps.silli.lab.LabReport`); their schema is made from those dataclasses
(:func:`dataclass_fields`), so it follows what the API answers. The request is described by
hand: it is read loosely (numbers as text, values left out) and checked by the action, which
lists every problem.
"""

from __future__ import annotations

import dataclasses
import types
import typing
from collections.abc import Mapping
from enum import Enum
from typing import Any, Literal, Union

from drf_spectacular.utils import PolymorphicProxySerializer, inline_serializer
from rest_framework import serializers

from apps.silli.formats import Format
from apps.silli.lab import LabReport
from apps.silli.lab.formats import LAB_FORMATS
from apps.silli.lab.report import Measures
from apps.stages.models import (
    GAMES_MAX,
    GAMES_MIN,
    GROUP_MAX,
    GROUP_MIN,
    SWISS_ROUNDS_MAX,
    SWISS_ROUNDS_MIN,
)

from ..models import LabRun
from .candidates import ACCELERATIONS, CANDIDATES, QUALIFY_RULES
from .runs import (
    DEFAULT_TOURNAMENTS,
    MAX_CANDIDATES,
    MAX_TOURNAMENTS,
    MIN_CANDIDATES,
    MIN_TOURNAMENTS,
)

# ---------------------------------------------------------------------------
# Fields from a dataclass
# ---------------------------------------------------------------------------

_PLAIN: dict[type, type[serializers.Field]] = {
    bool: serializers.BooleanField,
    int: serializers.IntegerField,
    float: serializers.FloatField,
    str: serializers.CharField,
}


def _field(hint: Any, **options: Any) -> serializers.Field:
    """The serializer field of a value of type ``hint``."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (Union, types.UnionType) and type(None) in args:
        (present,) = (a for a in args if a is not type(None))
        return _field(present, allow_null=True, **options)
    if origin is Literal:
        return _one_of(list(args), **options)
    if origin in (list, tuple):
        if dataclasses.is_dataclass(args[0]):
            return _nested(args[0], many=True, **options)
        return serializers.ListField(child=_field(args[0]), **options)
    if origin in (dict, Mapping):
        return serializers.DictField(child=_field(args[1]), **options)
    if dataclasses.is_dataclass(hint):
        return _nested(hint, **options)
    if isinstance(hint, type) and issubclass(hint, Enum):
        return _one_of([m.value for m in hint], **options)
    return _PLAIN[hint](**options)


def _one_of(values: list[str], **options: Any) -> serializers.Field:
    """Text, one of ``values``. (Not a choice: the schema would make an enumeration of it,
    whose name the same field names in other components, with other values, already use.)"""
    return serializers.CharField(help_text=f"One of: {', '.join(values)}.", **options)


def _nested(cls: Any, **options: Any) -> serializers.Serializer:
    return inline_serializer(f"Lab{cls.__name__}", dataclass_fields(cls), **options)


def dataclass_fields(cls: Any, *, skip: tuple[str, ...] = ()) -> dict[str, serializers.Field]:
    """The serializer fields of a dataclass's JSON, one a field of the dataclass; a nested
    dataclass is a component of its own. A field whose default is None may be left out (as
    :class:`~apps.silli.lab.report.Calendar` leaves out the one it does not use)."""
    hints = typing.get_type_hints(cls)
    return {
        f.name: _field(hints[f.name], required=f.default is not None)
        for f in dataclasses.fields(cls)
        if f.name not in skip
    }


# ---------------------------------------------------------------------------
# The answer: a run, its candidates and reports
# ---------------------------------------------------------------------------


def _candidate(cls: Any) -> serializers.Serializer:
    return inline_serializer(
        f"Lab{cls.__name__}",
        {
            "format": serializers.CharField(help_text=f"Always {cls.kind.value}."),
            **dataclass_fields(cls, skip=("qualifying",)),
            "qualify_rule": serializers.CharField(
                allow_blank=True, help_text="top_per_group, top_overall or empty (nobody)."
            ),
            "qualify_value": serializers.CharField(
                allow_null=True, help_text="Places, or a percentage; null without a rule."
            ),
            "qualify_relative": serializers.BooleanField(),
            "label": serializers.CharField(help_text="The candidate in words."),
        },
    )


def _format(cls: Any) -> serializers.Serializer:
    return inline_serializer(
        f"Lab{cls.__name__}",
        {
            "name": serializers.CharField(help_text=f"Always {cls.kind.value}."),
            **dataclass_fields(cls),
        },
    )


CandidateSerializer = PolymorphicProxySerializer(
    component_name="LabRunCandidate",
    serializers=[_candidate(cls) for cls in CANDIDATES.values()],
    resource_type_field_name=None,
    many=True,
    help_text="Each candidate's settings and label.",
)

ReportSerializer = inline_serializer(
    "LabReport",
    {
        **dataclass_fields(LabReport, skip=("format", "measures")),
        "format": PolymorphicProxySerializer(
            component_name="LabFormat",
            serializers=[_format(cls) for cls in LAB_FORMATS.values()],
            resource_type_field_name=None,
        ),
        **dataclass_fields(Measures),
    },
    many=True,
    allow_null=True,
    help_text="Each candidate's report once the run succeeded (else null): the run's settings "
    "and its measures (docs/format-lab.md).",
)

LabRunSerializer = inline_serializer(
    "LabRun",
    {
        "id": serializers.IntegerField(),
        "stage": serializers.IntegerField(),
        "seed": serializers.CharField(),
        "tournaments": serializers.IntegerField(),
        "status": serializers.ChoiceField(LabRun.Status.choices),
        "status_display": serializers.CharField(),
        "done": serializers.IntegerField(help_text="Tournaments simulated, all candidates."),
        "total": serializers.IntegerField(),
        "percent": serializers.IntegerField(),
        "error": serializers.CharField(),
        "finished": serializers.BooleanField(),
        "unrated": serializers.IntegerField(
            help_text="Entrants without a rating, played at the field's lowest rating."
        ),
        "form_sd": serializers.FloatField(
            help_text="σ of a player's form in each simulated tournament (rating points); "
            "the results then follow the Elo expectation of the players' strengths."
        ),
        "candidates": CandidateSerializer,
        "results": ReportSerializer,
        "page_url": serializers.CharField(),
    },
)


# ---------------------------------------------------------------------------
# The request
# ---------------------------------------------------------------------------


class LabCandidateSerializer(serializers.Serializer):
    """One candidate format (documentation: the action checks the values)."""

    format = serializers.ChoiceField([f.value for f in Format])
    group_size = serializers.IntegerField(
        required=False,
        help_text=f"silli and round_robin: the smallest group ({GROUP_MIN}–{GROUP_MAX}).",
    )
    games_per_player = serializers.IntegerField(
        required=False, help_text=f"silli: games per player (even, {GAMES_MIN}–{GAMES_MAX})."
    )
    balance_ratings = serializers.BooleanField(required=False, help_text="silli division.")
    double_round_robin = serializers.BooleanField(required=False)
    rounds = serializers.IntegerField(
        required=False,
        help_text=f"swiss: rounds ({SWISS_ROUNDS_MIN}–{SWISS_ROUNDS_MAX}, fewer than the players).",
    )
    acceleration = serializers.ChoiceField(list(ACCELERATIONS), required=False)
    qualify_rule = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text=f"Who goes on, if any: {' or '.join(QUALIFY_RULES)} (empty: nobody).",
    )
    qualify_value = serializers.DecimalField(
        max_digits=7, decimal_places=3, required=False, help_text="places, or a percentage."
    )
    qualify_relative = serializers.BooleanField(
        required=False, help_text="qualify_value is a percentage."
    )


class LabRunRequestSerializer(serializers.Serializer):
    candidates = LabCandidateSerializer(
        many=True, help_text=f"{MIN_CANDIDATES} to {MAX_CANDIDATES} candidate formats."
    )
    tournaments = serializers.IntegerField(
        required=False,
        help_text=f"Simulated tournaments per candidate ({MIN_TOURNAMENTS}–{MAX_TOURNAMENTS}, "
        f"default {DEFAULT_TOURNAMENTS}).",
    )
    seed = serializers.CharField(
        required=False, allow_blank=True, help_text="Empty or left out: one is generated."
    )
