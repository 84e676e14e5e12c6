"""Item data and hireling state are bounded by each system's rules, and every odds computation by its work.

Seeds: 000 = ../shared/seeds/000_72fc736675279766.txt (Fell draft), 002 = 002_882aafdbf41b7f4b.txt
(Chaos & Conquest); the catalogue tables are those of rules/data/*.py.
"""

from __future__ import annotations

import random

import pytest

from rules import SYSTEMS, RulesError
from rules import dice as d
from rules.base import Hireling, Item, Sheet, check_sheet
from rules.systems import fell_draft as fell
from rules.systems.chaos_conquest import inventory as cc_inventory

CC = SYSTEMS["chaos-conquest"]
FELL = SYSTEMS["fell-draft"]


@pytest.mark.parametrize("system", SYSTEMS.values(), ids=SYSTEMS.keys())
def test_every_catalogue_entry_a_system_ships_passes_its_own_validation(system):
    for entry in system.catalogue():
        item = Item(entry.name, entry.kind, entry.slots, 1, dict(entry.data))
        assert system.validate_item(item) == item


@pytest.mark.parametrize("system", SYSTEMS.values(), ids=SYSTEMS.keys())
def test_every_created_character_and_every_hire_passes_validation(system):
    for seed in range(60):
        creation = system.create({}, random.Random(seed))
        for item in creation.items:
            system.validate_item(item)
        rich = Sheet({**creation.state, "coins": 100_000}, creation.items)
        hired = system.hire(rich, {}, random.Random(seed))
        assert system.validate_hireling(hired).state == hired.state
        check_sheet(system, Sheet(creation.state, creation.items, (hired,)))


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"damage": 50000}, "damage die must be one of d4, d6, d8, d10, d12"),
        ({"damage": 7}, "damage die must be one of"),
        ({"damage": True}, "damage die must be one of"),
        ({"av": "abc"}, "AV must be a whole number"),
        ({"av": 7}, "AV must be between 0 and 6"),
        ({"min_str": 19}, "STR needed must be between 0 and 18"),
        ({"bonus": 10**40}, "not a number of about 41 digits"),
        ({"silver": "yes"}, "silver must be yes or no"),
        ({"spells": ["Bolt"] * 101}, "spells holds 101 entries; at most 100"),
        ({"spells": ["x" * 101]}, "at most 100"),
        ({"spell": 3}, "spell must be text"),
        ({"faction": "Pirates"}, "faction must be one of"),
        ({"damge": 8}, "has no field 'damge'"),
        ([8], "must be a set of named numbers"),
    ],
)
def test_chaos_conquest_item_data_is_refused_past_the_rules_bounds(data, words):
    """Seed 002, Damage & Armor (d4-d12 weapons, AV at most 6 with magic) and equipment.md's tables."""
    with pytest.raises(RulesError, match=words):
        CC.validate_item(Item("Bad", "weapon", 1, 1, data))


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"steel_die": 50000}, "steel die must be one of d4, d6, d8, d10, d12"),
        ({"steel_die": 0}, "steel die must be one of"),
        ({"protection": "abc"}, "protection must be a whole number"),
        ({"protection": 4}, "protection must be between 0 and 3"),
        ({"bulky": 1}, "bulky must be yes or no"),
        ({"damage": 8}, "has no field 'damage'"),
    ],
)
def test_fell_item_data_is_refused_past_the_rules_bounds(data, words):
    """Seed 000, Equipment and Dice Ladder: steel dice d4-d12, protection at most 3 (spec §000.8 [REC])."""
    with pytest.raises(RulesError, match=words):
        FELL.validate_item(Item("Bad", "armour", 1, 1, data))


@pytest.mark.parametrize("system", SYSTEMS.values(), ids=SYSTEMS.keys())
@pytest.mark.parametrize(
    ("row", "words"),
    [
        ({"name": "x" * 101}, "at most 100"),
        ({"name": "  "}, "cannot be empty"),
        ({"kind": "spaceship"}, "no kind of item called 'spaceship'"),
        ({"slots": 21}, "slots must be between 0 and 20"),
        ({"quantity": 0}, "quantity must be between 1 and 10000"),
        ({"worn": "no"}, "worn must be yes or no"),
    ],
)
def test_every_system_bounds_an_items_name_kind_slots_and_quantity(system, row, words):
    with pytest.raises(RulesError, match=words):
        system.validate_item(Item(**{"name": "Rope", "kind": "gear", **row}))


def test_validation_returns_a_normalised_copy():
    item = CC.validate_item(Item("  Longsword ", "weapon", 1, 1, {"damage": 10}))
    assert item.name == "Longsword" and item.data == {"damage": 10}


@pytest.mark.parametrize(
    ("state", "words"),
    [
        ({"attributes": "x"}, "attributes must be exactly STR, DEX and WIL"),
        ({"stamina": 5, "stamina_max": 2}, "stamina must be between"),
        ({"role": "admiral"}, "role must be one of retainer, porter"),
        ({"morale": 13}, "morale must be between 2 and 12"),
        ({"weapon": 20}, "weapon die must be one of"),
        ({"loyalty": "high"}, "loyalty must be a whole number"),
        ({"treasure": 5}, "has no field 'treasure'"),
        (["x"], "must be a set of named fields"),
    ],
)
def test_chaos_conquest_hireling_state_is_a_small_sheet_within_the_rules(state, words):
    """hired-help.md (companion to seed 002): morale and loyalty are 2d6 targets, a retainer's weapon a d4-d12."""
    with pytest.raises(RulesError, match=words):
        CC.validate_hireling(Hireling("Pim", "hireling", state, 12))


@pytest.mark.parametrize(
    ("state", "words"),
    [
        ({"hp": "lots"}, "HP must be a whole number"),
        ({"abilities": {"BOD": {"die": 20}}}, "abilities BOD, INT and WIL|die must be one of"),
        ({"steel_die": 50000}, "steel die must be one of"),
        ({"mood": "grim"}, "no field mood"),
    ],
)
def test_fell_hireling_state_is_validated_like_a_sheet(state, words):
    """Seed 000, Hirelings: made like a character, d4 in every ability unless raised."""
    with pytest.raises(RulesError, match=words):
        FELL.validate_hireling(Hireling("Pim", "hireling", state, 5))


def test_a_hireling_keeps_the_fields_it_was_given_when_normalised():
    assert FELL.validate_hireling(Hireling("Pim", "hireling", {}, 5)).state == {}
    assert CC.validate_hireling(Hireling("Pim", "hireling", {"morale": 6}, 12)).state == {"morale": 6}


def test_hirelings_wage_and_name_are_bounded():
    with pytest.raises(RulesError, match="wage must be between 0 and 1000000"):
        CC.validate_hireling(Hireling("Pim", "hireling", {}, 10**7))
    with pytest.raises(RulesError, match="no kind of helper"):
        FELL.validate_hireling(Hireling("Pim", "wizard", {}, 5))


# --- bounded work ---------------------------------------------------------------------------------


def _quick(fn, *args) -> str:
    # Not timed (no test bounds wall-clock time): the unbounded computations it guards took minutes or ran out
    # of memory, so a refusal that came only after the work would hang the test, not pass it.
    with pytest.raises(RulesError) as refused:
        fn(*args)
    return str(refused.value)


def test_dice_refuse_absurd_dice_before_doing_any_work():
    assert "largest is a d100" in _quick(d.die_dist, 50_000)
    assert "largest is a d100" in _quick(d.die_dist, 10**5000)
    assert "at most 100" in _quick(d.sum_dist, (6,) * 1000)
    assert "too long" in _quick(d.sum_dist, (100,) * 90)
    assert "too long" in _quick(d.combine, d.sum_dist((100,) * 5), d.sum_dist((100,) * 5), max)
    assert "largest is a d100" in _quick(d.pool_dist, (50_000, 6), "highest")
    assert "largest is a d100" in _quick(d.roll_under_chance, 10, "advantage", 1, 20, 10**6)
    assert "at most 100" in _quick(d.roll_dice, random.Random(1), 10**9, 6)
    assert "largest is a d100" in _quick(d.roll_die, random.Random(1), 10**9)


def test_everyday_odds_stay_well_inside_the_bounds():
    assert sum(d.sum_dist((6,) * 8).values()) == 1  # 8d6 fireball
    assert sum(d.pool_dist((12,) * 20, "highest").values()) == 1
    assert sum(d.three_outcome_odds(3, 15, 8, "favor", (6, 6)).values()) == 1


def test_a_fell_contest_with_too_many_mixed_dice_is_refused_within_a_fraction_of_a_second():
    """Seed 000, Contests: exact odds of pools this large would take seconds; a real contest takes milliseconds."""
    # The work is counted, not timed, so the refusal comes at the same point on any machine.
    with pytest.raises(RulesError, match="too many ways to fall"):
        fell.contest_chances((12, 10, 8, 6, 4) * 3, (12, 10, 8, 6, 4) * 3)
    win, lose, tie = fell.contest_chances((8, 6, 6), (8, 4))
    assert win + lose + tie == 1


def test_a_stored_d50000_never_reaches_the_odds_of_a_chaos_conquest_attack():
    """Seed 002, Attacks: only the rules' weapon dice count; the stored sheet is refused by check_sheet."""
    sword = Item("Sword", "weapon", 1, 1, {"damage": 50000}, id=1)
    sheet = Sheet(CC.default_state(), (sword,))
    assert cc_inventory._weapons(sheet) == {}
    with pytest.raises(RulesError, match="damage die"):
        check_sheet(CC, sheet)


# --- finding 13 -------------------------------------------------------------------------------------


def test_lowering_str_below_the_stress_carried_fills_every_slot_and_kills():
    """Seed 002, Inventory & Stress: no more stress than slots, and stress in every slot kills."""
    state = CC.default_state()
    state["attributes"]["STR"] = {"current": 14, "base": 14}
    state = CC.adjust(Sheet(state), "stress", 11)
    assert state["stress"] == 11 and state["status"] == "fine"
    state = CC.adjust(Sheet(state), "STR", -4)
    assert state["attributes"]["STR"]["current"] == 10
    assert state["stress"] == 10 == CC.slots(Sheet(state)).maximum
    assert state["status"] == "dead"


def test_property_tests_run_the_same_examples_in_ci_and_new_ones_locally():
    """Issue 9, finding 13: CI (the CI variable, set by .ci/run) must not fail by chance."""
    import os

    from hypothesis import settings

    profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev")
    assert settings.get_profile("ci").derandomize and not settings.get_profile("dev").derandomize
    assert settings.default.derandomize == settings.get_profile(profile).derandomize
