"""Registration: importing entrants (all-or-nothing, every bad row listed) and exporting them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import record
from apps.core.bulk import insert_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.entrants import EntrantCsvError, RowError, entrants_csv, parse_entrant_rows

from .models import Entrant, StageEntry


@dataclass(frozen=True)
class ImportPreview:
    """What an import would add: the entrants, and per nation how many."""

    entrants: list[EngineEntrant]

    @property
    def count(self) -> int:
        return len(self.entrants)

    def nations(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for e in self.entrants:
            counts[e.nation] = counts.get(e.nation, 0) + 1
        return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))

    def multi_entry_persons(self) -> int:
        persons: dict[str, int] = {}
        for e in self.entrants:
            persons[e.person] = persons.get(e.person, 0) + 1
        return sum(1 for k in persons.values() if k > 1)


def _bad_rows(exc: EntrantCsvError) -> ActionError:
    count = len(exc.errors)
    return ActionError(
        ErrorCode.BAD_ROWS,
        ngettext(
            "The file has %(count)s bad row; nothing was imported. Correct it and import the "
            "whole file again.",
            "The file has %(count)s bad rows; nothing was imported. Correct them and import the "
            "whole file again.",
            count,
        )
        % {"count": count},
        [{"line": e.line, "message": e.message} for e in exc.errors],
    )


def preview_import(stage, text: str) -> ImportPreview:
    """Parse and check a CSV against the stage's tournament without writing anything."""
    if stage.status != stage.Status.DRAFT:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Registration for this stage is closed; reopen it before importing."),
        )
    try:
        rows = parse_entrant_rows(text)
    except EntrantCsvError as exc:
        raise _bad_rows(exc) from exc
    # The tournament's codes in one indexed read: a list of 100,000 codes to match is slower.
    registered = set(
        Entrant.objects.filter(tournament_id=stage.tournament_id).values_list("code", flat=True)
    )
    taken = {e.code for _, e in rows} & registered
    if taken:
        errors = [
            RowError(
                line, _("code %(code)r is already registered in this tournament") % {"code": e.code}
            )
            for line, e in rows
            if e.code in taken
        ]
        raise _bad_rows(EntrantCsvError(errors))
    return ImportPreview([e for _, e in rows])


def import_entrants(user, stage, text: str) -> ImportPreview:
    """Add every entrant of the CSV to the tournament and to ``stage``, or none of them."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        locked = type(stage).objects.select_for_update().get(pk=stage.pk)
        preview = preview_import(locked, text)
        tournament = locked.tournament_id
        insert_rows(
            Entrant,
            ("tournament_id", "code", "name", "nation", "rating", "person", "email"),
            (
                (tournament, e.code, e.name, e.nation, e.rating, e.person, e.email)
                for e in preview.entrants
            ),
        )
        ids = dict(Entrant.objects.filter(tournament_id=tournament).values_list("code", "id"))
        insert_rows(
            StageEntry,
            ("stage_id", "entrant_id"),
            ((locked.pk, ids[e.code]) for e in preview.entrants),
        )
        record("entrants.imported", user, stage=locked, count=preview.count)
    return preview


def engine_entrants(stage) -> list[EngineEntrant]:
    """The stage's entrants as the engine sees them, in code order."""
    rows = Entrant.objects.filter(stage_entries__stage=stage)
    return [
        EngineEntrant(*row)
        for row in rows.order_by("code").values_list(
            "code", "name", "nation", "rating", "person", "email"
        )
    ]


def export_entrants_csv(stage) -> str:
    return entrants_csv(engine_entrants(stage))
