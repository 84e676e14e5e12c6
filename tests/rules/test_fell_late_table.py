"""Fell (late) at the GM's table (issue 16): NPCs, the round's order, time, light, food, dawn and the luck die.

Seed 001 (../shared/seeds/001_9a541ab1b0476299.txt) and rules-spec §001.2, §001.5-§001.7, §001.9, §001.11.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.base import Item, RulesError, Sheet
from rules.dice import ScriptedRandom
from rules.systems.fell_late import SYSTEM

TORCH = Item("torch (1 hour)", "light", 1, 2, {"lit": True}, id=1)
LANTERN = Item("lantern & oil (4 hours)", "light", 1, 1, {"lit": True, "burned": 200}, id=3)
RATIONS = Item("rations (1 day)", "ration", 1, 2, {}, id=2)
GOBLIN = {"hp": 2, "armour": 0, "str_die": "4", "attack_die": "4", "wil_die": "4", "role": "group"}


def _sheet(items=(), **state):
    return Sheet(state={**SYSTEM.default_state(), **state}, items=tuple(items))


def test_npc_defaults_are_the_bestiary_s():
    """Spec §001.2, NPC defaults: 4 HP, no armour, d6 attributes; armour never above 3 (seed 001, Armor)."""
    fields = {p.name: p for p in SYSTEM.npc_fields()}
    assert SYSTEM.npc_fields()[0].name == "hp" and fields["hp"].default == 4
    assert fields["armour"].default == 0 and fields["armour"].maximum == 3
    assert fields["str_die"].default == fields["attack_die"].default == fields["wil_die"].default == "6"


def test_the_party_acts_first_as_a_group_and_surprise_is_for_round_one():
    """Seed 001, Turns and Rounds: PCs act first and as a group; surprise is a DEX contest for the first round."""
    first = SYSTEM.combat_order(1, ScriptedRandom([]))
    assert first.steps[0] == "The party acts, as a group" and first.dice == () and "DEX contest" in first.summary
    assert "DEX" not in SYSTEM.combat_order(2, ScriptedRandom([])).summary


def test_whose_turn_the_party_then_the_enemies_seed_001_turns_and_rounds():
    """Seed 001, Turns and Rounds (issue 36, item 6): PCs act first and as a group, every round; then the enemies."""
    for round_number in (1, 2, 7):
        assert SYSTEM.combat_order(round_number, ScriptedRandom([])).sides == ("party", "enemies")


def test_harm_less_armour_goes_to_hp_then_calls_for_the_str_test():
    """Seed 001, Attacks and Armor (spec §001.6 [REC]: armour off the whole harm once); Harm and Death."""
    ogre = {**GOBLIN, "hp": 5, "armour": 2, "str_die": "8"}
    hit = SYSTEM.npc_damage(ogre, ogre, 4)
    assert hit.stats["hp"] == 3 and hit.dealt == 2 and not hit.morale and not hit.defeated
    through = SYSTEM.npc_damage(hit.stats, ogre, 7)
    assert through.stats["hp"] == 0 and through.dealt == 5
    assert "2 critical harm" in through.words and "STR d8" in through.words
    assert SYSTEM.npc_damage(ogre, ogre, 2).dealt == 0
    assert SYSTEM.npc_damage(ogre, ogre, 2, ignore_armour=True).dealt == 2


def test_morale_triggers_of_this_revision():
    """Seed 001, Morale: a lone enemy's HP to zero (spec §001.11.9 [REC]: at that moment); a leader or the first
    enemy defeated; 000's 'brought to half' is no trigger here."""
    lone = {**GOBLIN, "hp": 4, "role": "lone"}
    assert not SYSTEM.npc_damage(lone, lone, 2).morale  # half its HP: nothing in this revision
    zero = SYSTEM.npc_damage(lone, lone, 4)
    assert zero.morale and "Enemy morale" in zero.words and "WIL d4" in zero.words
    leader = {**GOBLIN, "role": "leader"}
    assert not SYSTEM.npc_damage(leader, leader, 2).morale  # at 0 HP, not yet defeated
    falls = SYSTEM.npc_damage(leader, leader, 3)
    assert falls.morale and "their leader" in falls.words


def test_an_npc_attack_rolls_its_attack_die_with_exact_odds():
    """Seed 001, Attacks: no hit roll; the weapon's die is the harm before armour."""
    attack = SYSTEM.npc_roll("attack", {**GOBLIN, "attack_die": "8"}, ScriptedRandom([7]))
    assert attack.total == 7 and attack.odds.outcomes[0] == ("1", Fraction(1, 8))
    assert sum(p for _, p in attack.odds.outcomes) == 1


def test_the_critical_harm_test_is_str_at_dn_4():
    """Seed 001, Harm and Death; spec §001.11.7 [REC]: DN 4; a fail lowers STR a step, below d4 is death."""
    d6 = SYSTEM.npc_roll("critical", {**GOBLIN, "str_die": "6"}, ScriptedRandom([3]))
    assert d6.outcome == "taken_out" and "d4" in d6.summary
    assert dict(d6.odds.outcomes) == {"holds": Fraction(1, 2), "taken_out": Fraction(1, 2)}
    d4 = SYSTEM.npc_roll("critical", GOBLIN, ScriptedRandom([4]))
    assert d4.outcome == "holds" and dict(d4.odds.outcomes)["dead"] == Fraction(3, 4)
    assert SYSTEM.npc_roll("critical", GOBLIN, ScriptedRandom([1])).outcome == "dead"
    with pytest.raises(RulesError):
        SYSTEM.npc_roll("reaction", GOBLIN, ScriptedRandom([]))


def test_a_torch_burns_an_hour_and_a_lantern_four():
    """Spec §001.2, the price list: torch (1 hour), lantern & oil (4 hours); exploration rounds are 10 minutes."""
    half = SYSTEM.advance_time(_sheet([TORCH]), "exploration", 3, 0, ScriptedRandom([]))
    assert half.items_changed[0].data["burned"] == 30 and half.state is None
    out = SYSTEM.advance_time(_sheet([TORCH, LANTERN]), "travel", 1, 0, ScriptedRandom([]))
    torch, lantern = out.items_changed
    assert torch.quantity == 1 and torch.data["lit"] is False and "burned out" in out.summary
    assert lantern.data["lit"] is False and "refilling" in out.summary  # 200 + 60 minutes passes 4 hours


def test_a_ration_a_day_then_deprivation_and_fatigue():
    """Spec §001.2: rations by the day; seed 001, Deprivation and Fatigue: fatigued past the first day."""
    fed = SYSTEM.advance_time(_sheet([RATIONS]), "day", 1, 0, ScriptedRandom([]))
    assert fed.items_changed[0].quantity == 1 and fed.state is None
    gone = SYSTEM.advance_time(_sheet([RATIONS]), "day", 2, 0, ScriptedRandom([]))
    assert gone.items_removed == (2,)
    starving = SYSTEM.advance_time(_sheet([RATIONS]), "day", 4, 0, ScriptedRandom([]))
    assert starving.state["deprived"] and starving.state["days_deprived"] == 2 and starving.state["fatigue"] == 1
    # the clock passing midnight mid-way counts one day; fed again, deprivation ends but fatigue stays
    hungry = _sheet([RATIONS], deprived=True, days_deprived=3, fatigue=2)
    again = SYSTEM.advance_time(hungry, "travel", 2, 23 * 60, ScriptedRandom([]))
    assert not again.state["deprived"] and again.state["fatigue"] == 2


def test_dawn_ends_a_hurried_casting_s_drawbacks():
    """Seed 001, Spells: WIL impaired and a spell locked 'until dawn' (taken as 06:00 on the game clock)."""
    drawn = _sheet(
        [],
        spells=["Light"],
        wil_impaired=True,
        locked_spells=["Light"],
        drawbacks=[
            {"spell": "Light", "kind": "locked", "until": "dawn"},
            {"spell": "Light", "kind": "lessened", "until": "this casting"},
        ],
    )
    night = SYSTEM.advance_time(drawn, "travel", 5, 0, ScriptedRandom([]))
    assert night.state is None  # 00:00 to 05:00
    dawn = SYSTEM.advance_time(drawn, "travel", 1, 5 * 60, ScriptedRandom([]))
    assert not dawn.state["wil_impaired"] and dawn.state["locked_spells"] == []
    assert [d["kind"] for d in dawn.state["drawbacks"]] == ["lessened"] and "Dawn" in dawn.summary


def test_the_luck_die_at_the_start_of_each_exploration_and_travel_round():
    """Seed 001, Luck: a d6 at the start of each exploration and travel round; none for a whole day."""
    checks = SYSTEM.time_checks("exploration", 2, 0, ScriptedRandom([2, 6]))
    assert [r.total for r in checks] == [2, 6] and checks[0].procedure == "luck"
    assert all(sum(p for _, p in r.odds.outcomes) == 1 for r in checks)
    assert SYSTEM.time_checks("day", 1, 0, ScriptedRandom([])) == ()


def test_light_level_and_the_light_procedure():
    """A lit light is an item's data (rules/clock.py); Fell items accept it, and a player lights a torch."""
    assert SYSTEM.validate_item(TORCH).data == {"lit": True}
    assert SYSTEM.light_level([_sheet([TORCH])]).key == "lit"
    assert SYSTEM.light_level([_sheet()]).key == "dark"
    unlit = Item("torch (1 hour)", "light", 1, 3, {}, id=5)
    result = SYSTEM.procedures()["light"].roll(_sheet([unlit]), {"source": "5", "lit": True}, ScriptedRandom([]))
    assert result.items_changed[0].data["lit"] is True


def test_a_background_s_lantern_is_a_light():
    """Spec §001.2: a Gravedigger's or Miner's plain 'lantern' burns on the clock like the price list's."""
    from rules.systems.fell_late.catalogue import source_item

    assert source_item("lantern").kind == "light" and source_item("torch (1 hour)").kind == "light"


def test_a_detachment_attacks_with_advantage_and_breaks_at_half_its_force():
    """Seed 001, Detachments: ADV and blast on its attacks; Morale: their force reduced by half."""
    band = {**GOBLIN, "hp": 8, "attack_die": "6", "role": "detachment"}
    attack = SYSTEM.npc_roll("attack", band, ScriptedRandom([2, 5]))
    assert attack.total == 5 and len(attack.dice) == 2 and "blast" in attack.summary
    assert dict(attack.odds.outcomes)["6"] == Fraction(11, 36)
    assert not SYSTEM.npc_damage(band, band, 3).morale
    half = SYSTEM.npc_damage(band, band, 4)
    assert half.morale and "force is down by half" in half.words


def test_critical_harm_rolls_its_str_test_at_once_and_a_failure_takes_the_npc_out():
    """Seed 001, Harm and Death: harm past HP is critical harm and calls for a STR test (DN 4, spec §001.11.7
    [REC]); a failure lowers STR a step and takes the NPC out of the fight (defeated), below d4 it is dead. The
    table rolls it as it types the damage: the roll comes back to be logged as the GM's."""
    ogre = {**GOBLIN, "hp": 1, "str_die": "8"}
    holds = SYSTEM.npc_damage(ogre, ogre, 3, rng=ScriptedRandom([5]))
    assert [r.outcome for r in holds.rolls] == ["holds"] and not holds.defeated and holds.stats["str_die"] == "8"
    out = SYSTEM.npc_damage(ogre, ogre, 3, rng=ScriptedRandom([2]))
    assert out.defeated and out.stats["str_die"] == "6" and out.stats["hp"] == 0 and out.morale
    assert out.rolls[0].odds.of("holds") == Fraction(5, 8) and "taken out" in out.words
    dead = SYSTEM.npc_damage(GOBLIN, GOBLIN, 5, rng=ScriptedRandom([1]))
    assert dead.defeated and dead.rolls[0].outcome == "dead" and dead.stats["str_die"] == "4"
    # No dice given (a preview): the GM is told to roll it, nothing decided.
    asked = SYSTEM.npc_damage(ogre, ogre, 3)
    assert asked.rolls == () and not asked.defeated and "roll its Critical harm test" in asked.words
    # Harm that stays within HP rolls nothing.
    assert SYSTEM.npc_damage(ogre, ogre, 1, rng=ScriptedRandom([])).rolls == ()


def test_the_gms_critical_harm_test_returns_the_npcs_new_stats():
    """Seed 001, Harm and Death: the tracker's own button gives the lowered STR die and the defeat."""
    out = SYSTEM.npc_roll("critical", {**GOBLIN, "str_die": "6"}, ScriptedRandom([2]))
    assert out.state == {**GOBLIN, "str_die": "4"} and out.details["defeated"] is True
    held = SYSTEM.npc_roll("critical", {**GOBLIN, "str_die": "6"}, ScriptedRandom([6]))
    assert held.state is None and held.details["defeated"] is False
