"""The e-mails of games played on this server: an opponent's move (at once, or in a daily
digest), the silence reminders, and a player's leave told to their opponents. The result of a
game ended by the clock is e-mailed by the result action itself (``apps.results``), with the
reason it carries ("lost on time", "lost by silence").

Built here, one function per kind, sent by ``tasks`` through ``apps.notifications.delivery``
(each message once, by its key). Every e-mail carries the player's way in
(``apps.notifications.services.way_in``): a sign-in link back to the game, or, for an entry no
account holds yet, its claim link. Addresses and preferences as every e-mail of the
application (``entrant_recipients``): moves follow the "moves" and "digest" choices; the
reminders and leave notices, like the reminder before the end of play, follow "results of my
games".
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, date, datetime, time, timedelta

from django.db.models import Q
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.clock import Reminder
from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.core.people import td_name
from apps.entrants.models import Entrant
from apps.groups.models import Game
from apps.notifications.delivery import Message, absolute_url, deliverable
from apps.notifications.models import Kind, Preferences
from apps.notifications.services import (
    DEADLINE_PREFERENCE,
    entrant_recipients,
    in_site_language,
    way_in,
)

from .leave import player_open_games
from .models import Leave, Move, PlayedGame

# Reminders and leave notices follow "results of my games", as the reminder before the end
# of play does (a preference of their own would be one more box for a notice nobody should
# turn off lightly).
NOTICE_PREFERENCE = DEADLINE_PREFERENCE


def game_path(game: Game) -> str:
    stage = game.group.stage
    return reverse(
        "game", args=[stage.tournament.slug, stage.order, game.group.number, game.number]
    )


def _links() -> dict[str, str]:
    return {
        "me_url": absolute_url(reverse("me")),
        "preferences_url": absolute_url(reverse("me-notifications")),
    }


def _games(ids: Iterable[int]) -> dict[int, Game]:
    return Game.objects.select_related(
        "group__stage__tournament", "group__td", "white", "black"
    ).in_bulk(sorted(set(ids)))


def _side_entrant(game: Game, ply_in_hand: int) -> tuple[Entrant, Entrant, str]:
    """The player to make ``ply_in_hand``, their opponent and their colour ("W"/"B")."""
    if ply_in_hand % 2:
        return game.white, game.black, "W"
    return game.black, game.white, "B"


# ---------------------------------------------------------------------------
# Silence reminders
# ---------------------------------------------------------------------------


def reminder_key(game_id: int, ply: int, days: int) -> str:
    return f"silence:{game_id}:{ply}:{days}"


@in_site_language
def reminder_messages(reminders: Iterable[tuple[int, int, int]]) -> list[Message]:
    """One e-mail per claimed reminder ``(game, ply in hand, days)`` to the player to move
    (the last one copied to the group's TD), keyed by the game, the ply and the days, so a
    reminder goes once whatever runs it again (four queries a batch)."""
    reminders = list(reminders)
    games = _games(g for g, _p, _d in reminders)
    players = {_side_entrant(games[g], p)[0].pk for g, p, _d in reminders if g in games}
    recipients = entrant_recipients(NOTICE_PREFERENCE, Entrant.objects.filter(pk__in=players))
    messages = []
    for game_id, ply, days in reminders:
        game = games.get(game_id)
        if game is None:
            continue
        me, opponent, colour = _side_entrant(game, ply)
        reminder = Reminder(days)
        group, stage = game.group, game.group.stage
        path = game_path(game)
        context = {
            "entrant": me,
            "opponent": opponent,
            "colour": colour,
            "game": game,
            "group": group,
            "stage": stage,
            "tournament": stage.tournament,
            "days": days,
            "last": reminder.copies_td,
            "game_url": absolute_url(path),
            "td_name": td_name(group.td) if group.td else "",
            "td_email": group.td.email if group.td else "",
            **_links(),
        }
        subject = _(
            "%(tournament)s: %(days)s days without your move in game %(number)s (group %(group)s)"
        ) % {
            "tournament": stage.tournament.name,
            "days": days,
            "number": game.number,
            "group": group.number,
        }
        key = reminder_key(game.pk, ply, days)
        recipient = recipients.get(me.pk)
        if recipient is not None:
            body = render_to_string(
                "play/email/reminder.txt", {**context, **way_in(recipient, path)}
            )
            messages.append(Message(Kind.SILENCE, key, recipient.address, subject, body))
        if reminder.copies_td and group.td is not None and deliverable(group.td.email):
            body = render_to_string("play/email/reminder.txt", {**context, "to_td": True})
            messages.append(
                Message(Kind.SILENCE, key, group.td.email, _("Copy to the TD: ") + subject, body)
            )
    return messages


# ---------------------------------------------------------------------------
# A claim the TD decides
# ---------------------------------------------------------------------------


def claim_key(event_id: int) -> str:
    return f"claim:{event_id}"


@in_site_language
def claim_messages(event_id: int) -> list[Message]:
    """The group's TD hears of a claim sent to them (a tablebase or other claim, its audit
    event ``event_id``): who claims what in which game, the player's reason, the game's page.
    Nothing when the group has no TD with an address (the organizers see the claim in the
    group's history)."""
    event = AuditEvent.objects.filter(pk=event_id, action=Action.PLAY_CLAIMED).first()
    if event is None or event.game_id is None or not event.data.get("to_td"):
        return []
    game = _games([event.game_id]).get(event.game_id)
    if game is None or game.group.td is None or not deliverable(game.group.td.email):
        return []
    group, stage, td = game.group, game.group.stage, game.group.td
    claimant = game.white if event.data.get("side") == "white" else game.black
    context = {
        "td_name": td_name(td),
        "claimant": claimant,
        "kind": event.data.get("kind", ""),
        "reason": event.data.get("reason", ""),
        "ply": event.data.get("ply", 0),
        "game": game,
        "group": group,
        "stage": stage,
        "tournament": stage.tournament,
        "game_url": absolute_url(game_path(game)),
    }
    subject = _("%(tournament)s: %(player)s claims in game %(number)s (group %(group)s)") % {
        "tournament": stage.tournament.name,
        "player": claimant.name,
        "number": game.number,
        "group": group.number,
    }
    body = render_to_string("play/email/claim_to_td.txt", context)
    return [Message(Kind.REPORT, claim_key(event.pk), td.email, subject, body)]


# ---------------------------------------------------------------------------
# Leave, told to the opponents
# ---------------------------------------------------------------------------


def leave_key(leave_id: int, entrant_id: int, cancelled: bool) -> str:
    return f"leave{'-cancelled' if cancelled else ''}:{leave_id}:{entrant_id}"


def open_games_of(user_id: int) -> list[Game]:
    """The player's open games here, with what an e-mail shows of them."""
    return list(
        Game.objects.filter(pk__in=player_open_games(user_id).values("pk"))
        .select_related("group__stage__tournament", "white", "black")
        .order_by("group__stage_id", "group__number", "number")
    )


@in_site_language
def leave_messages(leave_id: int, cancelled: bool = False) -> list[Message]:
    """Each opponent in the player's open games here hears of the leave (or of its
    cancellation) once, one e-mail listing the games it touches."""
    leave = Leave.objects.select_related("user").filter(pk=leave_id).first()
    if leave is None or cancelled != (leave.cancelled_at is not None):
        return []
    games = open_games_of(leave.user_id)
    mine = set(Entrant.objects.filter(user_id=leave.user_id).values_list("pk", flat=True))
    by_opponent: dict[int, list[Game]] = defaultdict(list)
    names: dict[int, str] = {}
    for game in games:
        if game.white_id in mine:
            by_opponent[game.black_id].append(game)
            names[game.black_id] = game.white.name
        else:
            by_opponent[game.white_id].append(game)
            names[game.white_id] = game.black.name
    recipients = entrant_recipients(NOTICE_PREFERENCE, Entrant.objects.filter(pk__in=by_opponent))
    messages = []
    for entrant_id, own in by_opponent.items():
        recipient = recipients.get(entrant_id)
        if recipient is None:
            continue
        first = own[0]
        me = first.white if first.white_id == entrant_id else first.black
        lines = [{"game": g, "url": absolute_url(game_path(g))} for g in own]
        context = {
            "entrant": me,
            "name": names[entrant_id],
            "leave": leave,
            "cancelled": cancelled,
            "days": (leave.ends_on - leave.starts_on).days + 1,
            "games": lines,
            **_links(),
            **way_in(recipient, reverse("me")),
        }
        values = {
            "name": names[entrant_id],
            "first": leave.starts_on.isoformat(),
            "last": leave.ends_on.isoformat(),
        }
        subject = (
            _("%(name)s cancelled the leave from %(first)s to %(last)s") % values
            if cancelled
            else _("%(name)s is on leave from %(first)s to %(last)s: the clocks stop") % values
        )
        messages.append(
            Message(
                Kind.LEAVE,
                leave_key(leave.pk, entrant_id, cancelled),
                recipient.address,
                subject,
                render_to_string("play/email/leave.txt", context),
            )
        )
    return messages


# ---------------------------------------------------------------------------
# An opponent's move: at once, or in the day's digest
# ---------------------------------------------------------------------------


def move_key(game_id: int, ply: int) -> str:
    return f"move:{game_id}:{ply}"


def _move_line(game: Game, move: Move) -> str:
    number = (move.ply + 1) // 2
    return f"{number}. {move.san}" if move.ply % 2 else f"{number}... {move.san}"


@in_site_language
def move_messages(game_id: int, ply: int) -> list[Message]:
    """The player to move after ``ply`` hears of their opponent's move (if they keep "each
    move" on): the move, the game's page and the way in. Nothing once another move followed
    or the game ended (the result e-mail tells the end)."""
    play = PlayedGame.objects.filter(pk=game_id, ply=ply, finished_at__isnull=True).first()
    move = Move.objects.filter(game_id=game_id, ply=ply).first()
    if play is None or move is None:
        return []
    game = _games([game_id])[game_id]
    me, opponent, colour = _side_entrant(game, ply + 1)
    recipient = entrant_recipients(Kind.MOVE, Entrant.objects.filter(pk=me.pk)).get(me.pk)
    if recipient is None:
        return []
    path = game_path(game)
    stage = game.group.stage
    context = {
        "entrant": me,
        "opponent": opponent,
        "colour": colour,
        "game": game,
        "move": _move_line(game, move),
        "played_at": move.played_at,
        "game_url": absolute_url(path),
        **_links(),
        **way_in(recipient, path),
    }
    subject = _("%(tournament)s, game %(number)s: %(opponent)s played %(move)s") % {
        "tournament": stage.tournament.name,
        "number": game.number,
        "opponent": opponent.name,
        "move": context["move"],
    }
    return [
        Message(
            Kind.MOVE,
            move_key(game_id, ply),
            recipient.address,
            subject,
            render_to_string("play/email/move.txt", context),
        )
    ]


def day_bounds(day: date) -> tuple[datetime, datetime]:
    """The UTC instants a calendar day of play runs between (the clock's days are UTC)."""
    start = datetime.combine(day, time(), UTC)
    return start, start + timedelta(days=1)


def digest_users() -> list[int]:
    """The users who asked for the daily digest of moves (one query; few turn it on)."""
    return sorted(Preferences.objects.filter(move_digest=True).values_list("user_id", flat=True))


def digest_key(day: date, entrant_id: int) -> str:
    return f"move-digest:{day.isoformat()}:{entrant_id}"


@in_site_language
def digest_messages(user_id: int, day: date) -> list[Message]:
    """One e-mail per entry of the user listing the moves their opponents made on ``day``
    (UTC) in their games here, with each game's page (nothing when no opponent moved)."""
    # The digest is off unless chosen (no preferences row: off).
    if not Preferences.objects.filter(user_id=user_id, move_digest=True).exists():
        return []
    entrants = {e.pk: e for e in Entrant.objects.filter(user_id=user_id)}
    if not entrants:
        return []
    start, end = day_bounds(day)
    ids = list(entrants)
    moves = list(
        Move.objects.filter(
            played_at__gte=start,
            played_at__lt=end,
            game__game__group__seats__entrant__in=ids,
        )
        .filter(Q(game__game__white__in=ids) | Q(game__game__black__in=ids))
        .select_related(
            "game__game__group__stage__tournament", "game__game__white", "game__game__black"
        )
        .distinct()
        .order_by("game_id", "ply")
    )
    by_entrant: dict[int, list[dict]] = defaultdict(list)
    for move in moves:
        game = move.game.game
        mover = game.white_id if move.ply % 2 else game.black_id
        for entrant_id in (game.white_id, game.black_id):
            if entrant_id in entrants and entrant_id != mover:
                by_entrant[entrant_id].append(
                    {
                        "game": game,
                        "move": _move_line(game, move),
                        "played_at": move.played_at,
                        "url": absolute_url(game_path(game)),
                    }
                )
    recipients = entrant_recipients(Kind.MOVE_DIGEST, Entrant.objects.filter(pk__in=by_entrant))
    messages = []
    for entrant_id, lines in by_entrant.items():
        recipient = recipients.get(entrant_id)
        if recipient is None:
            continue
        context = {
            "entrant": entrants[entrant_id],
            "day": day,
            "lines": lines,
            **_links(),
            **way_in(recipient, reverse("me")),
        }
        subject = ngettext(
            "Your opponents' moves on %(day)s: %(count)s move",
            "Your opponents' moves on %(day)s: %(count)s moves",
            len(lines),
        ) % {"day": day.isoformat(), "count": len(lines)}
        messages.append(
            Message(
                Kind.MOVE_DIGEST,
                digest_key(day, entrant_id),
                recipient.address,
                subject,
                render_to_string("play/email/move_digest.txt", context),
            )
        )
    return messages
