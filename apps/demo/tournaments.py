"""The demo tournaments, in the order ``manage.py demo`` makes them.

The office's three (``apps/office/demo.py``) show the draw and simulated results; the three
parts here show players on the site and a Swiss stage, each through the product's own actions:

- **Demo Club 2027**: six of the demo's players in a round robin played on this server. Their
  entries are linked to their accounts (as organizers link them), the draw is
  published (every game's clock starts) and a few games are under way: one won by mate, one
  resigned, the demo player to move in two.
- **Demo Open 2027** takes registrations from players: its field has room for a few more,
  and seven players asked, so the organizers' page shows a request in every state (approved,
  rejected, withdrawn, waiting for approval, on the reserve list).
- **Demo Swiss 2027**: 29 imported entrants in a Swiss stage of 7 rounds. Rounds 1–3 are
  played, their results entered one by one through the result-entry action (as the TD does
  on a round's page), each round paired once the last result of the one before was in;
  round 4 is paired and in play, half its results in.

Everything is deterministic (fixed seeds, fixed moves and results, the players in a fixed
order); only the dates are the day the demo is made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.contrib.auth.models import User
from django.urls import reverse

from apps.accounts.services import link_entrant
from apps.core.permissions import Actor
from apps.core.services import set_display_name
from apps.entrants.models import Entrant
from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game
from apps.office.demo import (
    DEMO_PASSWORD,
    DEMO_SEED,
    create_demo_cup,
    create_demo_masters,
    create_demo_open,
    demo_entrants,
    demo_user,
    drawn,
)
from apps.office.swiss.pairing import pair_next_round
from apps.play.services import make_move, resign
from apps.players.models import Registration
from apps.players.registrations import Decision, decide, register, withdraw
from apps.results.services import enter_result
from apps.silli.entrants import Entrant as EngineEntrant
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import Stage, Tournament
from apps.stages.services import create_tournament, update_stage

Log = Callable[[str], object]

# The demo's players: "player" is the one a visitor signs in as (DEMO_PASSWORD, as the
# organizer); the others are its opponents and fellow registrants.
DEMO_PLAYER = "player"
PLAYER_LOGINS = (DEMO_PLAYER, *(f"player{n}" for n in range(2, 8)))
CLUB_SLUG = "demo-club-2027"
OPEN_SLUG = "demo-open-2027"
SWISS_SLUG = "demo-swiss-2027"
# Demo Open's field: its 240 imported entrants and room for four more.
OPEN_MAX_FIELD = 244


@dataclass(frozen=True)
class DemoPlayer:
    user: User
    entry: EngineEntrant  # name, federation, rating and rating-list ID


def demo_players() -> list[DemoPlayer]:
    """The demo's seven players' accounts (made once), ``player`` first, each named as its
    invented person; their rating-list IDs are the demo's own (``PLAYERS-P000001`` …)."""
    people = make_entrants(len(PLAYER_LOGINS), "demo-players")
    players = []
    hashed = ""  # one hashing for all seven: each takes a quarter of a second
    for login, person in zip(PLAYER_LOGINS, people, strict=True):
        user, created = get_user_model().objects.get_or_create(
            username=login, defaults={"email": f"{login}@example.org"}
        )
        if created:
            hashed = hashed or make_password(DEMO_PASSWORD)
            user.password = hashed
            user.save(update_fields=["password"])
            set_display_name(user, person.name)
        entry = EngineEntrant(
            code=person.code,
            name=person.name,
            nation=person.nation,
            rating=person.rating,
            person=f"PLAYERS-{person.person}",
            email=user.email,
        )
        players.append(DemoPlayer(user, entry))
    return players


# ---------------------------------------------------------------------------
# Demo Club 2027: a round robin played on this server
# ---------------------------------------------------------------------------

# Games between two others, as (the moves, who resigns after them: "white", "black" or
# nobody). The first ends by mate.
SCHOLARS_MATE = "e4 e5 Bc4 Nc6 Qh5 Nf6 Qxf7#"
OTHERS_GAMES = (
    (SCHOLARS_MATE, None),
    ("d4 d5 c4 e6 Nc3 Nf6 Bg5", None),
    ("e4 c5 Nf3 d6 d4 cxd4 Nxd4 Nf6 Nc3 a6", None),
    ("e4 e5 f4 d5", "white"),
)
# The demo player's two games waiting for their move: one where White played this against
# them, one where they are White and these moves were made.
AGAINST_THE_PLAYER_AS_BLACK = "e4"
BEFORE_THE_PLAYER_AS_WHITE = "d4 Nf6 c4 e6"


def _play(game: Game, moves: str, resigns: str | None = None) -> None:
    """Make ``moves`` in ``game``, each by the player whose move it is, then let the side
    ``resigns`` resign."""
    white, black = game.white.user, game.black.user
    assert white is not None and black is not None  # every entry is linked to its account
    players = {"white": white, "black": black}
    for ply, move in enumerate(moves.split()):
        side = "white" if ply % 2 == 0 else "black"
        make_move(actor=players[side], game_id=game.pk, move=move, after_ply=ply)
    if resigns:
        resign(actor=players[resigns], game_id=game.pk)


def board_url(game: Game) -> str:
    group = game.group
    return reverse(
        "game-play",
        args=[group.stage.tournament.slug, group.stage.order, group.number, game.number],
    )


def create_demo_club(log: Log = print) -> Tournament:
    """Demo Club 2027: the first six demo players in a round robin played on this server
    (moves public as they are made), drawn and published, a few games under way."""
    organizer = demo_user()
    players = demo_players()[:6]
    club = create_tournament(
        organizer,
        name="Demo Club 2027",
        slug=CLUB_SLUG,
        stages=[
            {
                "kind": Stage.Kind.FINAL,
                "format": Stage.Format.ROUND_ROBIN,
                "min_group_size": len(players),
                "separate_nations": False,
                "play_on_server": True,
                "game_visibility": Stage.GameVisibility.DELAYED,
                "visibility_delay_moves": 0,
            }
        ],
    )
    stage = club.first_stage
    assert stage is not None  # create_tournament made it
    import_entrants(organizer, stage, entrants_csv([p.entry for p in players]))
    accounts = {p.entry.code: p.user for p in players}
    for entrant in Entrant.objects.filter(tournament=club).select_related("tournament"):
        link_entrant(organizer, entrant, accounts[entrant.code])
    close_registration(organizer, stage)
    stage = drawn(organizer, stage, f"{DEMO_SEED} club")
    games = list(
        Game.objects.filter(group__stage=stage)
        .select_related("white__user", "black__user", "group__stage__tournament")
        .order_by("group__number", "number")
    )
    me = players[0].user
    as_black = next(g for g in games if g.black.user == me)
    as_white = next(g for g in games if g.white.user == me)
    others = [g for g in games if me not in (g.white.user, g.black.user)]
    for game, (moves, resigns) in zip(others, OTHERS_GAMES, strict=False):
        _play(game, moves, resigns)
    resigned = others[[resigns for _moves, resigns in OTHERS_GAMES].index("white")]
    _play(as_black, AGAINST_THE_PLAYER_AS_BLACK)
    _play(as_white, BEFORE_THE_PLAYER_AS_WHITE)
    log(
        f"Demo Club 2027: a round robin of {len(players)} played on this server "
        f"({len(games)} games), moves made in {len(OTHERS_GAMES) + 2} of them; one won by "
        f"mate at {board_url(others[0])}, one resigned at {board_url(resigned)}"
    )
    log(
        f"Demo Club 2027: sign in as {DEMO_PLAYER!r} (password {DEMO_PASSWORD!r}): your move "
        f"at {board_url(as_white)} and {board_url(as_black)}; all your games at "
        f"{reverse('me')}"
    )
    return club


# ---------------------------------------------------------------------------
# Demo Open 2027: registration by players
# ---------------------------------------------------------------------------

REJECTION = "The rating-list ID given is another player's; register again with your own."


def add_registrations(open_cup: Tournament, log: Log = print) -> Tournament:
    """Open Demo Open 2027's stage to players (four places left) and let the seven demo
    players ask: one approved, one rejected, one withdrawn, three waiting for approval (the
    demo player among them), one on the reserve list."""
    organizer = demo_user()
    stage = open_cup.first_stage
    assert stage is not None  # a new tournament has its preliminary
    stage = update_stage(organizer, stage, open_registration=True, max_field=OPEN_MAX_FIELD)
    players = demo_players()
    # The demo player asks last but one, so "My registrations" shows a request waiting.
    order = [*players[1:4], players[0], *players[4:]]
    asked = [
        register(
            stage,
            actor=p.user,
            name=p.entry.name,
            federation=p.entry.nation,
            rating_list_id=p.entry.person,
            rating=p.entry.rating,
            email=p.user.email,
        )
        for p in order
    ]
    approved, rejected, withdrawn = asked[:3]
    decide(stage, [approved.pk], Decision.APPROVE, actor=organizer)
    decide(stage, [rejected.pk], Decision.REJECT, REJECTION, actor=organizer)
    withdraw(withdrawn, actor=order[2].user)
    states = Registration.objects.filter(stage=stage).values_list("status", flat=True)
    counts = {status: list(states).count(status) for status in Registration.Status.values}
    register_url = reverse("stage-register", args=[open_cup.slug, stage.order])
    log(
        "Demo Open 2027: open to players, "
        + ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        + f"; register at {register_url}, the organizers decide at "
        + reverse("stage-registrations", args=[open_cup.slug, stage.order])
        + f", the demo player's requests at {reverse('my-registrations')}"
    )
    return open_cup


def create_demo_open_to_players(log: Log = print) -> Tournament:
    return add_registrations(create_demo_open(log), log)


# ---------------------------------------------------------------------------
# Demo Swiss 2027: a Swiss stage round by round
# ---------------------------------------------------------------------------

SWISS_ENTRANTS = 29  # an odd field: each round has a bye
SWISS_ROUNDS = 7
SWISS_ROUND_DAYS = 60
SWISS_FINISHED_ROUNDS = 3
# The results, board after board in pairing order, round r starting r places further on:
# decisive games and draws, no forfeits (a forfeited game does not count as played, so its
# players could meet again).
SWISS_RESULTS = ("1-0", "1/2-1/2", "0-1", "1-0", "1/2-1/2", "1/2-1/2", "0-1", "1-0", "0-1")


def _enter_results(user: Actor, stage: Stage, round_number: int, boards: Iterable[int]) -> int:
    """Enter the results of those boards (1, 2, … in pairing order) of the round, each through
    the result-entry action, as the TD does on the round's page. Returns how many."""
    games = list(Game.objects.filter(group__stage=stage, round=round_number).order_by("number"))
    wanted = set(boards)
    entered = 0
    for board, game in enumerate(games, start=1):
        if board in wanted:
            result = SWISS_RESULTS[(board - 1 + round_number) % len(SWISS_RESULTS)]
            enter_result(user, game, result, expected_version=game.version)
            entered += 1
    return entered


def create_demo_swiss(log: Log = print) -> Tournament:
    """Demo Swiss 2027: 29 entrants in a Swiss of 7 rounds. Rounds 1–3 are played (each
    paired once the last result of the one before was in), round 4 is paired and in play
    with half its results in."""
    organizer = demo_user()
    swiss = create_tournament(
        organizer,
        name="Demo Swiss 2027",
        slug=SWISS_SLUG,
        tiebreak=Tournament.TieBreak.SWISS,
        stages=[
            {
                "kind": Stage.Kind.FINAL,
                "format": Stage.Format.SWISS,
                "swiss_rounds": SWISS_ROUNDS,
                "swiss_round_days": SWISS_ROUND_DAYS,
                # At a deadline the games stay with the TD: nothing is paired by itself.
                "swiss_at_deadline": Stage.AtDeadline.TD,
            }
        ],
    )
    stage = swiss.first_stage
    assert stage is not None  # create_tournament made it
    people = demo_entrants(SWISS_ENTRANTS, "demo-swiss", "SWISS")
    import_entrants(organizer, stage, entrants_csv(people))
    close_registration(organizer, stage)
    stage = drawn(organizer, stage, f"{DEMO_SEED} swiss")  # round 1 paired
    everyone = range(1, SWISS_ENTRANTS // 2 + 1)
    for number in range(1, SWISS_FINISHED_ROUNDS + 1):
        _enter_results(organizer, stage, number, everyone)
        # The round's last result queued the next round, whose task has run in this process
        # (the command runs tasks eagerly): asked for that round again, the pairing finds it
        # paired and writes nothing; were it not, it pairs it now.
        pair_next_round(organizer, stage, number + 1)
    current = SWISS_FINISHED_ROUNDS + 1
    entered = _enter_results(organizer, stage, current, everyone[1::2])
    group = stage.groups.get()
    log(
        f"Demo Swiss 2027: {SWISS_ENTRANTS} entrants, {SWISS_ROUNDS} rounds; rounds 1–"
        f"{SWISS_FINISHED_ROUNDS} played, round {current} in play ({entered} of "
        f"{len(everyone)} results in) at "
        + reverse("group-round", args=[swiss.slug, stage.order, group.number, current])
    )
    return swiss


DEMOS: dict[str, Callable[..., Tournament]] = {
    "demo-cup": create_demo_cup,
    "demo-masters": create_demo_masters,
    OPEN_SLUG: create_demo_open_to_players,
    CLUB_SLUG: create_demo_club,
    SWISS_SLUG: create_demo_swiss,
}


def create_demos(log: Log = print) -> list[Tournament]:
    """Every demo tournament not there yet."""
    existing = set(Tournament.objects.filter(slug__in=DEMOS).values_list("slug", flat=True))
    return [make(log=log) for slug, make in DEMOS.items() if slug not in existing]
