"""A failed draw's sentence in the reader's language.

The engine (``apps/silli``, pure Python, no Django) says why a draw cannot be made in
English, and the draw job stores that sentence as it is (the same words ``silli_draw``
prints). The pages and the API show it through :func:`translated`, which recognises the
engine's sentences (a group's missing formula, a nation or the rematches that cannot be
kept apart, a person's entries) and writes them with gettext in the active language; a
sentence it does not recognise is shown as stored. ``tests/office/test_draw_errors.py``
makes each sentence with the engine itself, so a changed engine sentence fails there.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from django.utils.translation import gettext as _

_GROUP = r"Group (?P<number>\d+) \((?P<n>\d+) seats, (?P<games>\d+) games per player\): "
_ADVICE = (
    "allow some same-nation games for this group, change the number of games, "
    "or change the group size"
)


def _advice() -> str:
    return _(
        "allow some same-nation games for this group, change the number of games, "
        "or change the group size"
    )


def _where(m: re.Match[str]) -> str:
    return _("Group %(number)s (%(n)s seats, %(games)s games per player)") % m.groupdict()


def _half(m: re.Match[str]) -> str:
    return _(
        "%(where)s: nation %(nation)s has %(count)s entrants, more than the %(half)s (half the "
        "circle) that any closed circle of %(n)s seats can keep apart; %(advice)s."
    ) % {**m.groupdict(), "where": _where(m), "advice": _advice()}


def _bound(m: re.Match[str]) -> str:
    return _(
        "%(where)s: nation %(nation)s has %(count)s entrants, more than the bound of "
        "%(bound)s players who never meet for every formula tried (%(names)s); %(advice)s."
    ) % {**m.groupdict(), "where": _where(m), "advice": _advice()}


def _no_seating(m: re.Match[str]) -> str:
    return _(
        "%(where)s: no seating keeps the %(count)s entrants of nation %(nation)s apart "
        "together with the other constraints (formulas tried: %(names)s; bound %(bound)s); "
        "%(advice)s."
    ) % {**m.groupdict(), "where": _where(m), "advice": _advice()}


def _rematches(m: re.Match[str]) -> str:
    return _(
        "%(where)s: the %(pairs)s pair(s) who met before (and entries of one person) could "
        "not all be kept apart (formulas tried: %(names)s)."
    ) % {**m.groupdict(), "where": _where(m)}


def _why(text: str) -> str:
    m = re.fullmatch(
        r"a closed circle needs at least (?P<seats>\d+) seats for (?P<games>\d+) games", text
    )
    if m:
        return (
            _("a closed circle needs at least %(seats)s seats for %(games)s games") % m.groupdict()
        )
    m = re.fullmatch(
        r"an all-odd formula on an even circle needs at least (?P<seats>\d+) seats "
        r"for (?P<games>\d+) games",
        text,
    )
    if m:
        return (
            _(
                "an all-odd formula on an even circle needs at least %(seats)s seats for "
                "%(games)s games"
            )
            % m.groupdict()
        )
    if text == "an exhaustive search found none":
        return _("an exhaustive search found none")
    return text


def _option(text: str) -> str:
    m = re.fullmatch(r"(?P<games>\d+) games per player", text)
    if m:
        return _("%(games)s games per player") % m.groupdict()
    m = re.fullmatch(r"a round robin \((?P<games>\d+) games each\)", text)
    if m:
        return _("a round robin (%(games)s games each)") % m.groupdict()
    if text == "the ordinary (not all-odd) formulas":
        return _("the ordinary (not all-odd) formulas")
    if text == "larger groups":
        return _("larger groups")
    return text


def _no_formula(m: re.Match[str]) -> str:
    options = _(", or ").join(_option(o) for o in m["options"].split(", or "))
    values = {"games": m["games"], "n": m["n"], "why": _why(m["why"]), "options": options}
    if m["odd"]:
        return (
            _(
                "No valid %(games)s-game all-odd formula exists for a closed circle of %(n)s "
                "seats (%(why)s). Use %(options)s."
            )
            % values
        )
    return (
        _(
            "No valid %(games)s-game formula exists for a closed circle of %(n)s seats "
            "(%(why)s). Use %(options)s."
        )
        % values
    )


def _group_reason(m: re.Match[str]) -> str:
    return _("Group %(number)s (%(n)s seats): %(reason)s") % {
        "number": m["number"],
        "n": m["n"],
        "reason": translated(m["reason"]),
    }


def _person_groups(m: re.Match[str]) -> str:
    return (
        _(
            "person %(person)s holds %(most)s entries but the stage has only %(groups)s group(s); "
            "entries of one person never share a group"
        )
        % m.groupdict()
    )


def _person_nations(m: re.Match[str]) -> str:
    return (
        _(
            "the entries of person %(person)s cannot be put in different groups without "
            "unbalancing the nations"
        )
        % m.groupdict()
    )


_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (
        re.compile(
            _GROUP + r"nation (?P<nation>\S+) has (?P<count>\d+) entrants, more than the "
            r"(?P<half>\d+) \(half the circle\) that any closed circle of \d+ seats can keep "
            r"apart; " + re.escape(_ADVICE) + r"\."
        ),
        _half,
    ),
    (
        re.compile(
            _GROUP + r"nation (?P<nation>\S+) has (?P<count>\d+) entrants, more than the bound "
            r"of (?P<bound>\d+) players who never meet for every formula tried "
            r"\((?P<names>.*)\); " + re.escape(_ADVICE) + r"\."
        ),
        _bound,
    ),
    (
        re.compile(
            _GROUP + r"no seating keeps the (?P<count>\d+) entrants of nation (?P<nation>\S+) "
            r"apart together with the other constraints \(formulas tried: (?P<names>.*); "
            r"bound (?P<bound>\d+)\); " + re.escape(_ADVICE) + r"\."
        ),
        _no_seating,
    ),
    (
        re.compile(
            _GROUP + r"the (?P<pairs>\d+) pair\(s\) who met before \(and entries of one "
            r"person\) could not all be kept apart \(formulas tried: (?P<names>.*)\)\."
        ),
        _rematches,
    ),
    (
        re.compile(
            r"No valid (?P<games>\d+)-game (?P<odd>all-odd )?formula exists for a closed "
            r"circle of (?P<n>\d+) seats \((?P<why>[^)]*)\)\. Use (?P<options>.*)\."
        ),
        _no_formula,
    ),
    (
        re.compile(r"Group (?P<number>\d+) \((?P<n>\d+) seats\): (?P<reason>.*)", re.S),
        _group_reason,
    ),
    (
        re.compile(
            r"person (?P<person>.+) holds (?P<most>\d+) entries but the stage has only "
            r"(?P<groups>\d+) group\(s\); entries of one person never share a group"
        ),
        _person_groups,
    ),
    (
        re.compile(
            r"the entries of person (?P<person>.+) cannot be put in different groups without "
            r"unbalancing the nations"
        ),
        _person_nations,
    ),
]


def translated(message: str) -> str:
    """``message``, an engine's sentence about a draw that cannot be made, in the active
    language (as it is when it is not one the engine writes)."""
    for pattern, write in _PATTERNS:
        m = pattern.fullmatch(message)
        if m:
            return write(m)
    return message
