"""Whether a stage can be drawn, said before the draw (issue 27, item 2).

The engine answers (:func:`apps.silli.feasibility.feasibility`: the group sizes the division
makes, or why nothing can be drawn and the nearest settings that can); this module asks it
with a stage's settings and a number of entrants, and says the answer in the reader's
language. Every place where the numbers become known uses it: the stage form and API (a
warning: registration is still open), closing registration, starting the draw, the
qualification preview and its confirmation (refusals), and a failed draw's page.

Only closed circles (Silli stages) depend on group sizes; round robins and Swiss stages are
never refused here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from apps.core.errors import ActionError, ErrorCode
from apps.silli.feasibility import Feasibility, feasibility, smallest_circle
from apps.silli.formula import formula_text

from .models import Stage

ENTRANTS = "entrants"
QUALIFIERS = "qualifiers"


def stage_feasibility(
    stage: Stage, entrants: int | None = None, *, games: int | None = None
) -> Feasibility | None:
    """The engine's answer for ``stage`` with ``entrants`` entrants (default: its entries
    now); None for a stage that is not a closed circle, or with no entrants."""
    if stage.format != Stage.Format.SILLI:
        return None
    count = stage.entries.count() if entrants is None else entrants
    if count < 1:
        return None
    return feasibility(
        count,
        games if games is not None else stage.games_per_player,
        stage.min_group_size,
        formula=tuple(stage.formula) if stage.formula else None,
    )


def sizes_text(sizes: Sequence[int]) -> str:
    """``4 groups of 50``; ``9 groups of 104 and 21 of 103``."""
    parts = []
    for i, (size, count) in enumerate(sorted(Counter(sizes).items(), reverse=True)):
        values = {"count": count, "size": size}
        if i == 0:
            parts.append(
                ngettext("%(count)s group of %(size)s", "%(count)s groups of %(size)s", count)
                % values
            )
        else:
            parts.append(ngettext("%(count)s of %(size)s", "%(count)s of %(size)s", count) % values)
    return _(" and ").join(parts)


def _need(found: Feasibility) -> str:
    """What the games (or the formula given) need, as the start of a sentence."""
    if found.formula:
        return ngettext(
            "The formula %(formula)s is not valid for groups of %(sizes)s",
            "The formula %(formula)s is not valid for groups of %(sizes)s",
            len(found.bad_sizes),
        ) % {
            "formula": formula_text(found.formula),
            "sizes": _(" or ").join(str(n) for n in found.bad_sizes),
        }
    if found.smallest is None:
        return _("No %(games)s-game formula exists for groups of %(sizes)s") % {
            "games": found.games,
            "sizes": _(" or ").join(str(n) for n in found.bad_sizes),
        }
    values = {
        "games": found.games,
        "least": found.smallest,
        "gaps": _(" and ").join(str(n) for n in found.gaps),
    }
    if not found.gaps:
        return _("%(games)s games per player need groups of at least %(least)s") % values
    return (
        ngettext(
            "%(games)s games per player need groups of at least %(least)s (%(gaps)s has no "
            "formula either)",
            "%(games)s games per player need groups of at least %(least)s (%(gaps)s have no "
            "formula either)",
            len(found.gaps),
        )
        % values
    )


def exact_minimum(found: Feasibility) -> int | None:
    """The smallest group size with which the first rule alone makes ``found.sizes``."""
    if not found.sizes:
        return None
    least = min(found.sizes)
    return least if found.entrants // least == len(found.sizes) else None


def message(found: Feasibility, *, who: str = ENTRANTS) -> str | None:
    """The sentence a page shows: None when the first rule's groups can be drawn; what the
    draw makes instead; or why nothing can be drawn and the nearest workable settings."""
    if found.status == "ok":
        return None
    count = found.entrants
    if found.status == "adjusted":
        if who == QUALIFIERS:
            text = _(
                "%(need)s: with %(count)s qualifiers the next stage's draw makes %(sizes)s, "
                "not %(plain)s."
            )
        else:
            text = _("%(need)s: with %(count)s entrants the draw makes %(sizes)s, not %(plain)s.")
        text %= {
            "need": _need(found),
            "count": count,
            "sizes": sizes_text(found.sizes or ()),
            "plain": sizes_text(found.plain_sizes),
        }
        minimum = exact_minimum(found)
        if minimum is not None:
            text += " " + _("Set the smallest group to %(size)s to ask for that.") % {
                "size": minimum
            }
        return text
    if who == QUALIFIERS:
        text = ngettext(
            "%(need)s; the next stage would receive %(count)s qualifier.",
            "%(need)s; the next stage would receive %(count)s qualifiers.",
            count,
        )
    else:
        text = ngettext(
            "%(need)s; the stage has %(count)s entrant.",
            "%(need)s; the stage has %(count)s entrants.",
            count,
        )
    text %= {"need": _need(found), "count": count}
    options = [_option(s.kind, s.value, s.sizes, who) for s in found.suggestions]
    if options:
        text += " " + _("Nearest workable: %(options)s.") % {"options": _("; or ").join(options)}
    return text


def _option(kind: str, value: int, sizes: Sequence[int], who: str) -> str:
    where = sizes_text(sizes)
    if kind == "games":
        return _("%(games)s games per player (%(sizes)s)") % {"games": value, "sizes": where}
    if kind == "entrants":
        if who == QUALIFIERS:
            text = ngettext(
                "%(count)s qualifier (%(sizes)s)", "%(count)s qualifiers (%(sizes)s)", value
            )
        else:
            text = ngettext(
                "%(count)s entrant (%(sizes)s)", "%(count)s entrants (%(sizes)s)", value
            )
        return text % {"count": value, "sizes": where}
    if kind == "round_robin":
        return _("a round robin (%(sizes)s, %(games)s games each)") % {
            "sizes": where,
            "games": value,
        }
    return _("the engine's formulas instead of the one given (%(sizes)s)") % {"sizes": where}


def minimum_note(stage: Stage) -> str | None:
    """A note on the smallest group alone (no entrants needed): below the smallest circle
    with a formula, the draw makes fewer, larger groups."""
    if stage.format != Stage.Format.SILLI or stage.formula:
        return None
    games = stage.games_per_player
    least = smallest_circle(games)
    if least is None:
        return None
    found = feasibility(least, games, least)
    if stage.min_group_size >= least and stage.min_group_size not in found.gaps:
        return None
    return _(
        "%(need)s: a group of %(size)s cannot be drawn, so the draw makes fewer, larger groups."
    ) % {"need": _need(found), "size": stage.min_group_size}


def settings_warning(stage: Stage) -> str | None:
    """What the stage's settings page and API say about its settings before the draw: the
    answer for its entrants now, else the note on its smallest group."""
    if stage.is_drawn:
        return None
    found = stage_feasibility(stage)
    said = message(found) if found is not None else None
    return said or minimum_note(stage)


def draw_check(stage: Stage, entrants: int | None = None) -> dict[str, Any] | None:
    """The API's ``draw_check`` of a stage not yet drawn: ``{status, group_sizes,
    message}``, or None (drawn, not a closed circle, no entrants)."""
    if stage.is_drawn:
        return None
    found = stage_feasibility(stage, entrants)
    if found is None:
        note = minimum_note(stage)
        return {"status": "note", "group_sizes": None, "message": note} if note else None
    return {
        "status": found.status,
        "group_sizes": list(found.sizes) if found.sizes else None,
        "message": message(found) or minimum_note(stage),
    }


def require_drawable(
    stage: Stage, entrants: int | None = None, *, who: str = ENTRANTS, field: str = ""
) -> Feasibility | None:
    """Refuse (422, ``draw_impossible``) when ``stage`` cannot be drawn with ``entrants``
    (default: its entries), with the sentence naming the nearest workable settings."""
    found = stage_feasibility(stage, entrants)
    if found is None or found.ok:
        return found
    said = message(found, who=who) or ""
    raise ActionError(
        ErrorCode.DRAW_IMPOSSIBLE,
        said,
        details=[
            {
                "field": field or "min_group_size",
                "message": said,
                "code": "draw_impossible",
                "suggestions": [
                    {"kind": s.kind, "value": s.value, "group_sizes": list(s.sizes)}
                    for s in found.suggestions
                ],
            }
        ],
    )
