"""Forms of the result pages: a game's result, a withdrawal, the group's TD, and the upload
of a results file with its confirmation."""

from __future__ import annotations

from typing import Any, cast

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from apps.core.results import Result
from apps.groups.models import Game

from .models import PGN_MAX_LENGTH


def score_field(label, help_text) -> forms.CharField:
    """A game score's text area (PGN movetext or a whole game; checked by the action)."""
    return forms.CharField(
        label=label,
        required=False,
        strip=False,
        max_length=PGN_MAX_LENGTH,
        widget=forms.Textarea(attrs={"rows": 6, "spellcheck": "false"}),
        help_text=help_text,
    )


class ResultForm(forms.Form):
    """A game's result; ``version`` is the version the TD saw (optimistic concurrency)."""

    # The order a TD reads them in: played results, forfeits, then "in progress".
    result = forms.ChoiceField(label=_("Result"), choices=Result.entry_choices(), required=False)
    adjudicated = forms.BooleanField(label=_("Adjudicated"), required=False)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        required=False,
        help_text=_(
            "Required when correcting a finished game. With an adjudication: the note the "
            "players see on the game's page."
        ),
    )
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)
    # On the game's own form only (the grid's dialog sends neither: they stay as they are).
    finished_on = forms.DateField(
        label=_("Finished on"),
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=_("Empty: the day the result is entered."),
    )
    pgn = score_field(
        _("Game score (PGN)"),
        _("The moves or a whole PGN game, checked move by move; empty: no score."),
    )

    @classmethod
    def for_game(cls, game: Game, **kwargs) -> ResultForm:
        form = cls(
            initial={
                "result": game.result,
                "adjudicated": game.adjudicated,
                "version": game.version,
                "finished_on": game.finished_on,
                "pgn": game.pgn,
            },
            **kwargs,
        )
        if game.result:
            form.fields["reason"].widget.attrs["required"] = True
        return form


class WithdrawalForm(forms.Form):
    """Withdraw one of the group's entrants: their unfinished games become forfeit losses."""

    entrant = forms.ChoiceField(label=_("Entrant"))
    reason = forms.CharField(label=_("Reason"), max_length=200)

    def __init__(self, *args, entrants=(), **kwargs) -> None:
        """``entrants``: ``(code, label)`` of the group's entrants still playing."""
        super().__init__(*args, **kwargs)
        cast(forms.ChoiceField, self.fields["entrant"]).choices = [("", _("— choose —")), *entrants]


class DirectorForm(forms.Form):
    """The group's tournament director, by username (empty: no TD)."""

    username = forms.CharField(
        label=_("Tournament director (username)"), max_length=150, required=False
    )

    def clean_username(self):
        username = self.cleaned_data["username"].strip()
        if not username:
            return None
        user = get_user_model().objects.filter(username=username, is_active=True).first()
        if user is None:
            raise forms.ValidationError(
                _("There is no user %(name)s; check the spelling.") % {"name": username}
            )
        return user


FILE_FORMATS = [
    ("", _("Recognise it (PGN when it starts with a [ tag)")),
    ("csv", _("CSV")),
    ("pgn", _("PGN")),
]


class ResultImportUploadForm(forms.Form):
    """A results file to preview (CSV or PGN); its cleaned ``file`` is the decoded text and
    ``format`` is ``csv``, ``pgn`` or None (the import recognises it)."""

    file = forms.FileField(
        label=_("Results file (CSV or PGN)"),
        help_text=_(
            "UTF-8. CSV: a header row white, black, result and optionally date (YYYY-MM-DD, "
            "the day the game finished) and pgn (the game score); the players by entrant "
            "code. PGN: one game after the other, the players in WhiteCode/BlackCode tags or "
            "by their names."
        ),
        widget=forms.ClearableFileInput(
            attrs={"accept": ".csv,.pgn,text/csv,application/x-chess-pgn"}
        ),
    )
    format = forms.ChoiceField(label=_("Format"), choices=FILE_FORMATS, required=False, initial="")

    def clean_file(self) -> str:
        """The file's text; a ``.pgn`` or ``.csv`` name also tells the format."""
        upload = self.cleaned_data["file"]
        name = (upload.name or "").lower()
        self.named_format = next((f for f in ("csv", "pgn") if name.endswith("." + f)), None)
        try:
            return upload.read().decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise forms.ValidationError(
                _("The file is not UTF-8 text (byte %(position)s); save it as UTF-8."),
                params={"position": exc.start + 1},
            ) from exc

    def clean_format(self) -> str | None:
        return self.cleaned_data.get("format") or None

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("format") is None:
            data["format"] = getattr(self, "named_format", None)
        return data


class ResultImportConfirmForm(forms.Form):
    """Carries the previewed file back with the format it was read in, so exactly what was
    previewed is imported."""

    text = forms.CharField(strip=False, widget=forms.Textarea(attrs={"hidden": True}))
    format = forms.ChoiceField(choices=FILE_FORMATS[1:], widget=forms.HiddenInput)


class ReportForm(forms.Form):
    """A player reports their game's result (a played one), with its score if they like."""

    result = forms.ChoiceField(
        label=_("Result"), choices=[(r.value, r.label) for r in Result if r.played]
    )
    pgn = score_field(
        _("Game score (PGN, optional)"),
        _("The moves (1. e4 e5 2. Nf3 …) or a whole PGN game; checked move by move."),
    )


class DisputeForm(forms.Form):
    """The opponent disputes a reported result and says why."""

    reason = forms.CharField(
        label=_("Why is the result wrong?"),
        max_length=500,
        widget=forms.Textarea(attrs={"rows": 3}),
    )
