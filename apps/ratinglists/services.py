"""The actions of rating lists: importing one (in the request, or as a job for a big file)
and giving a stage's entrants their ratings from one.

Who: staff, users with the right to create tournaments, and the organizers of any
tournament import lists (:func:`can_manage_rating_lists`); a tournament's organizers apply a
list to one of its stages.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer, signed_in
from apps.core.text import lines_with_nul
from apps.entrants.models import Entrant
from apps.entrants.services import require_registration_open
from apps.silli.entrants import RowError, check_text
from apps.stages.models import Stage
from apps.stages.services import locked

from . import tasks
from .importing import Checked, bad_file, check_file, write_list
from .models import RatingList, RatingListEntry, RatingListImportJob, StageRatingList

DEFAULT_JOB_ROWS = 5000
"""Files of more data rows than this are imported by a job (setting RATING_LIST_IMPORT_JOB_ROWS)."""


def job_rows() -> int:
    return int(getattr(settings, "RATING_LIST_IMPORT_JOB_ROWS", DEFAULT_JOB_ROWS))


def data_rows(text: str) -> int:
    """The file's lines after the header (a quick count, for choosing the job)."""
    return max(0, text.count("\n", 0, len(text.rstrip("\n"))))


# ---------------------------------------------------------------------------
# Who
# ---------------------------------------------------------------------------


def can_manage_rating_lists(user: Actor | None) -> bool:
    """Staff, users who may create tournaments, and organizers of any tournament."""
    if not signed_in(user) or not user.is_active:
        return False
    return bool(
        user.is_staff
        or user.has_perm("stages.add_tournament")
        or user.organized_tournaments.exists()
    )


def require_rating_list_manager(user: Actor | None) -> User:
    if not signed_in(user) or not can_manage_rating_lists(user):
        raise ActionError(
            ErrorCode.PERMISSION_DENIED,
            _("Only staff and organizers may import rating lists."),
        )
    return user


# ---------------------------------------------------------------------------
# Importing
# ---------------------------------------------------------------------------


def _checked_details(name: str, list_date: date | None, source: str) -> tuple[str, date, str]:
    problems = []
    name, found = check_text("name", name or "", limit=100, formula=True)
    problems += [f"{_('name')}: {p.message}" for p in found]
    source, found = check_text("source", source or "", limit=200, required=False, formula=True)
    problems += [f"{_('source')}: {p.message}" for p in found]
    if list_date is None:
        problems.append(_("the list's date is missing"))
    if problems or list_date is None:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The rating list's details are not valid: %(problems)s.")
            % {"problems": "; ".join(problems)},
        )
    return name, list_date, source


def _refuse_nul(text: str) -> None:
    nul_lines = lines_with_nul(text)
    if nul_lines:
        raise bad_file(
            [
                RowError(line, _("the row contains the control character U+0000 (NUL)"))
                for line in nul_lines
            ]
        )


@dataclass(frozen=True)
class ImportOutcome:
    """What an import in the request did: the list written (None for a dry run) and the
    preview of the file."""

    rating_list: RatingList | None
    checked: Checked


def import_rating_list(
    user: Actor,
    *,
    name: str,
    list_date: date | None,
    text: str,
    source: str = "",
    dry_run: bool = False,
) -> ImportOutcome:
    """Import a rating list from CSV in the request: all of it, or nothing and every bad row
    (400); a list of the same name and date exists already: 409. ``dry_run`` only checks."""
    user = require_rating_list_manager(user)
    name, checked_date, source = _checked_details(name, list_date, source)
    _refuse_nul(text)
    checked = check_file(text)
    if not checked.good:
        raise bad_file(checked.errors)
    if dry_run:
        return ImportOutcome(None, checked)
    with transaction.atomic():
        rating_list = write_list(
            user, name=name, list_date=checked_date, source=source, text=text, rows=checked.rows
        )
    return ImportOutcome(rating_list, checked)


def start_rating_list_import(
    user: Actor,
    *,
    name: str,
    list_date: date | None,
    text: str,
    source: str = "",
    dry_run: bool = False,
) -> RatingListImportJob:
    """Queue the import of a big list as a job (checked and written by a worker)."""
    user = require_rating_list_manager(user)
    name, checked_date, source = _checked_details(name, list_date, source)
    _refuse_nul(text)
    with transaction.atomic():
        if not dry_run and RatingList.objects.filter(name=name, list_date=checked_date).exists():
            from .importing import same_list_exists

            raise same_list_exists(name, checked_date)
        job = RatingListImportJob.objects.create(
            name=name,
            list_date=checked_date,
            source=source,
            dry_run=dry_run,
            csv=text,
            total_rows=data_rows(text),
            started_by=user,
        )
        if not dry_run:
            record(
                Action.RATING_LIST_IMPORT_STARTED,
                user,
                job=job.pk,
                name=name,
                list_date=checked_date.isoformat(),
                rows=job.total_rows,
            )
        transaction.on_commit(lambda: tasks.run_rating_list_import.delay(job.pk))
    return job


def import_or_start(
    user: Actor,
    *,
    name: str,
    list_date: date | None,
    text: str,
    source: str = "",
    dry_run: bool = False,
) -> ImportOutcome | RatingListImportJob:
    """A file of at most :func:`job_rows` rows is imported in the request, a bigger one by a
    job."""
    if data_rows(text) > job_rows():
        return start_rating_list_import(
            user, name=name, list_date=list_date, text=text, source=source, dry_run=dry_run
        )
    return import_rating_list(
        user, name=name, list_date=list_date, text=text, source=source, dry_run=dry_run
    )


# ---------------------------------------------------------------------------
# Applying a list to a stage
# ---------------------------------------------------------------------------


def apply_rating_list(actor: Actor, stage: Stage, rating_list: RatingList) -> StageRatingList:
    """Give each entrant of ``stage`` the rating ``rating_list`` has for their person
    (``Entrant.person`` is the list's ID), in one UPDATE, and record that the stage uses the
    list. An entrant the list does not name keeps their rating; a person the list names
    without a rating becomes unrated. The tournament's organizers, while the stage's
    registration is open (409 otherwise: the entrant list, ratings included, is frozen)."""
    user = require_organizer(actor, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        require_registration_open(stage)
        listed = RatingListEntry.objects.filter(rating_list=rating_list)
        entrants = Entrant.objects.filter(stage_entries__stage=stage)
        total = entrants.count()
        on_list = entrants.filter(person__in=listed.values("person"))
        matched = on_list.count()
        rating_of = listed.filter(person=OuterRef("person")).values("rating")[:1]
        differs = on_list.annotate(list_rating=Subquery(rating_of)).filter(
            Q(rating__isnull=True, list_rating__isnull=False)
            | Q(rating__isnull=False, list_rating__isnull=True)
            | (Q(rating__isnull=False, list_rating__isnull=False) & ~Q(rating=F("list_rating")))
        )
        updated = Entrant.objects.filter(pk__in=differs.values("pk")).update(
            rating=Subquery(rating_of)
        )
        used, _made = StageRatingList.objects.update_or_create(
            stage=stage,
            defaults={
                "rating_list": rating_list,
                "applied_by": user,
                "applied_at": timezone.now(),
                "updated": updated,
                "matched": matched,
                "missing": total - matched,
            },
        )
        record(
            Action.RATING_LIST_APPLIED,
            user,
            stage=stage,
            rating_list=rating_list.pk,
            name=rating_list.name,
            list_date=rating_list.list_date.isoformat(),
            matched=matched,
            updated=updated,
            missing=total - matched,
        )
    return used
