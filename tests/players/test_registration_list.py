"""Registration by players against a rating list the office holds: the rating checked is the
one on the list for the player's ID (what the player types is not used), a player not on the
list counts as unrated, and a refusal names the list and its date; without a list the typed
rating is checked (and the page says so). The organizers hear of each request and withdrawal
by e-mail, with the way to the requests page."""

import datetime

import pytest
from django.core import mail
from django.urls import reverse

from apps.core.errors import ActionError, ErrorCode
from apps.entrants.models import Entrant, Person
from apps.players import registration_rules as rules
from apps.players.models import Registration
from apps.players.registrations import decide, register, withdraw
from apps.ratinglists.services import apply_rating_list, import_rating_list
from apps.stages.services import update_stage

pytestmark = pytest.mark.django_db

LIST_DATE = datetime.date(2026, 4, 1)
LIST_CSV = (
    "id,name,federation,rating,games,title\n"
    "100001,Player 1,ITA,2000,40,\n"
    "100002,Player 2,ITA,1850,40,\n"
    "100003,Player 3,ITA,2150,40,\n"
    "100004,Player 4,ITA,,0,\n"
)


@pytest.fixture
def iccf_list(organizer):
    return import_rating_list(
        organizer, name="ICCF list 2026/4", list_date=LIST_DATE, text=LIST_CSV
    ).rating_list


def refusal(call) -> ActionError:
    with pytest.raises(ActionError) as caught:
        call()
    return caught.value


def test_the_stage_finds_its_list_by_the_setting_or_the_list_applied(
    open_stage, organizer, iccf_list
):
    assert rules.stage_rating_list(open_stage) == iccf_list  # named by the setting
    older = import_rating_list(
        organizer, name="ICCF list 2026/1", list_date=datetime.date(2026, 1, 1), text=LIST_CSV
    ).rating_list
    open_stage = update_stage(organizer, open_stage, rating_list="ICCF list 2026/1 (2026-01-01)")
    assert rules.stage_rating_list(open_stage) == older
    open_stage = update_stage(organizer, open_stage, rating_list="a list nobody imported")
    assert rules.stage_rating_list(open_stage) is None
    apply_rating_list(organizer, open_stage, iccf_list)  # the list applied wins
    assert rules.stage_rating_list(open_stage) == iccf_list


def test_the_rating_on_the_list_is_checked_not_the_one_typed(
    open_stage, make_player, details, iccf_list
):
    # Player 2 types 2000, but the list has 1850 for their ID: refused, the list named.
    error = refusal(lambda: register(open_stage, actor=make_player("b"), **details(2, rating=2000)))
    assert error.code == ErrorCode.NOT_ELIGIBLE
    assert [d["rule"] for d in error.details] == ["rating_min"]
    assert error.message == (
        "Players rated below 1900 on ICCF list 2026/4 of 2026-04-01 may not register for this "
        "stage; the rating there for ID 100002 is 1850."
    )
    error = refusal(lambda: register(open_stage, actor=make_player("c"), **details(3)))
    assert [d["rule"] for d in error.details] == ["rating_max"]
    assert "the rating there for ID 100003 is 2150" in error.message
    # Player 1 types 2300 (above the band) but the list's 2000 is inside: accepted, stored.
    made = register(open_stage, actor=make_player("a"), **details(1, rating=2300))
    assert made.status == Registration.Status.PENDING and made.rating == 2000


@pytest.mark.parametrize(
    ("person", "words"),
    [
        ("999999", "ID 999999 is not on ICCF list 2026/4 of 2026-04-01, so it counts as unrated"),
        ("100004", "ICCF list 2026/4 of 2026-04-01 has no rating for ID 100004"),
        ("", "Give your ID on ICCF list 2026/4 of 2026-04-01"),
    ],
)
def test_a_player_not_rated_on_the_list_counts_as_unrated(
    open_stage, organizer, make_player, details, iccf_list, person, words
):
    error = refusal(
        lambda: register(
            open_stage, actor=make_player("u"), **details(9, rating_list_id=person, rating=2000)
        )
    )
    assert [d["rule"] for d in error.details] == ["unrated"]
    assert words in error.message
    assert not Registration.objects.exists()
    # Where unrated players may register, the same player is taken, unrated.
    open_stage = update_stage(organizer, open_stage, unrated_allowed=True)
    made = register(
        open_stage, actor=make_player("v"), **details(9, rating_list_id=person, rating=2000)
    )
    assert made.rating is None


def test_the_pages_say_where_the_rating_comes_from(
    client, open_stage, organizer, make_player, details, iccf_list
):
    register(open_stage, actor=make_player("a"), **details(1, rating=2300))
    url = reverse("stage-register", args=[open_stage.tournament.slug, open_stage.order])
    client.force_login(make_player("w"))
    page = client.get(url).content.decode()
    assert "Rating from 1900 to 2099 on ICCF list 2026/4 of 2026-04-01." in page
    assert "the rating you type is not used" in page
    assert 'id="rating-from-list"' in page and 'name="rating"' not in page
    client.force_login(organizer)
    requests = client.get(
        reverse("stage-registrations", args=[open_stage.tournament.slug, open_stage.order])
    ).content.decode()
    assert "Rating 2000 is at least 1900 on ICCF list 2026/4 of 2026-04-01." in requests
    # Without a list the office holds, the typed rating is checked, and the page says so.
    update_stage(organizer, open_stage, rating_list="ICCF list 2099/1")
    client.force_login(make_player("x"))
    page = client.get(url).content.decode()
    assert "The office does not hold this rating list: the rating you give is checked" in page
    assert 'name="rating"' in page


def test_the_organizers_are_emailed_when_a_request_arrives_or_is_withdrawn(
    open_stage, organizer, make_player, details, django_capture_on_commit_callbacks
):
    player = make_player("anna")
    with django_capture_on_commit_callbacks(execute=True):
        made = register(open_stage, actor=player, **details(1))
    to_org = [m for m in mail.outbox if m.to == ["org@people.test"]]
    assert len(to_org) == 1 and "Player 1" in to_org[0].subject
    body = to_org[0].body
    assert "Player 1 (ITA) asked to enter Reg Cup" in body
    path = reverse("stage-registrations", args=["reg-cup", open_stage.order])
    assert f"{path}\n" in body
    assert f"{reverse('login')}?next={path.replace('/', '%2F')}" in body
    assert [m.to for m in mail.outbox if m not in to_org] == [["p1@people.test"]]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        withdraw(made, actor=player)
    to_org = [m for m in mail.outbox if m.to == ["org@people.test"]]
    assert len(to_org) == 1 and "withdrew their registration" in to_org[0].body


def test_an_approved_player_has_a_profile_tied_to_their_account(
    client, open_stage, organizer, make_player, details, iccf_list
):
    player = make_player("anna")
    made = register(open_stage, actor=player, **details(1))
    decide(open_stage, [made.pk], "approve", actor=organizer)
    person = Person.objects.get(user=player)
    assert person.rating_id == "100001"
    assert Entrant.objects.get(user=player).profile == person
    client.force_login(player)
    assert client.get(reverse("player-profile-mine")).url == reverse(
        "player-profile", args=[person.pk]
    )
