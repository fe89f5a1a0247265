"""python manage.py settings_doc [--check]

Writes docs/settings.md, the tables of the tournament's and the stage's settings, from their
declaration (apps/stages/settings_catalog.py); with ``--check`` it only says whether the file
is up to date (a test runs it).
"""

from __future__ import annotations

import enum
from decimal import Decimal
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import models
from django.utils import translation

from apps.stages.settings_catalog import STAGE_SETTINGS, TOURNAMENT_SETTINGS, Catalog, Setting

PATH = Path("docs") / "settings.md"

INTRO = """\
# Settings of a tournament and of a stage

Generated from their declaration, `apps/stages/settings_catalog.py`, by
`python manage.py settings_doc` (a test fails when this file and the declaration differ): do
not edit it by hand. The same declaration gives the models' fields and checks, the API's fields
(`POST`/`PATCH` `/api/tournaments/…` and `/api/stages/…`; the descriptions are in the schema,
`/api/schema/`), the settings pages' fields and when each setting freezes.

*Setting* is the name in the API (and in the model where it differs); *Limits* are the values
it takes, and the *Refusals* below say why a value beyond them is refused; *Default* is what a
new tournament or stage gets when the setting is not given; *What it is* is said in the API's
terms (`null`: empty).
"""


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, Decimal):
        value = format(value.normalize(), "f")
    return f"`{value}`"


def _type(field: models.Field) -> str:
    if field.choices:
        return "one of " + ", ".join(f"`{value}`" for value, _label in field.choices)
    if isinstance(field, models.BooleanField):
        return "yes/no"
    if isinstance(field, models.DecimalField):
        return f"number ({field.decimal_places} decimals)"
    if isinstance(field, models.IntegerField):
        return "whole number"
    if isinstance(field, models.DateField):
        return "date"
    if isinstance(field, models.JSONField):
        return "list"
    if isinstance(field, models.EmailField):
        return "e-mail address"
    if isinstance(field, models.SlugField):
        return "slug (letters, digits, `-`, `_`)"
    return "text"


def limits(setting: Setting) -> str:
    """The values the setting takes, as the table shows them."""
    least, most = setting.ends()
    if least is not None and most is not None:
        return f"{least}–{most}"
    if least is not None:
        return f"≥ {least}"
    if most is not None:
        return f"≤ {most}"
    if setting.field.max_length and not setting.field.choices:
        return f"at most {setting.field.max_length} characters"
    return ""


def _default(setting: Setting, kinds: list[tuple[str, str]]) -> str:
    empty = setting.field.null or (setting.field.blank and not setting.has_default)
    if not setting.has_default:
        shown = "empty" if empty else "—"
        return f"{shown}: {setting.empty}" if empty and setting.empty else shown
    shown = _value(setting.default)
    others = [
        f"{label.lower()}: {_value(setting.default_by_kind[kind])}"
        for kind, label in kinds
        if kind in setting.default_by_kind
    ]
    return "; ".join([shown, *others])


def _cell(text: str) -> str:
    """``text`` in a Markdown table's cell: no column breaks, no HTML tags."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")


def _name(setting: Setting) -> str:
    api = ".".join(setting.api_path) if setting.api_path else setting.name
    return f"`{api}`" if api == setting.name else f"`{api}` (model: `{setting.name}`)"


def _table(catalog: Catalog) -> list[str]:
    kinds = [(str(kind), str(label)) for kind, label in STAGE_SETTINGS["kind"].field.choices or ()]
    rows = [
        "| Setting | On the page | Type | Limits | Default | Can change | What it is |",
        "|---|---|---|---|---|---|---|",
    ]
    for setting in catalog:
        cells = [
            _name(setting),
            str(setting.label),
            _type(setting.field),
            limits(setting),
            _default(setting, kinds),
            setting.freezes.value,
            setting.api_text(),
        ]
        rows.append("| " + " | ".join(_cell(cell) for cell in cells) + " |")
    refusals = [
        f"- {_name(setting)} {word} {bound.value}: “{bound.message}”"
        for setting in catalog
        for word, bound in (("below", setting.least), ("above", setting.most))
        if bound is not None and bound.message is not None
    ]
    if refusals:
        rows += ["", "Refusals:", "", *refusals]
    return rows


def settings_doc() -> str:
    """docs/settings.md as the declaration gives it (in English)."""
    with translation.override("en"):
        lines = [
            INTRO,
            "## The tournament",
            "",
            *_table(TOURNAMENT_SETTINGS),
            "",
            "## A stage",
            "",
            *_table(STAGE_SETTINGS),
        ]
    return "\n".join(lines) + "\n"


class Command(BaseCommand):
    help = "Write docs/settings.md from the declaration of the settings (--check: compare)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--check", action="store_true", help="only check that the file is up to date"
        )

    def handle(self, *args: Any, check: bool, **options: Any) -> None:
        path = Path(settings.BASE_DIR) / PATH
        text = settings_doc()
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                raise CommandError(
                    f"{PATH} differs from the declaration of the settings: run "
                    "python manage.py settings_doc"
                )
            self.stdout.write(f"{PATH} is up to date.")
            return
        path.write_text(text, encoding="utf-8")
        self.stdout.write(f"Wrote {PATH}.")
