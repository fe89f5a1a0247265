"""People, not rows (apps/entrants/people.py): entries are tied to one person by account and
by rating-list ID; an import's preview says which rows belong to people known already;
claiming or linking an entry ties it to the account's person (merging the ID's person into
it when the two are one); ``manage.py link_people`` ties the rows made before people existed.
"""

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.db import IntegrityError, transaction
from django.urls import reverse

from apps.accounts.links import claim_token
from apps.accounts.services import claim_entry, link_entrant
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, Person
from apps.entrants.people import link_people
from apps.entrants.services import add_entrant, import_entrants, update_entrant
from apps.stages.services import create_tournament

pytestmark = pytest.mark.django_db

# A1 and A2 carry rating-list IDs; A3 carries none (its person is its code).
FIRST = (
    "code,name,nation,rating,person,email\n"
    'A1,"Rossi, Anna",ITA,2100,ICCF-100,anna@example.org\n'
    'A2,"Weber, Bernd",GER,1950,ICCF-200,\n'
    'A3,"Smith, Carol",ENG,,,carol@example.org\n'
)
# Another tournament: Anna again (same ID, another code), Carol again without an ID, a new one.
SECOND = (
    "code,name,nation,rating,person,email\n"
    'X7,"Rossi, Anna",ITA,2120,ICCF-100,anna@example.org\n'
    'A3,"Smith, Carol",ENG,,,carol@example.org\n'
    'X9,"Novak, Bo",CZE,,ICCF-900,\n'
)


def cup(organizer, slug: str):
    return create_tournament(
        organizer,
        name=slug.title(),
        slug=slug,
        games_per_player=2,
        stages=[{"min_group_size": 2, "separate_nations": False}],
    )


def entrant(slug: str, code: str) -> Entrant:
    return Entrant.objects.select_related("profile").get(tournament__slug=slug, code=code)


@pytest.fixture
def first(organizer):
    tournament = cup(organizer, "first-cup")
    import_entrants(organizer, tournament.first_stage, FIRST)
    return tournament


@pytest.fixture
def second(organizer, first):
    return cup(organizer, "second-cup")


def test_an_import_makes_one_person_per_rating_list_id_and_none_for_a_row_without_one(first):
    anna, bernd, carol = (entrant("first-cup", c) for c in ("A1", "A2", "A3"))
    assert anna.profile.rating_id == "ICCF-100" and anna.profile.name == "Rossi, Anna"
    assert anna.profile.federation == "ITA"
    assert bernd.profile.rating_id == "ICCF-200"
    assert carol.profile is None  # her person field is only her code
    assert Person.objects.count() == 2


def test_the_same_id_in_another_tournament_is_the_same_person(organizer, first, second):
    import_entrants(organizer, second.first_stage, SECOND)
    assert entrant("second-cup", "X7").profile_id == entrant("first-cup", "A1").profile_id
    # A code repeated from tournament to tournament is no ID: Carol stays two rows.
    assert entrant("second-cup", "A3").profile_id is None
    assert entrant("second-cup", "X9").profile.rating_id == "ICCF-900"
    assert Person.objects.count() == 3
    assert list(
        Person.objects.get(rating_id="ICCF-100")
        .entries.order_by("code")
        .values_list("code", flat=True)
    ) == ["A1", "X7"]


def test_the_api_preview_says_which_rows_are_people_known_already(org, second):
    answer = org.post(
        f"/api/stages/{second.first_stage.pk}/entrants/import/?dry_run=1",
        SECOND,
        content_type="text/csv",
    )
    assert answer.status_code == 200, answer.json()
    known = answer.json()["known_people"]
    anna = Person.objects.get(rating_id="ICCF-100")
    assert known == [
        {
            "code": "X7",
            "rating_id": "ICCF-100",
            "person": anna.pk,
            "name": "Rossi, Anna",
            "federation": "ITA",
            "entries": 1,
        }
    ]
    assert not Entrant.objects.filter(tournament=second).exists()


def test_the_preview_page_lists_the_matched_people_with_a_link(organizer_client, second):
    upload = SimpleUploadedFile("e.csv", SECOND.encode(), content_type="text/csv")
    page = organizer_client.post(
        reverse("stage-import", args=[second.slug, 1]), {"file": upload}
    ).content.decode()
    anna = Person.objects.get(rating_id="ICCF-100")
    assert "Matched: 1 person already known" in page
    assert reverse("player-profile", args=[anna.pk]) in page


def test_a_preview_without_known_people_says_nothing_of_them(organizer_client, organizer):
    fresh = cup(organizer, "fresh-cup")
    upload = SimpleUploadedFile("e.csv", FIRST.encode(), content_type="text/csv")
    page = organizer_client.post(
        reverse("stage-import", args=[fresh.slug, 1]), {"file": upload}
    ).content.decode()
    assert "Preview" in page and "already known" not in page


def test_a_replacing_preview_names_the_added_rows_of_known_people(org, organizer, first, second):
    import_entrants(organizer, second.first_stage, "code,name,nation\nZ1,Zed,ITA\n")
    answer = org.post(
        f"/api/stages/{second.first_stage.pk}/entrants/import/?mode=replace&dry_run=1",
        SECOND,
        content_type="text/csv",
    )
    assert answer.status_code == 200, answer.json()
    assert [k["code"] for k in answer.json()["known_people"]] == ["X7"]


def test_claiming_an_entry_gives_the_ids_person_the_account(first):
    anna = entrant("first-cup", "A1")
    user = get_user_model().objects.create_user("anna", anna.email)
    claim_entry(user, claim_token(anna.pk, anna.email))
    person = Person.objects.get(rating_id="ICCF-100")
    assert person.user == user
    assert entrant("first-cup", "A1").profile == person
    assert Person.objects.count() == 2


def test_claiming_an_entry_without_id_makes_the_accounts_person(first):
    carol = entrant("first-cup", "A3")
    user = get_user_model().objects.create_user("carol", carol.email)
    claim_entry(user, claim_token(carol.pk, carol.email))
    person = entrant("first-cup", "A3").profile
    assert person is not None and person.user == user and person.rating_id == ""
    assert (person.name, person.federation) == ("Smith, Carol", "ENG")


def test_an_accounts_person_and_an_ids_person_merge_into_one(organizer, first, second):
    user = get_user_model().objects.create_user("anna", "anna@example.org")
    import_entrants(organizer, second.first_stage, 'code,name,nation\nQ1,"Rossi, Anna",ITA\n')
    link_entrant(organizer, entrant("second-cup", "Q1"), user)
    accounts = entrant("second-cup", "Q1").profile
    assert accounts.user == user and accounts.rating_id == ""
    old = entrant("first-cup", "A1").profile
    link_entrant(organizer, entrant("first-cup", "A1"), user)
    merged = Person.objects.get(user=user)
    assert merged.pk == accounts.pk and merged.rating_id == "ICCF-100"
    assert set(merged.entries.values_list("code", flat=True)) == {"A1", "Q1"}
    assert not Person.objects.filter(rating_id="ICCF-100").exclude(pk=merged.pk).exists()
    old.refresh_from_db()
    assert (old.merged_into, old.rating_id, old.entries.count()) == (merged, "", 0)


def test_the_page_of_a_merged_person_leads_to_the_person(organizer, first, organizer_client, org):
    """(Seen by the organizer: the players play in no public stage yet.)"""
    client = organizer_client
    user = get_user_model().objects.create_user("anna", "anna@example.org")
    import_entrants(organizer, first.first_stage, 'code,name,nation\nQ1,"Rossi, Anna",ITA\n')
    link_entrant(organizer, entrant("first-cup", "Q1"), user)
    old = entrant("first-cup", "A1").profile
    link_entrant(organizer, entrant("first-cup", "A1"), user)
    answer = client.get(reverse("player-profile", args=[old.pk]))
    assert answer.status_code == 302
    assert answer["Location"] == reverse("player-profile", args=[user.person.pk])
    assert org.get(reverse("api-player-profile", args=[old.pk])).json()["id"] == user.person.pk


def test_the_account_wins_over_another_persons_id(organizer, first):
    user = get_user_model().objects.create_user("bernd", "bernd@example.org")
    link_entrant(organizer, entrant("first-cup", "A1"), user)  # the account takes ICCF-100
    link_entrant(organizer, entrant("first-cup", "A2"), user)  # ICCF-200 is someone else's
    assert entrant("first-cup", "A2").profile.user == user
    assert Person.objects.get(rating_id="ICCF-200").user is None


def test_unlinking_an_account_leaves_the_entry_with_its_ids_person_or_none(organizer, first):
    user = get_user_model().objects.create_user("carol", "carol@example.org")
    link_entrant(organizer, entrant("first-cup", "A3"), user)
    assert entrant("first-cup", "A3").profile.user == user
    link_entrant(organizer, entrant("first-cup", "A3"), None)
    assert entrant("first-cup", "A3").profile is None
    link_entrant(organizer, entrant("first-cup", "A1"), user)
    link_entrant(organizer, entrant("first-cup", "A1"), None)
    assert entrant("first-cup", "A1").profile.rating_id == "ICCF-100"


def test_adding_and_changing_one_entrant_ties_it(organizer, first):
    stage = first.first_stage
    add_entrant(organizer, stage, code="B1", name="Bo", nation="CZE", person="ICCF-200")
    assert entrant("first-cup", "B1").profile.rating_id == "ICCF-200"
    update_entrant(organizer, stage, "A3", person="ICCF-300")
    assert entrant("first-cup", "A3").profile.rating_id == "ICCF-300"
    update_entrant(organizer, stage, "A3", person="")  # back to the code: no ID
    assert entrant("first-cup", "A3").profile is None


def test_the_command_ties_rows_made_before_people_existed(first):
    Entrant.objects.update(profile=None)
    Person.objects.all().delete()
    out = StringIO()
    call_command("link_people", stdout=out)
    assert "people made: 2" in out.getvalue()
    assert entrant("first-cup", "A1").profile.rating_id == "ICCF-100"
    event = AuditEvent.objects.get(action="people.linked")
    assert event.data == {"created": 2, "merged": 0} and event.actor is None
    out = StringIO()
    call_command("link_people", "--tournament", "first-cup", stdout=out)
    assert "people made: 0" in out.getvalue()  # a second run changes nothing


def test_the_command_refuses_an_unknown_tournament():
    with pytest.raises(Exception, match="no tournament has the slug 'nope'"):
        call_command("link_people", "--tournament", "nope")


def test_two_people_cannot_share_a_rating_list_id(first):
    with pytest.raises(IntegrityError), transaction.atomic():
        Person.objects.create(name="Other", rating_id="ICCF-100")
    Person.objects.create(name="No ID one")
    Person.objects.create(name="No ID two")  # an empty ID is no ID


def test_linking_reads_and_writes_in_a_few_queries_however_many_entries(
    organizer, django_assert_max_num_queries
):
    big = cup(organizer, "big-cup")
    rows = "".join(f"C{i},Player {i},ITA,,ID-{i},\n" for i in range(300))
    import_entrants(organizer, big.first_stage, "code,name,nation,rating,person,email\n" + rows)
    Entrant.objects.update(profile=None)
    Person.objects.all().delete()
    with django_assert_max_num_queries(8):
        link_people(Entrant.objects.filter(tournament=big))
    assert Entrant.objects.filter(tournament=big, profile__isnull=False).count() == 300
