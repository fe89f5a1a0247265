"""People have names: the name an account shows others is its display name, else its full
name, else a neutral label — never its login name, on no public page and in no API answer."""

import json
import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.exceptions import ValidationError

from apps.accounts.services import invite
from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent, Profile
from apps.core.people import clean_display_name, display_name, td_name
from apps.core.services import set_display_name
from apps.groups.models import Seat
from apps.results.services import enter_result
from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)
from tests.worlds.published import entrant_address

pytestmark = pytest.mark.django_db

LINK = re.compile(r"https?://[^/\s]+(/accounts/(?:invitation|claim)/[^/\s]+/)")


def _name(user, name: str) -> None:
    Profile.objects.update_or_create(user=user, defaults={"display_name": name})
    user.refresh_from_db()


# ---------------------------------------------------------------------------
# The rule
# ---------------------------------------------------------------------------


def test_the_display_name_then_the_full_name_then_a_neutral_label():
    users = get_user_model().objects
    ann = users.create_user("ann-login", "ann@people.test")
    assert display_name(ann) == f"Account {ann.pk}"
    assert td_name(ann) == f"TD {ann.pk}"
    ann.first_name, ann.last_name = "Ann", "Smith"
    ann.save()
    assert display_name(ann) == "Ann Smith"
    _name(ann, "  Ann S. (ITA)  ")
    assert display_name(ann) == td_name(ann) == "Ann S. (ITA)"
    boss = users.create_user("boss-login", is_staff=True)
    assert display_name(boss) == f"Organizer {boss.pk}"
    assert display_name(None) == ""
    for user in (ann, boss):
        assert user.get_username() not in display_name(user)


@pytest.mark.parametrize(
    "bad", ["tab\there", "two\nlines", "bell\x07", "nul\x00", "del\x7f", "rtl\u202eevil", "x" * 101]
)
def test_a_name_has_no_control_characters_and_at_most_100_characters(bad):
    with pytest.raises(ValidationError):
        clean_display_name(bad)
    user = get_user_model().objects.create_user("someone")
    with pytest.raises(ActionError) as refused:
        set_display_name(user, bad)
    assert refused.value.code == "invalid_input"
    assert not Profile.objects.filter(user=user).exists()
    assert clean_display_name(" Zoë Ünal–Øster 日本 ") == "Zoë Ünal–Øster 日本"
    assert clean_display_name("x" * 100) == "x" * 100


def test_setting_ones_name_is_audited_once_per_change():
    user = get_user_model().objects.create_user("someone")
    set_display_name(user, "Sam One")
    set_display_name(user, "Sam One")
    set_display_name(user, "")
    events = AuditEvent.objects.filter(action=Action.ACCOUNT_NAME_CHANGED, actor=user)
    assert [(e.data["old"], e.data["new"]) for e in events.order_by("id")] == [
        ("", "Sam One"),
        ("Sam One", ""),
    ]
    assert display_name(user) == f"Account {user.pk}"


# ---------------------------------------------------------------------------
# Public pages and API answers
# ---------------------------------------------------------------------------


def _public_texts(world, web, api) -> dict[str, str]:
    slug, group = world.tournament.slug, world.group
    client = web(None)
    return {
        "group page": client.get(f"/t/{slug}/s/1/g/1/").text,
        "group api": api().get(f"/api/groups/{group.pk}/").content.decode(),
        "groups api": api().get(f"/api/groups/?stage={world.stage.pk}").content.decode(),
        "game api": api().get(f"/api/games/{world.player_game.pk}/").content.decode(),
        "stage page": client.get(f"/t/{slug}/s/1/").text,
        "player's games": web(world.users["player"]).get("/me/").text,
        "player's api": api(world.users["player"]).get("/api/me/").content.decode(),
    }


def test_public_pages_and_answers_show_display_names_never_login_names(world, web, api):
    td, org = world.users["td"], world.users["organizer"]
    get_user_model().objects.filter(pk=td.pk).update(username="tina-login-xyz")
    get_user_model().objects.filter(pk=org.pk).update(username="olga-login-xyz")
    td.refresh_from_db()
    org.refresh_from_db()
    _name(td, "Tina Director")
    enter_result(td, world.player_game, "1-0", expected_version=world.player_game.version)
    texts = _public_texts(world, web, api)
    assert "Tina Director" in texts["group page"]
    assert json.loads(texts["group api"])["td"] == {"id": td.pk, "name": "Tina Director"}
    assert "Tina Director" in texts["groups api"]
    [change] = json.loads(texts["game api"])["history"]
    assert change["actor"] == "Tina Director"
    assert "Tina Director" in texts["player's games"]
    assert "Tina Director" in texts["player's api"]
    for where, text in texts.items():
        assert "tina-login-xyz" not in text, where
        assert "olga-login-xyz" not in text, where


def test_a_td_without_a_name_is_shown_by_a_neutral_label(world, web, api):
    td = world.users["td"]
    get_user_model().objects.filter(pk=td.pk).update(username="tina-login-xyz")
    page = web(None).get(f"/t/{world.tournament.slug}/s/1/g/1/").text
    assert f"TD {td.pk}" in page and "tina-login-xyz" not in page
    assert api().get(f"/api/groups/{world.group.pk}/").json()["td"] == {
        "id": td.pk,
        "name": f"TD {td.pk}",
    }


def test_the_history_actor_of_an_organizer_is_never_the_login_name(world, api):
    org = world.users["staff"]
    game = world.player_game
    enter_result(org, game, "0-1", expected_version=game.version)
    [change] = api().get(f"/api/games/{game.pk}/").json()["history"]
    assert change["actor"] == f"Organizer {org.pk}" != org.get_username()


# ---------------------------------------------------------------------------
# Setting one's name
# ---------------------------------------------------------------------------


def test_a_user_sets_their_name_on_the_account_page(world, web):
    player = world.users["player"]
    client = web(player)
    me = client.get("/me/").text
    assert f"Account {player.pk}" in me and "/me/name/" in me
    assert client.get("/me/name/").status_code == 200
    answer = client.post("/me/name/", {"display_name": "  Paula Player "})
    assert answer.status_code == 302 and answer["Location"] == "/me/"
    assert display_name(get_user_model().objects.get(pk=player.pk)) == "Paula Player"
    assert "Paula Player" in client.get("/me/").text
    assert AuditEvent.objects.filter(action=Action.ACCOUNT_NAME_CHANGED, actor=player).exists()
    refused = client.post("/me/name/", {"display_name": "bad\x01name"})
    assert refused.status_code == 400 and "control characters" in refused.text
    assert display_name(get_user_model().objects.get(pk=player.pk)) == "Paula Player"
    assert web(None).get("/me/name/").status_code == 302


def test_the_api_tells_a_user_their_display_name(world, api):
    player = world.users["player"]
    _name(player, "Paula Player")
    me = api(player).get("/api/me/").json()
    assert me["display_name"] == "Paula Player" and me["username"] == "player"


def test_the_invitation_sign_up_asks_for_the_name(world, web, django_capture_on_commit_callbacks):
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        invite(
            world.users["organizer"],
            world.tournament,
            email="newtd@people.test",
            role="td",
            stage=world.stage,
            group_number=2,
        )
    [message] = mail.outbox
    link = LINK.search(message.body).group(1)
    client = web(None)
    form = client.get(link).text
    assert 'name="display_name"' in form
    answer = client.post(
        link,
        {
            "display_name": "Nora New",
            "username": "nora-login",
            "password1": "a-long-pass-99",
            "password2": "a-long-pass-99",
        },
    )
    assert answer.status_code == 302
    nora = get_user_model().objects.get(username="nora-login")
    assert display_name(nora) == "Nora New"
    page = web(None).get(f"/t/{world.tournament.slug}/s/1/g/2/").text
    assert "Nora New" in page and "nora-login" not in page


def test_the_claim_sign_up_asks_for_the_name(world, web, django_capture_on_commit_callbacks):
    unclaimed = Seat.objects.get(group=world.group, number=3).entrant
    assert unclaimed.email == entrant_address(unclaimed.code)
    mail.outbox.clear()
    client = web(None)
    with django_capture_on_commit_callbacks(execute=True):
        client.post("/accounts/claim/", {"email": unclaimed.email})
    link = LINK.search(mail.outbox[-1].body).group(1)
    assert 'name="display_name"' in client.get(link).text
    bad = client.post(
        link,
        {
            "display_name": "x" * 101,
            "username": "claimer",
            "password1": "chess-by-mail-7",
            "password2": "chess-by-mail-7",
        },
    )
    assert bad.status_code == 400
    assert not get_user_model().objects.filter(username="claimer").exists()
    ok = client.post(
        link,
        {
            "display_name": "Carl Claimer",
            "username": "claimer",
            "password1": "chess-by-mail-7",
            "password2": "chess-by-mail-7",
        },
    )
    assert ok.status_code == 302
    assert display_name(get_user_model().objects.get(username="claimer")) == "Carl Claimer"
