"""Draw jobs on the common job base (apps/core/jobs.py): a heartbeat, and at most one
unfinished job per stage (the next migration makes it a constraint). Every row is kept, and
every value but the status of a stage's older unfinished jobs, if any: a job's heartbeat
starts at when it was last heard from before (finished, else created)."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import Max
from django.db.models.functions import Coalesce

UNFINISHED = ["pending", "running"]


def heard_from(apps, schema_editor):
    DrawJob = apps.get_model("stages", "DrawJob")
    DrawJob.objects.update(updated_at=Coalesce("finished_at", "created_at"))


def one_unfinished_per_stage(apps, schema_editor):
    """A stage with several unfinished jobs (a draw is refused while one runs, so none is
    expected) keeps its newest; the others are failed as its finish would fail them."""
    DrawJob = apps.get_model("stages", "DrawJob")
    unfinished = DrawJob.objects.filter(status__in=UNFINISHED)
    newest = (
        unfinished.values("stage_id").annotate(newest=Max("id")).values_list("newest", flat=True)
    )
    now = django.utils.timezone.now()
    unfinished.exclude(pk__in=list(newest)).update(
        status="failed",
        error="A newer draw of this stage replaced this one.",
        finished_at=now,
        updated_at=now,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("stages", "0008_settings_catalog"),
    ]

    operations = [
        migrations.AddField(
            model_name="drawjob",
            name="updated_at",
            field=models.DateTimeField(
                auto_now=True,
                default=django.utils.timezone.now,
                help_text="last heard from: every step of the job saves it",
            ),
            preserve_default=False,
        ),
        migrations.RunPython(heard_from, migrations.RunPython.noop),
        migrations.RunPython(one_unfinished_per_stage, migrations.RunPython.noop),
    ]
