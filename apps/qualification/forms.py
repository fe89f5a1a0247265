"""Forms of the qualification page."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

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
    seed = forms.CharField(
        label=_("Lot seed"),
        max_length=200,
        required=False,
        help_text=_("decides ties at the cut; empty: the draw's seed"),
    )

    def clean(self):
        data = super().clean()
        if data.get("rule") and data.get("value") is None:
            self.add_error("value", _("Give the rule's value."))
        return data


class PrequalifiedForm(forms.Form):
    code = forms.CharField(label=_("Code"), max_length=32)
    reason = forms.CharField(
        label=_("Reason"), max_length=200, help_text=_("e.g. finalist of the previous Cup")
    )
    name = forms.CharField(
        label=_("Name"), max_length=200, required=False, help_text=_("only for a new entrant")
    )
    nation = forms.CharField(label=_("Nation"), max_length=3, required=False)
    rating = forms.IntegerField(label=_("Rating"), min_value=0, max_value=4000, required=False)
    email = forms.EmailField(label=_("E-mail"), required=False)


class DeclineForm(forms.Form):
    code = forms.CharField(label=_("Code of the entrant who declines"), max_length=32)
    reason = forms.CharField(label=_("Reason"), max_length=200)


class ReopenGroupForm(forms.Form):
    reason = forms.CharField(label=_("Reason"), max_length=200)
