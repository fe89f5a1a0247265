"""Forms of the account pages (they parse; the actions in ``services`` decide)."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from apps.core.people import DISPLAY_NAME_MAX_LENGTH, validate_display_name

from .models import Invitation


def _display_name_field(required: bool) -> forms.CharField:
    return forms.CharField(
        label=_("Your name"),
        max_length=DISPLAY_NAME_MAX_LENGTH,
        required=required,
        validators=[validate_display_name],
        help_text=_(
            "What others see: on group pages, as the TD, in a game's history. Your user name "
            "is only for signing in."
        ),
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )


class AccountForm(UserCreationForm):
    """A new account: the name others see, a user name and a password (twice); the e-mail
    address comes from the link."""

    # Asked first; an account without one is shown by a neutral label ("TD 12"), never by its
    # user name, and the name can be set later on /me/name/.
    display_name = _display_name_field(required=False)

    class Meta(UserCreationForm.Meta):
        fields = ("username",)


class DisplayNameForm(forms.Form):
    """The name others see for one's own account ('' clears it)."""

    display_name = _display_name_field(required=False)


class OrganizerSearchForm(forms.Form):
    """The staff page's search: part of a name, a user name or an address; ``holders``
    keeps only the accounts that may create tournaments."""

    q = forms.CharField(required=False, max_length=150)
    holders = forms.BooleanField(required=False)


class TdUploadForm(forms.Form):
    """A CSV ``group,email`` as a file or typed into the box."""

    file = forms.FileField(
        label=_("TD file (CSV)"),
        required=False,
        help_text=_("UTF-8; one line group,email for each group (a header row is optional)."),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )
    csv = forms.CharField(
        label=_("Or type the lines"),
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 6, "placeholder": "group,email\n1,td@example.org"}),
    )

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        upload = data.get("file")
        if upload:
            try:
                data["text"] = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError as exc:
                raise forms.ValidationError(
                    _("The file is not UTF-8 text (byte %(position)s); save it as CSV UTF-8."),
                    params={"position": exc.start + 1},
                ) from exc
        else:
            data["text"] = data.get("csv") or ""
        if not data["text"].strip():
            raise forms.ValidationError(_("Choose a file or type the lines group,email."))
        return data


class GroupTdForm(forms.Form):
    """One group's TD by e-mail address: an account with it becomes TD, else it is invited."""

    group = forms.IntegerField(min_value=1, widget=forms.HiddenInput)
    email = forms.EmailField(label=_("E-mail address of the TD"))


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
        choices = [("", "—")] + [(s.pk, s.get_kind_display()) for s in stages]
        cast(forms.ChoiceField, self.fields["stage"]).choices = choices


class ClaimRequestForm(forms.Form):
    email = forms.EmailField(
        label=_("E-mail address"),
        help_text=_("The address you registered with (the one the organizers have)."),
    )
