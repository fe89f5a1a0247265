"""Registration by players in a real browser: a player registers from the tournament's
page, is put on the reserve list because the field is full, moves up when another player
withdraws on "My registrations", and is approved; the organizer approves two requests and
rejects two in bulk with a reason on the requests page. Screenshots of the requests page
and of "My registrations" at 1280 and 360 px (nothing wider than the screen)."""

import pytest

from apps.entrants.models import Entrant
from apps.players.models import Registration
from apps.players.registrations import register
from apps.stages.services import create_tournament, update_stage
from tests.e2e.conftest import say_yes, shoot, sign_in
from tests.worlds.published import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "pw-register-123"
SHOT = "/tmp/closed-circle-{page}-{width}.png"  # looked at by people, not compared


def details(n: int) -> dict:
    return {
        "name": f"Player {n}",
        "federation": "ITA",
        "rating_list_id": f"{200000 + n}",
        "rating": 1950 + n,
        "email": f"p{n}@people.test",
    }


def test_reserve_move_up_approval_and_bulk_decisions(live_server, browser):
    from playwright.sync_api import expect

    base = live_server.url
    organizer = make_user("organizer", PASSWORD, is_staff=True)
    cup = create_tournament(organizer, name="Open Cup", slug="open-cup")
    update_stage(
        organizer,
        cup.first_stage,
        open_registration=True,
        rating_min=1900,
        rating_max=2099,
        rating_list="ICCF list 2026/4",
        federations_allowed="ITA,SMR",
        max_field=2,
    )
    stage = cup.first_stage
    stage.refresh_from_db()
    first, second = make_user("first", PASSWORD), make_user("second", PASSWORD)
    make_user("carla", PASSWORD)
    register(stage, actor=first, **details(1))
    register(stage, actor=second, **details(2))

    # Carla: from the tournament's page to the form; refused outside the band, then the
    # field is full and she is put on the reserve list.
    carla = browser.new_context().new_page()
    sign_in(carla, base, "carla", PASSWORD)
    carla.goto(f"{base}/t/open-cup/")
    carla.get_by_role("link", name="Register").click()
    expect(carla.locator("#registration-rules")).to_contain_text("ICCF list 2026/4")
    carla.get_by_label("Name", exact=True).fill("Carla Rossi")
    carla.get_by_label("Federation").fill("ITA")
    carla.get_by_label("ID on the rating list").fill("300003")
    carla.get_by_label("Rating", exact=True).fill("2150")
    carla.get_by_label("Contact e-mail").fill("carla@people.test")
    carla.get_by_role("button", name="Register").click()
    expect(carla.locator(".field-error")).to_contain_text("rated above 2099")
    carla.get_by_label("Rating", exact=True).fill("2050")
    carla.get_by_role("button", name="Register").click()
    expect(carla.locator(".messages")).to_contain_text("you are on the reserve list")
    row = carla.locator("#my-registrations tbody tr").first
    expect(row).to_contain_text("on the reserve list")
    expect(row).to_contain_text("place 1 on the reserve list")
    shoot(carla, SHOT, "my-registrations")

    # The first player withdraws: Carla moves up.
    player = browser.new_context().new_page()
    sign_in(player, base, "first", PASSWORD)
    player.goto(f"{base}/me/registrations/")
    player.get_by_role("button", name="Withdraw").click()
    say_yes(player)
    expect(player.locator(".messages")).to_contain_text("Your registration is withdrawn.")
    carla.reload()
    expect(carla.locator("#my-registrations tbody tr").first).to_contain_text(
        "waiting for approval"
    )

    # Two more ask; the field (2) is full again once Carla and the second are in.
    for n in (4, 5):
        register(stage, actor=make_user(f"p{n}", PASSWORD), **details(n))

    # The organizer approves Carla and the second player together, then rejects the two
    # reserves together with a reason.
    org = browser.new_context().new_page()
    sign_in(org, base, "organizer", PASSWORD)
    org.goto(f"{base}/t/open-cup/s/1/registrations/")
    expect(org.locator("#requests")).to_contain_text("Federation ITA is among those allowed")
    shoot(org, SHOT, "registration-requests")
    org.get_by_label("Choose Player 2").check()
    org.get_by_label("Choose Carla Rossi").check()
    org.get_by_label("Approve").check()
    org.get_by_role("button", name="Apply").click()
    expect(org.locator(".messages")).to_contain_text("2 requests approved")
    org.get_by_label("Choose Player 4").check()
    org.get_by_label("Choose Player 5").check()
    org.get_by_label("Reject").check()
    org.get_by_label("Reason", exact=True).fill("The field is full")
    org.get_by_role("button", name="Apply").click()
    expect(org.locator(".messages")).to_contain_text("2 requests rejected")
    org.set_viewport_size({"width": 360, "height": 800})
    shoot(org, SHOT, "registration-requests-decided")

    carla.reload()
    expect(carla.locator("#my-registrations tbody tr").first).to_contain_text("approved")
    statuses = dict(Registration.objects.values_list("name", "status"))
    assert statuses == {
        "Player 1": "withdrawn",
        "Player 2": "approved",
        "Carla Rossi": "approved",
        "Player 4": "rejected",
        "Player 5": "rejected",
    }
    carla_entrant = Entrant.objects.get(name="Carla Rossi")
    assert (carla_entrant.user.username, carla_entrant.person) == ("carla", "300003")
