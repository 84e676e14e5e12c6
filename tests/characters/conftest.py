"""Characters for the cast in tests/conftest.py, made by the systems' own creation rules."""

from __future__ import annotations

import random

import pytest

from characters.services import character_create


def make_character(owner, campaign=None, system="fell-draft", name="Wren", seed=7):
    character, _ = character_create(
        owner=owner,
        system=system,
        choices={"name": name},
        campaign=campaign,
        rng=random.Random(seed),
    )
    return character


@pytest.fixture
def hero(player, campaign):
    """The player's Fell character, at the campaign's table."""
    return make_character(player, campaign, name="Wren")


@pytest.fixture
def rival(other_player, campaign):
    return make_character(other_player, campaign, name="Ash", seed=11)
