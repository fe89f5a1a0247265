"""Games belong to the groups app (a group is its seats and its games).

State only: the table keeps its name (``results_game``), its rows, keys and indexes.
"""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("entrants", "0001_initial"),
        ("groups", "0002_later_stages"),
        ("results", "0002_game_keys_and_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.CreateModel(
                    name="Game",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                            ),
                        ),
                        ("number", models.PositiveIntegerField()),
                        ("round", models.PositiveIntegerField(blank=True, null=True)),
                        (
                            "result",
                            models.CharField(
                                blank=True,
                                choices=[
                                    ("", "in progress"),
                                    ("1-0", "1-0"),
                                    ("0-1", "0-1"),
                                    ("1/2-1/2", "½-½"),
                                    ("+-", "+− (forfeit)"),
                                    ("-+", "−+ (forfeit)"),
                                    ("--", "−− (both forfeit)"),
                                ],
                                default="",
                                max_length=8,
                            ),
                        ),
                        ("adjudicated", models.BooleanField(default=False)),
                        ("version", models.PositiveIntegerField(default=0)),
                        ("updated_at", models.DateTimeField(blank=True, null=True)),
                        (
                            "black",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="black_games",
                                to="entrants.entrant",
                            ),
                        ),
                        (
                            "group",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="games",
                                to="groups.group",
                            ),
                        ),
                        (
                            "white",
                            models.ForeignKey(
                                db_constraint=False,
                                db_index=False,
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="white_games",
                                to="entrants.entrant",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "results_game",
                        "ordering": ["group", "number"],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("group", "number"), name="game_number_unique"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(("white", models.F("black")), _negated=True),
                                name="game_two_players",
                            ),
                        ],
                    },
                ),
            ],
        ),
    ]
