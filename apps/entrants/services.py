"""Registration: importing entrants (all-or-nothing, every bad row listed) — adding them to the
list or replacing it —, adding, changing and removing one entrant while registration is open,
exporting them, closing registration (the list frozen with its digest) and reopening it.

Every entrant field obeys the engine's rules (``apps/silli/entrants.py``: lengths, no control
characters, safe codes, FIDE federation codes, no formula prefixes), whichever way it comes in.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, cast

from django.db import IntegrityError, transaction
from django.db.models import Exists, ForeignObjectRel, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import Action, record
from apps.core.bulk import insert_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.entrants import (
    EntrantCsvError,
    RowError,
    check_fields,
    entrants_csv,
    entrants_digest,
    parse_entrant_rows,
)
from apps.stages.feasibility import require_drawable
from apps.stages.models import Stage, Tournament
from apps.stages.services import locked, move

from .fields import invalid_fields
from .models import Entrant, ImportJob, StageEntry
from .people import KnownPerson, Linked, known_people, link_people

# The details of an entrant an organizer may change (the code is its key and stays).
EDITABLE = ("name", "nation", "rating", "person", "email")
# Codes made for entrants added without one: E000001, E000002, …
GENERATED_CODE = re.compile(r"E([0-9]{6,})")
# Rows per query when a whole list of codes is read, changed or removed.
CHUNK = 500


@dataclass(frozen=True)
class ImportPreview:
    """What an import would add: the entrants, and per nation how many."""

    entrants: list[EngineEntrant]
    # The rows whose rating-list ID belongs to a person the site knows already.
    known: list[KnownPerson] = field(default_factory=list)
    mode = "add"

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
    return bad_rows(exc.errors)


def bad_rows(errors: list[RowError]) -> ActionError:
    """The refusal of an entrant file listing every bad row (nothing was imported)."""
    count = len(errors)
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
        [{"line": e.line, "message": e.message} for e in errors],
    )


def require_registration_open(stage: Stage) -> None:
    """Refuse (409) unless the stage's registration is open: its entrant list is frozen then."""
    if stage.status == Stage.Status.DRAFT:
        return
    if stage.status == Stage.Status.REGISTRATION_CLOSED:
        message = _(
            "Registration for this stage is closed, so its entrant list is frozen: reopen "
            "registration to change it, or withdraw the entrant once the stage is in play."
        )
    else:
        message = _(
            "Registration for this stage is closed, so its entrant list is frozen: withdraw "
            "the entrant instead."
        )
    raise ActionError(ErrorCode.WRONG_STATUS, message)


def _chunks(items: list, size: int = CHUNK) -> Iterator[list]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


@dataclass(frozen=True)
class ParsedFile:
    """An entrant CSV as the engine's rules read it: the good rows with their line numbers,
    and the bad ones. The slow part of an import is reading the file, so a caller may read
    it first (an import job does, in pieces, to show its progress) and hand this to
    :func:`preview_import`, :func:`import_entrants`, :func:`preview_replace` or
    :func:`replace_entrants` in place of the text."""

    rows: list[tuple[int, EngineEntrant]]
    errors: list[RowError] = field(default_factory=list)


def checked_file(rows: list[tuple[int, EngineEntrant]], errors: list[RowError]) -> ParsedFile:
    """The file's good and bad rows; a file without one good row (no header, unknown
    columns, no entrants, every row bad) is refused at once: nothing else can be said of it."""
    if not rows:
        raise _bad_rows(EntrantCsvError(errors))
    return ParsedFile(rows, errors)


def parse_file(text: str) -> ParsedFile:
    """Read an entrant CSV through the engine's rules (see :func:`checked_file`)."""
    try:
        return ParsedFile(parse_entrant_rows(text))
    except EntrantCsvError as exc:
        return checked_file(exc.good, exc.errors)


def _parsed_rows(
    source: str | ParsedFile,
) -> tuple[list[tuple[int, EngineEntrant]], list[RowError]]:
    """The good rows and (a copy of) the bad ones of a CSV, read now or already."""
    parsed = source if isinstance(source, ParsedFile) else parse_file(source)
    return parsed.rows, list(parsed.errors)


def _job(job: int | None) -> dict[str, int]:
    """The audit details naming the import job that made a change (none without one)."""
    return {} if job is None else {"job": job}


def _refuse_bad_rows(errors: list[RowError]) -> None:
    if errors:
        raise _bad_rows(EntrantCsvError(sorted(errors, key=lambda e: e.line)))


def require_import_open(stage: Stage, mode: str = "add") -> None:
    """Refuse (409) an import into a stage whose registration is closed: ``add`` and
    ``replace`` say so in their own words, as they always did."""
    if mode == "replace":
        require_registration_open(stage)
    elif stage.status != Stage.Status.DRAFT:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Registration for this stage is closed; reopen it before importing."),
        )


def preview_import(stage: Stage, text: str | ParsedFile) -> ImportPreview:
    """Parse and check a CSV (or a file read already) against the stage's tournament without
    writing anything."""
    require_import_open(stage, "add")
    rows, errors = _parsed_rows(text)
    # The tournament's codes in one indexed read: a list of 100,000 codes to match is slower.
    registered = set(
        Entrant.objects.filter(tournament_id=stage.tournament_id).values_list("code", flat=True)
    )
    taken = {e.code for _, e in rows} & registered
    errors += [
        RowError(
            line, _("code %(code)r is already registered in this tournament") % {"code": e.code}
        )
        for line, e in rows
        if e.code in taken
    ]
    _refuse_bad_rows(errors)
    entrants = [e for _, e in rows]
    return ImportPreview(entrants, known=known_people(entrants))


def import_entrants(
    user: Actor | None, stage: Stage, text: str | ParsedFile, *, job: int | None = None
) -> ImportPreview:
    """Add every entrant of the CSV to the tournament and to ``stage``, or none of them.
    ``job``: the import job doing it, named in the audit event."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        locked = type(stage).objects.select_for_update(no_key=True).get(pk=stage.pk)
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
        link_people(Entrant.objects.filter(tournament_id=tournament, profile__isnull=True))
        record(Action.ENTRANTS_IMPORTED, user, stage=locked, count=preview.count, **_job(job))
    return preview


# ---------------------------------------------------------------------------
# An import that replaces the stage's list
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class EntrantChange:
    """An entrant a replacing import keeps, with details that change."""

    old: EngineEntrant
    new: EngineEntrant

    @property
    def code(self) -> str:
        return self.new.code

    def fields(self) -> list[tuple[str, object, object]]:
        """``(field, old, new)`` for every detail that changes."""
        return [
            (name, getattr(self.old, name), getattr(self.new, name))
            for name in EDITABLE
            if getattr(self.old, name) != getattr(self.new, name)
        ]


@dataclass(frozen=True)
class ReplacePreview(ImportPreview):
    """What an import in ``replace`` mode would do: the file becomes the stage's list.
    ``entrants`` is the whole new list; by code, who is added, changed and removed."""

    added: list[EngineEntrant] = field(default_factory=list)
    changed: list[EntrantChange] = field(default_factory=list)
    removed: list[EngineEntrant] = field(default_factory=list)
    unchanged: int = 0
    mode = "replace"


def _stage_name(kind: str, order: int) -> str:
    return _("%(kind)s (stage %(order)s)") % {"kind": Stage.Kind(kind).label, "order": order}


def _frozen_elsewhere(stage: Stage, codes: list[str]) -> dict[str, str]:
    """The entrants among ``codes`` who are also entrants of another stage whose list is
    frozen (its registration closed): code → that stage. Their details must not change."""
    frozen: dict[str, str] = {}
    for chunk in _chunks(codes):
        rows = (
            StageEntry.objects.filter(
                entrant__tournament_id=stage.tournament_id, entrant__code__in=chunk
            )
            .exclude(stage_id=stage.pk)
            .exclude(stage__status=Stage.Status.DRAFT)
            .order_by("stage__order")
            .values_list("entrant__code", "stage__kind", "stage__order")
        )
        for code, kind, order in rows:
            frozen.setdefault(code, _stage_name(kind, order))
    return frozen


def preview_replace(stage: Stage, text: str | ParsedFile) -> ReplacePreview:
    """Check a CSV that is to replace the stage's entrant list and say, by code, who would be
    added, changed and removed; nothing is written. Every bad row is listed: rows the CSV
    rules refuse, codes of entrants of the tournament who are not in this stage, and changes
    to entrants whose details another stage has frozen."""
    require_import_open(stage, "replace")
    rows, errors = _parsed_rows(text)
    current = {e.code: e for e in engine_entrants(stage)}
    elsewhere = set(
        Entrant.objects.filter(tournament_id=stage.tournament_id)
        .exclude(stage_entries__stage=stage)
        .values_list("code", flat=True)
    )
    changed = [
        (line, EntrantChange(current[e.code], e))
        for line, e in rows
        if e.code in current and current[e.code] != e
    ]
    frozen = _frozen_elsewhere(stage, [c.code for _, c in changed])
    errors += [
        RowError(
            line,
            _(
                "code %(code)r belongs to an entrant of this tournament who is not in this "
                "stage; choose another code"
            )
            % {"code": e.code},
        )
        for line, e in rows
        if e.code in elsewhere
    ]
    errors += [
        RowError(
            line,
            _(
                "code %(code)r: the details of this entrant cannot change any more, they are "
                "frozen in %(stage)s"
            )
            % {"code": c.code, "stage": frozen[c.code]},
        )
        for line, c in changed
        if c.code in frozen
    ]
    _refuse_bad_rows(errors)
    codes = {e.code for _, e in rows}
    added = [e for _, e in rows if e.code not in current]
    new_ids = [c.new for _, c in changed if c.old.person != c.new.person]
    return ReplacePreview(
        [e for _, e in rows],
        known=known_people(added + new_ids),
        added=added,
        changed=sorted((c for _, c in changed), key=lambda c: c.code),
        removed=[e for code, e in current.items() if code not in codes],
        unchanged=sum(1 for _, e in rows if current.get(e.code) == e),
    )


def _references() -> list[ForeignObjectRel]:
    """Every relation that points at an entrant, stage entries aside (seats, games, standings,
    qualification changes …, whatever app declares them)."""
    return [
        f
        for f in Entrant._meta.get_fields(include_hidden=True)
        if isinstance(f, ForeignObjectRel)
        and f.auto_created
        and not f.concrete
        and f.related_model is not StageEntry
    ]


def _delete_unused(tournament_id: int, codes: list[str]) -> int:
    """Delete the entrants among ``codes`` whom nothing refers to any more (no stage entry, no
    seat, no qualification change …), so their codes are free again; how many were deleted."""
    deleted = 0
    for chunk in _chunks(codes):
        unused = Entrant.objects.filter(tournament_id=tournament_id, code__in=chunk).exclude(
            Exists(StageEntry.objects.filter(entrant=OuterRef("pk")))
        )
        for relation in _references():
            manager = relation.field.model._base_manager  # the model that refers
            unused = unused.exclude(Exists(manager.filter(**{relation.field.name: OuterRef("pk")})))
        deleted += unused.delete()[1].get(Entrant._meta.label, 0)
    return deleted


def replace_entrants(
    user: Actor | None, stage: Stage, text: str | ParsedFile, *, job: int | None = None
) -> ReplacePreview:
    """Make the CSV the stage's entrant list: add the new codes, change the details of the
    codes it keeps, remove the codes it leaves out — all of it or nothing, one audit event
    (naming the import ``job`` doing it, if one does)."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        preview = preview_replace(stage, text)
        tournament = stage.tournament_id
        removed = [e.code for e in preview.removed]
        for chunk in _chunks(removed):
            StageEntry.objects.filter(
                stage=stage, entrant__tournament_id=tournament, entrant__code__in=chunk
            ).delete()
        _delete_unused(tournament, removed)
        news = {c.code: c.new for c in preview.changed}
        for chunk in _chunks(list(news)):
            rows = list(Entrant.objects.filter(tournament_id=tournament, code__in=chunk))
            for row in rows:
                for name in EDITABLE:
                    setattr(row, name, getattr(news[row.code], name))
            Entrant.objects.bulk_update(rows, EDITABLE)
        added = [e.code for e in preview.added]
        if added:
            insert_rows(
                Entrant,
                ("tournament_id", "code", "name", "nation", "rating", "person", "email"),
                (
                    (tournament, e.code, e.name, e.nation, e.rating, e.person, e.email)
                    for e in preview.added
                ),
            )
            ids = dict(Entrant.objects.filter(tournament_id=tournament).values_list("code", "id"))
            insert_rows(
                StageEntry,
                ("stage_id", "entrant_id"),
                ((stage.pk, ids[code]) for code in added),
            )
        link_people(Entrant.objects.filter(tournament_id=tournament))
        record(
            Action.ENTRANTS_REPLACED,
            user,
            stage=stage,
            count=preview.count,
            added=added,
            changed=[c.code for c in preview.changed],
            removed=removed,
            unchanged=preview.unchanged,
            **_job(job),
        )
    return preview


# ---------------------------------------------------------------------------
# One entrant at a time, while registration is open
# ---------------------------------------------------------------------------


def _entry(stage: Stage, code: str) -> StageEntry:
    entry = None
    # No stored code is longer or holds NUL (PostgreSQL refuses NUL in a query, too).
    longest = cast(int, Entrant._meta.get_field("code").max_length)  # a CharField's
    if len(code) <= longest and "\x00" not in code:
        entry = (
            StageEntry.objects.select_for_update(no_key=True)
            .select_related("entrant")
            .filter(stage=stage, entrant__code=code)
            .first()
        )
    if entry is None:
        raise ActionError(
            ErrorCode.NOT_FOUND,
            _("No entrant of this stage has the code %(code)s.") % {"code": code},
        )
    return entry


def _generated_code(tournament_id: int) -> str:
    """The next free code of the form E000001 in the tournament."""
    codes = Entrant.objects.filter(tournament_id=tournament_id, code__startswith="E")
    numbers = [
        int(match[1])
        for code in codes.values_list("code", flat=True)
        if (match := GENERATED_CODE.fullmatch(code))
    ]
    return f"E{max(numbers, default=0) + 1:06d}"


def new_code(tournament_id: int) -> str:
    """The next free code E000001 … of the tournament, for another app's action that registers
    an entrant (a Swiss stage's late entrant)."""
    return _generated_code(tournament_id)


def _code_taken(code: str) -> ActionError:
    return ActionError(
        ErrorCode.CONFLICT,
        _(
            "The code %(code)s is taken by another entrant of this tournament; choose another "
            "code or leave it empty to have one made."
        )
        % {"code": code},
    )


def checked_entrant_fields(
    *, code: str, name: str, nation: str, rating: int | str | None, person: str, email: str
) -> dict[str, Any]:
    """An entrant's details checked by the entrant rules (an empty code: none given); an
    ActionError lists every bad field."""
    values = {"name": name, "nation": nation, "rating": rating, "person": person, "email": email}
    if code:
        values["code"] = code
    checked, problems = check_fields(values, optional=("code",))
    if problems:
        raise invalid_fields(problems)
    return checked


def create_entrant(tournament_id: int, code: str, checked: Mapping[str, Any]) -> Entrant:
    """A new entrant of the tournament from checked fields (name, nation, rating, person,
    e-mail; the person defaults to the code), tied to its person (``people.py``), in a
    savepoint of the caller's transaction; the
    same code added at the same moment is refused as taken (CONFLICT)."""
    try:
        with transaction.atomic():
            entrant = Entrant.objects.create(
                tournament_id=tournament_id,
                code=code,
                name=checked["name"],
                nation=checked["nation"],
                rating=checked["rating"],
                person=checked["person"] or code,
                email=checked["email"],
            )
    except IntegrityError as exc:  # the same code, added at the same moment
        raise _code_taken(code) from exc
    link_people(Entrant.objects.filter(pk=entrant.pk))
    entrant.refresh_from_db(fields=["profile"])
    return entrant


def add_entrant(
    user: Actor,
    stage: Stage,
    *,
    code: str = "",
    name: str,
    nation: str,
    rating: int | str | None = None,
    person: str = "",
    email: str = "",
) -> StageEntry:
    """Register one entrant in the tournament and the stage while registration is open. An
    empty ``code`` gets the next free code E000001, E000002 …; ``person`` defaults to it."""
    require_organizer(user, stage.tournament)
    checked = checked_entrant_fields(
        code=code, name=name, nation=nation, rating=rating, person=person, email=email
    )
    with transaction.atomic():
        stage = locked(stage)
        require_registration_open(stage)
        given = str(checked.get("code") or "")
        code = given or _generated_code(stage.tournament_id)
        if Entrant.objects.filter(tournament_id=stage.tournament_id, code=code).exists():
            raise _code_taken(code)
        entrant = create_entrant(stage.tournament_id, code, checked)
        entry = StageEntry.objects.create(stage=stage, entrant=entrant)
        record(
            Action.ENTRANT_ADDED,
            user,
            stage=stage,
            entrant=code,
            name=entrant.name,
            nation=entrant.nation,
            generated_code=not given,
        )
    return entry


def update_entrant(user: Actor, stage: Stage, code: str, /, **changes: Any) -> StageEntry:
    """Change an entrant's details (any of name, nation, rating, person, e-mail) while the
    stage's registration is open. The code is the entrant's key and never changes."""
    require_organizer(user, stage.tournament)
    if "code" in changes and changes["code"] != code:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _(
                "The code is the entrant's key and cannot change; remove the entrant and add "
                "them again with the new code."
            ),
            [{"field": "code", "message": _("cannot change"), "code": "read_only"}],
        )
    changes.pop("code", None)
    unknown = sorted(set(changes) - set(EDITABLE))
    if unknown:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("Only an entrant's name, nation, rating, person and e-mail can change, not %(f)s.")
            % {"f": ", ".join(unknown)},
        )
    checked, problems = check_fields(changes, optional=("rating", "person", "email"))
    if problems:
        raise invalid_fields(problems)
    with transaction.atomic():
        stage = locked(stage)
        require_registration_open(stage)
        entry = _entry(stage, code)
        entrant = entry.entrant
        old = {name: getattr(entrant, name) for name in EDITABLE}
        for name, value in checked.items():
            setattr(entrant, name, value or entrant.code if name == "person" else value)
        diff = {
            name: [old[name], getattr(entrant, name)]
            for name in EDITABLE
            if getattr(entrant, name) != old[name]
        }
        if diff:
            frozen = _frozen_elsewhere(stage, [entrant.code])
            if frozen:
                raise ActionError(
                    ErrorCode.CONFLICT,
                    _(
                        "%(name)s is also an entrant of %(stage)s, whose list is frozen; their "
                        "details cannot change any more."
                    )
                    % {"name": old["name"], "stage": frozen[entrant.code]},
                )
            entrant.save(update_fields=list(diff))
            if "person" in diff:
                link_people(Entrant.objects.filter(pk=entrant.pk))
            record(Action.ENTRANT_UPDATED, user, stage=stage, entrant=entrant.code, changes=diff)
    return entry


def link_tournament_people(tournament: Tournament, *, actor: Actor | None) -> Linked:
    """Tie every entry of the tournament to its person (``people.py``): for the entries made
    before people existed (``manage.py link_people``, run by the system or staff)."""
    if actor is not None:
        require_organizer(actor, tournament)
    with transaction.atomic():
        linked = link_people(Entrant.objects.filter(tournament=tournament))
        if linked.created or linked.merged:
            record(
                Action.PEOPLE_LINKED,
                actor,
                tournament=tournament,
                created=linked.created,
                merged=linked.merged,
            )
    return linked


def remove_entrant(user: Actor, stage: Stage, code: str) -> EngineEntrant:
    """Take an entrant off the stage's list while registration is open. An entrant nothing
    else refers to (no other stage, no qualification change) leaves the tournament, and the
    code is free again. Returns the entrant as it was."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        gone, left = take_off_list(stage, code)
        record(
            Action.ENTRANT_REMOVED,
            user,
            stage=stage,
            entrant=code,
            name=gone.name,
            nation=gone.nation,
            left_tournament=left,
        )
    return gone


def take_off_list(stage: Stage, code: str) -> tuple[EngineEntrant, bool]:
    """The part of removing an entrant that writes: for an action that has checked who acts
    and holds the stage's lock (:func:`remove_entrant`; a player withdrawing an approved
    registration, ``apps.players``), which writes its own audit event. Refused unless
    registration is open. Returns the entrant as it was, and whether it left the tournament
    (nothing else refers to it)."""
    require_registration_open(stage)
    entry = _entry(stage, code)
    e = entry.entrant
    gone = EngineEntrant(e.code, e.name, e.nation, e.rating, e.person, e.email)
    entry.delete()
    return gone, bool(_delete_unused(stage.tournament_id, [code]))


def engine_entrants(stage: Stage) -> list[EngineEntrant]:
    """The stage's entrants as the engine sees them, in code order."""
    rows = Entrant.objects.filter(stage_entries__stage=stage)
    return [
        EngineEntrant(*row)
        for row in rows.order_by("code").values_list(
            "code", "name", "nation", "rating", "person", "email"
        )
    ]


def export_entrants_csv(stage: Stage) -> str:
    return entrants_csv(engine_entrants(stage))


def require_no_import_running(stage: Stage) -> None:
    """Refuse (409) while an import job of the stage's entrants is waiting or running (read
    under the stage's lock, which a job takes to write): closing now would freeze a list the
    job is about to change, and the job would then fail. A job lost past its time limit is
    marked failed here and does not stand in the way."""
    job = ImportJob.objects.filter(stage=stage, status__in=ImportJob.UNFINISHED).first()
    if job is None:
        return
    if job.past_time_limit() and ImportJob.fail(job.pk, ImportJob.time_limit_message()):
        return
    if job.dry_run:
        message = _(
            "A check of an entrant file (%(done)s of %(total)s rows read) is still running for "
            "this stage; close registration once it has finished, or after importing the file."
        )
    else:
        message = _(
            "An entrant import (%(done)s of %(total)s rows read) is still running for this "
            "stage; close registration once it has finished, so the list you freeze is the "
            "imported one."
        )
    raise ActionError(
        ErrorCode.CONFLICT,
        message % {"done": job.done_rows, "total": job.total_rows},
        [{"import_job": job.pk, "status": job.status}],
    )


def close_registration(user: Actor, stage: Stage) -> Stage:
    """Freeze the entrant list and record its SHA-256 digest; refused while an entrant
    import job of the stage is waiting or running (:func:`require_no_import_running`), and
    when the stage's settings cannot be drawn with its entrants (the refusal names the
    nearest workable settings: ``apps.stages.feasibility``)."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        move(stage, Stage.Status.REGISTRATION_CLOSED, _("close registration"))
        require_no_import_running(stage)
        entrants = engine_entrants(stage)
        if not entrants:
            raise ActionError(ErrorCode.INVALID_INPUT, _("The stage has no entrants yet."))
        require_drawable(stage, len(entrants))
        stage.entrants_digest = entrants_digest(entrants)
        stage.registration_closed_at = timezone.now()
        stage.save(update_fields=["status", "entrants_digest", "registration_closed_at"])
        record(
            Action.REGISTRATION_CLOSED,
            user,
            stage=stage,
            entrants=len(entrants),
            digest=stage.entrants_digest,
        )
    return stage


def reopen_registration(user: Actor, stage: Stage) -> Stage:
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        move(stage, Stage.Status.DRAFT, _("reopen registration"))
        stage.entrants_digest = ""
        stage.registration_closed_at = None
        stage.save(update_fields=["status", "entrants_digest", "registration_closed_at"])
        record(Action.REGISTRATION_REOPENED, user, stage=stage)
    return stage
