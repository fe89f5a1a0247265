"""Norm figures and the rating report work the same for every kind of group: a Silli group
(closed circle), a round robin (tests/ratinglists/test_reports.py) and a Swiss stage. Here
the figures of a Silli group and of a Swiss round are checked against the pure package fed
by hand from the stored games (forfeits not rated, byes not games)."""

from __future__ import annotations

from fractions import Fraction

from django.urls import reverse
from rest_framework.test import APIClient

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group, Seat, SwissBye
from apps.ratinglists.reports import group_rating_report, norm_figures
from apps.ratings import NORM_LEVELS, Player, rating_report
from apps.ratings import Game as RatingGame
from apps.ratings import norm_figures as pure_norm_figures
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.services import create_tournament
from apps.standings.crosstable import build
from apps.standings.rated import crosstable_players, group_players
from tests.office.test_swiss import drawn_and_published, play_round, swiss_stage

SCORES = {
    "1-0": (Fraction(1), Fraction(0), True),
    "0-1": (Fraction(0), Fraction(1), True),
    "1/2-1/2": (Fraction(1, 2), Fraction(1, 2), True),
    "+-": (Fraction(1), Fraction(0), False),
    "-+": (Fraction(0), Fraction(1), False),
}


def by_hand(group: Group) -> list[Player]:
    """The group's players from its seats and games, written out here on their own."""
    seats = {s.entrant_id: s for s in Seat.objects.filter(group=group).select_related("entrant")}
    games: dict[int, list[RatingGame]] = {s.number: [] for s in seats.values()}
    for game in Game.objects.filter(group=group).order_by("number"):
        if not game.result:
            continue
        white, black = seats[game.white_id].number, seats[game.black_id].number
        white_score, black_score, played = SCORES[game.result]
        games[white].append(RatingGame(black, white_score, played))
        games[black].append(RatingGame(white, black_score, played))
    return [
        Player(s.number, s.entrant.rating, 30, tuple(games[s.number]))
        for s in sorted(seats.values(), key=lambda s: s.number)
    ]


def same_as_the_crosstable(group: Group) -> None:
    """The crosstable page's players (read from the crosstable it built) are the group's."""

    def key(players):
        return [
            (p.id, p.rating, sorted((g.opponent, g.score, g.played) for g in p.games))
            for p in players
        ]

    stored = [p.player for p in group_players(group)]
    shown = [p.player for p in crosstable_players(build(group))]
    assert key(shown) == key(stored)


def test_a_silli_group(organizer, django_capture_on_commit_callbacks):
    cup = create_tournament(
        organizer,
        name="Silli Cup",
        slug="silli-cup",
        games_per_player=10,
        stages=[{"min_group_size": 69}],
    )
    stage = cup.first_stage
    import_entrants(
        organizer, stage, entrants_csv(make_entrants(70, "norm silli", multi_entry_share=0))
    )
    close_registration(organizer, stage)
    stage = drawn_and_published(organizer, stage, django_capture_on_commit_callbacks)
    group = stage.groups.get()
    results = ["1-0", "1/2-1/2", "0-1", "+-", "1/2-1/2", "1-0", "-+"]
    for i, game in enumerate(Game.objects.filter(group=group).order_by("number")):
        Game.objects.filter(pk=game.pk).update(result=results[i % len(results)])
    players = by_hand(group)
    assert all(len(p.games) == 10 for p in players)
    rows = norm_figures(group)
    for code, level in NORM_LEVELS.items():
        expected = pure_norm_figures(players, level)
        assert [r.figures[code] for r in rows] == expected
    assert [r.line for r in group_rating_report(group)] == rating_report(players)
    assert any(r.figures["CCE"].games >= 8 for r in rows)
    same_as_the_crosstable(group)
    page = APIClient().get(reverse("api-group-norms", args=[group.pk]), {"level": "CCE"})
    assert len(page.json()["rows"]) == 70


def test_a_swiss_stage(organizer, django_capture_on_commit_callbacks):
    stage = drawn_and_published(
        organizer, swiss_stage(organizer, count=11, rounds=4), django_capture_on_commit_callbacks
    )
    play_round(organizer, stage, 1)
    group = stage.groups.get()
    bye = SwissBye.objects.get(group=group, round=1)
    rows = {r.who.entrant_id: r for r in norm_figures(group, ["IM"])}
    assert rows[bye.entrant_id].figures["IM"].games == 0  # a bye is no rated game
    players = by_hand(group)
    assert [r.figures["IM"] for r in norm_figures(group, ["IM"])] == pure_norm_figures(
        players, NORM_LEVELS["IM"]
    )
    same_as_the_crosstable(group)
    report = {r.who.entrant_id: r for r in group_rating_report(group)}
    assert report[bye.entrant_id].games == 0
    assert (
        sum(r.games for r in report.values())
        == 2 * Game.objects.filter(group=group, result__in=["1-0", "0-1", "1/2-1/2"]).count()
    )
    crosstable = reverse("group-crosstable", args=[stage.tournament.slug, stage.order, 1])
    assert (
        "IM norm: 1 rated games, at least 8 needed" in APIClient().get(crosstable).content.decode()
    )
