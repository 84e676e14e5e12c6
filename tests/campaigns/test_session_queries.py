"""The GM's table page stays a fixed number of queries however much of a session is running on it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import session
from tests.conftest import make_character, make_table

pytestmark = pytest.mark.django_db


def _grow(campaign, gm, owner, characters: int, npcs: int, requests: int) -> None:
    have = campaign.characters.count()
    for i in range(have, characters):
        make_character(owner, campaign, system="chaos-conquest", name=f"PC {i}", seed=i)
    if not campaign.encounters.filter(active=True).exists():
        session.encounter_start(campaign_id=campaign.pk, name="Ghouls", by=gm)
    for i in range(campaign.npcs.count(), npcs):
        session.npc_add(campaign_id=campaign.pk, name=f"Ghoul {i}", stats={"stamina": 5}, keep=i % 2 == 0)
    ids = list(campaign.characters.values_list("pk", flat=True))
    for _ in range(campaign.roll_requests.count(), requests):
        session.request_create(
            campaign_id=campaign.pk, procedure="save", fixed={"attribute": "DEX"}, character_ids=ids, minutes=30, by=gm
        )


def _queries(client, campaign) -> int:
    with CaptureQueriesContext(connection) as captured:
        assert client.get(reverse("campaigns:detail", args=[campaign.pk])).status_code == 200
    return len(captured)


@pytest.mark.parametrize("who", ["gm", "player"])
def test_the_table_page_costs_the_same_with_6_characters_10_npcs_and_50_requests(who, gm, player, as_user, request):
    campaign = make_table("chaos-conquest", gm, player)
    client = as_user(request.getfixturevalue(who))
    _grow(campaign, gm, player, characters=1, npcs=1, requests=1)
    small = _queries(client, campaign)
    _grow(campaign, gm, player, characters=6, npcs=10, requests=50)
    assert campaign.npcs.count() >= 10 and campaign.roll_requests.count() == 50
    assert _queries(client, campaign) == small
