from __future__ import annotations

from django import forms

from .models import OPTIONAL_KINDS, Preferences


class PreferencesForm(forms.ModelForm):
    class Meta:
        model = Preferences
        fields = [str(kind) for kind in OPTIONAL_KINDS]
