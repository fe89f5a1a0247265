"""Registration: importing entrants (all-or-nothing, every bad row listed) and exporting them."""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from apps.core.audit import record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.entrants import EntrantCsvError, RowError, entrants_csv, parse_entrant_rows

from .models import Entrant, StageEntry

IMPORT_BATCH = 5000


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
    return ActionError(
        ErrorCode.BAD_ROWS,
        f"The file has {len(exc.errors)} bad row(s); nothing was imported. "
        "Correct them and import the whole file again.",
        [{"line": e.line, "message": e.message} for e in exc.errors],
    )


def preview_import(stage, text: str) -> ImportPreview:
    """Parse and check a CSV against the stage's tournament without writing anything."""
    try:
        rows = parse_entrant_rows(text)
    except EntrantCsvError as exc:
        raise _bad_rows(exc) from exc
    taken = set(
        Entrant.objects.filter(
            tournament=stage.tournament, code__in=[e.code for _, e in rows]
        ).values_list("code", flat=True)
    )
    if taken:
        errors = [
            RowError(line, f"code {e.code!r} is already registered in this tournament")
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
        if locked.status != locked.Status.DRAFT:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                "Registration for this stage is closed; reopen it before importing.",
            )
        preview = preview_import(locked, text)
        rows = [
            Entrant(
                tournament_id=locked.tournament_id,
                code=e.code,
                name=e.name,
                nation=e.nation,
                rating=e.rating,
                person=e.person,
                email=e.email,
            )
            for e in preview.entrants
        ]
        created = Entrant.objects.bulk_create(rows, batch_size=IMPORT_BATCH)
        if any(e.pk is None for e in created):
            codes = [e.code for e in preview.entrants]
            created = list(
                Entrant.objects.filter(tournament_id=locked.tournament_id, code__in=codes)
            )
        StageEntry.objects.bulk_create(
            [StageEntry(stage=locked, entrant=e) for e in created], batch_size=IMPORT_BATCH
        )
        record("entrants.imported", user, stage=locked, count=preview.count)
    return preview


def engine_entrants(stage, codes: list[str] | None = None) -> list[EngineEntrant]:
    """The stage's entrants (or those of ``codes``) as the engine sees them, in code order."""
    rows = Entrant.objects.filter(stage_entries__stage=stage)
    if codes is not None:
        rows = rows.filter(code__in=codes)
    return [
        EngineEntrant(*row)
        for row in rows.order_by("code").values_list(
            "code", "name", "nation", "rating", "person", "email"
        )
    ]


def export_entrants_csv(stage) -> str:
    return entrants_csv(engine_entrants(stage))
