"""``{% load norms %}``: ``{{ figure|norm_text }}`` shows a title-norm figure in the reader's
language ("IM norm: needs 6½, has 7 ✓"; the pure ``NormFigure.text`` is its English form, as
the API and the commands give it), and ``{% unofficial_words %}`` the words every norm figure
goes with."""

from __future__ import annotations

from django import template
from django.utils.translation import gettext as _

from apps.ratings.norms import NormFigure, points_text

register = template.Library()


@register.filter
def norm_text(figure: NormFigure) -> str:
    words = {"level": figure.level.code, "games": figure.games, "least": figure.min_games}
    if figure.games < figure.min_games:
        return _("%(level)s norm: %(games)s rated games, at least %(least)s needed") % words
    text = _("%(level)s norm: needs %(needs)s, has %(has)s") % {
        **words,
        "needs": points_text(figure.requirement),
        "has": points_text(figure.score),
    }
    return f"{text} ✓" if figure.achieved else text


@register.simple_tag
def unofficial_words() -> str:
    return _("unofficial unless the event is a registered title tournament")
