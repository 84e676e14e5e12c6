"""The contract's fixtures, shared by its test modules: every registered system and Coin Flip, a table, a hero."""

from __future__ import annotations

import pytest

import rules
from campaigns.models import Campaign, Membership
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem
from tests.conftest import make_character
from tests.contract.coin_flip import SYSTEM as COIN_FLIP

REAL_SYSTEMS = list(rules.SYSTEMS)


@pytest.fixture(params=[*REAL_SYSTEMS, "coin-flip"])
def system_id(request, db):
    if request.param != "coin-flip":
        yield request.param
        return
    with rules.registered(COIN_FLIP):
        load_catalogue(CatalogueItem, "coin-flip")
        yield "coin-flip"


@pytest.fixture
def system(system_id):
    return rules.system_for(system_id)


@pytest.fixture
def table(system_id, gm, player, other_player):
    campaign = Campaign.objects.create(name="The contract table", system=system_id)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


@pytest.fixture
def hero(table, player, system_id):
    return make_character(player, table, system=system_id, name="Wren")
