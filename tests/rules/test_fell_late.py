"""Fell (late revision), seed 001: every rule the engine applies, with exact dice and exact odds.

"seed 001" is ../shared/seeds/001_9a541ab1b0476299.txt (its headings name the rule); "creation" is the published
creating-a-character.md @ 95e0caa (../shared/sources/fell-late-95e0caa/); "spec" is ../shared/rules-spec.md §001.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import SYSTEMS
from rules.base import Hireling, Item, RulesError, Sheet, check_params
from rules.data import fell_late as data
from rules.dice import ScriptedRandom
from rules.systems.fell_late import SYSTEM
from rules.systems.fell_late.checks import build_roll, contest_chances, pass_chance
from rules.systems.fell_late.combat import split_harm

P = SYSTEM.procedures()


def make_state(str_: int = 6, dex: int = 6, int_: int = 6, wil: int = 6, hp: int = 4, **extra: Any) -> dict[str, Any]:
    state = SYSTEM.default_state()
    state["attributes"] = {
        a: {"die": d, "original": d} for a, d in zip(("STR", "DEX", "INT", "WIL"), (str_, dex, int_, wil), strict=True)
    }
    state.update(hp=hp, hp_max=max(hp, extra.pop("hp_max", hp)), **extra)
    return SYSTEM.validate_state(state)


def sheet(state=None, items=(), hirelings=(), name="Ana", **settings_: Any) -> Sheet:
    return Sheet(state or make_state(), tuple(items), tuple(hirelings), name, settings=settings_)


def weapon(name: str, die: int, id_: int = 1, **more: Any) -> Item:
    return Item(name, "weapon", 2 if more.get("bulky") else 1, 1, {"damage": die, **more}, id=id_)


def rock(n: int, id_: int = 50) -> Item:
    return Item("rock", "gear", 1, n, {}, id=id_)


def run(key: str, sh: Sheet, faces, **params):
    proc = P[key]
    clean = check_params(proc, sh, {k: v for k, v in params.items() if not isinstance(v, Sheet)})
    clean.update({k: v for k, v in params.items() if isinstance(v, Sheet)})
    return proc.odds(sh, clean), proc.roll(sh, clean, ScriptedRandom(faces))


def odds(key: str, sh: Sheet, **params):
    proc = P[key]
    clean = check_params(proc, sh, {k: v for k, v in params.items() if not isinstance(v, Sheet)})
    clean.update({k: v for k, v in params.items() if isinstance(v, Sheet)})
    return proc.odds(sh, clean)


def test_registered():
    assert SYSTEMS["fell-late"] is SYSTEM


# --- spec §001.12 engine vectors ------------------------------------------------------------------


def _vector_slots():
    """STR d6 gives 12 item slots. Carrying 13 gives DIS and HP 0. Carrying 25 is not allowed."""
    sh = sheet(make_state(str_=6, hp=4))
    assert SYSTEM.slots(sh).maximum == 12
    over = sheet(make_state(str_=6, hp=4), items=[rock(13)])
    assert SYSTEM.slots(over).used == 13
    assert SYSTEM.sheet_facts(over)["hp_effective"] == 0
    assert "over your slots: DIS" in build_roll_notes(over)
    with pytest.raises(RulesError, match="nobody carries more than 24"):
        SYSTEM.check_can_carry(sheet(make_state(str_=6)), rock(25))


def build_roll_notes(sh: Sheet) -> tuple[str, ...]:
    _, result = run("test", sh, [1, 1], attribute="DEX")
    return tuple(result.details["notes"])


def _vector_two_skills():
    """A test with two applicable skills: DEX d6 enhanced twice to d10. With ADV, 2d10 keep the highest."""
    sh = sheet(make_state(dex=6, skills=["athletics", "survival"]))
    o, result = run("test", sh, [3, 9], attribute="DEX", skills=["athletics", "survival"], advantage=1)
    assert [(d.sides, d.face, d.kept) for d in result.dice] == [(10, 3, False), (10, 9, True)]
    assert o.of("pass") == 1 - Fraction(3, 10) ** 2


def _vector_d12_skill():
    """DEX d12 enhanced by one skill becomes d12 with ADV."""
    sh = sheet(make_state(dex=12, skills=["athletics"]))
    o, result = run("test", sh, [2, 11], attribute="DEX", skills=["athletics"])
    assert [(d.sides, d.kept) for d in result.dice] == [(12, False), (12, True)]
    assert o.of("pass") == 1 - Fraction(3, 12) ** 2


def _vector_two_attackers():
    """Longsword d8 rolls 7, dagger d4 (a second attacker) rolls 3: 7 + 1 = 8 against armour 2: 6 harm."""
    sh = sheet(make_state(), items=[weapon("longsword", 8)])
    _, result = run("attack", sh, [7, 3], weapon="1", others=1, others_die="4", target_armour=2)
    assert result.outcome == "6_harm" and result.total == 6


def _vector_critical():
    """At HP 0, 3 harm: STR d6 test rolls 2, fails; STR d4, out and dying. A second failure at d4 is death."""
    sh = sheet(make_state(str_=6, hp=0, hp_max=4))
    o, result = run("take_harm", sh, [2], amount=3, armour=False)
    assert result.outcome == "critical_fail"
    assert result.state["attributes"]["STR"]["die"] == 4 and result.state["out"]
    assert o.of("critical_fail") == Fraction(1, 2)
    again = sheet(result.state)
    o2, second = run("take_harm", again, [1], amount=1, armour=False)
    assert second.outcome == "dead" and second.state["dead"]
    assert o2.of("dead") == Fraction(3, 4)


VECTORS = {
    "slots": _vector_slots,
    "two skills": _vector_two_skills,
    "d12 skill": _vector_d12_skill,
    "two attackers": _vector_two_attackers,
    "critical harm": _vector_critical,
}


@pytest.mark.parametrize("vector", VECTORS)
def test_spec_001_12_engine_vectors(vector):
    """spec §001.12: every engine test vector passes as written."""
    VECTORS[vector]()


# --- the dice ladder, ENH/IMP and ADV/DIS -------------------------------------------------------------


@pytest.mark.parametrize(
    ("die", "steps", "net", "expected"),
    [
        (6, 1, 0, (8, 1, "highest")),
        (6, -1, 0, (4, 1, "highest")),
        (4, -1, 0, (0, 0, "highest")),
        (12, 2, 0, (12, 3, "highest")),
        (8, 0, -2, (8, 3, "lowest")),
        (8, 0, 1, (8, 2, "highest")),
        (8, 1, -1, (10, 2, "lowest")),
        (12, 1, -1, (12, 1, "highest")),
    ],
)
def test_ladder_steps_then_net_adv_dis(die, steps, net, expected):
    """seed 001 (Dice Ladder; ADV/DIS), spec §001.4 [REC]: steps first, past d12 ADV, then net extra dice."""
    roll = build_roll(die, steps, net)
    assert (roll.sides, roll.count, roll.how) == expected


def test_below_d4_fails_automatically():
    """seed 001 (Dice Ladder): a die lowered below d4 cannot be rolled; spec [REC]: the test fails."""
    sh = sheet(make_state(str_=4))
    o, result = run("test", sh, [], attribute="STR", impair=1)
    assert o.of("fail") == 1 and result.outcome == "fail" and result.dice == ()


def test_dn_is_4_by_default_and_the_gm_may_set_it():
    """seed 001 (Tests): DN usually 4; the GM may set another."""
    sh = sheet(make_state(str_=8))
    assert odds("test", sh, attribute="STR").of("pass") == Fraction(5, 8)
    assert odds("test", sh, attribute="STR", dn=7).of("pass") == Fraction(2, 8)
    with pytest.raises(RulesError):
        odds("test", sh, attribute="STR", dn=0)


def test_disadvantage_keeps_the_lowest():
    """seed 001 (ADV/DIS): with DIS roll another die and keep the lower."""
    sh = sheet(make_state(str_=6))
    o, result = run("test", sh, [6, 2], attribute="STR", disadvantage=1)
    assert result.outcome == "fail" and o.of("pass") == Fraction(3, 6) ** 2


def test_adv_and_dis_cancel_one_for_one():
    """spec §001.4 [REC]: net = ADV - DIS."""
    sh = sheet(make_state(str_=6))
    assert odds("test", sh, attribute="STR", advantage=2, disadvantage=2).of("pass") == Fraction(1, 2)


def test_background_counts_as_one_more_skill():
    """seed 001 (Skills): a task your background suits may add it as a skill."""
    sh = sheet(make_state(str_=6, skills=["athletics"]))
    assert odds("test", sh, attribute="STR", skills=["athletics"], background=True).of("pass") == Fraction(7, 10)


def test_fatigue_impairs_every_test_and_wil_impaired_until_dawn():
    """seed 001 (Deprivation and Fatigue; Spells): fatigue a step a level; WIL impaired after a drawback."""
    sh = sheet(make_state(str_=8, wil=8, fatigue=2, wil_impaired=True))
    assert odds("test", sh, attribute="STR").of("pass") == Fraction(1, 4)  # d8 -> d4
    assert odds("test", sh, attribute="WIL").of("pass") == 0  # d8 down three: below d4


def _skilled_hireling(name: str, id_: int) -> Hireling:
    return Hireling(name, "hireling", {**make_state(skills=["lore"]), "hireling": True, "hire_rank": "novice"}, 15, id_)


@pytest.mark.parametrize(("mode", "dice"), [("net", 3), ("one", 2)])
def test_helpers_with_a_skill_add_adv_and_the_setting_caps_it(mode, dice):
    """seed 001 (Help): each helper with a relevant skill grants ADV; spec §001.5.3: a setting caps it at one."""
    helpers = [_skilled_hireling("Bo", 1), _skilled_hireling("Cy", 2)]
    sh = sheet(make_state(str_=6), hirelings=helpers, help_stacking=mode)
    o, result = run("test", sh, [1] * dice, attribute="STR", helpers=["1", "2"])
    assert len(result.dice) == dice
    assert o.of("pass") == 1 - Fraction(1, 2) ** dice
    assert "Trouble comes for Bo, Cy too" in result.summary


def test_a_helper_without_a_skill_cannot_help():
    """seed 001 (Help): only someone with a relevant skill may help."""
    helper = Sheet(make_state(), name="Dee")
    with pytest.raises(RulesError, match="no skill"):
        odds("test", sheet(), attribute="STR", helper=helper)


def test_two_skills_and_a_character_helper_odds_exact():
    """seed 001 (Skills; Help): STR d6 with two skills is a d10, a helper adds a second d10."""
    helper = Sheet(make_state(skills=["lore"]), name="Dee")
    sh = sheet(make_state(str_=6, skills=["lore", "repair"]))
    o = odds("test", sh, attribute="STR", skills=["lore", "repair"], helper=helper)
    assert o.of("pass") == 1 - Fraction(3, 10) ** 2 == Fraction(91, 100)


# --- contests --------------------------------------------------------------------------------------


def test_contest_tie_goes_up_the_ladder():
    """seed 001 (Contests): equal results, the larger die wins."""
    win, lose, tie = contest_chances(build_roll(8, 0, 0), build_roll(6, 0, 0))
    assert tie == 0 and win == Fraction(1, 8) * sum(Fraction(min(x, 6), 6) for x in range(1, 9))


@pytest.mark.parametrize("mode", ["stands", "reroll"])
def test_contest_tiebreak_setting_changes_odds_and_rolls(mode):
    """spec §001.5.4 [REC]: a tie on equal dice stands, or (a table's setting) both roll again."""
    sh = sheet(make_state(str_=6), contest_tiebreak=mode)
    o = odds("contest", sh, attribute="STR", npc_die="6")
    if mode == "stands":
        assert (o.of("win"), o.of("tie")) == (Fraction(15, 36), Fraction(6, 36))
        _, result = run("contest", sh, [3, 3], attribute="STR", npc_die="6")
        assert result.outcome == "tie"
    else:
        assert (o.of("win"), o.of("tie")) == (Fraction(1, 2), 0)
        _, result = run("contest", sh, [3, 3, 5, 2], attribute="STR", npc_die="6")
        assert result.outcome == "win" and len(result.dice) == 4


def test_surprise_is_a_dex_contest():
    """seed 001 (Turns and Rounds): when surprised, a DEX contest decides who acts in the first round."""
    sh = sheet(make_state(dex=8))
    o, result = run("surprise", sh, [5, 5], npc_die="6")
    assert result.outcome == "win" and "first round" in result.summary
    assert o.of("win") == Fraction(1, 8) * sum(Fraction(min(x, 6), 6) for x in range(1, 9))


# --- reactions, leverage, morale, luck ----------------------------------------------------------------


def test_reaction_table():
    """seed 001 (Reactions): WIL 1-3 hostile, 4-5 wary, 6-7 indifferent, 8-9 friendly, 10-12 helpful."""
    sh = sheet(make_state(wil=12))
    o, result = run("reaction", sh, [9])
    assert result.outcome == "friendly" and o.of("helpful") == Fraction(3, 12) and o.of("hostile") == Fraction(3, 12)


def test_leverage_improves_the_reaction_on_a_win():
    """seed 001 (Leverage): win a WIL contest to improve the reaction."""
    _, result = run("leverage", sheet(make_state(wil=8)), [6, 2], reaction="Wary", npc_die="6")
    assert result.outcome == "improved" and "Indifferent" in result.summary


def test_morale_contest_then_wil_table():
    """seed 001 (Morale): this revision's triggers; WIL contest, then WIL on the table if you win."""
    sh = sheet(make_state(wil=8))
    assert [v for v, _ in P["morale"].params(sh)[0].choices] == ["first", "leader", "half", "lone"]
    o, result = run("morale", sh, [7, 2, 5], trigger="lone", npc_die="6")
    assert result.outcome == "retreat"
    win = Fraction(1, 8) * sum(Fraction(min(x, 6), 6) for x in range(1, 9))
    assert o.of("retreat") == win * Fraction(2, 8) and o.of("hold") == 1 - win


def test_luck_die_is_the_gms():
    """seed 001 (Luck): the referee rolls a luck die, usually a d6."""
    luck = SYSTEM.table_procedures()["luck"]
    o = luck.odds(None, check_params(luck, None, {}))
    assert (
        o.of("5") == Fraction(1, 6)
        and luck.roll(None, check_params(luck, None, {}), ScriptedRandom([6])).outcome == "6"
    )


# --- spells -------------------------------------------------------------------------------------------


def test_calm_casting_needs_no_roll():
    """seed 001 (Spells): several uninterrupted minutes, no roll."""
    sh = sheet(make_state(wil=8, spells=["Sleep"]))
    o, result = run("cast", sh, [], spell="Sleep", way="calm")
    assert o.of("cast") == 1 and result.dice == ()


@pytest.mark.parametrize(
    ("kind", "check"),
    [
        ("side_effect", lambda s: s["drawbacks"][-1]["until"] == "this casting"),
        ("lessened", lambda s: s["drawbacks"][-1]["kind"] == "lessened"),
        ("wil_impaired", lambda s: s["wil_impaired"] and s["drawbacks"][-1]["until"] == "dawn"),
        ("locked", lambda s: s["locked_spells"] == ["Sleep"]),
    ],
)
def test_hurried_failure_records_the_chosen_drawback(kind, check):
    """seed 001 (Spells): in a hurry a WIL test; a failure costs one of four drawbacks (spec [REC]: it still works)."""
    sh = sheet(make_state(wil=8, spells=["Sleep"]))
    o, result = run("cast", sh, [2], spell="Sleep", way="hurried", drawback=kind)
    assert result.outcome == "cast_with_drawback" and check(result.state)
    assert o.of("cast") == Fraction(5, 8)


def test_a_failure_left_to_choose_offers_the_four_drawbacks_then_records_the_choice():
    """seed 001 (Spells): "If you fail the test, choose one": offered after the roll, recorded with its expiry."""
    sh = sheet(make_state(wil=8, spells=["Sleep"]))
    _, failed = run("cast", sh, [1], spell="Sleep", way="hurried")
    assert failed.state["pending_drawback"] == "Sleep" and failed.state["drawbacks"] == []
    assert "side effect" in failed.summary and "until dawn" in failed.summary
    assert [b.key for b in SYSTEM.banners(sheet(failed.state))] == ["drawback"]
    _, chosen = run("choose_drawback", sheet(failed.state), [], drawback="locked")
    assert chosen.state["locked_spells"] == ["Sleep"] and chosen.state["pending_drawback"] == ""
    assert chosen.state["drawbacks"] == [{"spell": "Sleep", "kind": "locked", "until": "dawn"}]
    with pytest.raises(RulesError, match="No failed"):
        odds("choose_drawback", sheet(chosen.state))


def test_over_the_slots_attacks_roll_with_dis():
    """seed 001 (Item Slots): over the slots, DIS on every roll, attacks too."""
    sh = sheet(make_state(str_=4), items=[weapon("axe", 8, 1), rock(9)])
    assert odds("attack", sh, weapon="1").of("8_harm") == Fraction(1, 64)


def test_a_locked_spell_cannot_be_cast_and_dawn_clears_it():
    """seed 001 (Spells): locked until dawn; a night's rest brings the dawn."""
    sh = sheet(make_state(wil=8, spells=["Sleep"], locked_spells=["Sleep"], wil_impaired=True))
    with pytest.raises(RulesError):
        odds("cast", sh, spell="Sleep")
    _, rest = run("rest", sh, [], kind="night")
    assert rest.state["locked_spells"] == [] and not rest.state["wil_impaired"]


def test_an_unwilling_target_makes_it_a_contest():
    """seed 001 (Spells): an unwilling target may turn the test into a WIL contest."""
    sh = sheet(make_state(wil=8, spells=["Sleep"]))
    o, result = run("cast", sh, [3, 5], spell="Sleep", way="hurried", unwilling=True, npc_die="6", drawback="lessened")
    assert result.outcome == "resisted" and result.state["drawbacks"][-1]["kind"] == "lessened"
    assert o.of("cast") == Fraction(1, 8) * sum(Fraction(min(x, 6), 6) for x in range(1, 9))


# --- attacks and harm ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "harm", "hp", "armour", "expected"),
    [("once", 5, 2, 2, (2, 1)), ("hp_only", 5, 2, 2, (0, 3)), ("once", 2, 4, 3, (0, 0)), ("hp_only", 3, 4, 1, (2, 0))],
)
def test_armour_against_spill_setting(mode, harm, hp, armour, expected):
    """seed 001 (Armor): spec §001.6 [REC] armour once from the whole harm; the literal reading only off HP."""
    assert split_harm(harm, hp, armour, mode) == expected


def test_armour_setting_changes_take_harm_odds():
    """spec §5.1 fell.armor_applies_to_spill: the same blow is critical under one reading and not the other."""
    items = [Item("mail", "armour", 2, 1, {"armour": 2, "bulky": True}, worn=True, id=3)]
    once = sheet(make_state(hp=3), items=items, armour_spill="once")
    literal = sheet(make_state(hp=3), items=items, armour_spill="hp_only")
    assert odds("take_harm", once, amount=5).of("hp_harm") == 1
    assert odds("take_harm", literal, amount=5).of("critical_pass") == Fraction(1, 2)


def test_armour_never_above_3_and_items_refuse_more():
    """seed 001 (Armor): never beyond 3."""
    items = [
        Item("plate", "armour", 2, 1, {"armour": 2}, worn=True, id=1),
        Item("kite", "shield", 2, 1, {"armour": 1}, worn=True, id=2),
        Item("targe", "shield", 2, 1, {"armour": 1}, worn=True, id=3),
    ]
    assert SYSTEM.sheet_facts(sheet(items=items))["armour"] == 3
    with pytest.raises(RulesError, match="armour"):
        SYSTEM.validate_item(Item("magic plate", "armour", 2, 1, {"armour": 4}))


def test_two_weapons_of_one_attacker_add_no_harm_and_detachments():
    """seed 001 (Attacks; Detachments): extra weapons roll but add nothing; DIS against a detachment unless blast."""
    sh = sheet(items=[weapon("axe", 8, 1), weapon("knife", 4, 2), weapon("firebomb", 6, 3, blast=True)])
    _, result = run("attack", sh, [5, 4], weapon="1", second="2")
    assert result.outcome == "5_harm"
    o = odds("attack", sh, weapon="1", detachment=True)
    assert o.of("8_harm") == Fraction(1, 64)
    assert odds("attack", sh, weapon="3", detachment=True).of("6_harm") == Fraction(1, 6)


def test_npc_detachment_attacks_with_advantage():
    """seed 001 (Detachments): their attacks have ADV against individuals."""
    sh = sheet(make_state(hp=10))
    o = odds("npc_attack", sh, die="6", detachment=True)
    assert o.of("hp_harm") == 1


def test_pure_iron_breaks_on_a_1():
    """creation tables (Pure Iron Weapons): break on a 1."""
    sh = sheet(items=[weapon("pure-iron mace", 6, 9, pure_iron=True)])
    _, result = run("attack", sh, [1], weapon="9")
    assert result.items_removed == (9,)


def test_blast_rolls_each_target_and_the_count():
    """seed 001 (Blast): roll separately for each target; unsure how many, roll the weapon die."""
    sh = sheet(items=[weapon("firebomb", 6, 3, blast=True)])
    _, result = run("blast", sh, [2, 6, 1], weapon="3", armour=1)
    assert result.details["harms"] == [5, 0]
    assert result.outcome == "5_harm" and result.odds is not None and result.odds.of("5_harm") > 0


def test_blast_shows_exact_odds_of_the_total_harm():
    """seed 001 (Blast; Armor): each target's die less armour, summed; with the count unknown, the weapon's die
    says how many. Counted face by face against the odds shown before the roll."""
    sh = sheet(items=[weapon("firebomb", 6, 3, blast=True)])
    counted: dict[str, Fraction] = {}
    for a in range(1, 7):
        for b in range(1, 7):
            key = f"{max(0, a - 1) + max(0, b - 1)}_harm"
            counted[key] = counted.get(key, Fraction(0)) + Fraction(1, 36)
    assert dict(odds("blast", sh, weapon="3", targets=2, armour=1).outcomes) == counted
    unknown: dict[str, Fraction] = {}
    for faces in itertools.product(range(1, 7), repeat=7):  # the count, then up to six targets
        key = f"{sum(faces[1 : 1 + faces[0]])}_harm"
        unknown[key] = unknown.get(key, Fraction(0)) + Fraction(1, 6**7)
    assert dict(odds("blast", sh, weapon="3").outcomes) == unknown


def test_attack_on_a_character_harms_them():
    """seed 001 (Attacks): harm first to HP, then to STR."""
    target = Sheet(make_state(hp=2), name="Foe")
    sh = sheet(items=[weapon("sword", 8, 1)])
    _, result = run("attack", sh, [6, 5], weapon="1", target=target)
    assert result.other_states["target"]["hp"] == 0 and result.outcome == "6_harm"


# --- rest, deprivation, fatigue -----------------------------------------------------------------------


def test_rest_restores_hp_unless_deprived_and_week_raises_a_step():
    """seed 001 (Healing and Rest; Deprivation): minutes -> all HP; a week -> one lowered attribute a step."""
    state = make_state(hp=1, hp_max=5)
    state["attributes"]["STR"] = {"die": 4, "original": 8}
    _, rest = run("rest", sheet(state), [], kind="minutes")
    assert rest.state["hp"] == 5
    _, week = run("rest", sheet(state), [], kind="week", attribute="STR")
    assert week.state["attributes"]["STR"]["die"] == 6
    with pytest.raises(RulesError, match="Deprived"):
        odds("rest", sheet({**state, "deprived": True}), kind="minutes")


def test_deprivation_past_a_day_fatigues_and_a_night_removes_a_level():
    """seed 001 (Deprivation and Fatigue)."""
    _, one = run("deprivation", sheet(), [], days=1)
    assert one.state["fatigue"] == 0
    _, three = run("deprivation", sheet(one.state), [], days=2)
    assert three.state["fatigue"] == 2
    _, night = run("rest", sheet(three.state), [], kind="night")
    assert night.state["fatigue"] == 1


def test_a_comfortable_night_also_brings_all_hp_back():
    """seed 001 (Healing and Rest): "whenever you take several minutes to rest, recover all your HP" — a night
    holds several minutes, and its full stomach ends deprivation. Before: HP 1 of 5 stayed 1 after a night;
    now 5. Someone taken out still needs treatment first."""
    _, night = run("rest", sheet(make_state(hp=1, hp_max=5)), [], kind="night")
    assert night.state["hp"] == 5 and "HP back to 5" in night.summary
    hungry = make_state(hp=1, hp_max=5, deprived=True, days_deprived=3, fatigue=2)
    _, fed = run("rest", sheet(hungry), [], kind="night")
    assert (fed.state["hp"], fed.state["fatigue"], fed.state["deprived"]) == (5, 1, False)
    _, out = run("rest", sheet(make_state(hp=0, hp_max=5, out=True)), [], kind="night")
    assert out.state["hp"] == 0


# --- advancement --------------------------------------------------------------------------------------


def test_thresholds_once_each_in_order_with_gains():
    """seed 001 (Advancement): 1,000 novice: HP and an attribute; 3,000 professional: HP only. The hoard is
    compared with every threshold, so one return with 3,500 C reaches both ranks (it used to take two)."""
    sh = sheet(make_state(hp=3))
    _, first = run("advance", sh, [], plunder=3500, attribute="STR")
    assert first.outcome == "reached_professional" and first.state["advances"] == 2
    assert first.state["hp_max"] == 5  # +1 at novice, +1 at professional
    assert first.state["attributes"]["STR"] == {"die": 8, "original": 8}
    with pytest.raises(RulesError):
        odds("advance", sheet(first.state), plunder=0)
    _, more = run("advance", sheet(first.state), [], plunder=100)
    assert more.outcome == "hoard_grows" and "Next threshold: 6,000 C (expert)" in more.summary
    assert [t[0] for t in data.THRESHOLDS] == [1000, 3000, 6000, 10000, 15000, 21000]


def test_one_return_of_21000_reaches_every_rank_with_each_raise_chosen():
    """seed 001 (Advancement): "If your hoard is worth... 21,000 C" — all six ranks in one return: four HP
    gains (novice, professional, veteran, legend) and four raises (novice, expert, master, legend), each raise
    to the attribute named for it, a blank one repeating the raise before. Before: novice only, five more
    "advance" rolls to reach the rest."""
    sh = sheet(make_state(str_=6, dex=6, int_=6, wil=6, hp=4))
    faces: list[int] = []
    assert odds("advance", sh, plunder=21000, attribute="STR", attribute_2="DEX").outcomes[0][0] == "reached_legend"
    _, result = run("advance", sh, faces, plunder=21000, attribute="STR", attribute_2="DEX", legend="retire")
    state = result.state
    assert result.outcome == "reached_legend" and state["advances"] == 6 and state["hoard"] == 21000
    assert state["hp_max"] == 8 and state["hp"] == 8
    # STR once (novice); DEX at expert, then "the same" at master and legend: d6 → d8 → d10 → d12.
    assert {a: e["original"] for a, e in state["attributes"].items()} == {"STR": 8, "DEX": 12, "INT": 6, "WIL": 6}
    assert state["legend_choice"] == "retire"
    assert "Reached 1,000 C: novice." in result.summary and "Reached 21,000 C: legend." in result.summary


def test_each_rank_reached_at_once_rolls_its_own_dex_die_under_that_setting():
    """spec §001.10 [REC] setting "dex_roll", seed 001 (Advancement): novice and professional in one return roll
    the DEX die once each: 6 beats maximum HP 4 (→ 6), then 2 does not (+1 → 7)."""
    _, result = run("advance", sheet(make_state(hp=4, dex=6), hp_gain="dex_roll"), [6, 2], plunder=3000)
    assert [d.face for d in result.dice] == [6, 2] and result.state["hp_max"] == 7


def test_several_raises_stop_at_d12_with_a_sentence():
    """spec §001.10 [REC]: a raise stops at d12; the third raise on a d10 attribute is refused, whole."""
    sh = sheet(make_state(str_=10))
    with pytest.raises(RulesError, match="STR is already a d12"):
        odds("advance", sh, plunder=21000, attribute="STR")
    _, ok = run("advance", sh, [], plunder=21000, attribute="STR", attribute_2="DEX")
    assert ok.state["attributes"]["STR"]["original"] == 12 and ok.state["attributes"]["DEX"]["original"] == 12


def test_sheet_says_a_rank_is_due_when_the_hoard_already_earns_one():
    """seed 001 (Advancement): a hoard set past a threshold by hand shows "Ready to advance" until advanced."""
    due = sheet(make_state(hoard=6500))
    banner_keys = [b.key for b in SYSTEM.banners(due)]
    assert "advance" in banner_keys
    _, result = run("advance", due, [], plunder=0, attribute="STR", attribute_2="INT")
    assert result.state["advances"] == 3
    assert "advance" not in [b.key for b in SYSTEM.banners(sheet(result.state))]


@pytest.mark.parametrize(("mode", "faces", "hp_max"), [("one", [], 4), ("dex_roll", [6], 6), ("dex_roll", [2], 4)])
def test_hp_gain_setting(mode, faces, hp_max):
    """spec §001.10 [REC]: +1 HP, or roll the DEX die and take it if above maximum HP."""
    sh = sheet(make_state(hp=3, dex=6), hp_gain=mode)
    _, result = run("advance", sh, faces, plunder=1000)
    assert result.state["hp_max"] == hp_max


def test_raise_stops_at_d12():
    """spec §001.10 [REC]: a raised attribute stops at d12."""
    with pytest.raises(RulesError, match="d12"):
        odds("advance", sheet(make_state(str_=12)), plunder=1000, attribute="STR")


# --- limits -------------------------------------------------------------------------------------------


def test_a_fifth_skill_past_int_d4_and_a_spell_past_wil_are_refused():
    """seed 001 (Skills; Spells): as many as INT / WIL."""
    sh = sheet(make_state(int_=4, wil=4, skills=["a", "b", "c", "d"], spells=["A", "B", "C", "D"]))
    with pytest.raises(RulesError, match="INT"):
        odds("learn_skill", sh, skill="lore")
    with pytest.raises(RulesError, match="WIL"):
        odds("learn_spell", sh, spell="Sleep")


def test_hirelings_up_to_wil_with_fees_by_rank():
    """seed 001 (Hirelings): made like PCs, at most WIL; daily fee by rank; paid up front."""
    sh = sheet(make_state(wil=4, coins=500), hirelings=[_skilled_hireling(f"H{n}", n) for n in range(3)])
    hired = SYSTEM.hire(sh, {"rank": "master"}, random.Random(1))
    assert (hired.wage, hired.upfront, hired.state["paid_up"]) == (240, 240, True)
    assert data.HIRELING_FEES == {
        "untrained": 5,
        "novice": 15,
        "professional": 30,
        "expert": 60,
        "veteran": 120,
        "master": 240,
    }
    full = sheet(make_state(wil=4), hirelings=[_skilled_hireling(f"H{n}", n) for n in range(4)])
    with pytest.raises(RulesError, match="WIL"):
        SYSTEM.hire(full, {}, random.Random(1))


@pytest.mark.parametrize("pay", ["true", "yes", "1", "False"])
def test_hiring_takes_pay_as_a_yes_or_no_only(pay):
    """seed 001 (Hirelings): whether the first day is paid up front is a yes or a no; text is refused, as every
    other yes/no input is (issue 23), rather than read as a yes."""
    sh = sheet(make_state(wil=4, coins=500))
    with pytest.raises(RulesError, match="yes or no"):
        SYSTEM.hire(sh, {"rank": "novice", "pay": pay}, random.Random(1))
    assert SYSTEM.hire(sh, {"rank": "novice", "pay": False}, random.Random(1)).upfront == 0


def test_shares_and_unpaid_orders():
    """seed 001 (Hirelings): an equal share minus fees paid; unpaid, a WIL contest for danger."""
    h = Hireling("Bo", "hireling", {**make_state(wil=6), "hireling": True, "fees_paid": 30}, 15, 1)
    sh = sheet(make_state(wil=8), hirelings=[h])
    _, share = run("shares", sh, [], plunder=300, pcs=2)
    assert share.details["shares"] == {"Bo": 70}
    o, order = run("order_hireling", sh, [6, 6], hireling="1")
    assert order.outcome == "obeys" and o.of("obeys") == Fraction(1, 8) * sum(
        Fraction(min(x, 6), 6) for x in range(1, 9)
    )


# --- creation -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("face", "die"), [(1, 4), (2, 4), (3, 6), (6, 6), (7, 8), (8, 8)])
def test_creation_attribute_die_from_d8(face, die):
    """creation: d8 per attribute in order, 1-2 d4, 3-6 d6, 7-8 d8; HP from the DEX die."""
    rng = ScriptedRandom([face, 4, 4, 4, 3, 1, 1, 1, 1])  # STR, DEX, INT, WIL, HP (DEX d6), background, 3d6 coin
    c = SYSTEM.create({"name": "Ana", "age": 30, "alignment": "Lawful", "drive": data.DRIVES[0], "traits": "none"}, rng)
    assert c.state["attributes"]["STR"] == {"die": die, "original": die} and c.state["hp"] == 3
    assert c.state["background"] == "Alchemist" and c.state["coins"] == 3 and rng.remaining == 0
    assert {i.name for i in c.items} >= {"firebomb", "rations (1 day)", "torch (1 hour)"}


def test_creation_every_roll_shown():
    """creation: name, attributes, HP, background, coin, age, alignment, drive and traits, each with its dice."""
    c = SYSTEM.create({}, random.Random(4))
    labels = {r.label for r in c.rolls}
    assert {
        "Name",
        "Attribute dice",
        "Hit protection",
        "Background",
        "Coin",
        "Age",
        "Alignment",
        "Drive",
        "Traits",
    } <= labels
    assert all(r.dice for r in c.rolls)


def test_creation_d6_each_with_steps_moved_and_fixed_hp():
    """creation: d6 in each, lowering some to raise others the same number of steps; fixed HP by DEX."""
    c = SYSTEM.create(
        {
            "attributes": "assign",
            "move_STR": "-1",
            "move_INT": "-1",
            "move_DEX": "2",
            "hp": "fixed",
            "background": "Bard",
        },
        random.Random(2),
    )
    assert {a: v["die"] for a, v in c.state["attributes"].items()} == {"STR": 4, "DEX": 10, "INT": 4, "WIL": 6}
    assert c.state["hp"] == 5 and c.state["skills"] == ["performance"]
    with pytest.raises(RulesError, match="must match"):
        SYSTEM.create({"attributes": "assign", "move_STR": "1"}, random.Random(2))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32))
def test_creation_valid_for_every_seed(seed):
    """creation: any dice give a valid sheet within the carry limit."""
    c = SYSTEM.create({}, random.Random(seed))
    SYSTEM.validate_sheet(Sheet(c.state, c.items))
    assert (c.state["spells"] != []) == (c.state["attributes"]["WIL"]["die"] == 8)


@settings(max_examples=60, deadline=None)
@given(
    die=st.sampled_from([4, 6, 8, 10, 12]),
    steps=st.integers(-5, 5),
    net=st.integers(-5, 5),
    other=st.sampled_from([0, 4, 6, 8, 10, 12]),
    dn=st.integers(1, 20),
)
def test_odds_are_exact_and_sum_to_one(die, steps, net, other, dn):
    """seed 001 (Tests; Contests): exact Fractions in [0, 1]; contests sum to 1."""
    roll = build_roll(die, steps, net)
    assert 0 <= pass_chance(roll, dn) <= 1
    theirs = build_roll(other, 0, 0) if other else build_roll(4, -1, 0)
    assert sum(contest_chances(roll, theirs)) == 1


def test_every_procedure_names_its_seed_rule():
    for proc in (*P.values(), *SYSTEM.table_procedures().values()):
        doc = (type(proc).__doc__ or "").lower()
        assert "seed 001" in doc or "creation" in doc, proc.key


def test_quick_rolls_labels_and_details():
    """seed 001 (Tests): one-tap tests of each attribute; the history and log name fields and outcomes in words."""
    sh = sheet()
    assert [q.params["attribute"] for q in SYSTEM.quick_rolls(sh)] == ["STR", "DEX", "INT", "WIL"]
    assert SYSTEM.field_label("attributes.STR.die") == "STR die"
    assert SYSTEM.field_label("attributes.WIL.original") == "WIL original die"
    assert SYSTEM.outcome_label("critical_fail") == "critical harm, attribute lowered and taken out"
    assert SYSTEM.outcome_label("3_harm") == "3 harm"
    state = SYSTEM.with_details(sh, {"alignment": "Lawful", "drive": "to pay off debts or obligations", "age": 40})
    assert (state["alignment"], state["age"]) == ("Lawful", 40)


def test_settings_declared_with_allowed_values():
    """spec §5.1: help stacking, armour against spill, HP gained, contest tie-break; a value outside is refused."""
    lights = ["light_new", "light_one_at_a_time", "light_warning"]  # the table's light rules (issue 41)
    assert [s.key for s in SYSTEM.rule_settings()] == [
        "help_stacking",
        "armour_spill",
        "hp_gain",
        "contest_tiebreak",
        *lights,
    ]
    with pytest.raises(RulesError, match="choose one of"):
        SYSTEM.validate_settings({"armour_spill": "twice"})


@settings(max_examples=40, deadline=None)
@given(
    die=st.sampled_from(["4", "6", "8", "10", "12"]),
    attackers=st.integers(1, 20),
    detachment=st.booleans(),
    hp=st.integers(0, 12),
    str_=st.sampled_from([4, 6, 8, 10, 12]),
    mode=st.sampled_from(["once", "hp_only"]),
)
def test_harm_odds_sum_to_one(die, attackers, detachment, hp, str_, mode):
    """seed 001 (Attacks; Harm and Death): exact odds of every harm outcome, for any attack."""
    sh = sheet(make_state(str_=str_, hp=hp), armour_spill=mode)
    o = odds("npc_attack", sh, die=die, attackers=attackers, detachment=detachment)
    assert sum(p for _, p in o.outcomes) == 1 and all(p > 0 for _, p in o.outcomes)
