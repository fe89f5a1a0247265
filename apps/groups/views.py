"""Pages of a group's start list and of finding a player (data from ``services``)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from apps.core.permissions import is_group_td, is_organizer
from apps.groups.permissions import can_see_td_contact, contacts_for
from apps.stages.models import Tournament
from apps.stages.pages import visible_stage
from apps.stages.permissions import public_stages_filter

from .models import Game, Group, Seat
from .pages import group_rows
from .rounds import round_deadline
from .services import group_lines, lines_for_seats, player_search

# "Find a player" shows this many entries a page (``?q=…&page=N``, the shared _pager.html);
# each entry lists the player's games, so 25 keep a page of a 100,000-entrant event near 40 ms.
FIND_PER_PAGE = 25


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


def find_player(request: HttpRequest, slug: str) -> HttpResponse:
    """Entrants placed in the tournament's published stages, by name (contains) or exact code
    (indexed on PostgreSQL: see ``services.player_search``), ``FIND_PER_PAGE`` a page.

    Paged like the stage page: Django's ``Paginator.get_page`` reads the count and one page
    (LIMIT/OFFSET); a page number that is not a number gives the first page, one past the end
    the last page."""
    cup = get_object_or_404(Tournament, slug=slug)
    query = request.GET.get("q", "").strip()
    page = None
    lines = []
    if query:
        seats = (
            Seat.objects.filter(public_stages_filter("stage__"), stage__tournament=cup)
            .filter(player_search(query))
            .select_related("entrant", "group", "stage")
            .order_by("stage__order", "entrant__name", "entrant__code")
        )
        page = Paginator(seats, FIND_PER_PAGE).get_page(request.GET.get("page"))
        lines = lines_for_seats(list(page.object_list))
    return render(
        request,
        "groups/find_player.html",
        {"tournament": cup, "query": query, "page": page, "lines": lines},
    )
