"""Fortune's Favor (seed 003, ../shared/seeds/003_eeb4db86843669ac.txt): the ten 1b classes' features as played.

Each test names the class, the level and the feature (RulesGraph 1b @ 6cff1a6, rules/data/fortunes_favor.py) and
rolls scripted faces. Odds are checked against ``oracle``, an independent brute-force enumeration of every die
written here, not the procedures' own arithmetic.
"""

from __future__ import annotations

import itertools
import pathlib
from fractions import Fraction

import pytest

from rules.base import RulesError, Sheet, check_params
from rules.data import fortunes_favor as data
from rules.dice import ScriptedRandom
from rules.systems.fortunes_favor import SYSTEM
from rules.systems.fortunes_favor import features as ff_features
from rules.systems.fortunes_favor.state import armor, health_max, stamina_max

P = SYSTEM.procedures()
ROOT = pathlib.Path(__file__).resolve().parents[2]


def make(cls: str, level: int = 1, stats: dict | None = None, feats: dict | None = None, **changes) -> Sheet:
    """A character of ``cls`` at ``level``: Mettle 3, Agility 2, Intellect 1, Heart 2 unless given."""
    state = SYSTEM.default_state()
    attack = data.CLASSES[cls]["attack_stats"][0]
    state.update({"class": cls, "level": level, "armour": "none", "attack_stat": attack})
    state["stats"] = {"mettle": 3, "agility": 2, "intellect": 1, "heart": 2, **(stats or {})}
    state["feats"] = {**state["feats"], **(feats or {})}
    state.update(changes)
    state["health"] = changes.get("health", health_max(state))
    state["stamina"] = changes.get("stamina", stamina_max(state))
    return Sheet(state=SYSTEM.validate_state(state), name="Sable")


def _clean(key, sh, params):
    clean = check_params(P[key], sh, {k: v for k, v in params.items() if not isinstance(v, Sheet)})
    clean.update({k: v for k, v in params.items() if isinstance(v, Sheet)})
    return clean


def run(key, sh, faces, **params):
    return P[key].roll(sh, _clean(key, sh, params), ScriptedRandom(faces))


def odds(key, sh, **params):
    return dict(P[key].odds(sh, _clean(key, sh, params)).outcomes)


def then(result, sh: Sheet) -> Sheet:
    return Sheet(state=result.state, name=sh.name)


def oracle(bonus, success, failure, mode="plain", extra=(), keys=("pass", "mixed", "fail")):
    """Every face of every die, counted: d20 (two and keep one with Fortune's Favor or Misfortune) plus extra dice;
    a natural 20 passes and a natural 1 fails (seed 003, Tests)."""
    d20s = 1 if mode == "plain" else 2
    counts = dict.fromkeys(keys, 0)
    ranges = [range(1, 21)] * d20s + [range(1, e + 1) for e in extra]
    n = 0
    for faces in itertools.product(*ranges):
        kept = faces[0] if d20s == 1 else (max(faces[:2]) if mode == "favor" else min(faces[:2]))
        total = kept + bonus + sum(faces[d20s:])
        if kept == 20 or (kept != 1 and total >= success):
            out = "pass"
        elif kept != 1 and total >= failure:
            out = "mixed"
        else:
            out = "fail"
        counts[out] += 1
        n += 1
    return {k: Fraction(v, n) for k, v in counts.items() if v}


def exchange_oracle(bonus, armor_, counter_, mode="plain", extra=()):
    raw = oracle(bonus, armor_, counter_, mode, extra)
    names = {"pass": "hit", "mixed": "clash", "fail": "countered"}
    return {names[k]: v for k, v in raw.items()}


def area_oracle(bonus, targets, mode="plain"):
    """Count the targets one roll hits, over every face."""
    d20s = 1 if mode == "plain" else 2
    counts: dict[str, int] = {}
    n = 0
    for faces in itertools.product(range(1, 21), repeat=d20s):
        kept = faces[0] if d20s == 1 else (max(faces) if mode == "favor" else min(faces))
        hits = sum(1 for a in targets if kept == 20 or (kept != 1 and kept + bonus >= a))
        counts[f"hit {hits}"] = counts.get(f"hit {hits}", 0) + 1
        n += 1
    return {k: Fraction(v, n) for k, v in counts.items()}


# --- the table itself -----------------------------------------------------------------------------------


def test_every_class_feature_has_a_row_and_every_row_a_feature():
    """RulesGraph 1b: each of the ten classes' features is in the feature table, and nothing else is."""
    listed = {(key, name) for key, c in data.CLASSES.items() for _, name, _, _ in c["features"]}
    assert listed == set(ff_features.FEATURES)
    assert set(ff_features.NOVICE) == set(data.NOVICE_FEATURES)
    assert set(ff_features.VETERAN) == set(data.VETERAN_FEATURES)


def test_every_class_has_automated_features_and_text_ones_say_why():
    for key in data.CLASSES:
        auto = [n for (k, n), f in ff_features.FEATURES.items() if k == key and f.kind not in ("text", "sheet")]
        assert len(auto) >= 3, key
    for f in [*ff_features.FEATURES.values(), *ff_features.NOVICE.values(), *ff_features.VETERAN.values()]:
        assert f.how


def test_the_costs_the_table_charges_match_the_data():
    """RulesGraph 1b staminaCost and costsFortunesFavor: a feature that charges, charges the data's cost."""
    for key, c in data.CLASSES.items():
        for _, name, stamina, favor in c["features"]:
            f = ff_features.FEATURES[(key, name)]
            if f.kind in ("use", "boon", "attack", "area") and stamina:
                assert f.stamina == stamina, (key, name)
            if favor and f.kind in ("use", "attack"):
                assert f.favor, (key, name)


def test_docs_feature_table_is_current():
    """docs/fortunes-favor-classes.md is generated from the data and the table: regenerate it with
    ``python -m rules.systems.fortunes_favor.features``."""
    assert (ROOT / "docs" / "fortunes-favor-classes.md").read_text(encoding="utf-8") == ff_features.feature_table()


# --- Beastmaster ------------------------------------------------------------------------------------------


def bonded(level=1, beast="MEDIUM", **kw) -> Sheet:
    sh = make("BEASTMASTER", level, **kw)
    return then(run("feature", sh, [], feature="Beast Bond", beast=beast), sh)


def test_beastmaster_1_beast_bond_gives_the_beast_its_own_track():
    """Beastmaster 1, Beast Bond: the beast's numbers from the data, Health its own track (base + per level)."""
    sh = bonded(level=3, beast="LARGE")
    assert sh.state["feats"]["beast_health"] == 16 + 2 * 3
    track = {t.key: t for t in SYSTEM.tracks(sh)}["beast_health"]
    assert (track.current, track.maximum) == (22, 22)
    assert SYSTEM.adjust(sh, "beast_health", -5)["feats"]["beast_health"] == 17
    with pytest.raises(RulesError):
        run("feature", sh, [], feature="Beast Bond", beast="MEDIUM")  # a living beast is not replaced


def test_beastmaster_1_follow_up_beast_attacks_with_heart_exact_odds():
    """Beastmaster 1, Follow-up: the beast's Setup rolls with your Heart; 2 Stamina; on a hit you land your
    Base Damage and the beast its damage a step down."""
    sh = bonded(stats={"heart": 2, "agility": 4})
    assert odds("attack", sh, armor=14, maneuver="Follow-up") == exchange_oracle(2, 14, 9)
    # d20 15 + 2 = 17 hits; beast 1d6 a step down is 1d4 → 3, +4 Agility = 7; you 1d6 → 5, +4 = 9
    result = run("attack", sh, [15, 3, 5], armor=14, maneuver="Follow-up")
    assert result.outcome == "hit"
    assert result.details == {"damage": 9, "beast_damage": 7}
    assert result.state["stamina"] == sh.state["stamina"] - 2


def test_beastmaster_1_setup_steps_damage_down_and_the_beast_follows_up():
    """Beastmaster 1, Setup: 2 Stamina; your damage one step down; on a hit the beast's Follow-up hits."""
    sh = bonded(stats={"agility": 3})
    assert odds("attack", sh, armor=12, maneuver="Setup") == exchange_oracle(3, 12, 7)
    result = run("attack", sh, [12, 2, 6], armor=12, maneuver="Setup")  # 1d6 → 1d4: 2+3; beast 1d6: 6+4
    assert result.details == {"damage": 5, "beast_damage": 10}
    missed = run("attack", sh, [2], armor=12, maneuver="Setup")
    assert "beast_damage" not in missed.details


def test_beastmaster_3_ferocity_follow_up_lands_on_a_miss_with_favor_spent():
    """Beastmaster 3, Ferocity: Fortune's Favor spent on the attack lets the Follow-up land though the Setup
    missed."""
    sh = bonded(level=3, stats={"agility": 3}, fortunes_favor=1)
    result = run("attack", sh, [2, 3, 4], armor=15, maneuver="Setup", spend_favor=True)
    assert result.outcome == "countered" and result.details["beast_damage"] == 4 + 4
    assert "Fortune's Favor spent" in result.summary
    assert result.state["fortunes_favor"] == 1  # spent, then gained back by the failed test (seed 003, Tests)


def test_beastmaster_2_tracking_team_plus_3_exact_odds():
    """Beastmaster 2, Tracking Team: +3 to track with the beast."""
    sh = make("BEASTMASTER", 2)
    assert odds("test", sh, stat="heart", success=15, situation="Tracking Team") == oracle(2 + 3, 15, 10)
    with pytest.raises(RulesError):
        odds("test", make("BEASTMASTER", 1), stat="heart", success=15, situation="Tracking Team")


def test_beastmaster_1_beast_bond_damage_rest_and_night_stabilises():
    """Beastmaster 1, Beast Bond: the beast takes damage (your deflect may cover it), heals what you heal on a
    rest, and a Night's Rest brings it back from 0 to 1 Health."""
    sh = bonded()
    hurt = run("take_damage", sh, [3], damage=10, deflect=1, beast=True)
    assert hurt.outcome == "down" and hurt.state["feats"]["beast_health"] == 0
    assert hurt.state["stamina"] == sh.state["stamina"] - 2
    assert odds("take_damage", sh, damage=3, beast=True) == {"hurt": 1}
    down = then(hurt, sh)
    night = run("rest", down, [], kind="night")
    assert night.state["feats"]["beast_health"] == 1
    wounded = make("BEASTMASTER", 1, feats={"beast": "LARGE", "beast_health": 10}, health=5)
    rested = run("rest", wounded, [], kind="night")  # you heal level + 1 = 2: so does the beast
    assert rested.state["health"] == 7 and rested.state["feats"]["beast_health"] == 12


def test_beastmaster_7_friends_till_the_end_restores_the_beast():
    """Beastmaster 7, Friends Till the End: a Last Stand restores the beast's Health."""
    sh = make("BEASTMASTER", 7, feats={"beast": "MEDIUM", "beast_health": 1})
    result = run("last_stand", sh, [])
    assert result.state["feats"]["beast_health"] == 6 + 6 * 2


def test_beastmaster_6_shared_senses_once_per_night():
    """Beastmaster 6, Shared Senses: once per Night's Rest, counted and restored by the Night's Rest."""
    sh = make("BEASTMASTER", 6)
    used = then(run("feature", sh, [], feature="Shared Senses"), sh)
    with pytest.raises(RulesError, match="used up"):
        run("feature", used, [], feature="Shared Senses")
    breath = then(run("rest", used, [], kind="breath"), used)
    with pytest.raises(RulesError):
        run("feature", breath, [], feature="Shared Senses")
    night = then(run("rest", used, [], kind="night"), used)
    assert run("feature", night, [], feature="Shared Senses").outcome == "used"


# --- Brawler ----------------------------------------------------------------------------------------------


def test_brawler_2_bravado_adds_mettle_exact_odds():
    """Brawler 2, Bravado: Mettle added again to intimidate."""
    sh = make("BRAWLER", 2, stats={"mettle": 3, "heart": 1})
    assert odds("test", sh, stat="heart", success=15, situation="Bravado") == oracle(1 + 3, 15, 10)


def test_brawler_3_mix_it_up_doubles_base_damage_and_spends_favor():
    """Brawler 3, Mix It Up: Fortune's Favor spent before the attack doubles Base Damage on a hit."""
    sh = make("BRAWLER", 3, fortunes_favor=1)
    assert odds("attack", sh, armor=14, maneuver="Mix It Up") == exchange_oracle(3, 14, 9)  # no second d20
    result = run("attack", sh, [15, 6], armor=14, maneuver="Mix It Up")
    assert result.details["damage"] == (6 + 3) * 2
    assert result.state["fortunes_favor"] == 0
    with pytest.raises(RulesError, match="none"):
        run("attack", make("BRAWLER", 3), [15, 6], armor=14, maneuver="Mix It Up")


def test_brawler_6_slab_of_beef_halves_damage_until_the_next_round():
    """Brawler 6, Slab of Beef: Fortune's Favor; damage taken halved until the start of the next round."""
    sh = make("BRAWLER", 6, fortunes_favor=1)
    slab = then(run("feature", sh, [], feature="Slab of Beef"), sh)
    assert slab.state["fortunes_favor"] == 0
    hit = run("take_damage", slab, [], damage=11)
    assert hit.state["health"] == health_max(slab.state) - 5
    assert odds("take_damage", slab, damage=11) == {"hurt": 1}
    later = then(run("new_round", slab, []), slab)
    assert run("take_damage", later, [], damage=11).state["health"] == health_max(slab.state) - 11


def test_brawler_5_spinning_lariat_area_attack_exact_odds_and_cost():
    """Brawler 5, Signature Move (Spinning Lariat): one AOE attack against every enemy in reach, 1 Stamina plus 1
    per enemy."""
    sh = make("BRAWLER", 5)
    sh = then(run("feature", sh, [], feature="Signature Move", move="Spinning Lariat"), sh)
    assert odds("area_attack", sh, armors="12, 15, 18", feature="Spinning Lariat") == area_oracle(3, (12, 15, 18))
    result = run("area_attack", sh, [13, 4], armors="12, 15, 18", feature="Spinning Lariat")
    assert result.outcome == "hit 2" and result.details["damage"] == 4 + 3
    assert result.state["stamina"] == sh.state["stamina"] - 4


# --- Devoted ----------------------------------------------------------------------------------------------


def test_devoted_1_ive_studied_the_word_plus_3_exact_odds():
    """Devoted 1, I've Studied the Word: +3 to Intellect tests of history and religion."""
    sh = make("DEVOTED", 1, stats={"intellect": 1})
    assert odds("test", sh, stat="intellect", success=16, situation="I've Studied the Word") == oracle(4, 16, 11)


def test_devoted_3_reading_the_signs_favor_waits_for_the_next_test():
    """Devoted 3, Reading the Signs: 1 Stamina; Fortune's Favor on the next test, used up by it."""
    sh = make("DEVOTED", 3, stats={"heart": 2})
    signs = then(run("feature", sh, [], feature="Reading the Signs"), sh)
    assert signs.state["stamina"] == sh.state["stamina"] - 1
    assert odds("test", signs, stat="heart", success=15) == oracle(2, 15, 10, "favor")
    used = run("test", signs, [3, 14], stat="heart", success=15)
    assert used.outcome == "pass" and used.state["feats"]["boons"] == []


def test_devoted_2_rapid_recuperation_three_charges_back_at_rest_and_relax():
    """Devoted 2, Rapid Recuperation: 3 charges, each Health equal to Heart; all back at Rest and Relax."""
    sh = make("DEVOTED", 2, stats={"heart": 3}, health=5)
    for n in range(3):
        result = run("feature", sh, [], feature="Rapid Recuperation")
        assert result.state["health"] == 5 + 3 * (n + 1)
        sh = then(result, sh)
    with pytest.raises(RulesError, match="used up"):
        run("feature", sh, [], feature="Rapid Recuperation")
    night = then(run("rest", sh, [], kind="night"), sh)
    with pytest.raises(RulesError):
        run("feature", night, [], feature="Rapid Recuperation")
    rr = then(run("rest", sh, [], kind="rr"), sh)
    assert "Rapid Recuperation" not in rr.state["feats"]["uses"]


# --- Elementalist -----------------------------------------------------------------------------------------


def test_elementalist_2_enhance_adds_intellect_to_an_allys_next_agility_test():
    """Elementalist 2, Enhance: 1 Stamina; an ally adds your Intellect to their next Mettle or Agility test;
    Fortune's Favor spent doubles it."""
    caster = make("ELEMENTALIST", 2, stats={"intellect": 3}, fortunes_favor=1)
    ally = make("KNIGHT", 1, stats={"agility": 1})
    result = run("feature", caster, [], feature="Enhance", ally=ally, spend_favor=True)
    assert result.state["stamina"] == caster.state["stamina"] - 1 and result.state["fortunes_favor"] == 0
    helped = Sheet(state=result.other_states["ally"], name="Bryn")
    assert odds("test", helped, stat="agility", success=15) == oracle(1 + 6, 15, 10)
    assert odds("test", helped, stat="heart", success=15) == oracle(2, 15, 10)  # not a Mettle or Agility test


def test_elementalist_1_elemental_burst_area_exact_odds_costs_1_stamina():
    """Elementalist 1, Elemental Burst: 1 Stamina; one attack roll against every creature within 5 ft."""
    sh = make("ELEMENTALIST", 1, stats={"intellect": 3})
    assert odds("area_attack", sh, armors="11, 13", feature="Elemental Burst") == area_oracle(3, (11, 13))
    assert odds("area_attack", sh, armors="11, 13", feature="Elemental Burst", misfortune=True) == area_oracle(
        3, (11, 13), "misfortune"
    )
    result = run("area_attack", sh, [20, 5], armors="11, 13", feature="Elemental Burst")
    assert result.outcome == "hit 2" and result.details["damage"] == (5 + 3) * 2  # a natural 20 doubles
    assert result.state["stamina"] == sh.state["stamina"] - 1


def test_elementalist_3_focused_training_elemental_armor():
    """Elementalist 3, Focused Training (Elemental Armor): Intellect added to Armor."""
    sh = make("ELEMENTALIST", 3, stats={"intellect": 2, "agility": 1})
    picked = then(run("feature", sh, [], feature="Focused Training", training="Elemental Armor"), sh)
    assert armor(picked.state) == 10 + 1 + 2
    with pytest.raises(RulesError):
        run("feature", picked, [], feature="Focused Training", training="Bolt Thrower")


# --- Hype Man ---------------------------------------------------------------------------------------------


def test_hype_man_1_build_hype_up_to_three():
    """Hype Man 1, Build Hype: 1 Stamina for 1 Hype, at most 3; Hype is a track on the sheet."""
    sh = make("HYPEMAN", 1, stats={"heart": 3})
    for _ in range(4):
        sh = then(run("feature", sh, [], feature="Build Hype"), sh)
    assert sh.state["feats"]["hype"] == 3 and sh.state["stamina"] == stamina_max(sh.state) - 4
    assert {t.key: t.current for t in SYSTEM.tracks(sh)}["hype"] == 3


def test_hype_man_1_hype_up_gives_an_ally_1d6_exact_odds():
    """Hype Man 1, Hype Up: 1 Hype; the ally adds 1d6 to their roll."""
    sh = make("HYPEMAN", 1, feats={"hype": 1})
    ally = make("RANGER", 1, stats={"agility": 2})
    result = run("feature", sh, [], feature="Hype Up", ally=ally)
    assert result.state["feats"]["hype"] == 0
    hyped = Sheet(state=result.other_states["ally"], name="Bryn")
    assert odds("test", hyped, stat="agility", success=17) == oracle(2, 17, 12, extra=(6,))
    rolled = run("test", hyped, [10, 5], stat="agility", success=17)
    assert rolled.total == 17 and rolled.outcome == "pass" and rolled.state["feats"]["boons"] == []
    with pytest.raises(RulesError, match="Hype"):
        run("feature", then(result, sh), [], feature="Hype Up", ally=ally)


def test_hype_man_5_bedtime_story_exact_odds_once_per_rest_and_relax():
    """Hype Man 5, Bedtime Story: 2d4 + Heart Health, once per Rest and Relax."""
    sh = make("HYPEMAN", 5, stats={"heart": 2}, health=1)
    want = {}
    for a, b in itertools.product(range(1, 5), repeat=2):
        want[f"heal {a + b + 2}"] = want.get(f"heal {a + b + 2}", 0) + Fraction(1, 16)
    assert odds("feature", sh, feature="Bedtime Story") == want
    result = run("feature", sh, [3, 4], feature="Bedtime Story")
    assert result.state["health"] == 1 + 9
    with pytest.raises(RulesError, match="used up"):
        run("feature", then(result, sh), [1, 1], feature="Bedtime Story")


def test_hype_man_7_ill_pull_up_the_slack_costs_3_hype():
    """Hype Man 7, I'll Pull Up The Slack: 3 Hype to add Heart to a non-combat test."""
    sh = make("HYPEMAN", 7, stats={"heart": 3}, feats={"hype": 3})
    assert odds("test", sh, stat="intellect", success=15, situation="I'll Pull Up The Slack") == oracle(1 + 3, 15, 10)
    result = run("test", sh, [10], stat="intellect", success=15, situation="I'll Pull Up The Slack")
    assert result.total == 14 and result.state["feats"]["hype"] == 0
    with pytest.raises(RulesError, match="Hype"):
        odds("test", then(result, sh), stat="intellect", success=15, situation="I'll Pull Up The Slack")


def test_hype_man_6_dont_let_me_die_in_vain_hype_each_last_stand_round():
    """Hype Man 6, Don't Let Me Die In Vain: +1 Hype at the start of each round of a Last Stand."""
    sh = make("HYPEMAN", 6, last_stand=1)
    assert run("new_round", sh, []).state["feats"]["hype"] == 1


# --- Knight -----------------------------------------------------------------------------------------------


def test_knight_2_vow_plus_3_exact_odds():
    """Knight 2, Vow: +3 to Heart tests convincing someone of the truth."""
    sh = make("KNIGHT", 2, stats={"heart": 0})
    assert odds("test", sh, stat="heart", success=14, situation="Vow") == oracle(3, 14, 9)


def test_knight_1_driving_attack_clash_deals_damage_for_1_stamina():
    """Knight 1, Driving Attack: 1 Stamina; on a Mix damage or a push (your choice), on a hit both."""
    sh = make("KNIGHT", 1, stats={"mettle": 3})
    assert odds("attack", sh, armor=15, maneuver="Driving Attack") == exchange_oracle(3, 15, 10)
    result = run("attack", sh, [9, 7], armor=15, maneuver="Driving Attack")
    assert result.outcome == "clash" and result.details["damage"] == 10
    assert result.state["stamina"] == sh.state["stamina"] - 1
    assert "driven 5 ft back instead" in result.summary


def test_knight_6_no_retreat_steps_damage_up():
    """Knight 6, No Retreat, No Surrender: Base Damage one step up (1d10 → 1d12)."""
    sh = make("KNIGHT", 6)
    result = run("attack", sh, [15, 12], armor=12, maneuver="No Retreat, No Surrender")
    assert result.details["damage"] == 12 + 3
    assert result.dice[-1].sides == 12


def test_knight_7_you_wont_be_the_one_immune_in_last_stand():
    """Knight 7, You Won't Be The One To Kill Me: in a Last Stand, no damage from the named creature."""
    sh = make("KNIGHT", 7, last_stand=2)
    result = run("take_damage", sh, [], damage=30, sworn=True)
    assert result.outcome == "unhurt" and result.state["health"] == health_max(sh.state)
    assert odds("take_damage", sh, damage=30, sworn=True) == {"unhurt": 1}


# --- Maverick ---------------------------------------------------------------------------------------------


def test_maverick_1_keen_intuition_plus_3_exact_odds():
    """Maverick 1, Keen Intuition: +3 to spot a lie or avoid a trap."""
    sh = make("MAVERICK", 1, stats={"heart": 2})
    assert odds("test", sh, stat="heart", success=18, situation="Keen Intuition") == oracle(5, 18, 13)


def test_maverick_1_yoink_knocks_the_target_prone_and_halves_on_a_clash():
    """Maverick 1, Yoink: 2 Stamina; a hit knocks the target Prone; a Clash deals half damage."""
    sh = make("MAVERICK", 1, stats={"agility": 2})
    target = make("KNIGHT", 1)
    hit = run("attack", sh, [18, 5], maneuver="Yoink", target=target)
    assert "Prone" in hit.other_states["target"]["statuses"]
    assert hit.state["stamina"] == sh.state["stamina"] - 2
    clash = run("attack", sh, [9, 5], armor=14, maneuver="Yoink")
    assert clash.outcome == "clash" and clash.details["damage"] == (5 + 2) // 2


def test_maverick_2_lucky_shot_adds_2d6_on_a_hit():
    """Maverick 2, Lucky Shot: Fortune's Favor spent before the roll; +2d6 damage on a hit."""
    sh = make("MAVERICK", 2, stats={"agility": 2}, fortunes_favor=1)
    result = run("attack", sh, [16, 4, 3, 6], armor=12, maneuver="Lucky Shot")
    assert result.details["damage"] == 4 + 2 + 3 + 6 and result.state["fortunes_favor"] == 0


def test_maverick_6_luck_runs_out_favor_at_the_last_stand():
    """Maverick 6, Luck Runs Out: Fortune's Favor when the Last Stand is declared and each round of it."""
    sh = make("MAVERICK", 6)
    stand = run("last_stand", sh, [])
    assert stand.state["fortunes_favor"] == 1
    spent = Sheet(state={**stand.state, "fortunes_favor": 0}, name="Sable")
    assert run("new_round", spent, []).state["fortunes_favor"] == 1


# --- Ranger -----------------------------------------------------------------------------------------------


def test_ranger_1_predators_sense_plus_3_doubled_by_final_hunt_exact_odds():
    """Ranger 1, Predator's Sense: +3 to track and find hidden creatures; Ranger 6, Final Hunt doubles it in a Last
    Stand."""
    sh = make("RANGER", 1, stats={"heart": 1})
    assert odds("test", sh, stat="heart", success=15, situation="Predator's Sense") == oracle(4, 15, 10)
    hunting = make("RANGER", 6, stats={"heart": 1}, last_stand=1)
    assert odds("test", hunting, stat="heart", success=15, situation="Predator's Sense") == oracle(7, 15, 10)


def test_ranger_1_precision_of_the_hawk_rerolls_ones():
    """Ranger 1, Precision of the Hawk: a 1 on the damage die is rerolled and the new face taken."""
    sh = make("RANGER", 1, stats={"agility": 2})
    result = run("attack", sh, [15, 1, 1], armor=12)
    assert result.details["damage"] == 1 + 2  # rerolled once: the second 1 stands
    again = run("attack", sh, [15, 1, 7], armor=12)
    assert again.details["damage"] == 7 + 2


def test_ranger_5_poisoned_blade_adds_1d4_rot():
    """Ranger 5, Poisoned Blade: a coated weapon deals 1d4 more (rot)."""
    sh = make("RANGER", 5, stats={"agility": 2})
    result = run("attack", sh, [15, 5, 3], armor=12, maneuver="Poisoned Blade")
    assert result.details["damage"] == 5 + 2 + 3


def test_ranger_2_cunning_stalker_costs_1_stamina_for_plus_2():
    """Ranger 2, Cunning Stalker: 1 Stamina, +2 to stealth."""
    sh = make("RANGER", 2, stats={"agility": 2})
    assert odds("test", sh, stat="agility", success=15, situation="Cunning Stalker") == oracle(4, 15, 10)
    result = run("test", sh, [10], stat="agility", success=15, situation="Cunning Stalker")
    assert result.state["stamina"] == sh.state["stamina"] - 1


# --- Shapeshifter -----------------------------------------------------------------------------------------


def shifted(level=1, form="BIG", **kw) -> Sheet:
    sh = make("SHIFTER", level, **kw)
    sh = then(run("feature", sh, [], feature="Shape Changer", form=form), sh)
    return then(run("feature", sh, [], feature="Shift"), sh)


def test_shapeshifter_1_shift_swaps_armor_and_damage_exact_odds_against_it():
    """Shapeshifter 1, Shape Changer and Shift: 1 Stamina; the Big form's Armor 12 + Mettle (or Heart) and
    1d10 + Mettle replace yours; it adds 4 Health per level, lost first."""
    sh = shifted(level=2, stats={"mettle": 3, "heart": 2, "agility": 0})
    assert sh.state["stamina"] == stamina_max(sh.state) - 1
    assert armor(sh.state) == 12 + 3 and sh.state["feats"]["form_health"] == 8
    attacker = make("KNIGHT", 1, stats={"mettle": 2})
    assert odds("attack", attacker, target=sh) == exchange_oracle(2, 15, 10)
    hit = run("attack", sh, [15, 9], armor=12)
    assert hit.details["damage"] == 9 + 3 and hit.dice[-1].sides == 10
    hurt = run("take_damage", sh, [], damage=10)
    assert hurt.state["feats"]["form_health"] == 0 and hurt.state["health"] == health_max(sh.state) - 2


def test_shapeshifter_1_form_ends_at_catch_your_breath_and_at_0_health():
    """Shapeshifter 1, Shape Changer: the form lasts until you Catch Your Breath or reach 0 Health."""
    sh = shifted()
    assert run("rest", sh, [], kind="breath").state["feats"]["form"] == ""
    down = run("take_damage", sh, [], damage=100)
    assert down.state["feats"]["form"] == "" and down.state["health"] == 0


def test_shapeshifter_1_small_form_adds_its_rot_die():
    """Shapeshifter 1, the Small form: 1d4 piercing and 1d4 + Heart rot."""
    sh = shifted(form="SMALL", stats={"heart": 2, "agility": 1})
    result = run("attack", sh, [15, 3, 2], armor=10)
    assert result.details["damage"] == 3 + 0 + 2 + 2


def test_shapeshifter_3_reinvigorate_adds_heart_to_armor_until_next_round():
    """Shapeshifter 3, Reinvigorate: Fortune's Favor; + Heart to Armor until the end of your next turn."""
    sh = make("SHIFTER", 3, stats={"heart": 3, "agility": 1}, fortunes_favor=1)
    up = then(run("feature", sh, [], feature="Reinvigorate"), sh)
    assert armor(up.state) == 10 + 1 + 3 and up.state["fortunes_favor"] == 0
    assert armor(run("new_round", up, []).state) == 11


def test_shapeshifter_7_blood_tracker_plus_5_exact_odds():
    """Shapeshifter 7, Blood Tracker: +5 to track an enemy you hurt."""
    sh = make("SHIFTER", 7, stats={"heart": 2})
    assert odds("test", sh, stat="heart", success=20, situation="Blood Tracker") == oracle(7, 20, 15)


# --- Spellsword -------------------------------------------------------------------------------------------


def test_spellsword_1_infusions_pick_then_bolster_waits_with_1d6_exact_odds():
    """Spellsword 1, Infusions and Infusion Dice: pick two; activating one costs 2 Stamina; Bolster adds 1d6 to
    the next Mettle or Agility test."""
    sh = make("SPELLSWORD", 1, stats={"agility": 2})
    for option in ("Bolster", "Launch"):
        sh = then(run("feature", sh, [], feature="Infusions", infusion=option), sh)
    assert sh.state["stamina"] == stamina_max(sh.state)  # picking is free
    with pytest.raises(RulesError, match="every pick"):
        run("feature", sh, [], feature="Infusions", infusion="Veil")
    active = then(run("feature", sh, [], feature="Infusions", infusion="Bolster"), sh)
    assert active.state["stamina"] == stamina_max(sh.state) - 2
    assert odds("test", active, stat="agility", success=16) == oracle(2, 16, 11, extra=(6,))
    rested = run("rest", active, [], kind="breath", finish=False)
    assert rested.state["feats"]["infusion"] == ""  # starting a rest deactivates Infusions


def test_spellsword_5_spell_weaver_infusion_dice_on_the_next_attack_exact_odds():
    """Spellsword 5, Spell Weaver: activating an Infusion adds the Infusion Dice to the next attack test."""
    sh = make("SPELLSWORD", 5, stats={"mettle": 3}, feats={"picks": {"Infusions": ["Sight", "Veil"]}})
    woven = then(run("feature", sh, [], feature="Infusions", infusion="Sight"), sh)
    assert odds("attack", woven, armor=16) == exchange_oracle(3, 16, 11, extra=(6,))
    result = run("attack", woven, [10, 4, 5], armor=16)
    assert result.total == 17 and result.state["feats"]["boons"] == []


def test_spellsword_7_limit_break_doubles_the_infusion_dice():
    """Spellsword 7, Limit Break (with Infusion of Power at 6: 1d8): two dice in a Last Stand."""
    sh = make("SPELLSWORD", 7, last_stand=1)
    assert ff_features.infusion_dice(sh.state) == (8, 8)
    assert ff_features.infusion_dice(make("SPELLSWORD", 6).state) == (8,)


# --- a target's statuses ----------------------------------------------------------------------------------


def test_seed_003_prone_target_melee_favor_ranged_misfortune_exact_odds():
    """Seed 003, Statuses (Prone): melee attacks against you have Fortune's Favor, ranged ones Misfortune; read
    from the target's own sheet."""
    attacker = make("KNIGHT", 1, stats={"mettle": 2})
    prone = make("RANGER", 1, stats={"agility": 2}, statuses={"Prone": 0})
    assert odds("attack", attacker, target=prone) == exchange_oracle(2, 12, 7, "favor")
    assert odds("attack", attacker, target=prone, ranged=True) == exchange_oracle(2, 12, 7, "misfortune")
    blind_prone = make("RANGER", 1, stats={"agility": 2}, statuses={"Prone": 0, "Blind": 0})
    assert odds("attack", attacker, target=blind_prone, ranged=True) == exchange_oracle(2, 12, 7)


# --- novice and veteran features ---------------------------------------------------------------------------


def test_novice_independent_once_a_day_plus_3():
    """Novice feature Independent: once per day, +3 to a non-combat test without help (restored by a Night's
    Rest)."""
    sh = make("KNIGHT", 1, novice_features=["Independent"])
    assert odds("test", sh, stat="heart", success=15, situation="Independent") == oracle(5, 15, 10)
    used = then(run("test", sh, [10], stat="heart", success=15, situation="Independent"), sh)
    with pytest.raises(RulesError, match="used up"):
        odds("test", used, stat="heart", success=15, situation="Independent")


def test_veteran_weapon_master_steps_damage_up():
    """Veteran feature Weapon Master: the chosen weapon class's damage one step up."""
    sh = make("KNIGHT", 8, veteran_features=["Weapon Master"])
    result = run("attack", sh, [15, 11], armor=12, maneuver="Weapon Master")
    assert result.dice[-1].sides == 12 and result.details["damage"] == 11 + 3


GOBLIN = {"health": 6, "stamina": 0, "armor": 12, "counter": 7, "attack": 2, "damage": "1d6", "damage_bonus": 0}


def test_seed_003_an_npcs_attack_on_a_prone_or_blind_pc_exact_odds():
    """Seed 003, Statuses (Prone, Blind), read from the target PC's sheet: an NPC's melee attack on a Prone PC
    rolls two d20 and keeps the higher, a ranged one the lower; Blind gives Fortune's Favor to every attack."""
    prone = make("KNIGHT", 1, statuses={"Prone": 0})
    melee = SYSTEM.npc_roll_at("attack", GOBLIN, prone, ScriptedRandom([4, 15, 3]))
    assert melee.total == 17 and [d.kept for d in melee.dice[:2]] == [False, True]
    ranged = SYSTEM.npc_roll_at("ranged_attack", GOBLIN, prone, ScriptedRandom([4, 15, 3]))
    assert ranged.total == 6
    both = make("KNIGHT", 1, statuses={"Prone": 0, "Blind": 0})
    assert SYSTEM.npc_roll_at("ranged_attack", GOBLIN, both, ScriptedRandom([4, 3])).total == 6  # cancel: one d20
    counts = {"critical": 0, "rolled": 0, "fumble": 0}
    for a, b in itertools.product(range(1, 21), repeat=2):
        kept = max(a, b)
        counts["critical" if kept == 20 else "fumble" if kept == 1 else "rolled"] += 1
    want = {k: Fraction(v, 400) for k, v in counts.items()}
    assert dict(melee.odds.outcomes) == want
    plain = SYSTEM.npc_roll_at("attack", GOBLIN, make("KNIGHT", 1), ScriptedRandom([4, 3]))
    assert dict(plain.odds.outcomes) == {
        "critical": Fraction(1, 20),
        "rolled": Fraction(18, 20),
        "fumble": Fraction(1, 20),
    }


def test_shapeshifter_1_a_form_attacks_with_its_stat_or_heart_and_moves_at_its_speed():
    """Shapeshifter 1, Shape Changer: the form's attack stat, or Heart where higher; the Medium form +10 ft."""
    sh = shifted(form="MEDIUM", stats={"agility": 4, "heart": 1})
    assert odds("attack", sh, armor=14) == exchange_oracle(4, 14, 9)
    from rules.systems.fortunes_favor.state import speeds

    assert speeds(sh.state)["ground"] == speeds(make("SHIFTER", stats={"agility": 4, "heart": 1}).state)["ground"] + 10


# --- the uses that charge a cost and leave the rest to the table -------------------------------------------

COST_USES = [
    # (class, level, feature, sheet changes, what it should take: stamina, favor, hype; uses per rest)
    ("BRAWLER", 2, "Counter Puncher", {}, (2, 0, 0), None),
    ("DEVOTED", 3, "Minor Intervention", {"fortunes_favor": 1}, (0, 1, 0), (1, "night")),
    ("DEVOTED", 7, "Divine Inspiration", {}, (0, 0, 0), (3, "rr")),
    ("ELEMENTALIST", 5, "Twin Attack", {}, (2, 0, 0), None),
    ("HYPEMAN", 6, "Try Again Buddy", {"feats": {"hype": 3}}, (0, 0, 3), None),
    ("KNIGHT", 3, "Intercept", {}, (1, 0, 0), None),
    ("KNIGHT", 5, "Unstoppable", {"fortunes_favor": 1}, (0, 1, 0), None),
    ("MAVERICK", 5, "Balanced Fighter", {}, (1, 0, 0), None),
    ("MAVERICK", 7, "Flee the Scene", {}, (3, 0, 0), None),
    ("SHIFTER", 5, "Unusual Form", {}, (2, 0, 0), None),
    ("SPELLSWORD", 2, "Double Up", {"fortunes_favor": 1}, (0, 1, 0), None),
]


@pytest.mark.parametrize(
    ("cls", "level", "name", "changes", "cost", "uses"),
    COST_USES,
    ids=[f"{c.lower()}-{lv}-{n}" for c, lv, n, *_ in COST_USES],
)
def test_a_feature_use_charges_its_cost_and_counts_its_uses(cls, level, name, changes, cost, uses):
    """Each class feature used from the sheet (class, level and feature in the id): its Stamina, Fortune's Favor
    or Hype is charged, with too little it is refused, and uses per rest are counted and restored by that rest."""
    sh = make(cls, level, **changes)
    result = run("feature", sh, [], feature=name)
    stamina, favor, hype = cost
    assert sh.state["stamina"] - result.state["stamina"] == stamina
    assert sh.state["fortunes_favor"] - result.state["fortunes_favor"] == favor
    assert sh.state["feats"]["hype"] - result.state["feats"]["hype"] == hype
    if stamina:
        with pytest.raises(RulesError, match="Stamina"):
            run("feature", make(cls, level, stamina=stamina - 1, **changes), [], feature=name)
    if favor:
        with pytest.raises(RulesError, match="Fortune's Favor"):
            run("feature", make(cls, level, **{**changes, "fortunes_favor": 0}), [], feature=name)
    if hype:
        with pytest.raises(RulesError, match="Hype"):
            run("feature", then(result, sh), [], feature=name)
    if uses:
        count, rest = uses
        for _ in range(count - 1):
            result = run("feature", then(result, sh), [], feature=name)
        spent = then(result, sh)
        with pytest.raises(RulesError, match="used up"):
            run("feature", spent, [], feature=name)
        rested = then(run("rest", spent, [], kind=rest), spent)
        assert name not in rested.state["feats"]["uses"]
    with pytest.raises(RulesError):
        run("feature", make(cls, level - 1, **changes), [], feature=name)  # not yet the character's


def test_hype_man_2_fortunes_friend_gains_fortunes_favor():
    """Hype Man 2, Fortune's Friend: when the hyped ally still fails, Fortune's Favor."""
    assert run("feature", make("HYPEMAN", 2), [], feature="Fortune's Friend").state["fortunes_favor"] == 1


TEST_BONUSES = [
    ("DEVOTED", 5, "Shepherd of the Word", "heart", 3),
    ("KNIGHT", 6, "Mounted Combatant", "agility", 3),
    ("MAVERICK", 3, "Sleight of Hand", "agility", 3),
    ("SHIFTER", 2, "Commune with Nature", "heart", 3),
]


@pytest.mark.parametrize(
    ("cls", "level", "name", "stat", "bonus"),
    TEST_BONUSES,
    ids=[f"{c.lower()}-{lv}-{n}" for c, lv, n, *_ in TEST_BONUSES],
)
def test_a_class_features_test_bonus_exact_odds(cls, level, name, stat, bonus):
    """Each class feature's bonus on the tests it names (class, level and feature in the id)."""
    sh = make(cls, level)
    base = sh.state["stats"][stat]
    assert odds("test", sh, stat=stat, success=16, situation=name) == oracle(base + bonus, 16, 11)
    with pytest.raises(RulesError):
        odds("test", make(cls, level - 1), stat=stat, success=16, situation=name)


def test_brawler_7_running_on_pure_adrenaline_favor_on_mettle_tests_in_last_stand():
    """Brawler 7, Running on Pure Adrenaline: during a Last Stand, Fortune's Favor on Mettle tests."""
    sh = make("BRAWLER", 7, last_stand=1)
    assert odds("test", sh, stat="mettle", success=15) == oracle(3, 15, 10, "favor")
    assert odds("test", make("BRAWLER", 7), stat="mettle", success=15) == oracle(3, 15, 10)


def test_devoted_6_martyr_steps_base_damage_up_in_last_stand():
    """Devoted 6, Martyr: during a Last Stand Base Damage one step up (1d6 → 1d8)."""
    result = run("attack", make("DEVOTED", 6, last_stand=1), [15, 8], armor=12)
    assert result.dice[-1].sides == 8 and result.details["damage"] == 8 + 2


def test_shapeshifter_6_natures_wrath_adds_2d6_rot_in_last_stand():
    """Shapeshifter 6, Nature's Wrath: during a Last Stand every attack adds 2d6 rot."""
    result = run("attack", make("SHIFTER", 6, last_stand=1), [15, 3, 4, 5], armor=12)
    assert result.details["damage"] == 3 + 2 + 4 + 5


def test_elementalist_7_bursting_shot_spends_favor_and_splashes():
    """Elementalist 7, Bursting Shot: Fortune's Favor spent; on a hit, enemies within 5 ft take half."""
    sh = make("ELEMENTALIST", 7, fortunes_favor=1)
    result = run("attack", sh, [15, 4], armor=12, maneuver="Bursting Shot")
    assert result.state["fortunes_favor"] == 0 and "take half" in result.summary


def test_knight_1_sweeping_attack_area_exact_odds_costs_1_stamina():
    """Knight 1, Sweeping Attack: 1 Stamina; one roll against the target and each adjacent enemy."""
    sh = make("KNIGHT", 1)
    assert odds("area_attack", sh, armors="12, 16", feature="Sweeping Attack", favor=True) == area_oracle(
        3, (12, 16), "favor"
    )
    assert run("area_attack", sh, [2], armors="12, 16", feature="Sweeping Attack").state["stamina"] == (
        sh.state["stamina"] - 1
    )


def test_beastmaster_5_ultimate_tag_team_picks_two_then_costs_2_more():
    """Beastmaster 5, Ultimate Tag Team: pick two maneuvers (free); using one costs 2 Stamina more."""
    sh = make("BEASTMASTER", 5)
    for option in ("Savage Rend", "Protective Pelt"):
        sh = then(run("feature", sh, [], feature="Ultimate Tag Team", tag_move=option), sh)
    assert sh.state["stamina"] == stamina_max(sh.state)
    with pytest.raises(RulesError, match="every pick"):
        run("feature", sh, [], feature="Ultimate Tag Team", tag_move="Predator's Leap")
    used = run("feature", sh, [], feature="Ultimate Tag Team", tag_move="Savage Rend")
    assert used.outcome == "used" and used.state["stamina"] == sh.state["stamina"] - 2


def test_spellsword_3_infusion_training_and_6_infusion_of_power_add_picks():
    """Spellsword 3, Infusion Training: a third Infusion; Spellsword 6, Infusion of Power: a fourth, and 1d8."""
    sh = make("SPELLSWORD", 6, feats={"picks": {"Infusions": ["Bind", "Veil"]}})
    sh = then(run("feature", sh, [], feature="Infusion Training", infusion="Sight"), sh)
    sh = then(run("feature", sh, [], feature="Infusions", infusion="Launch"), sh)
    assert sh.state["feats"]["picks"]["Infusions"] == ["Bind", "Veil", "Sight", "Launch"]
    with pytest.raises(RulesError, match="every pick"):
        run("feature", sh, [], feature="Infusions", infusion="Absorb")
    assert ff_features.infusion_dice(sh.state) == (8,)


def test_brawler_1_fighting_style_and_muscle_bound_body():
    """Brawler 1, Fighting Style (Agility doubles range) and Muscle Bound Body (10 + Mettle + Agility at most 2)."""
    from rules.systems.fortunes_favor.display import _range_max

    sh = make("BRAWLER", 1, attack_stat="agility", stats={"agility": 3, "mettle": 2})
    assert _range_max(sh.state) == 80 and armor(sh.state) == 10 + 2 + 2
    assert odds("attack", sh, armor=14) == exchange_oracle(3, 14, 9)


def test_spellsword_1_fighting_style_picks_the_attack_and_damage_stat():
    """Spellsword 1, Fighting Style: Mettle or Agility for attack and damage."""
    sh = make("SPELLSWORD", 1, attack_stat="agility", stats={"agility": 3, "mettle": 1})
    assert odds("attack", sh, armor=14) == exchange_oracle(3, 14, 9)


@pytest.mark.parametrize("cls", list(data.CLASSES))
def test_stat_up_at_4_and_stat_up_2_at_8(cls):
    """Every class, 4 Stat Up and 8 Stat Up 2: +1 to a stat (max 5) with a novice, then a veteran feature."""
    sh = make(cls, 3, level_ready=True)
    up = run("level_up", sh, [], stat="heart", novice="Swift")
    assert up.state["stats"]["heart"] == 3 and "Swift" in up.state["novice_features"]
    sh8 = make(cls, 7, level_ready=True)
    up8 = run("level_up", sh8, [], stat="mettle", veteran="Charger")
    assert up8.state["stats"]["mettle"] == 4 and up8.state["veteran_features"] == ["Charger"]


def test_shapeshifter_1_shift_is_an_action_so_dying_it_costs_1_stamina_more():
    """Shapeshifter 1, Shift ("as an Action") with seed 003, Dying: 1 Stamina more at 0 Health, unless helped."""
    sh = make("SHIFTER", 1, health=0, stamina=4, feats={"form_choice": "MEDIUM"})
    assert run("feature", sh, [], feature="Shift").state["stamina"] == 2
    assert run("feature", sh, [], feature="Shift", ally_helps=True).state["stamina"] == 3


# --- issue 35 item 6: features that changed a number, a roll or a resource but were still text ------------


def test_brawler_1_tag_team_gives_the_ally_favor_on_their_next_attack_until_the_next_round():
    """Brawler 1, Tag Team: after a melee hit the ally has Fortune's Favor on their next attack before the next
    round (the ally's odds are the exact two-d20 ones, and the round's end takes it back)."""
    brawler = make("BRAWLER", 1)
    ally = make("KNIGHT", 1, stats={"mettle": 2})
    with pytest.raises(RulesError, match="Tag Team helps an ally"):
        run("feature", brawler, [], feature="Tag Team")
    result = run("feature", brawler, [], feature="Tag Team", ally=ally)
    tagged = Sheet(state=result.other_states["ally"], name="Bryn")
    assert odds("attack", tagged, armor=14) == exchange_oracle(2, 14, 9, "favor")
    assert odds("test", tagged, stat="mettle", success=15) == oracle(2, 15, 10)  # an attack's, not a test's
    attacked = run("attack", tagged, [3, 17, 4], armor=14)
    assert attacked.outcome == "hit" and attacked.state["feats"]["boons"] == []
    later = then(run("new_round", tagged, []), tagged)
    assert later.state["feats"]["boons"] == []
    assert odds("attack", later, armor=14) == exchange_oracle(2, 14, 9)


def test_devoted_1_spellcasting_charges_the_spells_level_in_stamina():
    """Devoted 1, Spellcasting: a spell costs Stamina equal to its level; only levels up to yours."""
    sh = make("DEVOTED", 3)
    cast = run("feature", sh, [], feature="Spellcasting", spell_level="2")
    assert cast.outcome == "cast" and cast.state["stamina"] == sh.state["stamina"] - 2
    with pytest.raises(RulesError, match="Spell level"):
        run("feature", sh, [], feature="Spellcasting", spell_level="4")
    tired = make("DEVOTED", 3, stamina=1)
    with pytest.raises(RulesError, match="Stamina"):
        run("feature", tired, [], feature="Spellcasting", spell_level="3")


def test_elementalist_5_overcharge_steps_the_next_damage_up_two():
    """Elementalist 5, Overcharge: after damage of your element, the next damage dealt is two dice steps up
    (1d6 → 1d10), once."""
    sh = make("ELEMENTALIST", 5, stats={"intellect": 3})
    charged = then(run("feature", sh, [], feature="Overcharge"), sh)
    assert charged.state["feats"]["overcharged"] is True
    with pytest.raises(RulesError, match="already"):
        run("feature", charged, [], feature="Overcharge")
    missed = then(run("attack", charged, [2], armor=16), charged)
    assert missed.state["feats"]["overcharged"] is True  # no damage dealt: it still waits
    hit = run("attack", missed, [15, 9], armor=14)
    assert hit.details["damage"] == 9 + 3 and [d.sides for d in hit.dice] == [20, 10]
    assert hit.state["feats"]["overcharged"] is False
    plain = run("attack", then(hit, sh), [15, 6], armor=14)
    assert [d.sides for d in plain.dice] == [20, 6]


def test_ranger_2_wild_guide_adds_heart_to_the_off_road_march():
    """Ranger 2, Wild Guide: the party adds your Heart to its daily pace off road."""
    from rules.systems.fortunes_favor.travel import march_miles

    assert march_miles(make("RANGER", 1, stats={"mettle": 3, "heart": 2}).state) == (18, 9)
    assert march_miles(make("RANGER", 2, stats={"mettle": 3, "heart": 2}).state) == (18, 11)
    assert march_miles(make("KNIGHT", 2, stats={"mettle": 3, "heart": 2}).state) == (18, 9)


def test_ranger_7_long_shot_doubles_range_and_stops_you_until_the_next_round():
    """Ranger 7, Long Shot: speed 0, range doubled, until the start of the next round."""
    from rules.systems.fortunes_favor.display import _range_max
    from rules.systems.fortunes_favor.state import speeds

    sh = make("RANGER", 7)
    top = _range_max(sh.state)
    aimed = then(run("feature", sh, [], feature="Long Shot"), sh)
    assert _range_max(aimed.state) == 2 * top and set(speeds(aimed.state).values()) == {0}
    later = then(run("new_round", aimed, []), aimed)
    assert _range_max(later.state) == top and speeds(later.state) == speeds(sh.state)


def test_spellsword_1_veil_infusion_adds_the_infusion_dice_to_hiding_exact_odds():
    """Spellsword 1, the Veil Infusion: while active, the Infusion Dice (1d6) on tests to hide or sneak."""
    sh = make("SPELLSWORD", 1, stats={"agility": 2}, feats={"picks": {"Infusions": ["Veil", "Bind"]}})
    with pytest.raises(RulesError, match="choose one of"):  # not offered while Veil is not active
        odds("test", sh, stat="agility", success=15, situation="Veil")
    veiled = then(run("feature", sh, [], feature="Infusions", infusion="Veil"), sh)
    assert odds("test", veiled, stat="agility", success=15, situation="Veil") == oracle(2, 15, 10, extra=(6,))
    rolled = run("test", veiled, [9, 4], stat="agility", success=15, situation="Veil")
    assert rolled.total == 15 and rolled.outcome == "pass"
    assert rolled.state["feats"]["infusion"] == "Veil"  # it lasts the minute, not one test


def test_devoted_3_minor_intervention_makes_the_next_test_one_step_better_exact_odds():
    """Devoted 3, Minor Intervention: once a day, Fortune's Favor: a Failure becomes Mixed and a Mixed a Success
    (on your test or an ally's)."""
    sh = make("DEVOTED", 3, stats={"heart": 1}, fortunes_favor=1)
    ally = make("KNIGHT", 1, stats={"heart": 0})
    result = run("feature", sh, [], feature="Minor Intervention", ally=ally)
    assert result.state["fortunes_favor"] == 0 and result.state["feats"]["uses"] == {"Minor Intervention": 1}
    helped = Sheet(state=result.other_states["ally"], name="Bryn")
    plain = oracle(0, 15, 10)
    assert odds("test", helped, stat="heart", success=15) == {
        "pass": plain["pass"] + plain["mixed"],
        "mixed": plain["fail"],
        "fail": 0,  # nothing fails
    }
    rolled = run("test", helped, [4], stat="heart", success=15)
    assert rolled.outcome == "mixed" and "Fail made Mixed" in rolled.summary
    assert rolled.state["fortunes_favor"] == helped.state["fortunes_favor"]  # no Failure: no Fortune's Favor gained
    again = then(result, sh)
    with pytest.raises(RulesError, match="used up"):
        run(
            "feature", Sheet(state={**again.state, "fortunes_favor": 1}, name="Sable"), [], feature="Minor Intervention"
        )


def test_hype_man_3_luck_on_your_side_a_third_d20_for_an_ally_with_favor_exact_odds():
    """Hype Man 3, Luck On Your Side: your Fortune's Favor lets an ally rolling with Fortune's Favor roll another
    d20 and keep the best."""
    hype = make("HYPEMAN", 3, fortunes_favor=1)
    ally = make("KNIGHT", 1, stats={"mettle": 2})
    result = run("feature", hype, [], feature="Luck On Your Side", ally=ally)
    assert result.state["fortunes_favor"] == 0
    lucky = Sheet(state=result.other_states["ally"], name="Bryn")
    counts = {"pass": 0, "mixed": 0, "fail": 0}
    for faces in itertools.product(range(1, 21), repeat=3):
        kept = max(faces)
        counts["pass" if kept == 20 or kept + 2 >= 16 else "mixed" if kept != 1 and kept + 2 >= 11 else "fail"] += 1
    want = {k: Fraction(v, 20**3) for k, v in counts.items()}
    assert odds("test", lucky, stat="mettle", success=16, favor=True) == want
    assert odds("test", lucky, stat="mettle", success=16) == oracle(2, 16, 11)  # no Fortune's Favor: one d20
    rolled = run("test", lucky, [3, 9, 17], stat="mettle", success=16, favor=True)
    assert rolled.total == 19 and rolled.outcome == "pass" and rolled.state["feats"]["boons"] == []
    with pytest.raises(RulesError, match="Fortune's Favor"):
        run("feature", then(result, hype), [], feature="Luck On Your Side", ally=ally)


def test_hype_man_3_toughen_up_rerolls_the_allys_lowest_deflect_die_exact_odds():
    """Hype Man 3, Toughen Up: 2 Stamina; the ally rerolls one deflect die and takes the new face (Lantern rerolls
    the lowest when it is below the die's average)."""
    hype = make("HYPEMAN", 3)
    ally = make("BEASTMASTER", 3)  # deflect 1d4 a die
    result = run("feature", hype, [], feature="Toughen Up", ally=ally)
    assert result.state["stamina"] == hype.state["stamina"] - 2
    tough = Sheet(state=result.other_states["ally"], name="Bryn")
    unhurt = n = 0
    for a, b in itertools.product(range(1, 5), repeat=2):
        low = min(a, b)
        for new in range(1, 5) if low < 2.5 else (low,):
            weight = 4 if low >= 2.5 else 1
            unhurt += weight * (a + b - low + new >= 6)
            n += weight
    assert odds("take_damage", tough, damage=6, deflect=2)["unhurt"] == Fraction(unhurt, n)
    rolled = run("take_damage", tough, [1, 4, 3], damage=6, deflect=2)
    assert rolled.total == 0 and "1 rerolled to 3" in rolled.summary and rolled.state["feats"]["boons"] == []
    assert odds("test", tough, stat="mettle", success=15) == oracle(3, 15, 10)  # a test does not take it


def test_spellsword_1_absorb_infusion_takes_the_infusion_dice_off_damage_exact_odds():
    """Spellsword 1, the Absorb Infusion: with a shield, damage taken is reduced by the Infusion Dice (1d6)."""
    sh = make("SPELLSWORD", 1, stats={"agility": 3}, shield="light", feats={"picks": {"Infusions": ["Absorb", "Bind"]}})
    active = then(run("feature", sh, [], feature="Infusions", infusion="Absorb"), sh)
    assert odds("take_damage", active, damage=5) == {"unhurt": Fraction(2, 6), "hurt": Fraction(4, 6)}
    hit = run("take_damage", active, [3], damage=5)
    assert hit.state["health"] == active.state["health"] - 2 and "Absorb: 3 off" in hit.summary
    assert odds("take_damage", active, damage=5, absorb=False) == {"hurt": 1}
    bare = then(
        run(
            "feature",
            sh.__class__(state={**sh.state, "shield": "none"}, name="Sable"),
            [],
            feature="Infusions",
            infusion="Absorb",
        ),
        sh,
    )
    with pytest.raises(RulesError, match="shield"):
        odds("take_damage", bare, damage=5)


def test_elementalist_6_power_overwhelming_a_last_blast_of_three_times_the_dice_then_death():
    """Elementalist 6, Power Overwhelming: during your Last Stand, end it with a 30 ft area attack: three times your
    Base Damage dice (1d6 → 3d6) to those hit, half to those you Clash with or miss; you die."""
    standing = make("ELEMENTALIST", 6, stats={"intellect": 3})
    with pytest.raises(RulesError, match="choose one of"):  # offered only during a Last Stand
        run("area_attack", standing, [15], armors="12, 30", feature="Power Overwhelming")
    sh = make("ELEMENTALIST", 6, stats={"intellect": 3}, health=0, last_stand=1)
    bonus = odds("area_attack", sh, armors="12, 30")
    assert odds("area_attack", sh, armors="12, 30", feature="Power Overwhelming") == bonus
    result = run("area_attack", sh, [15, 4, 5, 6], armors="12, 30", feature="Power Overwhelming")
    assert result.outcome == "hit 1" and result.details["damage"] == 4 + 5 + 6 + 3
    assert [d.sides for d in result.dice] == [20, 6, 6, 6]
    assert "9 to each of the 1 not hit" in result.summary and result.state["dead"] is True


def test_spellsword_1_disrupt_infusion_takes_the_infusion_dice_off_an_npcs_attack_roll():
    """Spellsword 1, the Disrupt Infusion: an attack on you, once rolled, loses your Infusion Dice (1d6); whether
    it then hits is read against your Armor with the lower total. A natural 20 still hits."""
    sh = make("SPELLSWORD", 1, feats={"picks": {"Infusions": ["Disrupt", "Bind"]}})
    plain = SYSTEM.npc_roll_at("attack", GOBLIN, sh, ScriptedRandom([12, 3]))
    assert plain.total == 14
    active = then(run("feature", sh, [], feature="Infusions", infusion="Disrupt"), sh)
    cut = SYSTEM.npc_roll_at("attack", GOBLIN, active, ScriptedRandom([12, 3, 5]))
    assert cut.total == 14 - 5 and "Disrupt: −5" in cut.summary and cut.dice[-1].sides == 6
    assert armor(sh.state) == 12
    assert SYSTEM.npc_attack_harm(plain, sh).lands and not SYSTEM.npc_attack_harm(cut, active).lands
    crit = SYSTEM.npc_roll_at("attack", GOBLIN, active, ScriptedRandom([20, 3, 6]))
    assert crit.outcome == "critical"


def test_beastmaster_5_ultimate_tag_team_maneuvers_ride_a_setup_or_follow_up_for_2_stamina_more():
    """Beastmaster 5, Ultimate Tag Team: a picked maneuver takes the place of the Setup or Follow-up it names for
    2 Stamina more; Protective Pelt gives you and the beast +2 Armor until the next round; Entangling Strike's
    Mettle test is said on a hit; the attack's odds are the Setup's or Follow-up's own."""
    sh = make(
        "BEASTMASTER",
        5,
        stats={"heart": 2, "agility": 4},
        feats={
            "beast": "MEDIUM",
            "beast_health": 14,
            "picks": {"Ultimate Tag Team": ["Protective Pelt", "Entangling Strike"]},
        },
    )
    with pytest.raises(RulesError, match="takes the place of a Follow-up"):
        run("attack", sh, [15, 3, 5], armor=14, maneuver="Setup", tag_move="Protective Pelt")
    assert odds("attack", sh, armor=14, maneuver="Follow-up", tag_move="Protective Pelt") == exchange_oracle(2, 14, 9)
    pelt = run("attack", sh, [15, 3, 5], armor=14, maneuver="Follow-up", tag_move="Protective Pelt")
    assert pelt.state["stamina"] == sh.state["stamina"] - 2 - 2
    assert armor(pelt.state) == armor(sh.state) + 2 and "Protective Pelt: +2 Armor" in pelt.summary
    later = then(run("new_round", then(pelt, sh), []), sh)
    assert armor(later.state) == armor(sh.state)
    entangle = run("attack", sh, [12, 2, 6], armor=12, maneuver="Setup", tag_move="Entangling Strike")
    assert "Entangling Strike: the target tests Mettle (13/8)" in entangle.summary
    tired = make("BEASTMASTER", 5, stamina=3, feats=sh.state["feats"])
    with pytest.raises(RulesError, match="Stamina"):
        odds("attack", tired, armor=14, maneuver="Follow-up", tag_move="Protective Pelt")


def test_brawler_5_signature_move_crippling_strike_is_an_attack_charging_2_stamina_with_its_rider():
    """Brawler 5, Signature Move (Crippling Strike): once picked, the Attack form offers it: 2 Stamina, the attack's
    own odds, and on a melee hit the enemy's damage halved and its speed 0 until the round ends."""
    sh = make("BRAWLER", 5)
    with pytest.raises(RulesError, match="choose one of"):
        run("attack", sh, [15, 4], armor=12, maneuver="Crippling Strike")  # not picked: not offered
    sh = then(run("feature", sh, [], feature="Signature Move", move="Crippling Strike"), sh)
    assert odds("attack", sh, armor=12, maneuver="Crippling Strike") == exchange_oracle(3, 12, 7)
    hit = run("attack", sh, [15, 4], armor=12, maneuver="Crippling Strike")
    assert hit.outcome == "hit" and hit.state["stamina"] == sh.state["stamina"] - 2
    assert "Crippling Strike: on a hit the enemy deals half damage and cannot move" in hit.summary
    missed = run("attack", sh, [2], armor=12, maneuver="Crippling Strike")
    assert "Crippling Strike:" not in missed.summary.split("(")[0]


# --- issue 35 item 8: one-line mutants of the class features that passed the suite, each pinned ----------------


def _damage_dice(result) -> list[int]:
    """The sides of the attacker's own damage dice (not the beast's, not a reroll's first face)."""
    return [d.sides for d in result.dice if d.label == "damage" and d.kept]


def test_beastmaster_1_setup_takes_your_damage_exactly_one_step_down():
    """Beastmaster 1, Setup: your damage one step down, 1d6 → 1d4 (the die rolled is a d4, not the d6 or a d8)."""
    sh = bonded(stats={"agility": 3})
    result = run("attack", sh, [12, 4, 1], armor=12, maneuver="Setup")
    assert _damage_dice(result) == [4] and result.details["damage"] == 4 + 3
    plain = run("attack", sh, [12, 6], armor=12)
    assert _damage_dice(plain) == [6] and plain.details["damage"] == 6 + 3


def test_ranger_1_precision_of_the_hawk_rerolls_a_one_and_nothing_else():
    """Ranger 1, Precision of the Hawk: only a 1 on a damage die is rerolled; a 2 stands (one die, no reroll)."""
    sh = make("RANGER", 1, stats={"agility": 2})
    result = run("attack", sh, [15, 2], armor=12)
    assert result.details["damage"] == 2 + 2 and [d.face for d in result.dice if "reroll" in d.label] == []
    one = run("attack", sh, [15, 1, 2], armor=12)
    assert one.details["damage"] == 2 + 2 and [d.face for d in one.dice if "reroll" in d.label] == [2]


def test_beastmaster_3_ferocity_needs_fortunes_favor_spent():
    """Beastmaster 3, Ferocity: the Follow-up lands on a missed Setup only with Fortune's Favor spent on the attack;
    without it a miss brings no Follow-up (no beast die is rolled)."""
    sh = bonded(level=3, stats={"agility": 3}, fortunes_favor=1)
    missed = run("attack", sh, [2], armor=15, maneuver="Setup")
    assert missed.outcome == "countered" and "beast_damage" not in missed.details


def test_beastmaster_7_friends_till_the_end_follows_up_on_a_miss_only_in_a_last_stand():
    """Beastmaster 7, Friends Till the End: during your Last Stand the beast's Follow-up lands though the Setup
    missed; outside one, a miss is a miss."""
    sh = bonded(level=7, stats={"agility": 3})
    missed = run("attack", sh, [2], armor=15, maneuver="Setup")
    assert "beast_damage" not in missed.details
    standing = Sheet(state={**sh.state, "last_stand": 1}, name=sh.name)
    last = run("attack", standing, [2, 3], armor=15, maneuver="Setup")
    assert last.outcome == "countered" and "beast_damage" in last.details


def test_beastmaster_1_a_beast_at_0_health_does_not_follow_up():
    """Beastmaster 1, Beast Bond: a beast at 0 Health does nothing, so a Setup that hits brings no Follow-up."""
    sh = bonded(stats={"agility": 3})
    down = Sheet(state={**sh.state, "feats": {**sh.state["feats"], "beast_health": 0}}, name=sh.name)
    try:
        result = run("attack", down, [12, 2], armor=12, maneuver="Setup")
    except RulesError:
        return  # a Setup refused while the beast is down is as good: it does not follow up
    assert result.outcome == "hit" and "beast_damage" not in result.details


def test_devoted_6_martyr_steps_damage_up_only_in_a_last_stand():
    """Devoted 6, Martyr: the step up is for a Last Stand alone; a Devoted 6 standing, or a Devoted 5 in a Last Stand
    (no Martyr yet), rolls the class's 1d6."""
    for sh in (make("DEVOTED", 6), make("DEVOTED", 5, last_stand=1)):
        result = run("attack", sh, [15, 6], armor=12)
        assert _damage_dice(result) == [6] and result.details["damage"] == 6 + 2


def test_shapeshifter_6_natures_wrath_adds_rot_only_in_a_last_stand():
    """Shapeshifter 6, Nature's Wrath: the 2d6 rot is for a Last Stand alone; a Shapeshifter 6 standing, or a
    Shapeshifter 5 in a Last Stand, rolls no rot."""
    for sh in (make("SHIFTER", 6), make("SHIFTER", 5, last_stand=1)):
        result = run("attack", sh, [15, 3], armor=12)
        assert result.details["damage"] == 3 + 2 and not [d for d in result.dice if d.label == "rot"]


def test_spellsword_7_limit_break_doubles_the_infusion_dice_only_in_a_last_stand():
    """Spellsword 7, Limit Break: two Infusion Dice during a Last Stand alone; a Spellsword 7 standing, or a
    Spellsword 6 in a Last Stand (no Limit Break yet), has the one 1d8 of Infusion of Power."""
    assert ff_features.infusion_dice(make("SPELLSWORD", 7).state) == (8,)
    assert ff_features.infusion_dice(make("SPELLSWORD", 6, last_stand=1).state) == (8,)
