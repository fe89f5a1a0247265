"""Draw jobs: one unfinished job per stage, as a constraint. 0009 left at most one per
stage; the constraint is a migration of its own because PostgreSQL creates no index on a
table whose rows the same transaction changed (their foreign keys are still to check)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("stages", "0009_draw_job_heartbeat"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="drawjob",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ["pending", "running"])),
                fields=("stage",),
                name="draw_job_one_unfinished_per_stage",
            ),
        ),
    ]
