"""The draw's actions: start (or restart) the draw job, publish the drawn groups."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_organizer
from apps.groups.rounds import start_round
from apps.notifications import tasks as notify
from apps.play.services import start_play
from apps.silli.swiss_system import round_virtual_points
from apps.stages.feasibility import require_drawable
from apps.stages.models import DrawJob, Stage
from apps.stages.services import locked, move
from apps.standings.freshness import schedule_recomputes

from . import tasks
from .draw import draw_settings
from .seeds import seed_problem


def start_draw(user: Actor, stage: Stage, seed: str) -> DrawJob:
    """Start (or restart) the draw job; a published draw can no longer be redrawn."""
    require_organizer(user, stage.tournament)
    seed = (seed or "").strip()
    if not seed:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("Type the seed (e.g. a lottery result) or generate one before drawing."),
        )
    problem = seed_problem(seed)
    if problem is not None:
        raise ActionError(ErrorCode.INVALID_INPUT, problem)
    with transaction.atomic():
        stage = locked(stage)
        if stage.status not in (Stage.Status.REGISTRATION_CLOSED, Stage.Status.DRAWN):
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "A draw needs closed registration and an unpublished stage; this stage is "
                    "%(status)s."
                )
                % {"status": stage.get_status_display().lower()},
            )
        if stage.is_swiss:
            _check_swiss_rounds(stage)
        else:
            require_drawable(stage)
        running = stage.draw_jobs.filter(status__in=DrawJob.UNFINISHED).order_by("-id").first()
        if running is not None:
            raise ActionError(
                ErrorCode.CONFLICT,
                _(
                    "A draw of this stage is already running (started %(when)s, %(done)s of "
                    "%(total)s groups drawn). Wait for it, or cancel it first."
                )
                % {
                    "when": timezone.localtime(running.created_at).strftime("%Y-%m-%d %H:%M"),
                    "done": running.done_groups,
                    "total": running.total_groups or "?",
                },
            )
        job = DrawJob.objects.create(
            stage=stage,
            seed=seed,
            draw_settings=draw_settings(stage).as_dict(),
            started_by=user if user.is_authenticated else None,
        )
        record(Action.DRAW_STARTED, user, stage=stage, seed=seed, job=job.pk)
        transaction.on_commit(lambda: tasks.run_draw.delay(job.pk))
    return job


def _check_swiss_rounds(stage: Stage) -> None:
    """A Swiss of R rounds needs at least R + 1 entrants (everyone meets at most once)."""
    entrants = stage.entries.count()
    rounds = stage.swiss_rounds or 0
    if not 1 <= rounds <= entrants - 1:
        raise ActionError(
            ErrorCode.DRAW_IMPOSSIBLE,
            _(
                "A Swiss of %(rounds)s rounds needs at least %(need)s entrants (no one meets "
                "anyone twice); this stage has %(count)s. Reopen registration to change the "
                "rounds."
            )
            % {"rounds": rounds, "need": rounds + 1, "count": entrants},
        )


def cancel_draw(user: Actor, stage: Stage) -> DrawJob:
    """Stop the stage's running draw job: it is marked failed at once, its remaining tasks
    find it finished and do nothing, and nothing of it is written to the stage."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        job = (
            stage.draw_jobs.select_for_update(no_key=True)
            .filter(status__in=DrawJob.UNFINISHED)
            .order_by("-id")
            .first()
        )
        if job is None:
            raise ActionError(ErrorCode.WRONG_STATUS, _("No draw of this stage is running."))
        job.status = DrawJob.Status.FAILED
        job.error = _("Cancelled by an organizer; nothing was written.")
        job.finished_at = timezone.now()
        job.save(update_fields=["status", "error", "finished_at"])
        record(Action.DRAW_CANCELLED, user, stage=stage, job=job.pk)
    return job


def publish_draw(user: Actor, stage: Stage) -> Stage:
    """Make the drawn groups public; from now on the draw is immutable."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = locked(stage)
        move(stage, Stage.Status.PUBLISHED, _("publish"))
        stage.published_at = timezone.now()
        stage.save(update_fields=["status", "published_at"])
        record(Action.DRAW_PUBLISHED, user, stage=stage, digest=stage.draw_digest, seed=stage.seed)
        if stage.is_swiss:
            # Round 1 (paired by the draw) starts now; its deadline counts from here.
            # The draw paired it with the seats as pairing numbers; its virtual points are kept.
            for group in stage.groups.all():
                applied = round_virtual_points(
                    list(range(1, group.size + 1)),
                    stage.swiss_rounds or 0,
                    stage.swiss_acceleration,
                    1,
                )
                start_round(group, 1, stage.swiss_round_days, stage.published_at, applied)
        # A stage played on this server: every game's clock starts now (apps/play).
        start_play(stage, stage.published_at, actor=user)
        # Every group gets its (empty) standings, so the stage's ranking has everyone: marked
        # pending with the publication, computed on commit.
        schedule_recomputes(stage.groups.values_list("pk", flat=True))
        transaction.on_commit(lambda: notify.draw_published.delay(stage.pk))
        # DRAW.json and its inputs, built once and kept (apps/office/publication.py).
        transaction.on_commit(lambda: tasks.store_published_files.delay(stage.pk))
    return stage
