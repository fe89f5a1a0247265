"""The pages of a Swiss group's rounds: one page a round (``…/g/N/rounds/R/``) with its
boards, bye and absences (:func:`~apps.standings.swiss_rounds.round_sheet`), the round's
start and deadline, and the standings after it; ``…/g/N/rounds/`` goes to the current round.

Public like the group's other pages. The group's TD and the organizers also get a result
form on each open board and a "correct" link on each finished one: both go to the results
app's one game form (``game-result``, the result-entry action), which comes back here. The
organizers get "Pair the next round" on the current round (the office's ``stage-next-round``,
which comes back to the round pages).
"""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from apps.core.permissions import is_group_td, is_organizer
from apps.groups.models import Group
from apps.groups.rounds import adjudicator_note, round_deadline
from apps.results.forms import ResultForm
from apps.stages.models import Stage
from apps.stages.pages import visible_stage
from apps.standings.display import key_labels
from apps.standings.swiss_rounds import round_sheet, rounds_paired

from .state import swiss_state


def _swiss_group(request: HttpRequest, slug: str, order: int, number: int) -> Group:
    """The group of a Swiss stage the visitor may see, or 404 (other formats have no rounds
    pages: their groups are played as a whole)."""
    stage = visible_stage(request, slug, order)
    if not stage.is_swiss:
        raise Http404(_("Only a Swiss stage is played in rounds with their own pages."))
    group = get_object_or_404(Group.objects.select_related("td"), stage=stage, number=number)
    group.stage = stage
    return group


def round_url(group: Group, round_number: int) -> str:
    stage = group.stage
    return reverse(
        "group-round", args=[stage.tournament.slug, stage.order, group.number, round_number]
    )


def rounds(request: HttpRequest, slug: str, order: int, number: int) -> HttpResponse:
    """The current round's page (the last one paired); 404 before round 1 is."""
    group = _swiss_group(request, slug, order, number)
    paired = rounds_paired(group)
    if not paired:
        raise Http404(_("No round of this stage is paired yet."))
    return redirect(round_url(group, paired))


def round_page(
    request: HttpRequest, slug: str, order: int, number: int, round_number: int
) -> HttpResponse:
    group = _swiss_group(request, slug, order, number)
    stage = group.stage
    sheet = round_sheet(group, round_number)
    if sheet is None:
        raise Http404(_("Round %(round)s is not paired.") % {"round": round_number})
    organizer = is_organizer(request.user, stage.tournament)
    can_enter = organizer or is_group_td(request.user, group)
    in_play = stage.status == Stage.Status.PUBLISHED and not group.is_closed
    here = round_url(group, round_number)
    boards = [
        (
            board,
            ResultForm(
                auto_id=f"board{board.board}_%s",
                initial={"result": "", "version": board.version},
            )
            if can_enter and in_play and not board.finished
            else None,
        )
        for board in sheet.boards
    ]
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "group": group,
        "sheet": sheet,
        "boards": boards,
        "can_enter": can_enter,
        "enter_results": can_enter and in_play,
        "organizer": organizer,
        "round_address": here,
        "key_labels": key_labels(sheet.keys),
        "back": reverse("group-rounds", args=[stage.tournament.slug, stage.order, group.number]),
        # The current round's deadline as the group's pages say it ("ends on … (3 days
        # left)", or what was done at it); an earlier round shows its dates.
        "round_deadline": round_deadline(group, stage=stage) if sheet.current else None,
        "adjudicator_note": adjudicator_note(group) if can_enter else "",
        # "Pair the next round", for the organizers on the current round
        "swiss": swiss_state(stage) if organizer and sheet.current and in_play else None,
    }
    return render(request, "groups/round.html", context)
