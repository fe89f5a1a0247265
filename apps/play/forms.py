"""Forms of the board page: what each action's plain HTML form sends (the fields the API
takes, so static/js/play.js sends a form to the API as it is)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .services import MOST_DAYS_ADDED, Claim


class MoveForm(forms.Form):
    move = forms.CharField(
        label=_("Your move"),
        max_length=10,
        help_text=_("SAN (e4, Nf3, O-O, e8=Q) or UCI (e2e4)."),
    )
    # The ply the player saw: a move on a position that changed meanwhile is refused.
    after_ply = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    offer_draw = forms.BooleanField(label=_("Offer a draw with this move"), required=False)


class ClaimForm(forms.Form):
    kind = forms.ChoiceField(label=_("Claim"), choices=[(c.value, c.value) for c in Claim])
    reason = forms.CharField(label=_("For the TD"), max_length=500, required=False)


class ConditionalsForm(forms.Form):
    after_ply = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    moves = forms.CharField(
        label=_("Conditional moves"),
        max_length=400,
        help_text=_("A line in SAN, your opponent's move first, then yours, and so on."),
    )

    def clean_moves(self) -> list[str]:
        """The line as the action takes it: one move a word (move numbers left out)."""
        words = self.cleaned_data["moves"].replace(",", " ").split()
        return [w for w in words if not w.rstrip(".").isdigit() and w.strip(".")]


class AddDaysForm(forms.Form):
    """The TD's days added to a player's clock, with the reason (audited)."""

    side = forms.ChoiceField(
        label=_("Whose clock"), choices=[("white", _("White")), ("black", _("Black"))]
    )
    days = forms.IntegerField(label=_("Days"), min_value=1, max_value=MOST_DAYS_ADDED)
    reason = forms.CharField(label=_("Reason"), max_length=500)
