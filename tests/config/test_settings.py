"""Settings come from the environment through small typed helpers that refuse nonsense."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.settings import database_from_url, env_bool, env_int, env_list

ROOT = Path(__file__).resolve().parents[2]


def test_env_bool_reads_common_spellings(monkeypatch):
    monkeypatch.setenv("X_FLAG", "Yes")
    assert env_bool("X_FLAG", False) is True
    monkeypatch.setenv("X_FLAG", "0")
    assert env_bool("X_FLAG", True) is False
    monkeypatch.delenv("X_FLAG")
    assert env_bool("X_FLAG", True) is True


def test_env_bool_rejects_nonsense(monkeypatch):
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        env_bool("X_FLAG", False)


def test_env_int_rejects_words_and_values_below_minimum(monkeypatch):
    monkeypatch.setenv("X_NUM", "ten")
    with pytest.raises(ImproperlyConfigured, match="whole number"):
        env_int("X_NUM", 1)
    monkeypatch.setenv("X_NUM", "-2")
    with pytest.raises(ImproperlyConfigured, match="at least 0"):
        env_int("X_NUM", 1, minimum=0)
    monkeypatch.setenv("X_NUM", "12")
    assert env_int("X_NUM", 1) == 12


def test_env_list_splits_on_commas(monkeypatch):
    monkeypatch.setenv("X_LIST", "a.example, b.example,,")
    assert env_list("X_LIST", []) == ["a.example", "b.example"]


def test_database_url_becomes_a_pooled_postgres_entry():
    db = database_from_url("postgres://lantern:s%40cret@db.internal:5433/lantern?sslmode=require")
    assert db["ENGINE"] == "config.postgresql"  # Django's, with a pool that sweeps out dead connections
    assert db["CONN_HEALTH_CHECKS"] is True
    assert (db["NAME"], db["USER"], db["PASSWORD"], db["HOST"], db["PORT"]) == (
        "lantern",
        "lantern",
        "s@cret",
        "db.internal",
        "5433",
    )
    assert db["OPTIONS"]["sslmode"] == "require"
    assert db["OPTIONS"]["pool"]["max_size"] >= 1


@pytest.mark.parametrize("url", ["mysql://x@y/z", "postgres://x@y/"])
def test_database_url_rejects_other_engines_and_missing_names(url):
    with pytest.raises(ImproperlyConfigured):
        database_from_url(url)


def _manage(*args: str, **env: str) -> subprocess.CompletedProcess:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in {"DEBUG", "SECRET_KEY", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    }
    environment.update(env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=60
    )


def test_refuses_to_start_without_secret_key_when_debug_is_off():
    result = _manage("check", DEBUG="0")
    assert result.returncode != 0
    assert "SECRET_KEY" in result.stderr


def test_deploy_check_is_clean_with_debug_off():
    result = _manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="0",
        SECRET_KEY="a-long-random-production-secret-" + "x7Qp2Lm9Zt4Rw8Ny" * 3,
        ALLOWED_HOSTS="lantern.example",
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_demo_refuses_to_run_with_debug_off():
    result = _manage(
        "demo", DEBUG="0", SECRET_KEY="a-long-random-production-secret-" + "x7Qp2Lm9Zt4Rw8Ny" * 3, ALLOWED_HOSTS="x"
    )
    assert result.returncode != 0
    assert "--force" in result.stderr


def test_a_transaction_mode_pooler_turns_off_what_needs_a_session(monkeypatch):
    monkeypatch.setenv("DATABASE_TRANSACTION_POOLER", "1")
    db = database_from_url("postgres://postgres@127.0.0.1:6432/lantern")
    assert db["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert db["OPTIONS"]["prepare_threshold"] is None
    monkeypatch.delenv("DATABASE_TRANSACTION_POOLER")
    assert database_from_url("postgres://postgres@127.0.0.1/lantern")["DISABLE_SERVER_SIDE_CURSORS"] is False


def _listen_settings(**env: str) -> str:
    return _manage("shell", "-c", "from django.conf import settings; print(settings.DATABASE_LISTEN)", **env).stdout


def test_the_live_tables_sessions_go_to_database_listen_url_and_by_default_where_requests_go():
    through_pooler = "postgres://postgres@127.0.0.1:6432/lantern"
    direct = _listen_settings(
        DATABASE_URL=through_pooler, DATABASE_LISTEN_URL="postgres://postgres@127.0.0.1:5432/lantern"
    )
    assert "'PORT': '5432'" in direct
    assert "'NAME': None" in direct  # the same database as the requests' (the test runner's test_ copy in tests)
    assert "'PORT': '6432'" in _listen_settings(DATABASE_URL=through_pooler)
    assert _listen_settings().strip().endswith("None")  # SQLite: signals stay in the one process
