"""One table per stage shows every group's TD (name and address), assigns one group's TD by
e-mail, and takes a CSV ``group,email`` for many: accounts with the address become TDs,
other addresses are invited; all rows or none, every bad row listed. Page and API."""

import pytest
from django.contrib.auth import get_user_model
from django.core import mail

from apps.accounts.models import Invitation
from apps.core.audit import Action
from apps.core.models import AuditEvent, Profile
from apps.groups.models import Group
from tests.worlds.people import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db


def _tds(world) -> dict[int, int | None]:
    return dict(Group.objects.filter(stage=world.stage).values_list("number", "td_id"))


def _page(world) -> str:
    return f"/t/{world.tournament.slug}/s/{world.stage.order}/tds/"


def _api(world) -> str:
    return f"/api/stages/{world.stage.pk}/tds/"


@pytest.fixture
def nina(db):
    """An account that directs nothing yet."""
    user = get_user_model().objects.create_user("nina-login", "Nina@People.test")
    Profile.objects.create(user=user, display_name="Nina Neutral")
    return user


# ---------------------------------------------------------------------------
# The page
# ---------------------------------------------------------------------------


def test_the_table_lists_every_group_with_its_tds_name_and_address(world, web):
    Profile.objects.create(user=world.users["td"], display_name="Tina Director")
    for role in ("player", "td", "other_td"):
        assert web(world.users[role]).get(_page(world)).status_code == 403
    assert web(None).get(_page(world)).status_code == 302
    page = web(world.users["organizer"]).get(_page(world))
    assert page.status_code == 200
    text = page.text
    assert 'id="group-1"' in text and 'id="group-2"' in text
    assert "Tina Director" in text and "td1@people.test" in text
    assert f"TD {world.users['other_td'].pk}" in text and "td2@people.test" in text
    assert 'enctype="multipart/form-data"' in text and "data-confirm=" in text


def test_one_groups_td_is_assigned_by_address(world, web, nina, django_capture_on_commit_callbacks):
    client = web(world.users["organizer"])
    url = f"{_page(world)}group/"
    answer = client.post(url, {"group": 2, "email": "nina@people.test"})
    assert answer.status_code == 302
    assert _tds(world)[2] == nina.pk
    assert "Nina Neutral is now the TD of group 2." in client.get(_page(world)).text
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        client.post(url, {"group": 1, "email": "stranger@elsewhere.test"})
    assert _tds(world)[1] == world.users["td"].pk  # until the invitation is accepted
    [message] = mail.outbox
    assert message.to == ["stranger@elsewhere.test"]
    assert "stranger@elsewhere.test" in client.get(_page(world)).text  # invited
    client.post(url, {"group": 2, "remove": "1"})
    assert _tds(world)[2] is None


def test_a_csv_assigns_accounts_and_invites_the_other_addresses(
    world, web, nina, django_capture_on_commit_callbacks
):
    client = web(world.users["organizer"])
    csv = "group,email\n1,NINA@people.test\n2,fresh@elsewhere.test\n"
    preview = client.post(_page(world), {"csv": csv, "preview": "1"})
    assert preview.status_code == 200
    assert "Nina Neutral becomes the TD" in preview.text
    assert "an invitation is e-mailed" in preview.text
    assert _tds(world)[1] == world.users["td"].pk  # a preview changes nothing
    assert not Invitation.objects.filter(email="fresh@elsewhere.test").exists()

    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        applied = client.post(_page(world), {"csv": csv, "apply": "1"})
    assert applied.status_code == 302
    assert _tds(world) == {1: nina.pk, 2: world.users["other_td"].pk}
    [invitation] = Invitation.objects.filter(email="fresh@elsewhere.test")
    assert (invitation.role, invitation.stage, invitation.group_number) == ("td", world.stage, 2)
    assert [m.to for m in mail.outbox] == [["fresh@elsewhere.test"]]
    assigned = AuditEvent.objects.filter(action=Action.GROUP_TD_ASSIGNED, group_id=world.group.pk)
    assert assigned.count() == 1
    assert AuditEvent.objects.filter(action=Action.INVITATION_SENT).count() == 1
    assert "1 TD assigned, 1 invitation sent." in client.get(_page(world)).text


def test_a_file_with_bad_rows_lists_every_one_and_changes_nothing(
    world, web, nina, django_capture_on_commit_callbacks
):
    client = web(world.users["organizer"])
    csv = (
        "group,email\n"
        "1,nina@people.test\n"  # fine
        "7,someone@people.test\n"  # no group 7
        "two,x@people.test\n"  # not a number
        "2,not-an-address\n"  # bad address
        "1,other@people.test\n"  # group 1 twice
        "2\n"  # no address
    )
    mail.outbox.clear()
    before = _tds(world)
    events = AuditEvent.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(_page(world), {"csv": csv, "apply": "1"})
    assert answer.status_code == 400
    text = answer.text
    assert "The file has 5 bad rows; nothing was changed." in text
    for line, words in [
        (3, "has no group 7"),
        (4, "&#x27;two&#x27; is not a group number"),
        (5, "&#x27;not-an-address&#x27; is not an e-mail address"),
        (6, "Group 1 is named twice (lines 2 and 6)"),
        (7, "The e-mail address is missing"),
    ]:
        assert f'<td class="num">{line}</td><td>' in text and words in text, words
    assert _tds(world) == before
    assert AuditEvent.objects.count() == events
    assert not Invitation.objects.exists() and mail.outbox == []


# ---------------------------------------------------------------------------
# The API
# ---------------------------------------------------------------------------


def test_the_api_lists_every_group_with_its_td(world, api):
    Profile.objects.create(user=world.users["td"], display_name="Tina Director")
    assert api(world.users["td"]).get(_api(world)).status_code == 403
    rows = api(world.users["organizer"]).get(_api(world)).json()
    assert [r["number"] for r in rows] == [1, 2]
    assert rows[0] == {
        "id": world.group.pk,
        "url": f"/api/groups/{world.group.pk}/",
        "number": 1,
        "td": {"id": world.users["td"].pk, "name": "Tina Director", "email": "td1@people.test"},
        "invited": [],
    }


def test_the_api_takes_the_csv_with_a_dry_run(world, api, nina, django_capture_on_commit_callbacks):
    client = api(world.users["organizer"])
    csv = "1,nina@people.test\n2,fresh@elsewhere.test\n"
    dry = client.post(f"{_api(world)}?dry_run=1", csv, content_type="text/csv")
    assert dry.status_code == 200
    body = dry.json()
    assert (body["dry_run"], body["assigned"], body["invited"], body["unchanged"]) == (
        True,
        1,
        1,
        0,
    )
    assert [r["action"] for r in body["rows"]] == ["assign", "invite"]
    assert body["rows"][0]["td"] == {"id": nina.pk, "name": "Nina Neutral", "email": nina.email}
    assert body["rows"][0]["group"]["url"] == f"/api/groups/{world.group.pk}/"
    assert _tds(world)[1] == world.users["td"].pk and not Invitation.objects.exists()

    with django_capture_on_commit_callbacks(execute=True):
        done = client.post(_api(world), {"csv": csv}, format="json")
    assert done.status_code == 200 and done.json()["dry_run"] is False
    assert _tds(world)[1] == nina.pk
    assert Invitation.objects.filter(email="fresh@elsewhere.test", group_number=2).exists()
    again = client.post(_api(world), {"csv": csv}, format="json").json()
    assert [r["action"] for r in again["rows"]] == ["unchanged", "invite"]


def test_the_api_lists_every_bad_row_and_changes_nothing(world, api, nina):
    client = api(world.users["organizer"])
    csv = "group,email\n1,nina@people.test\n9,a@people.test\n2,bad@\n"
    answer = client.post(_api(world), csv, content_type="text/csv")
    assert answer.status_code == 400
    error = answer.json()
    assert error["code"] == "bad_rows"
    assert [d["line"] for d in error["details"]] == [3, 4]
    assert "has no group 9" in error["details"][0]["message"]
    assert _tds(world)[1] == world.users["td"].pk and not Invitation.objects.exists()
    assert api(world.users["td"]).post(_api(world), csv, content_type="text/csv").status_code == 403
