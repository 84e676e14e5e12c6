"""Grit & Flesh at the GM's table (issue 16): monsters, the initiative die, and what time does to a sheet.

Seed 004 (../shared/seeds/004_ebd0e2535c17253c.txt) and rules-spec §004.4, §004.5, §004.8, §004.9.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.base import Hireling, Item, Sheet
from rules.dice import ScriptedRandom
from rules.systems.grit_flesh import SYSTEM

TORCH = Item("Torch", "light", 0, 2, {"lit": True}, id=1)
LANTERN = Item("Lantern", "light", 0, 1, {"lit": True, "burned": 230}, id=2)
OGRE = {"grit": 6, "flesh": 2, "hd": 2, "ac": 2, "av": 12, "damage": "1"}


def _sheet(**state) -> Sheet:
    return Sheet(state={**SYSTEM.default_state(), **state})


def test_monster_stat_block_defaults_are_the_house_line_for_one_hd():
    """Spec §004.12: a monster's numbers are house defaults (AV 10 + HD, Grit 3 per HD, Flesh = HD)."""
    fields = {p.name: p for p in SYSTEM.npc_fields()}
    assert list(fields)[0] == "grit"  # damage lowers Grit first
    assert (fields["grit"].default, fields["flesh"].default, fields["av"].default, fields["hd"].default) == (
        3,
        1,
        11,
        1,
    )
    assert fields["grit"].maximum == 999 and fields["av"].maximum == 20


def test_monster_damage_goes_through_grit_then_flesh_and_defeats_at_zero_flesh():
    """Seed 004, Grit and Flesh: Grit first, then Flesh (spill, spec §004.11.1 [REC]); Getting XP: 50 × HD."""
    hit = SYSTEM.npc_damage(OGRE, OGRE, 4)
    assert (hit.stats["grit"], hit.stats["flesh"], hit.dealt, hit.defeated, hit.morale) == (2, 2, 4, False, False)
    spill = SYSTEM.npc_damage(hit.stats, OGRE, 3)
    assert (spill.stats["grit"], spill.stats["flesh"], spill.defeated) == (0, 1, False)
    down = SYSTEM.npc_damage(spill.stats, OGRE, 5)
    assert down.stats["flesh"] == 0 and down.defeated and down.dealt == 1 and "100 XP" in down.words


def test_a_critical_or_unaware_hit_goes_straight_to_flesh():
    """Seed 004, Melee Attacks (a critical) and Special Attacks (unaware): damage bypasses Grit."""
    crit = SYSTEM.npc_damage(OGRE, OGRE, 2, ignore_armour=True)
    assert (crit.stats["grit"], crit.stats["flesh"], crit.defeated) == (6, 0, True)


@pytest.mark.parametrize(("face", "outcome"), [(20, "miss"), (13, "miss"), (12, "crit"), (11, "hit"), (1, "hit")])
def test_monster_attack_is_the_gms_d20_against_its_av(face, outcome):
    """Seed 004, Melee Attacks: at or under the AV (and above the target's AC) hits, exactly the AV is a
    critical; Free Attacks: a monster makes two a round."""
    result = SYSTEM.npc_roll("attack", OGRE, ScriptedRandom([face, 4]))
    assert result.outcome == outcome and result.total == face
    assert "2 this round" in result.summary
    if outcome != "miss":
        assert "Damage 5" in result.summary  # 1d6+1


@given(st.integers(1, 20))
def test_monster_attack_odds_are_exact(av):
    """Seed 004, Melee Attacks: twenty faces, one of them the critical."""
    odds = SYSTEM.npc_roll("attack", {**OGRE, "av": av}, ScriptedRandom([1, 1])).odds
    assert sum(p for _, p in odds.outcomes) == 1 and odds.of("crit") == Fraction(1, 20)
    assert odds.of("miss") == Fraction(20 - av, 20)


def test_small_weapon_damage_never_goes_below_zero():
    """Spec §004.11.11 [REC]: 1d6−1 is never below 0."""
    result = SYSTEM.npc_roll("attack", {**OGRE, "damage": "-1"}, ScriptedRandom([5, 1]))
    assert "Damage 0" in result.summary


@pytest.mark.parametrize(("face", "first"), [(2, "The players act"), (6, "The players act"), (3, "The enemies act")])
def test_initiative_d6_each_round(face, first):
    """Seed 004, Combat Rounds: the GM's d6 at the start of each round; even, the players go first."""
    order = SYSTEM.combat_order(3, ScriptedRandom([face]))
    assert order.steps[0] == first and len(order.dice) == 1 and order.dice[0].face == face
    assert order.summary.startswith("Round 3")


@pytest.mark.parametrize(
    ("face", "sides"), [(2, ("party", "enemies")), (4, ("party", "enemies")), (5, ("enemies", "party"))]
)
def test_whose_turn_follows_the_initiative_die_seed_004_combat_rounds(face, sides):
    """Seed 004, Combat Rounds (issue 36, item 6): an even d6 gives the players the first turn, odd the enemies."""
    assert SYSTEM.combat_order(2, ScriptedRandom([face])).sides == sides


def test_time_units_and_burning_lights():
    """House reading (the seed gives no burn times): a torch 6 turns, a lantern 24 on a filling."""
    assert [u.key for u in SYSTEM.time_units()] == ["round", "turn", "hour", "sleep", "day", "week"]
    sheet = Sheet(state=SYSTEM.default_state(), items=(TORCH, LANTERN))
    result = SYSTEM.advance_time(sheet, "turn", 1, 0, ScriptedRandom([]))
    torch, lantern = result.items_changed
    assert torch.data["burned"] == 10 and lantern.data["lit"] is False  # 240 minutes on its oil
    burnt = SYSTEM.advance_time(sheet, "hour", 1, 0, ScriptedRandom([]))
    assert burnt.items_changed[0].quantity == 1 and burnt.items_changed[0].data["lit"] is False


def test_time_heals_nothing_by_itself():
    """Seed 004, Rest and Healing: ten minutes' rest heals 1d6 Grit, but only when someone rests (Rest)."""
    sheet = _sheet(grit=1, grit_max=6, flesh=3, flesh_max=3)
    result = SYSTEM.advance_time(sheet, "turn", 3, 0, ScriptedRandom([]))
    assert result.state is None
    rest = SYSTEM.procedures()["rest"].roll(sheet, {}, ScriptedRandom([4]))
    assert rest.state["grit"] == 5


def test_out_cold_comes_round_after_its_rounds():
    """Seed 004, Grit and Flesh: a passed save vs death wakes with 1 Flesh after 1d6 rounds."""
    sheet = _sheet(flesh=0, flesh_max=3, out_rounds=4)
    waiting = SYSTEM.advance_time(sheet, "round", 3, 0, ScriptedRandom([]))
    assert waiting.state["out_rounds"] == 1 and waiting.state["flesh"] == 0
    awake = SYSTEM.advance_time(sheet, "turn", 1, 0, ScriptedRandom([]))
    assert awake.state["out_rounds"] == 0 and awake.state["flesh"] == 1


def test_each_new_week_puts_a_week_of_helpers_wages_due():
    """Seed 004, Hiring Helpers: helpers cost so much a week."""
    torchbearer = Hireling("Pip", "helper", {"role": "Torchbearer", "weekly": 2, "paid_weeks": 1}, id=7)
    sheet = Sheet(state=SYSTEM.default_state(), hirelings=(torchbearer,))
    assert SYSTEM.advance_time(sheet, "day", 3, 0, ScriptedRandom([])).hirelings_changed == ()
    later = SYSTEM.advance_time(sheet, "day", 15, 0, ScriptedRandom([]))  # days 0→15 pass two week marks
    (pip,) = later.hirelings_changed
    assert pip.state["weeks"] == 3 and "2 weeks unpaid, 4 gp due" in later.summary
    SYSTEM.validate_hireling(pip)


def test_a_safe_nights_sleep_offers_one_purification_a_night():
    """Seed 004, Corrupted Spells: after 8 hours' sleep somewhere fairly safe, purify one corrupted spell."""
    book = [{"name": "Slumber", "level": 1, "corrupted": True}, {"name": "Glow", "level": 1, "corrupted": True}]
    sheet = _sheet(cls="Magic-User", spellbook=book)
    night = SYSTEM.advance_time(sheet, "sleep", 1, 0, ScriptedRandom([]))
    assert "purify 1 corrupted spell" in night.summary and night.state["safe_nights"] == 1
    assert SYSTEM.advance_time(sheet, "sleep", 5, 0, ScriptedRandom([])).state["safe_nights"] == 2  # one a spell
    assert SYSTEM.advance_time(sheet, "hour", 8, 0, ScriptedRandom([])).state is None  # not said to be safe
    rested = Sheet(state=night.state)
    assert "purify" in [b.key for b in SYSTEM.banners(rested)]
    purified = SYSTEM.procedures()["purify"].roll(rested, {"spell": "0"}, ScriptedRandom([]))
    assert purified.state["safe_nights"] == 0 and not purified.state["spellbook"][0]["corrupted"]
    assert "purify" not in [b.key for b in SYSTEM.banners(Sheet(state=purified.state))]


def test_a_light_from_a_gear_bubble_is_one_the_clock_burns():
    """Seed 004, Gear Bubbles: any mundane gear; a torch comes out as a light source."""
    result = SYSTEM.procedures()["fill_bubble"].roll(_sheet(), {"item": "Torch"}, ScriptedRandom([]))
    (torch,) = result.items_added
    assert torch.kind == "light" and SYSTEM.validate_item(replace(torch, data={**torch.data, "lit": True}))


def test_unknown_time_unit_and_npc_roll_are_refused():
    """A readable refusal, nothing changed."""
    from rules.errors import RulesError

    with pytest.raises(RulesError):
        SYSTEM.advance_time(_sheet(), "watch", 1, 0, ScriptedRandom([]))
    with pytest.raises(RulesError):
        SYSTEM.npc_roll("morale", OGRE, ScriptedRandom([]))


def test_after_the_fight_names_what_to_restock_and_mend():
    """Seed 004, Ranged Attacks (out of ammunition: a bubble or half the cost), Armor Degradation (5 gp and a
    day a point; broken at 0) and Special Attacks (a feint is for the next round only)."""
    sling = Item("Small ranged weapon", "weapon", 1, 1, {"size": "small", "cost": 2, "out_of_ammunition": True})
    mail = Item("Medium armour", "armour", 2, 1, {"AC": 4, "current_AC": 2}, worn=True)
    shield = Item("Shield", "shield", 1, 1, {"AC": 1, "current_AC": 0}, worn=True)
    sheet = Sheet(state={**SYSTEM.default_state(), "feint": True, "bubbles": 1}, items=(sling, mail, shield))
    assert SYSTEM.end_of_combat() == "after_fight"
    after = SYSTEM.procedures()["after_fight"]
    result = after.roll(sheet, {}, ScriptedRandom([]))
    assert "gear bubble (4 left) or for 1 gp" in result.summary
    assert "AC 2 of 4: a blacksmith mends it for 10 gp and 2 days" in result.summary
    assert "Shield is broken for good" in result.summary
    assert result.state["feint"] is False and after.odds(sheet, {}).of("noted") == 1
    calm = after.roll(Sheet(state=SYSTEM.default_state()), {}, ScriptedRandom([]))
    assert calm.summary == "Nothing to restock or mend." and calm.state is None


def test_a_tracker_round_counts_down_the_rounds_out_cold():
    """Seed 004, Grit and Flesh: a passed save vs death means waking with 1 Flesh after 1d6 rounds: each of the
    tracker's rounds counts one; the last wakes them."""
    out = Sheet(state={**SYSTEM.default_state(), "out_rounds": 2, "flesh": 0})
    one = SYSTEM.round_passes(out, ScriptedRandom([]))
    assert one.state["out_rounds"] == 1 and "1 more round" in one.summary
    awake = SYSTEM.round_passes(out.with_state(one.state), ScriptedRandom([]))
    assert awake.state["out_rounds"] == 0 and awake.state["flesh"] == 1 and "Comes round" in awake.summary
    assert SYSTEM.round_passes(Sheet(state=SYSTEM.default_state()), ScriptedRandom([])).state is None
