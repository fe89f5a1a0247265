"""Each user turns each kind of e-mail on or off, on a page under "my games" or by the API."""

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.notifications.models import Preferences
from tests.worlds.published import make_user


def test_the_page_turns_kinds_off_and_on(db, client):
    user = make_user("prefs")
    client.force_login(user)
    page = client.get("/me/notifications/")
    assert page.status_code == 200 and page.text.count("checked") == 4  # a digest of moves is off
    answer = client.post("/me/notifications/", {"result": "on"})  # unchecked boxes: off
    assert answer.status_code == 302
    prefs = Preferences.objects.get(user=user)
    assert (prefs.start_list, prefs.result, prefs.td_digest) == (False, True, False)
    assert (prefs.move, prefs.move_digest) == (False, False)
    assert AuditEvent.objects.filter(action=Action.NOTIFICATIONS_PREFERENCES_CHANGED).count() == 1


def test_the_api_reads_and_changes_them(db, client):
    client.force_login(make_user("apiprefs"))
    url = "/api/me/notifications/"
    on = {"start_list": True, "result": True, "td_digest": True, "move": True}
    assert client.get(url).json() == {**on, "move_digest": False}
    answer = client.patch(url, {"td_digest": False}, content_type="application/json")
    assert answer.json() == {**on, "td_digest": False, "move_digest": False}
    bad = client.patch(url, {"result": "maybe"}, content_type="application/json")
    assert bad.status_code == 400 and bad.json()["details"][0]["field"] == "result"
    assert client.get(url).json()["result"] is True
