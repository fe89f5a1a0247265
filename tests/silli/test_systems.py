"""The pairing-system interface: the registry, each system's games and its verify hook."""

import json
from collections import Counter
from dataclasses import dataclass
from types import SimpleNamespace

import pytest

from apps.silli.circle import circle_games
from apps.silli.draw import (
    DrawError,
    DrawSettings,
    Game,
    GroupDraw,
    Seat,
    draw_group,
    draw_stage,
    groups_digest,
)
from apps.silli.roundrobin import round_robin_games
from apps.silli.swiss_system import SwissSystem, colour_of_rule, initial_order
from apps.silli.synth import make_entrants
from apps.silli.systems import (
    ROUND_ROBIN,
    SILLI,
    SWISS,
    SYSTEMS,
    ExpectedGames,
    PairingSystem,
    RoundRobinSystem,
    SilliSystem,
    pairing_system,
)
from apps.silli.verify import verify_draw
from apps.stages.models import Stage, Tournament
from apps.standings.groups import stage_games_per_player

FORMULA = (1, 4, 10, 17, 32)  # valid on 104 seats, 10 games


# --- the registry -----------------------------------------------------------------------------


def test_the_registry_holds_each_system_under_its_name():
    assert list(SYSTEMS) == [SILLI, ROUND_ROBIN, SWISS]
    assert all(system.name == name for name, system in SYSTEMS.items())
    assert isinstance(SYSTEMS[SILLI], SilliSystem)
    assert isinstance(SYSTEMS[ROUND_ROBIN], RoundRobinSystem)
    assert isinstance(SYSTEMS[SWISS], SwissSystem)


def test_every_stage_format_is_a_system_and_every_system_a_stage_format():
    assert set(Stage.Format.values) == set(SYSTEMS)


@pytest.mark.parametrize("name", [SILLI, ROUND_ROBIN])
def test_pairing_system_finds_a_registered_system(name):
    assert pairing_system(name) is SYSTEMS[name]


@pytest.mark.parametrize("name", ["dutch", "", "Silli"])
def test_an_unknown_system_is_a_value_error_naming_the_known_ones(name):
    with pytest.raises(ValueError, match=r"unknown pairing system .*silli, round_robin, swiss"):
        pairing_system(name)


def test_draw_settings_refuse_a_format_that_is_no_system():
    with pytest.raises(
        DrawError, match="unknown format 'dutch'; use one of silli, round_robin, swiss"
    ):
        DrawSettings(format="dutch")


def test_only_the_silli_system_is_a_closed_circle():
    assert SYSTEMS[SILLI].closed_circle is True
    assert SYSTEMS[ROUND_ROBIN].closed_circle is False
    assert SYSTEMS[SWISS].closed_circle is False


def test_only_the_swiss_system_makes_one_group_of_the_stage():
    assert [name for name, system in SYSTEMS.items() if system.one_group] == [SWISS]


# --- games per player -------------------------------------------------------------------------


@pytest.mark.parametrize("size", [60, 104, 150])
def test_a_silli_group_plays_the_stages_games_whatever_its_size(size):
    assert SilliSystem().games_per_player(size, DrawSettings(games_per_player=12)) == 12


@pytest.mark.parametrize(
    ("size", "double", "games"), [(11, False, 10), (11, True, 20), (2, False, 1)]
)
def test_a_round_robin_group_plays_everyone_once_or_twice(size, double, games):
    settings = DrawSettings(format=ROUND_ROBIN, double_round_robin=double)
    assert RoundRobinSystem().games_per_player(size, settings) == games


def test_games_per_player_reads_any_settings_with_the_two_fields():
    stage_like = SimpleNamespace(games_per_player=8, double_round_robin=True)
    assert SilliSystem().games_per_player(100, stage_like) == 8
    assert RoundRobinSystem().games_per_player(6, stage_like) == 10


@pytest.mark.parametrize(
    ("format_", "double", "size", "games"),
    [
        (Stage.Format.SILLI, False, 104, 10),
        (Stage.Format.ROUND_ROBIN, False, 11, 10),
        (Stage.Format.ROUND_ROBIN, True, 11, 20),
    ],
)
def test_the_standings_ask_the_stages_system(format_, double, size, games):
    from apps.groups.models import Group

    stage = Stage(
        tournament=Tournament(games_per_player=10), format=format_, double_round_robin=double
    )
    assert stage_games_per_player(stage, Group(size=size)) == games


@pytest.mark.parametrize(
    ("draw_settings", "size"),
    [
        (DrawSettings(games_per_player=10, min_group_size=104, formula=FORMULA), 104),
        (DrawSettings(format=ROUND_ROBIN, min_group_size=11), 11),
        (DrawSettings(format=ROUND_ROBIN, min_group_size=12, double_round_robin=True), 12),
    ],
)
def test_every_player_of_a_drawn_group_plays_games_per_player_games(draw_settings, size):
    members = make_entrants(size, "systems", nations=20, largest_share=0.1, multi_entry_share=0)
    group = draw_group(1, members, draw_settings, "seed", {})
    played = Counter(c for g in group.games for c in (g.white, g.black))
    expected = pairing_system(draw_settings.format).games_per_player(size, draw_settings)
    assert set(played.values()) == {expected} and len(played) == size


# --- the verify hook --------------------------------------------------------------------------


def test_a_silli_group_must_hold_its_formulas_circle():
    settings = DrawSettings(games_per_player=10)
    games, problems = SilliSystem().expected_games(104, {"formula": list(FORMULA)}, settings)
    assert games == circle_games(104, FORMULA) and problems == []


def test_the_silli_hook_names_a_formula_that_breaks_the_principles():
    settings = DrawSettings(games_per_player=10)
    _, problems = SilliSystem().expected_games(104, {"formula": [1, 2, 3, 4, 5]}, settings)
    assert len(problems) == 1
    assert problems[0].startswith("formula (1, 2, 3, 4, 5) breaks the principles on 104 seats")


def test_the_silli_hook_names_a_formula_with_the_wrong_number_of_games():
    settings = DrawSettings(games_per_player=12)
    _, problems = SilliSystem().expected_games(104, {"formula": list(FORMULA)}, settings)
    assert problems == [f"formula {FORMULA} does not give 12 games"]


@pytest.mark.parametrize("double", [False, True])
def test_a_round_robin_group_must_hold_its_berger_table(double):
    settings = DrawSettings(format=ROUND_ROBIN, double_round_robin=double)
    games, problems = RoundRobinSystem().expected_games(11, {"formula": [9, 9]}, settings)
    assert games == [(w, b) for _, w, b in round_robin_games(11, double=double)]
    assert problems == []  # a round robin has no formula to check


@pytest.mark.parametrize(
    ("draw_settings", "size"),
    [
        (DrawSettings(games_per_player=10, min_group_size=104, formula=FORMULA), 104),
        (DrawSettings(format=ROUND_ROBIN, min_group_size=11, double_round_robin=True), 11),
    ],
)
def test_a_drawn_group_holds_exactly_the_games_its_system_expects(draw_settings, size):
    members = make_entrants(size, "hook", multi_entry_share=0)
    group = draw_group(3, members, draw_settings, "seed", {})
    codes = [s.entrant for s in group.seats]
    games, problems = pairing_system(draw_settings.format).expected_games(
        group.size, group.as_dict(), draw_settings
    )
    assert problems == []
    assert [(codes[w - 1], codes[b - 1]) for w, b in games] == [
        (g.white, g.black) for g in group.games
    ]


# --- a new system plugs in at one place -------------------------------------------------------


@dataclass
class Everyone:
    """A toy system: seats in code order, each pair once, lower seat White."""

    name: str = "toy"
    closed_circle: bool = False
    one_group: bool = False

    def draw_group(self, number, members, settings, seed, rematches):
        seats = tuple(Seat(i + 1, e.code, e.nation) for i, e in enumerate(members))
        games = tuple(
            Game(a.entrant, b.entrant) for i, a in enumerate(seats) for b in seats[i + 1 :]
        )
        return GroupDraw(number, (), "toy", seats, games, True)

    def expected_games(self, size, group, settings):
        pairs = [(w, b) for w in range(1, size + 1) for b in range(w + 1, size + 1)]
        return ExpectedGames(pairs, [])

    def games_per_player(self, size, settings):
        return size - 1


def test_a_registered_system_is_drawn_through_the_interface(monkeypatch):
    toy: PairingSystem = Everyone()
    monkeypatch.setitem(SYSTEMS, "toy", toy)
    members = make_entrants(5, "toy", multi_entry_share=0)
    group = draw_group(1, members, DrawSettings(format="toy"), "seed", {})
    assert group.rule == "toy" and len(group.games) == 10


def test_a_registered_system_is_verified_through_its_hook(monkeypatch):
    monkeypatch.setitem(SYSTEMS, "toy", Everyone())
    entrants = make_entrants(12, "toy", multi_entry_share=0)
    draw = draw_stage(entrants, DrawSettings(format="toy", min_group_size=6), "seed")
    assert verify_draw(json.loads(draw.to_json()), entrants).ok

    tampered = json.loads(draw.to_json())
    tampered["groups"][0]["games"].reverse()
    tampered["digest"] = groups_digest(tampered["groups"])
    report = verify_draw(tampered, entrants)
    assert "group 1: the games are not those of its seats and formula" in report.problems


# --- the Swiss system -------------------------------------------------------------------------


def swiss(rounds=5, acceleration="none", **extra):
    return DrawSettings(format=SWISS, swiss_rounds=rounds, swiss_acceleration=acceleration, **extra)


def test_a_swiss_group_plays_one_game_a_round():
    assert SwissSystem().games_per_player(40, swiss(rounds=7)) == 7
    assert SwissSystem().games_per_player(40, SimpleNamespace(swiss_rounds=9)) == 9


@pytest.mark.parametrize("count", [20, 21, 130])
def test_a_swiss_stage_is_one_group_paired_for_round_one(count):
    entrants = make_entrants(count, "swiss", multi_entry_share=0)
    draw = draw_stage(entrants, swiss(min_group_size=10), "seed")
    assert len(draw.groups) == 1
    group = draw.groups[0]
    by_code = {e.code: e for e in entrants}
    assert [s.entrant for s in group.seats] == [e.code for e in initial_order(entrants)]
    assert {g.round for g in group.games} == {1} and len(group.games) == count // 2
    played = Counter(c for g in group.games for c in (g.white, g.black))
    assert max(played.values()) == 1 and len(played) == count - count % 2
    # FIDE's round 1: the top half meets the bottom half, seat i against seat i + n/2
    half = count // 2
    seat = {s.entrant: s.seat for s in group.seats}
    assert {frozenset((seat[g.white], seat[g.black])) for g in group.games} == {
        frozenset((i, i + half)) for i in range(1, half + 1)
    }
    # the initial colour is recorded, and the top seat has it
    top = next(g for g in group.games if seat[g.white] == 1 or seat[g.black] == 1)
    assert (seat[top.white] == 1) == (colour_of_rule(group.rule).value == "w")
    assert by_code  # every code known
    report = verify_draw(json.loads(draw.to_json()), entrants)
    assert report.ok, report.problems


def test_the_swiss_hook_finds_round_one_of_an_accelerated_stage():
    entrants = make_entrants(24, "accel", multi_entry_share=0)
    draw = draw_stage(entrants, swiss(acceleration="baku"), "seed")
    plain = draw_stage(entrants, swiss(), "seed")
    assert draw.groups[0].games != plain.groups[0].games
    assert verify_draw(json.loads(draw.to_json()), entrants).ok
    tampered = json.loads(draw.to_json())
    tampered["groups"][0]["games"].reverse()
    tampered["digest"] = groups_digest(tampered["groups"])
    assert not verify_draw(tampered, entrants).ok


def test_a_swiss_of_as_many_rounds_as_players_cannot_be_drawn():
    entrants = make_entrants(6, "few", multi_entry_share=0)
    with pytest.raises(DrawError, match="needs 1 to 5 rounds for 6 players"):
        draw_stage(entrants, swiss(rounds=6), "seed")


def test_other_formats_draw_json_has_no_swiss_settings():
    assert "swiss_rounds" not in DrawSettings().as_dict()
    assert swiss(rounds=3).as_dict()["swiss_rounds"] == 3
    assert DrawSettings.from_dict(swiss(rounds=3, acceleration="general").as_dict()) == swiss(
        rounds=3, acceleration="general"
    )
