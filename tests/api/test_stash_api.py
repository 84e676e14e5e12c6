"""The party's stash through the API (issue 41): read by anyone at the table, moved by those who may change the
character, with the page's sentences; a second taker gets a 409."""

from __future__ import annotations

import pytest

from campaigns import stash
from campaigns.models import StashItem
from rules import base as rules_base
from tests.api.conftest import bearer
from tests.conftest import make_character, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def loot(campaign, gm):
    stash.stash_add_item(
        campaign_id=campaign.pk, item=rules_base.Item(name="Idol", kind="treasure", slots=1, quantity=2), by=gm
    )
    return StashItem.objects.get(name="Idol")


def _url(campaign, end=""):
    return f"/api/campaigns/{campaign.pk}/stash{end}"


def test_the_stash_is_read_by_anyone_at_the_table_and_nobody_else(campaign, loot, gm, player, stranger):
    for client in (bearer(player), bearer(player, "read"), bearer(gm, "table", campaign)):
        answer = client.get(_url(campaign))
        assert answer.status_code == 200
        assert answer.json()["items"] == [
            {"id": loot.pk, "name": "Idol", "kind": "treasure", "slots": 1, "quantity": 2}
        ]
        assert answer.json()["history"][0]["what"] == "Put Idol ×2 in the stash"
    assert bearer(stranger).get(_url(campaign)).status_code == 404


def test_a_player_takes_and_puts_back_through_a_play_token(campaign, loot, hero, player):
    client = bearer(player)
    answer = client.send(_url(campaign, "/take"), {"character": hero.pk, "item": loot.pk, "quantity": 1})
    assert answer.status_code == 200 and answer.json()["items"][0]["quantity"] == 1
    held = hero.items.get(name="Idol")
    answer = client.send(_url(campaign, "/put"), {"character": hero.pk, "item": held.pk})
    assert answer.status_code == 200 and answer.json()["items"][0]["quantity"] == 2
    assert not hero.items.filter(name="Idol").exists()


def test_who_may_not_move_is_refused_as_on_the_pages(campaign, loot, hero, rival, gm, player, stranger):
    body = {"character": rival.pk, "item": loot.pk}
    assert bearer(player).send(_url(campaign, "/take"), body).status_code == 404  # not theirs
    assert bearer(player, "read").send(_url(campaign, "/take"), {**body, "character": hero.pk}).status_code == 403
    assert bearer(stranger).send(_url(campaign, "/take"), body).status_code == 404
    elsewhere = make_table("fell-draft", gm, player, name="Elsewhere")
    far = make_character(player, elsewhere, name="Far")
    assert bearer(player).send(_url(campaign, "/take"), {**body, "character": far.pk}).status_code == 404
    assert bearer(gm, "table", campaign).send(_url(campaign, "/take"), body).status_code == 200  # the GM, for Ash
    assert rival.items.get(name="Idol").quantity == 2 and not StashItem.objects.filter(pk=loot.pk).exists()


def test_the_second_taker_gets_a_409_with_a_sentence(campaign, loot, hero, rival, player, other_player):
    assert bearer(player).send(_url(campaign, "/take"), {"character": hero.pk, "item": loot.pk}).status_code == 200
    answer = bearer(other_player).send(_url(campaign, "/take"), {"character": rival.pk, "item": loot.pk})
    assert answer.status_code == 409 and "no longer in the stash" in answer.json()["detail"]
    assert not rival.items.filter(name="Idol").exists()
