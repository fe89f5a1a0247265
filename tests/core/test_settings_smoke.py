from pathlib import Path

import pytest
from django.contrib.auth.models import User

from config.settings import celery_from_env, database_from_env, env_bool


def test_database_defaults_to_sqlite_file_in_project_root(tmp_path: Path) -> None:
    config = database_from_env({}, base_dir=tmp_path)

    assert config["ENGINE"] == "django.db.backends.sqlite3"
    assert Path(config["NAME"]) == tmp_path / "db.sqlite3"


def test_database_url_selects_postgres_with_persistent_connections() -> None:
    config = database_from_env({"DATABASE_URL": "postgres://cc:secret@db.example:5433/cup"})

    assert config["ENGINE"] == "django.db.backends.postgresql"
    assert (config["HOST"], config["PORT"], config["NAME"]) == ("db.example", 5433, "cup")
    assert (config["USER"], config["PASSWORD"]) == ("cc", "secret")
    assert config["CONN_MAX_AGE"] == 60


def test_celery_runs_tasks_in_process_without_a_broker() -> None:
    config = celery_from_env({})

    assert config["CELERY_TASK_ALWAYS_EAGER"] is True
    assert config["CELERY_TASK_EAGER_PROPAGATES"] is True


def test_celery_uses_the_broker_as_result_backend_unless_one_is_given() -> None:
    broker = "redis://127.0.0.1:6379/0"

    assert celery_from_env({"CELERY_BROKER_URL": broker})["CELERY_RESULT_BACKEND"] == broker
    assert celery_from_env({"CELERY_BROKER_URL": broker})["CELERY_TASK_ALWAYS_EAGER"] is False
    separate = {"CELERY_BROKER_URL": broker, "CELERY_RESULT_BACKEND": "redis://other:6379/1"}
    assert celery_from_env(separate)["CELERY_RESULT_BACKEND"] == "redis://other:6379/1"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("0", False), ("false", False), ("No", False), ("1", True), ("true", True), ("", True)],
)
def test_env_bool_reads_yes_no_values_and_falls_back_on_empty(raw: str, expected: bool) -> None:
    assert env_bool({"DEBUG": raw}, "DEBUG", default=True) is expected


@pytest.mark.django_db
def test_configured_database_is_migrated_and_stores_rows() -> None:
    User.objects.create_user("td")

    assert User.objects.filter(username="td").exists()
