"""The import command: all or nothing, every bad row listed, exit 2 on failure."""

from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from apps.entrants.models import Entrant

pytestmark = pytest.mark.django_db


def test_import_command(cup, organizer, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("code,name,nation\nA1,Ann,ITA\nA2,,GER\nA3,Cy,GERMANY\n")
    with pytest.raises(CommandError) as err:
        call_command("import_entrants", str(bad), "--tournament", "test-cup", "--user", "org")
    assert err.value.returncode == 2
    assert "line 3: name is required" in str(err.value) and "line 4:" in str(err.value)
    assert not Entrant.objects.exists()
    good = tmp_path / "good.csv"
    good.write_text("code,name,nation\nA1,Ann,ITA\nA2,Bo,GER\n")
    out = StringIO()
    call_command(
        "import_entrants",
        str(good),
        "--tournament",
        "test-cup",
        "--user",
        "org",
        "--dry-run",
        stdout=out,
    )
    assert "would import 2 entrants" in out.getvalue() and not Entrant.objects.exists()
    call_command(
        "import_entrants", str(good), "--tournament", "test-cup", "--user", "org", stdout=out
    )
    assert Entrant.objects.count() == 2


def test_import_command_refuses_a_non_organizer(cup, tmp_path):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("visitor")
    good = tmp_path / "good.csv"
    good.write_text("code,name,nation\nA1,Ann,ITA\n")
    with pytest.raises(CommandError, match="Only the organizers"):
        call_command("import_entrants", str(good), "--tournament", "test-cup", "--user", "visitor")
