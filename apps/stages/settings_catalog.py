"""The tournament's and the stage's settings, each declared once.

A :class:`Setting` says everything about one setting: its model field (type, storage, choices,
whether it may be empty), its bounds with the reason a value beyond each is refused, its
default (per stage kind where it differs), its label and help on the pages, its description in
the API, and when it freezes. Everything else comes from here:

- the models: :class:`TournamentSettings` and :class:`StageSettings` (abstract; ``Tournament``
  and ``Stage`` inherit them) get a field per setting, with the bounds as validators, the
  label as ``verbose_name`` and the help as ``help_text``;
- the actions (``apps.stages.services``): which fields are settings and when each freezes;
- the API's write serializers (``apps.stages.serializers``): model serializers with each
  setting's bounds, refusals and description;
- the settings pages' forms (``apps.office.forms``): each field from its model field, with the
  bounds and refusals, in a section per freezing rule;
- the table of docs/settings.md (``python manage.py settings_doc``; a test compares them).

A new setting is one more entry here (and its value type annotated on the model class, checked
at import), its migration (``makemigrations``) and the docs table
(``settings_doc``); code that reads it (the engine's settings, say) is the setting's own work.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping
from datetime import date
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypeAlias

from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils.functional import Promise, lazy
from django.utils.translation import gettext_lazy as _

from apps.core.choices import TextChoices

if TYPE_CHECKING:
    # What gettext_lazy gives, as the stubs name it (only a Promise at run time).
    from django.utils.functional import _StrPromise as StrPromise
else:
    StrPromise = Promise

# What the pages and the API show: a text, or a lazily translated one.
Text: TypeAlias = str | StrPromise


class Freeze(enum.Enum):
    """When a setting can no longer change (the actions give the reason: ``frozen_stage_fields``
    and ``frozen_tournament_fields`` in apps/stages/services.py).

    The value says it in the API's and the docs' words.
    """

    # A stage's settings.
    PLACE = "Frozen once the stage is drawn."
    PAIRING = "Pairing setting: frozen once registration closes."
    QUALIFICATION = "May change until the qualification is confirmed."
    PLAY = "May change until the stage is closed."
    SERVER = "Frozen once the stage is drawn: its games are played under these settings."
    # A tournament's settings.
    GAMES = "Frozen once a Silli stage that plays them has closed its registration."
    SCORING = "Frozen once a stage is published."
    ALWAYS = "May always change."


def _with_limit(message: Text, limit: int) -> Text:
    """``message`` (lazy, with ``%(limit)s``) with the limit filled in, still lazy: the same
    text serves Django's validators and forms and DRF's ``error_messages``."""
    return lazy(lambda: str(message) % {"limit": limit}, str)()


@dataclasses.dataclass(frozen=True)
class Bound:
    """The least or the most a setting takes, and why a value beyond it is refused
    (``%(limit)s`` is the bound; no refusal: Django's and DRF's own message)."""

    value: int
    refusal: Text | None = None

    @property
    def message(self) -> Text | None:
        return None if self.refusal is None else _with_limit(self.refusal, self.value)


@dataclasses.dataclass(frozen=True)
class Setting:
    """One setting of a tournament or a stage.

    ``field`` is the model field without its texts, bounds and default: :meth:`model_field`
    adds them. ``api_help`` describes the value in the API's terms (values by their API names,
    ``null`` for empty); ``{least}``, ``{most}`` and ``{default}`` are filled in and the
    freezing rule added (:meth:`api_description`). ``empty`` labels the empty value where the
    page offers it as a choice; ``optional_on_page``: the page may leave the field empty and
    the setting then takes its default.
    """

    name: str
    field: models.Field
    freezes: Freeze
    label: Text
    help: Text = ""
    api_help: str = ""
    least: Bound | None = None
    most: Bound | None = None
    default: Any = models.NOT_PROVIDED
    default_by_kind: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    empty: Text = ""
    optional_on_page: bool = False
    # Where the API puts it, when not at the top under the model's name: ("points", "win").
    api_path: tuple[str, ...] = ()

    @property
    def api_name(self) -> str:
        """The field's name in the API's settings (a nested one's parent: ``points``)."""
        return (self.api_path or (self.name,))[0]

    @property
    def limits(self) -> tuple[int, int]:
        """The least and the most of a setting bounded at both ends."""
        if self.least is None or self.most is None:
            raise ValueError(f"{self.name} is not bounded at both ends")
        return self.least.value, self.most.value

    def ends(self) -> tuple[int | None, int | None]:
        """The least and the most (``None``: unbounded at that end)."""
        return (
            None if self.least is None else self.least.value,
            None if self.most is None else self.most.value,
        )

    @property
    def has_default(self) -> bool:
        return self.default is not models.NOT_PROVIDED

    def default_for(self, kind: str) -> Any:
        """The value a new stage of ``kind`` takes when the setting is not given."""
        return self.default_by_kind.get(kind, self.default)

    def validators(self) -> list:
        return [
            check(bound.value, **({"message": bound.message} if bound.message else {}))
            for check, bound in ((MinValueValidator, self.least), (MaxValueValidator, self.most))
            if bound is not None
        ]

    def bounds(self) -> dict[str, Any]:
        """The bounds and their refusals as form and serializer fields take them (``min_value``,
        ``max_value``, ``error_messages``); empty for a setting without bounds, and both ends
        (``None``: none) for one with, so that nothing is guessed from the database's ranges."""
        if self.least is None and self.most is None:
            return {}
        least, most = self.ends()
        refusals = {}
        for code, bound in (("min_value", self.least), ("max_value", self.most)):
            if bound is not None and bound.message is not None:
                refusals[code] = bound.message
        return {
            "min_value": least,
            "max_value": most,
            **({"error_messages": refusals} if refusals else {}),
        }

    def model_field(self) -> models.Field:
        """The model's field: ``field`` with the label, help, bounds and default."""
        _name, _path, args, kwargs = self.field.deconstruct()
        kwargs["verbose_name"] = self.label
        if self.help:
            kwargs["help_text"] = self.help
        kwargs["validators"] = [*kwargs.get("validators", []), *self.validators()]
        if self.has_default:
            kwargs["default"] = self.default
        return type(self.field)(*args, **kwargs)

    def api_text(self) -> str:
        """``api_help`` with the bounds and the default filled in."""
        least, most = self.ends()
        default = self.default.value if isinstance(self.default, enum.Enum) else self.default
        return self.api_help.format(least=least, most=most, default=default)

    def api_description(self) -> str:
        """The API's description: :meth:`api_text` and when the setting freezes."""
        if self.freezes is Freeze.ALWAYS:
            return self.api_text()
        return f"{self.api_text()} {self.freezes.value}".strip()


class Catalog:
    """The settings of one model, in the order the pages show them."""

    def __init__(self, *settings: Setting) -> None:
        self._settings = {setting.name: setting for setting in settings}

    def __iter__(self) -> Iterator[Setting]:
        return iter(self._settings.values())

    def __getitem__(self, name: str) -> Setting:
        return self._settings[name]

    def __contains__(self, name: object) -> bool:
        return name in self._settings

    def names(self, *freezes: Freeze) -> tuple[str, ...]:
        """The settings' names (those that freeze as one of ``freezes``, if given)."""
        return tuple(s.name for s in self if not freezes or s.freezes in freezes)

    def api_names(self) -> list[str]:
        """The settings' names in the API, a nested one's parent once (``points``)."""
        return list(dict.fromkeys(s.api_name for s in self))

    def api_paths(self) -> dict[str, tuple[str, ...]]:
        """Where the API puts the settings it names otherwise: model name → path."""
        return {s.name: s.api_path for s in self if s.api_path}

    def add_fields_to(self, model: type[models.Model]) -> None:
        """Give ``model`` a field per setting. The model's class body annotates each setting's
        value type for the type checker (fields added here are invisible to it); a setting
        without its annotation, or an annotation without its setting, fails at import."""
        annotated = set(model.__dict__.get("__annotations__", {}))
        if annotated != set(self.names()):
            raise TypeError(
                f"{model.__name__}: annotate exactly the settings' fields; "
                f"missing {sorted(set(self.names()) - annotated)}, "
                f"unknown {sorted(annotated - set(self.names()))}"
            )
        for setting in self:
            model.add_to_class(setting.name, setting.model_field())


# ---------------------------------------------------------------------------
# Bounds several settings share
# ---------------------------------------------------------------------------

# Games per player, a tournament's and a stage's own. No player plays more than the most:
# a Swiss stage's rounds and the same-nation games a player may have are bounded by it too.
FEWEST_GAMES = Bound(
    2, _("A player needs at least %(limit)s games: one with White and one with Black.")
)
MOST_GAMES = Bound(
    60, _("More than %(limit)s games per player is beyond what a correspondence stage can play.")
)


def validate_formula(value) -> None:
    """A formula given by hand: a list of distinct positive whole numbers (or None)."""
    if value is None:
        return
    if not isinstance(value, list | tuple) or not value:
        raise ValidationError(
            _("Give the formula as a list of numbers, e.g. 1, 4, 10, 17, 32."), code="invalid"
        )
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in value):
        raise ValidationError(_("The formula's numbers must be whole numbers."), code="invalid")
    if any(n < 1 for n in value):
        raise ValidationError(
            _("The formula's numbers are distances on the circle: each must be 1 or more."),
            code="min_value",
        )
    if len(set(value)) != len(value):
        raise ValidationError(
            _(
                "Each number of the formula may appear once: a repeated distance gives no new "
                "opponents."
            ),
            code="unique",
        )


# ---------------------------------------------------------------------------
# The tournament
# ---------------------------------------------------------------------------


class TournamentSettings(models.Model):
    """A tournament's settings (``Tournament`` inherits them): a field for each of
    :data:`TOURNAMENT_SETTINGS`, and the choices they take."""

    class TieBreak(TextChoices):
        TORINO = "torino", _("Torino (TS, then TS-Cut1)")
        BUCHHOLZ = "buchholz", _("Buchholz (BH-C2, BH-C1, BH)")
        SWISS = "swiss", _("Swiss (BH-C1, BH, SB, wins)")

    class Ranking(TextChoices):
        GROUP = "group", _("by group")
        UNIFIED = "unified", _("one unified ranking")

    # The value types of the fields TOURNAMENT_SETTINGS adds (below), for the type checker.
    name: str
    slug: str
    games_per_player: int
    points_win: Decimal
    points_draw: Decimal
    points_loss: Decimal
    tiebreak: str
    ranking: str
    description: str
    contact_email: str
    starts_on: date | None
    ends_on: date | None

    class Meta:
        abstract = True


def _points(side: str, label: Text, default: str, api_help: str) -> Setting:
    """Points for a result: in the API, ``points.win`` (``.draw``, ``.loss``)."""
    return Setting(
        f"points_{side}",
        models.DecimalField(max_digits=4, decimal_places=2),
        Freeze.SCORING,
        label=label,
        api_help=api_help,
        least=Bound(0),
        default=Decimal(default),
        api_path=("points", side),
    )


TOURNAMENT_SETTINGS = Catalog(
    Setting(
        "name",
        models.CharField(max_length=200),
        Freeze.ALWAYS,
        label=_("Name"),
        api_help="The tournament's name, e.g. “34th Correspondence Cup”.",
    ),
    Setting(
        "slug",
        models.SlugField(max_length=80, unique=True),
        Freeze.ALWAYS,
        label=_("Address (slug)"),
        api_help="Its address: /t/<slug>/. Left out or empty when creating: made from the name "
        "(with -2, -3… if taken). A slug another tournament has is refused.",
    ),
    Setting(
        "games_per_player",
        models.PositiveSmallIntegerField(),
        Freeze.GAMES,
        label=_("Games per player"),
        help=_(
            "In a Silli stage; an even number (each player has as many games with White "
            "as with Black). A stage may have its own."
        ),
        api_help="Games each player plays in a Silli stage (even, {least}–{most}; default "
        "{default}); a stage may have its own.",
        least=FEWEST_GAMES,
        most=MOST_GAMES,
        default=10,
    ),
    _points(
        "win",
        _("Points for a win"),
        "1",
        "Points for a win (default {default}); more than 0 and at least a draw's.",
    ),
    _points(
        "draw",
        _("Points for a draw"),
        "0.5",
        "Points for a draw (default {default}); at most a win's, at least a loss's.",
    ),
    _points(
        "loss",
        _("Points for a loss"),
        "0",
        "Points for a loss (default {default}); at most a draw's.",
    ),
    Setting(
        "tiebreak",
        models.CharField(max_length=16, choices=TournamentSettings.TieBreak.choices),
        Freeze.SCORING,
        label=_("Tie-breaks"),
        api_help="The tie-break system: torino (TS, then TS-Cut1), buchholz (BH-C2, BH-C1, BH) "
        "or swiss (BH-C1, BH, SB, wins: the usual Swiss chain); default {default}.",
        default=TournamentSettings.TieBreak.TORINO,
    ),
    Setting(
        "ranking",
        models.CharField(max_length=16, choices=TournamentSettings.Ranking.choices),
        Freeze.SCORING,
        label=_("Ranking"),
        api_help="group: standings by group; unified: one ranking of the whole stage; "
        "default {default}.",
        default=TournamentSettings.Ranking.GROUP,
    ),
    Setting(
        "description",
        models.TextField(blank=True),
        Freeze.ALWAYS,
        label=_("Description"),
        help=_("Shown to everyone on the tournament's page."),
        api_help="A description shown to everyone.",
    ),
    Setting(
        "contact_email",
        models.EmailField(blank=True),
        Freeze.ALWAYS,
        label=_("Contact e-mail"),
        help=_("Where players write with questions; shown to everyone."),
        api_help="Where players write with questions; shown to everyone.",
    ),
    Setting(
        "starts_on",
        models.DateField(null=True, blank=True),
        Freeze.ALWAYS,
        label=_("Starts on"),
        api_help="The first day of the tournament.",
    ),
    Setting(
        "ends_on",
        models.DateField(null=True, blank=True),
        Freeze.ALWAYS,
        label=_("Ends on"),
        api_help="The last day (not before starts_on).",
    ),
)
TOURNAMENT_SETTINGS.add_fields_to(TournamentSettings)


# ---------------------------------------------------------------------------
# The stage
# ---------------------------------------------------------------------------


class StageSettings(models.Model):
    """A stage's settings (``Stage`` inherits them): a field for each of
    :data:`STAGE_SETTINGS`, and the choices they take."""

    class Kind(TextChoices):
        PRELIMINARY = "preliminary", _("Preliminary")
        SEMIFINAL = "semifinal", _("Semifinal")
        FINAL = "final", _("Final")

    class Format(TextChoices):
        SILLI = "silli", _("Silli closed circle")
        ROUND_ROBIN = "round_robin", _("Round robin")
        SWISS = "swiss", _("Swiss (FIDE Dutch system)")

    class Acceleration(TextChoices):
        NONE = "none", _("none")
        BAKU = "baku", _("Baku (FIDE)")
        GENERAL = "general", _("general (half the players)")

    class AtDeadline(TextChoices):
        """What happens when a Swiss round's deadline passes with games unfinished."""

        ADJUDICATE = "adjudicate", _("adjudicate the unfinished games and pair the next round")
        TD = "td", _("leave the unfinished games to the TDs; pair when they have results")

    # Play on the server (docs/play.md).
    class TimeControl(TextChoices):
        MOVES = "moves", _("N moves in D days")
        FISCHER = "fischer", _("Fischer (a clock of days with an increment)")

    class GameVisibility(TextChoices):
        FINISHED = "finished", _("public once finished")
        DELAYED = "delayed", _("public while played, a few moves behind")
        PLAYERS = "players", _("only the group's players until the group ends")

    class QualifyRule(TextChoices):
        THRESHOLD = "threshold", _("points threshold")
        LOSS_CAP = "loss_cap", _("cap on points lost")
        TOP_PER_GROUP = "top_per_group", _("top of each group")
        TOP_OVERALL = "top_overall", _("top of the unified ranking")

    # The value types of the fields STAGE_SETTINGS adds (below), for the type checker.
    kind: str
    order: int
    format: str
    games_per_player_override: int | None
    min_group_size: int
    separate_nations: bool
    avoid_rematches: bool
    balance_ratings: bool
    allowed_nation_games: int
    formula: list[int] | None
    double_round_robin: bool
    swiss_rounds: int | None
    swiss_acceleration: str
    qualify_rule: str
    qualify_value: Decimal | None
    qualify_relative: bool
    play_starts_on: date | None
    play_ends_on: date | None
    report_accept_days: int
    swiss_round_days: int | None
    swiss_at_deadline: str
    # Play on the server.
    play_on_server: bool
    time_control: str
    tc_moves: int
    tc_days: int
    fischer_base: int
    fischer_increment: int
    doubling_after: int | None
    leave_days: int
    special_leave_days: int
    silence_days: int
    draw_earliest_move: int
    game_visibility: str
    visibility_delay_moves: int

    class Meta:
        abstract = True


STAGE_SETTINGS = Catalog(
    # Its kind and place in the tournament.
    Setting(
        "kind",
        models.CharField(max_length=16, choices=StageSettings.Kind.choices),
        Freeze.PLACE,
        label=_("Kind"),
        api_help="preliminary, semifinal or final; default: the next in that sequence.",
        default=StageSettings.Kind.PRELIMINARY,
    ),
    Setting(
        "order",
        models.PositiveSmallIntegerField(),
        Freeze.PLACE,
        label=_("Place"),
        help=_("1 is the first stage. Empty: after the last."),
        api_help="Its place in the tournament (1 = first); default: after the last. Stages from "
        "that place on move one place (none of them may be drawn).",
        least=Bound(1),
        default=1,
    ),
    # How it is drawn: what the draw is made from, with the entrant list.
    Setting(
        "format",
        models.CharField(max_length=16, choices=StageSettings.Format.choices),
        Freeze.PAIRING,
        label=_("Pairing system"),
        api_help="silli (closed circle, default), round_robin or swiss (one group paired round "
        "by round; give swiss_rounds).",
        default=StageSettings.Format.SILLI,
    ),
    Setting(
        # None: the tournament's (``Stage.games_per_player`` is the number in force).
        "games_per_player_override",
        models.PositiveSmallIntegerField(null=True, blank=True),
        Freeze.PAIRING,
        label=_("Games per player"),
        help=_("empty: the tournament's"),
        api_help="The stage's own games per player (even, {least}–{most}); null: the "
        "tournament's. Silli stages only.",
        least=FEWEST_GAMES,
        most=MOST_GAMES,
        api_path=("games_per_player",),
    ),
    Setting(
        "min_group_size",
        models.PositiveIntegerField(),
        Freeze.PAIRING,
        label=_("Smallest group"),
        help=_("Groups have at least this many players; the draw makes as many groups as fit."),
        api_help="Groups have at least this many players ({least}–{most}, default {default}).",
        least=Bound(2, _("A group needs at least %(limit)s players to play anyone.")),
        most=Bound(
            1000,
            _(
                "Groups of more than %(limit)s players are beyond what one group's TD can run; "
                "the draw makes more groups instead."
            ),
        ),
        default=100,
    ),
    Setting(
        "separate_nations",
        models.BooleanField(),
        Freeze.PAIRING,
        label=_("Keep nations apart"),
        api_help="Keep players of one nation apart (default: yes, but no in a final).",
        default=True,
        # Players of one nation may meet in a final.
        default_by_kind={StageSettings.Kind.FINAL: False},
    ),
    Setting(
        "avoid_rematches",
        models.BooleanField(),
        Freeze.PAIRING,
        label=_("No rematches"),
        help=_("Pairs who met in an earlier stage do not meet again."),
        api_help="Pairs who met in an earlier stage do not meet again (default: yes).",
        default=True,
    ),
    Setting(
        "balance_ratings",
        models.BooleanField(),
        Freeze.PAIRING,
        label=_("Balance the ratings over the groups"),
        api_help="Spread the ratings evenly over the groups (default: no).",
        default=False,
    ),
    Setting(
        "allowed_nation_games",
        models.PositiveSmallIntegerField(),
        Freeze.PAIRING,
        label=_("Same-nation games allowed"),
        help=_("Per player, where a nation is too large to keep apart."),
        api_help="Same-nation games a player may have when a nation cannot be kept apart "
        "({least}–{most}, default {default}).",
        least=Bound(0),
        most=Bound(
            MOST_GAMES.value,
            _(
                "At most %(limit)s: no player plays more games than that, same-nation ones "
                "included."
            ),
        ),
        default=0,
    ),
    Setting(
        "formula",
        models.JSONField(null=True, blank=True, validators=[validate_formula]),
        Freeze.PAIRING,
        label=_("Formula"),
        help=_(
            "Silli only: numbers separated by commas, half the games per player of them, "
            "e.g. 1, 4, 10, 17, 32. Empty: the engine chooses for each group."
        ),
        api_help="A formula given by hand (distinct positive numbers, one per White–Black pair "
        "of games: games_per_player / 2 of them), or null (or []) for the engine's choice per "
        "group. Silli stages only.",
    ),
    Setting(
        "double_round_robin",
        models.BooleanField(),
        Freeze.PAIRING,
        label=_("Double round robin"),
        help=_("Round robin only: every pair meets twice."),
        api_help="A round robin where every pair meets twice (default: no).",
        default=False,
    ),
    Setting(
        # Checked against the stage's entrants at the draw.
        "swiss_rounds",
        models.PositiveSmallIntegerField(null=True, blank=True),
        Freeze.PAIRING,
        label=_("Rounds"),
        help=_(
            "Swiss only: the whole stage is one group, paired round by round; fewer rounds "
            "than entrants."
        ),
        api_help="A Swiss stage's number of rounds ({least}–{most}, and fewer than its "
        "entrants, checked at the draw); null for other formats.",
        least=Bound(1, _("A Swiss stage needs at least one round.")),
        most=Bound(
            MOST_GAMES.value,
            _("More than %(limit)s rounds is beyond what a correspondence stage can play."),
        ),
    ),
    Setting(
        "swiss_acceleration",
        models.CharField(max_length=8, choices=StageSettings.Acceleration.choices),
        Freeze.PAIRING,
        label=_("Acceleration"),
        help=_("Swiss only: accelerated pairings in the first rounds."),
        api_help="A Swiss stage's accelerated pairings: none (default), baku (FIDE's Baku "
        "method) or general (the top half).",
        default=StageSettings.Acceleration.NONE,
        optional_on_page=True,
    ),
    # How its entrants qualify for the next stage (docs/standings.md §6); empty: a final.
    Setting(
        "qualify_rule",
        models.CharField(max_length=16, choices=StageSettings.QualifyRule.choices, blank=True),
        Freeze.QUALIFICATION,
        label=_("Qualification rule"),
        api_help="How entrants qualify for the next stage; empty for none (a final).",
        empty=_("none (a final)"),
    ),
    Setting(
        "qualify_value",
        models.DecimalField(max_digits=7, decimal_places=3, null=True, blank=True),
        Freeze.QUALIFICATION,
        label=_("Value"),
        help=_("Points P, points lost L, or a count q."),
        api_help="The rule's value: points P (threshold), points lost L (loss_cap) or a count "
        "q (top_*); a share of the games or a percentage when qualify_relative.",
        least=Bound(0, _("The rule's value cannot be negative.")),
    ),
    Setting(
        "qualify_relative",
        models.BooleanField(),
        Freeze.QUALIFICATION,
        label=_("Relative"),
        help=_("Threshold: P is a share of the games; top: q is a percentage."),
        api_help="threshold: P is a share of the games; top_*: q is a percentage.",
        default=False,
    ),
    # Its play period.
    Setting(
        "play_starts_on",
        models.DateField(null=True, blank=True),
        Freeze.PLAY,
        label=_("Play starts on"),
        api_help="The first day of play.",
    ),
    Setting(
        "play_ends_on",
        models.DateField(null=True, blank=True),
        Freeze.PLAY,
        label=_("Play ends on"),
        api_help="The last day of play (not before play_starts_on).",
    ),
    Setting(
        "report_accept_days",
        models.PositiveSmallIntegerField(),
        Freeze.PLAY,
        label=_("Days to answer a reported result"),
        help=_(
            "A result a player reports stands after this many days unless the opponent "
            "answers. Empty: 7."
        ),
        api_help="A result a player reports stands after this many days unless the opponent "
        "confirms or disputes it first ({least}–{most}, default {default}).",
        least=Bound(1),
        most=Bound(90),
        default=7,
        optional_on_page=True,
    ),
    Setting(
        # A new number of days applies from the next round on (apps/office/swiss/deadlines.py).
        "swiss_round_days",
        models.PositiveSmallIntegerField(null=True, blank=True),
        Freeze.PLAY,
        label=_("Days each round lasts"),
        help=_(
            "Swiss only: a round's deadline is its start plus these days. Empty: no deadline. "
            "A change applies from the next round on."
        ),
        api_help="A Swiss stage's days each round lasts ({least}–{most}): a round's deadline "
        "is its start plus these days; null: no deadline (and for other formats). A change "
        "applies from the next round on.",
        least=Bound(1, _("A round lasts at least one day.")),
        most=Bound(
            365,
            _("A round of more than %(limit)s days is beyond a correspondence stage's calendar."),
        ),
    ),
    Setting(
        "swiss_at_deadline",
        models.CharField(max_length=16, choices=StageSettings.AtDeadline.choices),
        Freeze.PLAY,
        label=_("At a round's deadline"),
        help=_(
            "Swiss only: what happens to the games still unfinished when a round's deadline "
            "passes. Adjudicated games count as draws for the next round's pairing only; "
            "their real results count once entered."
        ),
        api_help="What happens when a Swiss round's deadline passes with games unfinished: "
        "adjudicate (default: they go to adjudication and the next round is paired at once, "
        "each such game counted as a draw for the pairing only) or td (they are left to the "
        "TDs, who are e-mailed; the next round is paired once they have results). Ignored by "
        "other formats.",
        default=StageSettings.AtDeadline.ADJUDICATE,
        optional_on_page=True,
    ),
    # -----------------------------------------------------------------------
    # Play on the server (apps/play, docs/play.md): whether the stage's games are played here,
    # and under which clock, leave, silence, draw and visibility rules. All but the visibility
    # freeze once the stage is drawn (a game's rules do not change while it is played).
    # -----------------------------------------------------------------------
    Setting(
        "play_on_server",
        models.BooleanField(),
        Freeze.SERVER,
        label=_("Played on this server"),
        help=_("The games are played here, move by move, with the correspondence clock."),
        api_help="The stage's games are played on this server, move by move, with the "
        "correspondence clock (default: no; results then come from elsewhere).",
        default=False,
    ),
    Setting(
        "time_control",
        models.CharField(max_length=8, choices=StageSettings.TimeControl.choices),
        Freeze.SERVER,
        label=_("Time control"),
        api_help="moves (N moves in D days: tc_moves, tc_days; default) or fischer (a clock "
        "of fischer_base days gaining fischer_increment days a move).",
        default=StageSettings.TimeControl.MOVES,
        optional_on_page=True,
    ),
    Setting(
        "tc_moves",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Moves (N)"),
        help=_("N moves in D days: the moves of each period."),
        api_help="N of N moves in D days ({least}–{most}, default {default}).",
        least=Bound(1, _("A period needs at least %(limit)s move.")),
        most=Bound(100),
        default=10,
        optional_on_page=True,
    ),
    Setting(
        "tc_days",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Days (D)"),
        help=_("N moves in D days: the days of each period; unused days carry forward."),
        api_help="D of N moves in D days ({least}–{most}, default {default}).",
        least=Bound(1, _("A period needs at least %(limit)s day.")),
        most=Bound(365),
        default=50,
        optional_on_page=True,
    ),
    Setting(
        "fischer_base",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Fischer: days at the start"),
        api_help="A Fischer clock's days at the start ({least}–{most}, default {default}).",
        least=Bound(1, _("A clock needs at least %(limit)s day.")),
        most=Bound(365),
        default=30,
        optional_on_page=True,
    ),
    Setting(
        "fischer_increment",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Fischer: days added a move"),
        api_help="Days a Fischer clock gains after each move ({least}–{most}, default {default}).",
        least=Bound(0),
        most=Bound(60),
        default=3,
        optional_on_page=True,
    ),
    Setting(
        "doubling_after",
        models.PositiveSmallIntegerField(null=True, blank=True),
        Freeze.SERVER,
        label=_("Doubling after (days)"),
        help=_("Days used on one move beyond this count twice. Empty: no doubling."),
        api_help="Days used on one move beyond this count twice ({least}–{most}, default "
        "{default}); null: no doubling.",
        least=Bound(0),
        most=Bound(365),
        default=20,
    ),
    Setting(
        "leave_days",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Leave days a year"),
        api_help="Days of leave each player has a calendar year ({least}–{most}, default "
        "{default}).",
        least=Bound(0),
        most=Bound(180),
        default=45,
        optional_on_page=True,
    ),
    Setting(
        "special_leave_days",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Special leave days"),
        help=_("Added to each player's leave for a calendar year."),
        api_help="The event's special leave, added to each calendar year's leave "
        "({least}–{most}, default {default}).",
        least=Bound(0),
        most=Bound(180),
        default=0,
        optional_on_page=True,
    ),
    Setting(
        "silence_days",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Days of silence that lose"),
        help=_("Reminders go at 14, 28 and 35 days without a move."),
        api_help="Days without a move after which the game is lost by silence "
        "({least}–{most}, default {default}); reminders go at 14, 28 and 35 days.",
        least=Bound(1),
        most=Bound(365),
        default=40,
        optional_on_page=True,
    ),
    Setting(
        "draw_earliest_move",
        models.PositiveSmallIntegerField(),
        Freeze.SERVER,
        label=_("Earliest move for a draw"),
        help=_("A draw may be offered or agreed from this move on."),
        api_help="The move number from which a draw may be offered and agreed "
        "({least}–{most}, default {default}).",
        least=Bound(1),
        most=Bound(200),
        default=25,
        optional_on_page=True,
    ),
    Setting(
        "game_visibility",
        models.CharField(max_length=8, choices=StageSettings.GameVisibility.choices),
        Freeze.PLAY,
        label=_("Who sees the games"),
        api_help="finished (default: a game's moves are public once it is finished), delayed "
        "(public while played, visibility_delay_moves moves behind) or players (only the "
        "group's players, the TD and the organizers until the group is closed).",
        default=StageSettings.GameVisibility.FINISHED,
        optional_on_page=True,
    ),
    Setting(
        "visibility_delay_moves",
        models.PositiveSmallIntegerField(),
        Freeze.PLAY,
        label=_("Delay (moves)"),
        help=_("Delayed visibility: the public sees the game this many moves behind."),
        api_help="With delayed visibility, how many moves behind the public sees a game "
        "({least}–{most}, default {default}; 0: live).",
        least=Bound(0),
        most=Bound(50),
        default=5,
        optional_on_page=True,
    ),
)
STAGE_SETTINGS.add_fields_to(StageSettings)
