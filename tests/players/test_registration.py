"""Registration by players, the actions: eligibility refusals name the broken rule, the
reserve list fills in order of registration and moves up when a place frees, organizers
approve (an entrant linked to the player) or reject many at once, all or none; each change
is audited and e-mailed."""

from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from apps.core.audit import Action
from apps.core.errors import ActionError, ErrorCode
from apps.core.models import AuditEvent
from apps.entrants.models import Entrant, StageEntry
from apps.entrants.services import add_entrant, close_registration
from apps.players.models import Registration
from apps.players.registrations import decide, register, reserve_place, withdraw
from apps.stages.services import update_stage

pytestmark = pytest.mark.django_db

S = Registration.Status


def refusal(call) -> ActionError:
    with pytest.raises(ActionError) as caught:
        call()
    return caught.value


def test_a_player_within_the_rules_waits_for_approval(open_stage, make_player, details):
    player = make_player("anna")
    made = register(open_stage, actor=player, **details(1))
    assert (made.status, made.position, made.user, made.federation) == (S.PENDING, 1, player, "ITA")
    assert made.rating_list_id == "100001" and made.rating == 2000
    event = AuditEvent.objects.get(action=Action.PLAYER_REGISTERED)
    assert event.data["registration"] == made.pk and event.data["status"] == "pending"


@pytest.mark.parametrize(
    ("changes", "rule", "words"),
    [
        ({"federation": "GER"}, "federation", "Only players of the federations ITA, SMR"),
        ({"rating": 1850}, "rating_min", "rated below 1900 on ICCF list 2026/4"),
        ({"rating": 2100}, "rating_max", "rated above 2099 on ICCF list 2026/4"),
        ({"rating": None}, "unrated", "Unrated players may not register"),
    ],
)
def test_a_request_outside_the_rules_is_refused_with_the_rule_it_breaks(
    open_stage, make_player, details, changes, rule, words
):
    error = refusal(lambda: register(open_stage, actor=make_player("b"), **details(1, **changes)))
    assert error.code == ErrorCode.NOT_ELIGIBLE and error.http_status == 422
    assert words in error.message
    assert [d["rule"] for d in error.details] == [rule]
    assert (
        not Registration.objects.exists()
        and not AuditEvent.objects.filter(action=Action.PLAYER_REGISTERED).exists()
    )


def test_every_broken_rule_is_named(open_stage, make_player, details):
    error = refusal(
        lambda: register(
            open_stage, actor=make_player("c"), **details(1, federation="GER", rating=2500)
        )
    )
    assert [d["rule"] for d in error.details] == ["federation", "rating_max"]


def test_the_band_is_inclusive_and_an_empty_rule_lets_everyone_in(
    open_stage, organizer, make_player, details
):
    register(open_stage, actor=make_player("low"), **details(1, rating=1900))
    register(open_stage, actor=make_player("high"), **details(2, rating=2099, federation="smr"))
    stage = update_stage(
        organizer, open_stage, federations_allowed="", unrated_allowed=True, max_field=None
    )
    made = register(stage, actor=make_player("free"), **details(3, federation="GER", rating=None))
    assert made.status == S.PENDING and made.federation == "GER"


def test_bad_details_are_refused_with_every_field(open_stage, make_player, details):
    error = refusal(
        lambda: register(
            open_stage,
            actor=make_player("d"),
            **details(1, name="", federation="XXQ", email="no address"),
        )
    )
    assert error.code == ErrorCode.INVALID_INPUT
    assert {d["field"] for d in error.details} == {"name", "federation", "email"}
    assert not Registration.objects.exists()


def test_registration_needs_the_stage_open_to_players_and_before_the_closing_day(
    open_stage, organizer, make_player, details
):
    update_stage(organizer, open_stage, open_registration=False)
    error = refusal(lambda: register(open_stage, actor=make_player("e"), **details(1)))
    assert error.code == ErrorCode.WRONG_STATUS and "does not take registrations" in error.message
    yesterday = timezone.localdate() - timedelta(days=1)
    update_stage(organizer, open_stage, open_registration=True, registration_closes_on=yesterday)
    error = refusal(lambda: register(open_stage, actor=make_player("f"), **details(2)))
    assert error.code == ErrorCode.WRONG_STATUS and "closed on" in error.message


def test_one_active_request_per_player_and_stage(open_stage, make_player, details):
    player = make_player("g")
    register(open_stage, actor=player, **details(1))
    error = refusal(lambda: register(open_stage, actor=player, **details(1)))
    assert error.code == ErrorCode.CONFLICT
    assert Registration.objects.count() == 1


def test_a_full_field_puts_later_requests_on_the_reserve_list_in_order(
    open_stage, organizer, make_player, details
):
    # One entrant the organizer added takes a place too.
    add_entrant(organizer, open_stage, name="Imported One", nation="ITA")
    made = [register(open_stage, actor=make_player(f"p{n}"), **details(n)) for n in range(1, 6)]
    assert [r.status for r in made] == [S.PENDING, S.PENDING, S.RESERVE, S.RESERVE, S.RESERVE]
    assert [r.position for r in made] == [1, 2, 3, 4, 5]
    assert [reserve_place(r) for r in made] == [None, None, 1, 2, 3]


def test_a_withdrawal_moves_the_first_reserve_up_and_emails_it(
    open_stage, make_player, details, django_capture_on_commit_callbacks
):
    players = [make_player(f"p{n}") for n in range(1, 6)]
    made = [register(open_stage, actor=p, **details(n + 1)) for n, p in enumerate(players)]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        withdraw(made[1], actor=players[1])
    statuses = dict(Registration.objects.values_list("position", "status"))
    assert statuses == {1: S.PENDING, 2: S.WITHDRAWN, 3: S.PENDING, 4: S.PENDING, 5: S.RESERVE}
    assert reserve_place(Registration.objects.get(position=5)) == 1
    moved = AuditEvent.objects.get(action=Action.PLAYER_REGISTRATION_MOVED_UP)
    assert moved.data["registration"] == made[3].pk
    # The two players, and the organizer of the withdrawal.
    assert sorted(m.to[0] for m in mail.outbox) == [
        "org@people.test",
        "p2@people.test",
        "p4@people.test",
    ]
    moved_mail = next(m for m in mail.outbox if m.to == ["p4@people.test"])
    assert "moved up from the reserve list" in moved_mail.body


def test_only_the_player_withdraws_and_only_until_the_closing_day(
    open_stage, organizer, make_player, details
):
    player = make_player("h")
    made = register(open_stage, actor=player, **details(1))
    assert refusal(lambda: withdraw(made, actor=make_player("x"))).code == ErrorCode.NOT_FOUND
    yesterday = timezone.localdate() - timedelta(days=1)
    update_stage(organizer, open_stage, registration_closes_on=yesterday)
    made.refresh_from_db()
    error = refusal(lambda: withdraw(made, actor=player))
    assert error.code == ErrorCode.WRONG_STATUS and "closed on" in error.message
    assert Registration.objects.get(pk=made.pk).status == S.PENDING


def test_approval_makes_an_entrant_linked_to_the_player(
    open_stage, organizer, make_player, details, django_capture_on_commit_callbacks
):
    players = [make_player(f"p{n}") for n in range(1, 3)]
    made = [register(open_stage, actor=p, **details(n + 1)) for n, p in enumerate(players)]
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        decide(open_stage, [r.pk for r in made], "approve", "", actor=organizer)
    entrants = Entrant.objects.filter(stage_entries__stage=open_stage).order_by("code")
    assert [(e.name, e.nation, e.rating, e.person, e.user) for e in entrants] == [
        ("Player 1", "ITA", 2000, "100001", players[0]),
        ("Player 2", "ITA", 2000, "100002", players[1]),
    ]
    assert {r.status for r in Registration.objects.all()} == {S.APPROVED}
    assert Registration.objects.get(pk=made[0].pk).entrant.code == entrants[0].code
    assert AuditEvent.objects.filter(action=Action.PLAYER_REGISTRATION_APPROVED).count() == 2
    assert AuditEvent.objects.filter(action=Action.ENTRANT_ADDED).count() == 2
    assert len(mail.outbox) == 2 and "You are an entrant" in mail.outbox[0].body


def test_an_approved_player_who_withdraws_leaves_the_stage(
    open_stage, organizer, make_player, details
):
    player = make_player("i")
    made = register(open_stage, actor=player, **details(1))
    decide(open_stage, [made.pk], "approve", actor=organizer)
    made.refresh_from_db()
    withdraw(made, actor=player)
    assert not StageEntry.objects.filter(stage=open_stage).exists()
    assert Registration.objects.get(pk=made.pk).status == S.WITHDRAWN


def test_rejection_needs_a_reason_and_frees_the_place(
    open_stage, organizer, make_player, details, django_capture_on_commit_callbacks
):
    made = [register(open_stage, actor=make_player(f"p{n}"), **details(n)) for n in range(1, 6)]
    error = refusal(lambda: decide(open_stage, [made[0].pk], "reject", " ", actor=organizer))
    assert error.code == ErrorCode.INVALID_INPUT and "reason" in error.message
    mail.outbox.clear()
    with django_capture_on_commit_callbacks(execute=True):
        decide(open_stage, [made[0].pk, made[4].pk], "reject", "Not a member", actor=organizer)
    statuses = dict(Registration.objects.values_list("position", "status"))
    assert statuses == {1: S.REJECTED, 2: S.PENDING, 3: S.PENDING, 4: S.PENDING, 5: S.REJECTED}
    rejected = next(m for m in mail.outbox if m.to == ["p1@people.test"])
    assert "Reason: Not a member" in rejected.body


def test_a_decision_is_all_or_nothing(open_stage, organizer, make_player, details):
    made = [register(open_stage, actor=make_player(f"p{n}"), **details(n)) for n in range(1, 5)]
    # The fourth is on the reserve list: it cannot be approved, so nothing is.
    error = refusal(lambda: decide(open_stage, [r.pk for r in made], "approve", actor=organizer))
    assert error.code == ErrorCode.WRONG_STATUS and "Player 4" in error.message
    assert not Entrant.objects.exists()
    assert set(Registration.objects.values_list("status", flat=True)) == {S.PENDING, S.RESERVE}
    error = refusal(lambda: decide(open_stage, [made[0].pk, 999999], "approve", actor=organizer))
    assert error.code == ErrorCode.NOT_FOUND and "999999" in error.message
    assert not Entrant.objects.exists()


def test_only_organizers_decide(open_stage, make_player, details):
    player = make_player("j")
    made = register(open_stage, actor=player, **details(1))
    error = refusal(lambda: decide(open_stage, [made.pk], "approve", actor=player))
    assert error.code == ErrorCode.PERMISSION_DENIED


def test_after_registration_closes_nothing_is_decided(open_stage, organizer, make_player, details):
    players = [make_player(f"p{n}") for n in range(1, 4)]
    made = [register(open_stage, actor=p, **details(n + 1)) for n, p in enumerate(players)]
    decide(open_stage, [made[0].pk, made[1].pk], "approve", actor=organizer)
    open_stage.refresh_from_db()
    update_stage(organizer, open_stage, format="round_robin", min_group_size=2)
    close_registration(organizer, open_stage)
    error = refusal(lambda: decide(open_stage, [made[2].pk], "approve", actor=organizer))
    assert error.code == ErrorCode.WRONG_STATUS
    made[2].refresh_from_db()
    assert refusal(lambda: withdraw(made[2], actor=players[2])).code == ErrorCode.WRONG_STATUS
