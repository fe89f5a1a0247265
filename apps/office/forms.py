"""Forms of the tournament and stage pages (they only parse input; the actions check it).

The settings forms show the settings that can no longer change as read-only fields with the
reason (``frozen``: field → reason, from ``apps.stages.services``). The page lists them in a
hidden field, ``frozen_fields``, so that on saving the form reads only what the page let the
organizer change; if the stage moved on in the meantime, the action refuses and says why.
"""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from apps.entrants.forms import EntrantForm
from apps.stages.models import (
    GAMES_MAX,
    GAMES_MIN,
    GAMES_TOO_FEW,
    GAMES_TOO_MANY,
    GROUP_MAX,
    GROUP_MIN,
    GROUP_TOO_LARGE,
    GROUP_TOO_SMALL,
    NATION_GAMES_TOO_MANY,
    REPORT_ACCEPT_DAYS,
    ROUND_DAYS_MAX,
    ROUND_DAYS_TOO_FEW,
    ROUND_DAYS_TOO_MANY,
    SWISS_ROUNDS_TOO_FEW,
    SWISS_ROUNDS_TOO_MANY,
    Stage,
    Tournament,
    validate_formula,
)

from .seeds import MAX_SEED_LENGTH

GAMES_ERRORS = {"min_value": GAMES_TOO_FEW, "max_value": GAMES_TOO_MANY}


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


class SettingsForm(forms.Form):
    """A settings form whose frozen fields are read-only, each with the reason."""

    frozen_fields = forms.CharField(required=False, widget=forms.HiddenInput)

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
    name = forms.CharField(label=_("Name"), max_length=200)
    slug = forms.SlugField(
        label=_("Address (slug)"),
        max_length=80,
        required=False,
        help_text=_("The tournament's address: /t/slug/. Empty: made from the name."),
    )
    games_per_player = forms.IntegerField(
        label=_("Games per player"),
        min_value=GAMES_MIN,
        max_value=GAMES_MAX,
        initial=10,
        error_messages=GAMES_ERRORS,
        help_text=_(
            "In a Silli stage; an even number (each player has as many games with White "
            "as with Black). A stage may have its own."
        ),
    )
    points_win = forms.DecimalField(
        label=_("Points for a win"), max_digits=4, decimal_places=2, min_value=0, initial=1
    )
    points_draw = forms.DecimalField(
        label=_("Points for a draw"), max_digits=4, decimal_places=2, min_value=0, initial=0.5
    )
    points_loss = forms.DecimalField(
        label=_("Points for a loss"), max_digits=4, decimal_places=2, min_value=0, initial=0
    )
    tiebreak = forms.ChoiceField(
        label=_("Tie-breaks"), choices=Tournament.TieBreak.choices, initial="torino"
    )
    ranking = forms.ChoiceField(
        label=_("Ranking"), choices=Tournament.Ranking.choices, initial="group"
    )
    description = forms.CharField(
        label=_("Description"),
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=_("Shown to everyone on the tournament's page."),
    )
    contact_email = forms.EmailField(
        label=_("Contact e-mail"),
        required=False,
        help_text=_("Where players write with questions; shown to everyone."),
    )
    starts_on = forms.DateField(label=_("Starts on"), required=False, widget=DateInput())
    ends_on = forms.DateField(label=_("Ends on"), required=False, widget=DateInput())

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
        self.fields["slug"].required = True
        self.fields["slug"].help_text = _(
            "The tournament's address: /t/slug/. Changing it changes every link to it."
        )


def tournament_initial(tournament: Tournament) -> dict:
    return {
        name: getattr(tournament, name)
        for name in TournamentForm.base_fields
        if name != "frozen_fields"
    }


class FormulaField(forms.CharField):
    """A formula typed as numbers separated by commas or spaces; empty: None."""

    def prepare_value(self, value):
        if isinstance(value, list | tuple):
            return ", ".join(str(n) for n in value)
        return value

    def to_python(self, value) -> list[int] | None:
        text = (super().to_python(value) or "").replace(",", " ").split()
        if not text:
            return None
        try:
            numbers = [int(part) for part in text]
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
    kind = forms.ChoiceField(label=_("Kind"), choices=Stage.Kind.choices)
    order = forms.IntegerField(
        label=_("Place"),
        min_value=1,
        required=False,
        help_text=_("1 is the first stage. Empty: after the last."),
    )
    format = forms.ChoiceField(label=_("Pairing system"), choices=Stage.Format.choices)
    games_per_player_override = forms.IntegerField(
        label=_("Games per player"),
        min_value=GAMES_MIN,
        max_value=GAMES_MAX,
        required=False,
        error_messages=GAMES_ERRORS,
    )
    min_group_size = forms.IntegerField(
        label=_("Smallest group"),
        min_value=GROUP_MIN,
        max_value=GROUP_MAX,
        initial=100,
        error_messages={"min_value": GROUP_TOO_SMALL, "max_value": GROUP_TOO_LARGE},
        help_text=_(
            "Groups have at least this many players; the draw makes as many groups as fit."
        ),
    )
    separate_nations = forms.BooleanField(label=_("Keep nations apart"), required=False)
    avoid_rematches = forms.BooleanField(
        label=_("No rematches"),
        required=False,
        help_text=_("Pairs who met in an earlier stage do not meet again."),
    )
    double_round_robin = forms.BooleanField(
        label=_("Double round robin"),
        required=False,
        help_text=_("Round robin only: every pair meets twice."),
    )
    balance_ratings = forms.BooleanField(
        label=_("Balance the ratings over the groups"), required=False
    )
    allowed_nation_games = forms.IntegerField(
        label=_("Same-nation games allowed"),
        min_value=0,
        max_value=GAMES_MAX,
        initial=0,
        error_messages={"max_value": NATION_GAMES_TOO_MANY},
        help_text=_("Per player, where a nation is too large to keep apart."),
    )
    formula = FormulaField(
        label=_("Formula"),
        required=False,
        help_text=_(
            "Silli only: numbers separated by commas, half the games per player of them, "
            "e.g. 1, 4, 10, 17, 32. Empty: the engine chooses for each group."
        ),
    )
    swiss_rounds = forms.IntegerField(
        label=_("Rounds"),
        min_value=1,
        max_value=GAMES_MAX,
        required=False,
        error_messages={"min_value": SWISS_ROUNDS_TOO_FEW, "max_value": SWISS_ROUNDS_TOO_MANY},
        help_text=_(
            "Swiss only: the whole stage is one group, paired round by round; fewer rounds "
            "than entrants."
        ),
    )
    swiss_acceleration = forms.ChoiceField(
        label=_("Acceleration"),
        choices=Stage.Acceleration.choices,
        initial=Stage.Acceleration.NONE,
        required=False,
        help_text=_("Swiss only: accelerated pairings in the first rounds."),
    )
    qualify_rule = forms.ChoiceField(
        label=_("Qualification rule"),
        choices=[("", _("none (a final)")), *Stage.QualifyRule.choices],
        required=False,
    )
    qualify_value = forms.DecimalField(
        label=_("Value"),
        max_digits=7,
        decimal_places=3,
        min_value=0,
        required=False,
        help_text=_("Points P, points lost L, or a count q."),
    )
    qualify_relative = forms.BooleanField(
        label=_("Relative"),
        required=False,
        help_text=_("Threshold: P is a share of the games; top: q is a percentage."),
    )
    play_starts_on = forms.DateField(label=_("Play starts on"), required=False, widget=DateInput())
    play_ends_on = forms.DateField(label=_("Play ends on"), required=False, widget=DateInput())
    report_accept_days = forms.IntegerField(
        label=_("Days to answer a reported result"),
        min_value=1,
        max_value=90,
        initial=REPORT_ACCEPT_DAYS,
        required=False,
        help_text=_(
            "A result a player reports stands after this many days unless the opponent "
            "answers. Empty: 7."
        ),
    )
    swiss_round_days = forms.IntegerField(
        label=_("Days each round lasts"),
        min_value=1,
        max_value=ROUND_DAYS_MAX,
        required=False,
        error_messages={"min_value": ROUND_DAYS_TOO_FEW, "max_value": ROUND_DAYS_TOO_MANY},
        help_text=_(
            "Swiss only: a round's deadline is its start plus these days. Empty: no deadline. "
            "A change applies from the next round on."
        ),
    )
    swiss_at_deadline = forms.ChoiceField(
        label=_("At a round's deadline"),
        choices=Stage.AtDeadline.choices,
        initial=Stage.AtDeadline.ADJUDICATE,
        required=False,
        help_text=_(
            "Swiss only: what happens to the games still unfinished when a round's deadline "
            "passes. Adjudicated games count as draws for the next round's pairing only; "
            "their real results count once entered."
        ),
    )

    GROUPS = (
        (_("The stage"), ("kind", "order")),
        (
            _("Pairing"),
            (
                "format",
                "games_per_player_override",
                "min_group_size",
                "separate_nations",
                "avoid_rematches",
                "balance_ratings",
                "allowed_nation_games",
                "formula",
                "double_round_robin",
                "swiss_rounds",
                "swiss_acceleration",
            ),
        ),
        (
            _("Qualification for the next stage"),
            ("qualify_rule", "qualify_value", "qualify_relative"),
        ),
        (
            _("Play period"),
            (
                "play_starts_on",
                "play_ends_on",
                "report_accept_days",
                "swiss_round_days",
                "swiss_at_deadline",
            ),
        ),
    )

    def __init__(self, *args, tournament: Tournament, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["games_per_player_override"].help_text = _(
            "Silli only. Empty: the tournament's %(games)s."
        ) % {"games": tournament.games_per_player}

    def clean_swiss_acceleration(self) -> str:
        return self.cleaned_data.get("swiss_acceleration") or Stage.Acceleration.NONE

    def clean_swiss_at_deadline(self) -> str:
        return self.cleaned_data.get("swiss_at_deadline") or Stage.AtDeadline.ADJUDICATE

    def clean_qualify_rule(self) -> str:
        return self.cleaned_data.get("qualify_rule") or ""

    def clean_report_accept_days(self) -> int:
        return self.cleaned_data.get("report_accept_days") or REPORT_ACCEPT_DAYS


def stage_initial(stage: Stage) -> dict:
    return {name: getattr(stage, name) for name in StageForm.base_fields if name != "frozen_fields"}


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
