"""The office's demo tournaments (Demo Cup, Demo Masters, Demo Open 2027): entrants imported,
drawn, published and played with simulated results. ``apps/demo`` makes them, with the demo's
players on the site, when ``make run`` finds an empty database."""

from __future__ import annotations

import dataclasses

from django.contrib.auth import get_user_model

from apps.core.permissions import Actor
from apps.core.services import set_display_name
from apps.entrants.services import close_registration, import_entrants
from apps.qualification.services import confirm, decline_extra_entries, set_rule
from apps.results.closing import close_stage
from apps.results.simulate import simulate_results
from apps.silli.entrants import Entrant, entrants_csv
from apps.silli.synth import make_entrants
from apps.stages.models import DrawJob, Stage, Tournament
from apps.stages.services import create_tournament

from .services import publish_draw, start_draw

DEMO_USER = "organizer"
DEMO_PASSWORD = "closed-circle"
DEMO_SEED = "Lotto 2026-11-21 Bari 17 42 5 88 61"


def demo_entrants(count: int, seed: str, prefix: str) -> list[Entrant]:
    """Invented entrants whose person IDs (P000001 …) are the tournament's own: the same
    number in two demo tournaments is not one player (apps/entrants/people.py)."""
    return [
        dataclasses.replace(e, person=f"{prefix}-{e.person}") for e in make_entrants(count, seed)
    ]


def demo_user():
    """The demo organizer (also staff, so the admin opens for it)."""
    user, created = get_user_model().objects.get_or_create(
        username=DEMO_USER, defaults={"email": "organizer@example.org", "is_staff": True}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
        set_display_name(user, "Demo Organizer")
    return user


def drawn(user: Actor, stage: Stage, seed: str) -> Stage:
    """Draw the stage (registration closed already) and publish it."""
    job = start_draw(user, stage, seed)
    job.refresh_from_db()
    if job.status != DrawJob.Status.SUCCEEDED:
        raise RuntimeError(f"the demo draw did not finish: {job.status} {job.error}")
    publish_draw(user, stage)
    stage.refresh_from_db()
    return stage


def _played_to_the_end(user: Actor, stage: Stage, rule: str, value: int, relative: bool) -> Stage:
    """Finish every game (with a few withdrawals), close the stage and confirm its
    qualifiers; returns the next stage, ready to draw."""
    simulate_results(user, stage, share=1.0, seed=f"demo {stage.tournament.slug} {stage.order}")
    stage = set_rule(user, stage, rule=rule, value=value, relative=relative)
    stage = close_stage(user, stage)
    # One person's entries sit in different groups: where the next stage has too few
    # groups for a person's places, the lower entries decline and reserves move up.
    decline_extra_entries(user, stage, "one entry per person in a stage with too few groups")
    return confirm(user, stage)


def create_demo_cup(log=print) -> Tournament:
    """Demo Cup, as the 4th ICCF Cup in Silli's paper: 3,099 entrants, 10 games, groups of at
    least 100. The preliminary is closed (top 20 % of each group qualified), the semifinal
    (630 in 6 groups of 105) is in play, the final waits for its qualifiers."""
    user = demo_user()
    cup = create_tournament(
        user,
        name="Demo Cup",
        slug="demo-cup",
        games_per_player=10,
        stages=[
            {"kind": Stage.Kind.PRELIMINARY, "min_group_size": 100},
            {"kind": Stage.Kind.SEMIFINAL, "min_group_size": 100},
            {"kind": Stage.Kind.FINAL, "min_group_size": 100, "separate_nations": False},
        ],
    )
    preliminary, semifinal, final = cup.stages.order_by("order")
    log("Demo Cup: importing 3,099 entrants …")
    import_entrants(user, preliminary, entrants_csv(demo_entrants(3099, "demo-cup", "CUP")))
    close_registration(user, preliminary)
    log(f"Demo Cup: drawing the preliminary with seed {DEMO_SEED!r} …")
    preliminary = drawn(user, preliminary, DEMO_SEED)
    log(f"Demo Cup: {preliminary.groups.count()} groups published; playing them to the end …")
    semifinal = _played_to_the_end(user, preliminary, "top_per_group", 20, relative=True)
    log(f"Demo Cup: {semifinal.entries.count()} qualified; drawing the semifinal …")
    semifinal = drawn(user, semifinal, f"{DEMO_SEED} semifinal")
    results = simulate_results(user, semifinal, share=0.4, withdrawals=0.002, seed="demo-cup 2")
    set_rule(user, semifinal, rule="top_per_group", value=15, relative=True)
    log(f"Demo Cup: semifinal in play, {results} results so far.")
    return cup


def create_demo_masters(log=print) -> Tournament:
    """Demo Masters: 315 entrants in 3 Silli groups, the top 11 overall to a round-robin
    final of 11, drawn and published with its first results."""
    user = demo_user()
    cup = create_tournament(
        user,
        name="Demo Masters",
        slug="demo-masters",
        games_per_player=10,
        tiebreak=Tournament.TieBreak.BUCHHOLZ,
        ranking=Tournament.Ranking.UNIFIED,
        stages=[
            {"kind": Stage.Kind.PRELIMINARY, "min_group_size": 100},
            {
                "kind": Stage.Kind.FINAL,
                "format": Stage.Format.ROUND_ROBIN,
                "min_group_size": 11,
                "separate_nations": False,
            },
        ],
    )
    preliminary = cup.first_stage
    assert preliminary is not None  # create_tournament made the stages above
    log("Demo Masters: 315 entrants, preliminary …")
    import_entrants(user, preliminary, entrants_csv(demo_entrants(315, "demo-masters", "MASTERS")))
    close_registration(user, preliminary)
    preliminary = drawn(user, preliminary, f"{DEMO_SEED} masters")
    final = _played_to_the_end(user, preliminary, "top_overall", 11, relative=False)
    final = drawn(user, final, f"{DEMO_SEED} masters final")
    simulate_results(user, final, share=0.2, withdrawals=0, seed="demo-masters final")
    log("Demo Masters: preliminary closed, round-robin final of 11 drawn and in play.")
    return cup


def create_demo_open(log=print) -> Tournament:
    """Demo Open 2027: registration open, 240 entrants imported so far."""
    user = demo_user()
    cup = create_tournament(user, name="Demo Open 2027", slug="demo-open-2027")
    stage = cup.first_stage
    assert stage is not None  # a new tournament has its preliminary
    import_entrants(user, stage, entrants_csv(demo_entrants(240, "demo-open", "OPEN")))
    log("Demo Open 2027: registration open, 240 entrants.")
    return cup
