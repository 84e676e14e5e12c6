"""Fell (v0.4-era draft), seed 000: every rule the engine applies, with exact dice and exact odds.

Sections named in docstrings are headings of ../shared/seeds/000_72fc736675279766.txt ("seed 000") or
of the published creation rules ("creation"); "spec" is ../shared/rules-spec.md §000.
"""

from __future__ import annotations

import ast
import dataclasses
import itertools
import math
import random
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import SYSTEMS
from rules.base import CatalogueEntry, GameSystem, Hireling, Item, Procedure, RulesError, Sheet, check_params
from rules.clock import LIGHT_SETTINGS
from rules.data import fell_draft as data
from rules.dice import LADDER, DieRoll, ScriptedRandom
from rules.settings import defaults
from rules.systems import fell_draft as fell
from rules.systems.fell_draft import SYSTEM

# --- building sheets -----------------------------------------------------------------------------


def make_state(
    bod: int = 6,
    int_: int = 6,
    wil: int = 6,
    hp: int = 4,
    hp_max: int | None = None,
    **extra: Any,
) -> dict[str, Any]:
    state = SYSTEM.default_state()
    state["abilities"] = {
        "BOD": {"die": bod, "full_die": bod, "points": bod},
        "INT": {"die": int_, "full_die": int_, "points": int_},
        "WIL": {"die": wil, "full_die": wil, "points": wil},
    }
    state["hp"] = hp
    state["hp_max"] = hp if hp_max is None else hp_max
    state.update(extra)
    return SYSTEM.validate_state(state)


def weapon(name: str, die: int, id_: int, **more: Any) -> Item:
    return Item(name, "weapon", 2 if more.get("bulky") else 1, 1, {"steel_die": die, **more}, id=id_)


def gear(name: str, id_: int, slots: int = 1, quantity: int = 1) -> Item:
    return Item(name, "gear", slots, quantity, {}, id=id_)


def make_sheet(state: dict[str, Any] | None = None, items=(), hirelings=(), name: str = "Ana") -> Sheet:
    return Sheet(state=state or make_state(), items=tuple(items), hirelings=tuple(hirelings), name=name)


def proc(key: str) -> Procedure:
    return SYSTEM.procedures()[key]


def hireling(name: str = "Bram", id_: int = 1, paid: bool = False, **over: Any) -> Hireling:
    state = make_state(4, 4, 4, hp=3, hireling=True, paid_up=paid, skills=["survival"], **over)
    return Hireling(name, "hireling", state, fell.hireling_wage(state), id_)


CHAINMAIL = Item("chainmail", "armour", 2, 1, {"protection": 2, "bulky": True}, worn=True, id=50)
SHIELD = Item("shield", "shield", 1, 1, {"protection": 1}, worn=True, id=51)
BRIGANDINE = Item("brigandine", "armour", 2, 1, {"protection": 1, "bulky": True}, worn=True, id=52)


# --- the module fits the contract ---------------------------------------------------------------


def test_system_is_registered_and_fits_the_protocol():
    """Lantern contract: rules.SYSTEMS finds "fell-draft" and it implements GameSystem and Procedure."""
    assert SYSTEMS["fell-draft"] is SYSTEM
    assert isinstance(SYSTEM, GameSystem)
    assert SYSTEM.coin_label == "coin"
    for key, p in SYSTEM.procedures().items():
        assert isinstance(p, Procedure)
        assert p.key == key


def test_rules_modules_import_nothing_from_django():
    """House style: rules/ stays pure; no django import in the Fell module or its data."""
    root = Path(fell.__file__).resolve().parents[2]
    package = sorted((root / "systems" / "fell_draft").glob("*.py"))
    assert len(package) > 5  # a package split by concern (issue 10)
    for path in (*package, root / "data" / "fell_draft.py", root / "data" / "__init__.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            assert not any(n.split(".")[0] == "django" for n in names), path


def test_tables_carry_the_credit_line():
    """Creation/tables: CC BY-SA 4.0, Jacob Densford; names, traits and spells from Cairn by Yochai Gal."""
    assert "Jacob Densford" in data.CREDIT and "Cairn" in data.CREDIT and "Yochai Gal" in data.CREDIT
    assert SYSTEM.credit == data.CREDIT


# --- spec §000.13 engine test vectors, as written ---------------------------------------------------


def _vector_test_pool() -> None:
    """The pool INT d6 + skill d6 rolls [3, 5]: highest 5 ≥ 4, so the test passes."""
    sheet = make_sheet(make_state(skills=["lore"]))
    result = proc("test").roll(sheet, {"ability": "INT", "skills": ["lore"]}, ScriptedRandom([3, 5]))
    assert [(d.sides, d.face) for d in result.dice] == [(6, 3), (6, 5)]
    assert result.outcome == "pass" and result.total == 5


def _vector_ladder() -> None:
    """Net +1: d4 -> d6, d12 -> d12+d4. Net -1: d4 -> nothing, d6 -> d4."""

    def sides(die: int, net: int) -> tuple[int, ...]:
        return fell.shift_dice((fell.PoolDie(die, "x", "ability"),), net).sides

    assert sides(4, 1) == (6,)
    assert sides(12, 1) == (12, 4)
    assert sides(4, -1) == ()
    assert sides(6, -1) == (4,)


def _vector_contest() -> None:
    """A rolls {d8: 6, d4: 6}, B rolls {d6: 6}: both top values are 6, A's is on a d8, so A wins."""
    a = (DieRoll(8, 6), DieRoll(4, 6))  # the vector's d4 face is impossible, kept as written
    b = (DieRoll(6, 6),)
    assert fell.contest_winner(a, b) == 1
    assert fell.contest_winner(b, a) == -1


def _vector_attack() -> None:
    """Longsword d6 rolls 5 vs protection 3: 2 harm; HP 1 -> 0, 1 critical harm to BOD, DN 1 passes."""
    attacker = make_sheet(items=[weapon("longsword", 6, 1)])
    target = make_sheet(make_state(hp=1, hp_max=4), items=[CHAINMAIL, SHIELD], name="Target")
    assert SYSTEM.protection(target) == 3
    rng = ScriptedRandom([5])
    result = proc("attack").roll(attacker, {"weapons": ["1"], "target": target}, rng)
    assert result.total == 2 and result.outcome == "2 harm"
    after = result.other_states["target"]
    assert after["hp"] == 0
    assert after["abilities"]["BOD"]["points"] == 5
    assert after["dying"] is False
    assert rng.remaining == 0  # DN 1 passes without a roll
    assert "passed automatically" in result.summary


def _vector_cast() -> None:
    """WIL d6 rolls 2, spell d8 rolls 7: passes (7 ≥ 4); backlash 7 − 2 = 5, to HP then WIL."""
    sheet = make_sheet(make_state(hp=3, spells=["Comprehend"], spell_die=8))
    result = proc("cast").roll(sheet, {"spell": "spell:Comprehend", "die": "8"}, ScriptedRandom([2, 7, 5]))
    assert result.outcome == "pass_backlash"
    assert result.details["backlash"] == 5
    assert result.state["hp"] == 0
    assert result.state["abilities"]["WIL"]["points"] == 4  # 3 to HP, 2 critical harm to WIL
    assert [d.label for d in result.dice][-1] == "WIL"  # the critical harm test at DN 2
    forgot = proc("cast").roll(
        sheet, {"spell": "spell:Comprehend", "die": "8", "on_backlash": "forget"}, ScriptedRandom([2, 7])
    )
    assert forgot.state["hp"] == 3 and forgot.state["spells"] == []


def _vector_advance() -> None:
    """hp_max 5; BOD d6 rolls 6, INT d8 3, WIL d4 4: HP 8 (7 if the clauses do not stack)."""
    sheet = make_sheet(make_state(bod=6, int_=8, wil=4, hp=5))
    result = proc("advance").roll(sheet, {}, ScriptedRandom([6, 3, 4]))
    assert result.state["hp_max"] == 8 and result.state["hp"] == 8
    assert result.state["abilities"]["BOD"]["die"] == 8
    assert result.state["abilities"]["WIL"]["die"] == 6
    assert result.state["abilities"]["INT"]["die"] == 8
    apart = dataclasses.replace(sheet, settings={"advance_clauses_stack": False})  # the table's setting
    single = proc("advance").roll(apart, {}, ScriptedRandom([6, 3, 4]))
    assert single.state["hp_max"] == 7


VECTORS = {
    "test-int-d6-skill-d6": _vector_test_pool,
    "ladder-shift": _vector_ladder,
    "contest-tie-larger-die": _vector_contest,
    "attack-longsword-vs-3": _vector_attack,
    "cast-backlash": _vector_cast,
    "advancement": _vector_advance,
}


@pytest.mark.parametrize("vector", VECTORS, ids=list(VECTORS))
def test_spec_000_13_engine_vectors(vector):
    """spec §000.13: every engine test vector passes as written."""
    VECTORS[vector]()


@pytest.mark.parametrize(
    ("die", "net", "expected"),
    [(4, 1, (6,)), (12, 1, (12, 4)), (4, -1, ()), (6, -1, (4,)), (12, 2, (12, 6)), (8, -2, (4,)), (8, 3, (12, 4))],
)
def test_dice_ladder_steps_and_bonus_dice(die, net, expected):
    """seed 000 (Dice Ladder): below d4 a die is gone; past d12 a bonus die starts at the bottom."""
    assert fell.shift_dice((fell.PoolDie(die, "x", "ability"),), net).sides == expected


# --- creation -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "die"), [(1, 4), (4, 4), (5, 6), (6, 6), (7, 8), (8, 8)])
def test_creation_ability_die_from_d8(face, die):
    """creation (abilities): d8 1-4 -> d4, 5-6 -> d6, 7-8 -> d8; ability points = the die's top face."""
    rng = ScriptedRandom([face, 5, 5, 1, 3, 3, 3])  # abilities, background, coin
    c = SYSTEM.create({"name": "Ana", "age": 30, "hp": "four", "traits": "none"}, rng)
    assert c.state["abilities"]["BOD"] == {"die": die, "full_die": die, "points": die}
    assert rng.remaining == 0


def test_creation_rolls_everything_in_order_and_returns_every_roll():
    """creation: name, age, abilities, HP (keep highest), background, spell (WIL d8), 3d6 coin, traits."""
    faces = [16, 3]  # Mannog Burl
    faces += [10, 18]  # age 2d20+10 = 38
    faces += [1, 5, 8]  # BOD d4, INT d6, WIL d8
    faces += [2, 5, 3]  # HP: keep highest of d4, d6, d8 -> 5
    faces += [11]  # Hunter
    faces += [15]  # Comprehend
    faces += [4, 4, 4]  # 12 coin
    faces += [1] * 10  # traits
    rng = ScriptedRandom(faces)
    c = SYSTEM.create({}, rng)
    assert rng.remaining == 0
    assert c.name == "Mannog Burl"
    s = c.state
    assert s["age"] == 38
    assert {ab: s["abilities"][ab]["die"] for ab in ("BOD", "INT", "WIL")} == {"BOD": 4, "INT": 6, "WIL": 8}
    assert s["hp"] == s["hp_max"] == 5
    assert s["background"] == "Hunter" and s["skills"] == ["survival"]
    assert s["spells"] == ["Comprehend"] and s["spell_die"] == 8
    assert s["coins"] == 12
    assert s["traits"][0] == "Physique: Athletic" and len(s["traits"]) == 10
    names = [i.name for i in c.items]
    assert names == ["sling", "knife", "rodent trap", "rations (three days)", "torch (1 hour)"]
    assert [i.data.get("steel_die") for i in c.items[:2]] == [4, 4]
    # The example character: 5 of 8 slots.
    summary = SYSTEM.slots(make_sheet(s, c.items))
    assert (summary.used, summary.maximum) == (5, 8)
    labels = [r.label for r in c.rolls]
    assert labels == ["Name", "Age", "Ability dice", "Hit points", "Background", "Spell", "Coin", "Traits"]
    hp_roll = c.rolls[3]
    assert [d.kept for d in hp_roll.dice] == [False, True, False]
    assert sum(len(r.dice) for r in c.rolls) == len(faces)


def test_creation_assign_d6_each_with_one_swap():
    """creation (abilities): d6 each, or lower one to d4 to raise another to d8."""
    rng = ScriptedRandom([13, 3, 3, 3])  # background Mercenary, coin
    c = SYSTEM.create(
        {"name": "Ana", "age": 20, "abilities": "assign", "lower": "WIL", "raise": "BOD", "hp": "four"}
        | {"traits": "none"},
        rng,
    )
    dice = {ab: c.state["abilities"][ab]["die"] for ab in ("BOD", "INT", "WIL")}
    assert dice == {"BOD": 8, "INT": 6, "WIL": 4}
    assert c.state["hp"] == 4
    shield = next(i for i in c.items if i.name == "shield")
    assert shield.kind == "shield" and shield.worn
    assert SYSTEM.protection(make_sheet(c.state, c.items)) == 1
    with pytest.raises(RulesError, match="both or neither"):
        SYSTEM.create({"abilities": "assign", "lower": "WIL"}, ScriptedRandom([]))
    with pytest.raises(RulesError, match="different"):
        SYSTEM.create(
            {"name": "A", "age": 3, "abilities": "assign", "lower": "WIL", "raise": "WIL"}, ScriptedRandom([])
        )


def test_creation_no_spell_below_wil_d8_and_chosen_background():
    """creation: only WIL d8 brings a spell and spell die; Blacksmith's brigandine is worn and bulky."""
    rng = ScriptedRandom([8, 8, 5, 1, 1, 1])
    c = SYSTEM.create({"name": "A", "age": 20, "hp": "four", "background": "blacksmith", "traits": "none"}, rng)
    assert c.state["spells"] == [] and c.state["spell_die"] == 0
    brig = next(i for i in c.items if i.name == "brigandine")
    assert (brig.kind, brig.slots, brig.worn, brig.data["protection"]) == ("armour", 2, True, 1)
    with pytest.raises(RulesError, match="not a background"):
        SYSTEM.create({"name": "A", "age": 20, "background": "astronaut"}, ScriptedRandom([1, 1, 1, 1, 1, 1]))


def test_creation_state_round_trips_through_validate_state():
    """Lantern contract: validate_state(create(...).state) is stable."""
    for seed in range(30):
        c = SYSTEM.create({}, random.Random(seed))
        once = SYSTEM.validate_state(c.state)
        assert once == c.state
        assert SYSTEM.validate_state(once) == once


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"abilities": {"BOD": {"die": 7}, "INT": {"die": 6}, "WIL": {"die": 6}}}, "BOD die"),
        ({"hp": 9, "hp_max": 4}, "HP must be between"),
        ({"coins": -1}, "Coins"),
        ({"spell_die": 20}, "spell die"),
        ({"mana": 3}, "no field mana"),
        ({"deprived": 1}, "yes or no"),
        ({"hp": True}, "whole number"),
    ],
)
def test_validate_state_refuses_bad_data_readably(change, message):
    """Lantern contract: bad sheet data gives a RulesError a person can read."""
    with pytest.raises(RulesError, match=message):
        SYSTEM.validate_state({**make_state(), **change})


# --- slots, protection, conditions ----------------------------------------------------------------


def test_slots_are_four_plus_bod_with_coins_and_bulky_items():
    """seed 000 (Equipment) + creation: 4 + BOD slots; bulky 2; 100 coins 1 slot, fewer free."""
    sheet = make_sheet(make_state(bod=6, coins=250), items=[gear("rope", 1), weapon("greatsword", 8, 2, bulky=True)])
    summary = SYSTEM.slots(sheet)
    assert summary.maximum == 10 and summary.hard_limit == 20
    assert summary.used == 1 + 2 + 2
    assert summary.consequences == ()


def test_over_the_slots_gives_disadvantage_on_every_test():
    """seed 000 (Equipment): carrying more than your slots gives disadvantage, applied automatically."""
    heavy = [gear(f"sack {i}", i) for i in range(11)]
    sheet = make_sheet(make_state(bod=6), items=heavy)  # 11 items, 10 slots
    assert SYSTEM.slots(sheet).consequences
    assert "Over-encumbered" in SYSTEM.conditions(sheet)
    assert proc("test").odds(sheet, {}).success == Fraction(1, 4)  # d6 stepped down to d4
    result = proc("test").roll(sheet, {}, ScriptedRandom([4]))
    assert [d.sides for d in result.dice] == [4] and result.outcome == "pass"


def test_carrying_past_twice_the_slots_is_refused():
    """seed 000 (Equipment): you can never carry more than twice your slots (check_can_carry)."""
    sheet = make_sheet(make_state(bod=4), items=[gear("junk", 1, slots=1, quantity=15)])
    summary = SYSTEM.check_can_carry(sheet, gear("one more", 2))
    assert summary.used == 16
    with pytest.raises(RulesError, match="No room for anvil"):
        SYSTEM.check_can_carry(sheet, Item("anvil", "gear", 2, 1, {"bulky": True}))
    with pytest.raises(RulesError, match="past 16 slots"):
        SYSTEM.adjust(make_sheet(make_state(bod=4), items=[gear("junk", 1, quantity=16)]), "coins", 100)


@pytest.mark.parametrize(
    ("items", "expected"),
    [
        ((), 0),
        ((SHIELD,), 1),
        ((BRIGANDINE,), 1),
        ((CHAINMAIL, SHIELD), 3),
        ((CHAINMAIL, BRIGANDINE, SHIELD), 3),
        ((Item("chainmail", "armour", 2, 1, {"protection": 2}, worn=False),), 0),
    ],
)
def test_protection_is_best_worn_armour_plus_shield(items, expected):
    """seed 000 (Armor list) + spec §000.8 [REC]: best worn armour + 1 for a shield, at most 3."""
    assert SYSTEM.protection(make_sheet(items=items)) == expected


def test_conditions_name_dead_dying_deprived_fatigued_and_retired():
    """seed 000 (Harm and Death, Deprivation, Advancement): the table card's words."""
    assert SYSTEM.conditions(make_sheet(make_state(dying=True, deprived=True, fatigue=2))) == (
        "Unconscious and dying",
        "Deprived",
        "Fatigued (2)",
    )
    dead = make_state()
    dead["abilities"]["BOD"]["points"] = 0
    assert SYSTEM.conditions(make_sheet(dead)) == ("Dead",)
    legend = make_state(12, 12, 12, hp=20)
    assert "Ready to retire" in SYSTEM.conditions(make_sheet(legend))
    assert SYSTEM.retired(make_sheet(legend))


def test_tracks_and_adjust_clamp_to_the_rules():
    """seed 000 (Harm and Death): HP 0..max, points 0..the die's face; coin and fatigue never negative."""
    sheet = make_sheet(make_state(hp=3, hp_max=5, coins=10))
    keys = [t.key for t in SYSTEM.tracks(sheet)]
    assert keys == ["hp", "BOD", "INT", "WIL", "protection", "fatigue", "coins"]
    assert SYSTEM.adjust(sheet, "hp", 10)["hp"] == 5
    assert SYSTEM.adjust(sheet, "hp", -10)["hp"] == 0
    assert SYSTEM.adjust(sheet, "BOD", 3)["abilities"]["BOD"]["points"] == 6
    assert SYSTEM.adjust(sheet, "coins", -50)["coins"] == 0
    with pytest.raises(RulesError):
        SYSTEM.adjust(sheet, "protection", 1)


def test_money_and_hireling_limit():
    """seed 000 (Hirelings): as many hirelings as WIL's face; money reads as coin."""
    assert SYSTEM.format_money(12) == "12 coin"
    assert SYSTEM.hireling_limit(make_sheet(make_state(wil=8))) == 8


# --- tests ---------------------------------------------------------------------------------------


def test_test_odds_are_exact_highest_single_die_against_dn_4():
    """seed 000 (Tasks and Tests): highest die ≥ DN, usually 4; d6 + d6 passes 3/4 of the time."""
    sheet = make_sheet(make_state(skills=["lore"]))
    odds = proc("test").odds(sheet, {"ability": "INT", "skills": ["lore"]})
    assert odds.of("pass") == Fraction(3, 4)
    assert odds.of("fail") == Fraction(1, 4)
    assert proc("test").odds(sheet, {"dn": 6}).of("pass") == Fraction(1, 6)


@pytest.mark.parametrize("dn", [0, -3, 31, 99])
def test_test_refuses_a_nonsense_dn(dn):
    """seed 000 (Tasks and Tests): a DN of 0 or 99 makes no sense and is refused readably."""
    with pytest.raises(RulesError, match="Difficulty number"):
        proc("test").odds(make_sheet(), {"dn": dn})
    with pytest.raises(RulesError):
        proc("test").roll(make_sheet(), {"dn": dn}, ScriptedRandom([6]))


def test_dn_above_the_best_face_fails_and_an_empty_pool_fails():
    """spec §000.5.1 [REC]: DN over the highest possible roll fails; a pool shifted away fails."""
    assert proc("test").odds(make_sheet(), {"dn": 7}).success == 0
    sheet = make_sheet(make_state(bod=4))
    result = proc("test").roll(sheet, {"disadvantage": 1}, ScriptedRandom([]))
    assert result.outcome == "fail" and result.dice == ()
    assert proc("test").odds(sheet, {"disadvantage": 1}).success == 0


def test_one_steel_one_skill_one_spell_die_each():
    """seed 000 (Tasks and Tests) + spec §000.12.1 [REC]: one applicable die of each kind, or strict one."""
    sheet = make_sheet(make_state(skills=["lore"], spell_die=10), items=[weapon("dagger", 4, 7)])
    params = {"steel": "7", "skills": ["lore"], "spell_die": True}
    result = proc("test").roll(sheet, params, ScriptedRandom([6, 2, 3, 1]))
    assert [(d.sides, d.label) for d in result.dice] == [
        (6, "BOD"),
        (4, "steel: dagger"),
        (6, "skill: lore"),
        (10, "spell"),
    ]
    strict = dataclasses.replace(sheet, settings={"extra_die_rule": "one_only"})  # the table's setting
    with pytest.raises(RulesError, match="strict"):
        proc("test").odds(strict, params)


def test_overlapping_skills_give_one_advantage():
    """seed 000 (Skills) + spec §000.5.2 [REC]: two or more skills that apply give one advantage."""
    sheet = make_sheet(make_state(skills=["lore", "survival", "repair"]))
    result = proc("test").roll(sheet, {"skills": ["lore", "survival", "repair"]}, ScriptedRandom([1, 1]))
    assert [d.sides for d in result.dice] == [8, 8]  # BOD d6 and skill d6, each one step up
    with pytest.raises(RulesError):
        proc("test").odds(sheet, {"skills": ["swimming"]})


def test_advantage_and_disadvantage_cancel_and_advantage_may_be_declined():
    """seed 000 (Advantage and Disadvantage): they stack and cancel one for one; advantage is optional."""
    sheet = make_sheet()
    assert proc("test").odds(sheet, {"advantage": 2, "disadvantage": 2}).success == Fraction(1, 2)
    assert proc("test").odds(sheet, {"advantage": 1}).success == Fraction(5, 8)
    assert proc("test").odds(sheet, {"advantage": 1, "decline_advantage": True}).success == Fraction(1, 2)


def test_fatigue_adds_disadvantage_to_every_test():
    """seed 000 (Deprivation and Fatigue): fatigued, every test has disadvantage, worse each level."""
    sheet = make_sheet(make_state(bod=8, fatigue=2))
    result = proc("test").roll(sheet, {}, ScriptedRandom([4]))
    assert [d.sides for d in result.dice] == [4]
    assert "fatigue level 2" in result.summary


def test_helpers_add_their_dice_from_hirelings_and_characters():
    """seed 000 (Help, Hirelings): a helper's steel, skill or spell die joins the pool; no advantage."""
    friend = make_sheet(make_state(int_=10), items=[weapon("mace", 6, 3)], name="Bo")
    sheet = make_sheet(hirelings=[hireling(id_=9)])
    result = proc("test").roll(
        sheet, {"helpers": ["9"], "helper": friend, "helper_die": "steel"}, ScriptedRandom([1, 2, 3])
    )
    assert [(d.sides, d.label) for d in result.dice] == [(6, "BOD"), (4, "helper Bram"), (6, "helper Bo: steel")]
    odds = proc("test").odds(sheet, {"helper": friend, "helper_die": "skill"})
    assert odds.of("fail") == Fraction(3, 6) * Fraction(3, 10)


def test_spell_die_in_a_test_backlashes():
    """seed 000 (Spells): whenever the spell die beats the ability die, take the difference as harm."""
    sheet = make_sheet(make_state(hp=4, spell_die=12))
    result = proc("test").roll(sheet, {"ability": "WIL", "spell_die": True}, ScriptedRandom([1, 3]))
    assert result.outcome == "fail_backlash" and result.state["hp"] == 2
    odds = proc("test").odds(sheet, {"ability": "WIL", "spell_die": True})
    assert sum(p for _, p in odds.outcomes) == 1


def test_the_dying_and_the_dead_make_no_tests():
    """seed 000 (Harm and Death): an unconscious character cannot act."""
    with pytest.raises(RulesError, match="dying"):
        proc("test").odds(make_sheet(make_state(dying=True)), {})


# --- contests ------------------------------------------------------------------------------------


def test_contest_larger_die_wins_a_tie_end_to_end():
    """seed 000 (Contests): A's 6 on a d8 beats B's 6 on a d6 (the vector, with a d4 that can roll)."""
    sheet = make_sheet(make_state(int_=8), items=[weapon("dagger", 4, 1)])
    result = proc("contest").roll(sheet, {"ability": "INT", "steel": "1", "npc_die": "6"}, ScriptedRandom([6, 4, 6]))
    assert result.outcome == "win"


@pytest.mark.parametrize(
    ("a", "b", "winner"),
    [
        ([(8, 6), (4, 3)], [(8, 6), (4, 2)], 1),  # next-highest die decides
        ([(8, 6), (4, 3)], [(8, 6), (6, 3)], -1),  # ... on the ladder too
        ([(8, 6), (4, 3)], [(8, 6)], 1),  # then more dice
        ([(8, 6)], [(8, 6)], 0),  # still tied: nothing changes
        ([(6, 5)], [(12, 4)], 1),  # the higher face wins over a bigger die
        ([], [(4, 1)], -1),  # an empty pool loses
    ],
)
def test_contest_tie_breaks(a, b, winner):
    """seed 000 (Contests) + spec §000.5.4 [REC]: larger die, then next-highest die, then status quo."""
    assert fell.contest_winner([DieRoll(s, f) for s, f in a], [DieRoll(s, f) for s, f in b]) == winner


pools = st.lists(st.sampled_from([4, 6, 8]), min_size=0, max_size=2)


def contest_by_hand(a: list[int], b: list[int]) -> tuple[Fraction, Fraction, Fraction]:
    """(win, lose, tie) for pools a and b, by every face of every die, without the engine's code.

    Seed 000 (Contests): the highest single die wins; on equal faces the die higher up the ladder
    wins; spec §000.5.4 [REC]: still level, the next-highest dice decide, then the side with more dice.
    """
    win = lose = tie = Fraction(0)
    total = math.prod(a + b)
    for faces in itertools.product(*[range(1, s + 1) for s in a + b]):
        mine = sorted(zip(faces[: len(a)], a, strict=True), reverse=True)
        theirs = sorted(zip(faces[len(a) :], b, strict=True), reverse=True)
        verdict = 0
        for (fa, sa), (fb, sb) in zip(mine, theirs, strict=False):
            if (fa, sa) != (fb, sb):
                verdict = 1 if (fa, sa) > (fb, sb) else -1
                break
        else:
            verdict = (len(mine) > len(theirs)) - (len(mine) < len(theirs))
        if verdict == 1:
            win += Fraction(1, total)
        elif verdict == -1:
            lose += Fraction(1, total)
        else:
            tie += Fraction(1, total)
    return win, lose, tie


@settings(max_examples=60, deadline=None)
@given(pools, pools)
def test_contest_chances_match_brute_force(a, b):
    """seed 000 (Contests): the exact odds agree with enumerating every roll by hand."""
    assert fell.contest_chances(a, b) == contest_by_hand(a, b)


def test_contest_against_a_character_applies_their_fatigue():
    """seed 000 (Contests, Deprivation and Fatigue): each side collects dice as for a test."""
    rival = make_sheet(make_state(wil=6, fatigue=1), name="Rival")
    result = proc("contest").roll(
        make_sheet(), {"ability": "WIL", "opponent": rival, "opponent_ability": "WIL"}, ScriptedRandom([3, 4])
    )
    assert result.dice[-1].sides == 4 and result.outcome == "lose"
    odds = proc("contest").odds(make_sheet(), {"ability": "WIL", "opponent": rival, "opponent_ability": "WIL"})
    win, lose, tie = contest_by_hand([6], [4])  # their d6 is a d4 once fatigue steps it down
    assert odds.outcomes == (("win", win), ("lose", lose), ("tie", tie))


# --- casting ------------------------------------------------------------------------------------


def test_backlash_spell_die_above_wil_die_harms_hp_then_wil():
    """seed 000 (Spells): spell die − WIL die as harm, first HP then WIL; a WIL critical harm test follows."""
    sheet = make_sheet(make_state(wil=6, hp=1, spells=["Sleep"], spell_die=12))
    result = proc("cast").roll(sheet, {"spell": "spell:Sleep", "die": "12"}, ScriptedRandom([1, 12, 2]))
    assert result.details["backlash"] == 11
    assert result.state["hp"] == 0
    assert result.state["abilities"]["WIL"]["points"] == 0  # 10 critical harm: dead
    assert "Dead" in SYSTEM.conditions(make_sheet(result.state))


def test_backlash_critical_test_failure_leaves_the_caster_dying():
    """seed 000 (Spells, Harm and Death): critical harm to WIL, test at DN = that harm; fail -> dying."""
    sheet = make_sheet(make_state(wil=8, hp=0, spells=["Sleep"], spell_die=8))
    result = proc("cast").roll(sheet, {"spell": "spell:Sleep", "die": "8"}, ScriptedRandom([1, 6, 3]))
    assert result.state["abilities"]["WIL"]["points"] == 3
    assert result.state["dying"] is True


def test_scroll_can_burn_instead_of_backlash():
    """seed 000 (Spells): instead of harm, let the scroll be destroyed; a scroll's spell cannot be forgotten."""
    scroll = Item("scroll of Knock", "scroll", 1, 1, {}, id=33)
    sheet = make_sheet(make_state(hp=4), items=[scroll])
    params = {"spell": "scroll:33", "die": "10", "on_backlash": "scroll"}
    result = proc("cast").roll(sheet, params, ScriptedRandom([1, 9]))
    assert result.items_removed == (33,)
    assert result.state is None or result.state["hp"] == 4
    with pytest.raises(RulesError, match="forget"):
        proc("cast").odds(sheet, {**params, "on_backlash": "forget"})
    with pytest.raises(RulesError, match="no spells"):
        proc("cast").odds(make_sheet(), {})


def test_cast_odds_split_pass_and_backlash_exactly():
    """seed 000 (Spells): WIL d6 + spell d8 at DN 4; backlash whenever the spell die shows more."""
    sheet = make_sheet(make_state(spells=["Sleep"], spell_die=8))
    odds = proc("cast").odds(sheet, {"spell": "spell:Sleep", "die": "8"})
    backlash = sum(Fraction(1, 48) for w in range(1, 7) for s in range(1, 9) if s > w)
    assert odds.of("pass_backlash") + odds.of("fail_backlash") == backlash
    assert odds.success == 1 - Fraction(3, 6) * Fraction(3, 8)


def test_unwilling_target_forces_a_contest():
    """seed 000 (Spells) + spec §000.5.5 [REC]: caster WIL + spell die against the target's die."""
    sheet = make_sheet(make_state(spells=["Charm"], spell_die=6))
    odds = proc("cast").odds(sheet, {"spell": "spell:Charm", "die": "6", "target_die": "8"})
    assert [k for k, _ in odds.outcomes] == ["win", "lose", "tie"]
    result = proc("cast").roll(
        sheet, {"spell": "spell:Charm", "die": "6", "target_die": "8"}, ScriptedRandom([5, 2, 3])
    )
    assert result.outcome == "win"


def test_learning_a_spell_costs_100_and_stops_at_wil():
    """seed 000 (Spells): a week and 100 coin; no more spells than WIL's face (spec §000.12.2)."""
    sheet = make_sheet(make_state(wil=4, coins=150, spells=["A", "B", "C"]))
    result = proc("learn_spell").roll(sheet, {"spell": "Knock"}, ScriptedRandom([]))
    assert result.state["coins"] == 50 and "Knock" in result.state["spells"]
    assert result.state["spell_die"] == 4
    full = make_sheet(make_state(wil=4, coins=150, spells=["A", "B", "C", "D"]))
    with pytest.raises(RulesError, match="as many as your WIL"):
        proc("learn_spell").roll(full, {"spell": "Knock"}, ScriptedRandom([]))
    with pytest.raises(RulesError, match="100 coin"):
        proc("learn_spell").roll(make_sheet(make_state(coins=99)), {"spell": "Knock"}, ScriptedRandom([]))


def test_learning_a_skill_stops_at_int():
    """seed 000 (Skills): you can know as many skills as INT's face."""
    sheet = make_sheet(make_state(int_=4, skills=["lore", "repair", "survival"]))
    assert "athletics" in proc("learn_skill").roll(sheet, {"skill": "athletics"}, ScriptedRandom([])).state["skills"]
    full = make_sheet(make_state(int_=4, skills=["lore", "repair", "survival", "athletics"]))
    with pytest.raises(RulesError, match="INT"):
        proc("learn_skill").roll(full, {"skill": "performance"}, ScriptedRandom([]))


def test_spell_die_can_be_changed_at_will():
    """creation: a spell die of any size that you can change as often as you like."""
    result = proc("spell_die").roll(make_sheet(make_state(spell_die=8)), {"die": "12"}, ScriptedRandom([]))
    assert result.state["spell_die"] == 12


# --- attacks and harm -------------------------------------------------------------------------------


def test_several_steel_dice_use_the_highest_single_die():
    """seed 000 (Attacks): several attackers or weapons roll all steel dice and keep the highest."""
    sheet = make_sheet(items=[weapon("dagger", 4, 1), weapon("mace", 6, 2)])
    result = proc("attack").roll(sheet, {"weapons": ["1", "2"], "target_protection": 1}, ScriptedRandom([4, 2]))
    assert result.total == 3 and [d.kept for d in result.dice] == [True, False]
    odds = proc("attack").odds(sheet, {"weapons": ["1", "2"], "target_protection": 1})
    assert odds.of("no harm") == Fraction(1, 24)
    assert odds.of("5 harm") == Fraction(1, 6)


def test_unarmed_attack_uses_the_gm_die():
    """spec §000.12.5 [REC]: no steel die for unarmed attacks in the seed; d4 by default, GM may change."""
    odds = proc("attack").odds(make_sheet(), {})
    assert [k for k, _ in odds.outcomes] == ["1 harm", "2 harm", "3 harm", "4 harm"]
    assert proc("attack").odds(make_sheet(), {"unarmed_die": "6"}).of("6 harm") == Fraction(1, 6)


def test_detachments_attack_with_advantage_and_blast_and_resist_individuals():
    """seed 000 (Detachments): their attacks step up and have blast; attacks on them step down without blast."""
    sheet = make_sheet(items=[weapon("mace", 6, 1), weapon("firebomb", 6, 2, blast=True)])
    result = proc("attack").roll(
        sheet, {"weapons": ["1"], "detachment": "attacker", "targets": 3}, ScriptedRandom([8, 1, 2])
    )
    assert result.details["harm"] == [8, 1, 2]
    on_them = proc("attack").roll(sheet, {"weapons": ["1"], "detachment": "target"}, ScriptedRandom([4]))
    assert on_them.dice[0].sides == 4
    with_blast = proc("attack").roll(sheet, {"weapons": ["2"], "detachment": "target"}, ScriptedRandom([6]))
    assert with_blast.dice[0].sides == 6


def test_blast_rolls_for_each_target_and_the_steel_die_sets_an_unknown_count():
    """seed 000 (Blast): roll separately for each target; unsure how many, roll the weapon's steel die."""
    sheet = make_sheet(items=[weapon("firebomb", 6, 2, blast=True)])
    result = proc("attack").roll(sheet, {"weapons": ["2"], "targets": 0}, ScriptedRandom([5, 3, 2, 6]))
    assert result.details["targets_rolled"] == 3
    assert result.details["harm"] == [5, 2, 6]


def test_harm_goes_to_hp_then_bod_and_zero_points_is_death():
    """seed 000 (Attacks, Harm and Death): harm to HP, then BOD points; points at 0 is death."""
    sheet = make_sheet(make_state(bod=4, hp=2))
    result = proc("take_harm").roll(sheet, {"amount": 6}, ScriptedRandom([]))
    assert result.state["hp"] == 0 and result.state["abilities"]["BOD"]["points"] == 0
    assert result.outcome == "dead"
    assert proc("take_harm").odds(sheet, {"amount": 6}).outcomes == (("dead", 1),)


def test_failed_critical_harm_test_leaves_you_dying():
    """seed 000 (Harm and Death): test the ability at DN = the critical harm; fail -> unconscious, dying."""
    sheet = make_sheet(make_state(bod=8, hp=0))
    odds = proc("take_harm").odds(sheet, {"amount": 5})
    assert odds.of("standing") == Fraction(4, 8)
    result = proc("take_harm").roll(sheet, {"amount": 5}, ScriptedRandom([4]))
    assert result.state["dying"] is True and result.outcome == "dying"
    treated = proc("dying").roll(make_sheet(result.state), {"result": "treated"}, ScriptedRandom([]))
    assert treated.state["dying"] is False
    died = proc("dying").roll(make_sheet(result.state), {"result": "died"}, ScriptedRandom([]))
    assert "Dead" in SYSTEM.conditions(make_sheet(died.state))


def test_critical_harm_lowering_a_d4_kills():
    """seed 000 (Harm and Death): a die lowered below d4 means death."""
    sheet = make_sheet(make_state(bod=4, hp=0))
    result = proc("take_harm").roll(sheet, {"amount": 1, "reduce_die": True}, ScriptedRandom([]))
    assert result.state["dead"] is True
    lowered = proc("take_harm").roll(
        make_sheet(make_state(bod=8, hp=0)), {"amount": 1, "reduce_die": True}, ScriptedRandom([])
    )
    assert lowered.state["abilities"]["BOD"] == {"die": 6, "full_die": 8, "points": 5}


@pytest.mark.parametrize("amount", [-1, 101, 1000])
def test_take_harm_refuses_negative_or_absurd_amounts(amount):
    """seed 000 (Harm and Death): harm is a small whole number; nonsense is refused."""
    with pytest.raises(RulesError):
        proc("take_harm").roll(make_sheet(), {"amount": amount}, ScriptedRandom([]))


def test_npc_attack_rolls_its_steel_die_against_protection():
    """seed 000 (Attacks, Detachments): the GM rolls the NPC's steel die, minus this sheet's protection."""
    sheet = make_sheet(make_state(hp=4), items=[CHAINMAIL])
    result = proc("npc_attack").roll(sheet, {"steel": "8", "detachment": True}, ScriptedRandom([9, 5]))
    assert result.total == 7 and result.state["hp"] == 0
    assert result.state["abilities"]["BOD"]["points"] == 3  # 3 critical harm
    assert result.state["dying"] is False  # the BOD d6 showed 5 against DN 3
    assert proc("npc_attack").gm_only


def test_npc_attack_odds_count_the_chance_of_going_down():
    """Seed 000 (Attacks; Harm and Death): harm past HP is critical harm, and a failed critical harm test leaves the
    character dying. The odds of an NPC's attack on this sheet count it, as its roll lands on it (issue 35 item 7:
    they showed only the steel die's harm). HP 4, protection 2, a d8: a 7 or 8 passes HP; on an 8 (2 critical
    harm) the BOD d6 must beat DN 2, so dying is 1/8 x 1/6."""
    sheet = make_sheet(make_state(hp=4), items=[CHAINMAIL])
    odds = proc("npc_attack").odds(sheet, {"steel": "8"})
    assert dict(odds.outcomes) == {
        "no harm": Fraction(1, 4),
        **{f"{n} harm": Fraction(1, 8) for n in range(1, 6)},
        "6 harm": Fraction(1, 8) * Fraction(5, 6),
        "dying": Fraction(1, 48),
    }
    for faces, outcome in (([2], "no harm"), ([7], "5 harm"), ([8, 2], "6 harm"), ([8, 1], "dying")):
        result = proc("npc_attack").roll(sheet, {"steel": "8"}, ScriptedRandom(faces))
        assert result.outcome == outcome and result.odds == odds


def test_npc_attack_on_the_dead_or_dying_shows_what_the_roll_does():
    """Seed 000 (Harm and Death): the dead stay dead and the dying stay dying whatever the die shows."""
    dead = make_sheet(make_state(hp=0, dead=True))
    assert dict(proc("npc_attack").odds(dead, {}).outcomes) == {"dead": 1}
    assert proc("npc_attack").roll(dead, {}, ScriptedRandom([3])).outcome == "dead"
    dying = make_sheet(make_state(hp=0, dying=True))
    # A d6 of critical harm on BOD 6 points: a 6 leaves none (dead), anything less leaves them dying still.
    assert dict(proc("npc_attack").odds(dying, {}).outcomes) == {"dying": Fraction(5, 6), "dead": Fraction(1, 6)}
    assert proc("npc_attack").roll(dying, {}, ScriptedRandom([1])).outcome == "dying"
    assert proc("npc_attack").roll(dying, {}, ScriptedRandom([6])).outcome == "dead"


def test_the_dead_see_no_odds_of_advancing():
    """Seed 000 (Advancement): the dead do not advance; the odds refuse with the roll's sentence rather than show
    the HP a roll that is then refused would give."""
    dead = make_sheet(make_state(hp=0, dead=True))
    for ask in (lambda: proc("advance").odds(dead, {}), lambda: proc("advance").roll(dead, {}, ScriptedRandom([]))):
        with pytest.raises(RulesError, match="The dead do not advance"):
            ask()


# --- rest, deprivation ----------------------------------------------------------------------------


def test_rests_recover_hp_points_and_dice():
    """seed 000 (Healing and Rest): minutes -> all HP; a night -> all points; a week -> reduced dice."""
    state = make_state(bod=8, hp=1, hp_max=5, fatigue=1)
    state["abilities"]["BOD"].update({"die": 6, "points": 2})
    sheet = make_sheet(state)
    short = proc("rest").roll(sheet, {"length": "short"}, ScriptedRandom([]))
    assert short.state["hp"] == 5 and short.state["abilities"]["BOD"]["points"] == 2
    night = proc("rest").roll(sheet, {"length": "night"}, ScriptedRandom([]))
    assert night.state["abilities"]["BOD"]["points"] == 6 and night.state["fatigue"] == 0
    week = proc("rest").roll(sheet, {"length": "week"}, ScriptedRandom([]))
    assert week.state["abilities"]["BOD"] == {"die": 8, "full_die": 8, "points": 8}


def test_deprivation_blocks_every_rest():
    """seed 000 (Deprivation and Fatigue): deprived, you regain no HP or points and restore no dice."""
    sheet = make_sheet(make_state(deprived=True))
    for length in ("short", "night", "week"):
        with pytest.raises(RulesError, match="deprived"):
            proc("rest").roll(sheet, {"length": length}, ScriptedRandom([]))


def test_fatigue_starts_after_a_full_day_deprived_and_grows_each_day():
    """seed 000 (Deprivation and Fatigue) + spec §000.7 [REC]: fatigue = full days deprived − 1."""
    sheet = make_sheet()
    state = proc("deprivation").roll(sheet, {"change": "start"}, ScriptedRandom([])).state
    levels = []
    for _ in range(3):
        state = proc("deprivation").roll(make_sheet(state), {"change": "day"}, ScriptedRandom([])).state
        levels.append(state["fatigue"])
    assert levels == [0, 1, 2]
    state = proc("deprivation").roll(make_sheet(state), {"change": "end"}, ScriptedRandom([])).state
    assert state["fatigue"] == 2 and not state["deprived"]
    state = proc("deprivation").roll(make_sheet(state), {"change": "fatigue_off"}, ScriptedRandom([])).state
    assert state["fatigue"] == 1


# --- reaction, leverage, morale -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wil", "expected"),
    [
        (4, [Fraction(3, 4), Fraction(1, 4), 0, 0, 0]),
        (6, [Fraction(1, 2), Fraction(1, 3), Fraction(1, 6), 0, 0]),
        (12, [Fraction(1, 4), Fraction(1, 6), Fraction(1, 6), Fraction(1, 6), Fraction(1, 4)]),
    ],
)
def test_reaction_odds_list_every_row(wil, expected):
    """seed 000 (Reactions): WIL die on 1-3 Hostile, 4-5 Wary, 6-7 Indifferent, 8-9 Friendly, 10-12 Helpful."""
    odds = proc("reaction").odds(make_sheet(make_state(wil=wil)), {})
    assert [k for k, _ in odds.outcomes] == ["Hostile", "Wary", "Indifferent", "Friendly", "Helpful"]
    assert [p for _, p in odds.outcomes] == expected
    result = proc("reaction").roll(make_sheet(make_state(wil=wil)), {}, ScriptedRandom([4]))
    assert result.outcome == "Wary"


def test_leverage_win_improves_the_reaction_one_row():
    """seed 000 (Leverage) + spec §000.5.8 [REC]: win a WIL contest, the reaction moves up one row."""
    result = proc("leverage").roll(make_sheet(), {"reaction": "Wary", "npc_die": "4"}, ScriptedRandom([5, 2]))
    assert result.outcome == "win" and result.details["reaction"] == "Indifferent"
    lost = proc("leverage").roll(make_sheet(), {"reaction": "Wary", "npc_die": "4"}, ScriptedRandom([1, 2]))
    assert lost.details["reaction"] == "Wary"


def test_morale_contest_then_table():
    """seed 000 (Morale): win a WIL contest, then WIL on 1-3 Hesitate ... 10-12 Surrender unconditionally."""
    sheet = make_sheet(make_state(wil=12))
    odds = proc("morale").odds(sheet, {"npc_die": "4"})
    assert [k for k, _ in odds.outcomes][0] == "Fight on"
    assert len(odds.outcomes) == 6
    win, lose, tie = fell.contest_chances((12,), (4,))
    assert odds.of("Fight on") == lose + tie
    assert odds.of("Surrender unconditionally") == win * Fraction(3, 12)
    result = proc("morale").roll(sheet, {"npc_die": "4"}, ScriptedRandom([9, 2, 11]))
    assert result.outcome == "Surrender unconditionally"
    held = proc("morale").roll(sheet, {"npc_die": "4"}, ScriptedRandom([1, 2]))
    assert held.outcome == "Fight on"


# --- advancement ----------------------------------------------------------------------------------


def test_advancement_stops_dice_at_d12_and_notes_retirement():
    """seed 000 (Advancement) + spec §000.11 [REC]: dice cap at d12; 20 HP and all d12s -> retire."""
    sheet = make_sheet(make_state(12, 12, 12, hp=19))
    result = proc("advance").roll(sheet, {}, ScriptedRandom([12, 1, 1]))
    assert result.state["hp_max"] == 20
    assert result.state["abilities"]["BOD"]["die"] == 12
    assert result.details["retire"] is True and "retire" in result.summary
    assert proc("advance").gm_only


def test_advancement_odds_are_exact():
    """seed 000 (Advancement): the HP gained over every face of the three dice."""
    sheet = make_sheet(make_state(4, 4, 4, hp=10))
    odds = proc("advance").odds(sheet, {})
    assert odds.of("+0 HP") == Fraction(27, 64)
    assert odds.of("+3 HP") == Fraction(1, 64)


# --- hirelings ----------------------------------------------------------------------------------


def test_hire_makes_a_d4_hireling_with_3_hp_and_a_wage():
    """seed 000 (Hirelings): d4 in each ability, 3 HP (or rolled), 5 coin a day +5 per raised die."""
    sheet = make_sheet(make_state(wil=6, coins=20))
    h = SYSTEM.hire(sheet, {"name": "Bram", "background": "Hunter"}, ScriptedRandom([]))
    assert h.wage == 5
    state = SYSTEM.validate_state(h.state)
    assert all(state["abilities"][ab]["die"] == 4 for ab in ("BOD", "INT", "WIL"))
    assert state["hp"] == 3 and state["steel_die"] == 4 and state["skills"] == ["survival"]
    assert "Unpaid" in SYSTEM.conditions(make_sheet(state))
    raised = SYSTEM.hire(
        sheet, {"name": "C", "background": "Hunter", "raise": {"BOD": 2}, "hp": "roll"}, ScriptedRandom([7, 2, 3])
    )
    assert raised.wage == 15 and raised.state["hp"] == 7 and raised.state["abilities"]["BOD"]["die"] == 8


def test_hiring_is_refused_past_wil_or_without_a_days_wage():
    """seed 000 (Hirelings): as many hirelings as WIL; a day's wage must be in hand."""
    full = make_sheet(make_state(wil=4, coins=99), hirelings=[hireling(id_=i) for i in range(4)])
    with pytest.raises(RulesError, match="WIL lets you keep 4"):
        SYSTEM.hire(full, {"name": "X", "background": "Hunter"}, ScriptedRandom([]))
    with pytest.raises(RulesError, match="5 coin a day"):
        SYSTEM.hire(make_sheet(make_state(coins=4)), {"name": "X", "background": "Hunter"}, ScriptedRandom([]))


def test_paying_hirelings_up_front_marks_them_paid():
    """seed 000 (Hirelings): paid up front, no WIL contest for dangerous orders."""
    sheet = make_sheet(make_state(coins=30), hirelings=[hireling(id_=4)])
    result = proc("pay_hirelings").roll(sheet, {"hirelings": ["4"], "days": 3}, ScriptedRandom([]))
    assert result.state["coins"] == 15
    assert result.hirelings_changed[0].state["paid_up"] is True
    with pytest.raises(RulesError, match="costs 50 coin"):
        proc("pay_hirelings").roll(sheet, {"hirelings": ["4"], "days": 10}, ScriptedRandom([]))


def test_unpaid_hireling_needs_a_wil_contest_for_danger():
    """seed 000 (Hirelings): not paid up front, roll a WIL contest whenever asking something dangerous."""
    unpaid = make_sheet(hirelings=[hireling(id_=4)])
    odds = proc("order_hireling").odds(unpaid, {"hireling": "4"})
    win, _, _ = fell.contest_chances((6,), (4,))
    assert odds.of("obeys") == win
    assert proc("order_hireling").roll(unpaid, {"hireling": "4"}, ScriptedRandom([5, 3])).outcome == "obeys"
    paid = make_sheet(hirelings=[hireling(id_=4, paid=True)])
    result = proc("order_hireling").roll(paid, {"hireling": "4"}, ScriptedRandom([]))
    assert result.outcome == "obeys" and result.dice == ()


# --- buying and the catalogue -------------------------------------------------------------------


def test_buying_deducts_coin_and_refuses_when_short():
    """seed 000 (Equipment): prices in coin; the purchase is refused readably when you cannot pay."""
    sheet = make_sheet(make_state(coins=50))
    result = proc("buy").roll(sheet, {"item": "greatsword"}, ScriptedRandom([]))
    assert result.state["coins"] == 5
    (item,) = result.items_added
    assert (item.kind, item.slots, item.data["steel_die"], item.data["bulky"]) == ("weapon", 2, 8, True)
    with pytest.raises(RulesError, match="costs 75 coin and you have 50"):
        proc("buy").roll(sheet, {"item": "horse"}, ScriptedRandom([]))
    meal = SYSTEM.buy(sheet, next(e for e in SYSTEM.catalogue() if e.name == "good meal"), 2)
    assert meal.items_added == () and meal.state["coins"] == 44
    with pytest.raises(RulesError, match="No room"):
        SYSTEM.buy(
            make_sheet(make_state(bod=4, coins=500), items=[gear("junk", 1, quantity=15)]),
            CatalogueEntry("tent", "gear", 15, 2, data={"bulky": True}),
        )


def test_catalogue_holds_every_row_of_the_seed_price_lists():
    """seed 000 (Equipment): gear, animals, vehicles, services, weapons and armour, cost in coin."""
    entries = SYSTEM.catalogue()
    groups = {
        g: [e for e in entries if e.group == g]
        for g in ("Equipment", "Animals", "Vehicles", "Services", "Weapons", "Armour")
    }
    assert [len(v) for v in groups.values()] == [69, 3, 4, 6, 18, 3]
    assert len(entries) == 103
    by_name = {e.name: e for e in entries}
    assert by_name["ladder (10ft)"].slots == 2 and by_name["tent"].data == {"bulky": True}
    assert by_name["firebomb"].data == {"steel_die": 6, "blast": True}
    assert by_name["chainmail"].data == {"protection": 2, "bulky": True} and by_name["chainmail"].cost == 40
    assert by_name["shield"].kind == "shield" and by_name["shield"].data == {"protection": 1}
    assert by_name["horse"].kind == "animal" and by_name["horse"].slots == 0
    assert by_name["carriage"].cost == 350
    assert by_name["hireling (per day)"].kind == "service"
    assert by_name["arrows (20)"].kind == "ammo"
    steel = {e.name: e.data.get("steel_die") for e in groups["Weapons"]}
    assert steel["longsword"] == 6 and steel["dagger"] == 4 and steel["warhammer"] == 8


# --- properties ---------------------------------------------------------------------------------

dice_st = st.sampled_from(LADDER)


@st.composite
def sheets(draw) -> Sheet:
    bod, int_, wil = draw(dice_st), draw(dice_st), draw(dice_st)
    hp_max = draw(st.integers(0, 20))
    state = make_state(
        bod,
        int_,
        wil,
        hp=draw(st.integers(0, hp_max)),
        hp_max=hp_max,
        fatigue=draw(st.integers(0, 3)),
        skills=draw(st.lists(st.sampled_from(data.SKILLS), max_size=3, unique=True)),
        spells=["Sleep"],
        spell_die=draw(dice_st),
        coins=draw(st.integers(0, 500)),
    )
    for ab in ("BOD", "INT", "WIL"):
        state["abilities"][ab]["points"] = draw(st.integers(1, state["abilities"][ab]["die"]))
    items = [weapon("blade", draw(dice_st), 1)]
    if draw(st.booleans()):
        items.append(CHAINMAIL)
    return make_sheet(state, items, [hireling(id_=9)])


@settings(max_examples=40, deadline=None)
@given(sheets(), st.integers(0, 3), st.integers(0, 3), st.integers(1, 14))
def test_every_procedures_odds_sum_to_one(sheet, adv, dis, dn):
    """Lantern contract: every procedure's odds are exact Fractions that sum to 1."""
    state = sheet.state
    extra = {
        "test": {"skills": state["skills"], "steel": "1", "spell_die": True, "helpers": ["9"], "dn": dn},
        "contest": {"skills": state["skills"][:1], "npc_die": "8"},
        "cast": {"spell": "spell:Sleep", "dn": dn},
        "attack": {"weapons": ["1"], "detachment": "attacker"},
        "take_harm": {"amount": dn},
        "order_hireling": {"hireling": "9"},
    }
    shifts = {"advantage": adv, "disadvantage": dis}
    for key, p in SYSTEM.procedures().items():
        names = {x.name for x in p.params(sheet)}
        given_ = {k: v for k, v in {**shifts, **extra.get(key, {})}.items() if k in names}
        check_params(p, sheet, given_)
        odds = p.odds(sheet, given_)
        if odds is not None:
            assert sum(q for _, q in odds.outcomes) == 1
            assert all(isinstance(q, Fraction) and 0 <= q <= 1 for _, q in odds.outcomes)


@settings(max_examples=60, deadline=None)
@given(
    sheets(),
    st.lists(st.tuples(st.integers(0, 15), st.sampled_from(["BOD", "WIL"]), st.booleans()), max_size=5),
    st.randoms(),
)
def test_hp_and_points_stay_within_bounds(sheet, hits, rnd):
    """seed 000 (Harm and Death, Healing): HP and points never go below 0 or above their maximum."""
    for amount, ability, reduce_die in hits:
        harm = fell.apply_harm(sheet, amount, ability, rnd, reduce_die=reduce_die)
        sheet = make_sheet(SYSTEM.validate_state(harm.state), sheet.items, sheet.hirelings)
        s = sheet.state
        assert 0 <= s["hp"] <= s["hp_max"]
        for ab in ("BOD", "INT", "WIL"):
            a = s["abilities"][ab]
            assert 0 <= a["points"] <= a["die"] <= a["full_die"]
    for key in ("hp", "BOD", "INT", "WIL"):
        for delta in (-50, 50):
            s = SYSTEM.adjust(sheet, key, delta)
            assert 0 <= s["hp"] <= s["hp_max"]
            assert all(0 <= s["abilities"][ab]["points"] <= s["abilities"][ab]["die"] for ab in ("BOD", "INT", "WIL"))


@given(dice_st, st.integers(-6, 12))
def test_ladder_steps_stay_on_the_ladder(die, net):
    """seed 000 (Dice Ladder): every shifted die is d4..d12; d12 plus steps only adds bonus dice."""
    pool = fell.shift_dice((fell.PoolDie(die, "x", "ability"),), net)
    assert all(s in LADDER for s in pool.sides)
    if net < 0:
        assert len(pool.sides) <= 1
    else:
        assert pool.sides[0] == min(12, LADDER[min(4, LADDER.index(die) + net)])


def test_procedures_refuse_unknown_options_and_misplaced_characters():
    """Lantern contract: a readable RulesError for an option a procedure does not have."""
    with pytest.raises(RulesError, match="no option"):
        proc("test").odds(make_sheet(), {"luck": 3})
    with pytest.raises(RulesError, match="no place for a character"):
        proc("reaction").odds(make_sheet(), {"ability": make_sheet()})


# --- the creation and hire forms ----------------------------------------------------------------


class _Form:
    """The app's view wraps a system's params like this to check a posted form (characters.views)."""

    key, label, gm_only = "choices", "Form", False

    def __init__(self, params):
        self._params = params

    def params(self, sheet):
        return self._params


def _posted(params, sheet, posted: dict[str, str]) -> dict[str, Any]:
    """What the app passes on: every field as the browser sends it (strings), checked, empties dropped."""
    raw = {p.name: posted.get(p.name, "") for p in params}
    clean = check_params(_Form(params), sheet, raw)
    return {k: v for k, v in clean.items() if v not in (None, "")}


def test_creation_params_offer_every_choice_the_creation_rules_take():
    """creation: name, age, rolled or assigned dice with a lower/raise, HP, 20 backgrounds, spell, traits."""
    params = {p.name: p for p in SYSTEM.creation_params()}
    assert list(params) == [
        "name",
        "age",
        "abilities",
        "lower",
        "raise",
        "hp",
        "background",
        "spell",
        "spell_die",
        "traits",
    ]
    assert [v for v, _ in params["background"].choices] == ["roll", *(b[0] for b in data.BACKGROUNDS)]
    assert len(params["spell"].choices) == 1 + len(data.SPELLS) == 101
    assert {v for v, _ in params["abilities"].choices} == {"roll", "assign"}
    assert {v for v, _ in params["hp"].choices} == {"roll", "four"}
    assert {v for v, _ in params["traits"].choices} == {"roll", "none"}
    assert [v for v, _ in params["lower"].choices] == ["", "BOD", "INT", "WIL"]


def test_an_empty_creation_form_leaves_everything_to_the_dice():
    """creation: an empty form rolls name, age, dice, HP, background, (spell), coin and traits."""
    params = SYSTEM.creation_params()
    choices = _posted(params, Sheet(state={}), {})
    assert choices == {
        "abilities": "roll",
        "hp": "roll",
        "background": "roll",
        "spell": "roll",
        "spell_die": "8",
        "traits": "roll",
    }
    empty = SYSTEM.create({}, random.Random(3))
    same = SYSTEM.create(choices, random.Random(3))
    assert (same.name, same.state, [r.label for r in same.rolls]) == (
        empty.name,
        empty.state,
        [r.label for r in empty.rolls],
    )


def test_a_chosen_creation_form_rolls_only_coin():
    """creation: chosen name, age, d6s with WIL lowered for BOD, 4 HP, background, no traits: only 3d6 coin."""
    posted = {
        "name": "Ana",
        "age": "30",
        "abilities": "assign",
        "lower": "WIL",
        "raise": "BOD",
        "hp": "four",
        "background": "Hunter",
        "spell": "Adhere",
        "traits": "none",
    }
    choices = _posted(SYSTEM.creation_params(), Sheet(state={}), posted)
    assert choices["age"] == 30
    rng = ScriptedRandom([2, 3, 4])
    c = SYSTEM.create(choices, rng)
    assert rng.remaining == 0
    s = c.state
    assert (c.name, s["age"], s["hp"], s["background"], s["coins"], s["traits"]) == ("Ana", 30, 4, "Hunter", 9, [])
    assert {ab: s["abilities"][ab]["die"] for ab in ("BOD", "INT", "WIL")} == {"BOD": 8, "INT": 6, "WIL": 4}
    assert s["spells"] == [] and s["spell_die"] == 0  # WIL d4: the chosen spell is not used
    assert [r.label for r in c.rolls] == ["Coin"]


def test_a_chosen_spell_and_spell_die_need_wil_d8():
    """creation: with WIL d8 the chosen spell and spell die of any size are taken."""
    posted = {"abilities": "assign", "lower": "BOD", "raise": "WIL", "spell": "Anchor", "spell_die": "12"}
    choices = _posted(SYSTEM.creation_params(), Sheet(state={}), {"name": "A", "age": "20", **posted})
    c = SYSTEM.create({**choices, "hp": "four", "background": "Hunter", "traits": "none"}, ScriptedRandom([1, 1, 1]))
    assert c.state["spells"] == ["Anchor"] and c.state["spell_die"] == 12


@pytest.mark.parametrize(
    ("posted", "message"),
    [
        ({"age": "0"}, "Age must be at least 1"),
        ({"age": "old"}, "Age must be a whole number"),
        ({"background": "Astronaut"}, "Background: choose one of"),
        ({"abilities": "assign", "lower": "WIL"}, "both or neither"),
        ({"lower": "WIL", "raise": "BOD"}, "for assigned dice"),
        ({"abilities": "assign", "lower": "INT", "raise": "INT"}, "different"),
    ],
)
def test_bad_creation_choices_are_refused_before_any_die_is_rolled(posted, message):
    """creation: a readable RulesError for nonsense, from the form check or from create itself."""
    with pytest.raises(RulesError, match=message):
        choices = _posted(SYSTEM.creation_params(), Sheet(state={}), posted)
        SYSTEM.create(choices, ScriptedRandom([]))


def test_every_offered_background_and_spell_is_one_create_accepts():
    """creation: each form choice is a row of the tables, so picking any of them works."""
    params = {p.name: p for p in SYSTEM.creation_params()}
    base = {"name": "A", "age": 20, "abilities": "assign", "lower": "BOD", "raise": "WIL", "hp": "four"}
    for value, _ in params["background"].choices[1:]:
        c = SYSTEM.create({**base, "background": value, "traits": "none"}, random.Random(1))
        assert c.state["background"] == value
    for value, _ in params["spell"].choices[1:]:
        c = SYSTEM.create({**base, "background": "Hunter", "spell": value, "traits": "none"}, random.Random(1))
        assert c.state["spells"] == [value]


def test_hire_params_match_what_hire_takes():
    """seed 000 (Hirelings): name, background, 3 HP or rolled, and one-step raises at +5 coin a day each."""
    sheet = make_sheet(make_state(wil=6, coins=50))
    params = SYSTEM.hire_params(sheet)
    assert [p.name for p in params] == ["name", "background", "hp", "raise_BOD", "raise_INT", "raise_WIL"]
    plain = _posted(params, sheet, {"name": "Bram", "background": "Hunter"})
    h = SYSTEM.hire(sheet, plain, ScriptedRandom([]))
    assert (h.name, h.wage, h.state["hp"]) == ("Bram", 5, 3)
    raised = _posted(params, sheet, {"name": "C", "background": "Hunter", "hp": "roll", "raise_BOD": "2"})
    h = SYSTEM.hire(sheet, raised, ScriptedRandom([7, 2, 3]))
    assert (h.wage, h.state["hp"], h.state["abilities"]["BOD"]["die"]) == (15, 7, 8)
    rolled = SYSTEM.hire(sheet, _posted(params, sheet, {}), ScriptedRandom([16, 3, 11]))
    assert (rolled.name, rolled.state["background"]) == ("Mannog Burl", "Hunter")
    with pytest.raises(RulesError, match="at most 4"):
        _posted(params, sheet, {"raise_WIL": "5"})


def test_scrolls_added_as_spell_books_can_be_cast():
    """seed 000 (Spells): a scroll on the sheet (the app's kind "spellbook") is offered to cast."""
    scroll = Item("Scroll of Light", "spellbook", 1, 1, {}, id=9)
    tome = Item("Dusty tome", "spellbook", 1, 1, {}, id=10)
    choices = dict(next(p for p in proc("cast").params(make_sheet(items=[scroll, tome])) if p.name == "spell").choices)
    assert set(choices) == {"scroll:9", "scroll:10"}


# --- found in review (issue 10): harm that lowers a die, lent spell dice, boundaries ---------------


def test_lowering_a_die_by_critical_harm_brings_its_points_down_to_the_new_die():
    """seed 000 (Harm and Death: critical harm "may also reduce an ability's die") + spec §000.3: an
    ability's points run from 0 to the highest face of its die, so BOD d6 with 6 points that drops to
    d4 keeps at most 4; the odds no longer fail on the lowered sheet, and the roll lands on them."""
    sheet = make_sheet(make_state(bod=6, hp=0))
    params = {"amount": 2, "reduce_die": True}
    odds = proc("take_harm").odds(sheet, params)
    assert sum(p for _, p in odds.outcomes) == 1
    # d4 with 4 points, minus 2 critical: 2 left, then a BOD test at DN 2 on the d4 (1 in 4 fails).
    assert dict(odds.outcomes) == {"standing": Fraction(3, 4), "dying": Fraction(1, 4)}
    for face in range(1, 5):
        result = proc("take_harm").roll(sheet, params, ScriptedRandom([face]))
        assert odds.of(result.outcome) > 0
        after = SYSTEM.validate_state(result.state)
        assert after["abilities"]["BOD"] == {"die": 4, "full_die": 6, "points": 2}


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(LADDER), st.integers(0, 6), st.integers(0, 12), st.booleans(), st.randoms())
def test_take_harm_odds_sum_to_one_and_the_roll_lands_on_them(die, hp, amount, reduce_die, rnd):
    """seed 000 (Harm and Death): whatever the die, HP and harm, the odds are whole and exact, the roll
    lands on an outcome they gave a chance to, and the sheet it leaves is a valid one."""
    state = make_state(bod=die, hp=hp)
    sheet = make_sheet(state)
    params = {"amount": amount, "reduce_die": reduce_die, "ability": "BOD"}
    odds = proc("take_harm").odds(sheet, params)
    assert sum(p for _, p in odds.outcomes) == 1
    result = proc("take_harm").roll(sheet, params, rnd)
    assert odds.of(result.outcome) > 0
    SYSTEM.validate_state(result.state)


def _spell_pool_by_hand(ability: int, spells: list[int], others: list[int], dn: int) -> dict[str, Fraction]:
    """pass/fail x backlash for a test pool by every face (seed 000, Tasks and Tests; Spells)."""
    out = dict.fromkeys(("pass", "pass_backlash", "fail", "fail_backlash"), Fraction(0))
    sizes = [ability, *spells, *others]
    for faces in itertools.product(*[range(1, s + 1) for s in sizes]):
        key = "pass" if max(faces) >= dn else "fail"
        if any(f > faces[0] for f in faces[1 : 1 + len(spells)]):
            key += "_backlash"
        out[key] += Fraction(1, math.prod(sizes))
    return out


def test_a_hirelings_spell_die_lent_to_a_test_backlashes_on_the_hireling():
    """seed 000 (Spells: "whenever using your spell die"; Help; Hirelings): a hireling helping with its
    spell die is using it, so when it beats the test's ability die the hireling takes the difference
    as harm, first to HP, then to WIL."""
    mage = hireling("Mira", id_=9, spell_die=8)  # d8 spell die beats its d4 skill die, so it lends that
    sheet = make_sheet(make_state(bod=6, hp=4), hirelings=[mage])
    odds = proc("test").odds(sheet, {"helpers": ["9"]})
    assert dict(odds.outcomes) == _spell_pool_by_hand(6, [8], [], 4)
    # BOD 1, Mira's spell die 5: the test passes and Mira takes 4: 3 HP, then 1 to WIL (DN 1 passes).
    result = proc("test").roll(sheet, {"helpers": ["9"]}, ScriptedRandom([1, 5]))
    assert result.outcome == "pass_backlash" and odds.of(result.outcome) > 0
    assert result.state is None  # the tester's own sheet is untouched
    (after,) = result.hirelings_changed
    assert after.id == 9 and after.state["hp"] == 0 and after.state["abilities"]["WIL"]["points"] == 3


def test_a_helping_characters_spell_die_backlashes_on_the_helper():
    """seed 000 (Spells; Help): the helper rolls their own spell die, so its backlash is theirs."""
    friend = make_sheet(make_state(wil=6, hp=5, spell_die=12), name="Bo")
    sheet = make_sheet(make_state(int_=8, hp=4))
    params = {"ability": "INT", "helper": friend, "helper_die": "spell"}
    odds = proc("test").odds(sheet, params)
    assert dict(odds.outcomes) == _spell_pool_by_hand(8, [12], [], 4)
    result = proc("test").roll(sheet, params, ScriptedRandom([2, 9, 5]))  # 5: Bo's WIL test at DN 2
    assert result.outcome == "pass_backlash" and result.state is None
    assert result.other_states["helper"]["hp"] == 0  # 7 harm: 5 HP, then 2 to WIL
    assert result.other_states["helper"]["abilities"]["WIL"]["points"] == 4
    assert result.details["helper_backlash"] == {"Bo": 7}


def test_the_testers_and_a_helpers_spell_dice_both_backlash():
    """seed 000 (Spells): two spell dice in one pool, each against the test's ability die."""
    friend = make_sheet(make_state(spell_die=6), name="Bo")
    sheet = make_sheet(make_state(wil=4, spell_die=8, hp=6))
    params = {"ability": "WIL", "spell_die": True, "helper": friend, "helper_die": "spell"}
    odds = proc("test").odds(sheet, params)
    assert dict(odds.outcomes) == _spell_pool_by_hand(4, [8, 6], [], 4)
    result = proc("test").roll(sheet, params, ScriptedRandom([2, 5, 3]))
    assert result.outcome == "pass_backlash"
    assert result.state["hp"] == 3 and result.other_states["helper"]["hp"] == 3


def test_an_opponents_spell_die_in_a_contest_backlashes_on_the_opponent():
    """seed 000 (Spells; Contests): each side rolls a test pool; the opponent using their spell die
    takes its backlash against their own ability die."""
    rival = make_sheet(make_state(wil=8, hp=2, spell_die=10), name="Rival")
    params = {"ability": "WIL", "opponent": rival, "opponent_ability": "WIL", "opponent_extra": "spell"}
    odds = proc("contest").odds(make_sheet(), params)
    win, lose, tie = contest_by_hand([6], [8, 10])
    assert odds.outcomes == (("win", win), ("lose", lose), ("tie", tie))
    result = proc("contest").roll(make_sheet(), params, ScriptedRandom([3, 1, 7, 5]))  # 5: their WIL test
    assert result.outcome == "lose" and result.state is None
    assert result.other_states["opponent"]["hp"] == 0  # 6 harm: 2 HP, then 4 to WIL (DN 4 test passed)
    assert result.other_states["opponent"]["abilities"]["WIL"]["points"] == 4


def test_an_attack_with_an_ally_harms_the_target_not_the_ally():
    """seed 000 (Attacks): the harm of a shared attack goes to the target, named as such."""
    ally = make_sheet(items=[weapon("axe", 8, 7)], name="Ally")
    target = make_sheet(make_state(hp=5), name="Target")
    sheet = make_sheet(items=[weapon("mace", 6, 1)])
    result = proc("attack").roll(sheet, {"weapons": ["1"], "ally": ally, "target": target}, ScriptedRandom([2, 5]))
    assert set(result.other_states) == {"target"} and result.other_states["target"]["hp"] == 0


def test_advancement_with_a_die_equal_to_hp_gains_nothing():
    """seed 000 (Advancement): only a die *higher* than your hit points gains one; equal does not."""
    sheet = make_sheet(make_state(8, 8, 8, hp=5))
    result = proc("advance").roll(sheet, {}, ScriptedRandom([5, 5, 5]))
    assert result.outcome == "+0 HP" and (result.state or sheet.state)["hp_max"] == 5
    assert proc("advance").odds(sheet, {}).of("+0 HP") == Fraction(5, 8) ** 3


def test_carrying_exactly_as_many_items_as_slots_gives_no_disadvantage():
    """seed 000 (Equipment): disadvantage starts only when carrying *more* than your slots."""
    sheet = make_sheet(make_state(bod=6), items=[gear(f"sack {i}", i) for i in range(10)])  # 10 of 10
    assert SYSTEM.slots(sheet).used == 10 and SYSTEM.slots(sheet).consequences == ()
    assert "Over-encumbered" not in SYSTEM.conditions(sheet)
    assert proc("test").odds(sheet, {}).success == Fraction(3, 6)  # the d6 is not stepped down
    SYSTEM.check_can_carry(sheet, gear("one more", 99))  # an eleventh is allowed, with disadvantage


def test_a_dn_1_test_with_no_dice_left_fails():
    """seed 000 (Dice Ladder: "If a die would be lowered below a d4, you cannot roll it") + spec §000.5
    [REC]: an empty pool fails automatically, even at DN 1."""
    sheet = make_sheet(make_state(bod=4))
    params = {"disadvantage": 1, "dn": 1}
    assert proc("test").odds(sheet, params).outcomes == (("pass", 0), ("fail", 1))
    result = proc("test").roll(sheet, params, ScriptedRandom([]))
    assert result.outcome == "fail" and result.dice == ()


# --- the table's rule settings (spec §5.1) ---------------------------------------------------------------------


def with_settings(sheet: Sheet, **values: Any) -> Sheet:
    return dataclasses.replace(sheet, settings=values)


def test_fell_draft_declares_the_spec_s_settings_with_the_rec_defaults():
    """spec §5.1: fell.extra_die_rule (one of each), fell.advance_clauses_stack (true), fell.contest_tiebreak."""
    assert SYSTEM.settings_in_force(None) == {
        "extra_die_rule": "one_of_each",
        "advance_clauses_stack": True,
        "contest_tiebreak": "ladder",
        **defaults(LIGHT_SETTINGS),  # and the table's light rules (rules.clock, issue 41)
    }


def test_a_tie_that_stands_is_a_tie_when_the_highest_faces_match():
    """seed 000 (Contests) with the table's "tie stands" reading: a 6 on a d8 against a 6 on a d6 is a tie."""
    sheet = with_settings(make_sheet(make_state(int_=8)), contest_tiebreak="stands")
    result = proc("contest").roll(sheet, {"ability": "INT", "npc_die": "6"}, ScriptedRandom([6, 6]))
    assert result.outcome == "tie"
    assert (
        proc("contest")
        .roll(make_sheet(make_state(int_=8)), {"ability": "INT", "npc_die": "6"}, ScriptedRandom([6, 6]))
        .outcome
        == "win"
    )


def test_contest_odds_follow_the_tiebreak_setting():
    """seed 000 (Contests): d6 against d6 is win 15/36, tie 6/36 when ties stand; the ladder reading breaks none
    of them (equal dice), so both readings agree there, and differ for d8 against d6."""
    stands = with_settings(make_sheet(make_state(bod=6)), contest_tiebreak="stands")
    odds = proc("contest").odds(stands, {"ability": "BOD", "npc_die": "6"})
    assert (odds.of("win"), odds.of("tie")) == (Fraction(15, 36), Fraction(6, 36))
    d8 = make_sheet(make_state(bod=8))
    ladder = proc("contest").odds(d8, {"ability": "BOD", "npc_die": "6"})
    standing = proc("contest").odds(with_settings(d8, contest_tiebreak="stands"), {"ability": "BOD", "npc_die": "6"})
    assert ladder.of("tie") == 0 and standing.of("tie") == Fraction(6, 48)
    assert standing.of("win") + standing.of("tie") == ladder.of("win")


@given(pools, pools)
@settings(max_examples=60, deadline=None)
def test_tie_stands_odds_equal_counting_every_face(a, b):
    """The "tie stands" reading: only the highest faces are compared; exact odds by brute force."""
    win = lose = tie = Fraction(0)
    total = math.prod(a + b)
    for faces in itertools.product(*[range(1, s + 1) for s in a + b]):
        fa, fb = max(faces[: len(a)], default=0), max(faces[len(a) :], default=0)
        win += fa > fb
        lose += fa < fb
        tie += fa == fb
    assert fell.contest_chances(a, b, "stands") == (win / total, lose / total, tie / total)


def test_one_extra_die_in_all_is_the_table_s_choice():
    """seed 000 (Tasks and Tests) + spec §000.12: the strict reading allows one steel, skill or spell die."""
    sheet = make_sheet(make_state(skills=["lore"]), items=[weapon("dagger", 4, 1)])
    params = {"steel": "1", "skills": ["lore"]}
    assert proc("test").odds(sheet, params).success > 0
    with pytest.raises(RulesError, match="strict"):
        proc("test").odds(with_settings(sheet, extra_die_rule="one_only"), params)


def test_advancement_odds_follow_the_stacking_setting():
    """seed 000 (Advancement) + spec §000.11: with clauses apart a die earns at most 1 HP, so +3 HP is the top."""
    sheet = make_sheet(make_state(bod=4, int_=4, wil=4, hp=1))
    stacked = proc("advance").odds(sheet, {})
    apart = proc("advance").odds(with_settings(sheet, advance_clauses_stack=False), {})
    assert max(int(k[1:-3]) for k, p in stacked.outcomes if p) == 6
    assert max(int(k[1:-3]) for k, p in apart.outcomes if p) == 3
