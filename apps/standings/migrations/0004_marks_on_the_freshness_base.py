"""Standings and ranking marks on the common mark of stored derived data
(apps/core/freshness.py): their help texts only, no change to the database."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("standings", "0003_stored_ranking"),
    ]

    operations = [
        migrations.AlterField(
            model_name="rankingmark",
            name="changes",
            field=models.PositiveBigIntegerField(
                default=0, help_text="how many times the item was marked (ever)"
            ),
        ),
        migrations.AlterField(
            model_name="rankingmark",
            name="pending_since",
            field=models.DateTimeField(
                blank=True,
                db_index=True,
                help_text="the oldest change the stored data may miss; empty: up to date",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="rankingmark",
            name="requested_at",
            field=models.DateTimeField(
                blank=True, help_text="when its rebuild was last queued (or tried to be)", null=True
            ),
        ),
        migrations.AlterField(
            model_name="standingsmark",
            name="changes",
            field=models.PositiveBigIntegerField(
                default=0, help_text="how many times the item was marked (ever)"
            ),
        ),
        migrations.AlterField(
            model_name="standingsmark",
            name="pending_since",
            field=models.DateTimeField(
                blank=True,
                db_index=True,
                help_text="the oldest change the stored data may miss; empty: up to date",
                null=True,
            ),
        ),
        migrations.AlterField(
            model_name="standingsmark",
            name="requested_at",
            field=models.DateTimeField(
                blank=True, help_text="when its rebuild was last queued (or tried to be)", null=True
            ),
        ),
    ]
