"""The page of a group's start list (data from ``services``); finding a player, which shows
standings too, is the standings app's (``apps/standings/views.py`` find_player)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from apps.core.permissions import is_group_td, is_organizer
from apps.groups.permissions import can_see_td_contact, contacts_for
from apps.stages.pages import visible_stage

from .models import Game, Group
from .pages import group_rows
from .rounds import round_deadline
from .services import Opponent, SeatLine, group_lines


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
    # A closed circle's or round robin's opponents, written here: a hundred seats of ten
    # opponents each were a thousand links of template tags, most of the page's time.
    links: dict[int, str] = {}
    context["seat_rows"] = [
        (line, "" if stage.is_swiss else opponents_html(line, links)) for line in lines
    ]
    return render(request, "groups/group.html", context)


def opponents_html(line: SeatLine, links: dict[int, str]) -> str:
    """The seat's White and Black opponents as the start list shows them: each a link to the
    opponent's row titled with its name, nation and rating (each seat's link made once a
    page, in ``links``)."""

    def link(o: Opponent) -> str:
        found = links.get(o.seat)
        if found is None:
            rating = f" {o.entrant.rating}" if o.entrant.rating else ""
            title = escape(f"{o.entrant.name} ({o.entrant.nation}{rating})")
            found = links[o.seat] = f' <a href="#seat-{o.seat}" title="{title}">{o.seat}</a>'
        return found

    white = escape(_("White"))
    black = escape(_("Black"))
    w = escape(pgettext("White, one letter", "W"))
    b = escape(pgettext("Black, one letter", "B"))
    return mark_safe(  # noqa: S308 - the names are escaped, the rest are numbers and words
        f'<span class="colour-line"><span class="colour white" title="{white}">{w}</span>'
        + " ·".join(link(o) for o in line.as_white)
        + "</span>\n              "
        + f'<span class="colour-line"><span class="colour black" title="{black}">{b}</span>'
        + " ·".join(link(o) for o in line.as_black)
        + "</span>"
    )
