"""Forms of the account pages (they parse; the actions in ``services`` decide)."""

from __future__ import annotations

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from .models import Invitation


class AccountForm(UserCreationForm):
    """A new account: user name and password (twice); the e-mail address comes from the link."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class InvitationForm(forms.Form):
    email = forms.EmailField(label=_("E-mail address"))
    role = forms.ChoiceField(label=_("Role"), choices=Invitation.Role.choices)
    stage = forms.TypedChoiceField(label=_("Stage"), coerce=int, required=False, empty_value=None)
    group = forms.IntegerField(
        label=_("Group number"),
        min_value=1,
        required=False,
        help_text=_("For a TD: the group they will direct."),
    )

    def __init__(self, *args, stages=(), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["stage"].choices = [("", "—")] + [(s.pk, s.get_kind_display()) for s in stages]


class ClaimRequestForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"),
        help_text=_("The address you registered with (the one the organizers have)."),
    )
