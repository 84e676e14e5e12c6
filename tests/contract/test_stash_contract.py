"""The party's stash holds every system to the same promises (issue 41): coins reach a purse only through the
registry (``money``, ``pay``, ``receive``), a hireling's share of a split is the system's own (``loot_share``), and a
take from the stash is checked against the taker's system's carry rules, both sides or neither."""

from __future__ import annotations

from fractions import Fraction

import pytest

from campaigns import stash
from campaigns.models import StashItem
from rules import RulesError
from rules import base as rules_base
from rules.loot import split_coins

pytestmark = pytest.mark.django_db

HEAVY = rules_base.Item(name="Anvil", kind="gear", slots=20, quantity=10)


@pytest.mark.parametrize("kind", ["hireling", "retainer", "helper"])
def test_every_system_gives_a_hireling_a_share_or_none(system, kind):
    share = system.loot_share(rules_base.Hireling(name="Pim", kind=kind))
    assert share is None or (isinstance(share.weight, Fraction) and 0 < share.weight <= 1 and share.less >= 0)
    if share is not None:  # a split with it pays every coin out or leaves it in the stash, never more
        split = split_coins(137, ["a", "b"], [("pim", share)])
        assert split.paid + split.left == 137 and split.left >= 0


def test_coins_received_land_in_the_purse_and_pay_back_out(system, hero):
    sheet = hero.to_sheet()
    held = system.money(sheet)
    if held is None:
        with pytest.raises(RulesError):
            system.receive(sheet, 7, "from the stash")
        return
    state = system.receive(sheet, 7, "from the stash")
    assert system.money(sheet.with_state(state)) == held + 7
    assert system.money(sheet.with_state(system.pay(sheet.with_state(state), 7, "the stash"))) == held
    with pytest.raises(RulesError):
        system.receive(sheet, -1, "from the stash")


def test_a_take_is_checked_against_the_takers_carry_rules_both_sides_or_neither(system, hero, table, gm, player):
    stash.stash_add_item(campaign_id=table.pk, item=HEAVY, by=gm)
    row = StashItem.objects.get(stash__campaign=table, name="Anvil")
    try:
        system.check_can_carry(hero.checked_sheet(), system.validate_item(HEAVY))
    except RulesError as refusal:  # the system refuses it: the same sentence, and nothing moved
        version = hero.version
        with pytest.raises(RulesError) as refused:
            stash.stash_take(campaign_id=table.pk, character_id=hero.pk, stash_item_id=row.pk, by=player)
        assert str(refused.value) == str(refusal)
        hero.refresh_from_db()
        assert hero.version == version and not hero.items.filter(name="Anvil").exists()
        assert StashItem.objects.get(pk=row.pk).quantity == 10
        return
    # a system that lets it be carried (over its slots: statuses, not a refusal) takes it, and says so
    stash.stash_take(campaign_id=table.pk, character_id=hero.pk, stash_item_id=row.pk, by=player)
    assert hero.items.get(name="Anvil").quantity == 10 and not StashItem.objects.filter(pk=row.pk).exists()
    summary = system.slots(hero.to_sheet())
    assert summary.used > summary.maximum and summary.consequences, summary
