"""The audit trail names tournaments, stages, groups and games by id, not by foreign key.

The columns keep their names and their data (``tournament_id`` …); the database loses only
the foreign-key constraints, so ``core`` no longer depends on the apps whose objects it names.
"""

import django.db.models.deletion
from django.db import migrations, models


def _plain(name: str) -> list:
    return [
        migrations.RemoveField(model_name="auditevent", name=name),
        migrations.AddField(
            model_name="auditevent",
            name=f"{name}_id",
            field=models.BigIntegerField(blank=True, db_index=True, null=True),
        ),
    ]


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0001_initial"),
    ]

    operations = [
        # Drop the two constraints the database has (groups and games never had one).
        migrations.AlterField(
            model_name="auditevent",
            name="tournament",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="stages.tournament",
            ),
        ),
        migrations.AlterField(
            model_name="auditevent",
            name="stage",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                null=True,
                on_delete=django.db.models.deletion.DO_NOTHING,
                related_name="+",
                to="stages.stage",
            ),
        ),
        # Then, in the model state only, the foreign keys become plain integer columns of the
        # same names (their indexes stay).
        migrations.SeparateDatabaseAndState(
            state_operations=_plain("tournament") + _plain("stage") + _plain("group") + _plain("game"),
        ),
    ]
