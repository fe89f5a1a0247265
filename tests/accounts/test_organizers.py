"""Staff grant and take away the right to create tournaments (the model permission
``stages.add_tournament``) on /staff/organizers/ and at /api/organizers/; audited; nobody
else may."""

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group as UserGroup

from apps.accounts.services import (
    grant_organizer_right,
    organizer_permission,
    revoke_organizer_right,
)
from apps.core.audit import Action
from apps.core.errors import ActionError
from apps.core.models import AuditEvent, Profile
from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db

PERMISSION = "stages.add_tournament"


def _fresh(user):
    return get_user_model().objects.get(pk=user.pk)


def _events(action):
    return list(AuditEvent.objects.filter(action=action).order_by("id"))


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------


def test_only_staff_open_the_page(world, web):
    assert web(None).get("/staff/organizers/").status_code == 302
    for role in ("player", "td", "organizer"):
        assert web(world.users[role]).get("/staff/organizers/").status_code == 403
    page = web(world.users["staff"]).get("/staff/organizers/")
    assert page.status_code == 200
    assert "td1@people.test" in page.text and "player@people.test" in page.text


def test_staff_grant_and_take_away_the_right_on_the_page(world, web):
    staff, td = world.users["staff"], world.users["td"]
    client = web(staff)
    assert not _fresh(td).has_perm(PERMISSION)
    answer = client.post(f"/staff/organizers/{td.pk}/", {"right": "grant"})
    assert answer.status_code == 302 and answer["Location"] == "/staff/organizers/"
    assert _fresh(td).has_perm(PERMISSION)
    [granted] = _events(Action.ORGANIZER_RIGHT_GRANTED)
    assert granted.actor == staff and granted.data["account"] == td.pk
    listed = client.get("/staff/organizers/?holders=on").text
    assert f'id="account-{td.pk}"' in listed
    assert f'id="account-{world.users["player"].pk}"' not in listed
    assert 'value="revoke"' in listed and "data-confirm=" in listed

    answer = client.post(
        f"/staff/organizers/{td.pk}/", {"right": "revoke", "next": "/staff/organizers/?q=td"}
    )
    assert answer["Location"] == "/staff/organizers/?q=td"
    assert not _fresh(td).has_perm(PERMISSION)
    assert len(_events(Action.ORGANIZER_RIGHT_REVOKED)) == 1


def test_others_cannot_grant_on_the_page(world, web):
    player = world.users["player"]
    for role in ("organizer", "td", "player"):
        answer = web(world.users[role]).post(f"/staff/organizers/{player.pk}/", {"right": "grant"})
        assert answer.status_code == 403
    assert web(None).post(f"/staff/organizers/{player.pk}/", {"right": "grant"}).status_code == 302
    assert not _fresh(player).has_perm(PERMISSION)
    assert not _events(Action.ORGANIZER_RIGHT_GRANTED)


def test_the_search_finds_by_name_login_or_address(world, web):
    td = world.users["td"]
    Profile.objects.create(user=td, display_name="Tina Director")
    client = web(world.users["staff"])
    for query in ("tina", "td1", "td1@people"):
        page = client.get("/staff/organizers/", {"q": query}).text
        assert f'id="account-{td.pk}"' in page, query
        assert f'id="account-{world.users["player"].pk}"' not in page, query
    assert "No account matches" in client.get("/staff/organizers/", {"q": "nobody-zz"}).text


# ---------------------------------------------------------------------------
# The actions
# ---------------------------------------------------------------------------


def test_granting_twice_or_revoking_nothing_changes_nothing(world):
    staff, player = world.users["staff"], world.users["player"]
    grant_organizer_right(staff, player)
    right = grant_organizer_right(staff, player)
    assert right.holds and right.direct
    assert len(_events(Action.ORGANIZER_RIGHT_GRANTED)) == 1
    revoke_organizer_right(staff, player)
    right = revoke_organizer_right(staff, player)
    assert not right.holds
    assert len(_events(Action.ORGANIZER_RIGHT_REVOKED)) == 1


def test_a_right_through_a_group_stays_and_is_reported(world):
    staff, player = world.users["staff"], world.users["player"]
    team = UserGroup.objects.create(name="federation")
    team.permissions.add(organizer_permission())
    player.groups.add(team)
    right = revoke_organizer_right(staff, player)
    assert right.holds and not right.direct and right.inherited
    assert not _events(Action.ORGANIZER_RIGHT_REVOKED)


def test_only_staff_grant(world):
    for role in ("organizer", "td", "player"):
        with pytest.raises(ActionError) as refused:
            grant_organizer_right(world.users[role], world.users["player"])
        assert refused.value.code == "permission_denied"
    assert not _fresh(world.users["player"]).has_perm(PERMISSION)


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------


def test_the_api_lists_grants_and_revokes_for_staff(world, api):
    staff, td = world.users["staff"], world.users["td"]
    client = api(staff)
    listed = client.get("/api/organizers/")
    assert listed.status_code == 200 and listed.json()["results"] == []

    granted = client.put(f"/api/organizers/{td.pk}/")
    assert granted.status_code == 200
    body = granted.json()
    assert body == {
        "id": td.pk,
        "url": f"/api/organizers/{td.pk}/",
        "username": "td1",
        "display_name": f"Account {td.pk}",
        "email": "td1@people.test",
        "holds": True,
        "direct": True,
    }
    assert _fresh(td).has_perm(PERMISSION)
    [item] = client.get("/api/organizers/").json()["results"]
    assert item["id"] == td.pk and item["url"] == f"/api/organizers/{td.pk}/"
    assert client.get(f"/api/organizers/{td.pk}/").json()["holds"] is True

    revoked = client.delete(f"/api/organizers/{td.pk}/")
    assert revoked.status_code == 200 and revoked.json()["holds"] is False
    assert not _fresh(td).has_perm(PERMISSION)
    assert client.get("/api/organizers/").json()["results"] == []
    assert len(_events(Action.ORGANIZER_RIGHT_GRANTED)) == 1
    assert len(_events(Action.ORGANIZER_RIGHT_REVOKED)) == 1
    assert client.put("/api/organizers/424242/").status_code == 404


def test_the_api_refuses_everyone_else(world, api):
    target = world.users["player"]
    for role in (None, "player", "td", "organizer"):
        client = api(world.users[role] if role else None)
        for answer in (
            client.get("/api/organizers/"),
            client.get(f"/api/organizers/{target.pk}/"),
            client.put(f"/api/organizers/{target.pk}/"),
            client.delete(f"/api/organizers/{target.pk}/"),
        ):
            assert answer.status_code == 403, role
            assert set(answer.json()) == {"code", "message", "details"}
    assert not _fresh(target).has_perm(PERMISSION)
    assert not _events(Action.ORGANIZER_RIGHT_GRANTED)
