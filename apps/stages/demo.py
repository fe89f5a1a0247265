"""The demo data ``make run`` creates on an empty database."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from apps.entrants.services import import_entrants
from apps.results.simulate import simulate_results
from apps.silli.entrants import entrants_csv
from apps.silli.synth import make_entrants

from .models import DrawJob, Tournament
from .services import close_registration, create_tournament, publish_draw, start_draw

DEMO_USER = "organizer"
DEMO_PASSWORD = "closed-circle"
DEMO_SEED = "Lotto 2026-11-21 Bari 17 42 5 88 61"


def demo_user():
    """The demo organizer (also staff, so the admin opens for it)."""
    user, created = get_user_model().objects.get_or_create(
        username=DEMO_USER, defaults={"email": "organizer@example.org", "is_staff": True}
    )
    if created:
        user.set_password(DEMO_PASSWORD)
        user.save()
    return user


def create_demo_cup(log=print) -> Tournament:
    """Demo Cup: 3,099 entrants, 10 games, groups of at least 100, preliminary published."""
    user = demo_user()
    cup = create_tournament(
        user,
        name="Demo Cup",
        slug="demo-cup",
        games_per_player=10,
        stages=[{"kind": "preliminary", "min_group_size": 100}],
    )
    stage = cup.first_stage
    log("Demo Cup: importing 3,099 entrants …")
    import_entrants(user, stage, entrants_csv(make_entrants(3099, "demo-cup")))
    close_registration(user, stage)
    log(f"Demo Cup: drawing the preliminary with seed {DEMO_SEED!r} …")
    job = start_draw(user, stage, DEMO_SEED)
    job.refresh_from_db()
    if job.status != DrawJob.Status.SUCCEEDED:
        raise RuntimeError(f"the demo draw did not finish: {job.status} {job.error}")
    publish_draw(user, stage)
    log(f"Demo Cup: published, {stage.groups.count()} groups; simulating results …")
    results = simulate_results(user, stage, share=0.6, seed="demo-cup")
    log(f"Demo Cup: {results} results entered, standings computed.")
    return cup
