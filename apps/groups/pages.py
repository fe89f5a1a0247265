"""Groups as the stage page and the draw review list them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy

from .models import Group

TOP_NATIONS = 5
# How the engine chose a group's formula (``Group.rule``), as the pages name it; a Swiss
# group's rule names its pairing.
FORMULA_RULES = {
    "natural": pgettext_lazy("formula rule", "natural"),
    "reserve": pgettext_lazy("formula rule", "reserve"),
    "searched": pgettext_lazy("formula rule", "searched"),
    "given": pgettext_lazy("formula rule", "given"),
    "all-odd natural": pgettext_lazy("formula rule", "all-odd natural"),
    "all-odd reserve": pgettext_lazy("formula rule", "all-odd reserve"),
    "all-odd searched": pgettext_lazy("formula rule", "all-odd searched"),
    "wide": pgettext_lazy("formula rule", "wide"),
    # a Swiss group's rule: the Dutch system, and the top seed's colour in round 1
    "dutch white1": pgettext_lazy("pairing rule", "Dutch system, the top seed White in round 1"),
    "dutch black1": pgettext_lazy("pairing rule", "Dutch system, the top seed Black in round 1"),
}


@dataclass(frozen=True)
class GroupRow:
    """A group as the stage page and the draw review list it."""

    group: Group
    same_nation: int
    rematches: int
    same_person: int
    nations: list[tuple[str, int]]
    more_nations: int

    @property
    def certified(self) -> bool:
        return self.group.principles_hold and not self.group.conflicts

    @property
    def formula_text(self) -> str:
        """The group's :attr:`~apps.groups.models.Group.formula_text`, with its words ("Swiss",
        "round robin") in the visitor's language."""
        text = self.group.formula_text
        return text if self.group.formula else _(text)

    @property
    def rule_label(self) -> str:
        return str(FORMULA_RULES.get(self.group.rule, self.group.rule))

    # The certificate's counts and the nations beyond the first, as the stage page's rows
    # show them: written here rather than by the template's {% blocktranslate %} a row (the
    # same messages), a hundred rows a page.

    @property
    def conflict_counts(self) -> str:
        """E.g. "2 same-nation games · 0 rematches", and " · 1 same-person game" if any."""
        parts = [
            ngettext(
                "%(counter)s same-nation game", "%(counter)s same-nation games", self.same_nation
            )
            % {"counter": self.same_nation},
            ngettext("%(counter)s rematch", "%(counter)s rematches", self.rematches)
            % {"counter": self.rematches},
        ]
        if self.same_person:
            parts.append(
                ngettext(
                    "%(counter)s same-person game",
                    "%(counter)s same-person games",
                    self.same_person,
                )
                % {"counter": self.same_person}
            )
        return " · ".join(parts)

    @property
    def more_nations_text(self) -> str:
        return ngettext("+%(counter)s nation", "+%(counter)s nations", self.more_nations) % {
            "counter": self.more_nations
        }


def group_rows(groups: Iterable[Group]) -> list[GroupRow]:
    rows = []
    for group in groups:
        reasons = Counter(c.get("reason") for c in group.conflicts)
        mix = [(nation, count) for nation, count in group.nation_mix]
        rows.append(
            GroupRow(
                group=group,
                same_nation=reasons["same nation"],
                rematches=reasons["met before"],
                same_person=reasons["same person"],
                nations=mix[:TOP_NATIONS],
                more_nations=max(0, len(mix) - TOP_NATIONS),
            )
        )
    return rows
