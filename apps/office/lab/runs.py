"""Format lab runs on a stage: compare 2–4 candidate formats on the stage's own entrants.

:func:`start_lab_run` checks the request (:func:`check_request`: the candidates, typed by
:mod:`.candidates`, the tournaments, the seed) and records a :class:`LabRun` with a snapshot
of the entrants; :func:`advance` (the task ``tasks.run_lab``) simulates the tournaments a
chunk at a time with the pure engine (:mod:`apps.silli.lab`), storing each candidate's counts
after every chunk so the progress bar moves, and finally each candidate's report
(:class:`~apps.silli.lab.LabReport`, as JSON); :func:`apply_candidate` sets the stage's
settings to a candidate's through the stage-update action (its checks and audit).

Every candidate of a run plays the same seed, so they differ by their format, not by luck.
A run is idempotent: a chunk is counted only if the stored counts still end where it began,
so a task delivered twice (or two at once) never counts a tournament twice.
"""

from __future__ import annotations

import dataclasses
import math
import time
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.formats import number_format
from django.utils.translation import gettext as _

from apps.core.errors import ActionError, ErrorCode
from apps.core.jobs import percent_done
from apps.core.permissions import Actor, require_organizer
from apps.entrants.services import engine_entrants
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.lab import FieldError, FormatError, LabConfig, LabReport, entrants_field
from apps.silli.lab.engine import finish, simulate
from apps.silli.lab.fields import Field
from apps.silli.lab.formats import tournament_seed
from apps.silli.lab.measures import Tally
from apps.stages.models import Stage
from apps.stages.services import locked, update_stage

from .. import seeds
from ..models import LabRun
from . import tasks
from .candidates import (
    Candidate,
    Problems,
    candidate_from_json,
    parse_candidate,
    whole_number,
)

MIN_CANDIDATES, MAX_CANDIDATES = 2, 4
MIN_TOURNAMENTS, MAX_TOURNAMENTS, DEFAULT_TOURNAMENTS = 10, 2000, 200
# A run plays at most this many games in all (about 25 µs a game: some 20 minutes).
MAX_GAMES = 50_000_000
# Each candidate's tournaments are played in about this many chunks (the bar moves as often).
CHUNKS = 25
# An unfinished run not saved for this long is taken as lost when another is started: it is
# failed, and the new one starts (the sweep would have queued it again long before).
STALE_SECONDS = 600


def generate_seed() -> str:
    return seeds.generate_seed("LAB")


# ---------------------------------------------------------------------------
# Checking the request
# ---------------------------------------------------------------------------


def check_request(
    candidates: Any, tournaments: Any, seed: Any, players: int
) -> tuple[list[Candidate], int, str]:
    """The request's candidates (typed), tournaments and seed; every problem at once in one
    ``ActionError`` (400) naming each field."""
    problems = Problems()
    clean: list[Candidate | None] = []
    if not isinstance(candidates, list) or not (
        MIN_CANDIDATES <= len(candidates) <= MAX_CANDIDATES
    ):
        if isinstance(candidates, list):
            message = _(
                "Give from %(min)s to %(max)s candidate formats to compare (got %(count)s)."
            ) % {"min": MIN_CANDIDATES, "max": MAX_CANDIDATES, "count": len(candidates)}
        else:
            message = _("Give the candidate formats as a list of %(min)s to %(max)s.") % {
                "min": MIN_CANDIDATES,
                "max": MAX_CANDIDATES,
            }
        problems.add("candidates", message)
    else:
        clean = [parse_candidate(raw, i, players, problems) for i, raw in enumerate(candidates)]
    count = whole_number(tournaments) if tournaments not in (None, "") else DEFAULT_TOURNAMENTS
    if count is None or not MIN_TOURNAMENTS <= count <= MAX_TOURNAMENTS:
        problems.add(
            "tournaments",
            _("The number of tournaments must be a whole number from %(min)s to %(max)s.")
            % {"min": MIN_TOURNAMENTS, "max": MAX_TOURNAMENTS},
        )
        count = None
    if seed is not None and not isinstance(seed, str):
        problems.add("seed", _("The seed must be text."))
        seed = ""
    seed = (seed or "").strip()
    problem = seeds.seed_problem(seed)
    if problem is not None:
        problems.add("seed", problem)
    problems.raise_if_any()
    assert count is not None
    checked = [c for c in clean if c is not None]  # all of them: no problem was found
    games = sum(c.games_per_tournament(players) for c in checked) * count
    if games > MAX_GAMES:
        most = max(1, MAX_GAMES * count // games)
        problems.add(
            "tournaments",
            _(
                "These candidates would simulate %(games)s games; at most %(max)s fit in a run. "
                "Ask for at most %(most)s tournaments."
            )
            % {
                "games": number_format(games, force_grouping=True),
                "max": number_format(MAX_GAMES, force_grouping=True),
                "most": number_format(most, force_grouping=True),
            },
        )
        problems.raise_if_any()
    return checked, count, seed or generate_seed()


# ---------------------------------------------------------------------------
# Starting a run
# ---------------------------------------------------------------------------


def _require_registration(stage: Stage) -> None:
    if stage.status != Stage.Status.DRAFT:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("The format lab is for a stage whose registration is open; this stage is %(status)s.")
            % {"status": stage.get_status_display().lower()},
        )


def start_lab_run(
    user: Actor, stage: Stage, candidates: Any, tournaments: Any = None, seed: Any = None
) -> LabRun:
    """Check the request and queue a run (organizers, registration open)."""
    require_organizer(user, stage.tournament)
    entrants = engine_entrants(stage)
    rated = [e.rating for e in entrants if e.rating is not None]
    if stage.status == Stage.Status.DRAFT and (len(entrants) < 2 or not rated):
        # before the candidates: their limits (rounds, group sizes) depend on the entrants
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _(
                "The format lab plays the stage's entrants: it needs at least two, with "
                "ratings (this stage has %(count)s, %(rated)s rated)."
            )
            % {"count": len(entrants), "rated": len(rated)},
        )
    clean, count, seed = check_request(candidates, tournaments, seed, len(entrants))
    _require_registration(stage)
    lowest = min(rated)
    snapshot = [
        [e.code, e.nation, e.rating if e.rating is not None else lowest, e.person] for e in entrants
    ]
    _check_division(clean, snapshot, seed, stage.tournament.tiebreak)
    with transaction.atomic():
        # Two starts at once: the second waits here and then sees the first's run; a stage
        # whose registration closed meanwhile gets none.
        _require_registration(locked(stage))
        stale = timezone.now() - timedelta(seconds=STALE_SECONDS)
        unfinished = stage.lab_runs.filter(status__in=LabRun.UNFINISHED)
        for lost in unfinished.filter(updated_at__lte=stale).values_list("pk", flat=True):
            LabRun.fail(lost, _("The run was lost (not heard from for ten minutes)."))
        running = unfinished.first()
        if running is not None:
            raise ActionError(
                ErrorCode.CONFLICT,
                _(
                    "A format lab run of this stage is still going (%(done)s of %(total)s "
                    "tournaments); wait for it to finish."
                )
                % {"done": running.done, "total": running.total},
            )
        run = LabRun.objects.create(
            stage=stage,
            seed=seed,
            tournaments=count,
            candidates=[c.to_json() for c in clean],
            entrants=snapshot,
            unrated=len(entrants) - len(rated),
            tallies=[None] * len(clean),
            started_by=user if user.is_authenticated else None,
        )
        transaction.on_commit(lambda: tasks.run_lab.delay(run.pk))
    return run


def _check_division(candidates: list[Candidate], snapshot: list, seed: str, tiebreak: str) -> None:
    """Divide the entrants as each candidate's first tournament will (engine step 1, fast):
    a division the engine cannot make (a person's entries, a nation too large for the
    groups) is refused now, naming the candidate, rather than failing the run."""
    problems = Problems()
    fld = entrants_field([EngineEntrant(c, "", n, r, p, "") for c, n, r, p in snapshot])
    for i, candidate in enumerate(candidates):
        try:
            candidate.lab_format(tiebreak).divide(fld, tournament_seed(seed, 0))
        except ValueError as error:
            problems.add(
                f"candidates.{i}.group_size",
                _("Candidate %(n)s cannot divide these entrants: %(error)s")
                % {"n": i + 1, "error": error},
            )
    problems.raise_if_any()


# ---------------------------------------------------------------------------
# Running it
# ---------------------------------------------------------------------------


def field_of(run: LabRun) -> Field:
    entrants = [
        EngineEntrant(code, "", nation, rating, person, "")
        for code, nation, rating, person in run.entrants
    ]
    return entrants_field(entrants, f"{run.stage} entrants")


def candidates_of(run: LabRun) -> list[Candidate]:
    """The run's candidates, as typed values."""
    return [candidate_from_json(c) for c in run.candidates]


def reports_of(run: LabRun) -> list[LabReport]:
    """Each candidate's report once the run succeeded (none before)."""
    return [LabReport.from_json(r) for r in run.results or ()]


def lab_config(run: LabRun, candidate: Candidate, fld: Field) -> LabConfig:
    fmt = candidate.lab_format(run.stage.tournament.tiebreak)
    return LabConfig(fld, fmt, run.seed, candidate.qualifying.lab_rule(), form_sd=run.form_sd)


def _tally(data: dict[str, Any]) -> Tally:
    return Tally(**{**data, "thresholds": tuple(data["thresholds"])})


def chunk_size(run: LabRun) -> int:
    return max(1, math.ceil(run.tournaments / CHUNKS))


def advance(run_id: int, seconds: float = 50.0) -> bool:
    """Simulate chunks of the run for about ``seconds``; True once the run has finished."""
    run = LabRun.objects.select_related("stage__tournament").filter(pk=run_id).first()
    if run is None or run.finished:
        return True
    LabRun.objects.filter(pk=run_id, status=LabRun.Status.PENDING).update(
        status=LabRun.Status.RUNNING, updated_at=timezone.now()
    )
    try:
        fld = field_of(run)
        configs = [lab_config(run, c, fld) for c in candidates_of(run)]
    except (FieldError, FormatError, ValueError) as error:
        LabRun.fail(run_id, str(error))
        return True
    size = chunk_size(run)
    deadline = time.monotonic() + seconds
    while True:
        tallies = LabRun.objects.values_list("tallies", flat=True).get(pk=run_id)
        todo = [
            (i, (t or {}).get("tournaments", 0))
            for i, t in enumerate(tallies)
            if (t or {}).get("tournaments", 0) < run.tournaments
        ]
        if not todo:
            return _finish(run_id, configs)
        index, start = todo[0]
        stop = min(start + size, run.tournaments)
        try:
            part = simulate(configs[index], start, stop)
        except ValueError as error:  # a draw the engine cannot make (DrawError, DivisionError)
            LabRun.fail(
                run_id,
                _("Candidate %(n)s cannot be simulated on these entrants: %(error)s")
                % {"n": index + 1, "error": error},
            )
            return True
        with transaction.atomic():
            current = LabRun.objects.select_for_update(no_key=True).get(pk=run_id)
            if current.finished:
                return True
            stored = current.tallies[index]
            if (stored or {}).get("tournaments", 0) == start:  # else a twin counted it
                if stored:
                    total = _tally(stored)
                    total.merge(part)
                else:
                    total = part
                current.tallies[index] = dataclasses.asdict(total)
                current.done = sum((t or {}).get("tournaments", 0) for t in current.tallies)
                current.status = LabRun.Status.RUNNING
                current.save(update_fields=["tallies", "done", "status", "updated_at"])
        if time.monotonic() > deadline:
            return False


def _finish(run_id: int, configs: list[LabConfig]) -> bool:
    with transaction.atomic():
        run = LabRun.objects.select_for_update(no_key=True).get(pk=run_id)
        if run.finished:
            return True
        run.results = [
            finish(config, _tally(tally)).to_json()
            for config, tally in zip(configs, run.tallies, strict=True)
        ]
        run.status = LabRun.Status.SUCCEEDED
        run.finished_at = timezone.now()
        run.tallies = []  # the reports keep what the page shows
        run.save(update_fields=["results", "status", "finished_at", "tallies", "updated_at"])
    return True


# ---------------------------------------------------------------------------
# Reading and applying
# ---------------------------------------------------------------------------


def progress(run: LabRun) -> dict[str, Any]:
    """What the progress bar and the API need."""
    total = run.total
    percent = percent_done(run.done, total, run.status == LabRun.Status.SUCCEEDED)
    return {
        "id": run.pk,
        "stage": run.stage_id,
        "seed": run.seed,
        "tournaments": run.tournaments,
        "status": run.status,
        "status_display": run.get_status_display(),
        "done": run.done,
        "total": total,
        "percent": percent,
        "error": run.error,
        "finished": run.finished,
        "unrated": run.unrated,
        "form_sd": run.form_sd,
        # each as stored (what clients have always been given), with its label
        "candidates": [{**c, "label": candidate_from_json(c).label} for c in run.candidates],
        "results": run.results if run.status == LabRun.Status.SUCCEEDED else None,
    }


def apply_candidate(user: Actor, run: LabRun, index: int) -> Stage:
    """Set the run's stage to candidate ``index``'s settings (0-based), through the
    stage-update action: the same checks and audit as the settings form."""
    stage = run.stage
    require_organizer(user, stage.tournament)
    if not 0 <= index < len(run.candidates):
        raise ActionError(
            ErrorCode.NOT_FOUND,
            _("This run has no candidate %(n)s.") % {"n": index + 1},
        )
    _require_registration(stage)
    candidate = candidate_from_json(run.candidates[index])
    return update_stage(user, stage, **candidate.stage_changes(stage))
