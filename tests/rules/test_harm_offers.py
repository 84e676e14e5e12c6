"""A change by hand across a line the rules act on (issue 36, item 2): each system names, through the registry,
the procedure that does it by its rules (``GameSystem.harm_offer``), and a change short of the line asks
nothing. Each case names its seed file and rule."""

from __future__ import annotations

import random

import pytest

from rules import SYSTEMS
from rules.base import Item, Sheet


def _sheet(system: str, items=(), **state) -> Sheet:
    rules = SYSTEMS[system]
    made = rules.create({"name": "Ash"}, random.Random(7))
    return Sheet(state=rules.validate_state({**made.state, **state}), items=tuple(items), name="Ash")


@pytest.mark.parametrize(
    ("system", "state", "key", "delta", "procedure", "params"),
    [
        # 000_72fc736675279766.txt, Harm and Death: past 0 HP, harm becomes critical harm with a test.
        ("fell-draft", {"hp": 4, "hp_max": 4}, "hp", -20, "take_harm", {"amount": 20, "armour": False}),
        # 001_9a541ab1b0476299.txt, Harm and Death: once out of HP, critical harm and its test.
        ("fell-late", {"hp": 4, "hp_max": 4}, "hp", -5, "take_harm", {"amount": 5, "armour": False}),
        # 002_882aafdbf41b7f4b.txt, Stamina & Death: at 0 stamina or lower, Death's door.
        (
            "chaos-conquest",
            {"stamina": 4, "stamina_max": 4},
            "stamina",
            -4,
            "take_damage",
            {"amount": 4, "armour": False},
        ),
        # 003_eeb4db86843669ac.txt, Taking Damage and Dying: damage to 0 Health, deflect dice first.
        ("fortunes-favor", {}, "health", -999, "take_damage", {"damage": 500}),
        # 004_ebd0e2535c17253c.txt, Grit and Flesh: damage past Grit goes into Flesh.
        ("grit-flesh", {"grit": 2}, "grit", -5, "damage", {"amount": 5}),
        # 004_ebd0e2535c17253c.txt, Grit and Flesh: Flesh at 0 calls the save vs death (a blow past the most
        # the rules take, 100, is that most: it kills all the same).
        ("grit-flesh", {}, "flesh", -999, "damage", {"amount": 100, "to_flesh": True}),
    ],
)
def test_a_change_past_the_line_offers_the_rules_procedure(system, state, key, delta, procedure, params):
    rules = SYSTEMS[system]
    offer = rules.harm_offer(_sheet(system, **state), key, delta)
    assert offer is not None and offer.procedure == procedure and dict(offer.params) == params
    assert offer.procedure in rules.procedures() and offer.skipped
    rules.procedures()[offer.procedure].odds(_sheet(system, **state), offer.params)  # its inputs are the rules'


@pytest.mark.parametrize(
    ("system", "state", "key", "delta"),
    [
        ("fell-draft", {"hp": 4, "hp_max": 4}, "hp", -4),  # exactly to 0: nothing past it
        ("fell-draft", {"hp": 4, "hp_max": 4}, "hp", 2),
        ("fell-late", {"hp": 4, "hp_max": 4}, "coins", -20),
        ("chaos-conquest", {"stamina": 4, "stamina_max": 4}, "stamina", -3),
        ("grit-flesh", {"grit": 2}, "grit", -2),
        ("fortunes-favor", {}, "stamina", -1),
    ],
)
def test_a_change_short_of_the_line_asks_nothing(system, state, key, delta):
    assert SYSTEMS[system].harm_offer(_sheet(system, **state), key, delta) is None


def test_stress_with_no_empty_slot_offers_take_stress_seed_002_inventory_and_stress():
    """002_882aafdbf41b7f4b.txt, Inventory & Stress: stress that does not fit drops items or deals d6 damage."""
    rules = SYSTEMS["chaos-conquest"]
    attributes = {a: {"current": 10, "base": 10} for a in ("STR", "DEX", "WIL")}
    junk = [Item(f"Junk {i}", "gear", 1, 1, {}, id=i) for i in range(1, 10)]
    sheet = _sheet("chaos-conquest", junk, attributes=attributes, stress=0)
    offer = rules.harm_offer(sheet, "stress", 2)
    assert offer is not None and offer.procedure == "stress" and dict(offer.params) == {"amount": 2}
