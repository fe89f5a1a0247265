"""Who may register for a stage: its eligibility rules, checked one by one.

A stage's rules are its settings of the block "Registration by players"
(``apps/stages/settings_catalog.py``): a rating band on a named, dated rating list, the
federations allowed, whether unrated players may register. Each rule gives a :class:`Check`:
passed or not, with a sentence saying so. Registration refuses a request that fails any
(every failed rule listed); the organizers' requests page shows them all.

The rating checked is the one on the stage's rating list (:func:`stage_rating_list`: the list
applied to the stage, else the imported list the setting ``rating_list`` names) for the
player's ID there; a player whose ID is not on it counts as unrated. Only when the office holds
no such list is the rating the player gives checked (the page says so).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from django.utils.formats import date_format
from django.utils.translation import gettext as _

from apps.core.choices import TextChoices
from apps.ratinglists.models import RatingList, RatingListEntry, StageRatingList
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


# A list named with its date, as a list is shown: "ICCF list 2026/4 (2026-04-01)".
_NAMED_WITH_DATE = re.compile(r"^(?P<name>.+?)\s*\((?P<date>\d{4}-\d{2}-\d{2})\)$")


def stage_rating_list(stage: Stage) -> RatingList | None:
    """The rating list the stage's band is on: the list applied to the stage
    (``StageRatingList``), else the imported list the setting ``rating_list`` names (its name,
    any case, or "name (YYYY-MM-DD)"; of several dates the newest); None when the office holds
    no such list (the rating the player gives is checked then)."""
    used = StageRatingList.objects.filter(stage=stage).select_related("rating_list").first()
    if used is not None:
        return used.rating_list
    named = (stage.rating_list or "").strip()
    if not named:
        return None
    lists = RatingList.objects.order_by("-list_date", "-id")
    dated = _NAMED_WITH_DATE.match(named)
    if dated:
        try:
            day = date.fromisoformat(dated["date"])
        except ValueError:
            day = None
        if day is not None:
            found = lists.filter(name__iexact=dated["name"], list_date=day).first()
            if found is not None:
                return found
    return lists.filter(name__iexact=named).first()


def list_label(rating_list: RatingList) -> str:
    """The list by name and date, as refusals name it: "ICCF list 2026/4 of 2026-04-01"."""
    return _("%(name)s of %(date)s") % {
        "name": rating_list.name,
        "date": rating_list.list_date.isoformat(),
    }


@dataclass(frozen=True)
class Rated:
    """The rating a request is checked by: from ``rating_list`` (None: the rating the player
    gave, the stage having no list), and the list's line for the player's ID (None: not on
    it)."""

    rating: int | None
    rating_list: RatingList | None = None
    entry: RatingListEntry | None = None
    person: str = ""


_LOOK_UP: Any = object()


def rated(
    stage: Stage,
    *,
    rating_list_id: str,
    rating: int | None,
    rating_list: RatingList | None = _LOOK_UP,
) -> Rated:
    """The rating checked for a player of ID ``rating_list_id`` who gave ``rating``: the one
    on the stage's list (``rating_list``, looked up when not given), or, without a list, the
    one given."""
    if rating_list is _LOOK_UP:
        rating_list = stage_rating_list(stage)
    if rating_list is None:
        return Rated(rating)
    person = (rating_list_id or "").strip()
    entry = (
        RatingListEntry.objects.filter(rating_list=rating_list, person=person).first()
        if person
        else None
    )
    return Rated(entry.rating if entry else None, rating_list, entry, person)


def _unrated_refusal(stage: Stage, found: Rated) -> str:
    if found.rating_list is None:
        return _("Unrated players may not register for this stage: give your rating%(on)s.") % {
            "on": _on_list(stage)
        }
    names = {"list": list_label(found.rating_list), "id": found.person}
    if not found.person:
        return (
            _(
                "Give your ID on %(list)s: a player not on it counts as unrated, and unrated "
                "players may not register for this stage."
            )
            % names
        )
    if found.entry is None:
        return (
            _(
                "ID %(id)s is not on %(list)s, so it counts as unrated: unrated players may "
                "not register for this stage."
            )
            % names
        )
    return (
        _("%(list)s has no rating for ID %(id)s: unrated players may not register for this stage.")
        % names
    )


def _on_list(stage: Stage, rating_list: RatingList | None = None) -> str:
    if rating_list is not None:
        return _(" on %(list)s") % {"list": list_label(rating_list)}
    return _(" on %(list)s") % {"list": stage.rating_list} if stage.rating_list else ""


def eligibility(
    stage: Stage,
    *,
    federation: str,
    rating: int | None,
    rating_list_id: str = "",
    rating_list: RatingList | None = _LOOK_UP,
) -> list[Check]:
    """The stage's rules applied to a player of ``federation`` with ID ``rating_list_id``
    who gave ``rating`` (None: unrated), in the order above; a rule the stage does not set
    gives no check. The rating checked is the one on the stage's list (:func:`rated`)."""
    found = rated(stage, rating_list_id=rating_list_id, rating=rating, rating_list=rating_list)
    rating = found.rating
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
    on_list = _on_list(stage, found.rating_list)
    given = (
        _("the rating given is %(rating)s")
        if found.rating_list is None
        else _("the rating there for ID %(id)s is %(rating)s")
    )
    if rating is None:
        if not stage.unrated_allowed:
            checks.append(Check(Rule.UNRATED, False, _unrated_refusal(stage, found)))
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
                "Players rated below %(limit)s%(on)s may not register for this stage; %(given)s."
            )
        )
        names = {"rating": rating, "limit": stage.rating_min, "on": on_list}
        checks.append(
            Check(
                Rule.RATING_MIN,
                low,
                message % {**names, "given": given % {"rating": rating, "id": found.person}},
            )
        )
    if stage.rating_max is not None:
        high = rating <= stage.rating_max
        message = (
            _("Rating %(rating)s is at most %(limit)s%(on)s.")
            if high
            else _(
                "Players rated above %(limit)s%(on)s may not register for this stage; %(given)s."
            )
        )
        names = {"rating": rating, "limit": stage.rating_max, "on": on_list}
        checks.append(
            Check(
                Rule.RATING_MAX,
                high,
                message % {**names, "given": given % {"rating": rating, "id": found.person}},
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


def rules_summary(stage: Stage, rating_list: RatingList | None = _LOOK_UP) -> list[str]:
    """The stage's rules in sentences, for the registration page and the requests page."""
    if rating_list is _LOOK_UP:
        rating_list = stage_rating_list(stage)
    lines: list[str] = []
    on_list = _on_list(stage, rating_list)
    low, high = stage.rating_min, stage.rating_max
    if low is not None and high is not None:
        lines.append(
            _("Rating from %(low)s to %(high)s%(on)s.") % {"low": low, "high": high, "on": on_list}
        )
    elif low is not None:
        lines.append(_("Rating at least %(low)s%(on)s.") % {"low": low, "on": on_list})
    elif high is not None:
        lines.append(_("Rating at most %(high)s%(on)s.") % {"high": high, "on": on_list})
    elif stage.rating_list and rating_list is None:
        lines.append(_("Ratings are on %(list)s.") % {"list": stage.rating_list})
    if rating_list is not None:
        lines.append(
            _(
                "The rating checked is the one on %(list)s for your ID there (the rating you "
                "type is not used); a player not on the list counts as unrated."
            )
            % {"list": list_label(rating_list)}
        )
    elif low is not None or high is not None:
        lines.append(
            _(
                "The office does not hold this rating list: the rating you give is checked, "
                "and the organizers may check it against the list."
            )
        )
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
