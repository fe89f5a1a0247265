"""The forms of the rating-list pages: importing a list, and choosing one for a stage."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from .models import RatingList


class ImportForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=100, help_text=_('e.g. "ICCF list 2026/4"'))
    list_date = forms.DateField(
        label=_("List date"), widget=forms.DateInput(attrs={"type": "date"})
    )
    source = forms.CharField(label=_("Source"), max_length=200, required=False)
    file = forms.FileField(
        label=_("CSV file"),
        help_text=_("Columns id, name, federation, rating, games, title (UTF-8, header first)."),
    )
    dry_run = forms.BooleanField(label=_("Only check the file"), required=False)


class ApplyForm(forms.Form):
    rating_list = forms.ModelChoiceField(
        label=_("Rating list"), queryset=RatingList.objects.all(), empty_label=None
    )
