"""The page of a group's start list (data from ``services``); finding a player, which shows
standings too, is the standings app's (``apps/standings/views.py`` find_player)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.core.permissions import is_group_td, is_organizer
from apps.groups.permissions import can_see_td_contact, contacts_for
from apps.stages.pages import visible_stage

from .models import Game, Group
from .pages import group_rows
from .rounds import round_deadline
from .services import group_lines


def group(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    the_group = get_object_or_404(
        Group.objects.select_related("td__profile"), stage=stage, number=number
    )
    the_group.stage = stage
    lines = group_lines(the_group)
    organizer = is_organizer(request.user, stage.tournament)
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": the_group,
        "row": group_rows([the_group])[0],
        "lines": lines,
        "organizer": organizer,
        "can_enter": organizer or is_group_td(request.user, the_group),
        "contacts": contacts_for(request.user, the_group),
        "td_contact": the_group.td is not None and can_see_td_contact(request.user, the_group),
        "round_deadline": round_deadline(the_group),
        # a Swiss group's rounds paired so far: each has its pairing list (CSV)
        "pairing_rounds": sorted(
            {
                number
                for number in Game.objects.filter(group=the_group).values_list("round", flat=True)
                if number is not None
            }
        )
        if stage.is_swiss
        else [],
    }
    return render(request, "groups/group.html", context)
