"""The settings' value types, annotated on the settings models for mypy (the catalog adds the
fields at import, where the type checker does not see them), match the catalog: a setting
without its annotation, or an annotation without its setting, fails at import."""

from __future__ import annotations

import pytest
from django.db import models

from apps.stages.settings_catalog import (
    STAGE_SETTINGS,
    TOURNAMENT_SETTINGS,
    Catalog,
    Freeze,
    Setting,
    StageSettings,
    TournamentSettings,
)


def _setting(name: str) -> Setting:
    return Setting(name, models.PositiveSmallIntegerField(), Freeze.ALWAYS, label=name)


@pytest.mark.parametrize(
    ("model", "catalog"),
    [(TournamentSettings, TOURNAMENT_SETTINGS), (StageSettings, STAGE_SETTINGS)],
)
def test_each_setting_has_its_annotation_and_each_annotation_its_setting(model, catalog):
    assert list(model.__dict__.get("__annotations__", {})) == list(catalog.names())


def test_a_setting_without_its_annotation_is_refused():
    class Bare(models.Model):
        class Meta:
            abstract = True
            app_label = "stages"

    with pytest.raises(TypeError, match=r"missing \['max_byes'\]"):
        Catalog(_setting("max_byes")).add_fields_to(Bare)


def test_an_annotation_without_its_setting_is_refused():
    class Annotated(models.Model):
        max_byes: int
        min_byes: int

        class Meta:
            abstract = True
            app_label = "stages"

    with pytest.raises(TypeError, match=r"unknown \['min_byes'\]"):
        Catalog(_setting("max_byes")).add_fields_to(Annotated)


def test_annotated_settings_become_fields():
    class Annotated(models.Model):
        max_byes: int

        class Meta:
            abstract = True
            app_label = "stages"

    Catalog(_setting("max_byes")).add_fields_to(Annotated)
    assert isinstance(Annotated._meta.get_field("max_byes"), models.PositiveSmallIntegerField)
