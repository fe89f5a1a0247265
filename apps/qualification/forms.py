"""Forms of the qualification page. Entrant details (a pre-qualified entrant's code, name,
nation, rating, e-mail) are checked by the engine's field rules, like every other way an
entrant comes in; reasons and seeds are plain text without control characters."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.entrants.fields import EntrantTextField
from apps.stages.models import Stage


class RuleForm(forms.Form):
    rule = forms.ChoiceField(
        label=_("Rule"),
        choices=[("", _("none (a final)")), *Stage.QualifyRule.choices],
        required=False,
    )
    value = forms.DecimalField(
        label=_("Value"),
        max_digits=7,
        decimal_places=3,
        min_value=0,
        required=False,
        help_text=_("points P, points lost L, or how many (q) qualify"),
    )
    relative = forms.BooleanField(
        label=_("Relative"),
        required=False,
        help_text=_("threshold: P is a share of the games (0.75); top: q is a percentage (20)"),
    )
    seed = EntrantTextField(
        field="seed",
        limit=200,
        label=_("Lot seed"),
        required=False,
        help_text=_("decides ties at the cut; empty: the draw's seed"),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("rule") and data.get("value") is None:
            self.add_error("value", _("Give the rule's value."))
        return data


class PrequalifiedForm(forms.Form):
    code = EntrantTextField(check="code", label=_("Code"))
    reason = EntrantTextField(
        field="reason",
        limit=200,
        label=_("Reason"),
        help_text=_("e.g. finalist of the previous Cup"),
    )
    name = EntrantTextField(
        check="name", label=_("Name"), required=False, help_text=_("only for a new entrant")
    )
    nation = EntrantTextField(
        check="nation",
        label=_("Nation"),
        required=False,
        help_text=_("the FIDE federation code, e.g. ITA"),
    )
    rating = EntrantTextField(
        check="rating",
        label=_("Rating"),
        required=False,
        widget=forms.NumberInput(attrs={"min": 0, "max": 4000}),
    )
    email = EntrantTextField(
        check="email", label=_("E-mail"), required=False, widget=forms.EmailInput()
    )


class DeclineForm(forms.Form):
    # An existing entrant's code: only plain text rules (codes from before the code rules
    # must still be found).
    code = EntrantTextField(field="code", limit=32, label=_("Code of the entrant who declines"))
    reason = EntrantTextField(field="reason", limit=200, label=_("Reason"))


class ReopenGroupForm(forms.Form):
    reason = EntrantTextField(field="reason", limit=200, label=_("Reason"))
