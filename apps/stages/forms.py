"""Forms of the stage pages (they only parse input; the actions check it)."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .services import MAX_SEED_LENGTH


class DrawForm(forms.Form):
    seed = forms.CharField(
        label=_("Seed"),
        required=False,
        help_text=_("A text nobody could know in advance, e.g. a lottery result of a named day."),
        widget=forms.TextInput(
            attrs={
                "maxlength": MAX_SEED_LENGTH,
                "autocomplete": "off",
                "placeholder": "Lotto 2026-11-21 Bari 17 42 5 88 61",
            }
        ),
    )
