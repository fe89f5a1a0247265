"""Each tournament and stage setting is declared once (apps/stages/settings_catalog.py), and
every copy holds to it: the model field, the API's write serializers and schema, the settings
pages' forms, the actions' freezing groups and the table of docs/settings.md have the same
settings with the same bounds, refusals, labels and defaults."""

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.core.management import call_command
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator

from apps.office.forms import EditTournamentForm, NewTournamentForm, StageForm, TournamentForm
from apps.stages import models as stage_models
from apps.stages import services
from apps.stages.management.commands.settings_doc import limits
from apps.stages.models import Stage, Tournament
from apps.stages.serializers import (
    PointsSerializer,
    StageWriteSerializer,
    TournamentWriteSerializer,
)
from apps.stages.settings_catalog import STAGE_SETTINGS, TOURNAMENT_SETTINGS, Freeze, Setting

STAGE = list(STAGE_SETTINGS)
TOURNAMENT = list(TOURNAMENT_SETTINGS)
BOTH = [(Stage, s) for s in STAGE] + [(Tournament, s) for s in TOURNAMENT]
BOUNDED = [(model, s) for model, s in BOTH if s.least is not None or s.most is not None]
DOCS = Path(settings.BASE_DIR) / "docs" / "settings.md"


def ids(pairs):
    return [f"{model.__name__}.{setting.name}" for model, setting in pairs]


def bound_validators(model_field) -> tuple[object, object]:
    least = [v for v in model_field.validators if isinstance(v, MinValueValidator)]
    most = [v for v in model_field.validators if isinstance(v, MaxValueValidator)]
    return least, most


def write_field(model, setting: Setting):
    """The write serializer's field of the setting."""
    if model is Tournament and setting.api_path[:1] == ("points",):
        return PointsSerializer().fields[setting.api_path[1]]
    serializer = StageWriteSerializer() if model is Stage else TournamentWriteSerializer()
    return serializer.fields[setting.api_name]


@pytest.fixture(scope="module")
def schema():
    return SchemaGenerator().get_schema(request=None, public=True)["components"]["schemas"]


def schema_property(schema, model, setting: Setting) -> dict:
    if model is Tournament and setting.api_path[:1] == ("points",):
        return schema["Points"]["properties"][setting.api_path[1]]
    component = "StageWrite" if model is Stage else "TournamentCreate"
    return schema[component]["properties"][setting.api_name]


def docs_rows() -> dict[str, list[str]]:
    """The docs tables' rows by model field name: (Tournament or Stage, name) → cells."""
    rows: dict[str, list[str]] = {}
    section = None
    for line in DOCS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section = Tournament if "tournament" in line else Stage
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip("|").split(" | ")]
            model_name = re.search(r"model: `(\w+)`", cells[0])
            name = model_name.group(1) if model_name else cells[0].strip("`")
            rows[f"{section.__name__}.{name}"] = cells
    return rows


# ---------------------------------------------------------------------------
# The declaration itself
# ---------------------------------------------------------------------------


def test_the_bounds_other_apps_use_come_from_the_declaration():
    games = TOURNAMENT_SETTINGS["games_per_player"]
    assert (stage_models.GAMES_MIN, stage_models.GAMES_MAX) == (2, 60) == games.limits
    assert STAGE_SETTINGS["games_per_player_override"].limits == games.limits
    assert (stage_models.GROUP_MIN, stage_models.GROUP_MAX) == (2, 1000)
    assert (stage_models.SWISS_ROUNDS_MIN, stage_models.SWISS_ROUNDS_MAX) == (1, 60)
    assert STAGE_SETTINGS["swiss_rounds"].limits == (
        stage_models.SWISS_ROUNDS_MIN,
        stage_models.SWISS_ROUNDS_MAX,
    )


@pytest.mark.parametrize(("model", "setting"), BOTH, ids=ids(BOTH))
def test_every_setting_has_a_label_an_api_description_and_a_valid_default(model, setting):
    assert str(setting.label) and setting.api_text()
    field = model._meta.get_field(setting.name)
    for default in (setting.default, *setting.default_by_kind.values()):
        if default is models.NOT_PROVIDED:
            continue
        field.clean(default, None)
    assert set(setting.default_by_kind) <= set(Stage.Kind.values)


def test_the_stage_settings_freeze_as_place_pairing_qualification_or_play():
    assert {s.freezes for s in STAGE} == {
        Freeze.PLACE,
        Freeze.PAIRING,
        Freeze.QUALIFICATION,
        Freeze.PLAY,
        Freeze.SERVER,
    }
    assert {s.freezes for s in TOURNAMENT} == {Freeze.GAMES, Freeze.SCORING, Freeze.ALWAYS}


# ---------------------------------------------------------------------------
# The models
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "setting"), BOTH, ids=ids(BOTH))
def test_every_setting_is_a_model_field_with_its_texts_bounds_and_default(model, setting):
    field = model._meta.get_field(setting.name)
    assert field.verbose_name == setting.label
    assert field.help_text == setting.help
    least, most = bound_validators(field)
    if setting.least is None:
        assert not any(v.limit_value > 0 for v in least)
    else:
        assert [(v.limit_value, v.message) for v in least] == [
            (setting.least.value, setting.least.message or MinValueValidator.message)
        ]
    if setting.most is not None:
        assert [(v.limit_value, v.message) for v in most] == [
            (setting.most.value, setting.most.message or MaxValueValidator.message)
        ]
    if setting.has_default:
        assert field.default == setting.default
    else:
        assert not field.has_default()


# ---------------------------------------------------------------------------
# The actions
# ---------------------------------------------------------------------------


def test_the_actions_settings_and_freezing_groups_are_the_declarations():
    assert services.STAGE_FIELDS == STAGE_SETTINGS.names()
    assert services.TOURNAMENT_FIELDS == TOURNAMENT_SETTINGS.names()
    groups = {
        Freeze.PLACE: services.PLACE_FIELDS,
        Freeze.PAIRING: services.PAIRING_FIELDS,
        Freeze.QUALIFICATION: services.QUALIFICATION_FIELDS,
        Freeze.PLAY: services.PLAY_FIELDS,
        Freeze.SERVER: services.SERVER_FIELDS,
        Freeze.GAMES: services.GAMES_FIELDS,
        Freeze.SCORING: services.SCORING_FIELDS,
    }
    for setting in STAGE + TOURNAMENT:
        for freeze, names in groups.items():
            assert (setting.name in names) == (setting.freezes is freeze), setting.name


def test_a_stage_of_each_kind_takes_the_declared_defaults():
    for kind in Stage.Kind.values:
        stage = Stage(kind=kind, **services.stage_defaults(kind))
        for setting in STAGE:
            if setting.has_default and setting.name != "kind":
                assert getattr(stage, setting.name) == setting.default_for(kind), setting.name
    assert services.stage_defaults(Stage.Kind.FINAL) == {"separate_nations": False}


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "setting"), BOTH, ids=ids(BOTH))
def test_every_setting_is_in_the_write_serializer_with_its_bounds_and_description(model, setting):
    field = write_field(model, setting)
    assert field.source == setting.name
    assert field.help_text == setting.api_description()
    assert not field.required or setting.name == "name"
    if setting.least is not None or setting.most is not None:
        least, most = setting.ends()
        assert (field.min_value, field.max_value) == (least, most)
        for code, bound in (("min_value", setting.least), ("max_value", setting.most)):
            if bound is not None and bound.message is not None:
                assert field.error_messages[code] == bound.message


@pytest.mark.parametrize(("model", "setting"), BOTH, ids=ids(BOTH))
def test_every_setting_is_in_the_api_schema_with_its_bounds(schema, model, setting):
    prop = schema_property(schema, model, setting)
    assert prop["description"].startswith(setting.api_description())
    least, most = setting.ends()
    if least is not None:
        assert prop["minimum"] == least
    if most is not None:
        assert prop["maximum"] == most


def test_the_write_serializers_take_exactly_the_settings():
    assert list(StageWriteSerializer().fields) == STAGE_SETTINGS.api_names()
    assert list(TournamentWriteSerializer().fields) == TOURNAMENT_SETTINGS.api_names()


# ---------------------------------------------------------------------------
# The pages
# ---------------------------------------------------------------------------


def settings_pages(model) -> list:
    """The forms of the pages that show the model's settings."""
    if model is Stage:
        return [StageForm(tournament=Tournament(games_per_player=10))]
    return [NewTournamentForm(), EditTournamentForm()]


@pytest.mark.parametrize(("model", "setting"), BOTH, ids=ids(BOTH))
def test_every_setting_is_on_its_settings_pages_with_its_label_and_bounds(model, setting):
    for form in settings_pages(model):
        field = form.fields[setting.name]
        with translation.override("en"):
            assert field.label == str(setting.label)
        if setting.least is not None or setting.most is not None:
            assert (field.min_value, field.max_value) == setting.ends()
            for code, bound in (("min_value", setting.least), ("max_value", setting.most)):
                if bound is not None and bound.message is not None:
                    assert field.error_messages[code] == bound.message
        sections = [names for _title, names in form.GROUPS if setting.name in names]
        assert len(sections) == 1, setting.name


def test_the_settings_pages_show_exactly_the_settings():
    def shown(form):
        return sorted(name for _title, names in form.GROUPS for name in names)

    assert shown(StageForm) == sorted(STAGE_SETTINGS.names())
    assert shown(TournamentForm) == sorted(TOURNAMENT_SETTINGS.names())
    for form, catalog in ((StageForm, STAGE_SETTINGS), (NewTournamentForm, TOURNAMENT_SETTINGS)):
        assert [n for n in form.base_fields if n in catalog] == list(catalog.names())


def test_a_setting_optional_on_the_page_takes_its_default_when_left_empty():
    optional = [s for s in STAGE if s.optional_on_page]
    assert optional
    data = {"kind": "final", "format": "silli", "min_group_size": 50, "allowed_nation_games": 0}
    form = StageForm({**data, **{s.name: "" for s in optional}}, tournament=Tournament())
    assert form.is_valid(), form.errors
    for setting in optional:
        assert not form.fields[setting.name].required
        assert form.cleaned_data[setting.name] == setting.default


def test_a_stage_page_section_is_a_freezing_rule():
    for _title, names in StageForm.GROUPS:
        assert len({STAGE_SETTINGS[name].freezes for name in names}) == 1


@pytest.mark.parametrize(("model", "setting"), BOUNDED, ids=ids(BOUNDED))
def test_a_value_beyond_a_bound_is_refused_alike_by_the_page_and_the_api(model, setting):
    cup = Tournament(games_per_player=10)
    for bound, beyond in ((setting.least, -1), (setting.most, 1)):
        if bound is None:
            continue
        value = bound.value + beyond
        if model is Stage:
            form = StageForm({setting.name: value}, tournament=cup)
        else:
            form = TournamentForm({setting.name: value})
        serializer = (StageWriteSerializer if model is Stage else TournamentWriteSerializer)(
            data=_api_data(setting, value), partial=True
        )
        assert not serializer.is_valid()
        api_errors = serializer.errors
        for part in setting.api_path[:-1] if setting.api_path else ():
            api_errors = api_errors[part]
        api_message = str(api_errors[(setting.api_path or (setting.name,))[-1]][0])
        page_message = str(form.errors[setting.name][0])
        if bound.message is not None:
            assert page_message == api_message == str(bound.message)
        else:
            assert str(bound.value) in page_message and str(bound.value) in api_message


def _api_data(setting: Setting, value) -> dict:
    if len(setting.api_path) == 2:
        return {setting.api_path[0]: {setting.api_path[1]: value}}
    return {setting.api_name: value}


# ---------------------------------------------------------------------------
# The docs
# ---------------------------------------------------------------------------


def test_the_docs_table_is_the_declarations():
    call_command("settings_doc", "--check")


@pytest.mark.parametrize(("model", "setting"), BOTH, ids=ids(BOTH))
def test_every_setting_is_in_the_docs_table_with_its_bounds(model, setting):
    cells = docs_rows()[f"{model.__name__}.{setting.name}"]
    assert cells[3] == limits(setting)
    least, most = setting.ends()
    for bound in (least, most):
        if bound is not None:
            assert str(bound) in cells[3]
    assert cells[5] == setting.freezes.value
