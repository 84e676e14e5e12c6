"""Grit & Flesh, seed 004: every rule the engine applies, with exact dice and exact odds.

Sections named in docstrings are headings of ../shared/seeds/004_ebd0e2535c17253c.txt ("seed 004"); "spec" is
../shared/rules-spec.md §004. Numbers the seed leaves out are house defaults (spec §004.12), tested as settings.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.base import Hireling, Item, RulesError, Sheet, check_params
from rules.dice import ScriptedRandom
from rules.systems.grit_flesh import SYSTEM
from rules.systems.grit_flesh.combat import attack_odds, attack_outcome, kept
from rules.systems.grit_flesh.settings import DEFAULTS, parse_spell

P = SYSTEM.procedures()


def make_state(**extra: Any) -> dict[str, Any]:
    state = SYSTEM.default_state()
    state.update(
        attributes={"STR": 10, "DEX": 12, "CON": 9, "INT": 8, "WIS": 11, "CHA": 7},
        grit=6,
        grit_max=6,
        flesh=3,
        flesh_max=3,
        coins=100,
    )
    state.update(extra)
    return SYSTEM.validate_state(state)


def armour(ac: int = 2, now: int | None = None, id_: int = 2, kind: str = "armour") -> Item:
    return Item(
        "Light armour" if kind == "armour" else "Shield",
        kind,
        1,
        1,
        {"AC": ac, "current_AC": ac if now is None else now},
        worn=True,
        id=id_,
    )


def weapon(size: str = "medium", reach: int = 0, id_: int = 1, **more: Any) -> Item:
    bonus = {"small": -1, "medium": 0, "large": 1}[size]
    hands = 2 if size == "large" or (reach and size != "small") else 1
    data = {"size": size, "hands": hands, "damage_bonus": bonus, "range": reach, "cost": 6, **more}
    return Item(f"{size} {'bow' if reach else 'blade'}", "weapon", hands, 1, data, id=id_)


def sheet(state: dict[str, Any] | None = None, items=(), hirelings=(), settings=None) -> Sheet:
    return Sheet(state or make_state(), tuple(items), tuple(hirelings), "Ana", settings or dict(DEFAULTS))


def roll(key: str, sh: Sheet, faces, **params):
    proc = P[key]
    clean = check_params(proc, sh, params)
    rng = ScriptedRandom(faces)
    result = proc.roll(sh, clean, rng)
    assert rng.remaining == 0
    return result


def odds(key: str, sh: Sheet, **params):
    proc = P[key]
    return proc.odds(sh, check_params(proc, sh, params))


# --- spec §004.13 engine vectors ------------------------------------------------------------------------


def _vector_av14_ac4():
    for face in range(1, 5):
        assert attack_outcome(face, 14, 4) == "blocked"
    for face in range(5, 14):
        assert attack_outcome(face, 14, 4) == "hit"
    assert attack_outcome(14, 14, 4) == "crit"
    for face in range(15, 21):
        assert attack_outcome(face, 14, 4) == "miss"
    # rolls 1-4 miss and a PC target's armour drops 1 AC
    sh = sheet(items=[armour(4)])
    result = roll("incoming", sh, [3], attacker_av=14)
    assert result.outcome == "blocked" and result.items_changed[0].data["current_AC"] == 3
    # 5-13 hit, damage to Grit; 14 crits, damage to Flesh
    hit = roll("incoming", sh, [9, 3], attacker_av=14)
    assert (hit.state["grit"], hit.state["flesh"]) == (3, 3)
    crit = roll("incoming", sh, [14, 2], attacker_av=14)
    assert (crit.state["grit"], crit.state["flesh"]) == (6, 1)


def _vector_advantage():
    assert attack_outcome(16, 16, 4) == "crit"
    sh = sheet(state=make_state(av=14), items=[weapon()])
    result = roll("attack", sh, [16, 3], weapon="1", target_ac=4, advantage=True)
    assert result.outcome == "crit" and "5 damage" in result.summary


def _vector_small_weapon():
    sh = sheet(state=make_state(av=14), items=[weapon("small")])
    assert roll("attack", sh, [4, 6], weapon="1", target_ac=4).outcome == "hit"


def _vector_damage_spill():
    sh = sheet(state=make_state(grit=2, grit_max=6, flesh=3, flesh_max=3, st=12))
    result = roll("damage", sh, [10, 4], amount=5)
    assert (result.state["grit"], result.state["flesh"]) == (0, 0)
    assert result.outcome == "out" and result.state["out_rounds"] == 4
    woke = roll("come_round", sh.with_state(result.state), [])
    assert woke.state["flesh"] == 1 and woke.state["out_rounds"] == 0


def _vector_quick_cast():
    book = [{"name": "Slumber", "level": 2, "corrupted": False}]
    sh = sheet(state=make_state(st=12, spellbook=book), items=[armour(2)])
    assert odds("cast", sh, spell="book:0").of("controlled") == Fraction(10, 20)
    for face in range(3, 13):
        assert roll("cast", sh, [face], spell="book:0").outcome == "controlled"
    failed = roll("cast", sh, [2, 6], spell="book:0")
    assert failed.outcome == "miscast"
    assert failed.state["spellbook"][0]["corrupted"] and failed.state["grit"] == 4
    assert roll("cast", sh, [13, 6], spell="book:0").outcome == "miscast"


def _vector_rest():
    sh = sheet(state=make_state(grit=1, grit_max=6, flesh=3, flesh_max=3))
    assert roll("rest", sh, [6]).state["grit"] == 6
    hurt = sheet(state=make_state(grit=1, grit_max=6, flesh=2, flesh_max=3))
    with pytest.raises(RulesError, match="Flesh damage"):
        roll("rest", hurt, [])


VECTORS = {
    "av14-ac4": _vector_av14_ac4,
    "advantage": _vector_advantage,
    "small-weapon": _vector_small_weapon,
    "damage-spill": _vector_damage_spill,
    "quick-cast": _vector_quick_cast,
    "rest": _vector_rest,
}


@pytest.mark.parametrize("vector", VECTORS)
def test_spec_004_13_engine_vectors(vector):
    """spec §004.13: every engine test vector passes as written."""
    VECTORS[vector]()


# --- checks and saves ---------------------------------------------------------------------------------


def test_check_table_neither_one_both():
    """seed 004 (Attribute Checks): neither cannot succeed, one rolls d20 ≤ attribute, both succeed outright."""
    sh = sheet()
    assert odds("check", sh, attribute="DEX", skill=False, tools=False).outcomes == (("cannot_succeed", Fraction(1)),)
    assert odds("check", sh, attribute="DEX", skill=True, tools=True).outcomes == (("automatic", Fraction(1)),)
    assert odds("check", sh, attribute="DEX", skill=True, tools=False).of("pass") == Fraction(12, 20)
    assert odds("check", sh, attribute="DEX", skill=False, tools=True).of("pass") == Fraction(12, 20)
    assert roll("check", sh, [], attribute="DEX", skill=False, tools=False).outcome == "cannot_succeed"
    assert roll("check", sh, [12], attribute="DEX", skill=True, tools=False).outcome == "pass"
    assert roll("check", sh, [13], attribute="DEX", skill=True, tools=False).outcome == "fail"


def test_save_is_d20_at_or_under_st():
    """seed 004 (Saving Throws): d20 ≤ ST."""
    sh = sheet(state=make_state(st=14))
    assert odds("save", sh).of("pass") == Fraction(14, 20)
    assert roll("save", sh, [14]).outcome == "pass"
    assert roll("save", sh, [15]).outcome == "fail"
    assert odds("save", sheet(state=make_state(st=20))).outcomes == (("pass", Fraction(1)),)


# --- combat ---------------------------------------------------------------------------------------------


@settings(deadline=None)
@given(av=st.integers(1, 24), ac=st.integers(0, 20), keep=st.sampled_from(["one", "worse", "better"]))
def test_attack_odds_are_exact_and_a_crit_is_always_a_hit(av, ac, keep):
    """seed 004 (Melee Attacks); spec §004.11.4: a crit needs AV > AC; odds sum to 1."""
    result = attack_odds(av, ac, keep)
    assert sum(p for _, p in result.outcomes) == 1
    if av <= ac:
        assert result.success == 0
    if av > 20:
        assert result.of("crit") == 0


def test_beyond_range_keeps_the_worse_of_two_rolls():
    """seed 004 (Ranged Attacks): beyond range roll twice, keep the worse (spec §004.11.3 ranking)."""
    sh = sheet(state=make_state(av=14), items=[weapon("medium", 40)])
    result = roll("attack", sh, [14, 8, 3], weapon="1", target_ac=4, range="far")
    assert result.outcome == "hit"
    assert [d.kept for d in result.dice[:2]] == [False, True]
    one = attack_odds(14, 4).of("hit") + attack_odds(14, 4).of("crit")
    assert odds("attack", sh, weapon="1", target_ac=4, range="far").success < one


def _beyond_range_by_hand(av: int, ac: int) -> dict[str, Fraction]:
    """Seed 004 (Ranged Attacks, Armor Degradation), all 400 pairs of d20s: the worse result stands, a miss
    being worse than a block (which still wears the armour down), a block worse than a hit, a hit than a crit."""
    worst_first = ("miss", "blocked", "hit", "crit")
    counts = dict.fromkeys(worst_first, 0)
    for a in range(1, 21):
        for b in range(1, 21):
            names = ["miss" if f > av else "blocked" if f <= ac else "crit" if f == av else "hit" for f in (a, b)]
            counts[min(names, key=worst_first.index)] += 1
    return {k: Fraction(n, 400) for k, n in counts.items() if n}


@pytest.mark.parametrize(("av", "ac"), [(14, 4), (10, 8), (20, 0), (12, 12), (6, 2)])
def test_seed_004_beyond_range_ranks_a_block_above_a_miss(av, ac):
    """Seed 004, Ranged Attacks ("take the worse result") and Armor Degradation: of a block and a miss the miss
    stands. AV 14 AC 4: blocked 144/400 → 96/400 (36 % → 24 %), miss 156/400 → 204/400; hits unchanged."""
    assert dict(attack_odds(av, ac, "worse").outcomes) == _beyond_range_by_hand(av, ac)
    assert kept((3, 18), 14, 4, "worse") == 18 and attack_outcome(18, 14, 4) == "miss"
    assert kept((3, 18), 14, 4, "better") == 3


def test_seed_004_beyond_range_a_20_on_either_die_empties_the_weapon():
    """Seed 004, Ranged Attacks: "If you roll a 20 to hit ... you are out of ammunition"; beyond range both dice
    are rolled to hit, so a 20 on the discarded die empties it too. Setting "ammo_twenty" = kept_die keeps
    the older reading (only the die that stands). AV 20: 8 and 20, the 8 stands (a hit) and the bow is empty.
    Odds of emptying a bow per shot beyond range, AV 14 AC 4: before 21/400, now 39/400 (29/400 with kept_die)."""
    sh = sheet(state=make_state(av=20), items=[weapon("small", 20)])
    result = roll("attack", sh, [8, 20, 3], weapon="1", target_ac=2, range="far")
    assert result.outcome == "hit"  # the worse of a hit (8) and a crit (20 = AV)
    assert [(d.face, d.kept) for d in result.dice if d.sides == 20] == [(8, True), (20, False)]
    assert result.items_changed[0].data["out_of_ammunition"] is True and "out of ammunition" in result.summary
    kept_only = sheet(
        state=make_state(av=20), items=[weapon("small", 20)], settings={**DEFAULTS, "ammo_twenty": "kept_die"}
    )
    later = roll("attack", kept_only, [8, 20, 3], weapon="1", target_ac=2, range="far")
    assert later.items_changed == ()


def test_a_melee_weapon_has_no_range_to_fire_beyond():
    """seed 004 (Ranged Attacks): range bands belong to ranged weapons."""
    with pytest.raises(RulesError):
        odds("attack", sheet(items=[weapon()]), weapon="1", range="far")


def test_a_natural_20_empties_a_ranged_weapon_after_it_resolves():
    """seed 004 (Ranged Attacks); spec §004.11.12: resolve, then out of ammunition; restock by a bubble."""
    sh = sheet(state=make_state(av=20), items=[weapon("small", 20)])
    result = roll("attack", sh, [20, 3], weapon="1", target_ac=2)
    assert result.outcome == "crit" and result.items_changed[0].data["out_of_ammunition"] is True
    empty = sheet(state=make_state(av=20), items=[result.items_changed[0]])
    with pytest.raises(RulesError, match="out of ammunition"):
        odds("attack", empty, weapon="1")
    restocked = roll("restock", empty, [], weapon="1", how="bubble")
    assert restocked.state["bubbles"] == 1 and restocked.items_changed[0].data["out_of_ammunition"] is False
    bought = roll("restock", empty, [], weapon="1", how="buy")
    assert bought.state["coins"] == 97  # half of 6 gp


def test_firing_into_melee_picks_a_random_target():
    """seed 004 (Ranged Attacks): firing into melee, the target is random."""
    sh = sheet(items=[weapon("small", 20)])
    result = roll("attack", sh, [3, 5, 2], weapon="1", target_ac=0, melee_count=4)
    assert "combatant 3 of 4" in result.summary


def test_dual_wielding_adds_one_av_and_only_with_one_handed_melee():
    """seed 004 (Melee Weapons): dual-wielding one-handed melee weapons gives +1 AV."""
    sh = sheet(state=make_state(av=12), items=[weapon()])
    assert odds("attack", sh, weapon="1", target_ac=0, dual=True).of("crit") == Fraction(1, 20)
    assert roll("attack", sh, [13, 1], weapon="1", target_ac=0, dual=True).outcome == "crit"
    with pytest.raises(RulesError):
        odds("attack", sheet(items=[weapon("large")]), weapon="1", dual=True)


def test_damage_minimum_zero_and_unaware_goes_to_flesh():
    """seed 004 (Melee Weapons, Special Attacks); spec §004.11.11: 1d6−1 never below 0; unaware → Flesh."""
    sh = sheet(items=[weapon("small")])
    result = roll("attack", sh, [5, 1], weapon="1", target_ac=0, unaware=True)
    assert "0 damage to Flesh" in result.summary


def test_a_feint_gives_two_attacks_with_advantage_next_round():
    """seed 004 (Special Attacks); spec §004.11.9: a feint's hit trades damage for two advantaged attacks."""
    sh = sheet(state=make_state(av=12), items=[weapon()])
    feint = roll("attack", sh, [5], weapon="1", target_ac=0, trick="feint")
    assert feint.state["feint"] is True
    after = sh.with_state(feint.state)
    assert odds("attack", after, weapon="1", target_ac=0).of("crit") > attack_odds(14, 0).of("crit")
    two = roll("attack", after, [14, 1, 3, 2], weapon="1", target_ac=0)
    assert two.outcome == "crit" and two.state is not None and two.state["feint"] is False


def test_both_of_a_feints_hits_land_on_an_npc():
    """Seed 004 (Special Attacks; Grit and Flesh): both attacks after a feint that hit deal their damage to the NPC
    aimed at, each by its own kind (issue 35 item 8: a mutant that dropped the second hit passed the suite)."""
    after = sheet(state=make_state(av=12, feint=True), items=[weapon()])
    two = roll("attack", after, [14, 1, 3, 4], weapon="1", target_ac=0)  # a crit for 1+2, then a hit for 4+2
    assert [(h.amount, h.ignore_armour) for h in SYSTEM.hits_on_npc(two)] == [(3, True), (6, False)]


def _seed_feint_beyond_range_odds(av: int, ac: int) -> dict[str, Fraction]:
    """Seed 004, Ranged Attacks and Special Attacks, counted face by face: two attacks, each rolling twice
    and keeping the worse; the better attack stands (ranked miss < blocked < hit < crit, spec §004.11.3 with
    seed 004, Armor Degradation: a blocked attack still wears the armour down)."""

    def result(face: int) -> tuple[int, int, str]:
        name = "miss" if face > av else "blocked" if face <= ac else "crit" if face == av else "hit"
        return ({"miss": 0, "blocked": 1, "hit": 2, "crit": 3}[name], face, name)

    counts: dict[str, int] = {}
    for a1 in range(1, 21):
        for a2 in range(1, 21):
            first = min(result(a1), result(a2))
            for b1 in range(1, 21):
                for b2 in range(1, 21):
                    name = max(first, min(result(b1), result(b2)))[2]
                    counts[name] = counts.get(name, 0) + 1
    return {k: Fraction(n, 20**4) for k, n in counts.items()}


def test_seed_004_ranged_attacks_a_feint_beyond_range_rolls_twice_for_each_attack():
    """Seed 004, Ranged Attacks ("roll to hit twice and take the worse") with Special Attacks (a feint's two
    attacks): AV 12 (+2 from the feint), AC 2, a medium bow beyond range hits or crits 369/625 (59 %), not 84 %."""
    ready = sheet(state=make_state(av=12, feint=True), items=[weapon("medium", 40)])
    shown = odds("attack", ready, weapon="1", target_ac=2, range="far")
    assert shown.success == Fraction(369, 625)
    assert dict(shown.outcomes) == _seed_feint_beyond_range_odds(14, 2)
    # Attack 1 rolls 5 (hit) and 18 (miss): the miss stands. Attack 2 rolls 9 and 3, both hits: the lower
    # stands, then 4 damage. Each attack shows both of its dice, the kept one marked.
    result = roll("attack", ready, [5, 18, 9, 3, 4], weapon="1", target_ac=2, range="far")
    assert result.details["results"] == ["miss", "hit"] and result.outcome == "hit"
    assert [(d.face, d.kept) for d in result.dice if d.sides == 20] == [(5, False), (18, True), (9, False), (3, True)]
    assert "3: a hit against AC 2 with AV 14, 6 damage" in result.summary  # 1d6 4 + 2 for the advantage


def test_free_attacks_are_limited_by_class():
    """seed 004 (Free Attacks): Fighter = level, Magic-User 1; spec §004.11.8: others 1."""
    fighter = sheet(state=make_state(cls="Fighter", level=3), items=[weapon()])
    odds("attack", fighter, weapon="1", free=True, free_used=2)
    with pytest.raises(RulesError, match="3 free attacks"):
        odds("attack", fighter, weapon="1", free=True, free_used=3)
    mage = sheet(state=make_state(cls="Magic-User", level=5), items=[weapon()])
    with pytest.raises(RulesError, match="1 free attack a round"):
        odds("attack", mage, weapon="1", free=True, free_used=1)


def test_armour_wears_shield_first_then_breaks_and_repairs():
    """seed 004 (Armor Degradation); spec §004.4: shield first by default, AC 0 breaks for good, 5 gp a point."""
    sh = sheet(items=[armour(2), armour(1, id_=3, kind="shield")])
    result = roll("incoming", sh, [2], attacker_av=12)
    assert result.items_changed[0].name == "Shield" and "broken for good" in result.summary
    chosen = roll("incoming", sh, [1], attacker_av=12, piece="armour")
    assert chosen.items_changed[0].name == "Light armour" and chosen.items_changed[0].data["current_AC"] == 1
    worn = sheet(items=[armour(4, 1)])
    mended = roll("repair", worn, [], piece="2", points=5)
    assert mended.state["coins"] == 85 and mended.items_changed[0].data["current_AC"] == 4
    with pytest.raises(RulesError, match="broken for good"):
        roll("repair", sheet(items=[armour(2, 0)]), [], piece="2")


def test_armour_first_setting():
    """spec §5.1 x004.armor_degrade_target: the table may take the armour first."""
    settings = {**DEFAULTS, "degrade_first": "armour"}
    sh = sheet(items=[armour(2), armour(1, id_=3, kind="shield")], settings=settings)
    assert roll("incoming", sh, [2], attacker_av=12).items_changed[0].name == "Light armour"


def test_initiative_even_players_first():
    """seed 004 (Combat Rounds): d6, even → players first."""
    proc = SYSTEM.table_procedures()["initiative"]
    assert proc.roll(None, {}, ScriptedRandom([4])).outcome == "players_first"
    assert proc.roll(None, {}, ScriptedRandom([3])).outcome == "enemies_first"
    assert proc.odds(None, {}).of("players_first") == Fraction(1, 2)


# --- damage, death, healing -----------------------------------------------------------------------------


def test_without_spill_a_hit_that_empties_grit_stops_there():
    """seed 004 (Grit and Flesh), literal reading as the setting "grit_spills" off (spec §004.11.1)."""
    sh = sheet(state=make_state(grit=2, flesh=3), settings={**DEFAULTS, "grit_spills": False})
    result = roll("damage", sh, [], amount=5)
    assert (result.state["grit"], result.state["flesh"]) == (0, 3)
    assert roll("damage", sh.with_state(result.state), [], amount=1).state["flesh"] == 2


def test_failed_save_vs_death_kills_and_damage_at_zero_flesh_saves_again():
    """seed 004 (Grit and Flesh); spec §004.5 [REC]: a save again on any damage at 0 Flesh."""
    sh = sheet(state=make_state(grit=0, flesh=1, st=12))
    assert odds("damage", sh, amount=1).outcomes == (("out", Fraction(12, 20)), ("dead", Fraction(8, 20)))
    dead = roll("damage", sh, [13], amount=1)
    assert dead.outcome == "dead" and dead.state["dead"]
    out = roll("damage", sh, [5, 2], amount=1)
    again = sh.with_state(out.state)
    assert odds("damage", again, amount=1).of("dead") == Fraction(8, 20)
    assert SYSTEM.conditions(sh.with_state(dead.state)) == ("Dead",)


def test_surgeon_heals_flesh_for_50_gp_a_point():
    """seed 004 (Rest and Healing): 50 gp and a day per point of Flesh."""
    sh = sheet(state=make_state(flesh=1, coins=120))
    result = roll("surgeon", sh, [], points=2)
    assert result.state["flesh"] == 3 and result.state["coins"] == 20
    with pytest.raises(RulesError, match="150 gp"):
        roll("surgeon", sheet(state=make_state(flesh=0, coins=120)), [], points=3)


# --- inventory and gear bubbles -------------------------------------------------------------------------


def test_slots_weapons_by_hands_armour_half_ac_coins_by_200():
    """seed 004 (Carrying Things); spec §004.6: armour ceil(AC/2), shield 1, 200 coins a slot, gear free."""
    items = [weapon("large"), armour(6), armour(1, id_=3, kind="shield"), Item("Rope", "gear", 0, 1, {})]
    sh = sheet(state=make_state(coins=201), items=items)
    assert SYSTEM.slots(sh).used == 2 + 3 + 1 + 2
    assert SYSTEM.validate_item(Item("Plate", "armour", 9, 1, {"AC": 5})).slots == 3


def test_an_eleventh_slot_is_refused():
    """seed 004 (Carrying Things); spec §004.11.13: no more than 10 slots."""
    sh = sheet(state=make_state(coins=0), items=[weapon("large", id_=n) for n in range(5)])
    with pytest.raises(RulesError, match="10"):
        SYSTEM.check_can_carry(sh, Item("Sack of stones", "gear", 1, 1, {}))


def test_gear_bubbles_fill_five_and_empty_for_25_gp():
    """seed 004 (Gear Bubbles): five bubbles; a sixth is refused; 25 gp empties them all."""
    sh = sheet()
    result = roll("fill_bubble", sh, [], item="Rope")
    assert result.state["bubbles"] == 1 and result.items_added[0].slots == 0
    full = sh.with_state({**sh.state, "bubbles": 5})
    with pytest.raises(RulesError, match="All 5 gear bubbles"):
        SYSTEM.adjust(full, "bubbles", 1)
    with pytest.raises(RulesError):
        roll("fill_bubble", full, [], item="Chalk")
    emptied = roll("empty_bubbles", full, [])
    assert emptied.state["bubbles"] == 0 and emptied.state["coins"] == 75


# --- spells ---------------------------------------------------------------------------------------------


def test_ritual_is_automatic_and_a_corrupted_ritual_hurts():
    """seed 004 (Casting Spells, Corrupted Spells)."""
    book = [{"name": "Ward", "level": 2, "corrupted": True}]
    sh = sheet(state=make_state(spellbook=book))
    result = roll("cast", sh, [], spell="book:0", how="ritual")
    assert result.outcome == "controlled" and result.state["grit"] == 4
    assert odds("cast", sh, spell="book:0", how="quick").outcomes == (("miscast", Fraction(1)),)


def test_a_failed_scroll_crumbles_and_miscast_five_backlashes():
    """seed 004 (Casting Spells, Miscast Table 5)."""
    sh = sheet(state=make_state(st=12, scrolls=[{"name": "Glow", "level": 1}]))
    result = roll("cast", sh, [15, 5, 4], spell="scroll:0")
    assert result.state["scrolls"] == [] and result.details["miscast"] == "backlash"
    assert "works as normal" in result.summary


def test_no_casting_after_moving_or_being_hurt_and_no_spell_outside_the_book():
    """seed 004 (Magic in Combat); bad input: a spell not in the book."""
    sh = sheet(state=make_state(spellbook=[{"name": "Ward", "level": 1, "corrupted": False}]))
    with pytest.raises(RulesError, match="cannot cast"):
        odds("cast", sh, spell="book:0", moved_or_hurt=True)
    with pytest.raises(RulesError):
        check_params(P["cast"], sh, {"spell": "book:7"})


def test_purify_and_study_with_a_mentor():
    """seed 004 (Corrupted Spells, Acquiring Spells)."""
    sh = sheet(state=make_state(spellbook=[{"name": "Ward", "level": 1, "corrupted": True}]))
    assert roll("purify", sh, [], spell="0").state["spellbook"][0]["corrupted"] is False
    mage = make_state(cls="Magic-User", scrolls=[{"name": "Flight", "level": 3}])
    with pytest.raises(RulesError, match="mentor"):
        roll("study_scroll", sheet(state=mage), [], scroll="0", weeks=3)
    mentor = Hireling("Old Vey", "helper", {"role": "Specialist", "weekly": 100}, id=5)
    with pytest.raises(RulesError, match="3 weeks"):
        roll("study_scroll", sheet(state=mage, hirelings=[mentor]), [], scroll="0", weeks=2)
    learned = roll("study_scroll", sheet(state=mage, hirelings=[mentor]), [], scroll="0", weeks=3)
    assert learned.state["spellbook"][-1]["name"] == "Flight"


def test_spell_entries_parse_and_bad_ones_are_refused():
    """spec §004.12: the spell list is a house default; entries read "Name (level)"."""
    assert parse_spell("Sleep (1)") == ("Sleep", 1)
    for bad in ("Sleep", "Sleep (0)", "Sleep (12)"):
        with pytest.raises(RulesError, match="Spell list"):
            parse_spell(bad)
    with pytest.raises(RulesError, match="Spell list"):
        SYSTEM.validate_settings({"spell_list": "Sleep (1)\nFireball"})


# --- XP and levels --------------------------------------------------------------------------------------


def test_xp_one_per_gp_and_50_per_hd_split_among_the_party():
    """seed 004 (Getting XP): helpers take no share."""
    result = roll("gain_xp", sheet(), [], gold=300, monster_hd=3, party=3)
    assert result.total == 150 and result.state["xp"] == 150


def test_level_up_follows_the_house_defaults_and_a_magic_user_gains_a_spell():
    """spec §004.12 house defaults; seed 004 (Acquiring Spells): a new random spell on a new level."""
    mage = sheet(state=make_state(cls="Magic-User", xp=2000, st=14, av=12))
    result = roll("level_up", mage, [4, 1])
    state = result.state
    assert (state["level"], state["st"], state["av"], state["grit_max"]) == (2, 15, 12, 10)
    assert state["spellbook"][0]["name"] == "Slumber"
    with pytest.raises(RulesError, match="4000 XP"):
        roll("level_up", mage.with_state(state), [])


def test_level_up_shows_exact_odds_before_it_rolls():
    """spec §004.12 house defaults (the Grit die again at each level); seed 004 (Acquiring Spells): a random
    spell, each open one alike. The odds come first and the roll lands on one of their outcomes."""
    fighter = sheet(state=make_state(xp=2000))
    shown = odds("level_up", fighter)
    assert dict(shown.outcomes) == {f"{n}_more_grit": Fraction(1, 6) for n in range(1, 7)}
    result = roll("level_up", fighter, [4])
    assert result.outcome == "4_more_grit" and result.odds == shown
    with pytest.raises(RulesError, match="4000 XP"):
        odds("level_up", fighter.with_state(result.state))
    no_grit = {**DEFAULTS, "grit_each_level": False}
    mage = sheet(state=make_state(cls="Magic-User", xp=2000), settings=no_grit)
    spells = odds("level_up", mage)
    assert len(spells.outcomes) > 1 and {p for _, p in spells.outcomes} == {Fraction(1, len(spells.outcomes))}
    learned = roll("level_up", mage, [1])
    assert learned.outcome == spells.outcomes[0][0] == f"learns_{learned.state['spellbook'][0]['name']}"
    plain = odds("level_up", sheet(state=make_state(xp=2000), settings=no_grit))
    assert plain.outcomes == (("levelled", Fraction(1)),)


# --- settings, creation and applying them ---------------------------------------------------------------


@pytest.mark.parametrize("seed", range(60))
def test_creation_is_valid_for_every_seed(seed):
    """spec §004.12: creation from the house defaults gives a valid sheet within 10 slots."""
    for cls in ("Fighter", "Magic-User"):
        creation = SYSTEM.create({"cls": cls}, random.Random(seed))
        state = SYSTEM.validate_state(creation.state)
        SYSTEM.validate_sheet(Sheet(state, tuple(SYSTEM.validate_item(i) for i in creation.items)))
        assert min(state["attributes"].values()) >= 3 and max(state["attributes"].values()) <= 18
        assert state["st"] == 14 and state["av"] == 12 and 1 <= state["grit"] <= 6


def test_creation_follows_changed_house_defaults():
    """spec §004.12: the table's settings shape new characters."""
    settings = {
        **DEFAULTS,
        "attributes": ["MIGHT", "WITS"],
        "flesh_attribute": ["MIGHT"],
        "start_st": 16,
        "classes": ["Fighter", "Thief"],
    }
    creation = SYSTEM.create({"cls": "other", "other_class": "thief"}, random.Random(1), settings)
    assert list(creation.state["attributes"]) == ["MIGHT", "WITS"] and creation.state["st"] == 16
    assert creation.state["cls"] == "Thief"
    with pytest.raises(RulesError, match="Fighter, Thief"):
        SYSTEM.create({"cls": "Magic-User"}, random.Random(1), settings)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        ({"helper_grit": "-1"}, "at least 0"),
        ({"attributes": ""}, "at least 1"),
        ({"xp_table": "0\n100\n50"}, "more XP"),
        ({"xp_table": "5\n100"}, "starts at 0"),
        ({"starting_kit": "Laser sword"}, "not in the catalogue"),
        ({"attributes": "STR\nDEX", "flesh_attribute": "CON"}, "not one of the attributes"),
        ({"gold_dice": "10", "gold_times": "100"}, "nobody carries more than 10"),
        ({"start_st": "21"}, "at most 20"),
    ],
)
def test_house_defaults_out_of_range_are_refused(values, message):
    """spec §004.12: a house default out of its range is refused with a sentence."""
    with pytest.raises(RulesError, match=message):
        SYSTEM.validate_settings({**SYSTEM.settings_in_force(None), **values})


def test_every_setting_the_seed_leaves_out_is_a_house_default():
    """spec §004.12: each missing number is a setting marked as a house default."""
    house = {s.key for s in SYSTEM.rule_settings() if s.house_default}
    for key in ("attributes", "start_st", "start_av", "grit_die", "flesh_divisor", "classes", "xp_table", "spell_list"):
        assert key in house
    assert {s.key for s in SYSTEM.rule_settings() if s.kind == "list"} >= {"xp_table", "spell_list"}


def test_apply_settings_brings_an_old_character_in_line():
    """spec §004.12: existing characters keep their numbers until the GM applies a change."""
    old = sheet(state=make_state(level=3, st=16, av=14, flesh=2, flesh_max=3, attributes={"STR": 10, "CON": 12}))
    settings = {**DEFAULTS, "start_st": 10, "attributes": ["STR", "CON", "LUCK"], "flesh_divisor": 2}
    new = SYSTEM.apply_settings(Sheet(old.state, settings=settings))
    assert new["st"] == 12 and new["av"] == 14  # 10 + 2 levels × 1; a Fighter's AV 12 + 2
    assert new["attributes"] == {"STR": 10, "CON": 12, "LUCK": 10}
    assert (new["flesh"], new["flesh_max"]) == (5, 6)


def test_helpers_at_most_four_with_house_numbers():
    """seed 004 (Hiring Helpers): weekly costs, at most 4; their numbers are house defaults."""
    sh = sheet(state=make_state(coins=100))
    helper = SYSTEM.hire(sh, {"role": "Man-at-Arms"}, random.Random(1))
    assert helper.upfront == 15 and helper.state["ac"] == 2 and helper.state["grit"] == 3
    four = sheet(hirelings=[Hireling(f"T{n}", "helper", {"role": "Torchbearer", "weekly": 2}, id=n) for n in range(4)])
    with pytest.raises(RulesError, match="4 helpers"):
        SYSTEM.hire(four, {"role": "Torchbearer"}, random.Random(1))


@settings(deadline=None)
@given(
    st_=st.integers(1, 20),
    ac=st.integers(0, 10),
    score=st.integers(1, 36),
    grit=st.integers(0, 10),
    flesh=st.integers(0, 5),
    amount=st.integers(0, 30),
)
def test_every_odds_sum_to_one_within_bounds(st_, ac, score, grit, flesh, amount):
    """Exact odds for checks, saves, quick casts, incoming attacks and damage sum to 1 (hypothesis)."""
    state = make_state(st=st_, grit=grit, grit_max=10, flesh=flesh, flesh_max=5, attributes={"STR": score})
    state["spellbook"] = [{"name": "Ward", "level": 1, "corrupted": False}]
    sh = sheet(state=SYSTEM.validate_state(state), items=[armour(ac)] if ac else [])
    for result in (
        odds("check", sh, attribute="STR", skill=True),
        odds("save", sh),
        odds("cast", sh, spell="book:0"),
        odds("incoming", sh, attacker_av=st_),
        odds("damage", sh, amount=amount),
    ):
        assert sum(p for _, p in result.outcomes) == 1
        assert all(0 < p <= 1 for _, p in result.outcomes)


# --- issue 35 item 7: the odds refuse what the roll refuses ---------------------------------------------------


def test_coming_round_shows_odds_only_to_the_out_cold():
    """Seed 004 (Grit and Flesh): only a character out cold after a passed save vs death comes round; awake, the
    odds refuse with the roll's own sentence (they showed "awake" for a roll then refused), dead, likewise."""
    awake = sheet()
    for ask in (lambda: odds("come_round", awake), lambda: roll("come_round", awake, [])):
        with pytest.raises(RulesError, match="You are not out cold"):
            ask()
    dead = sheet(make_state(dead=True, flesh=0, grit=0))
    for ask in (lambda: odds("come_round", dead), lambda: roll("come_round", dead, [])):
        with pytest.raises(RulesError, match="The dead do not wake"):
            ask()
    out = sheet(make_state(out_rounds=3, flesh=0, grit=0))
    assert dict(odds("come_round", out).outcomes) == {"awake": 1}
    assert roll("come_round", out, []).outcome == "awake"


@pytest.mark.parametrize(("key", "what"), [("check", "make checks"), ("attack", "attack")])
def test_out_cold_a_check_or_an_attack_shows_no_odds(key, what):
    """Seed 004 (Grit and Flesh): out cold, nobody acts until they come round; the odds refuse with the roll's
    sentence rather than show a chance of a roll that is then refused."""
    out = sheet(make_state(out_rounds=2, flesh=0, grit=0), items=[weapon()])
    params = {"weapon": "1"} if key == "attack" else {}
    for ask in (lambda: odds(key, out, **params), lambda: roll(key, out, [10, 3], **params)):
        with pytest.raises(RulesError, match=f"Out cold, nobody can {what}"):
            ask()
