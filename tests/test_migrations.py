"""Every model change has its migration, and a new game system needs none (issue 23)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.django_db
def test_no_model_change_is_missing_its_migration():
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=1)
    except SystemExit as exit:  # --check exits 1 when a migration is missing
        pytest.fail(f"makemigrations --check found a change with no migration (exit {exit.code})")


# A sixth system registered before the models load, as a new module in rules/systems/ would be.
SIXTH_SYSTEM = """
import django, rules
from tests.contract.coin_flip import SYSTEM
with rules.registered(SYSTEM):
    django.setup()
    from campaigns.models import Campaign
    assert "coin-flip" in dict(Campaign._meta.get_field("system").choices), "the sixth system is not offered"
    from django.core.management import call_command
    call_command("makemigrations", "--check", "--dry-run")
"""


def test_a_sixth_system_needs_no_migration(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME"}}
    env.update({"DJANGO_SETTINGS_MODULE": "config.settings", "SQLITE_NAME": str(tmp_path / "db.sqlite3")})
    result = subprocess.run(
        [sys.executable, "-c", SIXTH_SYSTEM], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "No changes detected" in result.stdout
