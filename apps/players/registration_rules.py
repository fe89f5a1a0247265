"""Who may register for a stage: its eligibility rules, checked one by one.

A stage's rules are its settings of the block "Registration by players"
(``apps/stages/settings_catalog.py``): a rating band on a named, dated rating list, the
federations allowed, whether unrated players may register. Each rule gives a :class:`Check`:
passed or not, with a sentence saying so. Registration refuses a request that fails any
(every failed rule listed); the organizers' requests page shows them all.

The rating checked is the one the player gives for the stage's rating list (the list is named
as text: the office does not hold the lists yet).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.utils.formats import date_format
from django.utils.translation import gettext as _

from apps.core.choices import TextChoices
from apps.stages.models import Stage
from apps.stages.settings_catalog import federation_codes


class Rule(TextChoices):
    FEDERATION = "federation", _("federation")
    UNRATED = "unrated", _("unrated players")
    RATING_MIN = "rating_min", _("lowest rating")
    RATING_MAX = "rating_max", _("highest rating")


@dataclass(frozen=True)
class Check:
    """One rule applied to one request: ``passed``, and the sentence that says how."""

    rule: Rule
    passed: bool
    message: str


def _on_list(stage: Stage) -> str:
    return _(" on %(list)s") % {"list": stage.rating_list} if stage.rating_list else ""


def eligibility(stage: Stage, *, federation: str, rating: int | None) -> list[Check]:
    """The stage's rules applied to a player of ``federation`` rated ``rating`` (None:
    unrated), in the order above; a rule the stage does not set gives no check."""
    checks: list[Check] = []
    allowed = federation_codes(stage.federations_allowed)
    if allowed:
        listed = ", ".join(allowed)
        if federation in allowed:
            message = _("Federation %(fed)s is among those allowed (%(allowed)s).")
        else:
            message = _(
                "Only players of the federations %(allowed)s may register; %(fed)s is not one "
                "of them."
            )
        checks.append(
            Check(
                Rule.FEDERATION,
                federation in allowed,
                message % {"fed": federation, "allowed": listed},
            )
        )
    on_list = _on_list(stage)
    if rating is None:
        if not stage.unrated_allowed:
            checks.append(
                Check(
                    Rule.UNRATED,
                    False,
                    _("Unrated players may not register for this stage: give your rating%(on)s.")
                    % {"on": on_list},
                )
            )
        elif stage.rating_min is not None or stage.rating_max is not None:
            checks.append(
                Check(
                    Rule.UNRATED,
                    True,
                    _("Unrated: unrated players may register, outside the rating band."),
                )
            )
        return checks
    if stage.rating_min is not None:
        low = rating >= stage.rating_min
        message = (
            _("Rating %(rating)s is at least %(limit)s%(on)s.")
            if low
            else _(
                "Players rated below %(limit)s%(on)s may not register for this stage; the "
                "rating given is %(rating)s."
            )
        )
        checks.append(
            Check(
                Rule.RATING_MIN,
                low,
                message % {"rating": rating, "limit": stage.rating_min, "on": on_list},
            )
        )
    if stage.rating_max is not None:
        high = rating <= stage.rating_max
        message = (
            _("Rating %(rating)s is at most %(limit)s%(on)s.")
            if high
            else _(
                "Players rated above %(limit)s%(on)s may not register for this stage; the "
                "rating given is %(rating)s."
            )
        )
        checks.append(
            Check(
                Rule.RATING_MAX,
                high,
                message % {"rating": rating, "limit": stage.rating_max, "on": on_list},
            )
        )
    return checks


def failed(checks: list[Check]) -> list[Check]:
    return [check for check in checks if not check.passed]


def closed_reason(stage: Stage, today: date) -> str:
    """Why players may not register for (or withdraw from) ``stage`` on ``today`` now; empty
    while they may."""
    if not stage.open_registration:
        return _("This stage does not take registrations from players.")
    if stage.status != Stage.Status.DRAFT:
        return _("Registration for this stage is closed.")
    if stage.registration_closes_on is not None and today > stage.registration_closes_on:
        return _("Registration for this stage closed on %(day)s.") % {
            "day": date_format(stage.registration_closes_on)
        }
    return ""


def rules_summary(stage: Stage) -> list[str]:
    """The stage's rules in sentences, for the registration page and the requests page."""
    lines: list[str] = []
    on_list = _on_list(stage)
    low, high = stage.rating_min, stage.rating_max
    if low is not None and high is not None:
        lines.append(
            _("Rating from %(low)s to %(high)s%(on)s.") % {"low": low, "high": high, "on": on_list}
        )
    elif low is not None:
        lines.append(_("Rating at least %(low)s%(on)s.") % {"low": low, "on": on_list})
    elif high is not None:
        lines.append(_("Rating at most %(high)s%(on)s.") % {"high": high, "on": on_list})
    elif stage.rating_list:
        lines.append(_("Ratings are on %(list)s.") % {"list": stage.rating_list})
    lines.append(
        _("Unrated players may register.")
        if stage.unrated_allowed
        else _("Unrated players may not register.")
    )
    allowed = federation_codes(stage.federations_allowed)
    if allowed:
        lines.append(_("Federations allowed: %(list)s.") % {"list": ", ".join(allowed)})
    if stage.max_field is not None:
        lines.append(
            _(
                "At most %(count)s players; later requests go to the reserve list in order of "
                "registration."
            )
            % {"count": stage.max_field}
        )
    if stage.registration_closes_on is not None:
        lines.append(
            _("Registration and withdrawals until %(day)s.")
            % {"day": date_format(stage.registration_closes_on)}
        )
    return lines
