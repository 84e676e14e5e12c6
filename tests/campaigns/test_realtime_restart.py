"""Real time across a server restart (issue 41): the process that started the clock is gone; a new process (the
ticker command, started as its own program on the test database) reads the campaign row and applies the game time
that fell due, and stops short of what has not."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db import connection

from campaigns import session
from campaigns.models import Campaign
from rules import base as rules_base
from tests.campaigns.test_realtime import light
from tests.postgres import database_urls

pytestmark = pytest.mark.django_db(transaction=True)  # the other process reads what this one committed
ROOT = Path(__file__).resolve().parents[2]


def _ticker_once() -> str:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME"}}
    if connection.vendor == "postgresql":
        env.update(database_urls())
    else:
        env["SQLITE_NAME"] = str(connection.settings_dict["NAME"])
    done = subprocess.run(
        [sys.executable, "manage.py", "clock_ticker", "--once"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_new_process_applies_the_time_due_while_the_server_was_away(campaign, gm, player, hero):
    torch = light(hero, rules_base.Item("torch (1 hour)", "light"), player)
    session.realtime_start(campaign_id=campaign.pk, by=gm, now=datetime.now(UTC) - timedelta(minutes=25))
    assert _ticker_once() == f"campaign {campaign.pk}: 2 step(s) of game time\n"
    campaign.refresh_from_db()
    torch.refresh_from_db()
    assert (campaign.game_minutes, torch.data["burned"]) == (20, 20)
    assert campaign.realtime_since is not None  # still running, from where the row says
    assert _ticker_once() == ""  # the next 10 minutes are not due yet
    Campaign.objects.filter(pk=campaign.pk).update(realtime_since=campaign.realtime_since - timedelta(minutes=10))
    assert _ticker_once() == f"campaign {campaign.pk}: 1 step(s) of game time\n"
