"""A player's profile: one person (:class:`~apps.entrants.models.Person`) across their
tournaments and stages.

:func:`player_profile` reads, for the stages the viewer may see (published and closed ones;
an organizer's own too), every group the person played in: the stage and group, the seat,
the place and points (as ``apps.standings`` stored them), the games with their results
and links, the rating the entry came with, the group's **rating report** line (FIDE's
rules through the pure ``apps.ratings``) and the **title-norm figures** at every level.
Contacts (the entries' addresses and the account's) are read only for a viewer allowed
them (:func:`can_see_contacts`): the person themself, the organizers of a tournament they
entered, staff. Six queries and a few per event (each group's report reads its games).

The figures are the group's own rating report and norm figures (``apps.ratinglists.reports``):
the rated games a player had before (FIDE's K) come from the rating list the stage used, else
30 (K by the rating). The rating history lists the person's line on every rating list that
names their ID.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Q

from apps.core.permissions import Actor, signed_in
from apps.core.results import Result
from apps.entrants.models import Entrant, Person
from apps.groups.models import Game, Group, Seat
from apps.ratinglists.models import RatingListEntry
from apps.ratinglists.reports import group_rating_report
from apps.ratings import UNOFFICIAL, NormFigure, RatingLine
from apps.stages.models import Tournament
from apps.stages.permissions import visible_stages_filter
from apps.standings.models import GroupStanding
from apps.standings.rated import group_norm_figures


@dataclass(frozen=True)
class ProfileGame:
    """One game of the person's, from their side."""

    id: int
    number: int
    colour: str  # "W" or "B"
    opponent: Entrant
    result: str  # the game's result code ("" in progress)
    score: str  # from the person's side: "1", "½", "0", "+", "−" or ""


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
    rating_lists: list[RatingListEntry] = field(default_factory=list)
    unofficial: str = UNOFFICIAL

    @property
    def title(self) -> str:
        """The person's title, or the one the latest rating list gives them."""
        return self.person.title or next((e.title for e in self.rating_lists if e.title), "")

    @property
    def visible(self) -> bool:
        """Whether the viewer may see the profile at all: a person is public once they play
        in a stage the viewer may see (before that their name is the organizers' to show);
        the player themself, their organizers and staff always may."""
        return bool(self.events) or self.contacts is not None

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
    account = person.user
    addresses = [account.email] if account is not None and account.email else []
    for email in person.entries.exclude(email="").values_list("email", flat=True):
        if email.lower() not in {a.lower() for a in addresses}:
            addresses.append(email)
    return addresses


def _side_game(game: Game, entrant_id: int) -> ProfileGame:
    white = game.white_id == entrant_id
    return ProfileGame(
        id=game.pk,
        number=game.number,
        colour="W" if white else "B",
        opponent=game.black if white else game.white,
        result=game.result,
        score=Result(game.result).symbols[0 if white else 1],
    )


def _figures(event: ProfileEvent) -> None:
    """The event's rating report line and norm figures: the group's, as its report page and
    crosstable have them (``apps.ratinglists.reports``), the person's row."""
    group = event.group
    group.stage = event.seat.stage
    report = group_rating_report(group)
    norms = group_norm_figures(group, None, [row.who for row in report])
    for row, norm in zip(report, norms, strict=True):
        if row.who.entrant_id == event.entrant.pk:
            event.rating = row.line
            event.norms = list(norm.figures.values())


def _rating_history(person: Person) -> list[RatingListEntry]:
    """The person's line on every rating list that names their ID, the latest first."""
    if not person.rating_id:
        return []
    return list(
        RatingListEntry.objects.filter(person=person.rating_id)
        .select_related("rating_list")
        .order_by("-rating_list__list_date", "-rating_list_id")
    )


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
    lists = _rating_history(person)
    return Profile(person, events, contacts(person) if allowed else None, lists)
