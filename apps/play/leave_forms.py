"""Forms of play on the server that are not a game's (the leave form of "My games")."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class LeaveForm(forms.Form):
    starts_on = forms.DateField(
        label=_("First day"), widget=forms.DateInput(attrs={"type": "date"})
    )
    ends_on = forms.DateField(
        label=_("Last day (included)"), widget=forms.DateInput(attrs={"type": "date"})
    )
    special = forms.BooleanField(label=_("Special leave of the event"), required=False)
