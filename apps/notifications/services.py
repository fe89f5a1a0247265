"""The e-mails the application sends on its own, and the preferences that turn them off.

Messages are built here (one function per kind, a bounded number of queries each) and sent by
the tasks in ``tasks.py`` through :mod:`.delivery`, which sends each one once. Addresses: an
entrant's own e-mail, else the e-mail of the account linked to the entry. A player with an
account who turned a kind off gets none of it; entrants without an account get every kind.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import F, Q, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.http import urlencode
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.audit import (
    RESULT_EVENTS,
    Action,
    imported_games,
    record,
    result_change_events,
    withdrawn_entrant_code,
)
from apps.core.models import AuditEvent, ResultChange
from apps.core.people import display_name, td_name
from apps.core.permissions import Actor, require_signed_in
from apps.core.results import Result
from apps.entrants.claims import claim_days, claim_token
from apps.entrants.models import Entrant, StageEntry
from apps.groups.models import Game, Group, SwissBye, SwissRound
from apps.groups.services import forfeit_counts, group_lines
from apps.stages.models import Stage

from .delivery import Message, absolute_url, deliverable, send_all
from .models import OPTIONAL_KINDS, Kind, Preferences

if TYPE_CHECKING:
    from django.contrib.auth.models import User


def in_site_language(build: Callable) -> Callable:
    """E-mails are written in the site's language, whoever's request queued them."""

    @wraps(build)
    def built(*args: Any, **kwargs: Any) -> Any:
        with translation.override(settings.LANGUAGE_CODE):
            return build(*args, **kwargs)

    return built


# ---------------------------------------------------------------------------
# Preferences
# ---------------------------------------------------------------------------


def preferences_of(user: User) -> Preferences:
    """The user's preferences (unsaved defaults, everything on, if never changed)."""
    return Preferences.objects.filter(user=user).first() or Preferences(user=user)


def update_preferences(user: Actor, **choices: bool) -> Preferences:
    """Turn kinds of notification on or off for ``user`` (names: :data:`OPTIONAL_KINDS`)."""
    user = require_signed_in(user)
    unknown = set(choices) - {str(k) for k in OPTIONAL_KINDS}
    if unknown:
        raise ValueError(f"not a notification kind: {sorted(unknown)}")
    with transaction.atomic():
        prefs, _created = Preferences.objects.select_for_update(no_key=True).get_or_create(
            user=user
        )
        old = {k: getattr(prefs, k) for k in choices}
        for kind, on in choices.items():
            setattr(prefs, kind, bool(on))
        prefs.save()
        record(Action.NOTIFICATIONS_PREFERENCES_CHANGED, user, old=old, new=choices)
    return prefs


def _opted_out(kind: str, user_ids: Iterable[int | None]) -> set[int]:
    ids = {u for u in user_ids if u is not None}
    if not ids:
        return set()
    return set(
        Preferences.objects.filter(user_id__in=ids, **{kind: False}).values_list(
            "user_id", flat=True
        )
    )


@dataclass(frozen=True)
class Recipient:
    entrant_id: int
    address: str
    user_id: int | None


def entrant_recipients(kind: str, entrants: QuerySet[Entrant]) -> dict[int, Recipient]:
    """The ``entrants`` (by id) who get an e-mail of ``kind``: a deliverable address and the
    kind not turned off (two queries)."""
    rows = entrants.values_list("pk", "email", "user_id", "user__email", "claim_refusal__email")
    found = {
        pk: Recipient(pk, (email or user_email or "").strip(), user_id)
        for pk, email, user_id, user_email, refusal in rows
        # "Not me" (a claim link refused): the entry's own address hears no more of it.
        if not (user_id is None and refusal and refusal == (email or "").strip().lower())
    }
    off = _opted_out(kind, (r.user_id for r in found.values()))
    return {pk: r for pk, r in found.items() if deliverable(r.address) and r.user_id not in off}


def way_in(recipient: Recipient, next_path: str) -> dict[str, Any]:
    """How the player an e-mail goes to gets to act on it (for ``_way_in.txt``): an entry no
    account holds gets a claim link of its own (it makes an account, or signs one in, links
    the entry and leads to ``next_path``; it works for ``CLAIM_LINK_DAYS`` days) and a link to
    say "not me"; a claimed entry gets a sign-in link that returns to ``next_path``."""
    query = urlencode({"next": next_path})
    if recipient.user_id is None:
        token = claim_token(recipient.entrant_id, recipient.address)
        return {
            "claim_url": absolute_url(f"{reverse('claim', args=[token])}?{query}"),
            "not_me_url": absolute_url(reverse("claim-refuse", args=[token])),
            "claim_days": claim_days(),
        }
    return {"sign_in_url": absolute_url(f"{reverse('login')}?{query}")}


def _links() -> dict[str, str]:
    return {
        "me_url": absolute_url(reverse("me")),
        "preferences_url": absolute_url(reverse("me-notifications")),
    }


def _td_name(user: User) -> str:
    return td_name(user)


# ---------------------------------------------------------------------------
# Start lists, when a draw is published
# ---------------------------------------------------------------------------


@in_site_language
def start_list_messages(group_id: int) -> list[Message]:
    """Every player of the group with an address gets their seat, their opponents with
    colours and contacts, and the TD's contact (five queries for the whole group; two when
    no player of the group gets one)."""
    recipients = entrant_recipients(
        Kind.START_LIST, Entrant.objects.filter(seats__group_id=group_id)
    )
    if not recipients:
        return []
    group = Group.objects.select_related("stage__tournament", "td").get(pk=group_id)
    stage, tournament = group.stage, group.stage.tournament
    lines = group_lines(group)
    group_url = absolute_url(group.get_absolute_url())
    messages = []
    for line in lines:
        entrant = line.seat.entrant
        recipient = recipients.get(entrant.pk)
        if recipient is None:
            continue
        context = {
            "entrant": entrant,
            "tournament": tournament,
            "stage": stage,
            "group": group,
            "seat": line.seat.number,
            "opponents": line.opponents,
            "td_name": _td_name(group.td) if group.td else "",
            "td_email": group.td.email if group.td else "",
            "group_url": group_url,
            **_links(),
            **way_in(recipient, reverse("me")),
        }
        messages.append(
            Message(
                Kind.START_LIST,
                f"{group.pk}:{entrant.pk}",
                recipient.address,
                _("%(tournament)s, %(stage)s: your start list in group %(number)s")
                % {
                    "tournament": tournament.name,
                    "stage": stage.get_kind_display(),
                    "number": group.number,
                },
                render_to_string("notifications/email/start_list.txt", context),
            )
        )
    return messages


# ---------------------------------------------------------------------------
# A Swiss stage's later rounds, when each is paired
# ---------------------------------------------------------------------------

# A round's pairing is that round's start list: it follows the "start lists" preference (a
# preference of its own would change the preferences' model, page and API), and its e-mails
# are kept under the same kind, keyed ``round:<stage>:<round>:<entrant>``.
ROUND_PREFERENCE = Kind.START_LIST


def round_key(stage_id: int, round_number: int, entrant_id: int) -> str:
    return f"round:{stage_id}:{round_number}:{entrant_id}"


@in_site_language
def swiss_round_messages(stage_id: int, round_number: int) -> list[Message]:
    """Every player of round ``round_number`` (2 and later; round 1 goes with the start
    lists) of a Swiss stage gets their opponent with colour and contact (as the start list
    gives it) and their game's page, or word of their bye (five queries; three when no
    player of the round gets one)."""
    if round_number < 2:
        return []
    group = (
        Group.objects.select_related("stage__tournament", "td")
        .filter(stage_id=stage_id, stage__format=Stage.Format.SWISS)
        .order_by("number")
        .first()
    )
    if group is None:
        return []
    stage, tournament = group.stage, group.stage.tournament
    games = list(
        Game.objects.filter(group=group, round=round_number)
        .select_related("white", "black")
        .order_by("number")
    )
    bye = SwissBye.objects.filter(group=group, round=round_number).select_related("entrant").first()
    # entrant id -> (the player, the opponent, the player's colour, the game); no game: the bye
    boards: dict[int, tuple[Entrant, Entrant | None, str, Game | None]] = {}
    for played in games:
        boards[played.white_id] = (played.white, played.black, "W", played)
        boards[played.black_id] = (played.black, played.white, "B", played)
    if bye is not None:
        boards[bye.entrant_id] = (bye.entrant, None, "", None)
    if not boards:
        return []
    recipients = entrant_recipients(ROUND_PREFERENCE, Entrant.objects.filter(pk__in=list(boards)))
    if not recipients:
        return []
    common = {
        "tournament": tournament,
        "stage": stage,
        "group": group,
        "round": round_number,
        "td_name": _td_name(group.td) if group.td else "",
        "td_email": group.td.email if group.td else "",
        "group_url": absolute_url(group.get_absolute_url()),
        **_links(),
    }
    subject = _("%(tournament)s, %(stage)s: your pairing in round %(round)s") % {
        "tournament": tournament.name,
        "stage": stage.get_kind_display(),
        "round": round_number,
    }
    messages = []
    for entrant_id, (entrant, opponent, colour, game) in boards.items():
        recipient = recipients.get(entrant_id)
        if recipient is None:
            continue
        game_path = (
            reverse("game", args=[tournament.slug, stage.order, group.number, game.number])
            if game is not None
            else ""
        )
        context = {
            **common,
            "entrant": entrant,
            "opponent": opponent,
            "colour": colour,
            "game": game,
            "game_url": absolute_url(game_path) if game_path else "",
            **way_in(recipient, game_path or reverse("me")),
        }
        messages.append(
            Message(
                ROUND_PREFERENCE,
                round_key(stage.pk, round_number, entrant_id),
                recipient.address,
                subject,
                render_to_string("notifications/email/swiss_round.txt", context),
            )
        )
    return messages


# ---------------------------------------------------------------------------
# A Swiss round's deadline, to the stage's TD and organizers
# ---------------------------------------------------------------------------

# To the people who run the stage, about work they must do: sent whatever their preferences
# (like a reminder of the end of play), once per address, keyed ``swiss-deadline:<stage>:<round>``.
SWISS_DEADLINE_KIND = Kind.DEADLINE


def swiss_deadline_key(stage_id: int, round_number: int) -> str:
    return f"swiss-deadline:{stage_id}:{round_number}"


@in_site_language
def swiss_deadline_messages(stage_id: int, round_number: int) -> list[Message]:
    """Round ``round_number`` of a Swiss stage passed its deadline with games unfinished:
    the group's TD and the tournament's organizers get one e-mail each saying how many, which,
    and what happens to them (the stage's mode then: adjudication and the next round paired,
    or left to them)."""
    rnd = (
        SwissRound.objects.select_related("group__stage__tournament", "group__td")
        .filter(
            group__stage_id=stage_id,
            group__stage__format=Stage.Format.SWISS,
            number=round_number,
            deadline_passed_at__isnull=False,
        )
        .first()
    )
    if rnd is None or not rnd.open_at_deadline:
        return []
    group = rnd.group
    stage, tournament = group.stage, group.stage.tournament
    people = list(tournament.organizers.filter(is_active=True))
    if group.td is not None and group.td.is_active:
        people.append(group.td)
    addresses = list(
        dict.fromkeys(p.email.strip().lower() for p in people if deliverable(p.email.strip()))
    )
    if not addresses:
        return []
    games = list(
        Game.objects.filter(group=group, round=round_number, result="")
        .select_related("white", "black")
        .order_by("number")
    )
    context = {
        "tournament": tournament,
        "stage": stage,
        "group": group,
        "round": round_number,
        "next_round": round_number + 1,
        "count": rnd.open_at_deadline,
        "passed_at": timezone.localtime(rnd.due_at or rnd.deadline_passed_at),
        "adjudicate": rnd.adjudicating,
        "last_round": round_number >= (stage.swiss_rounds or 0),
        "games": games,
        "results_url": absolute_url(
            reverse("group-results", args=[tournament.slug, stage.order, group.number])
        ),
        "manage_url": absolute_url(reverse("stage-manage", args=[tournament.slug, stage.order])),
    }
    subject = ngettext(
        "%(tournament)s, %(stage)s: round %(round)s ended with %(count)s game unfinished",
        "%(tournament)s, %(stage)s: round %(round)s ended with %(count)s games unfinished",
        rnd.open_at_deadline,
    ) % {
        "tournament": tournament.name,
        "stage": stage.get_kind_display(),
        "round": round_number,
        "count": rnd.open_at_deadline,
    }
    body = render_to_string("notifications/email/swiss_deadline.txt", context)
    key = swiss_deadline_key(stage.pk, round_number)
    return [Message(SWISS_DEADLINE_KIND, key, address, subject, body) for address in addresses]


# ---------------------------------------------------------------------------
# Results and withdrawals
# ---------------------------------------------------------------------------


def _score(result: str, colour: str) -> str:
    white, black = Result(result).symbols
    return white if colour == "W" else black


@in_site_language
def result_messages(game_id: int, version: int) -> list[Message]:
    """Both players of a game whose result was entered or corrected at ``version``. A game
    changed again since then sends nothing here: the newer change has its own e-mails."""
    game = (
        Game.objects.select_related("group__stage__tournament", "white", "black")
        .filter(pk=game_id, version=version)
        .first()
    )
    if game is None:
        return []
    event = (
        AuditEvent.objects.filter(
            game_id=game.pk, action__in=(Action.RESULT_ENTERED, Action.RESULT_CORRECTED)
        )
        .order_by("-created_at", "-id")
        .first()
    )
    data = event.data if event else {}
    group = game.group
    recipients = entrant_recipients(
        Kind.RESULT, Entrant.objects.filter(pk__in=[game.white_id, game.black_id])
    )
    messages = []
    for me, opponent, colour in ((game.white, game.black, "W"), (game.black, game.white, "B")):
        recipient = recipients.get(me.pk)
        if recipient is None:
            continue
        context = {
            "entrant": me,
            "opponent": opponent,
            "colour": colour,
            "group": group,
            "stage": group.stage,
            "tournament": group.stage.tournament,
            "game": game,
            "result": Result.describe(game.result),
            "score": _score(game.result, colour),
            "old_result": Result.describe(data["old"], "") if data.get("old") else "",
            "corrected": bool(event and event.action == Action.RESULT_CORRECTED),
            "reason": data.get("reason", ""),
            "group_url": absolute_url(group.get_absolute_url()),
            **_links(),
            **way_in(recipient, reverse("me")),
        }
        messages.append(
            Message(
                Kind.RESULT,
                f"game:{game.pk}:{version}",
                recipient.address,
                _("%(tournament)s, %(stage)s, group %(number)s: %(white)s – %(black)s %(result)s")
                % {
                    "tournament": group.stage.tournament.name,
                    "stage": group.stage.get_kind_display(),
                    "number": group.number,
                    "white": game.white.name,
                    "black": game.black.name,
                    "result": context["result"],
                },
                render_to_string("notifications/email/result.txt", context),
            )
        )
    return messages


@in_site_language
def withdrawal_messages(entry_id: int) -> list[Message]:
    """The withdrawn player and every opponent whose game became a forfeit: one e-mail each."""
    entry = (
        StageEntry.objects.select_related("entrant", "stage__tournament")
        .filter(pk=entry_id, withdrawn_at__isnull=False)
        .first()
    )
    if entry is None:
        return []
    games = list(
        # The games the withdrawal forfeited, in the entrant's group of the stage.
        Game.objects.filter(
            group__seats__stage=entry.stage_id,
            group__seats__entrant=entry.entrant_id,
            forfeited_by=entry.entrant_id,
        )
        .select_related("white", "black", "group")
        .order_by("number")
    )
    withdrawn = entry.entrant
    by_opponent: dict[int, list[Game]] = defaultdict(list)
    for game in games:
        by_opponent[game.black_id if game.white_id == withdrawn.pk else game.white_id].append(game)
    recipients = entrant_recipients(
        Kind.RESULT, Entrant.objects.filter(pk__in=[withdrawn.pk, *by_opponent])
    )
    common = {
        "withdrawn": withdrawn,
        "stage": entry.stage,
        "tournament": entry.stage.tournament,
        "reason": entry.withdrawal_reason,
        "group": games[0].group if games else None,
        **_links(),
    }
    subject = _("%(tournament)s: %(name)s has withdrawn") % {
        "tournament": entry.stage.tournament.name,
        "name": withdrawn.name,
    }
    messages = []
    for entrant_id, own_games in [(withdrawn.pk, games), *by_opponent.items()]:
        recipient = recipients.get(entrant_id)
        if recipient is None:
            continue
        lines = [
            {
                "game": g,
                "result": Result.describe(g.result),
                "score": _score(g.result, "W" if g.white_id == entrant_id else "B"),
            }
            for g in own_games
        ]
        context = {
            **common,
            "you_withdrew": entrant_id == withdrawn.pk,
            "games": lines,
            **way_in(recipient, reverse("me")),
        }
        messages.append(
            Message(
                Kind.RESULT,
                f"withdrawal:{entry.pk}",
                recipient.address,
                subject,
                render_to_string("notifications/email/withdrawal.txt", context),
            )
        )
    return messages


# ---------------------------------------------------------------------------
# An import's results: one digest per player
# ---------------------------------------------------------------------------

# Players per task that builds and sends their digests (a stage's import of 500,000 results
# reaches about 100,000 players: 500 tasks of a few seconds each).
IMPORT_DIGEST_BATCH = 200


def import_digest_key(event_id: int, entrant_id: int) -> str:
    return f"import:{event_id}:{entrant_id}"


def _imported_games(event_id: int) -> tuple[AuditEvent | None, QuerySet[Game]]:
    """The import's event and its scope's games (its group's, else its stage's); which of
    them it set is :func:`~apps.core.audit.imported_games`."""
    event = AuditEvent.objects.filter(pk=event_id, action=Action.RESULTS_IMPORTED).first()
    if event is None or event.stage_id is None:
        return None, Game.objects.none()
    games = (
        Game.objects.filter(group_id=event.group_id)
        if event.group_id is not None
        else Game.objects.filter(group__stage_id=event.stage_id)
    )
    return event, games


def import_digest_batches(event_id: int) -> list[list[int]]:
    """The players (entrant ids) whose results the import ``event_id`` set, in batches of
    ``IMPORT_DIGEST_BATCH`` (three queries)."""
    event, games = _imported_games(event_id)
    imported = set() if event is None else imported_games(event)
    players: set[int] = set()
    for pk, white, black in games.values_list("pk", "white_id", "black_id").iterator(
        chunk_size=10_000
    ):
        if pk in imported:
            players.update((white, black))
    ordered = sorted(players)
    return [
        ordered[i : i + IMPORT_DIGEST_BATCH] for i in range(0, len(ordered), IMPORT_DIGEST_BATCH)
    ]


@in_site_language
def import_digest_messages(event_id: int, entrant_ids: list[int]) -> list[Message]:
    """Each of these players gets one e-mail listing their games whose results the import
    set, as they stand now (a game back in progress since is left out; a correction since
    sent its own e-mail); key ``import:<event>:<entrant>``, following the "results of my
    games" preference (a fixed number of queries a batch, fewer when none of them gets one)."""
    event, games = _imported_games(event_id)
    if event is None:
        return []
    recipients = entrant_recipients(Kind.RESULT, Entrant.objects.filter(pk__in=entrant_ids))
    if not recipients:
        return []
    wanted = list(recipients)
    by_entrant: dict[int, list[Game]] = defaultdict(list)
    own = list(
        games.filter(Q(white_id__in=wanted) | Q(black_id__in=wanted))
        .exclude(result="")
        .select_related("white", "black", "group__stage__tournament")
        .order_by("group__number", "number")
    )
    # the import's changes of these games only (an import of a stage has 500,000)
    imported = imported_games(event, among=[game.pk for game in own])
    for game in own:
        if game.pk not in imported:
            continue
        for entrant_id in (game.white_id, game.black_id):
            if entrant_id in recipients:
                by_entrant[entrant_id].append(game)
    messages = []
    for entrant_id, own_games in by_entrant.items():
        recipient = recipients[entrant_id]
        first = own_games[0]
        stage = first.group.stage
        me = first.white if first.white_id == entrant_id else first.black
        lines = []
        for g in own_games:
            colour = "W" if g.white_id == entrant_id else "B"
            lines.append(
                {
                    "game": g,
                    "result": Result.describe(g.result),
                    "score": _score(g.result, colour),
                    "url": absolute_url(
                        reverse(
                            "game",
                            args=[stage.tournament.slug, stage.order, g.group.number, g.number],
                        )
                    ),
                }
            )
        context = {
            "entrant": me,
            "tournament": stage.tournament,
            "stage": stage,
            "games": lines,
            **_links(),
            **way_in(recipient, reverse("me")),
        }
        subject = ngettext(
            "%(tournament)s, %(stage)s: %(count)s result of yours was entered",
            "%(tournament)s, %(stage)s: %(count)s results of yours were entered",
            len(lines),
        ) % {
            "tournament": stage.tournament.name,
            "stage": stage.get_kind_display(),
            "count": len(lines),
        }
        messages.append(
            Message(
                Kind.RESULT,
                import_digest_key(event.pk, entrant_id),
                recipient.address,
                subject,
                render_to_string("notifications/email/imported_results.txt", context),
            )
        )
    return messages


# ---------------------------------------------------------------------------
# One reminder before the end of play
# ---------------------------------------------------------------------------

# Reminders follow the "results of my games" preference: there is no preference of their own
# (the preferences' API answers a fixed set of kinds), and they are about the player's games.
DEADLINE_PREFERENCE = Kind.RESULT


def reminder_days() -> int:
    """How many days before the end of play the reminder goes (``DEADLINE_REMINDER_DAYS``)."""
    return int(getattr(settings, "DEADLINE_REMINDER_DAYS", 7))


def reminder_groups(today: date) -> list[int]:
    """The groups with games still open in the stages in play whose ``play_ends_on`` is
    between ``today`` and ``reminder_days()`` days later (one query)."""
    return sorted(
        set(
            Game.objects.filter(
                result="",
                group__stage__status=Stage.Status.PUBLISHED,
                group__stage__play_ends_on__gte=today,
                group__stage__play_ends_on__lte=today + timedelta(days=reminder_days()),
            ).values_list("group_id", flat=True)
        )
    )


@in_site_language
def deadline_messages(group_id: int, today: date) -> list[Message]:
    """Every player of the group with games still open gets one reminder per stage (key: the
    stage and the entrant, so a second run, or another day's, sends nothing more)."""
    group = Group.objects.select_related("stage__tournament").get(pk=group_id)
    stage = group.stage
    if (
        stage.status != Stage.Status.PUBLISHED
        or stage.play_ends_on is None
        or not today <= stage.play_ends_on <= today + timedelta(days=reminder_days())
    ):
        return []
    games = list(
        Game.objects.filter(group=group, result="")
        .select_related("white", "black")
        .order_by("number")
    )
    by_entrant: dict[int, list[Game]] = defaultdict(list)
    for game in games:
        by_entrant[game.white_id].append(game)
        by_entrant[game.black_id].append(game)
    if not by_entrant:
        return []
    recipients = entrant_recipients(
        DEADLINE_PREFERENCE, Entrant.objects.filter(pk__in=list(by_entrant))
    )
    days = (stage.play_ends_on - today).days
    subject = ngettext(
        "%(tournament)s, %(stage)s: %(days)s day left, your unfinished games",
        "%(tournament)s, %(stage)s: %(days)s days left, your unfinished games",
        days,
    ) % {
        "tournament": stage.tournament.name,
        "stage": stage.get_kind_display(),
        "days": days,
    }
    messages = []
    for entrant_id, own_games in by_entrant.items():
        recipient = recipients.get(entrant_id)
        if recipient is None:
            continue
        first = own_games[0]
        lines = [
            {
                "game": g,
                "colour": "W" if g.white_id == entrant_id else "B",
                "opponent": g.black if g.white_id == entrant_id else g.white,
            }
            for g in own_games
        ]
        context = {
            "entrant": first.white if first.white_id == entrant_id else first.black,
            "tournament": stage.tournament,
            "stage": stage,
            "group": group,
            "days": days,
            "ends_on": stage.play_ends_on,
            "games": lines,
            "group_url": absolute_url(group.get_absolute_url()),
            **_links(),
            **way_in(recipient, reverse("me")),
        }
        messages.append(
            Message(
                Kind.DEADLINE,
                f"stage:{stage.pk}:{entrant_id}",
                recipient.address,
                subject,
                render_to_string("notifications/email/deadline.txt", context),
            )
        )
    return messages


# ---------------------------------------------------------------------------
# The TD's daily digest
# ---------------------------------------------------------------------------


def day_bounds(day: date) -> tuple[datetime, datetime]:
    start = timezone.make_aware(datetime.combine(day, time.min), timezone.get_current_timezone())
    return start, start + timedelta(days=1)


def yesterday() -> date:
    return timezone.localdate() - timedelta(days=1)


def _changes_on(day: date) -> QuerySet[AuditEvent]:
    start, end = day_bounds(day)
    return AuditEvent.objects.filter(
        created_at__gte=start, created_at__lt=end, action__in=RESULT_EVENTS
    )


def _imported_on(day: date) -> QuerySet[ResultChange]:
    """The games' changes by the results imports of ``day``."""
    start, end = day_bounds(day)
    return ResultChange.objects.filter(
        event__created_at__gte=start,
        event__created_at__lt=end,
        event__action=Action.RESULTS_IMPORTED,
    )


def digest_recipients(day: date) -> list[int]:
    """The TDs (user ids) of the groups that changed on ``day`` (three queries)."""
    group_ids: set[int] = {
        group_id
        for group_id in _changes_on(day).values_list("group_id", flat=True)
        if group_id is not None
    }
    group_ids.update(
        _imported_on(day).exclude(old=F("new")).values_list("group_id", flat=True).distinct()
    )
    return sorted(
        set(
            Group.objects.filter(pk__in=group_ids, td__isnull=False).values_list("td_id", flat=True)
        )
    )


@in_site_language
def td_digest_message(td_id: int, day: date) -> Message | None:
    """One e-mail listing the day's changes in every group the TD directs (None when there
    were none, the TD has no address, or turned the digest off)."""
    td = get_user_model().objects.filter(pk=td_id, is_active=True).first()
    if td is None or not deliverable(td.email) or not preferences_of(td).td_digest:
        return None
    groups = {g.pk: g for g in Group.objects.filter(td=td).select_related("stage__tournament")}
    events = list(
        _changes_on(day)
        .filter(group_id__in=list(groups))
        .select_related("actor")
        .order_by("group_id", "created_at", "id")
    )
    events += result_change_events(_imported_on(day).filter(group_id__in=list(groups)))
    events.sort(key=lambda e: (e.group_id, e.created_at, e.pk))
    if not events:
        return None
    games = Game.objects.select_related("white", "black").in_bulk({e.game_id for e in events})
    # Every event names its group (they are filtered by group above).
    withdrawals = {
        e.group_id
        for e in events
        if e.action == Action.ENTRANT_WITHDRAWN and e.group_id is not None
    }
    forfeits = forfeit_counts(withdrawals) if withdrawals else {}
    sections: defaultdict[int, list[str]] = defaultdict(list)
    for event in events:
        if event.group_id is None:
            continue
        sections[event.group_id].append(_change_line(event, games.get(event.game_id), forfeits))
    context = {
        "td_name": _td_name(td),
        "day": day,
        "sections": [
            {
                "group": groups[group_id],
                "url": absolute_url(
                    reverse(
                        "group-results",
                        args=[
                            groups[group_id].stage.tournament.slug,
                            groups[group_id].stage.order,
                            groups[group_id].number,
                        ],
                    )
                ),
                "changes": changes,
            }
            for group_id, changes in sections.items()
        ],
        **_links(),
    }
    return Message(
        Kind.TD_DIGEST,
        day.isoformat(),
        td.email,
        _("Changes in your groups on %(day)s") % {"day": day.isoformat()},
        render_to_string("notifications/email/td_digest.txt", context),
    )


def send_td_digest(td_id: int, day: date) -> int:
    """Send the TD's digest of ``day`` (once); 1 if it was sent now."""
    message = td_digest_message(td_id, day)
    return send_all([message] if message else [])


def _change_line(event: AuditEvent, game: Game | None, forfeits: dict[tuple[int, str], int]) -> str:
    """``forfeits``: :func:`~apps.groups.services.forfeit_counts` of the withdrawals' groups."""
    who = display_name(event.actor) if event.actor else "—"
    data = event.data
    when = timezone.localtime(event.created_at).strftime("%H:%M")
    if event.action == Action.ENTRANT_WITHDRAWN:
        code = withdrawn_entrant_code(event)
        group_id = event.group_id  # a withdrawal's event names its group
        count = forfeits.get((group_id, code), 0) if group_id is not None else 0
        return _("%(when)s %(who)s: withdrawal of %(code)s (%(count)s forfeits) — %(reason)s") % {
            "when": when,
            "who": who,
            "code": code,
            "count": count,
            "reason": data.get("reason", ""),
        }
    players = f"{game.white.name} – {game.black.name}" if game else ""
    old = Result.describe(data.get("old", ""), "")
    new = Result.describe(data.get("new", ""), "")
    line = _("%(when)s %(who)s: %(players)s %(old)s → %(new)s") % {
        "when": when,
        "who": who,
        "players": players,
        "old": old,
        "new": new,
    }
    if data.get("reason"):
        line += f" ({data['reason']})"
    return line
