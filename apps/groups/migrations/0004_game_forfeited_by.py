"""A game records the withdrawal that made it a forfeit: ``forfeited_by`` and ``forfeited_at``.

Until now only the ``entrant.withdrawn`` audit event listed those games (``data["games"]``);
the data step copies that list into the new fields. Reversing drops the fields (the events
keep their lists), so the data step reverses as a no-op.
"""

import django.db.models.deletion
from django.db import migrations, models


def forfeits_from_withdrawal_events(apps, schema_editor):
    AuditEvent = apps.get_model("core", "AuditEvent")
    Game = apps.get_model("groups", "Game")
    StageEntry = apps.get_model("entrants", "StageEntry")
    events = AuditEvent.objects.filter(action="entrant.withdrawn").order_by("created_at", "id")
    for event in events.iterator():
        data = event.data if isinstance(event.data, dict) else {}
        code = data.get("entrant")
        ids = [g["game"] for g in data.get("games") or [] if isinstance(g, dict) and "game" in g]
        if not code or not ids:
            continue
        games = Game.objects.filter(pk__in=ids).values_list(
            "pk", "white_id", "white__code", "black_id", "black__code"
        )
        by_entrant = {}
        for pk, white_id, white_code, black_id, black_code in games:
            if white_code == code:
                by_entrant.setdefault(white_id, []).append(pk)
            elif black_code == code:
                by_entrant.setdefault(black_id, []).append(pk)
        for entrant_id, game_ids in by_entrant.items():
            withdrawn_at = (
                StageEntry.objects.filter(stage_id=event.stage_id, entrant_id=entrant_id)
                .values_list("withdrawn_at", flat=True)
                .first()
            )
            Game.objects.filter(pk__in=game_ids).update(
                forfeited_by_id=entrant_id, forfeited_at=withdrawn_at or event.created_at
            )


class Migration(migrations.Migration):
    dependencies = [
        ("core", "0002_audit_refers_by_id"),
        ("entrants", "0001_initial"),
        ("groups", "0003_game"),
    ]

    operations = [
        migrations.AddField(
            model_name="game",
            name="forfeited_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="game",
            name="forfeited_by",
            field=models.ForeignKey(
                blank=True,
                db_constraint=False,
                db_index=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to="entrants.entrant",
            ),
        ),
        migrations.RunPython(forfeits_from_withdrawal_events, migrations.RunPython.noop),
    ]
