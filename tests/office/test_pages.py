"""Setting up a season through the pages: a user with the right creates a tournament with its
stages, adds, edits and deletes stages; frozen settings are read-only with the reason, and a
change a stage can no longer take is refused; no page sends an organizer to the admin."""

import re

import pytest
from django.urls import reverse

from apps.core.audit import Action
from apps.core.models import AuditEvent
from apps.entrants.services import close_registration
from apps.stages.models import Stage, Tournament

pytestmark = pytest.mark.django_db

NEW = reverse("tournament-new")


def page(client, url: str) -> str:
    answer = client.get(url)
    assert answer.status_code == 200, url
    return answer.content.decode()


def stage_form(stage: Stage, **changes) -> dict:
    """What the stage's settings page sends with nothing frozen, with ``changes``."""
    data = {
        "kind": stage.kind,
        "order": stage.order,
        "format": stage.format,
        "games_per_player_override": stage.games_per_player_override or "",
        "min_group_size": stage.min_group_size,
        "allowed_nation_games": stage.allowed_nation_games,
        "formula": ", ".join(map(str, stage.formula or [])),
        "qualify_rule": stage.qualify_rule,
        "qualify_value": stage.qualify_value or "",
        "play_starts_on": stage.play_starts_on or "",
        "play_ends_on": stage.play_ends_on or "",
        "report_accept_days": stage.report_accept_days,
        # Play on the server: the one setting whose empty value is not its default.
        "doubling_after": stage.doubling_after if stage.doubling_after is not None else "",
        "frozen_fields": "",
    }
    flags = ("separate_nations", "avoid_rematches", "double_round_robin", "balance_ratings")
    for flag in (*flags, "open_registration", "unrated_allowed"):
        if getattr(stage, flag):
            data[flag] = "on"
    data.update(changes)
    return {k: v for k, v in data.items() if v is not None and v is not False}


def test_the_home_page_offers_new_tournament_to_those_who_may_create(client, creator, stranger):
    client.force_login(creator)
    assert f'href="{NEW}"' in page(client, reverse("home"))
    client.force_login(stranger)
    assert f'href="{NEW}"' not in page(client, reverse("home"))


def test_the_new_tournament_page_is_for_those_who_may_create(client, creator, stranger):
    assert client.get(NEW).status_code == 302
    client.force_login(stranger)
    assert client.get(NEW).status_code == 403
    client.force_login(creator)
    html = page(client, NEW)
    for name in (
        "name",
        "slug",
        "games_per_player",
        "points_win",
        "points_draw",
        "points_loss",
        "tiebreak",
        "ranking",
        "description",
        "contact_email",
        "starts_on",
        "ends_on",
        "add_semifinal",
        "add_final",
    ):
        assert f'name="{name}"' in html, name


def test_a_tournament_is_created_through_the_form_with_its_stages(client, creator):
    client.force_login(creator)
    answer = client.post(
        NEW,
        {
            "name": "Autumn Cup 2027",
            "slug": "",
            "games_per_player": 8,
            "points_win": "1",
            "points_draw": "0.5",
            "points_loss": "0",
            "tiebreak": "torino",
            "ranking": "group",
            "description": "Our yearly cup.",
            "contact_email": "cup@example.org",
            "starts_on": "2027-09-01",
            "ends_on": "",
            "add_semifinal": "on",
            "add_final": "on",
        },
    )
    assert answer.status_code == 302
    cup = Tournament.objects.get(slug="autumn-cup-2027")
    assert answer["Location"] == cup.get_absolute_url()
    assert list(cup.organizers.all()) == [creator]
    assert cup.games_per_player == 8 and cup.contact_email == "cup@example.org"
    stages = list(cup.stages.order_by("order"))
    assert [s.kind for s in stages] == ["preliminary", "semifinal", "final"]
    assert [s.separate_nations for s in stages] == [True, True, False]
    assert all(s.avoid_rematches for s in stages)

    html = page(client, cup.get_absolute_url())
    assert "Our yearly cup." in html
    assert "is created" in html
    assert "/admin/" not in html.replace('href="/admin/"', "")  # only the staff top bar may
    assert reverse("stage-new", args=[cup.slug]) in html
    for stage in stages:
        assert reverse("stage-edit", args=[cup.slug, stage.order]) in html
        assert reverse("stage-delete", args=[cup.slug, stage.order]) in html
    assert html.count("data-confirm=") == 3


def test_a_bad_value_on_the_form_is_shown_on_its_field_and_nothing_is_created(client, creator):
    client.force_login(creator)
    answer = client.post(
        NEW,
        {
            "name": "Too Long Cup",
            "games_per_player": 61,
            "points_win": 1,
            "points_draw": 0.5,
            "points_loss": 0,
            "tiebreak": "torino",
            "ranking": "group",
        },
    )
    assert answer.status_code == 400
    assert "beyond what a correspondence stage can play" in answer.content.decode()
    answer = client.post(
        NEW,
        {
            "name": "Odd Cup",
            "games_per_player": 10,
            "points_win": 1,
            "points_draw": 2,
            "points_loss": 0,
            "tiebreak": "torino",
            "ranking": "group",
        },
    )
    assert answer.status_code == 400
    assert "A draw cannot be worth more than a win." in answer.content.decode()
    assert not Tournament.objects.exists()


def test_no_page_sends_an_organizer_to_the_admin(client, organizer, cup):
    client.force_login(organizer)
    for url in (
        reverse("home"),
        cup.get_absolute_url(),
        reverse("tournament-edit", args=[cup.slug]),
        reverse("stage-new", args=[cup.slug]),
        reverse("stage-edit", args=[cup.slug, 1]),
        reverse("stage-manage", args=[cup.slug, 1]),
    ):
        assert "/admin/" not in page(client, url), url


def test_the_tournament_settings_are_edited_on_their_page(client, organizer, cup):
    client.force_login(organizer)
    url = reverse("tournament-edit", args=[cup.slug])
    form = {
        "name": "Setup Cup",
        "slug": "setup-cup",
        "games_per_player": 10,
        "points_win": "1",
        "points_draw": "0.5",
        "points_loss": "0",
        "tiebreak": "buchholz",
        "ranking": "group",
        "description": "New rules.",
        "frozen_fields": "",
    }
    answer = client.post(url, form)
    assert answer.status_code == 302
    cup.refresh_from_db()
    assert (cup.tiebreak, cup.description) == ("buchholz", "New rules.")
    assert AuditEvent.objects.filter(action=Action.TOURNAMENT_UPDATED).count() == 1


def test_a_stage_is_added_with_the_defaults_of_its_kind(client, organizer, cup):
    client.force_login(organizer)
    url = reverse("stage-new", args=[cup.slug])
    html = page(client, url + "?kind=final")
    assert re.search(r'name="separate_nations"[^>]*checked', html) is None
    assert re.search(r'name="avoid_rematches"[^>]*checked', html)
    html = page(client, url + "?kind=semifinal")
    assert re.search(r'name="separate_nations"[^>]*checked', html)

    answer = client.post(
        url,
        {
            "kind": "final",
            "order": "",
            "format": "round_robin",
            "min_group_size": 12,
            "allowed_nation_games": 0,
            "avoid_rematches": "on",
            "frozen_fields": "",
        },
    )
    assert answer.status_code == 302, answer.content.decode()
    stage = cup.stages.get(order=4)
    assert (stage.kind, stage.format, stage.min_group_size) == ("final", "round_robin", 12)
    assert not stage.separate_nations and stage.avoid_rematches
    assert AuditEvent.objects.filter(action=Action.STAGE_CREATED, stage_id=stage.pk).exists()


def test_a_stage_is_edited_on_its_settings_page(client, organizer, preliminary):
    client.force_login(organizer)
    url = reverse("stage-edit", args=[preliminary.tournament.slug, 1])
    html = page(client, url)
    assert "Read-only" not in html
    answer = client.post(
        url,
        stage_form(
            preliminary,
            min_group_size=80,
            games_per_player_override=8,
            formula="1, 3, 8, 17",
            qualify_rule="top_per_group",
            qualify_value="20",
            qualify_relative="on",
            play_starts_on="2027-04-01",
        ),
    )
    assert answer.status_code == 302, answer.content.decode()
    preliminary.refresh_from_db()
    assert preliminary.min_group_size == 80
    assert preliminary.games_per_player == 8
    assert preliminary.formula == [1, 3, 8, 17]
    assert (preliminary.qualify_rule, preliminary.qualify_relative) == ("top_per_group", True)
    assert str(preliminary.play_starts_on) == "2027-04-01"
    event = AuditEvent.objects.get(action=Action.STAGE_UPDATED)
    assert set(event.data["changes"]) == {
        "min_group_size",
        "games_per_player_override",
        "formula",
        "qualify_rule",
        "qualify_value",
        "qualify_relative",
        "play_starts_on",
    }


def test_a_bad_stage_value_is_shown_on_its_field(client, organizer, preliminary):
    client.force_login(organizer)
    url = reverse("stage-edit", args=[preliminary.tournament.slug, 1])
    answer = client.post(url, stage_form(preliminary, formula="1, 4, 10"))
    assert answer.status_code == 400
    assert "10 games per player need 5" in answer.content.decode()
    answer = client.post(url, stage_form(preliminary, min_group_size=5000))
    assert answer.status_code == 400
    assert "beyond what one group&#x27;s TD can run" in answer.content.decode()
    preliminary.refresh_from_db()
    assert preliminary.min_group_size == 100 and preliminary.formula is None


def test_frozen_settings_are_read_only_with_the_reason(client, organizer, closed):
    client.force_login(organizer)
    html = page(client, reverse("stage-edit", args=[closed.tournament.slug, 1]))
    assert re.search(r'name="min_group_size"[^>]*disabled', html)
    assert re.search(r'name="kind"[^>]*disabled', html) is None
    assert "Registration is closed: the draw is made from the entrant list" in html
    assert 'name="frozen_fields"' in html


def test_a_change_to_a_setting_frozen_meanwhile_is_refused(client, organizer, registered):
    """The page was opened while registration was open; it closed before the form was sent."""
    client.force_login(organizer)
    url = reverse("stage-edit", args=[registered.tournament.slug, 1])
    page(client, url)
    close_registration(organizer, registered)
    answer = client.post(url, stage_form(registered, min_group_size=20, play_ends_on="2028-01-01"))
    assert answer.status_code == 409
    html = answer.content.decode()
    assert "Reopen registration to change them." in html
    registered.refresh_from_db()
    assert registered.min_group_size == 12 and registered.play_ends_on is None


def test_saving_the_page_with_frozen_fields_changes_the_others(client, organizer, closed):
    client.force_login(organizer)
    url = reverse("stage-edit", args=[closed.tournament.slug, 1])
    data = stage_form(closed, play_ends_on="2028-01-01", kind="semifinal")
    # The browser sends no disabled input: the page lists them in frozen_fields.
    for name in (
        "format",
        "min_group_size",
        "allowed_nation_games",
        "formula",
        "games_per_player_override",
        "separate_nations",
        "avoid_rematches",
    ):
        data.pop(name, None)
    data["frozen_fields"] = ",".join(
        [
            "format",
            "games_per_player_override",
            "min_group_size",
            "separate_nations",
            "avoid_rematches",
            "double_round_robin",
            "balance_ratings",
            "allowed_nation_games",
            "formula",
        ]
    )
    answer = client.post(url, data)
    assert answer.status_code == 302, answer.content.decode()
    closed.refresh_from_db()
    assert str(closed.play_ends_on) == "2028-01-01" and closed.kind == "semifinal"
    assert closed.separate_nations and closed.min_group_size == 12


def test_an_undrawn_stage_is_deleted_and_a_drawn_one_is_not(client, organizer, cup, drawn):
    client.force_login(organizer)
    html = page(client, cup.get_absolute_url())
    assert reverse("stage-delete", args=[cup.slug, 1]) not in html  # drawn
    assert reverse("stage-delete", args=[cup.slug, 2]) in html
    answer = client.post(reverse("stage-delete", args=[cup.slug, 2]))
    assert answer.status_code == 302
    assert list(cup.stages.order_by("order").values_list("kind", flat=True)) == [
        "preliminary",
        "final",
    ]
    answer = client.post(reverse("stage-delete", args=[cup.slug, 1]), follow=True)
    assert "can no longer be deleted" in answer.content.decode()
    assert cup.stages.filter(order=1).exists()


def test_publish_and_draw_again_ask_first(client, organizer, drawn):
    client.force_login(organizer)
    slug = drawn.tournament.slug
    manage = page(client, reverse("stage-manage", args=[slug, 1]))
    assert re.search(r'id="draw-form"\s+data-confirm="Draw again\?', manage)
    job = drawn.draw_jobs.first()
    review = page(client, reverse("draw-progress", args=[slug, 1, job.pk]))
    assert 'data-confirm="Publish the draw?' in review


def test_only_organizers_open_the_settings_pages(client, stranger, cup):
    urls = [
        reverse("tournament-edit", args=[cup.slug]),
        reverse("stage-new", args=[cup.slug]),
        reverse("stage-edit", args=[cup.slug, 1]),
    ]
    for url in urls:
        assert client.get(url).status_code == 302
    client.force_login(stranger)
    for url in urls:
        assert client.get(url).status_code == 403
    assert client.post(reverse("stage-delete", args=[cup.slug, 2])).status_code == 403
    assert cup.stages.count() == 3


def test_a_frozen_formula_is_kept_when_the_page_is_saved(client, organizer, closed):
    """A stage with a formula: the page shows it read-only after registration closes, and
    saving the page parses the stored list it sends back instead of refusing it."""
    Stage.objects.filter(pk=closed.pk).update(
        format=Stage.Format.SILLI, games_per_player_override=4, formula=[2, 3]
    )
    closed.refresh_from_db()
    client.force_login(organizer)
    url = reverse("stage-edit", args=[closed.tournament.slug, 1])
    data = stage_form(closed, play_ends_on="2028-01-01")
    for name in ("formula", "format", "games_per_player_override"):
        data.pop(name)
    data["frozen_fields"] = "format,formula,games_per_player_override"
    answer = client.post(url, data)
    assert answer.status_code == 302, answer.content.decode()
    closed.refresh_from_db()
    assert closed.formula == [2, 3] and str(closed.play_ends_on) == "2028-01-01"
