"""Actions on stages: one function per state change, each in one transaction with its audit
event, side effects sent with ``on_commit``."""

from __future__ import annotations

import secrets

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import record
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import require_organizer
from apps.entrants.services import engine_entrants
from apps.notifications import tasks as notify
from apps.silli.entrants import entrants_digest
from apps.standings.services import schedule_recompute

from . import tasks
from .draw import draw_settings
from .models import DrawJob, Stage, Tournament

MAX_SEED_LENGTH = 200
# Silli's FINAL: players of one nation may meet; every stage avoids rematches.
KIND_DEFAULTS = {Stage.Kind.FINAL: {"separate_nations": False}}


def create_tournament(
    user, *, name: str, slug: str, stages: list[dict] | None = None, **fields
) -> Tournament:
    """A tournament with its stages (default: one Silli preliminary), the user its organizer."""
    with transaction.atomic():
        tournament = Tournament.objects.create(name=name, slug=slug, **fields)
        if user is not None and user.is_authenticated:
            tournament.organizers.add(user)
        for order, spec in enumerate(stages or [{}], start=1):
            defaults = KIND_DEFAULTS.get(spec.get("kind", Stage.Kind.PRELIMINARY), {})
            Stage.objects.create(tournament=tournament, order=order, **{**defaults, **spec})
        record("tournament.created", user, tournament=tournament, name=name)
    return tournament


def _locked(stage: Stage) -> Stage:
    return Stage.objects.select_related("tournament").select_for_update().get(pk=stage.pk)


def _move(stage: Stage, status: str, doing: str) -> None:
    """Move the stage to ``status`` or refuse; ``doing`` names the action (translated)."""
    if not stage.can_move_to(status):
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Cannot %(action)s: the stage is %(status)s.")
            % {"action": doing, "status": stage.get_status_display().lower()},
        )
    stage.status = status


def close_registration(user, stage: Stage) -> Stage:
    """Freeze the entrant list and record its SHA-256 digest."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = _locked(stage)
        _move(stage, Stage.Status.REGISTRATION_CLOSED, _("close registration"))
        entrants = engine_entrants(stage)
        if not entrants:
            raise ActionError(ErrorCode.INVALID_INPUT, _("The stage has no entrants yet."))
        stage.entrants_digest = entrants_digest(entrants)
        stage.registration_closed_at = timezone.now()
        stage.save(update_fields=["status", "entrants_digest", "registration_closed_at"])
        record(
            "registration.closed",
            user,
            stage=stage,
            entrants=len(entrants),
            digest=stage.entrants_digest,
        )
    return stage


def reopen_registration(user, stage: Stage) -> Stage:
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = _locked(stage)
        _move(stage, Stage.Status.DRAFT, _("reopen registration"))
        stage.entrants_digest = ""
        stage.registration_closed_at = None
        stage.save(update_fields=["status", "entrants_digest", "registration_closed_at"])
        record("registration.reopened", user, stage=stage)
    return stage


def generate_seed() -> str:
    """A seed for organizers who have no lottery result to hand (shown and recorded)."""
    return f"CC-{timezone.now():%Y%m%d}-{secrets.token_hex(8)}"


def start_draw(user, stage: Stage, seed: str) -> DrawJob:
    """Start (or restart) the draw job; a published draw can no longer be redrawn."""
    require_organizer(user, stage.tournament)
    seed = (seed or "").strip()
    if not seed:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("Type the seed (e.g. a lottery result) or generate one before drawing."),
        )
    if len(seed) > MAX_SEED_LENGTH:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _("The seed is longer than %(max)s characters.") % {"max": MAX_SEED_LENGTH},
        )
    with transaction.atomic():
        stage = _locked(stage)
        if stage.status not in (Stage.Status.REGISTRATION_CLOSED, Stage.Status.DRAWN):
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _(
                    "A draw needs closed registration and an unpublished stage; this stage is "
                    "%(status)s."
                )
                % {"status": stage.get_status_display().lower()},
            )
        job = DrawJob.objects.create(
            stage=stage,
            seed=seed,
            draw_settings=draw_settings(stage).as_dict(),
            started_by=user if user.is_authenticated else None,
        )
        record("draw.started", user, stage=stage, seed=seed, job=job.pk)
        transaction.on_commit(lambda: tasks.run_draw.delay(job.pk))
    return job


def publish_draw(user, stage: Stage) -> Stage:
    """Make the drawn groups public; from now on the draw is immutable."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        stage = _locked(stage)
        _move(stage, Stage.Status.PUBLISHED, _("publish"))
        stage.published_at = timezone.now()
        stage.save(update_fields=["status", "published_at"])
        record("draw.published", user, stage=stage, digest=stage.draw_digest, seed=stage.seed)
        group_ids = list(stage.groups.values_list("pk", flat=True))
        # Every group gets its (empty) standings, so the stage's ranking has everyone.
        transaction.on_commit(lambda: [schedule_recompute(g) for g in group_ids])
        transaction.on_commit(lambda: notify.draw_published.delay(stage.pk))
    return stage
