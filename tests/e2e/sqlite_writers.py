"""Run by tests/e2e/test_sqlite_writers.py in separate processes, on a SQLite file.

``python -m tests.e2e.sqlite_writers setup`` makes a published stage of 3 groups;
``python -m tests.e2e.sqlite_writers write N K`` enters the results of the games of
group (N % 3) + 1 whose number is K modulo the number of writers, as that group's organizer,
each in its own request-sized transaction, the standings recomputed in-process after each.
It prints one line: ``ok <count>`` or ``error <type>: <message>``.
"""

from __future__ import annotations

import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402

from apps.entrants.services import close_registration, import_entrants  # noqa: E402
from apps.groups.models import Game  # noqa: E402
from apps.office.services import publish_draw, start_draw  # noqa: E402
from apps.results.services import enter_result  # noqa: E402
from apps.silli.entrants import entrants_csv  # noqa: E402
from apps.silli.synth import make_entrants  # noqa: E402
from apps.stages.models import Stage  # noqa: E402
from apps.stages.services import create_tournament  # noqa: E402

RESULTS = ("1-0", "0-1", "1/2-1/2")


def setup() -> None:
    organizer = get_user_model().objects.create_user("org", "org@example.org", "pw-org-123")
    cup = create_tournament(organizer, name="Writers Cup", slug="writers", games_per_player=4)
    stage = cup.first_stage
    import_entrants(organizer, stage, entrants_csv(make_entrants(60, "writers")))
    stage.min_group_size = 20
    stage.save(update_fields=["min_group_size"])
    close_registration(organizer, stage)
    start_draw(organizer, stage, "seed")
    publish_draw(organizer, stage)
    print("ok", Game.objects.count())


def write(writer: int, writers: int) -> None:
    organizer = get_user_model().objects.get(username="org")
    stage = Stage.objects.get()
    games = Game.objects.filter(group__stage=stage).order_by("group__number", "number")
    mine = [g for i, g in enumerate(games) if i % writers == writer]
    for i, game in enumerate(mine):
        enter_result(organizer, game, RESULTS[i % 3], expected_version=game.version)
    print("ok", len(mine))


if __name__ == "__main__":
    try:
        if sys.argv[1] == "setup":
            setup()
        else:
            write(int(sys.argv[2]), int(sys.argv[3]))
    except Exception as error:  # reported to the test, which fails on it
        print(f"error {type(error).__name__}: {error}")
        sys.exit(1)
