"""A small published tournament with every role, built through the services: two groups of
twelve (four games each), group 1 directed by ``td``, group 2 by ``other_td``; ``player`` holds
the entry in seat 1 of group 1, ``rival`` the one in seat 1 of group 2. Every entrant has its
own address at ``players.test`` (a domain notifications are sent to)."""

from __future__ import annotations

import dataclasses
from contextlib import nullcontext
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.db.models import Q

from apps.entrants.models import Entrant
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group, Seat
from apps.office.services import publish_draw, start_draw
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage, Tournament
from apps.stages.services import create_tournament

ROLES = ("anonymous", "player", "rival", "other_td", "td", "organizer", "staff")
PLAYERS_DOMAIN = "players.test"


def entrant_address(code: str) -> str:
    return f"{code.lower()}@{PLAYERS_DOMAIN}"


@dataclass
class World:
    tournament: Tournament
    stage: Stage
    group: Group
    other_group: Group
    users: dict  # role -> user (None for anonymous)
    player_entrant: Entrant
    rival_entrant: Entrant

    @property
    def player_game(self) -> Game:
        """The player's first game (by number)."""
        mine = Q(white=self.player_entrant) | Q(black=self.player_entrant)
        return Game.objects.filter(mine, group=self.group).order_by("number").first()

    def emails(self, group: Group) -> set[str]:
        return set(Seat.objects.filter(group=group).values_list("entrant__email", flat=True))

    def opponents_emails(self, entrant: Entrant) -> set[str]:
        games = Game.objects.filter(Q(white=entrant) | Q(black=entrant)).select_related(
            "white", "black"
        )
        return {g.black.email if g.white_id == entrant.pk else g.white.email for g in games}


def make_user(name: str, password: str | None = None, **extra):
    return get_user_model().objects.create_user(name, f"{name}@people.test", password, **extra)


def build_world(capture, *, password: str | None = None, slug: str = "acc-cup") -> World:
    """``capture`` is pytest-django's ``django_capture_on_commit_callbacks``: the draw's and
    the publication's side effects (standings, start lists) run as they would on commit.
    Outside a test's transaction (``capture=None``) they run when each action commits."""
    users = {
        "anonymous": None,
        "organizer": make_user("org", password),
        "staff": make_user("staff", password, is_staff=True),
        "td": make_user("td1", password),
        "other_td": make_user("td2", password),
        "player": make_user("player", password),
        "rival": make_user("rival", password),
    }
    cup = create_tournament(
        users["organizer"],
        name="Accounts Cup",
        slug=slug,
        games_per_player=4,
        stages=[{"min_group_size": 12}],
    )
    stage = cup.first_stage
    people = [
        dataclasses.replace(e, email=entrant_address(e.code)) for e in make_entrants(24, "accounts")
    ]
    import_entrants(users["organizer"], stage, entrants_csv(people))
    close_registration(users["organizer"], stage)
    with capture(execute=True) if capture else nullcontext():
        start_draw(users["organizer"], stage, "accounts seed")
    Group.objects.filter(stage=stage, number=1).update(td=users["td"])
    Group.objects.filter(stage=stage, number=2).update(td=users["other_td"])
    with capture(execute=True) if capture else nullcontext():
        publish_draw(users["organizer"], stage)
    stage.refresh_from_db()
    group = Group.objects.select_related("stage__tournament", "td").get(stage=stage, number=1)
    other = Group.objects.select_related("stage__tournament", "td").get(stage=stage, number=2)
    player_entrant = Seat.objects.get(group=group, number=1).entrant
    rival_entrant = Seat.objects.get(group=other, number=1).entrant
    Entrant.objects.filter(pk=player_entrant.pk).update(user=users["player"])
    Entrant.objects.filter(pk=rival_entrant.pk).update(user=users["rival"])
    player_entrant.refresh_from_db()
    rival_entrant.refresh_from_db()
    return World(cup, stage, group, other, users, player_entrant, rival_entrant)
