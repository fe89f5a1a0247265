"""LabRun.form_sd: the players' form in the lab's result model. Runs made before it existed
were simulated without form, so they get 0; new runs get the engine's default (85)."""

from django.db import migrations, models

HELP = (
    "σ of a player's form in a simulated tournament, rating points (runs made before the "
    "form was modelled have 0)"
)


class Migration(migrations.Migration):
    dependencies = [
        ("office", "0001_lab_run"),
    ]

    operations = [
        migrations.AddField(
            model_name="labrun",
            name="form_sd",
            field=models.FloatField(default=0.0, help_text=HELP),
        ),
        migrations.AlterField(
            model_name="labrun",
            name="form_sd",
            field=models.FloatField(default=85.0, help_text=HELP),
        ),
    ]
