"""Format lab runs: one unfinished run per stage, as a constraint (a migration of its own, as
for draw jobs: PostgreSQL creates no index on a table whose rows the same transaction
changed)."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("office", "0003_lab_run_job"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="labrun",
            constraint=models.UniqueConstraint(
                condition=models.Q(("status__in", ["pending", "running"])),
                fields=("stage",),
                name="lab_run_one_unfinished_per_stage",
            ),
        ),
    ]
