"""A player's profile: one person (:class:`~apps.entrants.models.Person`) across their
tournaments and stages.

:func:`player_profile` reads, for the stages the viewer may see (published and closed ones;
an organizer's own too), every group the person played in: the stage and group, the seat,
the place and points (as ``apps.standings`` stored them), the games with their results
and links, the rating the entry came with, the group's **rating report** line (FIDE's
rules through the pure ``apps.ratings``) and the **title-norm figures** at every level.
Contacts (the entries' addresses and the account's) are read only for a viewer allowed
them (:func:`can_see_contacts`): the person themself, the organizers of a tournament they
entered, staff. Six queries, however many events.

Entries carry the rating they came with, not the number of rated games a player had before
(FIDE's K depends on it): every rating line here takes the K of an established player,
``RATED_GAMES_BEFORE`` rated games (docs/people.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from django.db.models import Q

from apps.core.permissions import Actor, signed_in
from apps.core.results import Result, SideOutcome
from apps.entrants.models import Entrant, Person
from apps.groups.models import Game, Group, Seat
from apps.ratings import (
    NORM_LEVELS,
    UNOFFICIAL,
    NormFigure,
    RatingLine,
    norm_figures,
    rating_report,
)
from apps.ratings import Game as RatingGame
from apps.ratings import Player as RatingPlayer
from apps.stages.models import Tournament
from apps.stages.permissions import visible_stages_filter
from apps.standings.models import GroupStanding

RATED_GAMES_BEFORE = 30
"""The rated games every player is taken to have had before an event (an entry does not
say): FIDE's K is then 20 below 2400 and 10 from 2400."""

SCORES = {SideOutcome.WIN: Fraction(1), SideOutcome.DRAW: Fraction(1, 2)}


@dataclass(frozen=True)
class ProfileGame:
    """One game of the person's, from their side."""

    id: int
    number: int
    colour: str  # "W" or "B"
    opponent: Entrant
    result: str  # the game's result code ("" in progress)
    score: str  # from the person's side: "1", "½", "0", "+", "−" or ""
    played: bool
    points: Fraction | None  # the score of a played game (None: forfeited or in progress)


@dataclass
class ProfileEvent:
    """One group the person played in, with everything the profile shows of it."""

    seat: Seat
    standing: GroupStanding | None = None
    games: list[ProfileGame] = field(default_factory=list)
    rating: RatingLine | None = None
    norms: list[NormFigure] = field(default_factory=list)

    @property
    def entrant(self) -> Entrant:
        return self.seat.entrant

    @property
    def group(self) -> Group:
        return self.seat.group


@dataclass(frozen=True)
class Profile:
    """What the profile page and the API show of a person to one viewer."""

    person: Person
    events: list[ProfileEvent]
    contacts: list[str] | None  # None: the viewer may not see them
    unofficial: str = UNOFFICIAL

    @property
    def games(self) -> list[tuple[ProfileEvent, ProfileGame]]:
        return [(event, game) for event in self.events for game in event.games]


def can_see_contacts(user: Actor, person: Person) -> bool:
    """The person themself, the organizers of a tournament they entered, and staff."""
    if not signed_in(user):
        return False
    if person.user_id == user.pk or user.is_staff:
        return True
    return Tournament.objects.filter(entrants__profile=person, organizers=user).exists()


def contacts(person: Person) -> list[str]:
    """The person's addresses: their account's and their entries', each once."""
    addresses = [person.user.email] if person.user_id and person.user.email else []
    for email in person.entries.exclude(email="").values_list("email", flat=True):
        if email.lower() not in {a.lower() for a in addresses}:
            addresses.append(email)
    return addresses


def _side_game(game: Game, entrant_id: int) -> ProfileGame:
    white = game.white_id == entrant_id
    result = Result(game.result)
    side = "white" if white else "black"
    points = None
    if result.played:
        points = SCORES.get(result.outcome(side), Fraction(0))
    return ProfileGame(
        id=game.pk,
        number=game.number,
        colour="W" if white else "B",
        opponent=game.black if white else game.white,
        result=game.result,
        score=result.symbols[0 if white else 1],
        played=result.played,
        points=points,
    )


def _figures(event: ProfileEvent) -> None:
    """The event's rating line and norm figures, from its played games and the ratings the
    entries came with (the person's line only; opponents without a rating are left out)."""
    me = event.entrant
    games = tuple(
        RatingGame(g.opponent.pk, g.points if g.points is not None else Fraction(0), g.played)
        for g in event.games
        if g.result
    )
    opponents = {g.opponent.pk: g.opponent for g in event.games}
    players = [RatingPlayer(me.pk, me.rating, RATED_GAMES_BEFORE, games)] + [
        RatingPlayer(o.pk, o.rating, RATED_GAMES_BEFORE, ()) for o in opponents.values()
    ]
    event.rating = rating_report(players)[0]
    event.norms = [norm_figures(players, level)[0] for level in NORM_LEVELS.values()]


def player_profile(person: Person, user: Actor) -> Profile:
    """The person's profile as ``user`` may see it."""
    seats = list(
        Seat.objects.filter(visible_stages_filter(user, "stage__"), entrant__profile=person)
        .select_related("entrant", "group", "stage", "stage__tournament")
        .order_by("stage__tournament__created_at", "stage__tournament_id", "stage__order")
    )
    events = [ProfileEvent(seat) for seat in seats]
    groups = {s.group_id for s in seats}
    mine = {s.entrant_id for s in seats}
    by_seat = {(s.group_id, s.entrant_id): e for s, e in zip(seats, events, strict=True)}
    for standing in GroupStanding.objects.filter(group_id__in=groups, entrant_id__in=mine):
        event = by_seat.get((standing.group_id, standing.entrant_id))
        if event is not None:
            event.standing = standing
    games = (
        Game.objects.filter(group_id__in=groups)
        .filter(Q(white_id__in=mine) | Q(black_id__in=mine))
        .select_related("white", "black")
        .order_by("group_id", "round", "number")
    )
    for game in games:
        for entrant_id in (game.white_id, game.black_id):
            event = by_seat.get((game.group_id, entrant_id))
            if event is not None:
                event.games.append(_side_game(game, entrant_id))
    for event in events:
        _figures(event)
    allowed = can_see_contacts(user, person)
    return Profile(person, events, contacts(person) if allowed else None)
