"""A drawn group's result is kept as its canonical JSON text (the form its digest and
DRAW.json are made of), not as jsonb: the draw's finish hashes and writes it without decoding
and encoding it again in Python (PostgreSQL reads it where it writes the tables)."""

import json

from django.db import migrations, models


def canonical(apps, schema_editor):
    DrawJobGroup = apps.get_model("stages", "DrawJobGroup")
    rows = DrawJobGroup.objects.exclude(payload=None).exclude(payload="")
    for row in rows.iterator(chunk_size=500):
        text = json.dumps(
            json.loads(row.payload), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        if text != row.payload:
            DrawJobGroup.objects.filter(pk=row.pk).update(payload=text)


class Migration(migrations.Migration):
    dependencies = [("stages", "0010_draw_job_one_unfinished")]

    operations = [
        migrations.AlterField(
            model_name="drawjobgroup",
            name="payload",
            field=models.TextField(
                blank=True,
                null=True,
                help_text="the drawn group, its canonical JSON (sorted keys, no spaces)",
            ),
        ),
        migrations.RunPython(canonical, migrations.RunPython.noop),
    ]
