"""Fortune's Favor at the GM's table (issue 16): the group test, NPCs, the round's phases and passing time.

Seed 003 (../shared/seeds/003_eeb4db86843669ac.txt) and rules-spec §003.4, §003.5, §003.6, §003.8, §003.9.
"""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import RulesError, Sheet, check_params
from rules.dice import ScriptedRandom
from rules.systems.fortunes_favor import SYSTEM
from rules.systems.fortunes_favor.state import health_max, stamina_max

GOBLIN = {"health": 8, "stamina": 2, "armor": 13, "counter": 8, "attack": 3, "damage": "2d6", "damage_bonus": 1}


def sheet(**changes) -> Sheet:
    """A level 1 Knight, Mettle 3: Health 18, Stamina 9."""
    state = SYSTEM.default_state()
    state.update(changes)
    return Sheet(state=SYSTEM.validate_state(state))


# --- seed 003, Group Tests (spec §003.4, §003.12) -------------------------------------------------------------


@pytest.mark.parametrize(
    ("outcomes", "group"),
    [
        (["pass", "pass", "mixed", "mixed", "fail"], "mixed"),  # net 1 Pass, not more than 2 Mixed
        (["pass", "pass", "pass", "mixed"], "pass"),
        (["pass", "fail", "fail", "fail"], "fail"),  # net 2 Fail beats 0 Mixed
        (["pass", "fail"], "mixed"),  # spec §003.11.7: Passes equal to Fails is Mixed
    ],
)
def test_a_test_asked_of_several_is_a_group_test_by_the_net_rule(outcomes, group):
    """Seed 003, Group Tests: the larger of Passes and Fails less the other; above the Mixed count it stands."""
    result = SYSTEM.group_result("test", outcomes)
    assert result is not None and result.outcome == group
    assert f"{outcomes.count('pass')} passed" in result.summary


def test_other_rolls_have_no_group_result():
    """Seed 003 makes only a Test a Group Test; a feat or an hour awake is each character's own."""
    assert SYSTEM.group_result("feat", ["pass", "fail"]) is None
    assert SYSTEM.group_result("test", []) is None


# --- NPCs: seed 003, Exchanges; Taking Damage; Engaged; spec §003.6 ------------------------------------------


def test_npc_stat_block_has_health_first_and_refuses_what_is_out_of_bounds():
    """Spec §003.6: a creature's Health (what damage lowers), Stamina, Armor, Counter, attack and damage."""
    fields = SYSTEM.npc_fields()
    assert [f.name for f in fields][:4] == ["health", "stamina", "armor", "counter"]
    block = type("Block", (), {"key": "npc", "label": "NPC", "params": lambda self, s: fields})()
    assert check_params(block, None, GOBLIN)["damage"] == "2d6"
    with pytest.raises(RulesError):
        check_params(block, None, {**GOBLIN, "health": 10**9})
    with pytest.raises(RulesError):
        check_params(block, None, {**GOBLIN, "damage": "1d7"})


def test_npc_damage_comes_off_health_armor_takes_nothing_off_and_zero_defeats():
    """Seed 003, Taking Damage: damage reduces Health, floored at 0; Armor only decides whether a blow lands.
    The brief's defeat: at 0 Health. The seed has no morale, so nothing prompts one."""
    hit = SYSTEM.npc_damage(GOBLIN, GOBLIN, 5)
    assert hit.stats["health"] == 3 and hit.dealt == 5 and not hit.defeated and not hit.morale
    assert hit.stats["armor"] == 13  # the rest of the block is kept
    down = SYSTEM.npc_damage(hit.stats, GOBLIN, 9, ignore_armour=True)
    assert down.stats["health"] == 0 and down.dealt == 3 and down.defeated and not down.morale
    assert down.words == "3 damage: Health 3 → 0."


def test_npc_attack_is_d20_plus_bonus_with_exact_odds_of_the_naturals():
    """Seed 003, Exchanges and 1s and 20s: d20 + attack bonus against the target's Armor and Counter; a natural
    20 always hits for double damage, a natural 1 always misses."""
    rolled = SYSTEM.npc_roll("attack", GOBLIN, ScriptedRandom([12, 3, 4]))
    assert rolled.outcome == "rolled" and rolled.total == 15
    assert "Armor is 15 or less (8 damage)" in rolled.summary  # 3 + 4 + 1
    assert rolled.odds is not None and rolled.odds.of("critical") == Fraction(1, 20)
    assert rolled.odds.of("rolled") == Fraction(9, 10) and rolled.odds.success == Fraction(19, 20)
    crit = SYSTEM.npc_roll("attack", GOBLIN, ScriptedRandom([20, 6, 6]))
    assert crit.outcome == "critical" and "double damage, 26" in crit.summary
    assert SYSTEM.npc_roll("attack", GOBLIN, ScriptedRandom([1, 2, 2])).outcome == "fumble"
    assert set(SYSTEM.npc_rolls()) == {"attack", "engaged_attack", "ranged_attack"}
    with pytest.raises(RulesError):
        SYSTEM.npc_roll("morale", GOBLIN, ScriptedRandom([]))


def test_an_engaged_monster_rolls_its_damage_a_step_down():
    """Seed 003, Engaging an Enemy: a non-boss monster's damage dice drop one step (2d6 → 1d12, spec §003.6)."""
    engaged = SYSTEM.npc_roll("engaged_attack", GOBLIN, ScriptedRandom([10, 12]))
    assert [d.sides for d in engaged.dice] == [20, 12] and "1d12" in engaged.summary


@settings(max_examples=40, deadline=None)
@given(st.integers(-10, 30), st.integers(0, 12), st.integers(0, 10**6))
def test_npc_attacks_land_only_on_outcomes_with_odds(bonus, rung, seed):
    """Every NPC attack's outcome has odds above 0, and its odds sum to 1 (Odds checks it)."""
    import random

    choice = SYSTEM.npc_fields()[5].choices[rung][0]
    result = SYSTEM.npc_roll("attack", {**GOBLIN, "attack": bonus, "damage": choice}, random.Random(seed))
    assert result.odds is not None and result.odds.of(result.outcome) > 0


# --- seed 003, Combat: 30 seconds in three phases; spec §003.6 --------------------------------------------------


def test_every_round_runs_the_three_phases_without_dice():
    """Seed 003, Combat: the surroundings, then every player in any order, then the enemies; 30 seconds."""
    order = SYSTEM.combat_order(3, ScriptedRandom([]))
    assert len(order.steps) == 3 and order.dice == ()
    assert order.steps[0].startswith("The surroundings") and order.steps[2].startswith("Every enemy")
    assert "Round 3" in order.summary
    assert SYSTEM.combat_round_seconds == 30
    assert SYSTEM.end_of_combat() is None  # the seed asks for nothing when a fight ends


def test_whose_turn_surroundings_then_players_then_enemies_seed_003_combat():
    """Seed 003, Combat (issue 36, item 6): the surroundings' step is nobody's turn, then every player's, then the
    enemies'; a round is 30 seconds of game time."""
    assert SYSTEM.combat_order(1, ScriptedRandom([])).sides == ("world", "party", "enemies")
    assert SYSTEM.combat_round_seconds == 30


# --- time: seed 003, A Night's Rest (sleep deprivation); Treacherous Terrain; Statuses; Quick Retrieval -------


def test_time_units_are_rounds_minutes_hours_terrain_hours_and_days():
    units = {u.key: u.length for u in SYSTEM.time_units()}
    assert units == {"round": 30, "minute": 60, "hour": 3600, "terrain": 3600, "day": 86400}


def test_each_hour_is_an_hour_awake_with_no_test_up_to_24():
    """Seed 003, A Night's Rest: only past 24 hours awake does an hour call for a test."""
    result = SYSTEM.advance_time(sheet(hours_awake=20), "hour", 4, 0, ScriptedRandom([]))
    assert result.state is not None and result.state["hours_awake"] == 24 and result.dice == ()
    assert "24 hours awake" in result.summary


def test_past_24_hours_each_hour_is_a_mettle_test_one_harder_each_hour():
    """Seed 003, A Night's Rest; spec §003.5 [REC]: hour 25 is 16/11, hour 26 is 17/12; Mixed −3 Stamina and
    max, Fail −7 (and Fortune's Favor); at 0 Stamina the character falls unconscious."""
    result = SYSTEM.advance_time(sheet(hours_awake=23), "hour", 3, 0, ScriptedRandom([12, 2]))
    state = result.state
    assert state is not None and state["hours_awake"] == 26
    # Mettle +3: 15 Mixed, then 5 Fail; the points in words, not the book's "16/11" (issue 26)
    assert "16 or more passes, 11 or more is mixed" in result.summary
    assert "17 or more passes, 12 or more is mixed" in result.summary
    assert state["stamina_max_lost"] == 10 and state["stamina"] == 0
    assert "Incapacitated" in state["statuses"] and state["fortunes_favor"] == 1
    assert [d.face for d in result.dice] == [12, 2]


def test_unconscious_or_asleep_hours_roll_nothing():
    """Seed 003: unconscious from sleeplessness, nobody tests; a Night's Rest under way is not time awake."""
    out = SYSTEM.advance_time(sheet(hours_awake=30, statuses={"Incapacitated": 0}), "hour", 2, 0, ScriptedRandom([]))
    assert out.state is not None and out.dice == ()
    asleep = SYSTEM.advance_time(sheet(hours_awake=30, resting="night"), "hour", 6, 0, ScriptedRandom([]))
    assert asleep.state is None and asleep.dice == ()


def test_a_day_counts_the_hours_it_crosses_from_the_clock():
    """rules.clock.boundaries: an hour unit from minute 30 crosses one hour mark per hour; a day 24."""
    result = SYSTEM.advance_time(sheet(hours_awake=0), "day", 1, 30, ScriptedRandom([]))
    assert result.state is not None and result.state["hours_awake"] == 24
    minutes = SYSTEM.advance_time(sheet(hours_awake=0), "minute", 20, 50, ScriptedRandom([]))
    assert minutes.state is not None and minutes.state["hours_awake"] == 1  # minute 50 → 70 passes 60


def test_treacherous_terrain_is_a_mettle_test_each_hour_costing_stamina():
    """Seed 003, Treacherous Terrain: Mettle 13/8 each hour; Mixed −1 Stamina, Fail −2 (and Fortune's Favor)."""
    result = SYSTEM.advance_time(sheet(), "terrain", 3, 0, ScriptedRandom([10, 6, 2]))
    state = result.state
    assert state is not None and "13 or more passes, 8 or more is mixed" in result.summary
    assert state["stamina"] == 9 - 0 - 1 - 2 and state["fortunes_favor"] == 1  # 13 pass, 9 mixed, 5 fail
    assert state["hours_awake"] == 3 and len(result.dice) == 3
    plain = SYSTEM.advance_time(sheet(), "hour", 3, 0, ScriptedRandom([]))
    assert plain.dice == ()


def test_statuses_with_a_duration_run_down_two_rounds_a_minute():
    """Seed 003, Combat (a round is 30 seconds) and Statuses: a timed status ends when its rounds have passed;
    one set until removed stays; Defend (until your next turn) ends."""
    start = sheet(statuses={"Rattled": 2, "Slowed": 5, "Prone": 0}, defending=True)
    result = SYSTEM.advance_time(start, "minute", 1, 0, ScriptedRandom([]))
    state = result.state
    assert state is not None and state["statuses"] == {"Slowed": 3, "Prone": 0} and not state["defending"]
    assert "No longer Rattled" in result.summary


def test_a_last_stand_refills_each_round_and_ends_in_death_after_five():
    """Seed 003, Last Stand: Health and Stamina full at each round's start; dead at the end of the fifth."""
    fighting = sheet(last_stand=2, health=3, stamina=1)
    one = SYSTEM.advance_time(fighting, "minute", 1, 0, ScriptedRandom([])).state
    assert one is not None and one["last_stand"] == 4 and one["health"] == health_max(one)
    assert one["stamina"] == stamina_max(one) and not one["dead"]
    two = SYSTEM.advance_time(fighting, "minute", 2, 0, ScriptedRandom([])).state
    assert two is not None and two["dead"]


def test_quick_retrieval_slots_outlast_days_and_only_an_r_and_r_frees_them():
    """Seed 003, Quick Retrieval: the item (and, spec §003.9 [REC], the 2 slots) last until the next R&R."""
    held = sheet(quick_retrieval=2)
    later = SYSTEM.advance_time(held, "day", 3, 0, ScriptedRandom([20] * 48))
    assert later.state is not None and later.state["quick_retrieval"] == 2
    assert "held by Quick Retrieval until an R&R" in later.summary
    rested = SYSTEM.procedures()["rest"].roll(held, {"kind": "rr", "finish": True}, ScriptedRandom([]))
    assert rested.state is not None and rested.state["quick_retrieval"] == 0


def test_the_dead_are_left_alone_and_unknown_units_refused():
    assert SYSTEM.advance_time(sheet(dead=True), "hour", 30, 0, ScriptedRandom([])).state is None
    with pytest.raises(RulesError):
        SYSTEM.advance_time(sheet(), "watch", 1, 0, ScriptedRandom([]))


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(["minute", "hour", "terrain", "day"]),
    st.integers(1, 30),
    st.integers(0, 10**6),
    st.integers(0, 1000),
    st.integers(0, 5),
    st.integers(0, 10**6),
)
def test_any_advance_leaves_a_valid_sheet(unit, count, start, awake, last_stand, seed):
    """Whatever time passes, the sheet it leaves is one the rules accept (hours awake stay within bounds)."""
    import random

    before = sheet(hours_awake=awake, last_stand=last_stand, statuses={"Rattled": 3})
    result = SYSTEM.advance_time(before, unit, count, start, random.Random(seed))
    if result.state is not None:
        assert SYSTEM.validate_state(result.state) == result.state


def test_the_npc_attack_outcomes_are_worded_for_the_log():
    """Seed 003, 1s and 20s: the log says "natural 20" and "natural 1", not our keys."""
    assert SYSTEM.outcome_label("critical") == "natural 20" and SYSTEM.outcome_label("fumble") == "natural 1"


# --- seed 003, Rounds and Statuses: the tracker's rounds and the fight's end (issue 16) -------------------------


def test_a_tracker_round_ticks_every_status_and_the_fight_ends_the_ones_still_counting():
    """Seed 003, Statuses and Rounds: durations count combat rounds; one on its last round ends at the next;
    0 lasts until removed. When the fight ends, what still counts rounds ends with it (Lantern's reading)."""
    held = sheet(statuses={"Prone": 1, "Rattled": 3, "Blind": 0}, defending=True)
    first = SYSTEM.round_passes(held, ScriptedRandom([]))
    assert first.state["statuses"] == {"Rattled": 2, "Blind": 0} and first.state["defending"] is False
    assert "Prone ends" in first.summary and "Defend ends" in first.summary
    over = SYSTEM.fight_ends(held.with_state(first.state), 1, ScriptedRandom([]))
    assert over.state["statuses"] == {"Blind": 0} and "Rattled ends" in over.summary
    counting = SYSTEM.round_passes(sheet(statuses={"Rattled": 3}), ScriptedRandom([]))
    assert counting.state["statuses"] == {"Rattled": 2} and "Rattled 2 more" in counting.summary
    calm = sheet(statuses={"Blind": 0})
    assert SYSTEM.round_passes(calm, ScriptedRandom([])).state is None
    assert SYSTEM.fight_ends(calm, 1, ScriptedRandom([])).state is None


def test_a_last_stand_refills_at_each_tracker_round_and_kills_after_the_fifth():
    """Seed 003, Last Stand; spec §003.6 [REC]: full Health and Stamina at the start of each round; dead at the end
    of the 5th."""
    standing = sheet(last_stand=2, health=1, stamina=1)
    refilled = SYSTEM.round_passes(standing, ScriptedRandom([]))
    assert refilled.state["last_stand"] == 3 and refilled.state["health"] == health_max(refilled.state)
    done = SYSTEM.round_passes(sheet(last_stand=5, health=3, stamina=3), ScriptedRandom([]))
    assert done.outcome == "dead" and done.state["dead"] is True


def test_the_players_own_new_round_is_refused_while_the_tracker_runs_the_fight():
    """Seed 003, Rounds: one new round at a time: the tracker starts it for everyone, not the player again."""
    fighting = Sheet(state=sheet(statuses={"Prone": 2}).state, table={"fight": True})
    with pytest.raises(RulesError, match="encounter tracker"):
        SYSTEM.procedures()["new_round"].roll(fighting, {}, ScriptedRandom([]))
    alone = SYSTEM.procedures()["new_round"].roll(sheet(statuses={"Prone": 2}), {}, ScriptedRandom([]))
    assert alone.state["statuses"] == {"Prone": 1}


def test_the_clock_has_the_seeds_30_second_round():
    """Seed 003, Combat: "each round of combat represents 30 seconds": a round is a clock unit of its own; a
    status lasting one round ends after it, and rounds that cross the hour (from 59:30) count an hour awake."""
    units = {u.key: u for u in SYSTEM.time_units()}
    assert units["round"].length == 30 and units["minute"].length == 60
    one = SYSTEM.advance_time(sheet(statuses={"Rattled": 1, "Slowed": 3}), "round", 1, 0, ScriptedRandom([]))
    assert one.state["statuses"] == {"Slowed": 2} and one.state["hours_awake"] == 0
    crossing = SYSTEM.advance_time(sheet(hours_awake=0), "round", 1, 59, ScriptedRandom([]), start_seconds=30)
    assert crossing.state["hours_awake"] == 1  # 59:30 + 30 s = 60:00
    short = SYSTEM.advance_time(sheet(hours_awake=0), "round", 1, 59, ScriptedRandom([]))
    assert short.state is None  # 59:00 + 30 s: still in the first hour
