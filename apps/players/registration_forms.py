"""The forms of registration by players: a player's request, and an organizer's decision on
many requests. They parse; the actions (``registrations.py``) check and refuse."""

from __future__ import annotations

from typing import cast

from django import forms
from django.utils.translation import gettext_lazy as _

from .registrations import REASON_MAX_LENGTH, Decision


class RegistrationForm(forms.Form):
    name = forms.CharField(label=_("Name"), max_length=200)
    federation = forms.CharField(
        label=_("Federation"), max_length=3, help_text=_("The FIDE code, e.g. ITA.")
    )
    rating_list_id = forms.CharField(
        label=_("ID on the rating list"), max_length=32, required=False
    )
    rating = forms.IntegerField(
        label=_("Rating"),
        required=False,
        min_value=0,
        max_value=4000,
        help_text=_("Empty: unrated."),
    )
    email = forms.EmailField(
        label=_("Contact e-mail"), help_text=_("The organizers' answers are sent here.")
    )


class DecisionForm(forms.Form):
    ids = forms.TypedMultipleChoiceField(coerce=int, label=_("Requests"))
    decision = forms.ChoiceField(
        label=_("Decision"),
        choices=[(Decision.APPROVE, _("Approve")), (Decision.REJECT, _("Reject"))],
        widget=forms.RadioSelect,
    )
    reason = forms.CharField(
        label=_("Reason"),
        required=False,
        max_length=REASON_MAX_LENGTH,
        help_text=_("Required to reject; the players read it."),
    )

    def __init__(self, *args, choices: list[int], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        ids = cast(forms.TypedMultipleChoiceField, self.fields["ids"])
        ids.choices = [(pk, str(pk)) for pk in choices]
        ids.error_messages["required"] = _("Choose at least one request.")
