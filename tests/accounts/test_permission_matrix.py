"""Who may open what: every page and every API endpoint × every role, with the status each
one gets, and no answer that shows a contact address to someone who may not see it.

The table is the specification. Its routes are checked against the URLconf: a route added
without a row fails ``test_every_route_has_a_row`` — add one (or several: a row per method or
per interesting argument) with the expected status of each role.

Roles (tests/worlds/published.py): the public; ``player`` (an entry in group 1) and ``rival``
(an entry in group 2); ``other_td`` (TD of group 2) and ``td`` (TD of group 1); the
tournament's organizer; a staff user (an organizer of every tournament). Group-level rows
name group 1, its games and its players.

Writes are sent with bodies that change nothing (empty, invalid, or refused by the stage's
status), so the status says whether the role got past the permission check; every test runs
in a transaction that is rolled back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from apps.accounts.links import claim_token, invitation_token
from apps.accounts.services import invite
from apps.entrants.models import ImportJob
from apps.groups.models import Seat
from apps.office.models import LabRun
from apps.players.models import Registration
from apps.ratinglists.models import RatingList, RatingListImportJob
from apps.results.models import ResultImportJob, ResultReport
from apps.stages.models import Stage
from tests.conftest import tasks_in_process
from tests.worlds.published import PLAYERS_DOMAIN, ROLES, World, build_world

# ---------------------------------------------------------------------------
# Expected statuses
# ---------------------------------------------------------------------------


def statuses(default: int, **by_role: int) -> dict[str, int]:
    unknown = set(by_role) - set(ROLES)
    assert not unknown, unknown
    return {role: by_role.get(role, default) for role in ROLES}


EVERYONE = statuses(200)
NOT_FOUND = statuses(404)
# Pages: the public is sent to sign in; signed-in users without the role get 403.
SIGNED_IN_PAGE = statuses(200, anonymous=302)
ORGANIZER_PAGE = statuses(403, anonymous=302, organizer=200, staff=200)
RESULT_PAGE = statuses(403, anonymous=302, td=200, organizer=200, staff=200)
STAFF_PAGE = statuses(403, anonymous=302, staff=200)


def organizer_post_page(done: int = 302) -> dict[str, int]:
    return statuses(403, anonymous=302, organizer=done, staff=done)


def result_post_page(done: int = 302) -> dict[str, int]:
    return statuses(403, anonymous=302, td=done, organizer=done, staff=done)


# The API answers 403 (not_authenticated or permission_denied) to both.
def signed_in_api(done: int = 200) -> dict[str, int]:
    return statuses(done, anonymous=403)


def organizer_api(done: int = 200) -> dict[str, int]:
    return statuses(403, organizer=done, staff=done)


def result_api(done: int = 200) -> dict[str, int]:
    return statuses(403, td=done, organizer=done, staff=done)


# ---------------------------------------------------------------------------
# Route arguments, from the world
# ---------------------------------------------------------------------------


def tournament(w: World) -> dict:
    return {"slug": w.tournament.slug}


def stage(w: World) -> dict:
    return {"slug": w.tournament.slug, "order": w.stage.order}


def group(w: World) -> dict:
    return {**stage(w), "number": w.group.number}


def game(w: World) -> dict:
    return {**group(w), "game_number": w.player_game.number}


def job(w: World) -> dict:
    return {**stage(w), "job_id": w.stage.draw_jobs.first().pk}


def import_job(w: World) -> dict:
    return {**stage(w), "job_id": w.stage.import_jobs.first().pk}


def import_job_pk(w: World) -> dict:
    return {"pk": w.stage.import_jobs.first().pk}


def results_job(w: World, *, of_group: bool) -> ResultImportJob:
    return ResultImportJob.objects.get(stage=w.stage, group=w.group if of_group else None)


def group_results_job(w: World) -> dict:
    return {**group(w), "job_id": results_job(w, of_group=True).pk}


def stage_results_job(w: World) -> dict:
    return {**stage(w), "job_id": results_job(w, of_group=False).pk}


def group_results_job_pk(w: World) -> dict:
    return {"pk": results_job(w, of_group=True).pk}


def stage_pk(w: World) -> dict:
    return {"pk": w.stage.pk}


def group_pk(w: World) -> dict:
    return {"pk": w.group.pk}


def game_pk(w: World) -> dict:
    return {"pk": w.player_game.pk}


def lab_run(w: World) -> dict:
    return {**stage(w), "run_id": w.stage.lab_runs.first().pk}


def lab_apply(w: World) -> dict:
    return {**lab_run(w), "candidate": 1}


def lab_run_pk(w: World) -> dict:
    return {"pk": w.stage.lab_runs.first().pk}


def job_pk(w: World) -> dict:
    return {"pk": w.stage.draw_jobs.first().pk}


def tournament_slug(w: World) -> dict:
    return {"slug": w.tournament.slug}


def entrant(w: World) -> dict:
    return {**stage(w), "code": w.unclaimed.code}


def pk_entrant(w: World) -> dict:
    return {"pk": w.stage.pk, "code": w.unclaimed.code}


def invitation_link(w: World) -> dict:
    return {"token": invitation_token(w.invitation.pk)}


def claim_link(w: World) -> dict:
    return {"token": claim_token(w.unclaimed.pk, w.unclaimed.email)}


def player_user_id(w: World) -> dict:
    return {"user_id": w.users["player"].pk}


def game_report(status: str, page: bool = False) -> Callable[[World], dict]:
    """A report on the player's game by its opponent (an account made for it), with the
    given status: the player is the one who may answer it. The API's arguments, or the
    page's (``page``)."""

    def args(w: World) -> dict:
        game_ = w.player_game
        side = "black" if game_.white_id == w.player_entrant.pk else "white"
        reporter, _made = get_user_model().objects.get_or_create(username="matrix-opponent")
        report, _made = ResultReport.objects.get_or_create(
            game=game_, reporter=reporter, reporter_side=side, result="1/2-1/2", status=status
        )
        if page:
            return {**game(w), "report_id": report.pk}
        return {"pk": game_.pk, "report_id": report.pk}

    return args


def player_person(w: World) -> dict:
    return {"person_id": w.player_entrant.profile_id}


def rating_list(w: World) -> dict:
    return {"list_id": RatingList.objects.get(name="matrix list").pk}


def rating_list_pk(w: World) -> dict:
    return {"pk": RatingList.objects.get(name="matrix list").pk}


def rating_list_job(w: World) -> dict:
    return {"job_id": RatingListImportJob.objects.get(name="matrix list").pk}


def rating_list_job_pk(w: World) -> dict:
    return {"pk": RatingListImportJob.objects.get(name="matrix list").pk}


def player_registration(w: World) -> Registration:
    """A request of the player to enter the (published) stage, made for the table."""
    registration, _made = Registration.objects.get_or_create(
        stage=w.stage,
        user=w.users["player"],
        position=1,
        defaults={"name": "Matrix Player", "federation": "ITA", "email": w.users["player"].email},
    )
    return registration


def registration_page(w: World) -> dict:
    return {"registration_id": player_registration(w).pk}


def registration_pk(w: World) -> dict:
    return {"pk": player_registration(w).pk}


def nothing(w: World) -> dict:
    return {}


def played_game_pk(w: World) -> dict:
    """The player's game, played on this server (the stage made one played here; its games
    start, idempotently, inside the test's transaction)."""
    from apps.play.services import start_play

    Stage.objects.filter(pk=w.stage.pk).update(play_on_server=True)
    start_play(Stage.objects.get(pk=w.stage.pk))
    return {"pk": w.player_game.pk}


@dataclass(frozen=True)
class Row:
    route: str
    expect: dict[str, int]
    args: Callable[[World], dict] = nothing
    method: str = "get"
    data: dict | None = None
    query: str = ""
    api: bool = False  # send ``data`` as JSON
    name: str = ""  # tells rows of one route apart

    @property
    def id(self) -> str:
        return f"{self.method.upper()} {self.route}{' ' + self.name if self.name else ''}"


def api(route: str, expect: dict[str, int], args=nothing, method="get", data=None, **more):
    return Row(route, expect, args, method, data, api=True, **more)


ROWS: list[Row] = [
    # -- public pages ------------------------------------------------------------------
    Row("home", EVERYONE),
    Row("tournament", EVERYONE, tournament),
    Row("find-player", EVERYONE, tournament, query="q=a"),
    # A player's profile: public; its contacts only for the player, organizers and staff.
    Row("player-profile", EVERYONE, player_person),
    # The world's accounts have no person of their own (their entries were linked by hand).
    Row("player-profile-mine", statuses(404, anonymous=302)),
    Row("stage", EVERYONE, stage),
    Row("group", EVERYONE, group),
    Row("group-standings", EVERYONE, group),
    Row("group-crosstable", EVERYONE, group),
    Row("game", EVERYONE, game),
    # -- the players of a game: report, confirm, dispute (pages post and redirect back) -------
    Row("game-report", statuses(403, anonymous=302, player=302), game, "post", {"result": "1-0"}),
    Row(
        "game-report-confirm",
        statuses(403, anonymous=302, player=302),
        game_report("pending", page=True),
        "post",
    ),
    Row(
        "game-report-dispute",
        statuses(403, anonymous=302, player=302),
        game_report("pending", page=True),
        "post",
        {"reason": "matrix"},
    ),
    # -- the board of a game played on this server (apps/play): this world's stage is not
    # played here, so its board is found by no one, and its forms send the public to sign in
    # first (who may do what on a board: tests/play/test_board_page.py) ---------------------
    Row("game-play", NOT_FOUND, game),
    *(
        Row(f"game-play-{action}", statuses(404, anonymous=302), game, "post")
        for action in (
            "move",
            "draw-offer",
            "draw-accept",
            "draw-decline",
            "resign",
            "long-think",
            "claim",
            "conditionals",
            "conditionals-cancel",
            "add-days",
        )
    ),
    Row("group-standings-csv", EVERYONE, group),
    Row("group-crosstable-csv", EVERYONE, group),
    Row("group-trf", EVERYONE, group),
    Row("group-pairings-csv", EVERYONE, group),
    # a Silli group's games have no rounds: every role gets the same 404
    Row("group-round-pairings-csv", NOT_FOUND, lambda w: {**group(w), "round_number": 1}),
    # a Swiss group's round pages: a Silli group has none (tests/office/test_swiss_round_pages.py)
    Row("group-rounds", NOT_FOUND, group),
    Row("group-round", NOT_FOUND, lambda w: {**group(w), "round_number": 1}),
    Row("stage-ranking", EVERYONE, stage),
    Row("group-standings", organizer_post_page(), group, "post", name="recompute"),
    Row("group-crosstable", organizer_post_page(), group, "post", name="recompute"),
    Row("stage-ranking", organizer_post_page(), stage, "post", name="recompute"),
    Row("stage-ranking-csv", EVERYONE, stage),
    Row("stage-file", EVERYONE, lambda w: {**stage(w), "name": "entrants.csv"}, name="entrants"),
    Row("stage-file", EVERYONE, lambda w: {**stage(w), "name": "DRAW.json"}, name="draw"),
    Row("stage-qualification", EVERYONE, stage),
    Row("stage-qualification-csv", EVERYONE, stage),
    Row("group-rating-report", EVERYONE, group),
    Row("group-rating-report-csv", EVERYONE, group),
    Row("stage-rating-report", EVERYONE, stage),
    Row("stage-rating-report-csv", EVERYONE, stage),
    Row("set_language", statuses(302), method="post", data={"language": "en"}),
    # -- signing in and out, password reset, links --------------------------------------
    Row("login", EVERYONE),
    Row("login", EVERYONE, method="post", data={"username": "x", "password": "y"}, name="bad"),
    Row("logout", statuses(302), method="post"),
    Row("password_reset", EVERYONE),
    Row("password_reset", statuses(302), method="post", data={"email": "a@b.test"}, name="send"),
    Row("password_reset_done", EVERYONE),
    Row("password_reset_confirm", EVERYONE, lambda w: {"uidb64": "MQ", "token": "bad-token"}),
    Row("password_reset_complete", EVERYONE),
    Row("invitation", EVERYONE, invitation_link),
    Row("invitation", statuses(400), lambda w: {"token": "forged"}, name="forged"),
    Row("claim-request", EVERYONE),
    Row("claim-request", statuses(400), method="post", data={"email": "nope"}, name="bad"),
    Row("claim", EVERYONE, claim_link),
    Row("claim", statuses(400), lambda w: {"token": "forged"}, name="forged"),
    Row("claim-refuse", EVERYONE, claim_link),
    Row("claim-refuse", statuses(400), lambda w: {"token": "forged"}, name="forged"),
    # -- my games, my settings ---------------------------------------------------------------
    Row("me", SIGNED_IN_PAGE),
    Row("me-notifications", SIGNED_IN_PAGE),
    Row("me-notifications", statuses(302), method="post", data={}, name="save"),
    Row("me-token", SIGNED_IN_PAGE),
    Row("me-name", SIGNED_IN_PAGE),
    Row("me-td", SIGNED_IN_PAGE),
    Row("me-name", statuses(302), method="post", data={"display_name": "Matrix"}, name="save"),
    # -- organizers' pages ----------------------------------------------------------------
    Row("stage-manage", ORGANIZER_PAGE, stage),
    Row("draw-progress", ORGANIZER_PAGE, job),
    Row("stage-lab", ORGANIZER_PAGE, stage),
    # The world's stage is published: the lab shows its runs, and refuses new ones or applying.
    Row("stage-lab", organizer_post_page(400), stage, "post", {}, name="start"),
    Row("stage-lab-run", ORGANIZER_PAGE, lab_run),
    Row("stage-lab-apply", organizer_post_page(), lab_apply, "post"),
    Row("stage-import-job", ORGANIZER_PAGE, import_job),
    Row("stage-import-job-confirm", organizer_post_page(), import_job, "post"),
    Row("stage-entrants-csv", ORGANIZER_PAGE, stage),
    Row("tournament-invitations", ORGANIZER_PAGE, tournament),
    Row("tournament-invitations", organizer_post_page(400), tournament, "post", {}, name="bad"),
    Row("stage-close", organizer_post_page(), stage, "post"),
    Row("stage-reopen", organizer_post_page(), stage, "post"),
    Row("stage-draw", organizer_post_page(), stage, "post"),
    Row("stage-publish", organizer_post_page(), stage, "post"),
    Row("stage-next-round", organizer_post_page(), stage, "post"),
    Row("stage-late-entrant", organizer_post_page(400), stage, "post"),
    Row("publication-progress", ORGANIZER_PAGE, stage),
    Row("stage-import", organizer_post_page(400), stage, "post"),
    Row("stage-import-confirm", organizer_post_page(), stage, "post"),
    Row("group-td", organizer_post_page(), group, "post", {"username": "nobody-such"}),
    Row("stage-draw-cancel", organizer_post_page(), stage, "post"),
    Row("tournament-new", statuses(403, anonymous=302, staff=200)),
    Row(
        "tournament-new",
        statuses(403, anonymous=302, staff=400),
        method="post",
        data={},
        name="bad",
    ),
    Row("tournament-edit", ORGANIZER_PAGE, tournament),
    Row("tournament-edit", organizer_post_page(400), tournament, "post", {}, name="bad"),
    Row("stage-new", ORGANIZER_PAGE, tournament),
    Row("stage-new", organizer_post_page(400), tournament, "post", {}, name="bad"),
    Row("stage-edit", ORGANIZER_PAGE, stage),
    Row("stage-edit", organizer_post_page(400), stage, "post", {}, name="bad"),
    Row("stage-delete", organizer_post_page(), stage, "post"),
    Row("stage-entrants", ORGANIZER_PAGE, stage),
    Row("stage-entrants", organizer_post_page(400), stage, "post", {}, name="add"),
    Row("stage-entrant-edit", organizer_post_page(), entrant),
    Row("stage-entrant-edit", organizer_post_page(), entrant, "post", {}, name="save"),
    Row("stage-entrant-remove", organizer_post_page(), entrant, "post"),
    Row("stage-tds", ORGANIZER_PAGE, stage),
    Row("stage-tds", organizer_post_page(400), stage, "post", {}, name="bad"),
    Row("stage-tds-group", organizer_post_page(400), stage, "post", {}),
    # rating lists: staff and the organizers of any tournament
    Row("rating-lists", ORGANIZER_PAGE),
    Row("rating-lists", organizer_post_page(400), method="post", data={}, name="import"),
    Row("rating-list", ORGANIZER_PAGE, rating_list),
    Row("rating-list-job", ORGANIZER_PAGE, rating_list_job),
    Row("stage-rating-list", ORGANIZER_PAGE, stage),
    Row("stage-rating-list", organizer_post_page(400), stage, "post", {}, name="apply"),
    # -- staff's pages ----------------------------------------------------------------------
    Row("staff-organizers", STAFF_PAGE),
    Row(
        "staff-organizer",
        statuses(403, anonymous=302, staff=302),
        player_user_id,
        "post",
        {"right": "revoke"},
    ),
    Row("stage-finish", organizer_post_page(), stage, "post"),
    Row("stage-adjudication", organizer_post_page(), stage, "post"),
    Row("stage-qualification-rule", organizer_post_page(), stage, "post"),
    Row("stage-qualification-prequalify", organizer_post_page(), stage, "post"),
    Row("stage-qualification-decline", organizer_post_page(), stage, "post"),
    Row("stage-qualification-confirm", organizer_post_page(), stage, "post"),
    # -- the group's TD (and organizers) -------------------------------------------------------
    Row("group-results", RESULT_PAGE, group),
    Row("game-result", RESULT_PAGE, game),
    Row("game-result", result_post_page(400), game, "post", {"result": "bad"}, name="bad"),
    Row("group-withdraw", result_post_page(), group, "post"),
    Row("group-close", result_post_page(), group, "post"),
    Row("group-reopen", organizer_post_page(), group, "post", {"reason": "matrix"}),
    # Results files: the preview of no file is refused (400), a confirmation without one
    # goes back to the results page (the group's) or the dashboard (the stage's).
    Row("group-results-import", result_post_page(400), group, "post"),
    Row("group-results-import-confirm", result_post_page(), group, "post"),
    Row("stage-results-import", organizer_post_page(400), stage, "post"),
    Row("stage-results-import-confirm", organizer_post_page(), stage, "post"),
    Row("group-results-import-job", RESULT_PAGE, group_results_job),
    # A preview that failed cannot be confirmed: back to its page with the reason.
    Row("group-results-import-job-confirm", result_post_page(), group_results_job, "post"),
    Row("stage-results-import-job", ORGANIZER_PAGE, stage_results_job),
    Row("stage-results-import-job-confirm", organizer_post_page(), stage_results_job, "post"),
    # -- the API: public reads --------------------------------------------------------------
    api("schema", EVERYONE),
    api("api-docs", EVERYONE),
    api("api-redoc", EVERYONE),
    api("api-tournament-list", EVERYONE),
    api("api-tournament-detail", EVERYONE, tournament_slug),
    api("api-stage-list", EVERYONE),
    api("api-stage-detail", EVERYONE, stage_pk),
    api("api-group-list", EVERYONE),
    api("api-group-detail", EVERYONE, group_pk),
    api("api-group-games", EVERYONE, group_pk),
    api("api-group-standings", EVERYONE, group_pk),
    api("api-group-crosstable", EVERYONE, group_pk),
    api("api-group-round", NOT_FOUND, lambda w: {**group_pk(w), "round_number": 1}),
    api("api-stage-ranking", EVERYONE, stage_pk),
    api("api-stage-qualification", EVERYONE, stage_pk),
    api("api-group-rating-report", EVERYONE, group_pk),
    api("api-stage-rating-report", EVERYONE, stage_pk),
    api("api-group-norms", EVERYONE, group_pk),
    api("api-group-norms", EVERYONE, group_pk, query="level=IM", name="IM"),
    api("api-stage-rating-list", EVERYONE, stage_pk),
    api("api-players", EVERYONE, query="q=ka"),
    api("api-player-profile", EVERYONE, player_person),
    api("api-game", EVERYONE, game_pk),
    api("api-game-pgn", EVERYONE, game_pk),
    api("api-group-games-pgn", EVERYONE, group_pk),
    api("api-stage-games-pgn", EVERYONE, stage_pk),
    api("api-not-found", NOT_FOUND),
    # -- the API: accounts ------------------------------------------------------------------
    api("api-auth-token", statuses(400), method="post", data={"username": "org"}),
    api("api-auth-claim-links", statuses(400), method="post", data={"email": "nope"}),
    api("api-me", signed_in_api()),
    api("api-me-claims", signed_in_api(400), method="post", data={"token": "forged"}),
    api("api-me-notifications", signed_in_api()),
    api("api-me-notifications", signed_in_api(), method="patch", data={}, name="save"),
    api("api-invitations-accept", signed_in_api(400), method="post", data={"token": "x"}),
    api("api-tournament-invitations", organizer_api(), tournament_slug),
    api("api-tournament-invitations", organizer_api(400), tournament_slug, "post", {}, name="bad"),
    api("api-tournament-entrant-links", organizer_api(400), tournament_slug, "post", {}),
    api("api-tournament-claim-links", organizer_api(400), tournament_slug, "post", {}),
    api("api-stage-tds", organizer_api(), stage_pk),
    api("api-stage-tds", organizer_api(400), stage_pk, "post", {}, name="bad"),
    # -- the API: staff -----------------------------------------------------------------------
    api("api-organizers", statuses(403, staff=200)),
    api("api-organizer", statuses(403, staff=200), player_user_id),
    api("api-organizer", statuses(403, staff=200), player_user_id, "put", name="grant"),
    api("api-organizer", statuses(403, staff=200), player_user_id, "delete", name="revoke"),
    # -- the API: organizers ----------------------------------------------------------------
    api("api-stage-entrants", organizer_api(), stage_pk),
    api("api-stage-entrants-csv", organizer_api(), stage_pk),
    api("api-stage-entrants-import", organizer_api(400), stage_pk, "post", {}),
    api("api-stage-close-registration", organizer_api(409), stage_pk, "post"),
    api("api-stage-reopen-registration", organizer_api(409), stage_pk, "post"),
    api("api-stage-draw", organizer_api(400), stage_pk, "post", {}),
    api("api-stage-draw-cancel", organizer_api(409), stage_pk, "post"),
    api("api-stage-recompute", organizer_api(202), stage_pk, "post"),
    api("api-tournament-list", statuses(403, staff=400), method="post", data={}, name="create"),
    api("api-tournament-detail", organizer_api(), tournament_slug, "patch", {}, name="change"),
    api("api-tournament-stages", organizer_api(400), tournament_slug, "post", {"kind": "bogus"}),
    api("api-stage-detail", organizer_api(), stage_pk, "patch", {}, name="change"),
    api("api-stage-detail", organizer_api(409), stage_pk, "delete", name="delete"),
    api("api-stage-entrants", organizer_api(400), stage_pk, "post", {}, name="add"),
    api("api-stage-entrant", organizer_api(409), pk_entrant, "patch", {}),
    api("api-stage-entrant", organizer_api(409), pk_entrant, "delete", name="remove"),
    api("api-stage-publish", organizer_api(409), stage_pk, "post"),
    api("api-stage-next-round", organizer_api(409), stage_pk),
    api("api-stage-next-round", organizer_api(409), stage_pk, "post", name="pair"),
    api("api-stage-late-entrants", organizer_api(400), stage_pk, "post", {}),
    api("api-stage-publication", organizer_api(), stage_pk),
    api("api-draw-job", organizer_api(), job_pk),
    api("api-stage-lab-runs", organizer_api(400), stage_pk, "post", {}),
    api("api-lab-run", organizer_api(), lab_run_pk),
    api("api-import-job", organizer_api(), import_job_pk),
    api("api-group-td", organizer_api(400), group_pk, "post", {}),
    api("api-stage-close", organizer_api(409), stage_pk, "post"),
    api("api-stage-adjudication", organizer_api(), stage_pk, "post"),
    api("api-stage-qualification-rule", organizer_api(400), stage_pk, "post", {}),
    api("api-stage-qualification-prequalified", organizer_api(400), stage_pk, "post", {}),
    api("api-stage-qualification-declined", organizer_api(400), stage_pk, "post", {}),
    api("api-stage-qualification-confirm", organizer_api(409), stage_pk, "post"),
    api("api-stage-rating-list", organizer_api(400), stage_pk, "post", {}, name="apply"),
    # rating lists: staff and the organizers of any tournament
    api("api-rating-lists", organizer_api()),
    api("api-rating-lists", organizer_api(400), method="post", data={}, name="import"),
    api("api-rating-list", organizer_api(), rating_list_pk),
    api("api-rating-list-job", organizer_api(), rating_list_job_pk),
    # -- the API: the group's TD (and organizers) ---------------------------------------------
    api("api-game-result", result_api(400), game_pk, "post", {}),
    # -- the API: play on the server (the player's game; the public sees it once finished) -----
    api(
        "api-game-play",
        statuses(403, player=200, td=200, organizer=200, staff=200),
        played_game_pk,
    ),
    api("api-game-moves", statuses(403, player=400), played_game_pk, "post", {}),
    # before the stage's earliest move for a draw (25), and with no offer standing: 409
    api("api-game-draw-offer", statuses(403, player=409), played_game_pk, "post"),
    api("api-game-draw-accept", statuses(403, player=409), played_game_pk, "post"),
    api("api-game-draw-decline", statuses(403, player=409), played_game_pk, "post"),
    api("api-game-resign", statuses(403, player=200), played_game_pk, "post"),
    api("api-game-long-think", statuses(403, player=200), played_game_pk, "post"),
    api("api-game-claim", statuses(403, player=400), played_game_pk, "post", {}),
    api("api-game-conditionals", statuses(403, player=200), played_game_pk),
    api(
        "api-game-conditionals",
        statuses(403, player=400),
        played_game_pk,
        "post",
        {},
        name="set",
    ),
    api(
        "api-game-conditionals",
        statuses(403, player=200),
        played_game_pk,
        "delete",
        name="cancel",
    ),
    api("api-game-add-days", result_api(400), played_game_pk, "post", {}),
    # -- the API: the two players of a game (the player's opponent reported) -------------------
    api("api-game-reports", statuses(403, player=200, td=200, organizer=200, staff=200), game_pk),
    api("api-game-reports", statuses(403, player=400), game_pk, "post", {}, name="report"),
    # A disputed report: its opponent (the player) gets past the check, to 409.
    api("api-game-report-confirm", statuses(403, player=409), game_report("disputed"), "post"),
    api("api-game-report-dispute", statuses(403, player=400), game_report("pending"), "post", {}),
    # Withdrawals name the entrant in the body: any TD of the stage gets past the first check,
    # and the action itself refuses a TD of another group (tests/results/test_api.py).
    api(
        "api-stage-withdrawals",
        statuses(403, other_td=400, td=400, organizer=400, staff=400),
        stage_pk,
        "post",
        {},
    ),
    api("api-group-close", result_api(409), group_pk, "post"),
    # Reopening a closed group is for organizers only (the TD asks them).
    api("api-group-reopen", organizer_api(409), group_pk, "post", {"reason": "matrix"}),
    api("api-group-results-import", result_api(400), group_pk, "post", {}),
    api("api-stage-results-import", organizer_api(400), stage_pk, "post", {}),
    api("api-results-import-job", result_api(), group_results_job_pk),
    # -- registration by players (the world's stage is published: it takes no requests) ------
    Row("stage-register", statuses(404, anonymous=302), stage),
    Row("stage-register", statuses(404, anonymous=302), stage, "post", {}, name="register"),
    Row("stage-registrations", ORGANIZER_PAGE, stage),
    Row("stage-registrations", organizer_post_page(400), stage, "post", {}, name="decide"),
    Row("my-registrations", SIGNED_IN_PAGE),
    # Another's request does not exist for them; the player's is refused (published): back.
    Row(
        "registration-withdraw", statuses(404, anonymous=302, player=302), registration_page, "post"
    ),
    api("api-stage-registrations", signed_in_api(), stage_pk),
    api(
        "api-stage-registrations",
        signed_in_api(409),
        stage_pk,
        "post",
        {"name": "Matrix", "federation": "ITA", "email": "m@matrix.invalid"},
        name="register",
    ),
    api("api-stage-registrations-decide", organizer_api(400), stage_pk, "post", {}),
    api(
        "api-registration-withdraw",
        statuses(404, anonymous=403, player=409),
        registration_pk,
        "post",
    ),
    # -- a player's leave from games played here (apps/play/leave*.py) -------------------------
    # The page's forms post and go back to "My games" (a refusal is shown there).
    Row("me-leave", statuses(302), method="post", data={}),
    Row("me-leave-cancel", statuses(302), lambda w: {"leave_id": 999_999}, "post"),
    api("api-me-leave", signed_in_api()),
    api("api-me-leave", signed_in_api(400), method="post", data={}, name="take"),
    api("api-me-leave-item", signed_in_api(404), lambda w: {"pk": 999_999}, "delete"),
    # -- Django's admin (one row: its own permission checks) ------------------------------------
    Row("admin:index", statuses(302, staff=200)),
]

# ---------------------------------------------------------------------------
# The routes of the URLconf
# ---------------------------------------------------------------------------


def named_routes() -> set[str]:
    """Every route's name (``admin:`` routes are Django's own: only its index is listed)."""
    names: set[str] = set()
    unnamed: list[str] = []

    def walk(patterns, prefix: str = "") -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                if pattern.namespace == "admin":
                    names.add("admin:index")
                    continue
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                if pattern.name:
                    names.add(pattern.name)
                else:
                    unnamed.append(prefix + str(pattern.pattern))

    walk(get_resolver().url_patterns)
    assert not unnamed, f"routes without a name cannot be listed here: {unnamed}"
    return names


def test_every_route_has_a_row():
    routes = named_routes()
    rows = {row.route for row in ROWS}
    assert routes - rows == set(), "routes without a row in ROWS (add one)"
    assert rows - routes == set(), "rows for routes that no longer exist"


# ---------------------------------------------------------------------------
# The requests
# ---------------------------------------------------------------------------

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+\.test\b")


@pytest.fixture(scope="module")
def matrix_world(django_db_setup, django_db_blocker):
    """One world for the whole table, made outside the tests' transactions (each test's own
    changes are rolled back), removed at the end."""
    # Module-scoped: made before the per-test fixture that runs tasks in this process.
    with django_db_blocker.unblock(), tasks_in_process():
        world = build_world(None, slug="matrix-cup")
        org = world.users["organizer"]
        world.invitation = invite(
            org, world.tournament, email="new-org@people.test", role="organizer"
        )
        world.unclaimed = Seat.objects.get(group=world.group, number=2).entrant
        ImportJob.objects.create(stage=world.stage, dry_run=True)
        for of_group in (world.group, None):  # finished (failed) previews: no job runs
            ResultImportJob.objects.create(
                stage=world.stage,
                group=of_group,
                file_format="csv",
                dry_run=True,
                status=ResultImportJob.Status.FAILED,
                error="matrix",
            )
        RatingList.objects.create(name="matrix list", list_date="2026-10-01")
        RatingListImportJob.objects.create(
            name="matrix list",
            list_date="2026-10-01",
            status=RatingListImportJob.Status.FAILED,
            error="matrix",
        )
        LabRun.objects.create(
            stage=world.stage,
            seed="matrix",
            tournaments=10,
            candidates=[{"format": "round_robin", "group_size": 12}] * 2,
        )
        yield world
        call_command("flush", interactive=False, verbosity=0)


def allowed_addresses(w: World, role: str) -> set[str] | None:
    """The addresses ``role`` may see anywhere (None: every address)."""
    users = w.users
    if role in ("organizer", "staff"):
        return None
    if role == "anonymous":
        return set()
    own = {users[role].email}
    if role == "player":
        mine = w.player_entrant
        return own | {mine.email, users["td"].email} | w.opponents_emails(mine)
    if role == "rival":
        mine = w.rival_entrant
        return own | {mine.email, users["other_td"].email} | w.opponents_emails(mine)
    if role == "td":
        return own | w.emails(w.group)
    if role == "other_td":
        return own | w.emails(w.other_group)
    raise AssertionError(role)


def request(client, row: Row, w: World):
    url = reverse(row.route, kwargs=row.args(w) or None)
    if row.query:
        url += "?" + row.query
    send = getattr(client, row.method)
    if row.api and row.method != "get":
        return send(url, row.data or {}, content_type="application/json")
    if row.method == "get":
        return send(url)
    return send(url, row.data or {})


@pytest.mark.django_db
@pytest.mark.parametrize("row", ROWS, ids=lambda row: row.id)
def test_each_role_gets_the_expected_status_and_no_foreign_contact(client, matrix_world, row):
    w = matrix_world
    wrong, leaks = {}, {}
    for role in ROLES:
        client.logout()
        if w.users[role] is not None:
            client.force_login(w.users[role])
        answer = request(client, row, w)
        if answer.status_code != row.expect[role]:
            wrong[role] = (row.expect[role], answer.status_code)
        allowed = allowed_addresses(w, role)
        if allowed is not None and not answer.get("Content-Type", "").startswith("image/"):
            body = b"".join(answer.streaming_content) if answer.streaming else answer.content
            shown = set(ADDRESS.findall(body.decode("utf-8", "replace")))
            if shown - allowed:
                leaks[role] = sorted(shown - allowed)
    assert not wrong, f"{row.id}: role -> (expected, got): {wrong}"
    assert not leaks, f"{row.id} shows addresses a role may not see: {leaks}"


@pytest.mark.django_db
def test_the_world_has_contacts_to_leak(matrix_world):
    """The leak check means something: every entrant has an address in the checked form."""
    w = matrix_world
    addresses = w.emails(w.group) | w.emails(w.other_group)
    assert len(addresses) == 24
    assert all(a.endswith("@" + PLAYERS_DOMAIN) and ADDRESS.fullmatch(a) for a in addresses)
    assert all(ADDRESS.fullmatch(u.email) for u in get_user_model().objects.all())
