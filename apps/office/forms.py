"""Forms of the tournament and stage pages (they only parse input; the actions check it).

The settings forms show the settings that can no longer change as read-only fields with the
reason (``frozen``: field → reason, from ``apps.stages.services``). The page lists them in a
hidden field, ``frozen_fields``, so that on saving the form reads only what the page let the
organizer change; if the stage moved on in the meantime, the action refuses and says why.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.db import models
from django.forms.models import ModelFormMetaclass, ModelFormOptions
from django.utils.translation import gettext_lazy as _

from apps.entrants.forms import EntrantForm
from apps.stages.models import Stage, Tournament
from apps.stages.settings_catalog import (
    STAGE_SETTINGS,
    TOURNAMENT_SETTINGS,
    Catalog,
    Freeze,
    Text,
    validate_formula,
)

from .seeds import MAX_SEED_LENGTH


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


class DateInput(forms.DateInput):
    input_type = "date"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%d")


def setting_formfield(model_field: models.Field, **kwargs) -> forms.Field | None:
    """A setting's field on the page: its model field's form field (label, help, choices,
    initial value from the default, whether it may be empty), with the declared bounds and
    refusals (a model field's validators do not reach its form field), dates picked from a
    calendar, and the empty choice labelled as declared."""
    setting = _catalog(model_field.model)[model_field.name]
    kwargs.update(setting.bounds())
    if setting.optional_on_page:
        kwargs["required"] = False
    if isinstance(model_field, models.DateField):
        kwargs.setdefault("widget", DateInput)
    if setting.empty and model_field.choices:
        kwargs["choices"] = [("", setting.empty), *model_field.choices]
    return model_field.formfield(**kwargs)


def _catalog(model: type[models.Model]) -> Catalog:
    return TOURNAMENT_SETTINGS if issubclass(model, Tournament) else STAGE_SETTINGS


class SettingsForm(forms.BaseForm, metaclass=ModelFormMetaclass):
    """A settings form whose frozen fields are read-only, each with the reason.

    Its fields are its model's settings (``Meta.model``, ``Meta.fields``), made as a
    ``ModelForm`` makes them (:func:`setting_formfield`), but it has no instance and saves
    nothing: it parses the page's input for the action, which checks the settings together
    and decides what is frozen. A setting optional on the page takes its default when left
    empty.
    """

    frozen_fields = forms.CharField(required=False, widget=forms.HiddenInput)
    # Set by the metaclass (from ``Meta``), and by each form: its sections' titles and fields.
    _meta: ModelFormOptions
    GROUPS: tuple[tuple[Text, tuple[str, ...]], ...]

    def __init__(self, *args, frozen: dict[str, str] | None = None, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.frozen = {name: why for name, why in (frozen or {}).items() if name in self.fields}
        if self.is_bound:
            # What the page showed read-only: those inputs were not sent.
            shown = set(self.data.get("frozen_fields", "").split(","))
            disabled = {name for name in shown if name in self.fields}
        else:
            disabled = set(self.frozen)
        for name in disabled:
            self.fields[name].disabled = True
        self.initial["frozen_fields"] = ",".join(sorted(disabled))

    def clean(self) -> dict[str, Any]:
        super().clean()
        cleaned = self.cleaned_data
        catalog = _catalog(self._meta.model)
        for name, value in cleaned.items():
            if name in catalog and catalog[name].optional_on_page and value in (None, ""):
                cleaned[name] = catalog[name].default
        return cleaned

    def changes(self) -> dict:
        """The values the organizer could change (every field the page did not show
        read-only), for the action; it keeps those that really change."""
        return {
            name: value
            for name, value in self.cleaned_data.items()
            if name != "frozen_fields" and not self.fields[name].disabled
        }

    def frozen_reason(self, name: str) -> str:
        return self.frozen.get(name, "")

    def add_refusal(self, details: list[dict], message: str) -> None:
        """An action's refusal on the fields it names (the rest on the whole form)."""
        placed = False
        for detail in details:
            field = FIELD_NAMES.get(detail.get("field", ""), detail.get("field", ""))
            if field in self.fields and field != "frozen_fields":
                self.add_error(field, detail["message"])
                placed = True
        if not placed:
            self.add_error(None, message)


# The actions name a few fields otherwise than the forms.
FIELD_NAMES = {"stage_kinds": "add_semifinal"}


class TournamentForm(SettingsForm):
    class Meta:
        model = Tournament
        fields = TOURNAMENT_SETTINGS.names()
        formfield_callback = setting_formfield
        widgets = {"description": forms.Textarea(attrs={"rows": 4})}

    GROUPS = (
        (_("The tournament"), ("name", "slug", "description", "contact_email")),
        (_("Dates"), ("starts_on", "ends_on")),
        (
            _("Games and scoring"),
            ("games_per_player", "points_win", "points_draw", "points_loss", "tiebreak", "ranking"),
        ),
    )


class NewTournamentForm(TournamentForm):
    add_semifinal = forms.BooleanField(
        label=_("Add a semifinal"),
        required=False,
        help_text=_("Nations kept apart, no rematches."),
    )
    add_final = forms.BooleanField(
        label=_("Add a final"),
        required=False,
        help_text=_("Players of one nation may meet, no rematches."),
    )

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["slug"].required = False
        self.fields["slug"].help_text = _(
            "The tournament's address: /t/slug/. Empty: made from the name."
        )

    def changes(self) -> dict:
        values = super().changes()
        kinds = [Stage.Kind.PRELIMINARY]
        if values.pop("add_semifinal", False):
            kinds.append(Stage.Kind.SEMIFINAL)
        if values.pop("add_final", False):
            kinds.append(Stage.Kind.FINAL)
        values["stage_kinds"] = kinds
        return values


class EditTournamentForm(TournamentForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["slug"].help_text = _(
            "The tournament's address: /t/slug/. Changing it changes every link to it."
        )


def tournament_initial(tournament: Tournament) -> dict:
    return {name: getattr(tournament, name) for name in TOURNAMENT_SETTINGS.names()}


class FormulaField(forms.JSONField):
    """A formula (a list in the model) typed as numbers separated by commas or spaces; empty:
    None."""

    widget = forms.TextInput

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return ", ".join(str(n) for n in value)
        return value

    def bound_data(self, data, initial):
        return initial if self.disabled else data

    # A text field whose value is the list of numbers it reads (the stubs want str).
    def to_python(self, value) -> list[int] | None:  # type: ignore[override]
        # A frozen field's value is the stored list itself (``bound_data``), not typed text.
        text = "" if value in self.empty_values else str(self.prepare_value(value))
        parts = text.replace(",", " ").split()
        if not parts:
            return None
        try:
            numbers = [int(part) for part in parts]
        except ValueError as error:
            raise forms.ValidationError(
                _("Type whole numbers separated by commas, e.g. 1, 4, 10, 17, 32."),
                code="invalid",
            ) from error
        validate_formula(numbers)
        return numbers

    def has_changed(self, initial, data) -> bool:
        return self.to_python(self.prepare_value(initial)) != self.to_python(data)


class StageForm(SettingsForm):
    class Meta:
        model = Stage
        fields = STAGE_SETTINGS.names()
        formfield_callback = setting_formfield
        field_classes = {"formula": FormulaField}

    # A section for each rule of freezing: a section frozen whole shows its reason once.
    GROUPS = tuple(
        (title, STAGE_SETTINGS.names(freeze))
        for freeze, title in (
            (Freeze.PLACE, _("The stage")),
            (Freeze.PAIRING, _("Pairing")),
            (Freeze.QUALIFICATION, _("Qualification for the next stage")),
            (Freeze.PLAY, _("Play period")),
            (Freeze.SERVER, _("Play on this server")),
        )
    )

    def __init__(self, *args, tournament: Tournament, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # Empty on a new stage: after the last.
        self.fields["order"].required = False
        self.fields["games_per_player_override"].help_text = _(
            "Silli only. Empty: the tournament's %(games)s."
        ) % {"games": tournament.games_per_player}


def stage_initial(stage: Stage) -> dict:
    return {name: getattr(stage, name) for name in STAGE_SETTINGS.names()}


class LateEntrantForm(EntrantForm):
    """A Swiss stage's late entrant: code (empty: one is made; the code of an entrant of an
    earlier stage enters them), name, nation, rating, e-mail."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("auto_id", "late_%s")
        super().__init__(*args, **kwargs)
        del self.fields["person"]
        self.fields["code"].help_text = _(
            "Empty: a new code E000001, … is made. The code of an entrant of an earlier stage "
            "enters that entrant (with their registered name and nation)."
        )
