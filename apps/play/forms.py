"""Forms of the board page: what each action's plain HTML form sends (the same fields the
API takes, so static/js/play.js sends a form to the API as it is)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class TurnForm(forms.Form):
    """The ply the player saw: an action on a position that changed meanwhile is refused."""

    after_ply = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class MoveForm(TurnForm):
    move = forms.CharField(
        label=_("Your move"),
        max_length=10,
        help_text=_("SAN (e4, Nf3, O-O, e8=Q) or UCI (e2e4)."),
    )


class ClaimForm(TurnForm):
    kind = forms.CharField(label=_("Claim"), max_length=24)
    reason = forms.CharField(label=_("For the TD"), max_length=500, required=False)


class ConditionalsForm(TurnForm):
    moves = forms.CharField(
        label=_("Conditional moves"),
        max_length=400,
        required=False,
        help_text=_("A line in SAN, your opponent's move first; empty: cancel your lines."),
    )
