"""Result entry: one action per change, each in one transaction with its audit event.

Optimistic concurrency: every save names the game's ``version`` it was based on; a save
based on an older version is refused with a conflict (nothing is overwritten silently).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from apps.core.audit import Action, entrant_withdrawn, record, result_changed, results_entered
from apps.core.bulk import update_rows
from apps.core.errors import ActionError, ErrorCode
from apps.core.permissions import Actor, require_result_entry
from apps.core.results import Result, Side
from apps.entrants.models import StageEntry
from apps.groups.models import Game, Group
from apps.notifications import tasks as notify
from apps.stages.models import Stage
from apps.standings.freshness import schedule_recompute, schedule_recomputes

from . import settling
from .signals import announce


def require_in_play(stage: Stage) -> None:
    """Refuse a result change unless the stage is in play (published, not closed)."""
    if stage.status != Stage.Status.PUBLISHED:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Results can be entered only while the stage is in play; it is %(status)s.")
            % {"status": stage.get_status_display().lower()},
        )


def require_result_code(result: str) -> Result:
    """The :class:`Result` of a result code as a TD types it, or a refusal naming the codes
    (every way a result comes in — one game's form, the API, an import — checks it here)."""
    if result not in Result.values:
        raise ActionError(
            ErrorCode.INVALID_INPUT,
            _(
                "%(result)r is not a result code; use one of 1-0, 0-1, 1/2-1/2, +-, -+, -- or "
                "empty for in progress."
            )
            % {"result": result},
        )
    return Result(result)


def require_group_open(group: Group) -> None:
    """Refuse a result change in a closed group (its results are final until reopened)."""
    if group.is_closed:
        raise ActionError(
            ErrorCode.WRONG_STATUS,
            _("Group %(number)s is closed; an organizer can reopen it for a correction.")
            % {"number": group.number},
        )


def enter_result(
    user: Actor,
    game: Game,
    result: str,
    *,
    expected_version: int,
    adjudicated: bool = False,
    reason: str = "",
    pgn: str | None = None,
    finished_on: date | None = None,
) -> Game:
    """Set (or correct) a game's result. A correction of a finished game needs a reason.
    ``pgn`` (None: keep the stored one) is the game's score, checked move by move against
    the result ('' removes it); ``finished_on`` (None: keep, or today for a new result)."""
    require_result_code(result)
    with transaction.atomic():
        game = locked_game(game.pk)
        require_result_entry(user, game.group)
        if pgn is not None:
            from .imports import checked_game_score  # imports builds on this module

            pgn = checked_game_score(game, result, pgn) if pgn.strip() and result else ""
        return set_result(
            user,
            game,
            result,
            expected_version=expected_version,
            adjudicated=adjudicated,
            reason=reason,
            pgn=pgn,
            finished_on=finished_on,
        )


def locked_group(pk: int) -> Group:
    """The group, locked for the caller's transaction (with its stage and tournament, not
    locked). Every write into a group's games takes it first, as closing the group does, so a
    write either commits before the close or sees the group closed (the lock order:
    ``apps.core.locking``)."""
    return (
        Group.objects.select_for_update(no_key=True, of=("self",))
        .select_related("stage__tournament")
        .get(pk=pk)
    )


def locked_game(pk: int) -> Game:
    """The game, locked for the caller's transaction after its group (:func:`locked_group`),
    with its group (read under that lock), stage and players."""
    group_id = Game.objects.filter(pk=pk).values_list("group_id", flat=True).get()
    locked_group(group_id)
    return (
        Game.objects.select_for_update(no_key=True, of=("self",))
        .select_related("group__stage__tournament", "white", "black")
        .get(pk=pk)
    )


def set_result(
    user: Actor | None,
    game: Game,
    result: str,
    *,
    expected_version: int,
    adjudicated: bool = False,
    reason: str = "",
    pgn: str | None = None,
    finished_on: date | None = None,
    road: str = settling.ENTERED,
) -> Game:
    """The result change itself, for a caller that checked who may make it: ``game`` is
    locked (:func:`locked_game`) in the caller's transaction. The stage must be in play and
    the group open; audited, standings marked, the result e-mail sent on commit. ``pgn``
    (when not None) is stored as the game's score with the result. The game's finish date
    is ``finished_on``, else the one it has, else today; a game back in progress has none.
    A report of the game still awaiting an answer or a decision closes (``road``: how the
    result came, for its audit event; :mod:`.settling`)."""
    reason = reason.strip()
    require_in_play(game.group.stage)
    require_group_open(game.group)
    if game.version != expected_version:
        raise ActionError(
            ErrorCode.CONFLICT,
            _(
                "%(white)s – %(black)s was changed meanwhile (now %(result)s). Reload the "
                "game and enter the result again."
            )
            % {
                "white": game.white.name,
                "black": game.black.name,
                "result": game.result or _("in progress"),
            },
            [{"game": game.pk, "version": game.version, "result": game.result}],
        )
    old, old_adjudicated = game.result, game.adjudicated
    result_changes = (old, old_adjudicated) != (result, adjudicated and bool(result))
    score_changes = pgn is not None and pgn != game.pgn
    date_changes = finished_on is not None and bool(result) and finished_on != game.finished_on
    if not (result_changes or score_changes or date_changes):
        return game
    correcting = bool(old) and result_changes
    if correcting and not reason:
        raise ActionError(
            ErrorCode.INVALID_INPUT, _("Give a reason for correcting a finished game.")
        )
    game.result, game.adjudicated = result, adjudicated and bool(result)
    game.version += 1
    game.updated_at = timezone.now()
    if game.result:
        game.finished_on = finished_on or game.finished_on or timezone.localdate()
    else:
        game.finished_on = None
    fields = ["result", "adjudicated", "version", "updated_at", "finished_on"]
    if pgn is not None:
        game.pgn = pgn
        fields.append("pgn")
    game.save(update_fields=fields)
    if not result_changes:  # the score or the date of a finished game: no result e-mail
        record(
            Action.GAME_SCORE_CHANGED,
            user,
            stage=game.group.stage,
            group=game.group,
            game=game,
            pgn=bool(game.pgn),
            finished_on=game.finished_on.isoformat() if game.finished_on else None,
        )
        return game
    result_changed(
        user,
        game,
        old=old,
        new=game.result,
        adjudicated=game.adjudicated,
        reason=reason,
        corrected=correcting,
    )
    if game.result:
        settling.settle_reports(user, road, game_ids=[game.pk])
    _standings_changed(game.group_id, game.group.stage)
    transaction.on_commit(lambda: notify.result_changed.delay(game.pk, game.version))
    return game


@dataclass(frozen=True)
class SystemResult:
    """A result the system decides for a game (``game`` locked by the caller), with the
    sentence that says why, the score to store with it (None: keep) and the day it ended."""

    game: Game
    result: str
    reason: str
    finished_on: date
    pgn: str | None = None


def set_system_results(
    user: Actor | None, changes: Sequence[SystemResult], *, road: str
) -> list[Game]:
    """Results the system decides for many games at once (``apps.play``'s clock sweep: losses
    on time and by silence), each game locked by the caller after its group (:func:`locked_group`).
    What :func:`set_result` does for one game, set based: only unfinished games of open
    groups of stages in play change (others are skipped); one ``result.entered`` event per
    game with its reason, the games' open reports settled (``road``), their groups'
    standings marked, each game's result e-mail queued on commit. Returns the games changed."""
    now = timezone.now()
    changed: list[tuple[Game, str]] = []
    for change in changes:
        game, group = change.game, change.game.group
        if game.result or group.is_closed or group.stage.status != Stage.Status.PUBLISHED:
            continue
        game.result = require_result_code(change.result).value
        game.adjudicated = False
        game.version += 1
        game.updated_at = now
        game.finished_on = change.finished_on
        if change.pgn is not None:
            game.pgn = change.pgn
        changed.append((game, change.reason))
    if not changed:
        return []
    update_rows(
        Game,
        ("result", "adjudicated", "version", "updated_at", "finished_on", "pgn"),
        (
            (g.pk, g.result, g.adjudicated, g.version, g.updated_at, g.finished_on, g.pgn)
            for g, _reason in changed
        ),
    )
    results_entered(user, changed)
    games = [g for g, _reason in changed]
    settling.settle_reports(user, road, game_ids=[g.pk for g in games])
    by_stage: dict[int, tuple[Stage, set[int]]] = {}
    for g in games:
        by_stage.setdefault(g.group.stage_id, (g.group.stage, set()))[1].add(g.group_id)
    for stage, group_ids in by_stage.values():
        schedule_recomputes(sorted(group_ids))
        announce(stage, group_ids)
    versions = [(g.pk, g.version) for g in games]
    transaction.on_commit(
        lambda: [notify.result_changed.delay(pk, version) for pk, version in versions]
    )
    return games


def withdraw_entrant(user: Actor, entry: StageEntry, reason: str) -> list[Game]:
    """Withdraw an entrant from a stage: every unfinished game becomes a forfeit loss for
    them (marked ``forfeited_by`` them), in one transaction and one audit event."""
    reason = reason.strip()
    if not reason:
        raise ActionError(ErrorCode.INVALID_INPUT, _("Give the reason for the withdrawal."))
    with transaction.atomic():
        # The entrant's group (one seat per stage) first, then the entry and the games.
        seat_group = (
            Group.objects.filter(seats__stage_id=entry.stage_id, seats__entrant_id=entry.entrant_id)
            .values_list("pk", flat=True)
            .first()
        )
        if seat_group is not None:
            locked_group(seat_group)
        entry = (
            StageEntry.objects.select_for_update(no_key=True, of=("self",))
            .select_related("stage__tournament", "entrant")
            .get(pk=entry.pk)
        )
        games = list(
            Game.objects.select_for_update(no_key=True, of=("self",))
            .select_related("group")
            # The group the entrant sits in (one seat per stage), then their games in it:
            # games are indexed by group, not by player.
            .filter(group__seats__stage=entry.stage, group__seats__entrant=entry.entrant)
            .filter(Q(white=entry.entrant) | Q(black=entry.entrant))
            .order_by("number")
        )
        group = games[0].group if games else None
        if group is None:
            raise ActionError(ErrorCode.WRONG_STATUS, _("The entrant has no games in this stage."))
        require_result_entry(user, group)
        require_in_play(entry.stage)
        if entry.withdrawn_at is not None:
            raise ActionError(
                ErrorCode.WRONG_STATUS,
                _("%(name)s has withdrawn already.") % {"name": entry.entrant.name},
            )
        now = timezone.now()
        changed = []
        for game in games:
            if game.result:
                continue
            side: Side = "white" if game.white_id == entry.entrant_id else "black"
            game.result = Result.forfeit_loss(side)
            game.version += 1
            game.updated_at = now
            game.forfeited_by_id, game.forfeited_at = entry.entrant_id, now
            changed.append(game)
        Game.objects.bulk_update(
            changed, ["result", "version", "updated_at", "forfeited_by", "forfeited_at"]
        )
        entry.withdrawn_at = now
        entry.withdrawal_reason = reason
        entry.save(update_fields=["withdrawn_at", "withdrawal_reason"])
        entrant_withdrawn(
            user,
            stage=entry.stage,
            group=group,
            entrant_code=entry.entrant.code,
            reason=reason,
            forfeited=changed,
        )
        settling.settle_reports(user, settling.WITHDRAWAL, game_ids=[g.pk for g in changed])
        _standings_changed(group.pk, entry.stage)
        transaction.on_commit(lambda: notify.entrant_withdrawn.delay(entry.pk))
    return changed


def forfeit_result(game: Game) -> str:
    """The result a withdrawal gave ``game`` (one with ``forfeited_by`` set)."""
    return Result.forfeit_loss("white" if game.forfeited_by_id == game.white_id else "black")


def _standings_changed(group_id: int, stage: Stage) -> None:
    """Mark the group's standings pending in the change's transaction (the mark commits with
    the result, or not at all); the recompute is queued on commit, and the apps above are
    told (``signals.results_changed``)."""
    schedule_recompute(group_id)
    announce(stage, [group_id])
