"""Fortune's Favor (rules 1b): every rule names seed 003 (../shared/seeds/003_eeb4db86843669ac.txt) and its
section, or the rules-spec §003 reading it follows."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import Item, RulesError, Sheet, check_params
from rules.dice import ScriptedRandom, dice_label
from rules.systems.fortunes_favor import SYSTEM
from rules.systems.fortunes_favor.checks import contest_result, group_result
from rules.systems.fortunes_favor.inventory import slots_max
from rules.systems.fortunes_favor.state import (
    armor,
    attack_bonus,
    counter,
    damage_dice,
    deflect_dice_max,
    health_max,
    stamina_max,
)

P = SYSTEM.procedures()


def ff_state(**changes) -> dict:
    """A level 1 Knight, Mettle 3, Agility 2, Intellect 0, Heart −2, unarmoured, no Fortune's Favor."""
    state = SYSTEM.default_state()
    state.update(armour="none")
    stats = changes.pop("stats", {})
    state["stats"] = {**state["stats"], **stats}
    state.update(changes)
    state.setdefault("stamina_max_lost", 0)
    if "health" not in changes:
        state["health"] = health_max(state)
    if "stamina" not in changes:
        state["stamina"] = stamina_max(state)
    return SYSTEM.validate_state(state)


def sheet(items=(), settings=None, **changes) -> Sheet:
    return Sheet(state=ff_state(**changes), items=tuple(items), name="Sable", settings=settings or {})


def run(key, sh, faces, **params):
    proc = P[key]
    clean = check_params(proc, sh, {k: v for k, v in params.items() if not isinstance(v, Sheet)})
    clean.update({k: v for k, v in params.items() if isinstance(v, Sheet)})
    return proc.roll(sh, clean, ScriptedRandom(faces))


def odds(key, sh, **params):
    proc = P[key]
    clean = check_params(proc, sh, {k: v for k, v in params.items() if not isinstance(v, Sheet)})
    clean.update({k: v for k, v in params.items() if isinstance(v, Sheet)})
    return proc.odds(sh, clean)


# --- §003.12 engine vectors, as written ------------------------------------------------------------


@pytest.mark.parametrize(
    ("face", "stat", "bonus", "success", "failure", "outcome", "favor"),
    [
        (9, "agility", 0, 15, 10, "mixed", 0),  # 9 + 2 = 11 → Mixed
        (1, "agility", 8, 15, 10, "fail", 1),  # 1 + 10 = 11 → Fail (natural 1), gain Fortune's Favor
        (20, "heart", 0, 15, 10, "pass", 0),  # 20 − 2 = 18 → Pass
        (13, "heart", 4, 15, 5, "pass", 0),  # seed example: Heart 15/5, 13 + 2 = 15 → Success
        (5, "agility", 0, 15, 10, "fail", 1),  # seed example: Agility 15/10, 5 + 2 = 7 → Fail, gain it
    ],
)
def test_spec_003_engine_vectors_tests(face, stat, bonus, success, failure, outcome, favor):
    """rules-spec §003.12 (seed 003, Tests; 1s and 20s; Fortune's Favor)."""
    result = run("test", sheet(), [face], stat=stat, bonus=bonus, success=success, failure=failure)
    assert result.outcome == outcome
    assert result.state["fortunes_favor"] == favor


def test_spec_003_engine_vectors_contests_and_groups():
    """rules-spec §003.12 (seed 003, Contests; Group Tests): within 5 is Mixed; the net beats the Mixed count."""
    assert contest_result(16, 12) == "mixed"
    assert contest_result(18, 12) == "pass" and contest_result(12, 18) == "fail"
    assert contest_result(17, 12) == "mixed"  # exactly 5 apart is still Mixed (§003.11.6)
    assert group_result(2, 2, 1) == "mixed"
    assert group_result(3, 1, 0) == "pass"
    assert group_result(1, 0, 3) == "fail"
    assert group_result(2, 0, 2) == "mixed"


def test_spec_003_engine_vector_exchange_clash():
    """rules-spec §003.12 (seed 003, the Exchange): +3 rolls 10 → 13 against Armor 14 / Counter 9 → Clash."""
    result = run("attack", sheet(), [10], armor=14, counter=9)
    assert result.outcome == "clash" and result.total == 13
    assert "damage" not in result.details  # a Clash deals no damage by default (§003.11.1)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"class": "RANGER", "armour": "medium", "stats": {"agility": 3, "mettle": 2}}, (16, 11)),
        ({"armour": "heavy", "shield": "heavy"}, (19, 14)),
        ({"armour": "heavy", "shield": "heavy", "stats": {"mettle": 2}}, (17, 12)),
    ],
)
def test_spec_003_engine_vectors_armour(changes, expected):
    """rules-spec §003.12 (seed 003, Armor; Shields): a shield counts only when its requirement is met."""
    state = ff_state(**changes)
    assert (armor(state), counter(state)) == expected


# Seed 003, Armor: every row of the seed's table, across Agility from −2 to 4 (Counter is Armor − 5).
@pytest.mark.parametrize("agility", [-2, -1, 0, 1, 2, 3, 4])
@pytest.mark.parametrize(
    ("armour", "klass", "formula"),
    [
        ("none", "RANGER", lambda a: 10 + a),  # No Armor: 10 + Agility
        ("light", "RANGER", lambda a: 12 + a),  # Light Armor: 12 + Agility
        ("medium", "RANGER", lambda a: 14 + min(a, 2)),  # Medium Armor: 14 + Agility (max 2)
        ("heavy", "KNIGHT", lambda a: 17),  # Heavy Armor: 17, Agility counts neither way
    ],
)
def test_seed_003_armor_every_row(armour, klass, formula, agility):
    """Seed 003, Armor: each armour row's own formula, a negative Agility included."""
    state = ff_state(**{"class": klass, "attack_stat": "agility"}, armour=armour, stats={"agility": agility})
    assert (armor(state), counter(state)) == (formula(agility), formula(agility) - 5)


def test_seed_003_armor_heavy_is_17_for_a_clumsy_knight():
    """Seed 003, Armor ("Heavy Armor: 17"): a Knight at Agility −2 in heavy armour has Armor 17 / Counter 12, so
    an attacker at +3 hits on 14 or more (35 %), not 12 or more (45 % when −2 was taken off)."""
    knight = sheet(armour="heavy", stats={"agility": -2})
    assert (armor(knight.state), counter(knight.state)) == (17, 12)
    result = odds("attack", sheet(), target=knight)
    assert dict(result.outcomes)["hit"] == Fraction(7, 20)


def test_spec_003_engine_vectors_knight():
    """rules-spec §003.12 and §003.2: a Knight with Mettle 3 at levels 1, 2 and 5."""
    state = ff_state()
    assert (health_max(state), stamina_max(state), attack_bonus(state)) == (18, 9, 3)
    assert dice_label(damage_dice(state), True) == "1d10"
    assert dice_label(damage_dice(ff_state(shield="light")), True) == "1d8"
    level2 = ff_state(level=2)
    assert (health_max(level2), stamina_max(level2)) == (20, 14)
    assert deflect_dice_max(ff_state(level=5)) == 3


def test_spec_003_engine_vectors_gear_slots():
    """rules-spec §003.12 (seed 003, Gear Slots): 7 + trunc(Mettle / 2) + floor(level / 2)."""
    assert slots_max(ff_state(level=3, stats={"mettle": -2, "heart": 3})) == 7
    assert slots_max(ff_state()) == 8


def test_spec_003_engine_vector_nights_rest():
    """rules-spec §003.12 (seed 003, Night's Rest): at level 3, +4 Health, full Stamina, Fortune's Favor."""
    result = run("rest", sheet(level=3, health=5, stamina=0), [], kind="night")
    assert result.state["health"] == 9
    assert result.state["stamina"] == stamina_max(result.state)
    assert result.state["fortunes_favor"] == 1


def test_seed_003_a_nights_rest_from_0_health_includes_catch_your_breaths_plus_one():
    """Seed 003, Rests ("Finishing a longer rest grants all benefits of the shorter rest as well"), Catch Your
    Breath ("If you are at 0 Health, you gain 1 Health") and A Night's Rest (level + 1): a level 3 character at
    0 Health ends the night on 1 + 4 = 5 (it was 4); from 5 Health it is still 9, with no extra +1."""
    from_zero = run("rest", sheet(level=3, health=0, stamina=2), [], kind="night")
    assert from_zero.state["health"] == 5 and "Health 0 → 5" in from_zero.summary
    assert run("rest", sheet(level=3, health=5), [], kind="night").state["health"] == 9
    assert run("rest", sheet(level=3, health=0), [], kind="breath").state["health"] == 1


def test_seed_003_base_damage_adds_the_best_damage_stat_whatever_the_attack_rolls():
    """Seed 003, Base Damage with spec §003.2 / §003.11.5 (RulesGraph 1b: ``baseDamage`` adds the highest of the
    class's damage stats): a Brawler with Mettle 3 and Agility 2 attacking with Agility for range hits for
    1d10+3 (a 6: 9 damage), where it dealt 1d10+2 (8). A Knight (Mettle only) is unchanged."""
    brawler = sheet(**{"class": "BRAWLER", "attack_stat": "agility"})
    assert brawler.state["attack_stat"] == "agility"
    hit = run("attack", brawler, [15, 6], armor=14)
    assert "9 damage (1d10+3)" in hit.summary
    with_mettle = sheet(**{"class": "BRAWLER", "attack_stat": "mettle"})
    assert "9 damage (1d10+3)" in run("attack", with_mettle, [15, 6], armor=14).summary
    assert "9 damage (1d10+3)" in run("attack", sheet(), [15, 6], armor=14).summary  # Knight, Mettle 3
    # a Spellsword's Fighting Style picks the damage stat too: tests/rules/test_fortunes_favor_rulings.py


def test_spec_003_engine_vector_deflect():
    """rules-spec §003.12 (seed 003, Deflect): a level 4 Knight takes 9, spends 4 Stamina on 2d6, rolls 3 + 5."""
    sh = sheet(level=4, health=24, stamina=20)
    result = run("take_damage", sh, [3, 5], damage=9, deflect=2)
    assert result.state["health"] == 23
    assert result.state["stamina"] == 16


# --- creation ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(200))
def test_creation_is_valid_for_every_seed(seed):
    """Seed 003, Building a Character: array stats, +1 lineage and +1 culture on different stats, 5 Coin."""
    made = SYSTEM.create({}, random.Random(seed))
    state = SYSTEM.validate_state(made.state)
    assert sorted(state["stats"].values()) != sorted((3, 2, 0, -2))  # the two bonuses were added
    assert sum(state["stats"].values()) == 3 + 2 + 0 - 2 + 2
    assert max(state["stats"].values()) <= 4
    assert state["coins"] == 5 and state["level"] == 1
    assert state["health"] == health_max(state) and state["stamina"] == stamina_max(state)
    human = state["lineage"] == "HUMAN"
    assert len(state["novice_features"]) == (2 if human else 1)  # Human, Adaptable
    assert len(state["animal_features"]) == (2 if state["lineage"] == "CHIMERIC" else 0)
    assert "Allspeak" in state["languages"]


def test_creation_with_every_choice_made():
    """Seed 003, Building a Character: the chosen class, lineage, culture, array and bonuses."""
    choices = {
        "name": "Sable",
        "class": "KNIGHT",
        "lineage": "DWARF",
        "culture": "DEEP-MINING",
        "mettle": "3",
        "agility": "2",
        "intellect": "0",
        "heart": "-2",
        "lineage_bonus": "mettle",
        "culture_bonus": "heart",
        "novice": "Athletic",
        "armour": "heavy",
    }
    made = SYSTEM.create(choices, random.Random(1))
    assert made.state["stats"] == {"mettle": 4, "agility": 2, "intellect": 0, "heart": -1}
    assert made.state["languages"] == ["Allspeak", "Dwarvish"]
    assert armor(made.state) == 17 and made.state["health"] == 18
    assert [i.name for i in made.items][0] == "Class weapons"


@pytest.mark.parametrize(
    ("choices", "words"),
    [
        ({"lineage": "HUMAN", "culture": "NOMADS", "lineage_bonus": "heart", "culture_bonus": "heart"}, "both"),
        ({"mettle": "6"}, "above 5"),
        ({"mettle": "3", "agility": "3"}, "twice"),
        ({"class": "ELEMENTALIST", "armour": "light"}, "not trained"),
        ({"class": "RANGER", "shield": "light"}, "not trained"),
        ({"lineage": "DWARF", "lineage_bonus": "agility"}, "Mettle"),
        ({"lineage": "ELF", "animal": "Fast"}, "Chimeric"),
    ],
)
def test_creation_refuses_what_the_rules_forbid(choices, words):
    """Seed 003, Stats and Armor: array values once each, bonuses on two stats, trained armour only."""
    with pytest.raises(RulesError, match=words):
        SYSTEM.create(choices, random.Random(0))


def test_a_stat_above_5_is_refused_everywhere():
    """Stat Up (class data): max 5; a sheet can never hold more."""
    with pytest.raises(RulesError, match="above 5"):
        ff_state(stats={"mettle": 6})
    sh = sheet(level=3, level_ready=True, stats={"mettle": 5})
    with pytest.raises(RulesError, match="already 5"):
        run("level_up", sh, [], stat="mettle", novice="Swift")


# --- tests, Fortune's Favor and Misfortune ----------------------------------------------------------


def test_three_outcome_odds_are_exact():
    """Seed 003, Tests: d20 + 2 against 15/10: pass on 13+, mixed on 8-12, fail below (1 always fails)."""
    o = odds("test", sheet(), stat="agility", success=15, failure=10)
    assert o.outcomes == (("pass", Fraction(8, 20)), ("mixed", Fraction(5, 20)), ("fail", Fraction(7, 20)))


def test_spending_fortunes_favor_keeps_the_higher_d20():
    """Seed 003, Fortune's Favor: spend it for a second d20 and keep the higher (spec §003.4 [REC])."""
    sh = sheet(fortunes_favor=1)
    o = odds("test", sh, stat="agility", spend_favor=True)
    assert o.of("fail") == Fraction(7, 20) ** 2
    result = run("test", sh, [3, 17], stat="agility", spend_favor=True)
    assert result.outcome == "pass" and result.state["fortunes_favor"] == 0


def test_spending_favor_you_do_not_have_is_refused():
    """Seed 003, Fortune's Favor: only a character who has it can spend it."""
    with pytest.raises(RulesError, match="no Fortune's Favor"):
        odds("test", sheet(), stat="agility", spend_favor=True)


def test_misfortune_keeps_the_lower_and_favor_cancels_it():
    """Seed 003, Misfortune: keep the lower d20; giving up Fortune's Favor cancels it (one d20)."""
    o = odds("test", sheet(), stat="agility", misfortune=True)
    assert o.of("pass") == Fraction(8, 20) ** 2
    cancelled = odds("test", sheet(fortunes_favor=1), stat="agility", misfortune=True, spend_favor=True)
    assert cancelled.of("pass") == Fraction(8, 20)
    result = run("test", sheet(), [18, 2], stat="agility", misfortune=True)
    assert result.outcome == "fail"


def test_a_natural_1_fails_and_a_natural_20_passes_whatever_the_total():
    """Seed 003, 1s and 20s."""
    assert run("test", sheet(), [1], stat="mettle", bonus=30, success=10).outcome == "fail"
    assert run("test", sheet(), [20], stat="heart", success=40, failure=35).outcome == "pass"


def test_fortunes_favor_as_a_counter_by_setting():
    """rules-spec §5.1 ff.fortunes_favor_counter: a Fail adds one instead of setting the flag."""
    counting = sheet(fortunes_favor=1, settings={"fortunes_favor_counter": True})
    assert run("test", counting, [2], stat="agility").state["fortunes_favor"] == 2
    flag = sheet(fortunes_favor=1)
    assert run("test", flag, [2], stat="agility").state["fortunes_favor"] == 1
    assert SYSTEM.tracks(counting)[2].maximum == 99 and SYSTEM.tracks(flag)[2].maximum == 1


def test_help_gives_favor_then_plus_three_once_each():
    """Seed 003, Help: Fortune's Favor, or +3 if already favoured; each once; Aid +2 (spec §003.11.8)."""
    one = odds("test", sheet(), stat="agility", helpers=1)
    assert one.of("fail") == Fraction(7, 20) ** 2
    many = odds("test", sheet(), stat="agility", helpers=5)
    assert many == odds("test", sheet(), stat="agility", helpers=2)
    assert many.of("fail") == Fraction(4, 20) ** 2  # Favor and +3: fail below 10 means a d20 of 4 or less
    favoured = odds("test", sheet(), stat="agility", helpers=1, favor=True)
    assert favoured.of("fail") == Fraction(4, 20) ** 2
    aided = odds("test", sheet(), stat="agility", helpers=1, favor=True, aid=True)
    assert aided.of("fail") == Fraction(2, 20) ** 2


def test_luck_tests_take_no_stat_and_no_help():
    """Seed 003, Luck Tests: the bare d20."""
    assert odds("test", sheet(), stat="luck", success=10, failure=5).of("pass") == Fraction(11, 20)
    with pytest.raises(RulesError, match="luck"):
        odds("test", sheet(), stat="luck", helpers=1)


def test_pushing_your_limits_costs_stamina_adds_a_d6_and_not_in_combat():
    """Seed 003, Pushing Your Limits: 3 Stamina (6 Fatigued) for +1d6, non-combat tests only."""
    result = run("test", sheet(), [10, 4], stat="agility", push=True)
    assert result.total == 16 and result.state["stamina"] == 6
    fatigued = run("test", sheet(statuses={"Fatigued": 0}), [10, 4], stat="agility", push=True)
    assert fatigued.state["stamina"] == 3
    with pytest.raises(RulesError, match="outside combat"):
        odds("test", sheet(), stat="agility", push=True, in_combat=True)
    with pytest.raises(RulesError, match="costs 3 Stamina"):
        odds("test", sheet(stamina=2), stat="agility", push=True)
    o = odds("test", sheet(), stat="agility", push=True)
    assert sum(p for _, p in o.outcomes) == 1


def test_rattled_and_pinned_change_the_roll():
    """Seed 003, Statuses: Rattled −2; Pinned gives Misfortune on every Action."""
    assert run("test", sheet(statuses={"Rattled": 1}), [10], stat="agility").total == 10
    pinned = odds("test", sheet(statuses={"Pinned": 0}), stat="agility")
    assert pinned.of("pass") == Fraction(8, 20) ** 2


def test_contest_odds_and_favor_for_the_loser():
    """Seed 003, Contests: more than 5 apart wins; a PC who fails gains Fortune's Favor (§003.4 [REC])."""
    o = odds("contest", sheet(), stat="mettle", opponent=3)
    assert o.of("pass") == o.of("fail")
    result = run("contest", sheet(), [2, 15], stat="mettle", opponent=3)
    assert result.outcome == "fail" and result.state["fortunes_favor"] == 1


def test_group_test_from_the_table():
    """Seed 003, Group Tests: the GM counts results."""
    proc = SYSTEM.table_procedures()["group_test"]
    result = proc.roll(None, {"passes": 3, "mixed": 1, "fails": 0}, random.Random(0))
    assert result.outcome == "pass"


def test_a_group_test_with_nothing_counted_shows_no_odds():
    """Seed 003, Group Tests: the group's result comes from its members' counted results; with none counted the odds
    refuse with the roll's sentence (issue 35 item 7: they showed "mixed" for a roll then refused)."""
    proc = SYSTEM.table_procedures()["group_test"]
    for ask in (lambda: proc.odds(None, {}), lambda: proc.roll(None, {}, random.Random(0))):
        with pytest.raises(RulesError, match="Count at least one member's result"):
            ask()
    assert dict(proc.odds(None, {"passes": 1}).outcomes) == {"pass": 1}


# --- combat ----------------------------------------------------------------------------------------


def test_a_hit_deals_base_damage_and_a_natural_20_doubles_it():
    """Seed 003, the Exchange and 1s and 20s: hit = Base Damage; natural 20 doubles the whole total."""
    hit = run("attack", sheet(), [15, 6], armor=14)
    assert hit.outcome == "hit" and hit.details["damage"] == 9
    crit = run("attack", sheet(), [20, 6], armor=30, counter=25)
    assert crit.outcome == "hit" and crit.details["damage"] == 18
    careful = run("attack", sheet(), [15, 6], armor=14, kind="careful")
    assert careful.details["damage"] == 4


def test_countered_gives_fortunes_favor_and_no_damage():
    """Seed 003, the Exchange: below Counter the target may use a Counter Action; a Fail gains Favor."""
    result = run("attack", sheet(), [2], armor=14)
    assert result.outcome == "countered" and result.state["fortunes_favor"] == 1
    assert "damage" not in result.details


def test_clash_deals_damage_by_setting():
    """rules-spec §5.1 ff.clash_deals_damage: off by default, on it deals Base Damage."""
    result = run("attack", sheet(settings={"clash_deals_damage": True}), [10, 6], armor=14, counter=9)
    assert result.outcome == "clash" and result.details["damage"] == 9


def test_ranged_in_melee_has_misfortune_or_is_forbidden_by_setting():
    """rules-spec §5.1 ff.ranged_in_melee: Misfortune by default; forbidden by setting."""
    o = odds("attack", sheet(), armor=14, ranged_in_melee=True)
    assert o.of("hit") == Fraction(10, 20) ** 2  # +3 against 14 hits on 11 or more, on both d20s
    with pytest.raises(RulesError, match="forbid"):
        odds("attack", sheet(settings={"ranged_in_melee": "forbidden"}), armor=14, ranged_in_melee=True)


def test_deflect_limits_and_costs():
    """Seed 003, Deflect: up to 1 + level/2 dice, 2 Stamina each, flat bonuses once."""
    with pytest.raises(RulesError, match="at most 1 deflect die"):
        odds("take_damage", sheet(), damage=5, deflect=2)
    with pytest.raises(RulesError, match="costs 4 Stamina; you have 3"):
        odds("take_damage", sheet(level=2, stamina=3), damage=5, deflect=2)
    brawler = sheet(**{"class": "BRAWLER", "attack_stat": "mettle", "health": 20, "stamina": 9})
    result = run("take_damage", brawler, [1], damage=5, deflect=1)
    assert result.state["health"] == 18  # 5 − (1 + 2)


def test_damage_to_zero_is_dying_and_zero_zero_is_death():
    """Seed 003, Dying and Death: 0 Health is Dying; 0 Health and 0 Stamina is dead."""
    result = run("take_damage", sheet(health=3), [], damage=10)
    assert result.outcome == "dying" and result.state["health"] == 0
    assert "Dying" in SYSTEM.conditions(Sheet(state=result.state))
    dead = run("take_damage", sheet(health=3, stamina=0), [], damage=10)
    assert dead.outcome == "dead"


def test_damage_past_zero_health_spills_into_stamina_by_setting():
    """rules-spec §5.1 ff.zero_health_damage_spills_to_stamina: off by default."""
    assert run("take_damage", sheet(health=3), [], damage=10).state["stamina"] == 9
    spilled = run("take_damage", sheet(health=3, settings={"zero_health_spills": True}), [], damage=10)
    assert spilled.state["stamina"] == 2


def test_acting_while_dying_costs_stamina_unless_helped():
    """Seed 003, Dying: an Action costs 1 Stamina; an ally's help removes the cost; 0 Stamina cannot act."""
    result = run("act", sheet(health=0, stamina=2), [], action="defend")
    assert result.state["stamina"] == 1
    helped = run("act", sheet(health=0, stamina=2), [], action="defend", ally_helps=True)
    assert helped.state["stamina"] == 2
    last = run("act", sheet(health=0, stamina=1), [], action="sprint")
    assert last.state["dead"]


# Seed 003, Dying: every procedure that is an Action, with the params that make it one and the faces it rolls.
DYING_ACTIONS = {
    "attack": ({}, [10, 1]),
    "act": ({"action": "defend"}, []),
    "hide": ({}, [10]),  # Hide is one of the Basic Actions
    "heal_dying": ({"ally": "dying ally"}, [15]),  # Healing a Dying Ally: "use an Action"
    "area_attack": ({"armors": "12"}, [10, 1]),  # an AOE Exchange is an attack
}
# Not an Action: reactions (damage, deflect, Last Stand), the round's clock, bookkeeping, rests and travel,
# levelling, gear; a test or contest the GM calls for; a feat (movement and falls, not an Action).
NOT_ACTIONS = {
    "test",
    "contest",
    "take_damage",
    "last_stand",
    "new_round",
    "status",
    "rest",
    "stay_awake",
    "level_up",
    "feat",
    "push_pace",
    "quick_retrieval",
    "equip",
    "feature",  # a class feature; the few that take your Action (Shift, Reinvigorate...) charge it themselves
}


def test_seed_003_dying_every_procedure_is_audited():
    """Seed 003, Dying: each procedure is either an Action (charged while dying) or listed as not one."""
    assert set(DYING_ACTIONS) | NOT_ACTIONS == set(P)
    assert not set(DYING_ACTIONS) & NOT_ACTIONS
    for key in DYING_ACTIONS:
        assert "ally_helps" in [p.name for p in P[key].params(None)], key


def _action_params(key: str) -> tuple[dict, list[int]]:
    params, faces = DYING_ACTIONS[key]
    params = dict(params)
    if "ally" in params:
        params["ally"] = sheet(health=0, stamina=4)
    return params, faces


@pytest.mark.parametrize("key", sorted(DYING_ACTIONS))
def test_seed_003_dying_each_action_costs_1_stamina(key):
    """Seed 003, Dying: taking an Action at 0 Health costs 1 Stamina; an ally's Help within 5 ft removes it."""
    params, faces = _action_params(key)
    paid = run(key, sheet(health=0, stamina=3), faces, **params)
    assert paid.state["stamina"] == 2 and not paid.state["dead"]
    helped = run(key, sheet(health=0, stamina=3), faces, ally_helps=True, **params)
    assert helped.state["stamina"] == 3
    well = run(key, sheet(), faces, **params)
    assert well.state["stamina"] == sheet().state["stamina"]


@pytest.mark.parametrize("key", sorted(DYING_ACTIONS))
def test_seed_003_dying_the_last_stamina_spent_on_an_action_is_death(key):
    """Seed 003, Dying and Death: the last Stamina paid for an Action leaves 0 Health and 0 Stamina: dead.
    Fatigued (costs doubled) with 1 Stamina left, the Action is refused before any odds are shown."""
    params, faces = _action_params(key)
    last = run(key, sheet(health=0, stamina=1), faces, **params)
    assert last.state["stamina"] == 0 and last.state["dead"]
    with pytest.raises(RulesError, match="no Stamina left"):
        odds(key, sheet(health=0, stamina=1, statuses={"Fatigued": 0}), **params)


def test_seed_003_dying_healer_with_1_stamina_heals_then_dies():
    """Seed 003, Healing a Dying Ally and Dying: a dying healer on 1 Stamina still heals, then is dead."""
    ally = sheet(health=0, stamina=4)
    result = run("heal_dying", sheet(health=0, stamina=1), [15], ally=ally)
    assert result.other_states["ally"]["health"] == 1
    assert (result.state["health"], result.state["stamina"], result.state["dead"]) == (0, 0, True)
    assert "healing while dying" in result.summary


def test_counter_actions_put_statuses_on_the_target_without_stacking():
    """Seed 003, Counter Actions and Statuses: Rattle → Rattled, Stagger → Slowed, until its next turn."""
    target = sheet(statuses={"Rattled": 3})
    result = run("act", sheet(), [], action="rattle", counter=True, target=target)
    assert result.other_states["target"]["statuses"] == {"Rattled": 3}  # never stacks: the longer stays
    staggered = run("act", sheet(), [], action="stagger", counter=True, target=sheet())
    assert staggered.other_states["target"]["statuses"] == {"Slowed": 1}
    defended = run("act", sheet(), [], action="defend")
    assert armor(defended.state) == 14 and counter(defended.state) == 9
    with pytest.raises(RulesError, match="basic actions"):
        run("act", sheet(), [], action="defend", counter=True)


def test_statuses_tick_down_each_round():
    """Seed 003, Statuses: durations in rounds; the status ends when they run out."""
    result = run("new_round", sheet(statuses={"Rattled": 1, "Prone": 0, "Slowed": 2}), [])
    assert result.state["statuses"] == {"Prone": 0, "Slowed": 1}


def test_last_stand_refills_each_round_and_ends_in_death():
    """Seed 003, Last Stand: all Health and Stamina now and each round; death after 5 rounds."""
    sh = sheet(health=2, stamina=1)
    state = run("last_stand", sh, []).state
    assert (state["health"], state["stamina"], state["last_stand"]) == (18, 9, 1)
    for _ in range(4):
        state = run("new_round", Sheet(state={**state, "health": 1}), []).state
    assert state["last_stand"] == 5 and state["health"] == 18
    assert run("new_round", Sheet(state=state), []).outcome == "dead"


def test_healing_a_dying_ally():
    """Seed 003, Healing a Dying Ally: Intellect 15/10; pass +1 Health, fail −1 Stamina, Mixed nothing."""
    ally = sheet(health=0, stamina=4)
    healed = run("heal_dying", sheet(), [15], ally=ally)
    assert healed.other_states["ally"]["health"] == 1
    hurt = run("heal_dying", sheet(), [3], ally=ally)
    assert hurt.other_states["ally"]["stamina"] == 3
    mixed = run("heal_dying", sheet(), [12], ally=ally)
    assert mixed.other_states["ally"] == ally.state
    medical = odds("heal_dying", sheet(novice_features=["Medical Training"]), ally=ally)
    assert medical.of("fail") == Fraction(9, 20) ** 2


# --- rests, sleep, levels --------------------------------------------------------------------------


def test_catch_your_breath_at_zero_health():
    """Seed 003, Catch Your Breath: all Stamina back, and 1 Health at 0."""
    result = run("rest", sheet(health=0, stamina=1), [], kind="breath")
    assert (result.state["health"], result.state["stamina"]) == (1, 9)


def test_spending_stamina_during_a_rest_voids_it():
    """Seed 003, Rests: spending Stamina during a rest ends it with no benefit."""
    resting = run("rest", sheet(stamina=5), [], kind="night", finish=False).state
    assert resting["resting"] == "night"
    pushed = run("test", Sheet(state=resting), [10, 3], stat="mettle", push=True).state
    assert pushed["resting"] == ""


def test_rest_and_relax_clears_conditions_and_allows_a_level():
    """Seed 003, Rest and Relax: everything back, conditions cleared, levelling up."""
    state = run("rest", sheet(health=1, statuses={"Prone": 0}, quick_retrieval=2), [], kind="rr").state
    assert state["health"] == 18 and state["statuses"] == {} and state["quick_retrieval"] == 0
    up = run("level_up", Sheet(state=state), [])
    assert up.state["level"] == 2 and up.state["health"] == 20 and up.state["stamina"] == 14


def test_level_4_brings_a_stat_up_and_a_novice_feature():
    """Class data, Stat Up at level 4 (max 5) with a new novice feature."""
    sh = sheet(level=3, level_ready=True)
    with pytest.raises(RulesError, match="choose a stat"):
        run("level_up", sh, [])
    up = run("level_up", sh, [], stat="agility", novice="Swift")
    assert up.state["stats"]["agility"] == 3 and "Swift" in up.state["novice_features"]


def test_sleep_deprivation_tests_get_harder_each_hour():
    """Seed 003, Sleep Deprivation: past 24 hours Mettle 15/10, +1 each hour (spec §003.11.11)."""
    assert odds("stay_awake", sheet(hours_awake=10)).outcomes[0][0] == "awake"
    first = odds("stay_awake", sheet(hours_awake=24))  # hour 25: 16/11 with Mettle +3
    assert first.of("pass") == Fraction(8, 20)
    fail = run("stay_awake", sheet(hours_awake=24), [2])
    assert fail.state["stamina_max_lost"] == 7 and fail.state["stamina"] == 2
    assert stamina_max(fail.state) == 2
    night = run("rest", Sheet(state=fail.state), [], kind="night").state
    assert stamina_max(night) == 9 and night["hours_awake"] == 0


# --- travel, feats, gear ---------------------------------------------------------------------------


def test_travel_numbers_on_the_sheet():
    """Seed 003, Travel and Movement: march, jumps, lift and drag."""
    facts = SYSTEM.sheet_facts(sheet())
    assert (facts["march_road"], facts["march_off_road"]) == (18, "9")
    assert facts["jumps"] == {"running": 10 + 5, "standing": 6 + 5, "high": 4}  # Highland Clans +5 ft
    assert (facts["lift"], facts["drag"]) == ("80", "320")


def test_falls_and_treacherous_terrain():
    """Seed 003, Falling and Treacherous Terrain."""
    fall = run("feat", sheet(), [2, 4, 6], feat="fall", distance=25)  # 16/11, Agility +2: 4 fails
    assert fall.outcome == "fail" and fall.state["health"] == 8
    terrain = run("feat", sheet(), [6], feat="terrain")  # 9 against 13/8: Mixed, −1 Stamina
    assert terrain.outcome == "mixed" and terrain.state["stamina"] == 8
    with pytest.raises(RulesError, match="without a test"):
        odds("feat", sheet(), feat="jump", distance=5)


def test_gear_over_the_slots_slows_and_over_double_pins():
    """Seed 003, Gear Slots: over the maximum Slowed with Misfortune on Agility; over double Pinned."""
    over = sheet(items=[Item("Crates", slots=1, quantity=9)])
    assert "Slowed" in SYSTEM.conditions(over)
    assert odds("test", over, stat="agility").of("pass") == Fraction(8, 20) ** 2
    pinned = sheet(items=[Item("Crates", slots=1, quantity=17)])
    assert "Pinned" in SYSTEM.conditions(pinned)


def test_quick_retrieval_holds_two_slots_until_rest_and_relax():
    """Seed 003, Quick Retrieval (spec §003.9 [REC])."""
    result = run("quick_retrieval", sheet(), [12], likelihood="likely")
    assert result.outcome == "pass" and result.state["quick_retrieval"] == 2


def test_armour_the_class_is_not_trained_in_is_refused():
    """Seed 003, Armor: only armour the class is trained in (spec §003.11.13)."""
    with pytest.raises(RulesError, match="not trained in heavy armour"):
        odds("equip", sheet(**{"class": "RANGER", "attack_stat": "agility"}), armour="heavy")


# --- odds in general --------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    bonus=st.integers(-30, 30),
    success=st.integers(1, 40),
    gap=st.integers(0, 10),
    spend=st.booleans(),
    misfortune=st.booleans(),
    helpers=st.integers(0, 3),
    push=st.booleans(),
)
def test_test_odds_always_sum_to_one(bonus, success, gap, spend, misfortune, helpers, push):
    """Seed 003, Tests: exact odds for any input."""
    o = odds(
        "test",
        sheet(fortunes_favor=1),
        stat="mettle",
        bonus=bonus,
        success=success,
        failure=max(0, success - gap),
        spend_favor=spend,
        misfortune=misfortune,
        helpers=helpers,
        push=push,
    )
    assert sum(p for _, p in o.outcomes) == 1 and all(0 <= p <= 1 for _, p in o.outcomes)


def test_pushing_the_pace_costs_a_stamina_a_mile():
    """Seed 003, Travel: push the pace, 1 Stamina per extra mile that day."""
    result = run("push_pace", sheet(), [], miles=4)
    assert result.state["stamina"] == 5 and "22 miles" in result.summary
    with pytest.raises(RulesError, match="costs 12 Stamina"):
        odds("push_pace", sheet(), miles=12)


def test_climbing_or_swimming_in_heavy_armour():
    """Seed 003, Climbing and Swimming: in heavy armour a Mettle test 12/7; Mixed −2, Fail −4 Stamina."""
    with pytest.raises(RulesError, match="heavy armour"):
        odds("feat", sheet(), feat="heavy_move")
    result = run("feat", sheet(armour="heavy"), [2], feat="heavy_move")  # 5 < 7: Fail
    assert result.outcome == "fail" and result.state["stamina"] == 5


def test_hiding_makes_you_hidden_and_hidden_attacks_get_plus_five():
    """Seed 003, Hide and Statuses: a pass makes you Hidden; Hidden gives +5 to the next attack test."""
    hidden = run("hide", sheet(), [15], success=15).state
    assert hidden["statuses"] == {"Hidden": 0}
    attack = run("attack", Sheet(state=hidden), [5], armor=14)
    assert attack.total == 13 and "Hidden" not in attack.state["statuses"]


def test_exhausted_spends_no_stamina_and_drops_damage_two_steps():
    """Seed 003, Statuses: Exhausted cannot spend Stamina; attack dice two steps down; Speed halved."""
    tired = sheet(statuses={"Exhausted": 0})
    with pytest.raises(RulesError, match="Exhausted"):
        odds("test", tired, stat="mettle", push=True)
    assert SYSTEM.sheet_facts(tired)["base_damage"] == "1d6+3"
    assert SYSTEM.sheet_facts(tired)["speeds"][0] == {"kind": "ground", "feet": 15}


def test_banners_for_dying_last_stand_and_level_up():
    """Seed 003, Dying and Last Stand; levelling up at R&R."""
    assert [b.key for b in SYSTEM.banners(sheet(health=0))] == ["dying"]
    assert [b.key for b in SYSTEM.banners(sheet(last_stand=2))] == ["last-stand"]
    assert [b.key for b in SYSTEM.banners(sheet(health=0, stamina=0))] == ["dead"]
    assert [b.key for b in SYSTEM.banners(sheet(level_ready=True))] == ["level-ready"]


def test_attacking_a_character_uses_their_defences_and_engages_them():
    """Seed 003, the Exchange and Engaged: the target's Armor and Counter; whoever you attack is Engaged;
    attacks against the Blind have Fortune's Favor."""
    target = sheet(armour="none")  # Armor 12, Counter 7
    result = run("attack", sheet(), [5], target=target)  # 8: a Clash
    assert result.outcome == "clash"
    assert result.other_states["target"]["statuses"] == {"Engaged": 1}
    blind = odds("attack", sheet(), target=sheet(statuses={"Blind": 0}))
    assert blind.of("countered") == Fraction(3, 20) ** 2  # below 7 with +3: a d20 of 3 or less, twice
