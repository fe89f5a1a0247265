"""Format lab runs on the common job base (apps/core/jobs.py): at most one unfinished run per
stage (the next migration makes it a constraint). Every row is kept, and every value but the
status of a stage's older unfinished runs, if any: they are failed, as a new run's start
fails a lost one."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import Max

UNFINISHED = ["pending", "running"]


def one_unfinished_per_stage(apps, schema_editor):
    LabRun = apps.get_model("office", "LabRun")
    unfinished = LabRun.objects.filter(status__in=UNFINISHED)
    newest = (
        unfinished.values("stage_id").annotate(newest=Max("id")).values_list("newest", flat=True)
    )
    now = django.utils.timezone.now()
    unfinished.exclude(pk__in=list(newest)).update(
        status="failed",
        error="A newer run of this stage replaced this one.",
        finished_at=now,
        updated_at=now,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("office", "0002_lab_run_form"),
    ]

    operations = [
        migrations.AlterField(
            model_name="labrun",
            name="updated_at",
            field=models.DateTimeField(
                auto_now=True, help_text="last heard from: every step of the job saves it"
            ),
        ),
        migrations.RunPython(one_unfinished_per_stage, migrations.RunPython.noop),
    ]
