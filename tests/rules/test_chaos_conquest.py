"""Chaos & Conquest (seed 002_882aafdbf41b7f4b.txt, spec §002): every rule, the §002.14 vectors, exact odds."""

from __future__ import annotations

import random
from fractions import Fraction
from itertools import product
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as hs

from rules import SYSTEMS
from rules.base import GameSystem, Hireling, Item, Odds, Procedure, RulesError, Sheet
from rules.clock import LIGHT_SETTINGS
from rules.dice import ScriptedRandom
from rules.settings import defaults
from rules.systems import chaos_conquest as cc
from rules.systems.chaos_conquest import SYSTEM

P = SYSTEM.procedures()
APP_ITEM_KINDS = {
    "weapon", "armour", "shield", "helmet", "gear", "ration", "light", "ammo", "spellbook",
    "treasure", "coins", "animal", "vehicle", "service", "other",
}  # fmt: skip


def pc(
    strength: int = 10, dex: int = 10, wil: int = 10, stamina: int = 8, stamina_max: int | None = None, **extra: Any
) -> dict[str, Any]:
    state = SYSTEM.default_state()
    state["attributes"] = {
        "STR": {"current": strength, "base": strength},
        "DEX": {"current": dex, "base": dex},
        "WIL": {"current": wil, "base": wil},
    }
    state["stamina"], state["stamina_max"] = stamina, stamina_max or max(stamina, 1)
    state.update(extra)
    return SYSTEM.validate_state(state)


def sheet(state: dict[str, Any] | None = None, items=(), hirelings=(), name: str = "Ana") -> Sheet:
    """A sheet whose items all have ids (as saved rows do), numbered from 1 unless given."""
    numbered = tuple(it if it.id is not None else Item(**{**it.__dict__, "id": n}) for n, it in enumerate(items, 1))
    return Sheet(state=pc() if state is None else state, items=numbered, hirelings=tuple(hirelings), name=name)


def weapon(name: str, die: int, slots: int = 1, id: int | None = None, **extra: Any) -> Item:
    return Item(name, "weapon", slots, 1, {"damage": die, **extra}, id=id)


def junk(n: int, start: int = 100) -> list[Item]:
    return [Item(f"Junk {i}", "gear", 1, 1, {}, id=start + i) for i in range(n)]


MAIL = Item("Suit of mail", "armour", 2, 1, {"av": 2, "dex_disadvantage": True, "min_str": 12}, worn=True)
HELMET = Item("Helmet", "helmet", 1, 1, {"av": 1}, worn=True)
PLATE = Item("Plate", "armour", 3, 1, {"av": 3, "dex_disadvantage": True, "min_str": 14}, worn=True)
SHIELD = Item("Shield", "shield", 1, 1, {}, worn=True)
SUPPLY = Item("Supply", "gear", 1, 2, {"supply": True})
RATIONS = Item("Rations (7 days)", "ration", 1, 1, {"days": 7})
LONGSWORD = weapon("Longsword", 10, 3)


def test_the_system_is_registered_and_fits_the_protocol():
    """Seed 002 as a Lantern system: registered, the GameSystem protocol, the CC BY-SA credit."""
    assert SYSTEMS["chaos-conquest"] is SYSTEM
    assert isinstance(SYSTEM, GameSystem)
    assert all(isinstance(p, Procedure) and p.key == k for k, p in P.items())
    assert SYSTEM.id == "chaos-conquest" and SYSTEM.name == "Chaos & Conquest"
    assert "CC BY-SA 4.0" in SYSTEM.credit and "Alexander Gomez and The Chaos Consortium" in SYSTEM.credit


def test_gm_procedures_are_morale_party_save_reaction_loyalty_and_combat_order():
    """Seed 002 (Morale; Party Saves; Combat) and npcs.md/hired-help.md: the arbiter's rolls are GM-only."""
    assert {k for k, p in P.items() if p.gm_only} == {"morale", "party_save", "reaction", "loyalty", "combat_order"}


# --- spec §002.14 engine test vectors, as written ---------------------------------------------


@pytest.mark.parametrize(
    ("dex", "face", "succeeds"),
    [(12, 12, True), (12, 13, False), (12, 1, True), (12, 20, False), (18, 20, False), (3, 1, True)],
)
def test_spec_002_14_dex_12_save_vector_seed_002_saves(dex, face, succeeds):
    """Seed 002, Saves: roll equal or under; a 1 always succeeds, a 20 always fails (even with DEX 18)."""
    result = P["save"].roll(sheet(pc(dex=dex)), {"attribute": "DEX"}, ScriptedRandom([face]))
    assert result.outcome == ("pass" if succeeds else "fail")
    assert [d.face for d in result.dice] == [face]


@pytest.mark.parametrize(
    ("pc_face", "npc_face", "outcome"),
    [(11, 12, "lose"), (11, 11, "gm_decides"), (15, 13, "both_fail"), (12, 11, "win"), (11, 13, "win")],
)
def test_spec_002_14_opposed_vector_seed_002_opposed_saves(pc_face, npc_face, outcome):
    """Seed 002, Opposed Saves: STR 14 against Skill 12; the highest success wins, equal = GM decides."""
    result = P["opposed_save"].roll(
        sheet(pc(14)), {"attribute": "STR", "skill": 12}, ScriptedRandom([pc_face, npc_face])
    )
    assert result.outcome == outcome


def test_spec_002_14_advantage_on_an_opposed_save_keeps_the_highest_success():
    """Seed 002, Advantage & Disadvantage + Opposed Saves: STR 14 rolls [13, 9] and keeps 13 (§002.4.3)."""
    result = P["opposed_save"].roll(
        sheet(pc(14)), {"attribute": "STR", "skill": 12, "advantage": True}, ScriptedRandom([13, 9, 12])
    )
    kept = [d.face for d in result.dice if d.kept and d.label == "STR"]
    assert kept == [13]
    assert result.outcome == "win"  # 13 beats the NPC's successful 12


def test_spec_002_14_longsword_critical_vector_seed_002_critical_hits():
    """Seed 002, Critical Hits: a d10 showing 10 against AV 2 deals 10 through armour; AV 1 after the round."""
    target = sheet(pc(14, stamina=12), [MAIL], name="Bram")
    assert SYSTEM.armour_value(target) == 2
    result = P["attack"].roll(sheet(items=[LONGSWORD]), {"weapon": "1", "opponent": target}, ScriptedRandom([10]))
    assert result.outcome == "10 damage (critical)"
    assert result.total == 10
    after = sheet(dict(result.other_states["opponent"]), [MAIL])
    assert SYSTEM.armour_value(after) == 2  # not yet: the drop lands at the end of the round
    end = P["end_round"].roll(after, {}, ScriptedRandom([]))
    assert SYSTEM.armour_value(sheet(dict(end.state), [MAIL])) == 1


def test_spec_002_14_critical_against_an_npc_av_vector():
    """Seed 002, Critical Hits: the same blow on an NPC with AV 2, given as a number."""
    result = P["attack"].roll(sheet(items=[LONGSWORD]), {"weapon": "1", "target_av": 2}, ScriptedRandom([10]))
    assert (result.total, result.details["hits"][0]["critical"]) == (10, True)
    assert result.details["target_av_after_round"] == 1


def test_spec_002_14_helpless_target_vector_seed_002_attacks():
    """Seed 002, Attacks: longsword d10 (4) + d12 (7) helpless, AV 0 = 11; no crit, the d10 was not 10."""
    result = P["attack"].roll(sheet(items=[LONGSWORD]), {"weapon": "1", "helpless": True}, ScriptedRandom([4, 7]))
    assert result.outcome == "11 damage"
    assert [(d.sides, d.face) for d in result.dice] == [(10, 4), (12, 7)]


@pytest.mark.parametrize(("door", "status"), [(3, "dead"), (4, "dying")])
def test_spec_002_14_deaths_door_vector_seed_002_stamina_and_death(door, status):
    """Seed 002, Stamina & Death: stamina 3 takes 5 -> -2, Death's door: a d6 of 3 kills, 4 is dying."""
    result = P["take_damage"].roll(sheet(pc(stamina=3)), {"amount": 5, "armour": False}, ScriptedRandom([door]))
    assert result.state["stamina"] == -2
    assert result.state["status"] == status
    assert result.odds.of("dies") == Fraction(1, 2)


def test_spec_002_14_healer_saves_the_dying_vector_seed_002_stamina_and_death():
    """Seed 002, Stamina & Death: a healer's WIL save within the turn: 1 stamina, then a scar."""
    dying = P["take_damage"].roll(sheet(pc(stamina=3)), {"amount": 5}, ScriptedRandom([4])).state
    healer = sheet(pc(wil=12), name="Mira")
    result = P["treat"].roll(sheet(dict(dying)), {"healer": healer}, ScriptedRandom([9, 4]))
    assert result.outcome == "saved"
    assert result.state["status"] == "fine" and result.state["stamina"] == 1
    assert result.state["scars"][0]["name"] == "Dazed" and result.state["attributes"]["WIL"]["base"] == 9


def test_spec_002_14_inventory_vector_seed_002_inventory_and_pushing():
    """Seed 002, Inventory & Stress / Pushing: STR 8 gives 10 slots; 8 items + 2 stress is full: no push."""
    full = sheet(pc(8, stress=2), junk(8))
    assert SYSTEM.slots(full).maximum == 10 and SYSTEM.slots(full).used == 10
    with pytest.raises(RulesError, match="empty inventory slot"):
        P["save"].odds(full, {"attribute": "STR", "push": True})


def test_spec_002_14_level_two_vector_seed_002_advancement():
    """Seed 002, Advancement: at 2,000 XP, level 2: +1 attribute and 2d8 against max stamina (3 -> 7)."""
    result = P["level_up"].roll(sheet(pc(stamina=3, xp=2000)), {"attribute": "DEX"}, ScriptedRandom([3, 4]))
    assert result.state["level"] == 2
    assert result.state["attributes"]["DEX"] == {"current": 11, "base": 11}
    assert result.state["stamina_max"] == 7
    assert result.odds.of("new_max") == 1 - Fraction(3, 64)  # only 1+1, 1+2, 2+1 fail to beat 3


# --- saves ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("target", "mode", "chance"),
    [
        (10, "plain", Fraction(1, 2)),
        (0, "plain", Fraction(1, 20)),
        (20, "plain", Fraction(19, 20)),
        (10, "advantage", Fraction(3, 4)),
        (10, "disadvantage", Fraction(1, 4)),
        (14, "advantage", 1 - Fraction(6, 20) ** 2),
        (3, "disadvantage", Fraction(3, 20) ** 2),
    ],
)
def test_save_chances_are_exact_seed_002_saves_and_advantage(target, mode, chance):
    """Seed 002, Saves and Advantage & Disadvantage: 2d20, any success beats any failure (§002.4.3)."""
    assert cc.save_chance(target, mode) == chance


def test_save_odds_with_a_talent_is_advantage_seed_002_talents():
    odds = P["save"].odds(sheet(pc(dex=10, talents=["Stealth"])), {"attribute": "DEX", "talent": "Stealth"})
    assert odds.of("pass") == Fraction(3, 4)


def test_advantage_and_disadvantage_cancel_to_one_d20_seed_002_advantage():
    """Seed 002: both, in any numbers, is a plain roll ("even if multiple circumstances...")."""
    params = {"attribute": "STR", "equipment": True, "advantage": True, "disadvantage": True}
    assert P["save"].odds(sheet(), params).of("pass") == Fraction(1, 2)
    result = P["save"].roll(sheet(), params, ScriptedRandom([7]))
    assert len(result.dice) == 1


def test_medium_armour_gives_disadvantage_on_dex_saves_equipment_md():
    worn = sheet(pc(12), [MAIL])
    assert P["save"].odds(worn, {"attribute": "DEX"}).of("pass") == Fraction(1, 4)
    assert P["save"].odds(worn, {"attribute": "STR"}).of("pass") == Fraction(12, 20)


def test_advantage_keeps_the_success_seed_002_advantage():
    result = P["save"].roll(sheet(), {"attribute": "STR", "advantage": True}, ScriptedRandom([15, 4]))
    assert result.outcome == "pass" and [d.kept for d in result.dice] == [False, True]


def test_pushing_takes_a_stress_for_advantage_seed_002_pushing_a_character():
    result = P["save"].roll(sheet(), {"attribute": "WIL", "push": True}, ScriptedRandom([17, 3]))
    assert result.outcome == "pass" and result.state["stress"] == 1
    assert P["save"].odds(sheet(), {"attribute": "WIL", "push": True}).of("pass") == Fraction(3, 4)


def test_pushing_with_no_empty_slot_is_refused_seed_002_pushing_a_character():
    with pytest.raises(RulesError, match="Pushing needs an empty inventory slot"):
        P["save"].roll(sheet(pc(), junk(10)), {"attribute": "STR", "push": True}, ScriptedRandom([1]))


def test_talent_and_equipment_let_the_gm_grant_success_seed_002_talents():
    """Seed 002, Talents: talent + equipment: the arbiter may rule an automatic success (recorded)."""
    s = sheet(pc(talents=["Lock-picking"]))
    params = {"attribute": "DEX", "talent": "Lock-picking", "equipment": True}
    result = P["save"].roll(s, params, ScriptedRandom([19, 18]))
    assert result.details["gm_may_grant_success"] is True
    assert "automatic success" in result.summary
    auto = P["save"].roll(s, {**params, "auto_success": True}, ScriptedRandom([]))
    assert auto.outcome == "pass" and auto.dice == ()


def test_a_push_stands_in_for_the_talent_but_not_the_equipment_seed_002_pushing():
    s = sheet()
    assert (
        P["save"]
        .roll(s, {"attribute": "DEX", "push": True, "equipment": True}, ScriptedRandom([5, 5]))
        .details["gm_may_grant_success"]
    )
    with pytest.raises(RulesError, match="talent .* and the right equipment"):
        P["save"].roll(s, {"attribute": "DEX", "push": True, "auto_success": True}, ScriptedRandom([5, 5]))


def test_a_talent_you_do_not_have_is_refused():
    """Seed 002, Talents: only a talent on the sheet gives advantage."""
    with pytest.raises(RulesError, match="A talent that applies: choose one of none"):
        P["save"].odds(sheet(), {"attribute": "DEX", "talent": "Stealth"})


@pytest.mark.parametrize("status", ["dead", "dying", "deaths_door"])
def test_the_dead_and_dying_make_no_saves(status):
    """Seed 002, Stamina & Death: the dead, the dying and those on Death's door do not save."""
    with pytest.raises(RulesError):
        P["save"].odds(sheet(pc(status=status, stamina=1)), {"attribute": "STR"})


def _brute_opposed(pc_target: int, pc_mode: str, skill: int, npc_mode: str) -> dict[str, Fraction]:
    """An independent count over every pair of d20 pairs (seed 002, Opposed Saves; spec §002.4.3)."""

    def kept(faces, target, mode):
        if mode == "plain":
            return faces[0]
        ok = [f == 1 or (f != 20 and f <= target) for f in faces]
        rank = [(o, f if o else -f) for o, f in zip(ok, faces, strict=True)]
        pick = (
            max(range(2), key=lambda i: (rank[i], -i))
            if mode == "advantage"
            else min(range(2), key=lambda i: (rank[i], i))
        )
        return faces[pick]

    counts = dict.fromkeys(("win", "gm_decides", "lose", "both_fail"), 0)
    mine_n = 1 if pc_mode == "plain" else 2
    theirs_n = 1 if npc_mode == "plain" else 2
    for a in product(range(1, 21), repeat=mine_n):
        fa = kept(a, pc_target, pc_mode)
        sa = fa == 1 or (fa != 20 and fa <= pc_target)
        for b in product(range(1, 21), repeat=theirs_n):
            fb = kept(b, skill, npc_mode)
            sb = fb == 1 or (fb != 20 and fb <= skill)
            if sa and sb:
                counts["win" if fa > fb else "lose" if fa < fb else "gm_decides"] += 1
            elif sa or sb:
                counts["win" if sa else "lose"] += 1
            else:
                counts["both_fail"] += 1
    total = 20 ** (mine_n + theirs_n)
    return {k: Fraction(v, total) for k, v in counts.items()}


@pytest.mark.parametrize(
    ("target", "mode", "skill", "npc_mode"),
    [
        (14, "plain", 12, "plain"),
        (14, "advantage", 12, "plain"),
        (8, "disadvantage", 15, "advantage"),
        (18, "plain", 3, "plain"),
    ],
)
def test_opposed_save_odds_are_exact_seed_002_opposed_saves(target, mode, skill, npc_mode):
    """Seed 002, Opposed Saves: exact odds of each outcome, checked against a brute-force count."""
    assert cc.opposed_odds(target, mode, skill, npc_mode) == _brute_opposed(target, mode, skill, npc_mode)


def test_opposed_save_procedure_shows_all_four_outcomes():
    """Seed 002, Opposed Saves (spec §002.13.3): the GM-decides tie is its own outcome."""
    odds = P["opposed_save"].odds(sheet(pc(14)), {"attribute": "STR", "skill": 12})
    assert [k for k, _ in odds.outcomes] == ["win", "gm_decides", "lose", "both_fail"]
    assert odds.of("gm_decides") == Fraction(12, 400)  # both succeed on the same face 1..12
    assert odds.of("both_fail") == Fraction(6 * 8, 400)


# --- party saves --------------------------------------------------------------------------------


def test_party_save_odds_are_exact_seed_002_party_saves():
    """Seed 002, Party Saves: any success passes (§002.4.6 [REC]); the leader takes a stress per member failing."""
    members = {"member1": sheet(pc(), name="Bo"), "member2": sheet(pc(), name="Cy")}
    odds = P["party_save"].odds(sheet(), {"attribute": "STR", **members})
    assert dict(odds.outcomes) == {
        "pass_stress_0": Fraction(1, 4),
        "pass_stress_1": Fraction(1, 2),
        "pass_stress_2": Fraction(1, 8),
        "fail": Fraction(1, 8),
    }
    assert odds.success == Fraction(7, 8)


def test_party_save_leader_takes_stress_for_failed_members_even_on_a_pass_seed_002_party_saves():
    members = {"member1": sheet(pc(), name="Bo"), "member2": sheet(pc(), name="Cy")}
    # leader fails (15), Bo succeeds (3), Cy fails (18): the party passes, the leader covers Cy.
    result = P["party_save"].roll(sheet(), {"attribute": "STR", **members}, ScriptedRandom([15, 3, 18]))
    assert result.outcome == "pass_stress_1"
    assert result.state["stress"] == 1
    assert [r["success"] for r in result.details["results"]] == [False, True, False]


def test_party_save_leader_with_no_room_takes_d6_per_stress_or_drops_seed_002_inventory_and_stress():
    members = {"member1": sheet(pc(), name="Bo")}
    full = sheet(pc(stamina=8), junk(10))
    result = P["party_save"].roll(full, {"attribute": "STR", **members}, ScriptedRandom([1, 20, 5]))
    assert result.state["stress"] == 0 and result.state["stamina"] == 3
    dropped = P["party_save"].roll(full, {"attribute": "STR", **members, "drop": ["100"]}, ScriptedRandom([1, 20]))
    assert dropped.state["stress"] == 1 and dropped.items_removed == (100,)


# --- attacks ------------------------------------------------------------------------------------


def test_a_plain_d6_attack_has_each_damage_one_in_six_seed_002_attacks():
    odds = P["attack"].odds(sheet(items=[weapon("Dagger", 6)]), {"weapon": "1"})
    assert dict(odds.outcomes) == {f"{n} damage": Fraction(1, 6) for n in range(1, 6)} | {
        "6 damage (critical)": Fraction(1, 6)
    }


def test_armour_reduces_damage_to_no_less_than_zero_seed_002_damage_and_armor():
    odds = P["attack"].odds(sheet(items=[weapon("Dagger", 6)]), {"weapon": "1", "target_av": 4})
    assert odds.of("0 damage") == Fraction(4, 6)
    assert odds.of("1 damage") == Fraction(1, 6) and odds.of("6 damage (critical)") == Fraction(1, 6)


def test_impaired_rolls_twice_keeps_the_lower_and_crits_only_on_double_max_seed_002_attacks():
    s = sheet(items=[LONGSWORD])
    odds = P["attack"].odds(s, {"weapon": "1", "impaired": True})
    assert odds.of("10 damage (critical)") == Fraction(1, 100)
    assert odds.of("1 damage") == Fraction(19, 100)
    result = P["attack"].roll(s, {"weapon": "1", "impaired": True}, ScriptedRandom([9, 3]))
    assert result.total == 3 and [d.kept for d in result.dice] == [False, True]


def test_bonus_dice_do_not_count_for_the_crit_seed_002_critical_hits():
    """Seed 002: longsword d10 + d8 bonus rolling 10 and 2 is a critical (the bonus die is not checked)."""
    s = sheet(items=[LONGSWORD])
    result = P["attack"].roll(s, {"weapon": "1", "bonus_die": "8", "target_av": 3}, ScriptedRandom([10, 2]))
    assert result.outcome == "12 damage (critical)"
    result = P["attack"].roll(s, {"weapon": "1", "bonus_die": "8", "target_av": 3}, ScriptedRandom([9, 8]))
    assert result.outcome == "14 damage"


def test_a_worn_weapon_deals_one_and_never_crits_seed_002_worn_weapons():
    s = sheet(items=[weapon("Sword", 8, 2, worn_out=True)])
    odds = P["attack"].odds(s, {"weapon": "1"})
    assert dict(odds.outcomes) == {"1 damage": Fraction(1)}
    assert P["attack"].roll(s, {"weapon": "1"}, ScriptedRandom([])).total == 1


def test_a_pistol_crits_on_a_six_and_adds_one_spec_002_5():
    s = sheet(items=[weapon("Pistol", 6, 2, bonus=1, ranged=True)])
    odds = P["attack"].odds(s, {"weapon": "1"})
    assert odds.of("7 damage (critical)") == Fraction(1, 6) and odds.of("6 damage") == Fraction(1, 6)


def test_dual_wielding_keeps_the_better_weapon_seed_002_dual_wielding():
    s = sheet(items=[weapon("Sword", 8, 2), weapon("Dagger", 6)])
    result = P["attack"].roll(s, {"weapon": "1", "second": "2", "target_av": 2}, ScriptedRandom([3, 6]))
    assert result.outcome == "6 damage (critical)"  # the dagger's crit (6) beats the sword's 3 - 2
    assert [d.kept for d in result.dice] == [False, True]
    odds = P["attack"].odds(s, {"weapon": "1", "second": "2", "target_av": 2})
    brute: dict[str, Fraction] = {}
    for a, b in product(range(1, 9), range(1, 7)):
        best = max((a if a == 8 else max(0, a - 2), a == 8), (b if b == 6 else max(0, b - 2), b == 6))
        key = f"{best[0]} damage" + (" (critical)" if best[1] else "")
        brute[key] = brute.get(key, Fraction(0)) + Fraction(1, 48)
    assert dict(odds.outcomes) == brute


def test_mounted_melee_adds_the_weapon_die_flail_2d8_seed_002_mounted_combat():
    horse = Item("Horse", "animal", 0, 1, {"mount": True})
    s = sheet(items=[weapon("Flail", 8, 2), horse])
    odds = P["attack"].odds(s, {"weapon": "1", "mounted": True})
    assert odds.of("16 damage (critical)") == Fraction(1, 64)
    assert sum(p for k, p in odds.outcomes if "critical" in k) == Fraction(1, 8)  # only the base die crits
    with pytest.raises(RulesError, match="mount"):
        P["attack"].odds(sheet(items=[weapon("Flail", 8, 2)]), {"weapon": "1", "mounted": True})


def test_a_worn_weapon_gets_no_mounted_bonus_spec_002_13_11():
    horse = Item("Horse", "animal", 0, 1, {"mount": True})
    s = sheet(items=[weapon("Flail", 8, 2, worn_out=True), horse])
    assert dict(P["attack"].odds(s, {"weapon": "1", "mounted": True}).outcomes) == {"1 damage": Fraction(1)}


def test_ranged_weapons_cannot_be_used_in_melee_seed_002_attacks():
    s = sheet(items=[weapon("Bow", 8, 3, ranged=True)])
    with pytest.raises(RulesError, match="Ranged weapons cannot be used in melee"):
        P["attack"].odds(s, {"weapon": "1", "in_melee": True})


def test_a_lost_eye_impairs_ranged_attacks_seed_002_scars():
    scar = {"roll": 8, "name": "Lost eye", "text": ""}
    s = sheet(pc(scars=[scar]), [weapon("Bow", 8, 3, ranged=True), weapon("Sword", 8, 2)])
    assert P["attack"].odds(s, {"weapon": "1"}).of("8 damage (critical)") == Fraction(1, 64)
    assert P["attack"].odds(s, {"weapon": "2"}).of("8 damage (critical)") == Fraction(1, 8)


def test_blast_damage_is_rolled_for_each_target_seed_002_blast_damage():
    result = P["attack"].roll(sheet(items=[LONGSWORD]), {"weapon": "1", "targets": 3}, ScriptedRandom([2, 10, 5]))
    assert [h["damage"] for h in result.details["hits"]] == [2, 10, 5]
    assert [h["critical"] for h in result.details["hits"]] == [False, True, False]
    assert result.total == 17


def test_silver_weapons_roll_for_wear_after_every_attack_equipment_md():
    s = sheet(items=[weapon("Silver knife", 6, silver=True)])
    result = P["attack"].roll(s, {"weapon": "1"}, ScriptedRandom([4, 1]))
    assert result.items_changed[0].data["worn_out"] is True
    assert P["attack"].roll(s, {"weapon": "1"}, ScriptedRandom([4, 2])).items_changed == ()


def test_attacking_a_character_applies_the_damage_to_their_sheet():
    """Seed 002, Attacks and Damage & Armor: a character target uses their AV and takes the damage."""
    target = sheet(pc(stamina=5), [HELMET], name="Bram")
    result = P["attack"].roll(sheet(items=[LONGSWORD]), {"weapon": "1", "opponent": target}, ScriptedRandom([4]))
    assert result.total == 3 and result.other_states["opponent"]["stamina"] == 2


@settings(max_examples=60, deadline=None)
@given(
    die=hs.sampled_from([4, 6, 8, 10, 12]),
    second=hs.sampled_from([0, 4, 6, 8]),
    av=hs.integers(0, 6),
    bonus=hs.lists(hs.sampled_from([4, 6, 8, 12]), max_size=2),
    impaired=hs.booleans(),
)
def test_attack_distributions_always_sum_to_one(die, second, av, bonus, impaired):
    """Seed 002, Attacks: every exact damage distribution is a distribution."""
    weapons = [cc.Weapon("a", "A", die)] + ([cc.Weapon("b", "B", second)] if second else [])
    dist = cc.attack_distribution(weapons, av, bonus, impaired)
    assert sum(dist.values()) == 1
    assert all(d >= 0 for d, _ in dist)
    Odds(tuple((str(k), p) for k, p in dist.items()))


# --- taking damage, Death's door, dying --------------------------------------------------------


@pytest.mark.parametrize("amount", [-1, 101, "lots"])
def test_negative_or_absurd_damage_is_refused(amount):
    """Seed 002, Stamina & Death: damage is a whole number from 0 to 100."""
    with pytest.raises(RulesError, match="Damage rolled"):
        P["take_damage"].odds(sheet(), {"amount": amount})


def test_your_av_reduces_damage_seed_002_damage_and_armor():
    s = sheet(pc(12), [MAIL, HELMET])
    result = P["take_damage"].roll(s, {"amount": 5}, ScriptedRandom([]))
    assert result.state["stamina"] == 6 and result.outcome == "hurt"


def test_a_critical_ignores_armour_and_cracks_it_at_the_end_of_the_round_seed_002_critical_hits():
    s = sheet(pc(12), [MAIL, HELMET])
    hit = P["take_damage"].roll(s, {"amount": 5, "critical": True}, ScriptedRandom([]))
    assert hit.state["stamina"] == 3 and hit.state["av_crit_pending"] == 1
    assert SYSTEM.armour_value(sheet(dict(hit.state), [MAIL, HELMET])) == 3
    end = P["end_round"].roll(sheet(dict(hit.state), [MAIL, HELMET]), {}, ScriptedRandom([]))
    assert SYSTEM.armour_value(sheet(dict(end.state), [MAIL, HELMET])) == 2


def test_sundering_a_shield_blocks_all_damage_and_breaks_it_seed_002_shields():
    s = sheet(items=[SHIELD])
    result = P["take_damage"].roll(s, {"amount": 9, "sunder": True}, ScriptedRandom([]))
    assert result.state is None and result.items_removed == (1,) and result.outcome == "unhurt"
    with pytest.raises(RulesError, match="shield in hand"):
        P["take_damage"].odds(sheet(), {"amount": 9, "sunder": True})


def test_any_damage_to_the_dying_kills_seed_002_stamina_and_death():
    result = P["take_damage"].roll(sheet(pc(stamina=1, status="dying")), {"amount": 1}, ScriptedRandom([]))
    assert result.state["status"] == "dead" and result.odds.of("dies") == 1


def test_the_log_says_the_stamina_the_sheet_shows_never_below_0_seed_002_stamina_and_death():
    """Seed 002, Stamina & Death: harm past 0 sends a PC to Death's door; the state counts it (-2), and the roll's
    line says the stamina the sheet's track shows (0 of 6), not "stamina -2/6" (issue 36, item 9)."""
    s = sheet(pc(stamina=2, stamina_max=6))
    result = P["take_damage"].roll(s, {"amount": 4}, ScriptedRandom([6]))
    assert result.state["stamina"] == -2
    track = next(t for t in SYSTEM.tracks(sheet(dict(result.state))) if t.key == "stamina")
    assert track.shown == 0
    assert "4 damage: stamina 0/6." in result.summary and "-2" not in result.summary


def test_doomed_dies_on_one_to_five_and_the_doom_is_then_spent_seed_002_scars():
    s = sheet(pc(stamina=2, doomed=True))
    odds = P["take_damage"].odds(s, {"amount": 4})
    assert odds.of("dies") == Fraction(5, 6)
    assert P["take_damage"].roll(s, {"amount": 4}, ScriptedRandom([5])).state["status"] == "dead"
    lived = P["take_damage"].roll(s, {"amount": 4}, ScriptedRandom([6])).state
    assert lived["status"] == "dying" and lived["doomed"] is False


def test_stamina_set_to_zero_by_hand_puts_you_on_deaths_door_seed_002_stamina_and_death():
    state = SYSTEM.adjust(sheet(pc(stamina=2)), "stamina", -5)
    assert state["stamina"] == 0 and state["status"] == "deaths_door"
    assert "On Death's door: roll the d6" in SYSTEM.conditions(sheet(state))
    result = P["deaths_door"].roll(sheet(state), {}, ScriptedRandom([5]))
    assert result.state["status"] == "dying" and result.odds.of("dies") == Fraction(1, 2)


def test_a_failed_treatment_or_none_in_time_is_death_seed_002_stamina_and_death():
    dying = sheet(pc(stamina=-1, stamina_max=8, status="dying"))
    assert P["treat"].roll(dying, {"healer_wil": 8}, ScriptedRandom([12])).state["status"] == "dead"
    assert P["treat"].roll(dying, {"in_time": False}, ScriptedRandom([])).outcome == "dies"
    assert P["treat"].odds(dying, {"healer_wil": 8}).of("saved") == Fraction(8, 20)
    assert P["treat"].odds(dying, {"method": "magic"}).of("saved") == 1


def test_a_healer_with_the_healing_talent_has_advantage_seed_002_talents():
    dying = sheet(pc(stamina=0, stamina_max=8, status="dying"))
    healer = sheet(pc(wil=10, talents=["Healing"]), name="Mira")
    assert P["treat"].odds(dying, {"healer": healer}).of("saved") == Fraction(3, 4)


@pytest.mark.parametrize(
    ("faces", "check"),
    [
        ([1, 3], lambda s: s["scars"][0]["text"] == "A vivid mark on your eye."),
        ([2], lambda s: s["attributes"]["STR"] == {"current": 9, "base": 9}),
        ([3], lambda s: s["attributes"]["DEX"]["base"] == 9 and s["limp"]),
        ([4], lambda s: s["attributes"]["WIL"]["base"] == 9),
        ([5, 4, 6, 6, 5], lambda s: s["attributes"]["DEX"] == {"current": 17, "base": 17}),
        ([5, 4, 1, 1, 1], lambda s: s["attributes"]["DEX"] == {"current": 10, "base": 10}),
        ([6], lambda s: s["stamina_max"] == 6 and s["attributes"]["STR"]["base"] == 8),
        ([7], lambda s: s["scars"][0]["name"] == "Shattered leg"),
        ([8], lambda s: s["scars"][0]["name"] == "Lost eye"),
        ([9], lambda s: s["scars"][0]["name"] == "Severed arm"),
        ([10], lambda s: s["doomed"]),
    ],
)
def test_survivors_roll_a_scar_and_its_effect_is_applied_seed_002_scars_table(faces, check):
    result = P["treat"].roll(
        sheet(pc(stamina=0, stamina_max=8, status="dying")), {"method": "magic"}, ScriptedRandom(faces)
    )
    assert result.state["stamina"] == 1 and result.state["status"] == "fine"
    assert check(result.state)


def test_scars_stay_after_a_full_rest_spec_002_13_4():
    scarred = (
        P["treat"]
        .roll(sheet(pc(stamina=0, stamina_max=8, status="dying")), {"method": "magic"}, ScriptedRandom([2]))
        .state
    )
    rested = P["rest"].roll(sheet(dict(scarred)), {"kind": "full"}, ScriptedRandom([])).state
    assert rested["attributes"]["STR"] == {"current": 9, "base": 9} and rested["stamina"] == 8


# --- end of combat: wear and ammo ---------------------------------------------------------------


def test_end_of_combat_wears_a_weapon_on_a_one_seed_002_worn_weapons():
    s = sheet(items=[weapon("Sword", 8, 2), weapon("Dagger", 6)])
    odds = P["end_combat"].odds(s, {"used": ["1", "2"]})
    assert odds.of("all_fine") == Fraction(25, 36)
    result = P["end_combat"].roll(s, {"used": ["1", "2"]}, ScriptedRandom([1, 4]))
    assert [(i.id, i.data["worn_out"]) for i in result.items_changed] == [(1, True)]
    assert "Worn: Sword" in SYSTEM.conditions(sheet(pc(), [result.items_changed[0]]))


def test_ammo_runs_to_one_shot_then_is_gone_equipment_md_ammo():
    bow, ammo = weapon("Bow", 8, 3, ranged=True), Item("Ammo", "ammo", 1, 1, {})
    s = sheet(items=[bow, ammo])
    result = P["end_combat"].roll(s, {"used": ["1"]}, ScriptedRandom([3, 1]))
    assert result.items_changed[0].data["last_shot"] is True
    last = sheet(items=[bow, Item("Ammo", "ammo", 1, 1, {"last_shot": True})])
    assert P["end_combat"].roll(last, {"used": ["1"]}, ScriptedRandom([3])).items_removed == (2,)


def test_silver_and_worn_weapons_skip_the_end_of_combat_roll():
    """Seed 002, Worn Weapons, and equipment.md, Silver Weapons (they roll after every attack instead)."""
    s = sheet(items=[weapon("Silver knife", 6, silver=True), weapon("Sword", 8, 2, worn_out=True)])
    assert P["end_combat"].odds(s, {"used": ["1", "2"]}).of("all_fine") == 1


# --- inventory, stress, coins ------------------------------------------------------------------


@pytest.mark.parametrize(("strength", "slots"), [(3, 10), (8, 10), (10, 10), (14, 14), (18, 18)])
def test_slots_are_str_or_ten_whichever_is_higher_seed_002_inventory(strength, slots):
    assert SYSTEM.slots(sheet(pc(strength))).maximum == slots


def test_adding_stress_to_a_full_inventory_by_hand_asks_for_a_choice_seed_002_inventory_and_stress():
    with pytest.raises(RulesError, match="Drop an item first, or use Take stress"):
        SYSTEM.adjust(sheet(pc(), junk(10)), "stress", 1)


def test_stress_that_does_not_fit_deals_d6_each_spec_002_7_rec():
    result = P["stress"].roll(sheet(pc(stamina=8), junk(9)), {"amount": 3}, ScriptedRandom([2, 4]))
    assert result.state["stress"] == 1 and result.state["stamina"] == 2
    assert [d.sides for d in result.dice] == [6, 6]


def test_or_the_player_drops_items_to_make_room_spec_002_7_rec():
    items = [*junk(8), Item("Supply", "gear", 1, 2, {"supply": True}, id=50)]
    result = P["stress"].roll(sheet(pc(), items), {"amount": 2, "drop": ["50"]}, ScriptedRandom([]))
    assert result.state["stress"] == 2 and result.items_removed == (50,) and result.dice == ()


def test_stress_in_every_slot_is_death_seed_002_inventory_and_stress():
    assert SYSTEM.adjust(sheet(pc(stress=9)), "stress", 1)["status"] == "dead"
    result = P["stress"].roll(sheet(pc(stress=8)), {"amount": 2}, ScriptedRandom([]))
    assert result.state["status"] == "dead" and result.outcome == "dies"


def test_losing_str_can_shrink_the_slots_into_death_spec_002_13_10():
    state = SYSTEM.adjust(sheet(pc(14, stress=12)), "STR", -2)
    assert state["status"] == "dead"
    assert SYSTEM.adjust(sheet(pc(14, stress=9)), "STR", -5)["status"] == "fine"  # 10 slots, 9 stress


def test_coins_ride_free_up_to_500_then_a_slot_per_thousand_equipment_md_currency():
    assert [cc.coin_slots(n) for n in (0, 500, 501, 1500, 1501, 2500)] == [0, 0, 1, 1, 2, 2]
    assert cc.coin_count(280) == 8  # 1m 3s 4p: one mark, three shillings and four pennies
    rich = sheet(pc(coins=700 * 240))  # 700 marks: 700 coins, one slot
    assert SYSTEM.slots(rich).used == 1


@pytest.mark.parametrize(("pennies", "text"), [(0, "0p"), (4, "4p"), (12, "1s"), (280, "1m 3s 4p"), (240, "1m")])
def test_money_is_written_in_marks_shillings_and_pennies_equipment_md_currency(pennies, text):
    assert SYSTEM.format_money(pennies) == text


def test_check_can_carry_refuses_what_does_not_fit_seed_002_inventory():
    s = sheet(pc(), junk(9))
    SYSTEM.check_can_carry(s, Item("Rope", "gear", 1))
    with pytest.raises(RulesError, match="No room for Longsword"):
        SYSTEM.check_can_carry(s, LONGSWORD)
    assert SYSTEM.check_can_carry(s, Item("Ring", "gear", 0)).used == 9


def test_one_spare_shield_at_most_and_only_while_holding_one_seed_002_shields():
    spare = Item("Shield", "shield", 1, 1, {})
    SYSTEM.check_can_carry(sheet(items=[SHIELD]), spare)
    with pytest.raises(RulesError, match="while you hold another"):
        SYSTEM.check_can_carry(sheet(items=[spare]), spare)
    with pytest.raises(RulesError, match="one spare shield at most"):
        SYSTEM.check_can_carry(sheet(items=[SHIELD, spare]), spare)


@pytest.mark.parametrize(
    ("items", "strength", "av"),
    [
        ([HELMET, PLATE], 14, 4),
        ([HELMET, PLATE, MAIL], 14, 4),
        ([PLATE], 10, 0),  # too heavy without STR 14 or Armor Master
        ([Item("Magic plate", "armour", 3, 1, {"av": 3, "magic": True}, worn=True), HELMET, MAIL], 14, 6),
        ([Item("Padded", "armour", 1, 1, {"av": 1}, worn=False)], 10, 0),  # carried, not worn
    ],
)
def test_av_is_helmet_and_armour_capped_at_4_or_6_with_magic_seed_002_damage_and_armor(items, strength, av):
    assert SYSTEM.armour_value(sheet(pc(strength), items)) == av


def test_armor_master_wears_heavy_armour_whatever_the_str_equipment_md():
    assert SYSTEM.armour_value(sheet(pc(8, talents=["Armor Master"]), [PLATE])) == 3
    assert "Armour too heavy" in SYSTEM.conditions(sheet(pc(8), [PLATE]))


# --- rests --------------------------------------------------------------------------------------


def test_a_short_rest_spends_one_supply_to_mend_one_thing_seed_002_rest():
    s = sheet(pc(av_lost=1), [MAIL, SUPPLY, weapon("Sword", 8, 2, worn_out=True)])
    result = P["rest"].roll(s, {"kind": "short", "repair_av": 1}, ScriptedRandom([]))
    assert result.state["av_lost"] == 0 and result.items_changed[0].quantity == 1
    result = P["rest"].roll(s, {"kind": "short", "repair_weapons": ["3"]}, ScriptedRandom([]))
    assert {i.id: i for i in result.items_changed}[3].data["worn_out"] is False
    with pytest.raises(RulesError, match="one Supply to mend one thing"):
        P["rest"].odds(s, {"kind": "short", "repair_av": 1, "repair_weapons": ["3"]})
    with pytest.raises(RulesError, match="takes 1 Supplies and you have 0"):
        P["rest"].odds(sheet(pc(av_lost=1), [MAIL]), {"kind": "short", "repair_av": 1})


def test_a_nights_rest_eats_a_ration_for_d8_stamina_and_less_stress_seed_002_rest():
    s = sheet(pc(stamina=2, stamina_max=8, stress=2), [RATIONS])
    result = P["rest"].roll(s, {"kind": "night"}, ScriptedRandom([5]))
    assert (result.state["stamina"], result.state["stress"]) == (7, 1)
    assert result.items_changed[0].data["days"] == 6
    odds = P["rest"].odds(s, {"kind": "night"})
    assert odds.of("+6 stamina") == Fraction(3, 8)  # a 6, 7 or 8 all top up the 6 missing


@pytest.mark.parametrize(
    ("face", "outcome"), [(1, "+1 stamina"), (5, "+5 stamina"), (6, "+6 stamina"), (8, "+6 stamina")]
)
def test_a_nights_rest_lands_on_the_outcome_its_odds_name_seed_002_rest(face, outcome):
    """Seed 002 (Rest & Healing): a night's d8 of stamina, capped by what is missing; the roll is named as its odds
    name it (issue 35 item 7: every night's rest read "rested", an outcome its odds never showed)."""
    s = sheet(pc(stamina=2, stamina_max=8, stress=2), [RATIONS])
    odds = P["rest"].odds(s, {"kind": "night"})
    result = P["rest"].roll(s, {"kind": "night"}, ScriptedRandom([face]))
    assert result.outcome == outcome and odds.of(outcome) > 0


def test_an_interrupted_night_gives_nothing_back_seed_002_camp():
    s = sheet(pc(stamina=2, stamina_max=8, stress=2), [RATIONS])
    result = P["rest"].roll(s, {"kind": "night", "interrupted": True}, ScriptedRandom([]))
    assert (result.state, result.dice) == (None, ())
    assert result.items_changed[0].data["days"] == 6


def test_a_nights_rest_needs_a_ration_seed_002_rest():
    with pytest.raises(RulesError, match="needs a ration"):
        P["rest"].odds(sheet(), {"kind": "night"})


def test_a_full_rest_restores_everything_but_scars_seed_002_rest():
    state = pc(stamina=1, stamina_max=8, stress=4, av_lost=2)
    state["attributes"]["STR"]["current"] = 5
    s = sheet(state, [MAIL, weapon("Sword", 8, 2, worn_out=True)])
    result = P["rest"].roll(s, {"kind": "full"}, ScriptedRandom([]))
    st = result.state
    assert (st["stamina"], st["stress"], st["av_lost"], st["attributes"]["STR"]["current"]) == (8, 0, 0, 10)
    assert result.items_changed[0].data["worn_out"] is False


# --- magic --------------------------------------------------------------------------------------

GRIMOIRE = Item("Grimoire", "spellbook", 2, 1, {"grimoire": True, "spells": ["Bolt", "Heal"]})
SCROLL = Item("Scroll of Bless", "spellbook", 1, 1, {"scroll": True, "spell": "Bless"})


@pytest.mark.parametrize(("power", "cost"), [(1, 1), (2, 2), (3, 4), (4, 8), (5, 16)])
def test_power_costs_stamina_doubling_magic_spellcasting_md(power, cost):
    assert cc.power_cost(power) == cost


def test_casting_at_power_6_is_refused_magic_spellcasting_md():
    with pytest.raises(RulesError, match="Power must be at most 5"):
        P["cast"].odds(sheet(items=[GRIMOIRE]), {"spell": "1|Bolt", "power": 6})
    with pytest.raises(RulesError, match="nobody can channel Power 6"):
        cc.power_cost(6)


def test_a_failed_wil_save_still_casts_but_adds_a_stress_magic_spellcasting_md():
    s = sheet(pc(wil=10, stamina=10), [GRIMOIRE])
    result = P["cast"].roll(s, {"spell": "1|Bolt", "power": 2}, ScriptedRandom([15, 2, 5]))
    assert result.outcome == "cast_stress"
    assert (result.state["stamina"], result.state["stress"]) == (8, 1)
    assert result.details["effect"] == "7 + 2 damage to a far-away creature."


def test_cast_odds_are_exact_magic_spellcasting_md():
    s = sheet(pc(wil=10, stamina=10), [GRIMOIRE])
    odds = P["cast"].odds(s, {"spell": "1|Bolt", "power": 2})
    assert dict(odds.outcomes) == {
        "cast": Fraction(1, 2) * Fraction(5, 6),
        "cast_stress": Fraction(1, 2) * Fraction(5, 6),
        "mishap": Fraction(1, 12),
        "mishap_stress": Fraction(1, 12),
    }


def test_mishap_chances_match_a_brute_force_count_magic_spellcasting_md():
    for power in range(1, 6):
        faces = list(product(range(1, 7), repeat=power))
        match = [f for f in faces if len(set(f)) < power]
        explode = [f for f in match if sum(f) >= 21]
        assert cc.mishap_chances(power) == (Fraction(len(match), len(faces)), Fraction(len(explode), len(faces)))
    assert cc.mishap_chances(1) == (0, 0) and cc.mishap_chances(3)[1] == 0


def test_scrolls_need_no_save_and_crumble_magic_spellcasting_md():
    s = sheet(pc(stamina=5), [SCROLL])
    assert dict(P["cast"].odds(s, {"spell": "1|Bless", "power": 1}).outcomes) == {"cast": 1}
    result = P["cast"].roll(s, {"spell": "1|Bless", "power": 1}, ScriptedRandom([4]))
    assert result.items_removed == (1,) and result.state["stress"] == 0 and result.state["stamina"] == 4


def test_matching_dice_mishap_by_their_sum_magic_spellcasting_md():
    s = sheet(pc(wil=10, stamina=10), [GRIMOIRE])
    result = P["cast"].roll(s, {"spell": "1|Bolt", "power": 2}, ScriptedRandom([3, 2, 2]))
    assert result.outcome == "mishap" and result.state["stress"] == 1  # sum 4: chain reaction, a stress
    assert result.state["mishaps"][0].startswith("4:")


def test_mishap_twelve_fills_a_slot_with_a_magic_aura_worth_1_av():
    """magic-spellcasting.md, Mishaps 12: one slot filled for good, 1 AV of magic."""
    s = sheet(pc(wil=10, stamina=10), [GRIMOIRE])
    state = P["cast"].roll(s, {"spell": "1|Bolt", "power": 2}, ScriptedRandom([3, 6, 6])).state
    assert state["aura"] is True
    after = sheet(dict(state), [GRIMOIRE, HELMET])
    assert SYSTEM.armour_value(after) == 2 and SYSTEM.slots(after).used == 4


def test_a_mishap_of_21_or_more_explodes_the_caster_magic_spellcasting_md():
    s = sheet(pc(wil=10, stamina=30, stamina_max=30), [GRIMOIRE])
    result = P["cast"].roll(s, {"spell": "1|Bolt", "power": 5}, ScriptedRandom([3, 6, 6, 6, 6, 6]))
    assert result.outcome == "explodes" and result.state["status"] == "dead"


def test_casting_to_zero_stamina_kills_without_deaths_door_magic_spellcasting_md():
    s = sheet(pc(wil=10, stamina=4), [GRIMOIRE])
    assert dict(P["cast"].odds(s, {"spell": "1|Bolt", "power": 3}).outcomes) == {"dies": 1}
    result = P["cast"].roll(s, {"spell": "1|Bolt", "power": 3}, ScriptedRandom([5, 1, 2, 3]))
    assert result.state["status"] == "dead" and result.details["no_resurrection"] is True


def test_a_holy_book_answers_only_its_own_faction_magic_spellcasting_md():
    book = Item("Holy book", "spellbook", 2, 1, {"holy_book": True, "faction": "Law", "spells": ["Heal"]})
    with pytest.raises(RulesError, match="faithful"):
        P["cast"].odds(sheet(pc(faction="Chaos"), [book]), {"spell": "1|Heal"})
    assert P["cast"].odds(sheet(pc(faction="Law"), [book]), {"spell": "1|Heal"}).success > 0


def test_no_spell_book_gives_a_readable_refusal():
    """magic-spellcasting.md, Casting Spells: you need a grimoire, scroll or holy book in hand."""
    with pytest.raises(RulesError, match="grimoire, holy book or scroll"):
        P["cast"].odds(sheet(), {})


# --- XP and levels ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("level", "xp"),
    [(1, 0), (2, 2_000), (3, 4_000), (5, 16_000), (8, 125_000), (10, 500_000), (11, 750_000), (12, 1_000_000)],
)
def test_the_level_table_seed_002_advancement(level, xp):
    assert cc.xp_for_level(level) == xp
    assert cc.level_for_xp(xp) == level


def test_treasure_brought_back_and_waste_go_in_the_xp_ledger_seed_002_rewarding_xp():
    s = sheet(pc(coins=100))
    got = P["xp"].roll(s, {"kind": "treasure", "amount": 1500, "note": "barrow silver"}, ScriptedRandom([])).state
    assert (got["xp"], got["coins"]) == (1500, 1600)
    wasted = P["xp"].roll(sheet(dict(got)), {"kind": "waste", "amount": 600}, ScriptedRandom([])).state
    assert (wasted["xp"], wasted["coins"]) == (2100, 1000)
    assert [e["kind"] for e in wasted["xp_ledger"]] == ["treasure", "waste"]
    assert "Level up ready" in SYSTEM.conditions(sheet(dict(wasted)))
    with pytest.raises(RulesError, match="cannot waste"):
        P["xp"].roll(sheet(pc(coins=5)), {"kind": "waste", "amount": 6}, ScriptedRandom([]))


def test_a_19th_attribute_point_is_refused_seed_002_advancement():
    with pytest.raises(RulesError, match="already 18"):
        P["level_up"].odds(sheet(pc(18, xp=2000)), {"attribute": "STR"})


def test_levelling_needs_the_xp_seed_002_advancement():
    with pytest.raises(RulesError, match="Level 2 needs 2,000 XP; you have 1,999"):
        P["level_up"].odds(sheet(pc(xp=1999)), {"attribute": "STR"})


def test_a_low_roll_still_gives_one_more_max_stamina_seed_002_advancement():
    result = P["level_up"].roll(sheet(pc(stamina=12, xp=2000)), {"attribute": "WIL"}, ScriptedRandom([5, 6]))
    assert (result.outcome, result.state["stamina_max"]) == ("plus_one", 13)


def test_from_level_11_two_stamina_and_no_roll_seed_002_advancement():
    s = sheet(pc(18, stamina=40, level=10, xp=750_000))
    result = P["level_up"].roll(s, {"attribute": "STR"}, ScriptedRandom([]))
    assert (result.state["level"], result.state["stamina_max"], result.dice) == (11, 42, ())
    assert result.state["attributes"]["STR"]["base"] == 18  # no attribute past level 10 ([REC] §002.12)


# --- hired help ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wil", "loyalty", "most"),
    [(3, 4, 1), (4, 5, 2), (5, 5, 2), (6, 6, 3), (8, 6, 3), (9, 7, 4), (12, 7, 4), (13, 8, 5), (16, 9, 6), (18, 10, 7)],
)
def test_retainer_loyalty_and_count_come_from_wil_hired_help_md(wil, loyalty, most):
    assert cc.retainer_row(wil) == (loyalty, most)
    assert SYSTEM.hireling_limit(sheet(pc(wil=wil))) == most


def _retainer(name: str, id: int) -> Hireling:
    return Hireling(name, "retainer", {"role": "retainer", "stamina": 4, "stamina_max": 4, "loyalty": 7}, id=id)


def test_more_retainers_than_wil_allows_is_refused_hired_help_md():
    s = sheet(pc(wil=5, coins=500), hirelings=[_retainer("A", 1), _retainer("B", 2)])
    with pytest.raises(RulesError, match="With WIL 5 you can keep 2 retainer"):
        SYSTEM.hire(s, {"kind": "retainer"}, random.Random(1))
    porter = SYSTEM.hire(s, {"kind": "porter"}, random.Random(1))  # hirelings who do not fight are not capped
    assert (porter.wage, porter.state["slots"], porter.state["morale"]) == (12, 15, 6)


def test_a_retainer_is_rolled_3d6_1d8_with_loyalty_and_an_upfront_fee_hired_help_md():
    faces = [5, 3, 4, 2, 6, 6, 1, 2, 3, 4]  # stamina d8, then 3d6 STR, DEX, WIL
    hired = SYSTEM.hire(sheet(pc(wil=13, coins=100)), {"kind": "retainer", "name": "Tam"}, ScriptedRandom(faces))
    st = hired.state
    assert hired.kind == "retainer" and hired.name == "Tam"
    assert st["stamina_max"] == 5 and st["loyalty"] == 8 and st["weapon"] == 6 and st["slots"] == 10
    assert {a: v["base"] for a, v in st["attributes"].items()} == {"STR": 9, "DEX": 13, "WIL": 9}
    assert hired.upfront == 60 and "upfront" not in st


def test_retainers_never_outlevel_you_and_must_be_paid_up_front_hired_help_md():
    with pytest.raises(RulesError, match="never be a higher level"):
        SYSTEM.hire(sheet(pc(coins=1000)), {"kind": "retainer", "level": 2}, random.Random(1))
    with pytest.raises(RulesError, match="wants 5s up front"):
        SYSTEM.hire(sheet(pc(coins=59)), {"kind": "retainer"}, random.Random(1))


def test_a_knights_squire_comes_free_backgrounds_fighter_md():
    squire = SYSTEM.hire(sheet(pc(background="Knight")), {"kind": "retainer"}, random.Random(3))
    assert squire.name == "Squire" and squire.upfront == 0 and squire.state["squire"]


def test_retainers_follow_deaths_door_and_hirelings_simply_die_seed_002_stamina_and_death():
    porter = Hireling("Pip", "hireling", {"role": "porter", "stamina": 3, "stamina_max": 3}, id=2)
    s = sheet(hirelings=[_retainer("Tam", 1), porter])
    result = P["helper_damage"].roll(s, {"helper": "1", "amount": 6}, ScriptedRandom([5]))
    assert result.hirelings_changed[0].state["status"] == "dying" and result.odds.of("dies") == Fraction(1, 2)
    result = P["helper_damage"].roll(s, {"helper": "2", "amount": 6}, ScriptedRandom([]))
    assert result.hirelings_changed[0].state["status"] == "dead"


def test_a_dying_retainer_can_be_treated_seed_002_stamina_and_death():
    tam = Hireling("Tam", "retainer", {"role": "retainer", "stamina": -1, "stamina_max": 4, "status": "dying"}, id=1)
    result = P["treat"].roll(sheet(hirelings=[tam]), {"patient": "1", "method": "magic"}, ScriptedRandom([10]))
    changed = result.hirelings_changed[0].state
    assert (changed["status"], changed["stamina"], changed["doomed"]) == ("fine", 1, True)


def test_loyalty_check_is_2d6_at_or_under_loyalty_hired_help_md():
    s = sheet(hirelings=[_retainer("Tam", 1)])
    assert P["loyalty"].odds(s, {"retainer": "1"}).of("obeys") == Fraction(21, 36)
    assert P["loyalty"].roll(s, {"retainer": "1", "adjust": -1}, ScriptedRandom([3, 4])).outcome == "refuses"


def test_treasure_shares_give_retainers_half_a_share_hired_help_md():
    assert cc.treasure_shares(2200, 4, 3) == cc.Shares(400, 200, 0)
    assert cc.treasure_shares(100, 3) == cc.Shares(33, 16, 1)
    assert cc.heir_split(10_000) == (7_500, 2_500)
    with pytest.raises(RulesError):
        cc.treasure_shares(100, 0)


# --- GM rolls -------------------------------------------------------------------------------------


@pytest.mark.parametrize(("ml", "flee"), [(2, Fraction(35, 36)), (7, Fraction(15, 36)), (12, Fraction(0))])
def test_morale_flees_above_ml_on_2d6_seed_002_morale(ml, flee):
    assert P["morale"].odds(sheet(), {"morale": ml}).of("flee") == flee
    assert P["morale"].roll(sheet(), {"morale": ml}, ScriptedRandom([6, 6])).outcome == ("flee" if ml < 12 else "hold")


def test_reaction_table_npcs_md():
    odds = P["reaction"].odds(sheet(), {})
    assert [k for k, _ in odds.outcomes] == ["hostile", "unfriendly", "indifferent", "friendly", "helpful"]
    assert odds.of("indifferent") == Fraction(16, 36)
    assert P["reaction"].roll(sheet(), {}, ScriptedRandom([1, 2])).outcome == "hostile"


@pytest.mark.parametrize(
    ("party", "enemies", "outcome"), [(4, 4, "simultaneous"), (5, 2, "party_first"), (1, 6, "enemies_first")]
)
def test_combat_order_d6_per_side_ties_act_at_once_seed_002_combat(party, enemies, outcome):
    assert P["combat_order"].roll(sheet(), {}, ScriptedRandom([party, enemies])).outcome == outcome
    assert P["combat_order"].odds(sheet(), {}).of("simultaneous") == Fraction(1, 6)


# --- creation ---------------------------------------------------------------------------------------


def test_creation_rolls_everything_in_order_character_creation_md():
    faces = [1, 2, 3, 4, 5, 6, 6, 6, 6, 5, 13, 2, 1, 1, 2, 3, 4, 1, 1]
    rng = ScriptedRandom(faces)
    made = SYSTEM.create({"name": "Ilse", "faction": "Chaos"}, rng)
    assert rng.remaining == 0
    st = made.state
    assert {a: v["base"] for a, v in st["attributes"].items()} == {"STR": 6, "DEX": 15, "WIL": 18}
    assert (st["stamina"], st["stamina_max"], st["background"], st["archetype"]) == (
        5,
        5,
        "Wizard's Apprentice",
        "Mage",
    )
    assert st["talents"] == ["Arcane", "Research", "Scribing"]
    assert (st["coins"], st["age"], st["faction"], made.name) == (120, 18, "Chaos", "Ilse")
    names = [i.name for i in made.items]
    assert names[:4] == ["Supply", "Torch", "Rations (3 days)", "Dagger"] and made.items[0].quantity == 2
    grimoire = next(i for i in made.items if i.kind == "spellbook")
    assert grimoire.data["spells"] == ["Bolt"] and grimoire.slots == 2
    labels = [r.label for r in made.rolls]
    assert labels == ["STR", "DEX", "WIL", "Stamina", "Background", "Grimoire spell", "Coins", "Age"]
    assert all(i.kind in APP_ITEM_KINDS for i in made.items)


def test_creation_swap_and_chosen_background_character_creation_md():
    rng = ScriptedRandom([1, 1, 1, 6, 6, 6, 3, 3, 3, 8, 2, 2, 2, 2])
    made = SYSTEM.create({"swap": "STR-DEX", "background": "Knight", "age": 30}, rng)
    assert made.state["attributes"]["STR"]["base"] == 18 and made.state["attributes"]["DEX"]["base"] == 3
    assert made.state["swapped"] is True and made.state["age"] == 30
    assert any(r.label == "Squire" for r in made.rolls)
    assert {i.name for i in made.items} >= {"Heavy plate armour", "Longsword", "Warhorse"}


def test_the_swap_procedure_works_once_before_play_character_creation_md():
    s = sheet(pc(5, 9, 16))
    state = P["swap"].roll(s, {"first": "STR", "second": "WIL"}, ScriptedRandom([])).state
    assert state["attributes"]["STR"]["base"] == 16 and state["swapped"]
    with pytest.raises(RulesError, match="once, before play"):
        P["swap"].roll(sheet(dict(state)), {"first": "STR", "second": "DEX"}, ScriptedRandom([]))


@pytest.mark.parametrize("bad", [{"background": "Astronaut"}, {"swap": "STR-STR"}, {"faction": "Neutral"}])
def test_bad_creation_choices_are_refused_readably(bad):
    """character-creation.md: twenty backgrounds, a swap of two scores, three factions."""
    with pytest.raises(RulesError):
        SYSTEM.create(bad, random.Random(1))


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 10_000))
def test_created_states_validate_and_are_stable(seed):
    """character-creation.md: whatever the dice, validate_state(create(...).state) is stable."""
    made = SYSTEM.create({}, random.Random(seed))
    once = SYSTEM.validate_state(made.state)
    assert SYSTEM.validate_state(once) == once == made.state
    assert all(i.kind in APP_ITEM_KINDS for i in made.items)
    assert len(made.rolls) >= 7 and min(a["base"] for a in once["attributes"].values()) >= 3


# --- state, tracks, adjust, catalogue -------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "message"),
    [
        ({"mana": 3}, "no field mana"),
        ({"attributes": {"STR": 19, "DEX": 10, "WIL": 10}}, "STR must be between 0 and 18"),
        ({"attributes": {"STR": 10, "DEX": 10}}, "exactly STR, DEX and WIL"),
        ({"status": "zombie"}, "Status must be"),
        ({"stamina": 9, "stamina_max": 8}, "Stamina must be between"),
        ({"faction": "Neutral"}, "Faction must be one of"),
        ({"coins": -1}, "Coins must be between"),
        ({"xp_ledger": [{"kind": "loot", "amount": 5}]}, "treasure brought back or treasure wasted"),
    ],
)
def test_validate_state_refuses_bad_data_readably(bad, message):
    """Spec §002.3 sheet fields: bad data gets a readable RulesError."""
    with pytest.raises(RulesError, match=message):
        SYSTEM.validate_state({**SYSTEM.default_state(), **bad})


def test_tracks_show_stamina_stress_attributes_av_and_xp():
    """Spec §002.3: the tracks the sheet shows, with the next level's XP as the XP maximum."""
    s = sheet(pc(12, stress=2, xp=2500, level=2), [MAIL, SUPPLY])
    tracks = {t.key: t for t in SYSTEM.tracks(s)}
    assert (tracks["stress"].current, tracks["stress"].maximum) == (2, 12)
    assert (tracks["av"].current, tracks["xp"].maximum) == (2, 4000)
    assert tracks["supplies"].current == 2 and not tracks["supplies"].adjustable
    assert {t.key for t in SYSTEM.tracks(s) if t.adjustable} == set(cc.ADJUSTABLE)


def test_adjust_clamps_and_refuses_what_the_rules_refuse():
    """Seed 002 (Stamina & Death; Inventory & Stress): the +/- buttons stay inside the rules."""
    s = sheet(pc(stamina=5, stamina_max=8))
    assert SYSTEM.adjust(s, "stamina", 10)["stamina"] == 8
    assert SYSTEM.adjust(s, "STR", 5)["attributes"]["STR"]["current"] == 10  # not above the rested score
    assert SYSTEM.adjust(s, "coins", -50)["coins"] == 0
    with pytest.raises(RulesError, match="cannot be changed by hand"):
        SYSTEM.adjust(s, "level", 1)
    with pytest.raises(RulesError, match="treat the wounds"):
        SYSTEM.adjust(sheet(pc(stamina=0, stamina_max=8, status="dying")), "stamina", 1)
    cracked = SYSTEM.adjust(sheet(pc(12), [MAIL]), "av", -1)
    assert cracked["av_lost"] == 1 and SYSTEM.adjust(sheet(cracked, [MAIL]), "av", 5)["av_lost"] == 0


def test_the_faction_never_shows_in_public_conditions():
    """character-creation.md, Faction: do not reveal it publicly."""
    assert not any("Law" in c for c in SYSTEM.conditions(sheet(pc(faction="Law"))))


def test_conditions_name_the_dead_and_the_dying():
    """Seed 002, Stamina & Death: the table card names the dead and the dying."""
    assert SYSTEM.conditions(sheet(pc(status="dead"))) == ("Dead",)
    assert "Unconscious and dying" in SYSTEM.conditions(sheet(pc(stamina=0, stamina_max=8, status="dying")))


def test_catalogue_prices_are_pennies_from_equipment_md():
    prices = {e.name: e for e in SYSTEM.catalogue()}
    assert prices["Longsword"].cost == 600 and prices["Longsword"].data["damage"] == 10
    assert prices["Helmet"].cost == 300 and prices["Helmet"].kind == "helmet"
    assert prices["Supply"].cost == 84 and prices["Supply"].data["supply"] is True
    assert prices["Silver dagger"].cost == 600 and prices["Silver dagger"].data["silver"] is True
    assert prices["War horse"].cost == 10_000 and prices["War horse"].data["mount"] is True
    assert all(e.kind in APP_ITEM_KINDS for e in SYSTEM.catalogue())
    assert SYSTEM.format_money(prices["Bow"].cost) == "1m 15s"


# --- properties -------------------------------------------------------------------------------------


@settings(max_examples=80, deadline=None)
@given(
    target=hs.integers(0, 20),
    mode=hs.sampled_from(["plain", "advantage", "disadvantage"]),
    skill=hs.integers(1, 18),
    npc_mode=hs.sampled_from(["plain", "advantage", "disadvantage"]),
)
def test_save_and_opposed_odds_sum_to_one(target, mode, skill, npc_mode):
    """Seed 002, Saves and Opposed Saves: odds sum to 1 for every target and mode."""
    Odds((("pass", cc.save_chance(target, mode)), ("fail", 1 - cc.save_chance(target, mode))))
    assert sum(cc.opposed_odds(target, mode, skill, npc_mode).values()) == 1


@settings(max_examples=60, deadline=None)
@given(
    steps=hs.lists(
        hs.tuples(
            hs.sampled_from(["stamina", "stamina_max", "stress", "STR", "DEX", "WIL", "av", "coins"]),
            hs.integers(-30, 30),
        ),
        max_size=25,
    ),
    strength=hs.integers(3, 18),
)
# Found in CI (issue 9, finding 13): 11 stress with STR 14, then STR -4 left 11 stress in 10 slots.
@example(steps=[("stress", 11), ("STR", -4)], strength=14)
def test_adjusting_keeps_every_track_in_bounds(steps, strength):
    """Seed 002 (Stamina; Inventory & Stress; Advancement): tracks never leave their bounds."""
    state = pc(strength, stamina=6)
    items = (MAIL, HELMET)
    for key, delta in steps:
        try:
            state = SYSTEM.adjust(sheet(state, items), key, delta)
        except RulesError:
            continue
        assert SYSTEM.validate_state(state) == state
        assert state["stamina"] <= state["stamina_max"] and state["stamina"] >= 0
        assert 0 <= state["stress"] <= SYSTEM.slots(sheet(state, items)).maximum
        for a in state["attributes"].values():
            assert 0 <= a["current"] <= a["base"] <= 18


@settings(max_examples=40, deadline=None)
@given(seed=hs.integers(0, 100_000), amount=hs.integers(0, 30), stamina=hs.integers(1, 20))
def test_damage_rolls_keep_the_sheet_valid(seed, amount, stamina):
    """Seed 002, Stamina & Death: damage rolls leave a valid sheet and an outcome the odds named."""
    s = sheet(pc(stamina=stamina))
    result = P["take_damage"].roll(s, {"amount": amount}, random.Random(seed))
    state = result.state or s.state
    assert SYSTEM.validate_state(state) == state
    assert result.outcome in dict(result.odds.outcomes)
    assert state["stamina"] == stamina - amount


def test_the_armour_summary_names_the_pieces_the_cap_and_the_shield_seed_002_damage_and_armor():
    items = (
        Item("Helmet", "helmet", 1, 1, {"av": 1}, worn=True),
        Item("Medium armour (mail)", "armour", 2, 1, {"av": 2, "min_str": 12, "dex_disadvantage": True}, worn=True),
        Item("Shield", "shield", 1, 1, {"sunder": True}, worn=True),
        Item("Supply", "gear", 1, 3, {"supply": True}),
    )
    summary = cc.armour_summary(sheet(pc(strength=12), items))
    assert (summary["av"], summary["cap"], summary["shield"], summary["supplies"]) == (3, 4, "Shield", 3)
    assert summary["dex_disadvantage"] == "Medium armour (mail): disadvantage on DEX saves"
    weak = cc.armour_summary(sheet(pc(strength=11), items))
    assert weak["av"] == 1 and [p["fits"] for p in weak["pieces"]] == [True, False]  # mail needs STR 12
    assert cc.armour_summary(sheet(pc(aura=True), items[:1]))["cap"] == 6  # magic lifts the cap


# --- found in review (issue 10): the level-up cap, and stress that kills -------------------------

ONE_SLOT_GRIMOIRE = Item("Pocket grimoire", "spellbook", 1, 1, {"grimoire": True, "spells": ["Bolt"]}, id=1)


def d20_save(face: int, target: int) -> bool:
    """Seed 002, Saves, by hand: at or under the score; a 1 always succeeds, a 20 always fails."""
    return face == 1 or (face != 20 and face <= target)


def test_a_level_up_with_every_attribute_at_18_still_rolls_stamina_seed_002_advancement():
    """Seed 002, Advancement: "No attribute score can be increased above 18" caps the rise, not the
    level; the new level's d8s are still rolled, and the result says no attribute could rise."""
    hero = sheet(pc(18, 18, 18, stamina=3, xp=2000))
    odds = P["level_up"].odds(hero, {"attribute": "STR"})
    assert sum(p for _, p in odds.outcomes) == 1
    result = P["level_up"].roll(hero, {"attribute": "STR"}, ScriptedRandom([3, 4]))
    assert result.state["level"] == 2 and result.state["stamina_max"] == 7
    assert all(result.state["attributes"][a] == {"current": 18, "base": 18} for a in ("STR", "DEX", "WIL"))
    assert result.details["attribute_raised"] == "" and "none rises" in result.summary
    with pytest.raises(RulesError, match="raise another attribute"):  # one at 18 while others can rise
        P["level_up"].roll(sheet(pc(18, 12, 12, xp=2000)), {"attribute": "STR"}, ScriptedRandom([3, 4]))


def test_a_level_up_sum_equal_to_max_stamina_adds_one_seed_002_advancement():
    """Seed 002, Advancement: only a sum *greater* than the current max becomes the new max; equal adds 1."""
    hero = sheet(pc(stamina=7, xp=2000))
    result = P["level_up"].roll(hero, {"attribute": "DEX"}, ScriptedRandom([3, 4]))
    assert result.outcome == "plus_one" and result.state["stamina_max"] == 8
    higher = Fraction(sum(1 for a, b in product(range(1, 9), repeat=2) if a + b > 7), 64)
    assert P["level_up"].odds(hero, {"attribute": "DEX"}).of("new_max") == higher


@pytest.mark.parametrize("procedure", ["save", "opposed_save"])
def test_a_push_into_the_last_slot_is_death_seed_002_pushing_and_inventory(procedure):
    """Seed 002, Pushing ("the PC takes stress") + Inventory & Stress ("If all of your inventory slots
    are filled with stress, you die"): at 9 stress of 10 slots a push kills, so the odds say so."""
    hero = sheet(pc(stress=9))
    params = {"attribute": "STR", "push": True}
    assert P[procedure].odds(hero, params).outcomes == (("dies", 1),)
    result = P[procedure].roll(hero, params, ScriptedRandom([]))
    assert result.outcome == "dies" and result.state["status"] == "dead" and result.state["stress"] == 10


def test_a_failed_cast_at_the_last_slot_is_death_magic_spellcasting_md_and_seed_002_inventory():
    """magic-spellcasting.md (a failed WIL save gains 1 stress) + seed 002, Inventory & Stress: with 9
    stress of 10 slots (the grimoire bound to the soul, in no slot) the failure's stress fills every slot: death."""
    hero = sheet(pc(wil=10, stamina=10, stress=9), [Item(**{**ONE_SLOT_GRIMOIRE.__dict__, "slots": 0})])
    odds = P["cast"].odds(hero, {"spell": "1|Bolt", "power": 1})
    fail = Fraction(sum(1 for f in range(1, 21) if not d20_save(f, 10)), 20)
    assert dict(odds.outcomes) == {"cast": 1 - fail, "dies": fail}
    result = P["cast"].roll(hero, {"spell": "1|Bolt", "power": 1}, ScriptedRandom([15]))
    assert result.outcome == "dies" and result.state["status"] == "dead" and result.state["stress"] == 10


def test_a_pushed_cast_whose_stress_finds_no_slot_can_kill_by_its_d6_seed_002_inventory_and_stress():
    """Seed 002, Inventory & Stress: stress with no slot deals d6 damage; casting to 0 stamina is death
    (magic-spellcasting.md). Push (advantage) into the last free slot, then fail: d6 against 2 stamina."""
    hero = sheet(pc(wil=10, stamina=3, stress=8), [ONE_SLOT_GRIMOIRE])
    params = {"spell": "1|Bolt", "power": 1, "push": True}
    odds = P["cast"].odds(hero, params)
    expected = dict.fromkeys(("cast", "cast_stress", "dies"), Fraction(0))
    for a, b, d6 in product(range(1, 21), range(1, 21), range(1, 7)):
        ok = d20_save(a, 10) or d20_save(b, 10)
        key = "cast" if ok else "dies" if d6 >= 2 else "cast_stress"
        expected[key] += Fraction(1, 20 * 20 * 6)
    assert dict(odds.outcomes) == expected
    result = P["cast"].roll(hero, params, ScriptedRandom([15, 17, 4, 5, 3]))
    assert result.outcome == "dies" and result.state["status"] == "dead"


def test_a_party_save_leaders_stress_into_the_last_slot_is_death_seed_002_party_saves():
    """Seed 002, Party Saves (the leader takes stress for each member who failed) + Inventory & Stress."""
    members = {"member1": sheet(pc(), name="Bo")}
    leader = sheet(pc(stress=9))
    odds = P["party_save"].odds(leader, {"attribute": "STR", **members})
    expected: dict[str, Fraction] = {}
    for mine, theirs in product(range(1, 21), repeat=2):
        passed = d20_save(mine, 10) or d20_save(theirs, 10)
        key = "pass_stress_0" if d20_save(theirs, 10) else "pass_leader_dies" if passed else "fail_leader_dies"
        expected[key] = expected.get(key, Fraction(0)) + Fraction(1, 400)
    assert {k: v for k, v in odds.outcomes if v} == expected
    result = P["party_save"].roll(leader, {"attribute": "STR", **members}, ScriptedRandom([3, 15]))
    assert result.outcome == "pass_leader_dies" and result.state["status"] == "dead"


def test_stress_with_no_slot_shows_deaths_door_odds_seed_002_inventory_and_stress():
    """Seed 002, Inventory & Stress (d6 damage per stress that does not fit) + Stamina & Death (0 or
    lower: a d6, 1-3 dies, otherwise dying): taking stress by hand shows what it can do."""
    hero = sheet(pc(stamina=3), junk(10))
    odds = P["stress"].odds(hero, {"amount": 1})
    expected = dict.fromkeys(("stressed", "dying", "dies"), Fraction(0))
    for hit, door in product(range(1, 7), repeat=2):
        key = "stressed" if hit < 3 else "dies" if door <= 3 else "dying"
        expected[key] += Fraction(1, 36)
    assert dict(odds.outcomes) == expected
    result = P["stress"].roll(hero, {"amount": 1}, ScriptedRandom([5, 2]))
    assert result.outcome == "dies" and odds.of(result.outcome) > 0


def test_a_scar_that_shrinks_the_slots_under_the_stress_kills_seed_002_scars_and_spec_002_13_10():
    """Seed 002, scars table (Sickly: STR -1; Chronic Wound: STR -2) + spec §002.13.10 [REC]: fewer
    slots can leave every one full of stress. STR 12 with 11 stress: either scar kills."""
    hero = sheet(pc(12, stress=11, stamina=0, status="dying"))
    odds = P["treat"].odds(hero, {"method": "magic"})
    assert dict(odds.outcomes) == {"saved": Fraction(8, 10), "dies": Fraction(2, 10)}
    result = P["treat"].roll(hero, {"method": "magic"}, ScriptedRandom([2]))
    assert result.outcome == "dies" and result.state["status"] == "dead"


@settings(max_examples=60, deadline=None)
@given(
    hs.integers(0, 12),
    hs.integers(0, 4),
    hs.integers(1, 12),
    hs.sampled_from(["save", "opposed_save", "cast", "party_save", "stress"]),
    hs.booleans(),
    hs.integers(1, 3),
    hs.randoms(use_true_random=False),
)
def test_rolls_that_add_stress_land_only_on_outcomes_the_odds_allow(stress, items, stamina, key, push, power, rnd):
    """Seed 002, Inventory & Stress, for every procedure that adds stress: the odds sum to 1 and a roll
    lands only on an outcome they gave a chance to."""
    gear = [ONE_SLOT_GRIMOIRE, *junk(items)]
    hero = sheet(pc(wil=10, stamina=stamina, stamina_max=12, stress=min(stress, 10)), gear)
    params: dict[str, Any] = {
        "save": {"attribute": "WIL", "push": push},
        "opposed_save": {"attribute": "WIL", "push": push},
        "cast": {"spell": "1|Bolt", "power": power, "push": push},
        "party_save": {"attribute": "WIL", "member1": sheet(pc(), name="Bo"), "member2": sheet(pc(), name="Cy")},
        "stress": {"amount": power},
    }[key]
    try:
        odds = P[key].odds(hero, params)
    except RulesError:
        return  # e.g. a push with no empty slot, refused before anything is rolled
    assert sum(p for _, p in odds.outcomes) == 1
    result = P[key].roll(hero, params, rnd)
    assert odds.of(result.outcome) > 0, (result.outcome, odds.outcomes)


# --- the table's rule settings (spec §5.1) -------------------------------------------------------


def test_scar_losses_come_back_with_a_full_rest_when_the_table_says_so_spec_5_1():
    """Seed 002 (Rest: a full rest restores lowered attributes) against spec §002.13.4 [REC] (scars are
    lasting): the table's cc.scar_losses_permanent setting picks one. Scar 2 lowers STR by 1 (10 → 9)."""
    in_force = SYSTEMS["chaos-conquest"].settings_in_force(None)
    assert in_force == {"scar_losses_permanent": True, **in_force_lights()}
    healing = Sheet(state=pc(stamina=0, stamina_max=8, status="dying"), settings={"scar_losses_permanent": False})
    scarred = P["treat"].roll(healing, {"method": "magic"}, ScriptedRandom([2])).state
    assert scarred["attributes"]["STR"] == {"current": 9, "base": 10}
    rested = P["rest"].roll(Sheet(state=dict(scarred), settings=healing.settings), {"kind": "full"}, ScriptedRandom([]))
    assert rested.state["attributes"]["STR"] == {"current": 10, "base": 10}
    assert rested.state["scars"] == scarred["scars"]  # the mark stays


def test_a_kit_that_outgrows_a_weak_character_s_slots_stays_behind_seed_002_inventory():
    """Seed 002 (Inventory & Stress): no more items than slots, even at creation. Seed 45 rolls a STR that gives
    10 slots and a 12-slot kit: what fits comes along, the rest is named in the creation log."""
    creation = SYSTEM.create({}, random.Random(45))
    sheet = Sheet(state=creation.state, items=creation.items)
    summary = SYSTEM.validate_sheet(sheet) and SYSTEM.slots(sheet)
    assert summary.used == summary.maximum
    (note,) = [r for r in creation.rolls if r.label == "Left behind"]
    assert note.summary.startswith("Left behind: no room for")


def in_force_lights() -> dict:
    """The table's light rules at their defaults (rules.clock, issue 41): every lit system offers them."""
    return defaults(LIGHT_SETTINGS)
