"""A player's profile in a real browser: from the group page a name leads to the profile
(public: no contacts); the player, signed in, reaches their own from ``/players/me/`` with
their rating report line, the norm figures and their contacts. Screenshots at 1280 and
360 px, nothing wider than the screen."""

import pytest
from django.db.models import Q

from apps.entrants.models import Entrant
from apps.entrants.services import link_tournament_people
from apps.groups.models import Game
from apps.results.services import enter_result
from tests.e2e.conftest import shoot, sign_in
from tests.worlds.published import build_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-profile-123"
SHOT = "/tmp/closed-circle-{page}-{width}.png"  # looked at by people, not compared


@pytest.fixture
def world(transactional_db):
    """Everyone rated 2200; the player won their first game and drew the second."""
    world = build_world(None, password=PASSWORD, slug="profile-cup")
    link_tournament_people(world.tournament, actor=None)
    Entrant.objects.filter(tournament=world.tournament).update(rating=2200)
    mine = Q(white=world.player_entrant) | Q(black=world.player_entrant)
    first, second = Game.objects.filter(mine, group=world.group).order_by("number")[:2]
    organizer = world.users["organizer"]
    won = "1-0" if first.white_id == world.player_entrant.pk else "0-1"
    enter_result(organizer, first, won, expected_version=0)
    enter_result(organizer, second, "1/2-1/2", expected_version=0)
    world.player_entrant.refresh_from_db()
    return world


def test_a_name_leads_to_the_profile_and_the_player_sees_their_own(live_server, browser, world):
    from playwright.sync_api import expect

    base = live_server.url
    page = browser.new_page()
    cup = world.tournament
    page.goto(f"{base}/t/{cup.slug}/s/1/g/{world.group.number}/")
    page.locator("a.profile-link", has_text=world.player_entrant.name).first.click()
    expect(page.get_by_role("heading", level=1)).to_contain_text(world.player_entrant.name)
    expect(page.locator("#contacts")).to_have_count(0)
    # 2 rated games, 1½ of an expected 1.0, K 20: +10.0.
    expect(page.locator(".rating-change").first).to_have_text("+10.0")
    shoot(page, SHOT, "profile-public")

    sign_in(page, base, world.users["player"].username, PASSWORD)
    page.goto(f"{base}/players/me/")
    expect(page.locator("#contacts")).to_contain_text(world.player_entrant.email)
    expect(page.locator(".norms").first).to_contain_text("2 rated games, at least 8 needed")
    expect(page.locator("main")).to_contain_text(
        "unofficial unless the event is a registered title tournament"
    )
    shoot(page, SHOT, "profile-own")
