"""The format lab on a stage: compare 2–4 candidate formats on the stage's own entrants.

:func:`start_lab_run` checks the candidates and records a :class:`LabRun` with a snapshot of
the entrants; :func:`advance` (the task ``tasks.run_lab``) simulates the tournaments a chunk
at a time with the pure engine (:mod:`apps.silli.lab`), storing each candidate's counts after
every chunk so the progress bar moves; :func:`apply_candidate` sets the stage's settings to a
candidate's through the stage-update action (its checks and audit).

Every candidate of a run plays the same seed, so they differ by their format, not by luck.
A run is idempotent: a chunk is counted only if the stored counts still end where it began,
so a task delivered twice (or two at once) never counts a tournament twice.
"""

from __future__ import annotations

import dataclasses
import math
import time
from datetime import datetime, timedelta
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.entrants.services import engine_entrants
from apps.silli.draw import DrawSettings, divide_stage
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.formula import NoFormulaError, choose_formula, counting_lower_bound
from apps.silli.lab import (
    FieldError,
    FormatError,
    LabConfig,
    Qualification,
    RoundRobinFormat,
    SilliFormat,
    SwissFormat,
    entrants_field,
)
from apps.silli.lab.engine import finish, simulate
from apps.silli.lab.fields import Field
from apps.silli.lab.formats import LabFormat, tournament_seed
from apps.silli.lab.measures import Tally
from apps.silli.swiss.acceleration import Acceleration
from apps.stages.models import GAMES_MAX, GAMES_MIN, GROUP_MAX, GROUP_MIN, Stage
from apps.stages.services import locked, update_stage

from . import seeds
from .draw import percent_done
from .models import LabRun

MIN_CANDIDATES, MAX_CANDIDATES = 2, 4
MIN_TOURNAMENTS, MAX_TOURNAMENTS, DEFAULT_TOURNAMENTS = 10, 2000, 200
MAX_ROUNDS = 30
FORMATS = ("silli", "round_robin", "swiss")
ACCELERATIONS = (Acceleration.NONE.value, Acceleration.BAKU.value)
QUALIFY_RULES = ("top_per_group", "top_overall")
# A run plays at most this many games in all (about 25 µs a game: some 20 minutes).
MAX_GAMES = 50_000_000
# Each candidate's tournaments are played in about this many chunks (the bar moves as often).
CHUNKS = 25
UNFINISHED = (LabRun.Status.PENDING, LabRun.Status.RUNNING)
# An unfinished run not updated for this long is taken as lost: another may start.
STALE_SECONDS = 600
# A run's task saves after every chunk (well under a minute). An unfinished run not saved for
# this long has lost its task (a killed worker, a broker away when it started or went on):
# the sweep (``stalled_runs``, every minute) queues it again, at most once per this time.
RESUME_AFTER = timedelta(minutes=2)
# A run started longer ago than this is stopped (the largest take about 20 minutes).
TIME_LIMIT = timedelta(minutes=60)


def generate_seed() -> str:
    return seeds.generate_seed("LAB")


# ---------------------------------------------------------------------------
# Checking the input
# ---------------------------------------------------------------------------


def _int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    return None


def _bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "on", "yes")
    return bool(value)


class _Problems:
    def __init__(self) -> None:
        self.details: list[dict[str, str]] = []

    def add(self, field: str, message: str) -> None:
        self.details.append({"field": field, "message": message, "code": "invalid"})

    def raise_if_any(self) -> None:
        if self.details:
            shown = " ".join(d["message"] for d in self.details)
            raise ActionError(
                ErrorCode.INVALID_INPUT,
                _("The format lab cannot run these settings — %(errors)s") % {"errors": shown},
                details=self.details,
            )


def _check_candidate(raw: Any, i: int, players: int, problems: _Problems) -> dict[str, Any]:
    """One candidate's settings, cleaned; what is wrong goes to ``problems``."""
    where = f"candidates.{i}"
    name = _("Candidate %(n)s") % {"n": i + 1}

    def bad(field: str, message: str) -> None:
        problems.add(f"{where}.{field}" if field else where, f"{name}: {message}")

    if not isinstance(raw, dict):
        bad("", _("give the candidate's settings as an object."))
        return {}
    fmt = raw.get("format")
    if fmt not in FORMATS:
        bad("format", _("the format must be silli, round_robin or swiss."))
        return {}
    clean: dict[str, Any] = {"format": fmt}
    if fmt in ("silli", "round_robin"):
        size = _int(raw.get("group_size"))
        if size is None or not GROUP_MIN <= size <= GROUP_MAX:
            bad(
                "group_size",
                _("the group size must be a whole number from %(min)s to %(max)s.")
                % {"min": GROUP_MIN, "max": GROUP_MAX},
            )
        clean["group_size"] = size
    if fmt == "silli":
        games = _int(raw.get("games_per_player"))
        if games is None or not GAMES_MIN <= games <= GAMES_MAX or games % 2:
            bad(
                "games_per_player",
                _("games per player must be an even number from %(min)s to %(max)s.")
                % {"min": GAMES_MIN, "max": GAMES_MAX},
            )
        clean["games_per_player"] = games
        size = clean["group_size"]
        if games is not None and size is not None and not games % 2 and games >= 2:
            least = counting_lower_bound(games // 2)
            if size < least:
                bad(
                    "group_size",
                    _(
                        "the group size %(size)s is too small: a closed circle needs at least "
                        "%(least)s players for %(games)s games per player."
                    )
                    % {"size": size, "least": least, "games": games},
                )
            elif players >= 2:
                for n in _group_sizes(players, size):
                    try:
                        choose_formula(n, games)
                    except NoFormulaError as error:
                        bad("group_size", str(error))
                        break
        clean["balance_ratings"] = _bool(raw.get("balance_ratings", False))
    elif fmt == "round_robin":
        clean["double_round_robin"] = _bool(raw.get("double_round_robin", False))
    else:
        rounds = _int(raw.get("rounds"))
        most = max(1, min(MAX_ROUNDS, players - 1))
        if rounds is None or not 1 <= rounds <= most:
            bad(
                "rounds",
                _("a Swiss needs from 1 to %(max)s rounds for %(players)s players.")
                % {"max": most, "players": players},
            )
        clean["rounds"] = rounds
        acceleration = raw.get("acceleration") or Acceleration.NONE.value
        if acceleration not in ACCELERATIONS:
            bad("acceleration", _("the acceleration must be none or baku."))
        clean["acceleration"] = acceleration
    rule = raw.get("qualify_rule") or ""
    clean["qualify_rule"] = rule
    clean["qualify_value"] = None
    clean["qualify_relative"] = _bool(raw.get("qualify_relative", False))
    if rule:
        if rule not in QUALIFY_RULES:
            bad("qualify_rule", _("the qualification rule must be top_per_group or top_overall."))
        else:
            try:
                value = Decimal(str(raw.get("qualify_value")).strip())
                if not value.is_finite() or value <= 0:
                    raise ValueError
                _qualification(rule, value, clean["qualify_relative"]).spec  # noqa: B018  (checks the value)
            except (InvalidOperation, ValueError, TypeError, OverflowError):
                bad(
                    "qualify_value",
                    _(
                        "the qualification value must be a positive whole number of places, or "
                        "a percentage up to 100 when relative."
                    ),
                )
            else:
                clean["qualify_value"] = format(value.normalize(), "f")  # "20", not "2E+1"
    return clean


def _group_sizes(players: int, group_size: int) -> set[int]:
    """The sizes of the groups the division makes (sizes within one, larger first)."""
    count = max(1, players // group_size)
    return {players // count, -(-players // count)}


def _games_per_tournament(candidate: dict[str, Any], players: int) -> int:
    fmt = candidate["format"]
    if fmt == "swiss":
        return players // 2 * candidate["rounds"]
    if fmt == "silli":
        return players * candidate["games_per_player"] // 2
    size = min(candidate["group_size"], players)
    per_player = (size - 1) * (2 if candidate["double_round_robin"] else 1)
    return players * per_player // 2


def check_request(
    candidates: Any, tournaments: Any, seed: Any, players: int
) -> tuple[list[dict[str, Any]], int, str]:
    """The cleaned candidates, tournaments and seed; every problem at once in one
    ``ActionError`` (400) naming each field."""
    problems = _Problems()
    clean: list[dict[str, Any]] = []
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
        clean = [_check_candidate(raw, i, players, problems) for i, raw in enumerate(candidates)]
    count: int | None = _int(tournaments) if tournaments not in (None, "") else DEFAULT_TOURNAMENTS
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
    games = sum(_games_per_tournament(c, players) for c in clean) * count
    if games > MAX_GAMES:
        most = max(1, MAX_GAMES * count // games)
        problems.add(
            "tournaments",
            _(
                "These candidates would simulate %(games)s games; at most %(max)s fit in a run. "
                "Ask for at most %(most)s tournaments."
            )
            % {"games": f"{games:,}", "max": f"{MAX_GAMES:,}", "most": most},
        )
        problems.raise_if_any()
    return clean, count, seed or generate_seed()


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
    user, stage: Stage, candidates: Any, tournaments: Any = None, seed: Any = None
) -> LabRun:
    """Check the request and queue a run (organizers, registration open)."""
    from . import tasks

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
    _check_division(clean, snapshot, seed)
    with transaction.atomic():
        # Two starts at once: the second waits here and then sees the first's run; a stage
        # whose registration closed meanwhile gets none.
        _require_registration(locked(stage))
        stale = timezone.now() - timedelta(seconds=STALE_SECONDS)
        running = stage.lab_runs.filter(status__in=UNFINISHED, updated_at__gt=stale).first()
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
            candidates=clean,
            entrants=snapshot,
            unrated=len(entrants) - len(rated),
            tallies=[None] * len(clean),
            started_by=user if user.is_authenticated else None,
        )
        transaction.on_commit(lambda: tasks.run_lab.delay(run.pk))
    return run


def _check_division(candidates: list[dict[str, Any]], snapshot: list, seed: str) -> None:
    """Divide the entrants as each group candidate's first tournament will (engine step 1,
    fast): a division the engine cannot make (a person's entries, a nation too large for the
    groups) is refused now, naming the candidate, rather than failing the run."""
    problems = _Problems()
    fld = entrants_field([EngineEntrant(c, "", n, r, p, "") for c, n, r, p in snapshot])
    entrants = [p.entrant for p in fld.players]
    for i, candidate in enumerate(candidates):
        if candidate["format"] == "swiss":
            continue
        settings = DrawSettings(
            games_per_player=candidate.get("games_per_player") or 10,
            format=candidate["format"],
            min_group_size=candidate["group_size"],
            separate_nations=fld.nations > 1,
            avoid_rematches=False,
            double_round_robin=bool(candidate.get("double_round_robin")),
            balance_ratings=bool(candidate.get("balance_ratings")),
        )
        try:
            divide_stage(entrants, settings, tournament_seed(seed, 0))
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


def lab_format(candidate: dict[str, Any], tiebreak: str) -> LabFormat:
    fmt = candidate["format"]
    if fmt == "silli":
        return SilliFormat(
            group_size=candidate["group_size"],
            games=candidate["games_per_player"],
            balance_ratings=candidate.get("balance_ratings", False),
            tiebreak=tiebreak,  # type: ignore[arg-type]
        )
    if fmt == "round_robin":
        return RoundRobinFormat(
            group_size=candidate["group_size"],
            double=candidate.get("double_round_robin", False),
            tiebreak=tiebreak,  # type: ignore[arg-type]
        )
    # A Swiss breaks its ties by Buchholz (the Torino system is made for closed circles).
    return SwissFormat(
        rounds=candidate["rounds"], acceleration=Acceleration(candidate["acceleration"])
    )


def _qualification(rule: str, value: Decimal, relative: bool) -> Qualification:
    """The lab's rule for a candidate's ``qualify_rule`` (top_per_group or top_overall)."""
    return Qualification(Fraction(value), relative, rule == "top_per_group")


def lab_config(run: LabRun, candidate: dict[str, Any], fld: Field) -> LabConfig:
    qualification = None
    if candidate.get("qualify_rule"):
        qualification = _qualification(
            candidate["qualify_rule"],
            Decimal(candidate["qualify_value"]),
            bool(candidate.get("qualify_relative")),
        )
    fmt = lab_format(candidate, run.stage.tournament.tiebreak)
    return LabConfig(fld, fmt, run.seed, qualification, form_sd=run.form_sd)


def _tally(data: dict[str, Any]) -> Tally:
    return Tally(**{**data, "thresholds": tuple(data["thresholds"])})


def chunk_size(run: LabRun) -> int:
    return max(1, math.ceil(run.tournaments / CHUNKS))


def _fail(run_id: int, message: str) -> None:
    with transaction.atomic():
        run = LabRun.objects.select_for_update().get(pk=run_id)
        if not run.finished:
            run.status = LabRun.Status.FAILED
            run.error = message
            run.finished_at = timezone.now()
            run.save(update_fields=["status", "error", "finished_at", "updated_at"])


def fail(run_id: int, message: str) -> None:
    """Mark the run failed with ``message`` unless it has finished."""
    _fail(run_id, message)


def stalled_runs(now: datetime | None = None) -> tuple[list[int], list[int]]:
    """The unfinished runs to queue again, and those past the time limit (failed here).

    A run to resume is marked as saved now, so the next sweep leaves it alone for another
    ``RESUME_AFTER`` (a queue that is only slow gets one more task, not one a minute). A run
    queued twice counts each chunk once (``advance``)."""
    now = now or timezone.now()
    unfinished = LabRun.objects.filter(status__in=UNFINISHED, updated_at__lt=now - RESUME_AFTER)
    late = list(unfinished.filter(created_at__lt=now - TIME_LIMIT).values_list("pk", flat=True))
    minutes = int(TIME_LIMIT.total_seconds() // 60)
    for run_id in late:
        _fail(
            run_id,
            _(
                "The run took longer than %(minutes)s minutes and was stopped; start it again, "
                "perhaps with fewer tournaments."
            )
            % {"minutes": minutes},
        )
    resume = list(unfinished.exclude(pk__in=late).values_list("pk", flat=True))
    LabRun.objects.filter(pk__in=resume, status__in=UNFINISHED).update(updated_at=now)
    return resume, late


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
        configs = [lab_config(run, c, fld) for c in run.candidates]
    except (FieldError, FormatError, ValueError) as error:
        _fail(run_id, str(error))
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
            _fail(
                run_id,
                _("Candidate %(n)s cannot be simulated on these entrants: %(error)s")
                % {"n": index + 1, "error": error},
            )
            return True
        with transaction.atomic():
            current = LabRun.objects.select_for_update().get(pk=run_id)
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
        run = LabRun.objects.select_for_update().get(pk=run_id)
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


def candidate_label(candidate: dict[str, Any]) -> str:
    """A candidate in words, e.g. "Silli, groups of 100, 10 games, top 20 % of each group"."""
    fmt = candidate.get("format")
    if fmt == "silli":
        text = _("Silli, groups of at least %(size)s, %(games)s games per player") % {
            "size": candidate["group_size"],
            "games": candidate["games_per_player"],
        }
    elif fmt == "round_robin":
        text = (
            _("Double round robin, groups of at least %(size)s")
            if candidate.get("double_round_robin")
            else _("Round robin, groups of at least %(size)s")
        ) % {"size": candidate["group_size"]}
    else:
        text = (
            _("Swiss, %(rounds)s rounds, Baku acceleration")
            if candidate.get("acceleration") == Acceleration.BAKU.value
            else _("Swiss, %(rounds)s rounds")
        ) % {"rounds": candidate["rounds"]}
    rule = candidate.get("qualify_rule")
    if rule:
        # runs stored before the value was kept as written may hold "2E+1"
        value = format(Decimal(str(candidate["qualify_value"])).normalize(), "f")
        amount = f"{value} %" if candidate.get("qualify_relative") else value
        where = (
            _("top %(amount)s of each group")
            if rule == "top_per_group"
            else _("top %(amount)s overall")
        ) % {"amount": amount}
        text += ", " + where
    return text


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
        "candidates": [{**c, "label": candidate_label(c)} for c in run.candidates],
        "results": run.results if run.status == LabRun.Status.SUCCEEDED else None,
    }


def stage_changes(stage: Stage, candidate: dict[str, Any]) -> dict[str, Any]:
    """The stage settings a candidate stands for."""
    fmt = candidate["format"]
    changes: dict[str, Any]
    if fmt == "swiss":
        # One group of every entrant, paired round by round: no group size, no games per
        # player, no formula of its own.
        changes = {
            "format": fmt,
            "swiss_rounds": candidate["rounds"],
            "swiss_acceleration": candidate.get("acceleration") or "none",
            "games_per_player_override": None,
            "formula": None,
        }
    else:
        changes = {
            "format": fmt,
            "min_group_size": candidate["group_size"],
            "swiss_rounds": None,
            "swiss_acceleration": "none",
            "swiss_round_days": None,
        }
    if fmt == "silli":
        games = candidate["games_per_player"]
        inherited = stage.tournament.games_per_player
        changes["games_per_player_override"] = None if games == inherited else games
        changes["balance_ratings"] = bool(candidate.get("balance_ratings"))
    elif fmt == "round_robin":
        changes["double_round_robin"] = bool(candidate.get("double_round_robin"))
    if candidate.get("qualify_rule"):
        changes["qualify_rule"] = candidate["qualify_rule"]
        changes["qualify_value"] = Decimal(candidate["qualify_value"])
        changes["qualify_relative"] = bool(candidate.get("qualify_relative"))
    return changes


def apply_candidate(user, run: LabRun, index: int) -> Stage:
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
    return update_stage(user, stage, **stage_changes(stage, run.candidates[index]))
