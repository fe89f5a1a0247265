"""Forms of the registration pages: a CSV upload (adding to the list or replacing it), its
confirmation, and one entrant's details. Every entrant field is checked by the engine's
field rules (``apps/silli/entrants.py``, through :class:`~apps.entrants.fields.EntrantTextField`).
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.silli.entrants import MAX_RATING, MIN_RATING

from .fields import EntrantTextField

MODES = [
    ("add", _("Add the file's entrants to the list")),
    ("replace", _("Replace the list with the file (entrants it leaves out are removed)")),
]


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Entrant file (CSV)"),
        help_text=_(
            "UTF-8, header row; columns code, name, nation (required), rating, person, email."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
    )
    mode = forms.ChoiceField(
        label=_("What the file does"),
        choices=MODES,
        initial="add",
        required=False,
        widget=forms.RadioSelect,
    )

    def clean_file(self) -> str:
        """The file's text (the field's cleaned value is the decoded CSV, not the upload)."""
        upload = self.cleaned_data["file"]
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise forms.ValidationError(
                _("The file is not UTF-8 text (byte %(position)s); save it as CSV UTF-8."),
                params={"position": exc.start + 1},
            ) from exc

    def clean_mode(self) -> str:
        return self.cleaned_data.get("mode") or "add"


class ImportConfirmForm(forms.Form):
    """Carries the previewed CSV back, so exactly what was previewed is imported."""

    csv = forms.CharField(strip=False, widget=forms.Textarea(attrs={"hidden": True}))
    mode = forms.ChoiceField(choices=MODES, initial="add", required=False, widget=forms.HiddenInput)

    def clean_mode(self) -> str:
        return self.cleaned_data.get("mode") or "add"


class EntrantForm(forms.Form):
    """One entrant's details. Adding: the code may be left empty (one is made). Changing
    (``editing=True``): there is no code field, the code never changes."""

    code = EntrantTextField(
        check="code",
        label=_("Code"),
        required=False,
        help_text=_(
            "The entrant's key in the tournament: letters, digits, '.', '_' and '-'. Empty: "
            "the next free code E000001, … is made. It cannot change later."
        ),
    )
    name = EntrantTextField(
        check="name", label=_("Name"), help_text=_("surname, given names; up to 200 characters")
    )
    nation = EntrantTextField(
        check="nation",
        label=_("Nation"),
        help_text=_("the FIDE federation code, e.g. ITA, GER, ENG"),
        widget=forms.TextInput(attrs={"autocapitalize": "characters", "size": 4}),
    )
    rating = EntrantTextField(
        check="rating",
        label=_("Rating"),
        required=False,
        widget=forms.NumberInput(attrs={"min": MIN_RATING, "max": MAX_RATING}),
    )
    person = EntrantTextField(
        check="person",
        label=_("Person"),
        required=False,
        help_text=_("entries of one person share it and never meet; empty: the code"),
    )
    email = EntrantTextField(
        check="email",
        label=_("E-mail"),
        required=False,
        help_text=_("never shown publicly"),
        widget=forms.EmailInput(),
    )

    def __init__(self, *args, editing: bool = False, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if editing:
            del self.fields["code"]
