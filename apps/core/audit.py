"""Writing audit events (call inside the action's transaction).

Every action name is a member of :class:`Action`; its value is the string stored in
``AuditEvent.action`` (never change a value: stored events keep theirs). The events whose
details code reads back have a builder here (:func:`result_changed`,
:func:`entrant_withdrawn`), so their keys are spelled in one place.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

from django.db.models import F, QuerySet

from . import pagecache
from .bulk import insert_rows, insert_select
from .models import AuditEvent, ResultChange
from .permissions import Actor, signed_in


class Action(StrEnum):
    """The name of an audited state change, as stored in ``AuditEvent.action``."""

    # accounts
    ACCOUNT_CREATED = "account.created"  # a new account was made (username)
    ACCOUNT_TOKEN_CREATED = "account.token_created"  # an API token was created or replaced
    ACCOUNT_NAME_CHANGED = "account.name_changed"  # an account's display name was set
    ORGANIZER_RIGHT_GRANTED = "account.organizer_right_granted"  # staff: may create tournaments
    ORGANIZER_RIGHT_REVOKED = "account.organizer_right_revoked"  # staff took that right away
    INVITATION_SENT = "invitation.sent"  # an organizer invited an e-mail address to a role
    INVITATION_ACCEPTED = "invitation.accepted"  # the invited account took up the role
    ENTRANT_LINKED = "entrant.linked"  # an organizer linked an entry to an account (or unlinked)
    ENTRANT_CLAIM_LINKS_SENT = "entrant.claim_links_sent"  # claim links e-mailed to entrants
    ENTRANT_CLAIMED = "entrant.claimed"  # a player claimed an entry with a claim link
    # the person at an entry's address said, through a claim link, that it is not theirs
    ENTRANT_CLAIM_REFUSED = "entrant.claim_refused"
    # tournaments, registration and the draw
    TOURNAMENT_CREATED = "tournament.created"  # an organizer created a tournament
    TOURNAMENT_UPDATED = "tournament.updated"  # its settings changed (changes: field → [old, new])
    STAGE_CREATED = "stage.created"  # a stage was added to a tournament (its settings)
    STAGE_UPDATED = "stage.updated"  # a stage's settings changed (changes: field → [old, new])
    STAGE_DELETED = "stage.deleted"  # an undrawn stage was removed (kind, order, status)
    ENTRANTS_IMPORTED = "entrants.imported"  # a stage's entrants were imported
    ENTRANTS_REPLACED = "entrants.replaced"  # an import replaced a stage's list (codes changed)
    ENTRANTS_IMPORT_STARTED = "entrants.import_started"  # a big import was queued as a job
    ENTRANTS_IMPORT_FAILED = "entrants.import_failed"  # an import job wrote nothing (error)
    ENTRANT_ADDED = "entrant.added"  # an organizer added one entrant while registration is open
    ENTRANT_UPDATED = "entrant.updated"  # an entrant's details were changed (old → new)
    ENTRANT_REMOVED = "entrant.removed"  # an entrant was taken off an open stage's list
    # a tournament's entries were tied to their people (created, merged: people made, merged)
    PEOPLE_LINKED = "people.linked"
    REGISTRATION_CLOSED = "registration.closed"  # a stage's entrant list was frozen (digest)
    REGISTRATION_REOPENED = "registration.reopened"  # a stage's registration was reopened
    DRAW_STARTED = "draw.started"  # a draw job was queued (seed)
    DRAW_FINISHED = "draw.finished"  # a draw job wrote the groups, seats and games
    DRAW_FAILED = "draw.failed"  # a draw job failed (error)
    DRAW_CANCELLED = "draw.cancelled"  # an organizer stopped a running draw job
    DRAW_PUBLISHED = "draw.published"  # the draw was made public and immutable
    SWISS_ROUND_REQUESTED = "swiss.round_requested"  # a Swiss stage's next round was queued
    SWISS_ROUND_PAIRED = "swiss.round_paired"  # a Swiss round's games (and bye) were written
    SWISS_ROUND_FAILED = "swiss.round_failed"  # a Swiss round could not be paired (error)
    # a Swiss round's deadline passed (round, open_games, mode: adjudicate or td; the system)
    SWISS_ROUND_DEADLINE_PASSED = "swiss.round_deadline_passed"
    # an organizer sent a Swiss round's open games to adjudication after its deadline passed
    # in a stage whose rounds wait for the TD (round, open_games)
    SWISS_ROUND_SENT_TO_ADJUDICATION = "swiss.round_sent_to_adjudication"
    SWISS_LATE_ENTRANT_ADDED = "swiss.late_entrant_added"  # a late entrant took the next seat
    # groups and results
    GROUP_TD_ASSIGNED = "group.td_assigned"  # a group's TD was named or removed
    RESULT_ENTERED = "result.entered"  # an unfinished game got a result
    RESULT_CORRECTED = "result.corrected"  # a finished game's result was changed (reason)
    ENTRANT_WITHDRAWN = "entrant.withdrawn"  # an entrant left a stage; open games forfeited
    GROUP_CLOSED = "group.closed"  # a group was closed for results
    GROUP_REOPENED = "group.reopened"  # a closed group was reopened (reason)
    STAGE_SENT_TO_ADJUDICATION = "stage.sent_to_adjudication"  # open games go to adjudication
    STAGE_CLOSED = "stage.closed"  # a stage was closed (with its remaining groups)
    # standings
    STANDINGS_RECOMPUTE_FORCED = "standings.recompute_forced"  # an organizer forced a recompute
    # qualification
    QUALIFICATION_RULE_SET = "qualification.rule_set"  # a stage's qualification rule changed
    QUALIFICATION_PREQUALIFIED = "qualification.prequalified"  # an entrant was pre-qualified
    QUALIFICATION_DECLINED = "qualification.declined"  # a qualifier declined the next stage
    QUALIFICATION_CONFIRMED = "qualification.confirmed"  # the next stage's entrants were fixed
    # notifications
    NOTIFICATIONS_PREFERENCES_CHANGED = "notifications.preferences_changed"  # e-mail choices
    # results, in bulk (each game it changed is a ResultChange row of the event)
    RESULTS_IMPORTED = "results.imported"  # a CSV/PGN file of results (counts)
    RESULTS_IMPORT_STARTED = "results.import_started"  # a big results import queued as a job
    RESULTS_IMPORT_FAILED = "results.import_failed"  # a results import job wrote nothing
    # results players report (the opponent confirms: the game also gets result.entered)
    RESULT_REPORTED = "result.reported"  # a player reported their game's result (report id)
    RESULT_REPORT_CONFIRMED = "result.report_confirmed"  # the opponent confirmed a report
    RESULT_REPORT_DISPUTED = "result.report_disputed"  # the opponent disputed it (reason)
    RESULT_REPORT_ACCEPTED = "result.report_accepted"  # unanswered in time: it stood (system)
    # an open report's game got a result by another road (status resolved or superseded, road)
    RESULT_REPORT_CLOSED = "result.report_closed"
    GAME_SCORE_CHANGED = "game.score_changed"  # a finished game's score or finish date (TD)
    # rating lists (apps/ratinglists)
    RATING_LIST_IMPORTED = "rating_list.imported"  # a rating list was written (list, rows)
    RATING_LIST_IMPORT_STARTED = "rating_list.import_started"  # a big list queued as a job
    RATING_LIST_IMPORT_FAILED = "rating_list.import_failed"  # a list import job wrote nothing
    # a stage's entrants took their ratings from a list (list, matched, updated, missing)
    RATING_LIST_APPLIED = "rating_list.applied"
    # registration by players (apps/players: the player asks, organizers decide)
    PLAYER_REGISTERED = "player_registration.requested"  # a player asked (status, position)
    PLAYER_REGISTRATION_WITHDRAWN = "player_registration.withdrawn"  # the player withdrew it
    # a place freed: the first on the reserve list now waits for approval (position)
    PLAYER_REGISTRATION_MOVED_UP = "player_registration.moved_up"
    PLAYER_REGISTRATION_APPROVED = "player_registration.approved"  # an entrant (code) was made
    PLAYER_REGISTRATION_REJECTED = "player_registration.rejected"  # an organizer refused (reason)
    # play on the server (apps/play, docs/play.md)
    PLAY_STARTED = "play.started"  # a stage's games (or a Swiss round's) began here (games)
    PLAY_MOVE = "play.move"  # a player moved (ply, san; conditional: played from their list)
    PLAY_DRAW_OFFERED = "play.draw_offered"  # a player offered a draw (ply)
    PLAY_DRAW_ACCEPTED = "play.draw_accepted"  # the opponent accepted: drawn
    PLAY_DRAW_DECLINED = "play.draw_declined"  # the opponent declined the standing offer
    PLAY_RESIGNED = "play.resigned"  # a player resigned (side)
    PLAY_CLAIMED = "play.claimed"  # a player claimed (kind, granted; or sent to the TD)
    PLAY_GAME_ENDED = "play.game_ended"  # a game here ended (how, result, ply)
    PLAY_DAYS_ADDED = "play.days_added"  # a TD added days to a player's clock (side, days, reason)
    PLAY_CONDITIONALS_SET = "play.conditionals_set"  # a player left "if X then Y" moves
    PLAY_CONDITIONALS_CANCELLED = "play.conditionals_cancelled"  # a player withdrew them
    PLAY_LONG_THINK_DECLARED = "play.long_think_declared"  # the player to move: > silence days
    # play on the server: leave (apps/play/leave.py, docs/play-clock-ops.md)
    PLAY_LEAVE_TAKEN = "play.leave_taken"  # a player announced leave (first, last, special)
    PLAY_LEAVE_CANCELLED = "play.leave_cancelled"  # a player cancelled a leave not yet begun


# The events that change a game's result (a group's and a TD's history lists them).
RESULT_EVENTS = (Action.RESULT_ENTERED, Action.RESULT_CORRECTED, Action.ENTRANT_WITHDRAWN)


def record(
    action: Action,
    actor: Actor | None = None,
    *,
    tournament=None,
    stage=None,
    group=None,
    game=None,
    **data,
) -> AuditEvent:
    """Write one audit event (call inside the action's transaction)."""
    event = record_unpaged(
        action, actor, tournament=tournament, stage=stage, group=group, game=game, **data
    )
    # What the change shows on: its cached public pages are retired once it commits.
    pagecache.bump(pagecache.event_scopes(event.tournament_id, event.stage_id, event.group_id))
    return event


def record_unpaged(
    action: Action,
    actor: Actor | None = None,
    *,
    tournament=None,
    stage=None,
    group=None,
    game=None,
    **data,
) -> AuditEvent:
    """:func:`record` for a change that shows on no cached public page (a move of a game
    played here): no page is retired."""
    if stage is not None and tournament is None:
        tournament = stage.tournament
    return AuditEvent.objects.create(
        action=Action(action),
        actor=actor if signed_in(actor) else None,
        tournament_id=_id(tournament),
        stage_id=_id(stage),
        group_id=_id(group),
        game_id=_id(game),
        data=data,
    )


def record_many(
    action: Action, actor: Actor | None, events: Iterable[tuple[Any, Any, Any, dict]]
) -> None:
    """Write one ``action`` event for each ``(stage, group, game, data)`` in one statement
    (an action over many games: a clock sweep's ends), as :func:`record` writes each."""
    by = actor if signed_in(actor) else None
    rows = [
        (
            Action(action).value,
            by.pk if by is not None else None,
            stage.tournament_id,
            stage.pk,
            _id(group),
            _id(game),
            data,
        )
        for stage, group, game, data in events
    ]
    insert_rows(
        AuditEvent,
        ("action", "actor_id", "tournament_id", "stage_id", "group_id", "game_id", "data"),
        rows,
    )
    pagecache.bump({scope for row in rows for scope in pagecache.event_scopes(*row[2:5])})


def _id(obj) -> int | None:
    return None if obj is None else obj.pk


# ---------------------------------------------------------------------------
# Events whose details are read back
# ---------------------------------------------------------------------------


def result_change_data(old: str, new: str, adjudicated: bool, reason: str) -> dict[str, Any]:
    """The details of a result change (also written in bulk by the simulation)."""
    return {"old": old, "new": new, "adjudicated": adjudicated, "reason": reason}


def result_changed(
    actor: Actor | None,
    game,
    *,
    old: str,
    new: str,
    adjudicated: bool,
    reason: str,
    corrected: bool,
) -> AuditEvent:
    """A game's result was entered (``corrected=False``) or changed: ``old`` → ``new``."""
    return record(
        Action.RESULT_CORRECTED if corrected else Action.RESULT_ENTERED,
        actor,
        stage=game.group.stage,
        group=game.group,
        game=game,
        **result_change_data(old, new, adjudicated, reason),
    )


def results_imported(
    actor: Actor | None,
    *,
    stage,
    group=None,
    file_format: str,
    entered: int,
    scored: int,
    unchanged: int,
    groups: Iterable[int],
    changes: Iterable[Sequence] = (),
    changes_select: str | None = None,
    job: int | None = None,
) -> AuditEvent:
    """A file of results was imported into ``group`` (or, without one, into ``stage``).

    One ``results.imported`` event holds the counts: ``entered`` games got their result,
    ``scored`` games finished before with the same result got a score or a finish date
    only, ``unchanged`` lines left their game as it was. Each game it changed is a
    :class:`ResultChange` row of the event (``old`` → ``new``; the same for a score only),
    given as ``changes`` — rows of (game id, group id, old, new) — or, on PostgreSQL, as
    ``changes_select``, a query giving those columns (the rows never reach Python). A game's
    history, its group's recent changes and the TDs' digest read them
    (:func:`result_change_events`). ``groups``: the groups of the changed games (their
    cached pages are retired). ``job``: the results import job that applied the file.
    """
    event = record(
        Action.RESULTS_IMPORTED,
        actor,
        stage=stage,
        group=group,
        format=file_format,
        entered=entered,
        scored=scored,
        unchanged=unchanged,
        **({} if job is None else {"job": job}),
    )
    columns = ("event_id", "game_id", "group_id", "old", "new")
    if changes_select is not None:
        insert_select(
            ResultChange,
            columns,
            f"SELECT CAST(%s AS bigint), q.* FROM ({changes_select}) q",
            [event.pk],
        )
    else:
        insert_rows(ResultChange, columns, ((event.pk, *row) for row in changes))
    pagecache.bump((pagecache.GROUP, group_id) for group_id in set(groups))
    return event


def result_change_events(
    changes: QuerySet[ResultChange], limit: int | None = None
) -> list[AuditEvent]:
    """The games' result changes made by imports (``changes``: :class:`ResultChange` rows;
    those that set no result — a score only — are left out) as the ``result.entered``
    events they stand for: unsaved events with the import event's id, time, actor and
    scope, the game's id and group, and the details of :func:`result_change_data` marked
    with the import (``data["import"]``), for the readers of a game's or a group's history;
    the first ``limit`` of them (None: all)."""
    found = changes.exclude(old=F("new")).select_related("event__actor")[:limit]
    events = []
    for change in found:
        event = change.event
        stands_for = AuditEvent(
            pk=event.pk,
            created_at=event.created_at,
            actor_id=event.actor_id,
            action=Action.RESULT_ENTERED,
            tournament_id=event.tournament_id,
            stage_id=event.stage_id,
            group_id=change.group_id,
            game_id=change.game_id,
            data={**result_change_data(change.old, change.new, False, ""), "import": event.pk},
        )
        if event.actor_id is not None:
            stands_for.actor = event.actor
        events.append(stands_for)
    return events


def imported_games(event: AuditEvent, among: Iterable[int] | None = None) -> set[int]:
    """The ids of the games whose results the import ``event`` set — of the games ``among``
    if given (events written before :class:`ResultChange` listed them in
    ``data["games"]``)."""
    if "games" in event.data:
        found = set(event.data["games"])
        return found if among is None else found & set(among)
    changes = ResultChange.objects.filter(event=event).exclude(old=F("new"))
    if among is not None:
        changes = changes.filter(game_id__in=list(among))
    return set(changes.values_list("game_id", flat=True).iterator(chunk_size=10_000))


def results_entered(actor: Actor | None, entered: Iterable[tuple[Any, str]]) -> None:
    """Results the system set for many games at once (a clock sweep's losses on time and by
    silence): one ``result.entered`` event per game, as :func:`result_changed` writes it
    (old ``""``, the game's new result, its reason), all in one statement. ``entered``:
    ``(game, reason)`` pairs, each game with its group and stage loaded."""
    entered = list(entered)
    by = actor if signed_in(actor) else None
    insert_rows(
        AuditEvent,
        ("action", "actor_id", "tournament_id", "stage_id", "group_id", "game_id", "data"),
        (
            (
                Action.RESULT_ENTERED.value,
                by.pk if by is not None else None,
                g.group.stage.tournament_id,
                g.group.stage_id,
                g.group_id,
                g.pk,
                result_change_data("", g.result, g.adjudicated, reason),
            )
            for g, reason in entered
        ),
    )
    pagecache.bump(
        {
            scope
            for g, _reason in entered
            for scope in pagecache.event_scopes(
                g.group.stage.tournament_id, g.group.stage_id, g.group_id
            )
        }
    )


def entrant_withdrawn(
    actor: Actor | None, *, stage, group, entrant_code: str, reason: str, forfeited: Iterable
) -> AuditEvent:
    """An entrant withdrew from ``stage``; ``forfeited`` are the games that became forfeits.

    The games are listed for the record only: which games a withdrawal forfeited is
    ``Game.forfeited_by``, never read back from here.
    """
    return record(
        Action.ENTRANT_WITHDRAWN,
        actor,
        stage=stage,
        group=group,
        entrant=entrant_code,
        reason=reason,
        games=[{"game": g.pk, "new": g.result} for g in forfeited],
    )


def withdrawn_entrant_code(event: AuditEvent) -> str:
    """The code of the entrant an ``entrant.withdrawn`` event is about."""
    return event.data.get("entrant", "")


def withdrawals_of(entrant_code: str) -> QuerySet[AuditEvent]:
    """The withdrawal events of the entrant with ``entrant_code`` (narrow by stage/group)."""
    return AuditEvent.objects.filter(action=Action.ENTRANT_WITHDRAWN, data__entrant=entrant_code)
