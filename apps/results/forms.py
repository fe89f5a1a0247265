"""Forms of the result pages: a game's result, a withdrawal, the group's TD."""

from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _

from apps.core.results import Result
from apps.groups.models import Game


class ResultForm(forms.Form):
    """A game's result; ``version`` is the version the TD saw (optimistic concurrency)."""

    # The order a TD reads them in: played results, forfeits, then "in progress".
    result = forms.ChoiceField(label=_("Result"), choices=Result.entry_choices(), required=False)
    adjudicated = forms.BooleanField(label=_("Adjudicated"), required=False)
    reason = forms.CharField(
        label=_("Reason"),
        max_length=200,
        required=False,
        help_text=_("Required when correcting a finished game."),
    )
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)

    @classmethod
    def for_game(cls, game: Game, **kwargs) -> ResultForm:
        form = cls(
            initial={
                "result": game.result,
                "adjudicated": game.adjudicated,
                "version": game.version,
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
        self.fields["entrant"].choices = [("", _("— choose —")), *entrants]


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
