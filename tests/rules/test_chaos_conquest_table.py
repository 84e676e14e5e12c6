"""Chaos & Conquest at the GM's table (issue 16): group results, NPCs, the round's order, time, light and travel.

Seed 002 (../shared/seeds/002_882aafdbf41b7f4b.txt) and rules-spec §002.4.6, §002.5, §002.7.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest

from rules.base import Item, Sheet
from rules.dice import ScriptedRandom
from rules.systems.chaos_conquest import SYSTEM

TORCH = Item("Torch", "light", 1, 2, {"lp": 2, "turns": 6, "lit": True}, id=1)
LANTERN = Item("Lantern", "light", 1, 1, {"lp": 5, "turns": 24, "needs_oil": True, "lit": True, "burned": 230}, id=2)


def test_party_save_passes_when_anyone_passes_and_counts_the_failures():
    """Seed 002, Party Saves; spec §002.4.6 [REC]: the best result counts; the leader takes a stress per failure."""
    group = SYSTEM.group_result("save", ["fail", "pass", "dies"])
    assert group is not None and group.outcome == "pass" and "takes 2 stress" in group.summary
    assert SYSTEM.group_result("save", ["fail", "fail"]).outcome == "fail"
    assert SYSTEM.group_result("attack", ["hit"]) is None


def test_npc_damage_takes_av_off_and_calls_morale_at_half_or_a_fall():
    """Seed 002, Combat (damage − AV, a critical bypasses armour) and Morale (a shock calls for 2d6 vs ML)."""
    start = {"stamina": 8, "av": 1, "damage": "6", "ml": 9}
    hit = SYSTEM.npc_damage(start, start, 3)
    assert hit.stats["stamina"] == 6 and hit.dealt == 2 and not hit.morale
    half = SYSTEM.npc_damage(hit.stats, start, 3)
    assert half.stats["stamina"] == 4 and half.morale and not half.defeated
    crit = SYSTEM.npc_damage(half.stats, start, 4, ignore_armour=True)
    assert crit.stats["stamina"] == 0 and crit.defeated and crit.morale


def test_npc_morale_and_attack_are_rolled_with_exact_odds():
    """Seed 002, Morale: 2d6 above ML flees; an attack rolls the damage die, its maximum a critical."""
    stats = {"stamina": 8, "av": 1, "damage": "6", "ml": 7}
    flee = SYSTEM.npc_roll("morale", stats, ScriptedRandom([6, 2]))
    assert flee.outcome == "flee" and flee.total == 8 and flee.odds.of("flee") == Fraction(15, 36)
    crit = SYSTEM.npc_roll("attack", stats, ScriptedRandom([6]))
    assert crit.outcome == "critical" and crit.odds.of("critical") == Fraction(1, 6)


@pytest.mark.parametrize(
    ("party", "enemies", "first"), [(5, 2, "The party acts"), (1, 4, "The enemies act"), (3, 3, "Both")]
)
def test_combat_order_is_a_d6_each_side(party, enemies, first):
    """Seed 002, Combat: higher acts first; a tie acts at once."""
    order = SYSTEM.combat_order(1, ScriptedRandom([party, enemies]))
    assert order.steps[0].startswith(first) and len(order.dice) == 2


@pytest.mark.parametrize(
    ("party", "enemies", "sides"), [(6, 1, ("party", "enemies")), (2, 5, ("enemies", "party")), (4, 4, ("both",))]
)
def test_whose_turn_higher_d6_first_a_tie_both_at_once_seed_002_combat(party, enemies, sides):
    """Seed 002, Combat, "Establish combat order" (issue 36, item 6): the side with the higher d6 has the first
    turn; on a tie both sides act at once, one step for everyone. A round is 20 seconds (seed 002, Time)."""
    assert SYSTEM.combat_order(3, ScriptedRandom([party, enemies])).sides == sides
    assert SYSTEM.combat_round_seconds == 20


def test_turns_burn_torches_and_lanterns_go_dark():
    """Equipment.md, Light: a torch burns 6 turns, a lantern 24 on its oil."""
    sheet = Sheet(state=SYSTEM.default_state(), items=(TORCH, LANTERN))
    result = SYSTEM.advance_time(sheet, "turn", 6, 0, ScriptedRandom([]))
    torch, lantern = result.items_changed
    assert torch.quantity == 1 and torch.data["lit"] is False and torch.data["burned"] == 0
    assert lantern.quantity == 1 and lantern.data["lit"] is False  # out of oil, not used up
    one_left = replace(TORCH, quantity=1)
    last = SYSTEM.advance_time(Sheet(state=sheet.state, items=(one_left,)), "turn", 6, 0, ScriptedRandom([]))
    assert last.items_removed == (1,)


def test_encounter_checks_every_two_turns_and_every_two_watches():
    """Seed 002, Time: a d6 every two turns, and every two watches; a 1 is an encounter."""
    checks = SYSTEM.time_checks("turn", 3, 10, ScriptedRandom([1, 4]))
    assert [c.outcome for c in checks] == ["encounter", "quiet"]  # minutes 10→40 passes 20 and 40
    assert len(SYSTEM.time_checks("watch", 6, 0, ScriptedRandom([2, 3, 4]))) == 3


def test_light_level_from_the_party_light_points():
    """Equipment.md, Light: LP ≥ party size bright; more than half dim; less darkness."""
    lit = Sheet(state={}, items=(TORCH,))
    dark = Sheet(state={}, items=())
    assert SYSTEM.light_level([lit, dark]).key == "bright"
    assert SYSTEM.light_level([lit, dark, dark]).key == "dim"
    assert SYSTEM.light_level([lit, dark, dark, dark, dark]).key == "darkness"
    assert SYSTEM.light_level([]) is None


@pytest.mark.parametrize(
    ("params", "lost"),
    [
        ({}, Fraction(0)),
        ({"difficult": True}, Fraction(2, 6)),
        ({"hard_to_see": True, "background": True}, Fraction(1, 6)),
        ({"difficult": True, "map": True}, Fraction(0)),
    ],
)
def test_getting_lost(params, lost):
    """Spec §002.7, Travel: 2-in-6 in difficult or hard-to-see terrain; a map removes it, a background halves it."""
    travel = SYSTEM.table_procedures()["travel"]
    assert travel.odds(None, params).of("lost") == lost


def test_forage_rolls_a_die_per_six_in_the_party():
    """Spec §002.7, Forage: ceil(party / 6) d4, d6 with a Pathfinder."""
    forage = SYSTEM.table_procedures()["forage"]
    result = forage.roll(None, {"party": 7, "pathfinder": True}, ScriptedRandom([6, 5]))
    assert result.total == 11 and len(result.dice) == 2
    odds = forage.odds(None, {"party": 7, "pathfinder": True})
    assert sum(p for _, p in odds.outcomes) == 1 and odds.of("12") == Fraction(1, 36)


def test_explore_and_the_day_on_the_road():
    """Spec §002.7: explore 2-in-6 at most three times a hex; watches past three and no camp cost a stress each."""
    explore = SYSTEM.table_procedures()["explore"]
    assert explore.roll(None, {"tries": 2}, ScriptedRandom([2])).outcome == "found"
    day = SYSTEM.table_procedures()["day_on_the_road"]
    assert day.roll(None, {"watches": 5, "camped": False}, ScriptedRandom([])).total == 3


# --- the table's light reaches every sheet (Sheet.table; issue 16) -------------------------------------------

SWORD = Item("Sword", "weapon", 1, 1, {"damage": 8}, id=3)
BOW = Item("Bow", "weapon", 1, 1, {"damage": 6, "ranged": True}, id=4)


def _at(light: str, *items: Item) -> Sheet:
    state = {**SYSTEM.default_state(), "attributes": dict.fromkeys(("STR", "DEX", "WIL"), 10)}
    return Sheet(state=state, items=items, name="Wren", table={"light": light} if light else {})


def test_the_table_conditions_are_the_light_level_key():
    """Equipment.md, Light: the level the party's light points give is what every sheet at the table reads."""
    lit, dark = Sheet(state={}, items=(TORCH,)), Sheet(state={}, items=())
    assert SYSTEM.table_conditions([lit, dark, dark, dark, dark]) == {"light": "darkness"}
    assert SYSTEM.table_conditions([lit]) == {"light": "bright"}
    assert SYSTEM.table_conditions([]) == {}


@pytest.mark.parametrize("attribute", ["STR", "DEX", "WIL"])
def test_darkness_puts_every_save_at_disadvantage_on_its_own(attribute):
    """Equipment.md, Light: in darkness saves are at disadvantage: the odds are exact (10 of 20, squared)
    and the roll keeps the worse of two d20s, with nothing ticked."""
    save = SYSTEM.procedures()["save"]
    assert save.odds(_at(""), {"attribute": attribute}).of("pass") == Fraction(1, 2)
    assert save.odds(_at("bright"), {"attribute": attribute}).of("pass") == Fraction(1, 2)
    assert save.odds(_at("darkness"), {"attribute": attribute}).of("pass") == Fraction(1, 4)
    result = save.roll(_at("darkness"), {"attribute": attribute}, ScriptedRandom([4, 15]))
    assert result.outcome == "fail" and len(result.dice) == 2 and "in darkness" in result.summary
    assert "darkness: disadvantage" in result.details["notes"]
    # Seed 002, Advantage & Disadvantage: a talent's advantage still cancels it to one d20.
    cancel = save.odds(_at("darkness"), {"attribute": attribute, "advantage": True})
    assert cancel.of("pass") == Fraction(1, 2)


def test_darkness_reaches_a_spell_save_a_party_save_and_a_treatment():
    """Equipment.md, Light: every save in darkness, whoever rolls it (the leader and members of a party save)."""
    party = SYSTEM.procedures()["party_save"]
    member = _at("darkness")
    plain = party.odds(_at(""), {"attribute": "STR", "member1": _at("")}).of("fail")
    dark = party.odds(_at("darkness"), {"attribute": "STR", "member1": member}).of("fail")
    assert plain == Fraction(1, 4) and dark == (1 - Fraction(1, 4)) ** 2


def test_darkness_impairs_every_attack_and_dim_light_ranged_ones():
    """Equipment.md, Light: darkness impairs all attacks; dim light impairs ranged attacks (roll twice, keep
    the lower)."""
    attack = SYSTEM.procedures()["attack"]
    for light, weapon, impaired in [
        ("", SWORD, False),
        ("bright", BOW, False),
        ("dim", SWORD, False),
        ("dim", BOW, True),
        ("darkness", SWORD, True),
    ]:
        sheet = _at(light, weapon)
        result = attack.roll(sheet, {"weapon": str(weapon.id)}, ScriptedRandom([5, 2]))
        assert result.details["impaired"] is impaired, (light, weapon.name)
        expected = attack.odds(_at("", weapon), {"weapon": str(weapon.id), "impaired": impaired})
        assert attack.odds(sheet, {"weapon": str(weapon.id)}) == expected


def test_the_sheet_says_what_the_darkness_does():
    """Equipment.md, Light: the sheet's banner names the effect (no box to tick)."""
    keys = [b.key for b in SYSTEM.banners(_at("darkness"))]
    assert "light-darkness" in keys
    assert [b.key for b in SYSTEM.banners(_at("dim"))][-1:] == ["light-dim"]
    assert not any(b.key.startswith("light") for b in SYSTEM.banners(_at("bright")))


def test_a_tracker_round_lands_the_armour_criticals_took():
    """Seed 002, Critical Hits (spec §002.13.9 [REC]): the AV a critical takes away goes at the end of the round."""
    hit = _at("", Item("Helmet", "helmet", 1, 1, {"av": 1}, worn=True, id=5))
    hit = hit.with_state({**hit.state, "av_crit_pending": 1})
    landed = SYSTEM.round_passes(hit, ScriptedRandom([]))
    assert landed.state["av_crit_pending"] == 0 and landed.state["av_lost"] == 1
    assert SYSTEM.round_passes(_at(""), ScriptedRandom([])).state is None


def test_a_fights_minutes_burn_the_lit_torches():
    """Equipment.md, Light: a torch burns 6 turns (60 minutes) whatever passes them: a fight's minutes too."""
    sheet = Sheet(state=SYSTEM.default_state(), items=(TORCH, LANTERN))
    over = SYSTEM.fight_ends(sheet, 5, ScriptedRandom([]))
    torch, lantern = over.items_changed
    assert torch.data["burned"] == 5 and lantern.data["burned"] == 235 and "55 min of light left" in over.summary
    out = SYSTEM.fight_ends(sheet, 60, ScriptedRandom([]))
    assert out.items_changed[0].quantity == 1 and out.items_changed[0].data["lit"] is False
