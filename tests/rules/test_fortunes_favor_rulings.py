"""Fortune's Favor (rules 1b): rulings where Lantern disagreed with seed 003 (../shared/seeds/003_eeb4db86843669ac.txt)
or the 1b class data (LankeyBoard/RulesGraph ``src/rules/1b`` @ 6cff1a6, rules/data/fortunes_favor.py).

Each test names the seed section or the class data and the rule it checks. Odds are exact fractions; where a
roll is compared with its odds, the roll is run on every face (``every_roll``), never sampled.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import pytest

from rules.base import RollResult, RulesError, Sheet, check_params
from rules.data import fortunes_favor as data
from rules.dice import ScriptedRandom
from rules.errors import Settled
from rules.systems.fortunes_favor import SYSTEM
from rules.systems.fortunes_favor.state import health_max, stamina_max

P = SYSTEM.procedures()


class _Path:
    """A random source that replays ``prefix`` and then shows each die's lowest face, noting every die asked."""

    def __init__(self, prefix: list[int]) -> None:
        self.faces = list(prefix)
        self.sizes: list[tuple[int, int]] = []

    def randint(self, a: int, b: int) -> int:
        at = len(self.sizes)
        self.sizes.append((a, b))
        if at == len(self.faces):
            self.faces.append(a)
        return self.faces[at]


def every_roll(roll: Callable[[Any], RollResult]) -> dict[str, Fraction]:
    """Run ``roll`` on every sequence of faces the dice can show (a reroll asks for one more die only when it
    happens) and tally each outcome's exact share."""
    tally: dict[str, Fraction] = {}
    waiting: list[list[int]] = [[]]
    while waiting:
        prefix = waiting.pop()
        path = _Path(prefix)
        outcome = roll(path).outcome
        chance = Fraction(1)
        for a, b in path.sizes:
            chance /= b - a + 1
        tally[outcome] = tally.get(outcome, Fraction(0)) + chance
        for at in range(len(prefix), len(path.faces)):
            a, b = path.sizes[at]
            waiting += [path.faces[:at] + [face] for face in range(a + 1, b + 1)]
    return tally


def make(cls: str = "KNIGHT", level: int = 1, settings: dict | None = None, **changes: Any) -> Sheet:
    state = SYSTEM.default_state()
    state.update({"class": cls, "level": level, "armour": "none", "attack_stat": data.CLASSES[cls]["attack_stats"][0]})
    feats = changes.pop("feats", {})
    state["feats"] = {**state["feats"], **feats}
    stats = changes.pop("stats", {})
    state["stats"] = {**state["stats"], **stats}
    state.update(changes)
    state["health"] = changes.get("health", health_max(state))
    state["stamina"] = changes.get("stamina", stamina_max(state))
    return Sheet(state=SYSTEM.validate_state(state), name="Sable", settings=settings or {})


def _clean(key: str, sh: Sheet, params: dict) -> dict:
    clean = check_params(P[key], sh, {k: v for k, v in params.items() if not isinstance(v, Sheet)})
    clean.update({k: v for k, v in params.items() if isinstance(v, Sheet)})
    return clean


def odds(key: str, sh: Sheet, **params: Any) -> dict[str, Fraction]:
    return dict(P[key].odds(sh, _clean(key, sh, params)).outcomes)


def tallied(key: str, sh: Sheet, **params: Any) -> dict[str, Fraction]:
    clean = _clean(key, sh, params)
    return every_roll(lambda rng: P[key].roll(sh, clean, rng))


# --- item 1: Take damage's odds come from the state the roll leaves -------------------------------------------


def test_seed_003_deflect_paid_with_the_last_stamina_at_0_health_is_death_on_every_face():
    """Seed 003, Deflect and Dying & Death: a Knight at 0 Health with 2 Stamina who deflects 4 damage with one die
    pays the 2 Stamina first, and 0 Health with 0 Stamina is death whatever the die shows. The odds said
    "no damage" half the time."""
    knight = make(health=0, stamina=2)
    assert odds("take_damage", knight, damage=4, deflect=1) == {"dead": Fraction(1)}
    assert tallied("take_damage", knight, damage=4, deflect=1) == {"dead": Fraction(1)}


def test_seed_003_a_dying_character_who_deflects_everything_stays_dying():
    """Seed 003, Dying: at 0 Health a hit fully deflected still leaves the character Dying, not unhurt."""
    knight = make(level=4, health=0, stamina=10)
    assert odds("take_damage", knight, damage=1, deflect=1) == {"dying": Fraction(1)}
    assert tallied("take_damage", knight, damage=1, deflect=1) == {"dying": Fraction(1)}


# The sweep: bodies that reach every branch of Taking Damage (plain, Brawler's flat +2, a medium shield's reroll
# of 1s, a Big form's extra Health, Slab of Beef, the beast, damage spilling into Stamina, a Last Stand, Fatigued).
BODIES: dict[str, dict[str, Any]] = {
    "knight": {},
    "knight level 4": {"level": 4},
    "knight, medium shield": {"level": 2, "shield": "medium"},
    "knight, spills": {"level": 2, "settings": {"zero_health_spills": True}},
    "knight, Fatigued": {"level": 2, "statuses": {"Fatigued": 0}},
    "knight, Last Stand": {"level": 2, "last_stand": 1},
    "brawler, Slab of Beef": {"cls": "BRAWLER", "feats": {"slab": True}},
    "shifter, Big form": {"cls": "SHIFTER", "level": 2, "feats": {"form": "BIG", "form_health": 4}},
    "beastmaster": {"cls": "BEASTMASTER", "level": 2, "feats": {"beast": "MEDIUM", "beast_health": 3}},
}


def _sweep(body: dict[str, Any]):
    body = dict(body)
    cls, level = body.pop("cls", "KNIGHT"), body.pop("level", 1)
    settings = body.pop("settings", None)
    for health, stamina, damage in itertools.product((0, 1, 3), (0, 1, 2, 4), (0, 1, 3, 6)):
        sh = make(cls, level, settings, health=health, stamina=stamina, **body)
        for deflect, beast in itertools.product(range(0, 3), (False, True) if sh.state["feats"]["beast"] else (False,)):
            yield sh, {"damage": damage, "deflect": deflect, **({"beast": True} if beast else {})}


@pytest.mark.parametrize("body", BODIES)
def test_seed_003_taking_damage_odds_are_the_tally_of_the_roll_over_every_face(body):
    """Seed 003, Taking Damage, Deflect, Dying & Death: for every state and input in the grid, the odds shown are
    exactly the share of the deflect dice's faces on which the roll lands on each outcome (a refused input is
    refused by both)."""
    checked = 0
    for sh, params in _sweep(BODIES[body]):
        try:
            shown = odds("take_damage", sh, **params)
        except (RulesError, Settled) as refused:
            with pytest.raises(type(refused)):
                tallied("take_damage", sh, **params)
            continue
        assert shown == tallied("take_damage", sh, **params), (body, sh.state["health"], sh.state["stamina"], params)
        checked += 1
    assert checked


# --- item 2: a Spellsword's damage adds the stat its Fighting Style chose -------------------------------------


def run(key: str, sh: Sheet, faces: list[int], **params: Any) -> RollResult:
    return P[key].roll(sh, _clean(key, sh, params), ScriptedRandom(faces))


@pytest.mark.parametrize(("attack_stat", "added"), [("agility", 1), ("mettle", 3)])
def test_1b_spellsword_fighting_style_picks_the_damage_stat_with_the_attack_stat(attack_stat, added):
    """RulesGraph 1b, Spellsword, Fighting Style: Mettle or Agility is the Attack *and Damage* Stat. Mettle 3 and
    Agility 1 attacking with Agility deals 1d8+1 (a 5: 6 damage), not 1d8+3; with Mettle, 1d8+3. The sheet's Base
    Damage says the same."""
    spellsword = make("SPELLSWORD", stats={"mettle": 3, "agility": 1}, attack_stat=attack_stat)
    hit = run("attack", spellsword, [19, 5], armor=14)
    assert hit.outcome == "hit"
    assert f"{5 + added} damage (1d8+{added})" in hit.summary
    assert SYSTEM.sheet_facts(spellsword)["base_damage"] == f"1d8+{added}"


def test_1b_brawler_fighting_style_picks_only_the_attack_stat_so_damage_adds_the_best():
    """RulesGraph 1b, Brawler, Fighting Style picks the attack stat only; Base Damage adds the best of Mettle and
    Agility (spec §003.2): Mettle 3, Agility 1, attacking with Agility still deals 1d10+3."""
    brawler = make("BRAWLER", stats={"mettle": 3, "agility": 1}, attack_stat="agility")
    assert "8 damage (1d10+3)" in run("attack", brawler, [19, 5], armor=14).summary


# --- item 5: one function decides a target's situation, on the sheet and from the GM's tracker ------------------

NPC = {"health": 9, "stamina": 0, "armor": 13, "counter": 8, "attack": 2, "damage": "1d6", "damage_bonus": 0}


def _tracker_odds(attacker: Sheet, statuses: list[str], **choices: Any) -> dict[str, Fraction]:
    procedure, params = SYSTEM.pc_attack_on_npcs([(NPC, statuses)], choices)
    return odds(procedure, attacker, **params)


def _sheet_odds(attacker: Sheet, statuses: list[str], **choices: Any) -> dict[str, Fraction]:
    """The same attack from the sheet, on a character at the table with the NPC's Armor, Counter and statuses."""
    target = make(armour="light", stats={"agility": 1}, statuses=dict.fromkeys(statuses, 0))
    assert (SYSTEM.sheet_facts(target)["armor"], SYSTEM.sheet_facts(target)["counter"]) == (13, 8)
    return odds("attack", attacker, target=target, **choices)


def test_seed_003_a_blind_and_prone_npc_shot_at_range_gives_a_plain_roll_from_the_tracker():
    """Seed 003, Statuses (Blind: attacks on it gain Fortune's Favor; Prone: ranged attacks on it have
    Misfortune) and Misfortune (the two cancel, spec §003.4): from the GM's tracker a ranged attack on a Blind and
    Prone NPC is one d20, as on the sheet; the tracker gave it Fortune's Favor."""
    knight = make()
    plain = odds("attack", knight, armor=13, counter=8)
    assert _tracker_odds(knight, ["Blind", "prone"], ranged=True) == plain
    assert _sheet_odds(knight, ["Blind", "Prone"], ranged=True) == plain
    favored = odds("attack", knight, armor=13, counter=8, favor=True)
    assert _tracker_odds(knight, ["blind"], ranged=True) == favored != plain


@pytest.mark.parametrize("statuses", [[], ["Blind"], ["Prone"], ["Blind", "Prone"]])
@pytest.mark.parametrize("ranged", [False, True])
@pytest.mark.parametrize("attacker_blind", [False, True])
def test_seed_003_the_tracker_and_the_sheet_give_a_target_the_same_situation(statuses, ranged, attacker_blind):
    """Seed 003, Statuses: every mix of the target's Blind and Prone, melee or ranged, with the attacker Blind too
    (Misfortune on their attacks), gives the same odds from the GM's tracker as from the sheet."""
    attacker = make(statuses={"Blind": 0} if attacker_blind else {})
    assert _tracker_odds(attacker, statuses, ranged=ranged) == _sheet_odds(attacker, statuses, ranged=ranged)


# --- item 4: Poisoned Blade is asked for one way, and it works -------------------------------------------------


def test_1b_ranger_poisoned_blade_picked_from_the_attacks_class_features_adds_1d4_rot():
    """RulesGraph 1b, Ranger 5, Poisoned Blade: a coated weapon adds 1d4 rot damage. Picked from the attack's
    class-feature list (the one way to ask for it; the separate box is gone), a hit for 1d6 5 + Agility 2 adds the
    rot die's 3. Picked, it added nothing."""
    ranger = make("RANGER", 5, stats={"agility": 2})
    assert "Poisoned Blade" in dict(next(p for p in P["attack"].params(ranger) if p.name == "maneuver").choices)
    assert "poisoned" not in {p.name for p in P["attack"].params(ranger)}
    hit = run("attack", ranger, [15, 5, 3], armor=12, maneuver="Poisoned Blade")
    assert hit.details["damage"] == 5 + 2 + 3 and "Poisoned Blade 1d4 rot" in hit.summary
    assert run("attack", ranger, [15, 5], armor=12).details["damage"] == 5 + 2  # not picked: no rot die


def test_1b_poisoned_blade_from_the_gms_tracker_adds_1d4_rot():
    """RulesGraph 1b, Ranger 5, Poisoned Blade, named as the class feature of an attack rolled from the GM's
    tracker on one NPC: the same maneuver, the same 1d4 rot."""
    ranger = make("RANGER", 5, stats={"agility": 2})
    procedure, params = SYSTEM.pc_attack_on_npcs([(NPC, [])], {"feature": "Poisoned Blade"})
    hit = run(procedure, ranger, [15, 5, 3], **params)
    assert hit.details["damage"] == 5 + 2 + 3


# --- item 3: the beast's Setup and Follow-up abilities are rules ----------------------------------------------


def beastmaster(beast: str, **stats: int) -> Sheet:
    """A level 1 Beastmaster bonded to ``beast`` (Heart 2, Agility 3 unless given)."""
    return make("BEASTMASTER", stats={"heart": 2, "agility": 3, **stats}, feats={"beast": beast, "beast_health": 4})


def _sides(result: RollResult, label: str) -> list[int]:
    return [d.sides for d in result.dice if d.label == label and d.kept]


def test_1b_large_beast_heavy_blow_steps_its_follow_up_damage_up():
    """RulesGraph 1b, Beastmaster beasts, Large: Heavy Blow (Follow-up) is 1 damage step up. Your Setup hits
    (d20 15 + 3), your 1d6 a step down is 1d4 (2 + 3); the bear follows up with 1d8 a step up, 1d10 (10 + Mettle
    4 = 14)."""
    hit = run("attack", beastmaster("LARGE"), [15, 2, 10], armor=12, maneuver="Setup")
    assert hit.details == {"damage": 5, "beast_damage": 14}
    assert _sides(hit, "beast damage") == [10] and "Heavy Blow" in hit.summary


@pytest.mark.parametrize(("unseen", "sides"), [(False, 6), (True, 10)])
def test_1b_small_ground_beast_surprise_strike_two_steps_up_while_unseen(unseen, sides):
    """RulesGraph 1b, Beastmaster beasts, Small ground: Surprise Strike (Follow-up) is 2 damage steps up while the
    target cannot see the beast: its Follow-up's 1d6 is 1d10 (a 6: 6 + Agility 4 = 10); seen, 1d6."""
    badger = beastmaster("SMALL-GROUND")
    assert "beast_unseen" in {p.name for p in P["attack"].params(badger)}
    assert "beast_unseen" not in {p.name for p in P["attack"].params(beastmaster("LARGE"))}
    hit = run("attack", badger, [15, 2, 6], armor=12, maneuver="Setup", beast_unseen=unseen)
    assert hit.details["beast_damage"] == 10 and _sides(hit, "beast damage") == [sides]


def test_1b_medium_beast_menacing_attack_steps_your_follow_up_up_and_takedown_is_named():
    """RulesGraph 1b, Beastmaster beasts, Medium: Menacing Attack (Setup) steps your Follow-up's damage dice up
    one: the wolf's Setup hits (d20 15 + Heart 2), 1d6 a step down is 1d4 (3 + 4 = 7); your 1d6 is 1d8 (8 + 3 = 11).
    Its Takedown (Follow-up) after your Setup asks the target for a Mettle test 13/8."""
    hit = run("attack", beastmaster("MEDIUM"), [15, 3, 8], armor=14, maneuver="Follow-up")
    assert hit.details == {"damage": 11, "beast_damage": 7}
    assert _sides(hit, "damage") == [8] and "Menacing Attack" in hit.summary
    setup = run("attack", beastmaster("MEDIUM"), [15, 2, 6], armor=12, maneuver="Setup")
    assert "Takedown" in setup.summary and "13/8" in setup.summary


def test_1b_small_flying_beast_raking_attack_adds_your_heart_and_it_has_no_follow_up():
    """RulesGraph 1b, Beastmaster beasts, Small flying: Raking Attack (Setup) adds your Heart to your Follow-up's
    damage: the hawk's Setup hits, 1d4 (3 + 4 = 7); your 1d6 5 + Agility 3 + Heart 2 = 10. It lists no Follow-up,
    so after your Setup hits nothing follows."""
    hawk = beastmaster("SMALL-FLYING")
    hit = run("attack", hawk, [15, 3, 5], armor=14, maneuver="Follow-up")
    assert hit.details == {"damage": 10, "beast_damage": 7} and "Raking Attack" in hit.summary
    setup = run("attack", hawk, [15, 2], armor=12, maneuver="Setup")
    assert setup.outcome == "hit" and "beast_damage" not in setup.details


@pytest.mark.parametrize("beast", ["LARGE", "SMALL-GROUND"])
def test_1b_a_beast_without_a_setup_cannot_lead_a_follow_up(beast):
    """RulesGraph 1b, Beastmaster, Follow-up: the beast makes its Setup, if it has one; the Large and Small ground
    beasts list none, so the Follow-up is refused with a sentence before any odds, and nothing is spent."""
    sh = beastmaster(beast)
    with pytest.raises(RulesError, match="no Setup"):
        odds("attack", sh, armor=14, maneuver="Follow-up")
    with pytest.raises(RulesError, match="no Setup"):
        run("attack", sh, [15, 3, 5], armor=14, maneuver="Follow-up")
