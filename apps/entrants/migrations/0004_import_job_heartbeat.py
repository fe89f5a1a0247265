"""Import jobs on the common job base (apps/core/jobs.py): a heartbeat, and at most one
unfinished job per stage (the next migration makes it a constraint). Every row is kept, and
every value but the status of a stage's older unfinished jobs, if any: a job's heartbeat
starts at when it was last heard from before (finished, else created)."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import Max
from django.db.models.functions import Coalesce

UNFINISHED = ["pending", "running"]


def heard_from(apps, schema_editor):
    ImportJob = apps.get_model("entrants", "ImportJob")
    ImportJob.objects.update(updated_at=Coalesce("finished_at", "created_at"))


def one_unfinished_per_stage(apps, schema_editor):
    """A stage with several unfinished jobs (an import is refused while one runs, so none is
    expected) keeps its newest; the others are failed as lost, their file let go."""
    ImportJob = apps.get_model("entrants", "ImportJob")
    unfinished = ImportJob.objects.filter(status__in=UNFINISHED)
    newest = (
        unfinished.values("stage_id").annotate(newest=Max("id")).values_list("newest", flat=True)
    )
    now = django.utils.timezone.now()
    unfinished.exclude(pk__in=list(newest)).update(
        status="failed",
        error="The import stopped before it finished (its worker was lost); nothing was "
        "written. Start the import again.",
        details=[],
        csv="",
        finished_at=now,
        updated_at=now,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("entrants", "0003_search_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="importjob",
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
