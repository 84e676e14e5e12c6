"""Fortune's Favor: the state's shape, its validation, the rule settings and the derived numbers.

Seed 003 is ../shared/seeds/003_eeb4db86843669ac.txt; formulas from rules-spec §003.2.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import RulesError, Sheet, sheet_state
from rules.data import fortunes_favor as data
from rules.data import fortunes_favor_extras as extras
from rules.dice import ff_damage_step
from rules.settings import Setting
from rules.systems.fortunes_favor.feats import default_feats, validate_feats
from rules.upgrades import StateUpgrade, dropping
from rules.validation import boolean, bounded_int, bounded_text, name_list

STATS = data.STATS
STAT_NAMES = data.STAT_NAMES
STAT_MIN = -5  # no rule lowers a stat; a bound for hand-edited sheets
FAVOR_MAX = 99  # the counter reading (setting); the flag reading holds 0 or 1
HEALTH_MAX = 999
HOURS_MAX = 1000
COIN_MAX = 10_000_000
LAST_STAND_ROUNDS = 5  # seed 003, Last Stand: "at the end of 5 rounds"
STATUS_ROUNDS_MAX = 100
DEATH_SPEEDS = ("ground", "fly", "climb", "swim")

# Seed 003 §Statuses (spec §003.10): the fourteen, with what each does in our words.
STATUSES: dict[str, str] = {
    "Blind": "your attacks have Misfortune; attacks on you have Fortune's Favor",
    "Deaf": "Misfortune to sneak or to notice someone sneaking",
    "Dying": "at 0 Health: each Action or move past half Speed costs 1 Stamina",
    "Dead": "0 Health and 0 Stamina",
    "Engaged": "attacked this round: minions cannot act, monsters' damage drops a step",
    "Entangled": "Speed 0",
    "Exhausted": "no Stamina can be spent; Speed halved; attack dice two steps down",
    "Fatigued": "Stamina costs doubled",
    "Hidden": "+5 to attack tests; acting openly lets others try to spot you",
    "Incapacitated": "no actions or movement; unaware",
    "Pinned": "Speed 0; Misfortune on every Action",
    "Prone": "Speed −20 ft (at least 5); ranged attacks on you have Misfortune, melee ones Fortune's Favor",
    "Rattled": "−2 to tests",
    "Slowed": "Speed halved",
}
DERIVED_STATUSES = ("Dying", "Dead")  # follow from Health and Stamina, never set by hand

# rules-spec §5.1: the readings a table may choose.
SETTINGS: tuple[Setting, ...] = (
    Setting(
        "clash_deals_damage",
        "A Clash deals damage",
        False,
        "On a mixed attack (a Clash) the attacker also deals Base Damage. The rules say nothing; 1b reads as no.",
        kind="bool",
    ),
    Setting(
        "fortunes_favor_counter",
        "Fortune's Favor is a counter",
        False,
        "Characters bank several Fortune's Favors instead of holding it or not.",
        kind="bool",
    ),
    Setting(
        "zero_health_spills",
        "Damage at 0 Health hits Stamina",
        False,
        "Damage past 0 Health comes off Stamina instead of being lost.",
        kind="bool",
    ),
    Setting(
        "ranged_in_melee",
        "Ranged weapons in melee",
        "misfortune",
        "The rules both forbid it and give it Misfortune; choose which.",
        kind="choice",
        choices=(("misfortune", "Allowed, with Misfortune"), ("forbidden", "Not allowed")),
    ),
)


def setting(sheet: Sheet | None, key: str) -> Any:
    default = next(s.default for s in SETTINGS if s.key == key)
    if sheet is None:
        return default
    return sheet.settings.get(key, default)


# The state's shape across rule changes (rules/upgrades.py). 1 -> 2: class features kept a reserved
# ``feats.last_target`` that no rule read, from 6d85edb (class features from one table) until 52adb3c dropped it;
# every sheet saved in between holds it, and today's validation refuses a field it does not know.
STATE_VERSION = 2
STATE_UPGRADES: tuple[StateUpgrade, ...] = (dropping("feats", "last_target"),)


def _default_state() -> dict[str, Any]:
    return {
        "class": "KNIGHT",
        "lineage": "HUMAN",
        "culture": "HIGHLAND-CLANS",
        "size": "medium",
        "level": 1,
        "stats": {"mettle": 3, "agility": 2, "intellect": 0, "heart": -2},
        "attack_stat": "mettle",
        "health": 18,
        "stamina": 9,
        "stamina_max_lost": 0,  # sleep deprivation lowers max Stamina until a Night's Rest
        "fortunes_favor": 0,
        "armour": "none",
        "shield": "none",
        "hand_full": False,  # something other than a shield in one hand: damage a step down too
        "novice_features": [],
        "veteran_features": [],
        "animal_features": [],
        "element": "",
        "languages": ["Allspeak"],
        "statuses": {},  # name -> rounds left (0: until removed)
        "defending": False,
        "exposed": False,  # an ally's Expose: +3 on the next attack test
        "hours_awake": 0,
        "last_stand": 0,  # rounds since the declaration, 1..5; 0 = none
        "dead": False,
        "resting": "",  # the rest in progress: "breath", "night", "rr"
        "level_ready": False,  # an R&R was finished: the character may level up
        "quick_retrieval": 0,  # gear slots held by Quick Retrieval until the next R&R
        "coins": data.STARTING_COIN,
        "bits": 0,
        "background": "",
        "feats": default_feats(),  # what the class features keep (feats.py)
    }


def _choice(value: Any, allowed: Mapping[str, Any] | tuple[str, ...], label: str) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise RulesError(f"{label} must be one of {', '.join(allowed)}.")
    return value


def validate_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A normalised copy of a Fortune's Favor sheet, or RulesError saying what is wrong."""
    if not isinstance(state, Mapping):
        raise RulesError("A Fortune's Favor sheet must be a set of named fields.")
    base = _default_state()
    unknown = sorted(str(k) for k in state if k not in base)
    if unknown:
        raise RulesError(f"A Fortune's Favor sheet has no field {', '.join(unknown)[:200]}.")
    merged = {**base, **copy.deepcopy(dict(state))}
    out: dict[str, Any] = {}
    out["class"] = _choice(merged["class"], data.CLASSES, "Class")
    out["lineage"] = _choice(merged["lineage"], data.LINEAGES, "Lineage")
    out["culture"] = _choice(merged["culture"], data.CULTURES, "Culture")
    lineage = data.LINEAGES[out["lineage"]]
    out["size"] = _choice(merged["size"], lineage["sizes"], f"A {lineage['name']}'s size")
    out["level"] = bounded_int(merged["level"], "Level", 1, data.LEVEL_MAX)
    stats = merged["stats"]
    if not isinstance(stats, Mapping) or set(stats) != set(STATS):
        raise RulesError("A sheet needs exactly the stats Mettle, Agility, Intellect and Heart.")
    out["stats"] = {}
    for key in STATS:
        value = stats[key]
        if isinstance(value, int) and not isinstance(value, bool) and value > data.STAT_MAX:
            raise RulesError(f"{STAT_NAMES[key]} cannot go above {data.STAT_MAX}.")
        out["stats"][key] = bounded_int(value, STAT_NAMES[key], STAT_MIN, data.STAT_MAX)
    cls = data.CLASSES[out["class"]]
    if len(cls["attack_stats"]) == 1:  # nothing to choose: the class's own (a sheet whose class changed)
        merged["attack_stat"] = cls["attack_stats"][0]
    out["attack_stat"] = _choice(merged["attack_stat"], cls["attack_stats"], f"A {cls['name']}'s attack stat")
    out["stamina_max_lost"] = bounded_int(merged["stamina_max_lost"], "Stamina lost to sleeplessness", 0, HEALTH_MAX)
    out["health"] = bounded_int(merged["health"], "Health", 0, health_max(out))
    out["stamina"] = bounded_int(merged["stamina"], "Stamina", 0, stamina_max(out))
    out["fortunes_favor"] = bounded_int(merged["fortunes_favor"], "Fortune's Favor", 0, FAVOR_MAX)
    out["armour"] = _choice(merged["armour"], data.ARMOUR, "Armour")
    if out["armour"] != "none" and out["armour"] not in cls["armour"]:
        raise RulesError(f"A {cls['name']} is not trained in {out['armour']} armour.")
    out["shield"] = _choice(merged["shield"], data.SHIELDS, "Shield")
    if out["shield"] != "none" and out["shield"] not in cls["shields"]:
        raise RulesError(f"A {cls['name']} is not trained with a {out['shield']} shield.")
    out["hand_full"] = boolean(merged["hand_full"], "Something in one hand")
    out["novice_features"] = name_list(merged["novice_features"], "Novice features", 10)
    bad = [n for n in out["novice_features"] if n not in data.NOVICE_FEATURES]
    if bad:
        raise RulesError(f"There is no novice feature called {bad[0]}.")
    out["veteran_features"] = name_list(merged["veteran_features"], "Veteran features", 4)
    bad = [n for n in out["veteran_features"] if n not in data.VETERAN_FEATURES]
    if bad:
        raise RulesError(f"There is no veteran feature called {bad[0]}.")
    out["animal_features"] = name_list(merged["animal_features"], "Animal features", data.ANIMAL_FEATURES_TO_PICK)
    bad = [n for n in out["animal_features"] if n not in data.ANIMAL_FEATURES]
    if bad:
        raise RulesError(f"There is no animal feature called {bad[0]}.")
    if out["animal_features"] and out["lineage"] != "CHIMERIC":
        raise RulesError("Only a Chimeric has animal features.")
    element = merged["element"]
    if element != "":
        _choice(element, data.ELEMENTS, "Element")
    out["element"] = element
    out["languages"] = name_list(merged["languages"], "Languages", len(data.LANGUAGES))
    bad = [n for n in out["languages"] if n not in data.LANGUAGES]
    if bad:
        raise RulesError(f"There is no language called {bad[0]}.")
    statuses = merged["statuses"]
    if not isinstance(statuses, Mapping):
        raise RulesError("Statuses must be named, each with the rounds it lasts.")
    out["statuses"] = {}
    for name, rounds in statuses.items():
        if name not in STATUSES or name in DERIVED_STATUSES:
            raise RulesError(f"{str(name)[:40]} is not a status that can be set.")
        out["statuses"][name] = bounded_int(rounds, f"{name}: rounds", 0, STATUS_ROUNDS_MAX)
    out["defending"] = boolean(merged["defending"], "Defending")
    out["exposed"] = boolean(merged["exposed"], "Exposed target")
    out["hours_awake"] = bounded_int(merged["hours_awake"], "Hours awake", 0, HOURS_MAX)
    out["last_stand"] = bounded_int(merged["last_stand"], "Last Stand round", 0, LAST_STAND_ROUNDS)
    out["dead"] = boolean(merged["dead"], "Dead")
    resting = merged["resting"]
    if resting != "":
        _choice(resting, ("breath", "night", "rr"), "The rest in progress")
    out["resting"] = resting
    out["level_ready"] = boolean(merged["level_ready"], "Ready to level up")
    out["quick_retrieval"] = bounded_int(merged["quick_retrieval"], "Quick Retrieval slots", 0, 40)
    out["coins"] = bounded_int(merged["coins"], "Coin", 0, COIN_MAX)
    out["bits"] = bounded_int(merged["bits"], "Bits", 0, COIN_MAX)
    out["background"] = bounded_text(merged["background"], "Background")
    out["feats"] = validate_feats(merged["feats"])
    beast = out["feats"]["beast"]
    if beast:
        out["feats"]["beast_health"] = min(out["feats"]["beast_health"], beast_health_max(out))
    return out


def _st(sheet: Sheet) -> dict[str, Any]:
    return sheet_state(sheet, validate_state)


def readable_state(sheet: Sheet | None) -> dict[str, Any] | None:
    """The sheet's state for the inputs a form offers, or None when there is no sheet or the rules can't read it
    (the form then offers none of a character's own choices)."""
    if sheet is None:
        return None
    try:
        return _st(sheet)
    except RulesError:
        return None


# --- derived numbers (rules-spec §003.2, from the source's PlayerCharacter.tsx) --------------------------


def cls(state: Mapping[str, Any]) -> dict[str, Any]:
    return data.CLASSES[state["class"]]


def health_max(state: Mapping[str, Any]) -> int:
    """maxHealth = class health + (level − 1) × health per level (spec §003.2)."""
    c = cls(state)
    return int(c["health"] + (state["level"] - 1) * c["health_per_level"])


def beast_health_max(state: Mapping[str, Any]) -> int:
    """Beast Bond: the beast's Health grows with the Beastmaster's level, as a class's does (base + per level
    after the first; Lantern's reading of the data's base and perLevel)."""
    beast = state["feats"]["beast"]
    if not beast:
        return 0
    base, per = extras.BEASTS[beast]["health"]
    return int(base + (state["level"] - 1) * per)


def stamina_full(state: Mapping[str, Any]) -> int:
    """maxStamina = class stamina + (level − 1) × per level + level × the stamina stat (spec §003.2)."""
    c = cls(state)
    value = (
        c["stamina"]
        + (state["level"] - 1) * c["stamina_per_level"]
        + state["level"] * state["stats"][c["stamina_stat"]]
    )
    return max(0, int(value))


def stamina_max(state: Mapping[str, Any]) -> int:
    """Max Stamina after sleep deprivation's reductions (seed 003, Sleep Deprivation)."""
    return max(0, stamina_full(state) - state["stamina_max_lost"])


def stat(state: Mapping[str, Any], key: str) -> int:
    return int(state["stats"][key])


def attack_bonus(state: Mapping[str, Any]) -> int:
    """The class's attack stat (the chosen one where the class offers two: Brawler, Spellsword)."""
    return stat(state, state["attack_stat"])


def shield_works(state: Mapping[str, Any]) -> bool:
    """Seed 003, Shields: a shield's bonus counts only when its requirement is met."""
    _, needs, _ = data.SHIELDS[state["shield"]]
    return all(stat(state, key) >= minimum for key, minimum in needs)


def armor(state: Mapping[str, Any]) -> int:
    """Seed 003, Armor: armour type + Agility (capped), shield bonus, Defend +2; Brawler and Tough Skin."""
    _, base, agility_counts = data.ARMOUR[state["armour"]]
    agility = stat(state, "agility")
    feats = state.get("feats") or default_feats()
    if feats["form"]:
        # Shape Changer: the form's Armor replaces yours (worn gear melds into it); Heart may stand in for the
        # form's stat. Defend and Reinvigorate still add.
        form_base, form_stat = extras.FORMS[feats["form"]]["armor"]
        value = form_base + max(stat(state, form_stat), stat(state, "heart"))
        value += feat_armor(state, feats)
        return value + (DEFEND_BONUS if state["defending"] else 0)
    if state["armour"] == "none" and state["class"] == "BRAWLER":
        # Muscle Bound Body: 10 + Mettle + Agility (at most 2) when unarmoured.
        value = base + stat(state, "mettle") + min(agility, data.BRAWLER_AGILITY_MAX)
    else:
        counted = {"all": agility, "max 2": min(agility, data.ARMOUR_AGILITY_MAX), "none": 0}
        value = base + counted[agility_counts]
    if state["armour"] == "none" and "Tough Skin/Shell" in state["animal_features"]:
        value += data.ANIMAL_FEATURES["Tough Skin/Shell"][1]["unarmoured_armor"]
    if state["shield"] != "none" and shield_works(state):
        value += data.SHIELDS[state["shield"]][2]
    value += feat_armor(state, feats)
    if state["defending"]:
        value += DEFEND_BONUS
    return value


def feat_armor(state: Mapping[str, Any], feats: Mapping[str, Any]) -> int:
    """Class features that add to Armor: Reinvigorate (+ Heart until the next round) and the Elementalist's
    Elemental Armor (+ Intellect)."""
    value = 0
    if feats["reinvigorated"]:
        value += stat(state, "heart")
    if "Elemental Armor" in feats["picks"].get("Focused Training", []) and state["class"] == "ELEMENTALIST":
        value += stat(state, "intellect")
    if feats.get("pelt"):  # Beastmaster, Ultimate Tag Team's Protective Pelt
        value += extras.PELT_ARMOR
    return value


DEFEND_BONUS = 2  # seed 003, Defend: +2 Armor and +2 Counter


def counter(state: Mapping[str, Any]) -> int:
    """Counter = Armor − 5 (spec §003.2); Defend's +2 rides along."""
    return armor(state) - 5


def damage_dice(state: Mapping[str, Any]) -> tuple[int, ...]:
    """Base Damage dice on the ladder: a held shield or a full hand steps them down once (seed 003);
    Exhausted drops attack dice two steps (seed 003, Statuses)."""
    count, size = cls(state)["damage"]
    steps = 0
    if state["shield"] != "none" or state["hand_full"]:
        steps -= 1
    if "Exhausted" in state["statuses"]:
        steps -= 2
    return ff_damage_step((size,) * count, steps)


def damage_stat(state: Mapping[str, Any]) -> int:
    """Base Damage's stat. A class whose Fighting Style picks the Attack and Damage Stat together adds the one
    picked (1b Spellsword: Mettle 3, Agility 1, attacking with Agility adds 1). Otherwise the best of the class's
    damage stats, whichever stat the attack rolls with (spec §003.2 and §003.11.5: RulesGraph 1b ``baseDamage``
    adds the highest of ``class.damage.stat``), so a Brawler, whose style picks only the attack stat, with Mettle
    3 attacking with Agility 1 for range still adds 3."""
    c = cls(state)
    if c.get("damage_stat_is_attack_stat"):
        return stat(state, state["attack_stat"])
    return max(stat(state, key) for key in c["damage_stats"])


def deflect_die(state: Mapping[str, Any]) -> int:
    """The class deflect die; a working light shield steps it up once (spec §003.2)."""
    _, size, _ = cls(state)["deflect"]
    if state["shield"] == "light" and shield_works(state):
        return ff_damage_step((size,), 1)[0]
    return int(size)


def deflect_flat(state: Mapping[str, Any]) -> int:
    """Flat deflect bonuses, once per deflect: the class's (Brawler +2) and a working heavy shield's +3."""
    _, _, flat = cls(state)["deflect"]
    if state["shield"] == "heavy" and shield_works(state):
        flat += data.HEAVY_SHIELD_DEFLECT
    return int(flat)


def deflect_rerolls_ones(state: Mapping[str, Any]) -> bool:
    """A working medium shield rerolls 1s on deflect dice (seed 003, Shields)."""
    return state["shield"] == "medium" and shield_works(state)


def deflect_dice_max(state: Mapping[str, Any]) -> int:
    """Seed 003, Deflect: up to 1 + half your level (rounded down) dice."""
    return 1 + state["level"] // 2


def stamina_cost(state: Mapping[str, Any], cost: int) -> int:
    """Fatigued doubles Stamina costs (seed 003, Statuses)."""
    return cost * 2 if "Fatigued" in state["statuses"] else cost


def spend_stamina(state: dict[str, Any], cost: int, what: str) -> list[str]:
    """Pay ``cost`` Stamina (after Fatigued) into ``state``; RulesError if it cannot. Returns notes.

    Seed 003: Exhausted spends no Stamina; spending Stamina during a rest ends it with no benefit.
    """
    cost = stamina_cost(state, cost)
    notes: list[str] = []
    if cost <= 0:
        return notes
    if "Exhausted" in state["statuses"]:
        raise RulesError(f"Exhausted characters cannot spend Stamina, so no {what}.")
    if cost > state["stamina"]:
        raise RulesError(f"{what[:1].upper()}{what[1:]} costs {cost} Stamina; you have {state['stamina']}.")
    state["stamina"] -= cost
    notes.append(f"{what}: −{cost} Stamina")
    if state["resting"]:
        state["resting"] = ""
        notes.append("spending Stamina broke the rest")
    if state["last_stand"] and state["stamina"] == 0:
        state["dead"] = True
        notes.append("0 Stamina during a Last Stand: dead")
    elif state["health"] == 0 and state["stamina"] == 0:
        state["dead"] = True
        notes.append("0 Health and 0 Stamina: dead")
    return notes


def is_dead(state: Mapping[str, Any]) -> bool:
    """Seed 003, Death: 0 Health and 0 Stamina (or a Last Stand run out)."""
    return bool(state["dead"]) or (state["health"] == 0 and state["stamina"] == 0)


def is_dying(state: Mapping[str, Any]) -> bool:
    return state["health"] == 0 and not is_dead(state)


def gain_favor(state: dict[str, Any], sheet: Sheet | None) -> None:
    """Gain Fortune's Favor: set the flag, or add one under the counter setting (spec §003.11.2)."""
    if setting(sheet, "fortunes_favor_counter"):
        state["fortunes_favor"] = min(FAVOR_MAX, state["fortunes_favor"] + 1)
    else:
        state["fortunes_favor"] = 1


def favor_max(sheet: Sheet | None) -> int:
    return FAVOR_MAX if setting(sheet, "fortunes_favor_counter") else 1


def speeds(state: Mapping[str, Any], statuses: Mapping[str, int] | None = None) -> dict[str, int]:
    """Ground, fly, climb and swim speeds in feet (seed 003; climb and swim 5 ft unless given)."""
    lineage = data.LINEAGES[state["lineage"]]
    ground = lineage["speeds"]["ground"]
    novice = state["novice_features"]
    animal = state["animal_features"]
    if "Swift" in novice:
        ground += 10
    if "Fast" in animal:
        ground += 5
    form = (state.get("feats") or {}).get("form")
    if form:  # a Shapeshifter's form: +10 ft (Medium) or −10 ft (Small)
        ground = max(5, ground + extras.FORMS[form]["speed"])
    out = {"ground": ground}
    if "fly" in lineage["speeds"]:
        out["fly"] = lineage["speeds"]["fly"]
    if "Flight" in animal:
        out["fly"] = ground
    out["climb"] = 5 + (5 if "Swift Climber" in novice else 0)
    swim = 5 + (5 if "Swift Swimmer" in novice else 0)
    if state["culture"] == "MARINERS":
        swim *= 2  # Born on the Water
    out["swim"] = swim
    now = set(state["statuses"] if statuses is None else statuses)
    if "Prone" in now:
        out = {k: max(5, v - 20) for k, v in out.items()}
    if {"Slowed", "Exhausted"} & now:
        out = {k: v // 2 for k, v in out.items()}
    if {"Entangled", "Pinned", "Incapacitated"} & now or (state.get("feats") or {}).get("long_shot"):
        out = dict.fromkeys(out, 0)  # Long Shot (Ranger 7): speed 0 while the range is doubled
    return out
