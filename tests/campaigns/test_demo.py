"""``manage.py demo`` gives a table to play at, and can be run again safely."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from campaigns.models import Campaign
from rules import SYSTEM_NAMES

pytestmark = pytest.mark.django_db


def test_demo_is_idempotent_and_seats_everyone(capsys):
    # pytest-django runs tests with DEBUG off, like production: hence --force.
    call_command("demo", force=True)
    call_command("demo", force=True)
    assert "lantern" in capsys.readouterr().out
    users = get_user_model().objects.filter(username__in=["gm", "alice", "bob"])
    assert users.count() == 3
    assert all(user.check_password("lantern") for user in users)
    mixed = Campaign.objects.get(name="Demo: a mixed table")
    assert Campaign.objects.count() == len(SYSTEM_NAMES) + 1
    assert mixed.is_mixed and sorted(mixed.characters.values_list("system", flat=True)) == sorted(mixed.systems)
    for campaign in Campaign.objects.all():
        roles = dict(campaign.memberships.values_list("user__username", "role"))
        assert roles == {"gm": "gm", "alice": "player", "bob": "player"}
