"""Forms of the registration pages: a CSV upload, then its confirmation."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class ImportUploadForm(forms.Form):
    file = forms.FileField(
        label=_("Entrant file (CSV)"),
        help_text=_(
            "UTF-8, header row; columns code, name, nation (required), rating, person, email."
        ),
        widget=forms.ClearableFileInput(attrs={"accept": ".csv,text/csv"}),
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


class ImportConfirmForm(forms.Form):
    """Carries the previewed CSV back, so exactly what was previewed is imported."""

    csv = forms.CharField(strip=False, widget=forms.Textarea(attrs={"hidden": True}))
