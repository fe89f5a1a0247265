"""Games now belong to the groups app (``groups.0003_game``); state only, the table stays."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_audit_refers_by_id"),
        ("groups", "0003_game"),
        ("results", "0002_game_keys_and_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name="Game")],
        ),
    ]
