"""A published stage played on this server: one group of twelve (four games each), directed
by ``td``; ``white`` and ``black`` are the accounts of the two players of the group's game 1
(``world.game``, its ``PlayedGame`` is ``world.played``), ``stranger`` an account with no
game. Its clocks start at ``START`` (2027-01-04 10:00 UTC), so tests pass their own "now".

``build_play_world(capture, **settings)`` takes the stage's settings (``time_control``,
``draw_earliest_move``, ``game_visibility`` …) on top of ``play_on_server=True``.
"""

from __future__ import annotations

import dataclasses
from contextlib import nullcontext
from dataclasses import dataclass
from datetime import UTC, datetime
from unittest import mock

from apps.entrants.models import Entrant
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group
from apps.office.services import publish_draw, start_draw
from apps.play.models import PlayedGame
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage, Tournament
from apps.stages.services import create_tournament
from tests.worlds.published import entrant_address, make_user

START = datetime(2027, 1, 4, 10, tzinfo=UTC)


@dataclass
class PlayWorld:
    tournament: Tournament
    stage: Stage
    group: Group
    game: Game
    played: PlayedGame
    users: dict  # organizer, td, white, black, stranger, staff; anonymous: None

    def fresh(self) -> PlayedGame:
        return PlayedGame.objects.select_related(
            "stage__tournament", "game__group", "game__white", "game__black"
        ).get(pk=self.game.pk)


def build_play_world(
    capture, *, password: str | None = None, slug: str = "play-cup", **settings
) -> PlayWorld:
    users = {
        "anonymous": None,
        "organizer": make_user("org", password),
        "staff": make_user("staff", password, is_staff=True),
        "td": make_user("td1", password),
        "white": make_user("white", password),
        "black": make_user("black", password),
        "stranger": make_user("stranger", password),
    }
    cup = create_tournament(
        users["organizer"],
        name="Play Cup",
        slug=slug,
        games_per_player=4,
        stages=[{"min_group_size": 12, "play_on_server": True, **settings}],
    )
    stage = cup.first_stage
    people = [
        dataclasses.replace(e, email=entrant_address(e.code)) for e in make_entrants(12, "play")
    ]
    import_entrants(users["organizer"], stage, entrants_csv(people))
    close_registration(users["organizer"], stage)
    with capture(execute=True) if capture else nullcontext():
        start_draw(users["organizer"], stage, "play seed")
    Group.objects.filter(stage=stage, number=1).update(td=users["td"])
    with (
        capture(execute=True) if capture else nullcontext(),
        mock.patch("django.utils.timezone.now", return_value=START),
    ):
        publish_draw(users["organizer"], stage)
    stage.refresh_from_db()
    group = Group.objects.select_related("stage__tournament", "td").get(stage=stage, number=1)
    game = Game.objects.select_related("white", "black").get(group=group, number=1)
    Entrant.objects.filter(pk=game.white_id).update(user=users["white"])
    Entrant.objects.filter(pk=game.black_id).update(user=users["black"])
    game.refresh_from_db()
    world = PlayWorld(cup, stage, group, game, None, users)  # type: ignore[arg-type]
    world.played = world.fresh()
    return world
