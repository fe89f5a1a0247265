"""The draw job's three steps, called by the Celery tasks (``tasks.py``):

1. :func:`prepare` divides the stage's entrants into groups (engine step 1) and stores on a
   :class:`DrawJobGroup` row what each group's draw needs: its members as the division saw
   them, and the pairs of them who met in an earlier stage;
2. :func:`draw_groups` seats a batch of groups (engine step 2), reading only their rows (and
   their job's), and stores the results there while counting them on the job (one statement
   on PostgreSQL, which also stores each group as the rows the finish writes: arrays of its
   seats' and games' columns, entrants by id); a repeat finds the results stored and
   counted, and changes nothing;
3. :func:`finish` replaces the stage's groups, seats and games with the job's, in one
   transaction, once every group is drawn; it runs at most once per job.

A job killed or retried at any point leaves either the previous draw or the whole new one in
the tables, never a part; the organizer can start the draw again. Each step saves the job
(its heartbeat), and a job not heard from for ``DrawJob.RESUME_AFTER`` is resumed by the
sweep of ``apps.core.jobs`` (``tasks.resume_stalled_draws``).
"""

from __future__ import annotations

import json
import logging

from django.db import connection, transaction
from django.db.models import F
from django.utils import timezone

from apps.core.audit import Action, record
from apps.core.bulk import insert_rows, insert_select
from apps.core.errors import ActionError
from apps.core.jobs import percent_done
from apps.entrants.models import Entrant, StageEntry
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.silli.draw import (
    DrawError,
    DrawSettings,
    canonical_json,
    divide_stage,
    draw_group,
    met_before_map,
    nation_mix,
    texts_digest,
)
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.feasibility import stage_sizes
from apps.silli.formula import NoFormulaError
from apps.stages.models import DrawJob, DrawJobGroup, Stage
from apps.stages.services import locked, move

from . import draw_errors

log = logging.getLogger(__name__)
BATCH = 10_000
# One group task seats this many groups at most (about 2 ms of engine each): a task's own
# cost (the message, its acknowledgement, a commit) is paid once a batch, not once a group,
# and the progress bar still moves a few dozen times in a draw of 1,000 groups. A small job
# is cut into about MIN_TASKS batches so every worker process has some.
GROUPS_PER_TASK = 25
MIN_TASKS = 8


def draw_settings(stage: Stage) -> DrawSettings:
    return DrawSettings(
        games_per_player=stage.games_per_player,
        format=stage.format,
        min_group_size=stage.min_group_size,
        separate_nations=stage.separate_nations,
        avoid_rematches=stage.avoid_rematches,
        double_round_robin=stage.double_round_robin,
        balance_ratings=stage.balance_ratings,
        formula=tuple(stage.formula) if stage.formula else None,
        allowed_nation_games=stage.allowed_nation_games,
        swiss_rounds=stage.swiss_rounds or 0 if stage.is_swiss else 0,
        swiss_acceleration=stage.swiss_acceleration if stage.is_swiss else "none",
    )


def earlier_groups(stage: Stage) -> dict[str, str]:
    """Each entrant's group in the previous stage, e.g. ``{"E000017": "1/12"}``."""
    rows = Seat.objects.filter(
        stage__tournament_id=stage.tournament_id,
        stage__order=stage.order - 1,
        entrant__stage_entries__stage=stage,
    ).values_list("entrant__code", "group__stage__order", "group__number")
    return {code: f"{order}/{number}" for code, order, number in rows}


def met_before_pairs(stage: Stage) -> list[tuple[str, str]]:
    """Pairs of the stage's entrants who played each other in an earlier stage."""
    earlier = Stage.objects.filter(tournament_id=stage.tournament_id, order__lt=stage.order)
    if not earlier.exists():
        return []
    # Two plain reads and a filter here: a join of the stage's entries with themselves is what
    # the planner picks when it has no statistics, and that takes minutes.
    entrants = set(StageEntry.objects.filter(stage=stage).values_list("entrant_id", flat=True))
    games = (
        Game.objects.filter(group__stage__in=earlier)
        .order_by("group__stage__order", "group__number", "number")
        .values_list("white_id", "black_id", "white__code", "black__code")
    )
    return [(w, b) for w_id, b_id, w, b in games if w_id in entrants and b_id in entrants]


# A member of a group's ``members`` row: the fields of the engine's entrant, then its id
# (the rows of jobs divided by an earlier version have no id).
ENGINE_FIELDS = 6


def _stage_entrants(stage: Stage) -> tuple[list[EngineEntrant], dict[str, tuple]]:
    """The stage's entrants as the engine sees them (``engine_entrants``: in code order),
    and each one's ``members`` fields by code (with its id), in one read."""
    rows = Entrant.objects.filter(stage_entries__stage=stage).order_by("code")
    fields = ("code", "name", "nation", "rating", "person", "email", "id")
    read = list(rows.values_list(*fields))
    return [EngineEntrant(*row[:ENGINE_FIELDS]) for row in read], {row[0]: row for row in read}


def _group_rows(
    groups: list[list[EngineEntrant]], pairs: list[tuple[str, str]], fields: dict[str, tuple]
) -> list[dict[str, list]]:
    """Each group's ``members`` row: its entrants as the division saw them, with their ids,
    and the pairs of them who met before, so that a group's task reads nothing but its own
    row."""
    group_of = {e.code: i for i, members in enumerate(groups) for e in members}
    met_before: list[list[list[str]]] = [[] for _ in groups]
    for a, b in pairs:
        if group_of[a] == group_of[b]:
            met_before[group_of[a]].append([a, b])
    return [
        {
            "entrants": [fields[e.code] for e in members],
            "met_before": met,
        }
        for members, met in zip(groups, met_before, strict=True)
    ]


def _failure(settings: DrawSettings, entrants: int) -> str:
    """Why the division failed: the settings (no group sizes can be drawn: no seed helps)
    or the entrants as the engine saw them with this seed."""
    sizes = (
        stage_sizes(
            entrants,
            settings.min_group_size,
            format=settings.format,
            games=settings.games_per_player,
            odd=settings.odd,
            formula=settings.formula,
        )
        if entrants
        else None
    )
    return DrawJob.Failure.ENGINE if sizes else DrawJob.Failure.SETTINGS


def prepare(job_id: int) -> list[int]:
    """Step 1: the division. Returns the numbers of the groups still to draw."""
    job = DrawJob.objects.select_related("stage__tournament").get(pk=job_id)
    if job.finished:
        return []
    if not job.total_groups:
        stage = job.stage
        settings = DrawSettings.from_dict(job.draw_settings)
        entrants, fields = _stage_entrants(stage)
        try:
            groups = divide_stage(entrants, settings, job.seed, earlier_groups(stage))
        except (DrawError, ValueError) as exc:
            DrawJob.fail(job.pk, str(exc), failure=_failure(settings, len(entrants)))
            return []
        rows = _group_rows(groups, met_before_pairs(stage), fields)
        with transaction.atomic():
            DrawJobGroup.objects.filter(job=job).delete()
            insert_rows(
                DrawJobGroup,
                ("job_id", "number", "members"),
                ((job.pk, i, members) for i, members in enumerate(rows, start=1)),
            )
            job.total_groups = len(groups)
            job.done_groups = 0
            job.status = DrawJob.Status.RUNNING
            job.save(update_fields=["total_groups", "done_groups", "status", "updated_at"])
    return list(
        job.group_results.filter(payload__isnull=True)
        .order_by("number")
        .values_list("number", flat=True)
    )


def batches(numbers: list[int]) -> list[list[int]]:
    """The group numbers split into the batches of one task each: ``GROUPS_PER_TASK`` at
    most, and smaller for a small job (cut into about ``MIN_TASKS`` batches), so that it
    still has work for every worker process."""
    size = max(1, min(GROUPS_PER_TASK, -(-len(numbers) // MIN_TASKS)))
    return [numbers[i : i + size] for i in range(0, len(numbers), size)]


def draw_one_group(job_id: int, number: int) -> bool:
    """Step 2 for one group (see :func:`draw_groups`)."""
    return draw_groups(job_id, [number])


def draw_groups(job_id: int, numbers: list[int]) -> bool:
    """Step 2 for a batch of groups. Returns True when every group of the job is drawn.

    Two round trips to the database for the whole batch: one read of the groups' rows with
    what they need of their job, and one statement (on PostgreSQL) that stores the results
    of those not stored yet and counts them on the job, so the progress bar moves once a
    batch. Both are plain SQL: the ORM took longer to build the read than the database to
    answer it. A repeated batch finds its groups stored, and counted, already; a group
    stored meanwhile by a concurrent repeat is neither stored again nor counted twice.
    """
    if not numbers:
        return False
    quote = connection.ops.quote_name
    marks = ", ".join(["%s"] * len(numbers))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT g.id, g.number, g.members, g.payload IS NOT NULL, j.status, j.seed,"
            " j.draw_settings, j.done_groups, j.total_groups, s.tournament_id"
            f" FROM {quote(DrawJobGroup._meta.db_table)} g"
            f" JOIN {quote(DrawJob._meta.db_table)} j ON j.id = g.job_id"
            f" JOIN {quote(Stage._meta.db_table)} s ON s.id = j.stage_id"
            f" WHERE g.job_id = %s AND g.number IN ({marks}) ORDER BY g.number",
            [job_id, *numbers],
        )
        rows = cursor.fetchall()
    if len(rows) != len(set(numbers)):
        missing = sorted(set(numbers) - {row[1] for row in rows})
        raise DrawJobGroup.DoesNotExist(f"draw job {job_id} has no group {missing}")
    _, _, _, _, status, seed, settings, done, total, tournament_id = rows[0]
    if status in DrawJob.FINISHED:
        return False
    settings = DrawSettings.from_dict(_loaded(settings))
    todo = [(pk, number, _loaded(members)) for pk, number, members, drawn, *_ in rows if not drawn]
    # On PostgreSQL the group is also stored as the rows the finish writes, its entrants by
    # id: the division gave them (a job divided by an earlier version: read here).
    ids: dict[str, int] | None = None
    if todo and connection.vendor == "postgresql":
        members = [f for _, _, m in todo for f in m["entrants"]]
        if all(len(f) > ENGINE_FIELDS for f in members):
            ids = {f[0]: f[ENGINE_FIELDS] for f in members}
        else:
            ids = _entrant_ids(tournament_id, [f[0] for f in members])
    results: list[tuple[int, str, tuple | None]] = []
    for pk, number, members in todo:  # a repeated task finds its groups stored already
        entrants = [EngineEntrant(*fields[:ENGINE_FIELDS]) for fields in members["entrants"]]
        partners = met_before_map(tuple(pair) for pair in members["met_before"])
        try:
            group = draw_group(number, entrants, settings, seed, partners)
        except DrawError as exc:
            no_seed = isinstance(exc.__cause__, NoFormulaError) or exc.seed_independent
            failure = DrawJob.Failure.SETTINGS if no_seed else DrawJob.Failure.ENGINE
            DrawJob.fail(job_id, str(exc), failure=failure)
            return False
        # Its canonical JSON and its rows, made here in the group tasks (in parallel): the
        # finish hashes the texts as they are, and unnests the rows into the tables.
        data = group.as_dict()
        results.append((pk, canonical_json(data), None if ids is None else staged_rows(data, ids)))
    if results:
        done, total = _store_groups(job_id, results)
    return done >= total


def _loaded(value):
    """A JSON column's value read with plain SQL (text on PostgreSQL and SQLite)."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def _entrant_ids(tournament_id: int, codes: list[str]) -> dict[str, int]:
    """The ids of the tournament's entrants of these codes (PostgreSQL)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT code, id FROM {connection.ops.quote_name(Entrant._meta.db_table)}"
            " WHERE tournament_id = %s AND code = ANY(%s)",
            [tournament_id, codes],
        )
        return dict(cursor.fetchall())


def _array(values: list[int] | list[int | None]) -> str:
    """A PostgreSQL array literal of integers (None as NULL)."""
    if None in values:
        return "{" + ",".join("NULL" if v is None else str(v) for v in values) + "}"
    return "{" + ",".join(map(str, values)) + "}"


# DrawJobGroup's columns that staged_rows fills, in its order.
STAGED = (
    "group_row",
    "seat_numbers",
    "seat_entrants",
    "game_rounds",
    "game_whites",
    "game_blacks",
)


def staged_rows(group: dict, ids: dict[str, int]) -> tuple[str, str, str, str, str, str] | None:
    """A drawn group (``as_dict()``) as the rows the finish writes, in the order of
    ``STAGED``: its group row's columns (JSON text), then its seats' and games' columns as
    PostgreSQL array literals, entrants by id. None if an entrant is not in ``ids``."""
    seats, games = group["seats"], group["games"]
    try:
        entrants = [ids[s["entrant"]] for s in seats]
        whites = [ids[g["white"]] for g in games]
        blacks = [ids[g["black"]] for g in games]
    except KeyError:
        return None
    certificate = group["certificate"]
    row = {
        "size": group["size"],
        "formula": group["formula"],
        "rule": group["rule"],
        "principles_hold": certificate["principles_hold"],
        "conflicts": certificate["conflicts"],
        "nation_mix": nation_mix(s["nation"] for s in seats),
    }
    return (
        json.dumps(row),
        _array([s["seat"] for s in seats]),
        _array(entrants),
        _array([g.get("round") for g in games]),
        _array(whites),
        _array(blacks),
    )


def _store_groups(job_id: int, results: list[tuple[int, str, tuple | None]]) -> tuple[int, int]:
    """Store each group's result (``(row id, JSON text, staged rows or None)``) on its row
    unless it is there already, count those stored on the job (which is heard from now),
    and return the job's groups (done, total) as of that count.

    On PostgreSQL this is one statement, so one transaction: the rows' update and the count
    commit together or not at all, and a concurrent repeat of a group waits for its row and
    then finds it stored.
    """
    now = timezone.now()
    if connection.vendor == "postgresql":
        quote = connection.ops.quote_name
        # A VALUES row a group, not arrays: the driver quotes a text parameter in C, but
        # escapes the quotes inside an array's elements one by one in Python.
        # The staged rows with the payload, in the same statement: both or neither.
        values = ", ".join(["(%s, %s, %s, %s, %s, %s, %s, %s)"] * len(results))
        columns = ", ".join(STAGED)
        staged = ", ".join(
            f"{c} = given.{c}" + ("::jsonb" if c == "group_row" else "") for c in STAGED
        )
        with connection.cursor() as cursor:
            cursor.execute(
                f"WITH given (id, payload, {columns}) AS (VALUES {values}),"
                f" stored AS (UPDATE {quote(DrawJobGroup._meta.db_table)} g"
                f" SET payload = given.payload, {staged} FROM given"
                " WHERE g.id = given.id AND g.payload IS NULL RETURNING g.id)"
                f" UPDATE {quote(DrawJob._meta.db_table)}"
                " SET done_groups = done_groups + (SELECT count(*) FROM stored), updated_at = %s"
                " WHERE id = %s RETURNING done_groups, total_groups",
                [
                    *(v for pk, text, rows in results for v in (pk, text, *(rows or [None] * 6))),
                    now,
                    job_id,
                ],
            )
            return cursor.fetchone()
    table = DrawJobGroup._meta.db_table
    with transaction.atomic(), connection.cursor() as cursor:
        stored = 0
        for pk, text, _ in results:
            cursor.execute(
                f"UPDATE {connection.ops.quote_name(table)} SET payload = %s"
                " WHERE id = %s AND payload IS NULL",
                [text, pk],
            )
            stored += cursor.rowcount
        DrawJob.objects.filter(pk=job_id).update(
            done_groups=F("done_groups") + stored, updated_at=now
        )
        return DrawJob.objects.filter(pk=job_id).values_list("done_groups", "total_groups").get()


def finish(job_id: int) -> bool:
    """Step 3: write the draw into the stage's tables. Returns True if this call wrote it."""
    stage_id = DrawJob.objects.values_list("stage_id", flat=True).get(pk=job_id)
    with transaction.atomic():
        # The stage, then its job (the lock order of apps.core.locking, as start_draw).
        stage = locked(Stage(pk=stage_id))
        job = DrawJob.objects.select_for_update(no_key=True, of=("self",)).get(pk=job_id)
        job.stage = stage
        if job.finished or job.group_results.filter(payload__isnull=True).exists():
            return False
        latest = stage.draw_jobs.order_by("-id").first()  # the last one started
        if latest is None or latest.pk != job.pk:
            job.mark_failed("A newer draw of this stage replaced this one.")
            return False
        try:
            move(stage, Stage.Status.DRAWN, "write the draw")
        except ActionError:
            status = stage.get_status_display().lower()
            job.mark_failed(f"The stage is {status}; the draw was not written.")
            return False
        digest = persist_job(stage, job)
        stage.seed = job.seed
        stage.draw_digest = digest
        stage.drawn_at = timezone.now()
        stage.save(update_fields=["status", "seed", "draw_digest", "drawn_at"])
        job.status = DrawJob.Status.SUCCEEDED
        job.digest = digest
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "digest", "finished_at", "updated_at"])
        job.group_results.update(members=[], **dict.fromkeys(STAGED))
        record(
            Action.DRAW_FINISHED,
            job.started_by,
            stage=stage,
            job=job.pk,
            digest=digest,
            groups=job.total_groups,
        )
    return True


# ---------------------------------------------------------------------------
# Writing the tables
# ---------------------------------------------------------------------------


def persist_job(stage: Stage, job: DrawJob) -> str:
    """Replace the stage's groups, seats and games with the job's (every group drawn; call
    inside a transaction); returns the draw's digest.

    On PostgreSQL the groups' texts never come to Python: the database takes the digest of
    the stored texts, and writes the tables from the rows the group tasks staged (arrays,
    entrants by id), after checking those are the tournament's. Elsewhere the texts are read
    and decoded here."""
    Game.objects.filter(group__stage=stage).delete()
    Seat.objects.filter(stage=stage).delete()
    Group.objects.filter(stage=stage).delete()
    if connection.vendor != "postgresql":
        stored = job.group_results.order_by("number").values_list("payload", flat=True)
        texts = [t for t in stored if t is not None]  # all of them: the finish checked
        persist_groups(stage, [json.loads(t) for t in texts])
        return texts_digest(texts)
    _stage_unstaged(stage, job)
    quote = connection.ops.quote_name
    results = quote(DrawJobGroup._meta.db_table)
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT encode(sha256(convert_to('[' || string_agg(payload, ',' ORDER BY number)"
            f" || ']', 'UTF8')), 'hex') FROM {results} WHERE job_id = %s",
            [job.pk],
        )
        (digest,) = cursor.fetchone()
        # The seats' entrants, all the tournament's (seats have no database-level keys; the
        # stage is locked, the groups are this draw's): one set operation, not a join the
        # planner would run as 100,000 lookups.
        cursor.execute(
            f"SELECT count(*) FROM (SELECT unnest(seat_entrants::bigint[]) FROM {results}"
            f" WHERE job_id = %s EXCEPT ALL SELECT id FROM {quote(Entrant._meta.db_table)}"
            " WHERE tournament_id = %s) strangers",
            [job.pk, stage.tournament_id],
        )
        (strangers,) = cursor.fetchone()
    if strangers:
        raise DrawError(f"{strangers} seated entrants are not the tournament's")
    insert_select(
        Group,
        ("stage_id", "number", "size", "formula", "rule", "principles_hold", "conflicts")
        + ("nation_mix",),
        "SELECT %s::bigint, number, (group_row ->> 'size')::integer, group_row -> 'formula',"
        " group_row ->> 'rule', (group_row ->> 'principles_hold')::boolean,"
        " group_row -> 'conflicts', group_row -> 'nation_mix'"
        f" FROM {results} WHERE job_id = %s ORDER BY number",
        [stage.pk, job.pk],
    )
    # Each group's rows in its order, the groups in theirs (their seats' and games' ids as
    # the decoded draw would give them).
    drawn = (
        f"FROM (SELECT * FROM {results} WHERE job_id = %s ORDER BY number) d"
        f" JOIN {quote(Group._meta.db_table)} g ON g.stage_id = %s AND g.number = d.number"
    )
    insert_select(
        Seat,
        ("stage_id", "group_id", "number", "entrant_id"),
        f"SELECT %s::bigint, g.id, s.number, s.entrant {drawn} CROSS JOIN LATERAL"
        " unnest(d.seat_numbers::integer[], d.seat_entrants::bigint[]) s(number, entrant)",
        [stage.pk, job.pk, stage.pk],
    )
    insert_select(
        Game,
        ("group_id", "number", "round", "white_id", "black_id"),
        f"SELECT g.id, x.n::integer, x.round, x.white, x.black {drawn} CROSS JOIN LATERAL"
        " unnest(d.game_rounds::integer[], d.game_whites::bigint[], d.game_blacks::bigint[])"
        " WITH ORDINALITY x(round, white, black, n)",
        [job.pk, stage.pk],
    )
    if stage.is_swiss:
        _write_round_one_byes(stage)
    return digest


def _stage_unstaged(stage: Stage, job: DrawJob) -> None:
    """Stage the rows of the job's groups stored without them (by the group tasks of an
    earlier version), from their texts; a group seating someone who is not the tournament's
    entrant stops the finish."""
    unstaged = job.group_results.filter(seat_entrants__isnull=True).values_list("pk", "payload")
    rows = []
    ids: dict[str, int] | None = None
    for pk, text in unstaged.iterator():
        if text is None:  # not drawn (the finish found every group drawn)
            continue
        if ids is None:
            entrants = Entrant.objects.filter(tournament_id=stage.tournament_id)
            ids = dict(entrants.values_list("code", "id"))
        group = json.loads(text)
        staged = staged_rows(group, ids)
        if staged is None:
            strangers = {s["entrant"] for s in group["seats"]} - ids.keys()
            raise DrawError(f"{len(strangers)} seated entrants are not the tournament's")
        rows.append((pk, staged))
    for pk, staged in rows:
        values = dict(zip(STAGED, staged, strict=True))
        values["group_row"] = json.loads(values["group_row"])
        DrawJobGroup.objects.filter(pk=pk).update(**values)


def persist_groups(stage: Stage, payloads: list[dict]) -> None:
    """Write the stage's groups, seats and games from the drawn groups (decoded)."""
    ids = dict(Entrant.objects.filter(tournament_id=stage.tournament_id).values_list("code", "id"))
    strangers = {s["entrant"] for p in payloads for s in p["seats"]} - ids.keys()
    if strangers:
        raise DrawError(f"{len(strangers)} seated entrants are not the tournament's")
    groups = Group.objects.bulk_create(
        [
            Group(
                stage=stage,
                number=p["number"],
                size=p["size"],
                formula=p["formula"],
                rule=p["rule"],
                principles_hold=p["certificate"]["principles_hold"],
                conflicts=p["certificate"]["conflicts"],
                nation_mix=nation_mix(seat["nation"] for seat in p["seats"]),
            )
            for p in payloads
        ],
        batch_size=BATCH,
    )
    if any(g.pk is None for g in groups):
        groups = list(Group.objects.filter(stage=stage).order_by("number"))
    group_ids = {g.number: g.pk for g in groups}
    seats = (
        (stage.pk, group_ids[p["number"]], s["seat"], ids[s["entrant"]])
        for p in payloads
        for s in p["seats"]
    )
    insert_rows(Seat, ("stage_id", "group_id", "number", "entrant_id"), seats)
    games = (
        (group_ids[p["number"]], i, g.get("round"), ids[g["white"]], ids[g["black"]])
        for p in payloads
        for i, g in enumerate(p["games"], start=1)
    )
    insert_rows(Game, ("group_id", "number", "round", "white_id", "black_id"), games)
    if stage.is_swiss:
        _write_round_one_byes(stage)


def _write_round_one_byes(stage: Stage) -> None:
    """A Swiss draw pairs round 1: the seat left without a game has the pairing-allocated
    bye (FIDE C.04.1: it scores a win's points)."""
    for group in Group.objects.filter(stage=stage):
        round_one = Game.objects.filter(group=group, round=1)
        playing = set(round_one.values_list("white_id", flat=True))
        playing |= set(round_one.values_list("black_id", flat=True))
        idle = Seat.objects.filter(group=group).exclude(entrant_id__in=playing)
        SwissBye.objects.bulk_create(
            SwissBye(group=group, round=1, entrant_id=entrant)
            for entrant in idle.values_list("entrant_id", flat=True)
        )


def job_progress(job: DrawJob) -> dict:
    """What a progress bar needs: status, groups done of total, and the outcome."""
    done = job.done_groups
    total = job.total_groups
    percent = percent_done(done, total, job.status == DrawJob.Status.SUCCEEDED)
    return {
        "id": job.pk,
        "stage": job.stage_id,
        "seed": job.seed,
        "status": job.status,
        "status_display": job.get_status_display(),
        "total_groups": total,
        "done_groups": done,
        "percent": percent,
        "error": draw_errors.translated(job.error),  # the engine's sentence, translated
        "failure": job.failure,
        "digest": job.digest,
        "finished": job.finished,
    }
