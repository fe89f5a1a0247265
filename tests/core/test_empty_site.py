"""A fresh empty site (issue 27): pointing DATABASE_URL at another SQLite file keeps DEBUG on
(`make run-empty`), and a site with DEBUG off and no SECRET_KEY stops with one sentence
saying what to do, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import SECRET_KEY_MISSING, debug_from_env, secret_key_from_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("env", "debug"),
    [
        ({}, True),
        ({"DATABASE_URL": "sqlite:////tmp/empty.sqlite3"}, True),
        ({"DATABASE_URL": "postgres://cc@db/cup"}, False),
        ({"DATABASE_URL": "sqlite:////tmp/empty.sqlite3", "DEBUG": "0"}, False),
        ({"DATABASE_URL": "postgres://cc@db/cup", "DEBUG": "1"}, True),
    ],
)
def test_debug_follows_the_kind_of_database_unless_set(env, debug):
    assert debug_from_env(env) is debug


def test_a_missing_secret_key_is_refused_only_with_debug_off():
    assert secret_key_from_env({"SECRET_KEY": "k" * 50}, debug=False) == "k" * 50
    assert secret_key_from_env({}, debug=True).startswith("django-insecure")
    with pytest.raises(ImproperlyConfigured) as refused:
        secret_key_from_env({}, debug=False)
    assert str(refused.value) == SECRET_KEY_MISSING
    assert "set SECRET_KEY" in SECRET_KEY_MISSING and "DEBUG=1" in SECRET_KEY_MISSING


def _manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DATABASE_URL", "DEBUG", "SECRET_KEY", "CELERY_BROKER_URL"}
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_second_sqlite_file_is_a_fresh_site_with_debug_on(tmp_path):
    url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    done = _manage(tmp_path, "migrate", "--noinput", DATABASE_URL=url)
    assert done.returncode == 0, done.stderr
    shown = _manage(
        tmp_path,
        "shell",
        "-c",
        "from django.conf import settings; from django.contrib.auth.models import User; "
        "print(settings.DEBUG, User.objects.count())",
        DATABASE_URL=url,
    )
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.strip().splitlines()[-1] == "True 0"


def test_debug_off_without_a_secret_key_stops_with_a_sentence(tmp_path):
    done = _manage(tmp_path, "check", DATABASE_URL="postgres://cc@127.0.0.1:1/none")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.strip() == f"Closed Circle cannot start: {SECRET_KEY_MISSING}"
