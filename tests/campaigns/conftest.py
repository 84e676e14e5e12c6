"""A Chaos & Conquest table for the session tests: the GM, two players, and the player's character Wren."""

from __future__ import annotations

import pytest

from tests.conftest import make_character, make_table


@pytest.fixture
def cc(gm, player, other_player):
    return make_table("chaos-conquest", gm, player, other_player, name="Barrowmoor")


@pytest.fixture
def wren(player, cc):
    return make_character(player, cc, system="chaos-conquest", name="Wren")
