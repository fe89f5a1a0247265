"""API representations of entrants shared by every app's API: the public view of an entrant,
and the fields that take an entrant's details, checked by the engine's field rules."""

from __future__ import annotations

from django.core.validators import MaxLengthValidator, ProhibitNullCharactersValidator
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ErrorDetail
from rest_framework.fields import empty

from apps.silli.entrants import FIELD_CHECKS, LIMITS, MAX_RATING, MIN_RATING

from .fields import problem_message


class PublicEntrantSerializer(serializers.Serializer):
    """An entrant as the public sees it (never an e-mail address)."""

    code = serializers.CharField()
    name = serializers.CharField()
    nation = serializers.CharField()
    rating = serializers.IntegerField(allow_null=True)


# ---------------------------------------------------------------------------
# Entrant details sent to the API, checked by the engine's field rules
# ---------------------------------------------------------------------------


class EntrantTextField(serializers.CharField):
    """A text field checked by the engine's rule for one entrant field (``check``: ``code``,
    ``name``, ``nation``, ``person``, ``email``). The value reaches the rule untrimmed, so a
    tab or a newline is refused rather than cut off. ``optional=True``: may be empty."""

    validators: list  # DRF's property, for the type checker

    def __init__(self, *, check: str, optional: bool = False, **kwargs) -> None:
        kwargs.setdefault("trim_whitespace", False)
        kwargs.setdefault("allow_blank", True)
        kwargs.setdefault("max_length", LIMITS.get(check))
        super().__init__(**kwargs)
        self.check = check
        self.optional = optional or check in ("person", "email")
        # The rule refuses NUL with every other control character, in its own words; the
        # length is the rule's too (the checked value is never longer).
        self.validators = [
            v
            for v in self.validators
            if not isinstance(v, ProhibitNullCharactersValidator | MaxLengthValidator)
        ]

    def run_validation(self, data=empty):
        # Not CharField's: an empty value goes to the rule too, which says what it needs.
        return serializers.Field.run_validation(self, data)

    def to_internal_value(self, data) -> str:
        if isinstance(data, bool) or not isinstance(data, str | int | float):
            self.fail("invalid")
        checked, problems = FIELD_CHECKS[self.check](str(data))
        if self.optional:
            problems = [p for p in problems if p.kind != "required"]
        if problems:
            raise serializers.ValidationError(
                [ErrorDetail(problem_message(p), code=p.kind) for p in problems]
            )
        return str(checked or "")


@extend_schema_field(OpenApiTypes.INT)
class RatingField(serializers.Field):
    """A rating, checked by the engine's rule: a whole number in 0..4000, or null."""

    default_error_messages = {"invalid": _("Send a whole number or null.")}

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("allow_null", True)
        kwargs.setdefault("help_text", f"A whole number in {MIN_RATING}..{MAX_RATING}, or null.")
        super().__init__(**kwargs)

    def to_internal_value(self, data) -> int | None:
        if isinstance(data, bool) or not isinstance(data, str | int):
            self.fail("invalid")
        checked, problems = FIELD_CHECKS["rating"](data)
        if problems:
            raise serializers.ValidationError(
                [ErrorDetail(problem_message(p), code=p.kind) for p in problems]
            )
        return checked if isinstance(checked, int) else None

    def to_representation(self, value) -> int | None:
        return value


class EntrantDetailsSerializer(serializers.Serializer):
    """An entrant's details as the API takes them (adding one; with ``partial=True``,
    changing some). The code may be left out: the next free code E000001 … is made."""

    code = EntrantTextField(
        check="code",
        optional=True,
        required=False,
        help_text="The entrant's key in the tournament (letters, digits, '.', '_', '-'); "
        "left out or empty: one is made (E000001, …). It cannot change later.",
    )
    name = EntrantTextField(check="name", help_text="Not beginning with =, +, - or @.")
    nation = EntrantTextField(check="nation", help_text="A FIDE federation code, e.g. ITA.")
    rating = RatingField(required=False)
    person = EntrantTextField(
        check="person",
        required=False,
        help_text="Entries of one person share it (never in one group); empty: the code.",
    )
    email = EntrantTextField(check="email", required=False, help_text="Never shown publicly.")
