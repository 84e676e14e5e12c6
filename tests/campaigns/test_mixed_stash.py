"""A mixed table's stash (issue 42): its coins are the home system's smallest; a taker of another system gets them in
its own money through each system's ``coin_worth`` (a torch's worth, the common unit), or a sentence and nothing
changed; items taken are read and counted against the taker's slots by its own system."""

from __future__ import annotations

import pytest
from django.urls import reverse

import rules
from campaigns import stash
from campaigns.models import StashEntry, StashItem
from campaigns.services import campaign_create
from characters.models import Character
from rules import RulesError
from rules import base as rules_base
from tests.conftest import seat_one_per_system
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db

HOME = "fell-draft"
ALSO = ["chaos-conquest", "fortunes-favor", "grit-flesh", "fell-late"]


@pytest.fixture
def table(gm):
    return campaign_create(name="The crossroads", system=HOME, gm=gm, also=ALSO)


@pytest.fixture
def party(table):
    return seat_one_per_system(table)


def _coins(character) -> int:
    return Character.objects.get(pk=character.pk).state["coins"]


def _stash_coins(table) -> int:
    table.refresh_from_db()
    return table.stash.coins


def _unchanged(table, party):
    """What a refusal must leave as it was: every sheet's version, the stash's coins and history."""
    return (
        {k: Character.objects.get(pk=c.pk).version for k, c in party.items()},
        _stash_coins(table),
        StashEntry.objects.filter(campaign=table).count(),
    )


def test_coins_taken_arrive_in_the_takers_own_money(table, party, gm):
    stash.stash_add_coins(campaign_id=table.pk, amount=60, by=gm)
    cc, late, grit = party["chaos-conquest"], party["fell-late"], party["grit-flesh"]
    before = {k: _coins(c) for k, c in party.items()}
    stash.stash_take_coins(campaign_id=table.pk, character_id=cc.pk, amount=5, by=cc.owner)
    assert _coins(cc) == before["chaos-conquest"] + 30  # a Fell coin is a torch's worth: 6 pennies
    assert _stash_coins(table) == 55
    entry = StashEntry.objects.filter(campaign=table).first()
    assert entry.what == f"{cc.name} took 5 coin (as 2s 6p) from the stash"
    stash.stash_take_coins(campaign_id=table.pk, character_id=late.pk, amount=3, by=late.owner)
    assert _coins(late) == before["fell-late"] + 3
    stash.stash_take_coins(campaign_id=table.pk, character_id=grit.pk, amount=10, by=grit.owner)
    assert _coins(grit) == before["grit-flesh"] + 2  # 5 coin to the gp
    assert _stash_coins(table) == 42


def test_coins_that_make_no_whole_coin_or_have_no_worth_are_refused_whole(table, party, gm):
    stash.stash_add_coins(campaign_id=table.pk, amount=60, by=gm)
    grit, ff, cc = party["grit-flesh"], party["fortunes-favor"], party["chaos-conquest"]
    was = _unchanged(table, party)
    with pytest.raises(RulesError, match="move a multiple of 5 coin"):
        stash.stash_take_coins(campaign_id=table.pk, character_id=grit.pk, amount=7, by=grit.owner)
    with pytest.raises(RulesError, match="Fortune's Favor money has no worth"):
        stash.stash_take_coins(campaign_id=table.pk, character_id=ff.pk, amount=1, by=ff.owner)
    with pytest.raises(RulesError, match="move a multiple of 6p"):
        stash.stash_put_coins(campaign_id=table.pk, character_id=cc.pk, amount=7, by=cc.owner)
    assert _unchanged(table, party) == was


def test_coins_put_in_are_kept_in_the_home_systems_coin(table, party, gm):
    cc = party["chaos-conquest"]
    held = _coins(cc)
    stash.stash_put_coins(campaign_id=table.pk, character_id=cc.pk, amount=12, by=cc.owner)
    assert _coins(cc) == held - 12 and _stash_coins(table) == 2


def test_a_split_pays_each_in_its_own_money_and_keeps_what_makes_no_whole_coin(table, party, gm):
    stash.stash_add_coins(campaign_id=table.pk, amount=20, by=gm)
    cc, grit, fell = party["chaos-conquest"], party["grit-flesh"], party[HOME]
    before = {c.pk: _coins(c) for c in (cc, grit, fell)}
    stash.coins_split(campaign_id=table.pk, character_ids=[cc.pk, grit.pk, fell.pk], amount=20, by=gm)
    assert _coins(cc) == before[cc.pk] + 36  # a share of 6 coin
    assert _coins(grit) == before[grit.pk] + 1  # 5 of its 6 coin make a gp; the 1 left stays
    assert _coins(fell) == before[fell.pk] + 6
    assert _stash_coins(table) == 3  # 2 that did not divide and 1 that made no gp
    assert "3 coin left in the stash" in StashEntry.objects.filter(campaign=table).first().what


def test_a_split_with_a_pc_whose_money_has_no_worth_is_refused_whole(table, party, gm):
    stash.stash_add_coins(campaign_id=table.pk, amount=20, by=gm)
    was = _unchanged(table, party)
    ids = [party["fortunes-favor"].pk, party[HOME].pk]
    with pytest.raises(RulesError, match="no worth"):
        stash.coins_split(campaign_id=table.pk, character_ids=ids, amount=20, by=gm)
    assert _unchanged(table, party) == was


def test_items_taken_are_read_and_counted_by_the_takers_own_system(table, party, gm):
    rope = rules_base.Item(name="Rope", kind="gear", slots=1, quantity=1)
    stash.stash_add_item(campaign_id=table.pk, item=rope, by=gm)
    for key, character in party.items():
        row = StashItem.objects.get(stash__campaign=table, name="Rope")
        stash.stash_take(campaign_id=table.pk, character_id=character.pk, stash_item_id=row.pk, by=character.owner)
        assert character.items.filter(name="Rope").exists(), key
        held = character.items.get(name="Rope")
        stash.stash_put(campaign_id=table.pk, character_id=character.pk, item_id=held.pk, by=character.owner)
        assert not character.items.filter(name="Rope").exists(), key


def test_an_item_past_the_takers_own_slots_is_refused_in_its_systems_words(table, party, gm):
    boulder = rules_base.Item(name="Boulder", kind="gear", slots=1, quantity=60)
    stash.stash_add_item(campaign_id=table.pk, item=boulder, by=gm)
    row = StashItem.objects.get(stash__campaign=table, name="Boulder")
    refused = 0
    for key, character in party.items():
        own = rules.system_for(key)
        was = _unchanged(table, party)
        try:
            stash.stash_take(campaign_id=table.pk, character_id=character.pk, stash_item_id=row.pk, by=character.owner)
        except RulesError as problem:
            refused += 1
            assert str(problem) and _unchanged(table, party) == was, key
            if key != HOME:
                assert str(problem).startswith(f"{character.name}'s {own.name} sheet cannot take Boulder"), key
            continue
        held = character.items.get(name="Boulder")  # a system that carries it: back in for the next taker
        stash.stash_put(campaign_id=table.pk, character_id=character.pk, item_id=held.pk, by=character.owner)
        row = StashItem.objects.get(stash__campaign=table, name="Boulder")
    assert refused >= 3


def test_an_item_of_another_systems_catalogue_is_read_by_the_takers_system(table, party, gm):
    """A C&C Supply in the stash: a C&C sheet takes it with its catalogue link; a Fell sheet cannot read its field
    and says so, changing nothing; a Grit & Flesh sheet that can read it drops the link (not its catalogue)."""
    from characters.catalogue import load_catalogue
    from characters.models import CatalogueItem

    load_catalogue(CatalogueItem, "chaos-conquest")
    entry = CatalogueItem.objects.filter(system="chaos-conquest", name="Supply").first()
    item = rules_base.Item(name=entry.name, kind=entry.kind, slots=entry.slots, quantity=2, data=dict(entry.data))
    stash.stash_add_item(campaign_id=table.pk, item=item, by=gm, catalogue_item=entry)
    row = StashItem.objects.get(stash__campaign=table, name="Supply")
    assert row.catalogue_item_id == entry.pk
    late = party["fell-late"]
    was = _unchanged(table, party)
    with pytest.raises(RulesError, match=f"^{late.name}'s Fell .* sheet cannot take Supply: "):
        stash.stash_take(campaign_id=table.pk, character_id=late.pk, stash_item_id=row.pk, by=late.owner)
    assert _unchanged(table, party) == was
    cc = party["chaos-conquest"]
    stash.stash_take(campaign_id=table.pk, character_id=cc.pk, stash_item_id=row.pk, quantity=1, by=cc.owner)
    assert cc.items.filter(name="Supply", catalogue_item=entry).exists()
    held = cc.items.filter(name="Supply", catalogue_item=entry).first()
    stash.stash_put(campaign_id=table.pk, character_id=cc.pk, item_id=held.pk, quantity=1, by=cc.owner)
    assert StashItem.objects.get(stash__campaign=table, name="Supply").quantity == 2  # stacked back, by C&C


def test_the_stash_page_takes_coins_in_the_takers_money(table, party, gm, as_user):
    stash.stash_add_coins(campaign_id=table.pk, amount=10, by=gm)
    cc = party["chaos-conquest"]
    held = _coins(cc)
    client = as_user(cc.owner)
    page = client.get(reverse("campaigns:detail", args=[table.pk]))
    assert "The stash keeps coin: taking counts those" in text_of(page)
    url = reverse("campaigns:stash_coins", args=[table.pk])
    response = client.post(url, form_fields(page, url, character=str(cc.pk), amount="2"), **HTMX)
    assert response.status_code == 200, text_of(response)
    assert _coins(cc) == held + 12
    grit = party["grit-flesh"]
    client = as_user(grit.owner)
    page = client.get(reverse("campaigns:detail", args=[table.pk]))
    refused = client.post(url, form_fields(page, url, character=str(grit.pk), amount="3"), **HTMX)
    assert refused.status_code in (400, 409, 422) and "move a multiple of 5 coin" in text_of(refused)


def test_reverting_a_converted_take_puts_back_both_sides_in_their_own_coin(table, party, gm):
    stash.stash_add_coins(campaign_id=table.pk, amount=10, by=gm)
    cc = party["chaos-conquest"]
    held = _coins(cc)
    stash.stash_take_coins(campaign_id=table.pk, character_id=cc.pk, amount=2, by=cc.owner)
    assert (_coins(cc), _stash_coins(table)) == (held + 12, 8)
    entry = StashEntry.objects.filter(campaign=table).first()
    stash.stash_entry_revert(campaign_id=table.pk, entry_id=entry.pk, by=gm, reason="a mistake")
    assert (_coins(cc), _stash_coins(table)) == (held, 10)
