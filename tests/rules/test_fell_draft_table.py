"""Fell (draft) at the GM's table (issue 16): NPCs, the round's order, time, light, food and the luck die.

Seed 000 (../shared/seeds/000_72fc736675279766.txt) and rules-spec §000.6–§000.10.
"""

from __future__ import annotations

from rules.base import Item, Sheet
from rules.dice import ScriptedRandom
from rules.systems.fell_draft import SYSTEM

TORCH = Item("torch (1 hour)", "light", 1, 1, {"lit": True}, id=1)
RATIONS = Item("rations (three days)", "ration", 1, 2, {}, id=2)


def test_the_party_acts_first_as_a_group_with_no_dice():
    """Seed 000, Combat: PCs act first and as a group."""
    order = SYSTEM.combat_order(3, ScriptedRandom([]))
    assert order.steps[0] == "The party acts, as a group" and order.dice == ()


def test_whose_turn_the_party_then_the_enemies_seed_000_combat():
    """Seed 000, Combat (issue 36, item 6): the PCs' step comes first and is the party's, then the enemies'."""
    for round_number in (1, 2, 7):
        assert SYSTEM.combat_order(round_number, ScriptedRandom([])).sides == ("party", "enemies")


def test_npc_harm_takes_protection_off_and_calls_morale_at_half():
    """Seed 000, Combat (harm − protection) and Morale (a lone enemy at half its HP: a WIL contest)."""
    start = {"hp": 6, "protection": 1, "steel_die": "6", "wil_die": "6"}
    hit = SYSTEM.npc_damage(start, start, 3)
    assert hit.stats["hp"] == 4 and not hit.morale
    half = SYSTEM.npc_damage(hit.stats, start, 2)
    assert half.stats["hp"] == 3 and half.morale and "Morale roll" in half.words
    assert SYSTEM.npc_damage(half.stats, start, 9, ignore_armour=True).defeated


def test_an_npc_attack_rolls_its_steel_die():
    """Seed 000, Combat: an attack is a task with no test: the steel die's roll."""
    attack = SYSTEM.npc_roll(
        "attack", {"hp": 4, "protection": 0, "steel_die": "8", "wil_die": "6"}, ScriptedRandom([7])
    )
    assert attack.total == 7 and sum(p for _, p in attack.odds.outcomes) == 1


def test_a_torch_burns_an_hour_of_exploration_rounds():
    """Spec §000.8: a torch burns 1 hour; exploration rounds are 10 minutes (§000.10)."""
    sheet = Sheet(state=SYSTEM.default_state(), items=(TORCH,))
    half = SYSTEM.advance_time(sheet, "exploration", 3, 0, ScriptedRandom([]))
    assert half.items_changed[0].data["burned"] == 30 and half.state is None
    out = SYSTEM.advance_time(sheet, "exploration", 6, 0, ScriptedRandom([]))
    assert out.items_removed == (1,) and "burned out" in out.summary


def test_a_bundle_of_rations_feeds_three_days_then_deprivation_and_fatigue():
    """Seed 000, Deprivation and Fatigue; spec §000.7 [REC]: fatigue from the second full day deprived."""
    sheet = Sheet(state=SYSTEM.default_state(), items=(RATIONS,))
    fed = SYSTEM.advance_time(sheet, "day", 3, 0, ScriptedRandom([]))
    assert fed.items_changed[0].quantity == 1 and fed.items_changed[0].data["eaten"] == 0
    starving = SYSTEM.advance_time(Sheet(state=SYSTEM.default_state()), "day", 3, 0, ScriptedRandom([]))
    assert starving.state["deprived"] and starving.state["days_deprived"] == 2 and starving.state["fatigue"] == 1


def test_the_luck_die_after_each_exploration_or_travel_round():
    """Spec §000.10: the luck die (d6) after each exploration or travel round; none for a whole day."""
    assert [r.total for r in SYSTEM.time_checks("travel", 2, 0, ScriptedRandom([3, 6]))] == [3, 6]
    assert SYSTEM.time_checks("day", 1, 0, ScriptedRandom([])) == ()


def test_light_level_says_whether_anyone_carries_a_light():
    assert SYSTEM.light_level([Sheet(state={}, items=(TORCH,))]).key == "lit"
    assert SYSTEM.light_level([Sheet(state={})]).key == "dark"
