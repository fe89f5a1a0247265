"""Pages for the end of a stage: closing groups and the stage, and qualification.

The qualification page is public once the stage is (qualifiers are news players wait for);
its forms — the rule, pre-qualified entrants, declines, the confirmation — are the
organizers'. Each view parses its input, calls one action and redirects back; a refusal is
shown as a message and nothing changes.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from decimal import Decimal
from typing import TypeVar

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from apps.core.csvfiles import safe_writer
from apps.core.errors import ActionError
from apps.core.pages import show_refusal
from apps.core.permissions import Actor, is_organizer
from apps.groups.models import Group
from apps.results import closing
from apps.results.pages import result_entry_page, results_url
from apps.scoring import qualification as q
from apps.scoring.points import points_text
from apps.stages.models import Stage
from apps.stages.pages import manage_url, organizer_page, visible_stage
from apps.standings.display import figure_text, key_labels

from . import services
from .forms import DeclineForm, PrequalifiedForm, ReopenGroupForm, RuleForm

PAGE_SIZE = 200
T = TypeVar("T")
CUTS_SHOWN = 40
RESERVES_SHOWN = 60


def qualification_url(stage: Stage) -> str:
    return reverse("stage-qualification", args=[stage.tournament.slug, stage.order])


def _attempt(request: HttpRequest, action: Callable[[], T], message: Callable[[T], str]) -> None:
    """Run one action: show its success message, or its refusal (nothing changed then)."""
    try:
        result = action()
    except ActionError as error:
        show_refusal(request, error)
    else:
        messages.success(request, message(result))


def _form_errors(request: HttpRequest, form) -> None:
    for field, errors in form.errors.items():
        label = form.fields[field].label if field in form.fields else ""
        for error in errors:
            messages.error(request, f"{label}: {error}" if label else error)


# ---------------------------------------------------------------------------
# Closing a group (its TD or an organizer) and the stage (organizers)
# ---------------------------------------------------------------------------


@require_POST
@result_entry_page
def group_close(request: HttpRequest, group: Group) -> HttpResponse:
    _attempt(
        request,
        lambda: closing.close_group(request.user, group),
        lambda _group: _("Group %(number)s is closed.") % {"number": group.number},
    )
    return redirect(results_url(group))


@require_POST
@result_entry_page
def group_reopen(request: HttpRequest, group: Group) -> HttpResponse:
    form = ReopenGroupForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
    else:
        _attempt(
            request,
            lambda: closing.reopen_group(request.user, group, form.cleaned_data["reason"]),
            lambda _group: _("Group %(number)s is open again.") % {"number": group.number},
        )
    return redirect(results_url(group))


@require_POST
@organizer_page
def stage_finish(request: HttpRequest, stage: Stage) -> HttpResponse:
    _attempt(
        request,
        lambda: closing.close_stage(request.user, stage),
        lambda _stage: _("The stage is closed: its qualifiers can be confirmed."),
    )
    return redirect(manage_url(stage) + "#closing")


@require_POST
@organizer_page
def stage_adjudication(request: HttpRequest, stage: Stage) -> HttpResponse:
    _attempt(
        request,
        lambda: closing.send_to_adjudication(request.user, stage),
        lambda count: (
            _("%(count)s open games were sent to adjudication; the TDs enter the decisions.")
            % {"count": count}
        ),
    )
    return redirect(manage_url(stage) + "#closing")


# ---------------------------------------------------------------------------
# Qualification
# ---------------------------------------------------------------------------


def _plain(value):
    """A stored decimal without its trailing zeros: 11.000 → 11, 0.750 → 0.75, 100 → 100."""
    if value is None:
        return None
    return value.quantize(1) if value == value.to_integral() else value.normalize()


def _rows(decisions, entrants: dict, names: list[str]) -> list[dict]:
    """Decisions as table rows: the entrant, the points and the tie-breaks at display."""
    return [
        {
            "decision": d,
            "entrant": entrants[d.candidate.id],
            "points": points_text(d.candidate.points),
            "figures": [figure_text(n, d.candidate.figures.get(n)) for n in names],
        }
        for d in decisions
    ]


def qualification(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    organizer = is_organizer(request.user, stage.tournament)
    preview = services.preview(stage)
    outcome = preview.outcome
    names = [k.value for k in services.chain(stage.tournament)][1:]
    page = Paginator(outcome.qualifiers if outcome else [], PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    cuts = [
        {"cut": c, "rows": _rows(c.tied, preview.entrants, names)}
        for c in (outcome.cuts if outcome else [])
        if c.tied
    ]
    context = {
        "tournament": stage.tournament,
        "stage": stage,
        "preview": preview,
        "page": page,
        "qualifiers": _rows(page.object_list, preview.entrants, names),
        "cuts": cuts[:CUTS_SHOWN],
        "more_cuts": max(0, len(cuts) - CUTS_SHOWN),
        "reserves": _rows(
            outcome.reserves[:RESERVES_SHOWN] if outcome else [], preview.entrants, names
        ),
        "key_labels": key_labels(names),
        "organizer": organizer,
    }
    if organizer:
        context |= {
            "rule_form": RuleForm(
                auto_id="rule_%s",
                initial={
                    "rule": stage.qualify_rule,
                    "value": _plain(stage.qualify_value),
                    "relative": stage.qualify_relative,
                    "seed": stage.lot_seed,
                },
            ),
            "prequalified_form": PrequalifiedForm(auto_id="prequalified_%s"),
            "decline_form": DeclineForm(auto_id="decline_%s"),
        }
    return render(request, "qualification/qualification.html", context)


def _organizer_post(form_class, action):
    """A qualification form's POST: validate, call ``action(user, stage, data)``, go back."""

    @require_POST
    @organizer_page
    def view(request: HttpRequest, stage: Stage) -> HttpResponse:
        form = form_class(request.POST)
        if not form.is_valid():
            _form_errors(request, form)
        else:
            _attempt(
                request,
                lambda: action(request.user, stage, form.cleaned_data),
                lambda message: message,
            )
        return redirect(qualification_url(stage))

    return view


def _set_rule(user: Actor, stage: Stage, data: dict) -> str:
    services.set_rule(
        user,
        stage,
        rule=data["rule"],
        value=data["value"],
        relative=data["relative"],
        seed=data["seed"],
    )
    return _("The qualification rule is saved.")


def _add_prequalified(user: Actor, stage: Stage, data: dict) -> str:
    adjustment = services.add_prequalified(user, stage, **data)
    return _("%(name)s is pre-qualified.") % {"name": adjustment.entrant.name}


def _decline(user: Actor, stage: Stage, data: dict) -> str:
    adjustment = services.decline(user, stage, **data)
    return _("%(name)s declines; the next reserve takes the place.") % {
        "name": adjustment.entrant.name
    }


qualification_rule = _organizer_post(RuleForm, _set_rule)
qualification_prequalify = _organizer_post(PrequalifiedForm, _add_prequalified)
qualification_decline = _organizer_post(DeclineForm, _decline)


@require_POST
@organizer_page
def qualification_confirm(request: HttpRequest, stage: Stage) -> HttpResponse:
    try:
        following = services.confirm(request.user, stage)
    except ActionError as error:
        show_refusal(request, error)
        return redirect(qualification_url(stage))
    messages.success(
        request,
        _("Qualification confirmed: the %(stage)s has %(count)s entrants and is ready to draw.")
        % {"stage": following.get_kind_display().lower(), "count": following.entries.count()},
    )
    return redirect(manage_url(following))


CSV_HEADER = ["status", "rank", "group", "code", "name", "nation", "rating", "points", "reason"]


def qualification_csv_text(preview: services.Preview) -> str:
    """The qualification list as CSV: qualifiers, pre-qualified entrants, then reserves
    (points as exact decimals)."""
    outcome = preview.outcome

    def decision_row(d: q.Decision) -> list:
        e, points = preview.entrants[d.candidate.id], d.candidate.points
        return [
            d.status.value,
            d.rank,
            d.candidate.group,
            e.code,
            e.name,
            e.nation,
            e.rating or "",
            Decimal(points.numerator) / points.denominator,
            d.reason,
        ]

    def prequalified_row(a) -> list:
        e = a.entrant
        return ["prequalified", "", "", e.code, e.name, e.nation, e.rating or "", "", a.reason]

    out = io.StringIO()
    writer = safe_writer(out)
    writer.writerow(CSV_HEADER)
    writer.writerows(decision_row(d) for d in (outcome.qualifiers if outcome else []))
    writer.writerows(prequalified_row(a) for a in preview.prequalified)
    writer.writerows(decision_row(d) for d in (outcome.reserves if outcome else []))
    return out.getvalue()


def qualification_csv(request: HttpRequest, slug: str, order: int) -> HttpResponse:
    stage = visible_stage(request, slug, order)
    response = HttpResponse(
        qualification_csv_text(services.preview(stage)), content_type="text/csv; charset=utf-8"
    )
    name = f"{stage.tournament.slug}-{stage.kind}-qualification.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
