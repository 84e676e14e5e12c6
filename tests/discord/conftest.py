"""Discord tests: Discord stood in for by tests/discord/standin.py (the test key pair signs every post)."""

from __future__ import annotations

import pytest
from django.test import Client

from discord import linking
from discord.models import LinkCode
from tests.discord import standin


@pytest.fixture(autouse=True)
def _discord_settings(settings):
    settings.DISCORD_PUBLIC_KEY = standin.PUBLIC_KEY
    settings.DISCORD_APPLICATION_ID = standin.APPLICATION_ID


@pytest.fixture
def discord(db):
    return standin.Discord(standin.through_client(Client()))


def link(discord, user) -> None:
    """``user``'s Discord user (their username in the stand-in) linked, as a player does it."""
    code = linking.code_make(user=user, kind=LinkCode.Kind.USER)
    assert discord.command(user.username, "lantern", "link", code=code).content.startswith("Linked")


@pytest.fixture
def table(discord, gm, player, other_player, campaign):
    """Everyone at the campaign linked, and the stand-in's channel playing it."""
    for user in (gm, player, other_player):
        link(discord, user)
    code = linking.code_make(user=gm, kind=LinkCode.Kind.CHANNEL, campaign_id=campaign.pk)
    assert discord.command("gm", "lantern", "channel", code=code).content.startswith("This channel now plays")
    discord.transcript.clear()
    return campaign
