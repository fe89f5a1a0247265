"""Schemathesis with real ids: every operation of /api/schema/, called as an organizer (by
token) on objects that exist, answers without a server error and as its schema says (status,
content type, body).

tests/fuzz/test_api_schema.py sends generated path parameters, which nearly always name
nothing (404); here every path parameter names a real object — the published stage and its
tournament, a group, a game with a player's report, an entrant, the draw job, an import job
and a format-lab run of a stage open for registration, the organizer's account — so the
answers are the objects themselves and the actions run past their lookups. Bodies, query
strings and the remaining values come from the schema (a bounded number of examples per
operation). The requests run in this process; each operation's changes are rolled back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pytest
import schemathesis
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from django.test import override_settings
from hypothesis import HealthCheck, Phase, settings
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from apps.entrants.services import import_entrants
from apps.groups.models import Game
from apps.results.reports import report_result
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import DrawJob, Stage
from apps.stages.services import create_tournament
from tests.conftest import tasks_in_process
from tests.worlds.published import build_world

# Per operation: each one on a real object, so every example reaches the action. More for a
# longer search: API_CONFORMANCE_EXAMPLES=50 pytest tests/e2e/test_api_conformance.py
EXAMPLES = int(os.environ.get("API_CONFORMANCE_EXAMPLES", "8"))
# No 5xx; a status, a content type and a body the schema documents (as tests/fuzz).
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]

schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
schemathesis.serializer.alias("application/x-chess-pgn", "text/plain")

pytestmark = pytest.mark.slow


@dataclass
class Ids:
    """The real object behind each path parameter."""

    token: str
    slug: str
    stage: int
    open_stage: int
    group: int
    game: int
    report: int
    entrant: str
    open_entrant: str
    draw_job: int
    import_job: int
    results_import_job: int
    lab_run: int
    organizer: int

    def path_parameters(self, path: str) -> dict[str, object]:
        """The values for ``path``'s parameters: the open stage for what only a stage open
        for registration does (its entrants, the format lab), the published one otherwise."""
        registration = any(
            part in path for part in ("/entrants", "/lab-runs/", "/late-entrants/", "/draw/")
        )
        stage = self.open_stage if registration else self.stage
        by_collection = {
            "/api/stages/": stage,
            "/api/groups/": self.group,
            "/api/games/": self.game,
            "/api/draw-jobs/": self.draw_job,
            "/api/import-jobs/": self.import_job,
            "/api/results-import-jobs/": self.results_import_job,
            "/api/lab-runs/": self.lab_run,
        }
        values: dict[str, object] = {
            "slug": self.slug,
            "report_id": self.report,
            "code": self.open_entrant if registration else self.entrant,
            "user_id": self.organizer,
        }
        for prefix, pk in by_collection.items():
            if path.startswith(prefix):
                values["id"] = pk
        return values


@pytest.fixture(scope="module")
def ids(django_db_setup, django_db_blocker) -> Ids:
    with django_db_blocker.unblock(), tasks_in_process():
        world = build_world(None, slug="conformance-cup")
        organizer = world.users["organizer"]
        token = Token.objects.create(user=organizer).key
        game = world.player_game
        report = report_result(world.users["player"], game, "1-0")
        # A second tournament whose stage is open for registration: an entrant list, an
        # import that ran as a job and a format-lab run.
        cup = create_tournament(
            organizer,
            name="Open Conformance Cup",
            slug="open-conformance-cup",
            games_per_player=4,
            stages=[{"min_group_size": 10}],
        )
        open_stage = cup.first_stage
        import_entrants(organizer, open_stage, entrants_csv(make_entrants(20, "conformance")))
        api = APIClient()
        api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        # A pending invitation: its accepted_at and accepted_by are null.
        invited = api.post(
            f"/api/tournaments/{world.tournament.slug}/invitations/",
            {"email": "co-organizer@people.test", "role": "organizer"},
            format="json",
        )
        assert invited.status_code == 201, invited.json()
        with override_settings(ENTRANT_IMPORT_JOB_ROWS=2):
            job = api.post(
                f"/api/stages/{open_stage.pk}/entrants/import/?dry_run=1",
                {"csv": entrants_csv(make_entrants(5, "conformance-job"))},
                format="json",
            )
        assert job.status_code == 202, job.json()
        # A results import that ran as a job (a dry run of one game of the group).
        played = Game.objects.select_related("white", "black").get(pk=game.pk)
        with override_settings(RESULT_IMPORT_JOB_CHARS=10):
            results_job = api.post(
                f"/api/groups/{world.group.pk}/results/import/?dry_run=1",
                {"csv": f"white,black,result\n{played.white.code},{played.black.code},1-0\n"},
                format="json",
            )
        assert results_job.status_code == 202, results_job.json()
        lab = api.post(
            f"/api/stages/{open_stage.pk}/lab-runs/",
            {
                "tournaments": 10,
                "candidates": [
                    {"format": "round_robin", "group_size": 10},
                    {"format": "swiss", "rounds": 5, "acceleration": "none"},
                ],
            },
            format="json",
        )
        assert lab.status_code == 202, lab.json()
        yield Ids(
            token=token,
            slug=world.tournament.slug,
            stage=world.stage.pk,
            open_stage=open_stage.pk,
            group=world.group.pk,
            game=game.pk,
            report=report.pk,
            entrant=world.player_entrant.code,
            open_entrant=Stage.objects.get(pk=open_stage.pk).entries.first().entrant.code,
            draw_job=DrawJob.objects.filter(stage=world.stage).latest("pk").pk,
            import_job=job.json()["id"],
            results_import_job=results_job.json()["id"],
            lab_run=lab.json()["id"],
            organizer=organizer.pk,
        )
        call_command("flush", interactive=False, verbosity=0)


@pytest.fixture(autouse=True)
def keep_the_test_connection():
    """As in tests/fuzz: the WSGI handler's request signals would close the connection the
    test rolls back."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],  # the first failing answer, unshrunk
)
@pytest.mark.django_db
def test_every_answer_on_real_objects_matches_the_schema(case, ids):
    case.path_parameters = {**(case.path_parameters or {}), **ids.path_parameters(case.path)}
    headers = {"Accept-Encoding": "identity", "Authorization": f"Token {ids.token}"}
    case.call_and_validate(headers=headers, checks=CHECKS)


def test_the_ids_name_real_objects(ids, db):
    """The fixture's objects are what the operations are called on (a guard against a test
    that silently fuzzes 404s)."""
    assert Game.objects.filter(pk=ids.game, group_id=ids.group).exists()
    assert ids.path_parameters("/api/stages/{id}/entrants/{code}/")["id"] == ids.open_stage
    assert ids.path_parameters("/api/stages/{id}/ranking/")["id"] == ids.stage
    assert ids.path_parameters("/api/games/{id}/reports/{report_id}/confirm/") == {
        "id": ids.game,
        "report_id": ids.report,
        "slug": ids.slug,
        "code": ids.entrant,
        "user_id": ids.organizer,
    }
