"""Fixtures of the rating-list tests: the worked example of docs/ratings.md §5 as a real
round-robin group (ten entrants, drawn, published, its results set), its ratings and rated
games before the event from a rating list applied to the stage."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission

from apps.entrants.services import close_registration, import_entrants
from apps.groups.models import Game, Group, Seat
from apps.office.services import publish_draw, start_draw
from apps.ratinglists.services import apply_rating_list, import_rating_list
from apps.stages.services import create_tournament, update_stage
from tests.ratings import worked_example as example

LIST_DATE = datetime.date(2026, 10, 1)


def make_user(name: str, **extra):
    return get_user_model().objects.create_user(name, f"{name}@example.org", **extra)


@pytest.fixture
def organizer(db):
    """An organizer: may create tournaments (and so import rating lists)."""
    user = make_user("rl-org")
    user.user_permissions.add(
        Permission.objects.get(codename="add_tournament", content_type__app_label="stages")
    )
    return get_user_model().objects.get(pk=user.pk)


@pytest.fixture
def staff(db):
    return make_user("rl-staff", is_staff=True)


@pytest.fixture
def stranger(db):
    return make_user("rl-someone")


def example_list_csv() -> str:
    """The example's players as a rating list: ID P<no>, rating, rated games before."""
    lines = ["id,name,federation,rating,games,title"]
    for row in example.table("5.1"):
        rating = "" if row[2] == "—" else row[2]
        lines.append(f"P{row[0]},{row[1]},ITA,{rating},{row[3]},")
    return "\n".join(lines) + "\n"


def example_entrants_csv() -> str:
    """The example's players as entrants, every one rated 1500 until the list is applied."""
    lines = ["code,name,nation,rating,person"]
    for row in example.table("5.1"):
        lines.append(f"E{row[0]},{row[1]},ITA,1500,P{row[0]}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def example_list(organizer):
    return import_rating_list(
        organizer, name="ICCF list 2026/4", list_date=LIST_DATE, text=example_list_csv()
    ).rating_list


@pytest.fixture
def open_stage(organizer):
    cup = create_tournament(organizer, name="Ratings Cup", slug="ratings-cup")
    stage = update_stage(
        organizer,
        cup.first_stage,
        kind="final",
        format="round_robin",
        min_group_size=10,
        separate_nations=False,
    )
    import_entrants(organizer, stage, example_entrants_csv())
    return stage


def set_example_results(group: Group) -> None:
    """Every game of the group gets the result of §5.1 (forfeits as forfeits)."""
    number_of = {
        s.entrant_id: int(s.entrant.code[1:])
        for s in Seat.objects.filter(group=group).select_related("entrant")
    }
    rows = {int(r[0]): r for r in example.table("5.1")}
    for game in Game.objects.filter(group=group):
        white, black = number_of[game.white_id], number_of[game.black_id]
        symbol = rows[white][3 + black]
        result = {"1": "1-0", "0": "0-1", "½": "1/2-1/2", "+": "+-", "−": "-+"}[symbol]
        Game.objects.filter(pk=game.pk).update(result=result)


@pytest.fixture
def example_group(organizer, open_stage, example_list, django_capture_on_commit_callbacks):
    apply_rating_list(organizer, open_stage, example_list)
    close_registration(organizer, open_stage)
    with django_capture_on_commit_callbacks(execute=True):
        start_draw(organizer, open_stage, "ratings seed")
    with django_capture_on_commit_callbacks(execute=True):
        publish_draw(organizer, open_stage)
    group = Group.objects.select_related("stage__tournament").get(stage=open_stage, number=1)
    set_example_results(group)
    return group
