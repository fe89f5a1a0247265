"""The admin opens every model's list and a record of it; the audit trail is read-only."""

import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.urls import reverse

from apps.core.models import AuditEvent
from apps.entrants.models import Entrant
from tests.worlds.pages import *  # noqa: F403 (the fixtures of this world)

pytestmark = pytest.mark.django_db

MODELS = [
    "stages.tournament",
    "stages.stage",
    "stages.drawjob",
    "entrants.entrant",
    "entrants.stageentry",
    "groups.group",
    "groups.seat",
    "groups.game",
    "core.auditevent",
]


@pytest.fixture
def admin_client(client, published_stage):
    client.force_login(get_user_model().objects.create_superuser("root", "r@example.org", "pw"))
    return client


@pytest.mark.parametrize("label", MODELS)
def test_every_model_has_an_admin_list_and_change_page(admin_client, label):
    app_label, model_name = label.split(".")
    model = next(m for m in admin.site._registry if m._meta.label_lower == label)
    changelist = reverse(f"admin:{app_label}_{model_name}_changelist")
    assert admin_client.get(changelist).status_code == 200
    obj = model.objects.first()
    url = reverse(f"admin:{app_label}_{model_name}_change", args=[obj.pk])
    assert admin_client.get(url).status_code == 200


def test_entrants_are_searched_by_code_and_filtered_by_nation(admin_client):
    url = reverse("admin:entrants_entrant_changelist")
    assert admin_client.get(url, {"q": "E000007"}).context["cl"].result_count == 1
    nation = Entrant.objects.first().nation
    listed = admin_client.get(url, {"nation": nation}).context["cl"].result_count
    assert listed == Entrant.objects.filter(nation=nation).count() < Entrant.objects.count()


def test_the_audit_trail_cannot_be_changed_in_the_admin(admin_client):
    event = AuditEvent.objects.first()
    url = reverse("admin:core_auditevent_change", args=[event.pk])
    admin_client.post(url, {"action": "forged"})
    event.refresh_from_db()
    assert event.action != "forged"
    assert admin_client.get(reverse("admin:core_auditevent_add")).status_code == 403
