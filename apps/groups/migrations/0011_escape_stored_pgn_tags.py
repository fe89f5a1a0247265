# Stored game scores were written by python-chess, which does not escape a tag value's quote
# or backslash (a player named O"Brien gave [White "O"Brien"], not PGN). New scores are
# written escaped (apps/results/imports.py, stored_score); this escapes the tags of the
# scores stored before. Every value stored before was unescaped, so each is escaped once.

import re

from django.db import migrations

TAG = re.compile(r'^\[([A-Za-z0-9_]+) "(.*)"\]\s*$')


def escaped(pgn: str) -> str:
    lines = pgn.split("\n")
    for index, line in enumerate(lines):
        if not line.startswith("["):
            break
        match = TAG.match(line)
        if match and ('"' in match[2] or "\\" in match[2]):
            value = match[2].replace("\\", "\\\\").replace('"', '\\"')
            lines[index] = f'[{match[1]} "{value}"]'
    return "\n".join(lines)


def forwards(apps, schema_editor):
    Game = apps.get_model("groups", "Game")
    suspects = Game.objects.exclude(pgn="").filter(pgn__regex=r'\[[A-Za-z0-9_]+ "[^\n]*["\\][^\n]*"\]')
    for game in suspects.only("pk", "pgn").iterator(chunk_size=500):
        fixed = escaped(game.pgn)
        if fixed != game.pgn:
            Game.objects.filter(pk=game.pk).update(pgn=fixed)


class Migration(migrations.Migration):
    dependencies = [
        ("groups", "0010_swiss_round_virtual_points"),
    ]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
