"""Fell (draft): state. See the package docstring for sources and readings."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import (
    RulesError,
    Sheet,
    sheet_state,
)
from rules.data import fell_draft as data
from rules.dice import (
    LADDER,
    Overflow,
    ladder_index,
)
from rules.validation import boolean, bounded_int, name_list

ABILITIES: tuple[str, ...] = data.ABILITIES


DN_DEFAULT = 4


DN_MIN, DN_MAX = 1, 30


HARM_MAX = 100


SHIFT_MAX = 5


CONTEST_WORK = 25_000  # steps of one contest's odds, about 0.25 s; real contests take a few hundred to a few thousand


BASE_SLOTS = 4


COINS_PER_SLOT = 100


MAX_PROTECTION = 3


WAGE = 5  # coin per day (seed 000, Hirelings)


WAGE_PER_STEP = 5  # per one-step raise of one ability die (spec §000.9 [REC])


HIRELING_HP = 3


SPELL_COST = 100  # components to learn a spell (seed 000, Spells)


RETIRE_HP = 20


STARTING_HP = 4  # creation: "Or start with 4 HP"


OVERFLOW: Overflow = "bonus_die"  # seed 000, Dice Ladder: above d12 add a bonus die from the bottom rung


def _default_state() -> dict[str, Any]:
    return {
        "abilities": {ab: {"die": 6, "full_die": 6, "points": 6} for ab in ABILITIES},
        "hp": STARTING_HP,
        "hp_max": STARTING_HP,
        "skills": [],
        "spells": [],
        "spell_die": 0,
        "coins": 0,
        "deprived": False,
        "days_deprived": 0,
        "fatigue": 0,
        "dying": False,
        "dead": False,
        "protection_damage": 0,
        "background": "",
        "age": 0,
        "traits": [],
        "hireling": False,
        "paid_up": False,
        "steel_die": 0,
        "equipment": [],
    }


def _die(value: Any, label: str, allow_none: bool = False) -> int:
    if allow_none and value == 0:
        return 0
    if isinstance(value, bool) or value not in LADDER:
        sizes = ", ".join(f"d{s}" for s in LADDER)
        raise RulesError(f"{label} must be one of {sizes}{' or none' if allow_none else ''}.")
    return int(value)


def validate_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A normalised copy of a Fell sheet's state, or RulesError saying what is wrong."""
    if not isinstance(state, Mapping):
        raise RulesError("A Fell sheet must be a set of named fields.")
    base = _default_state()
    unknown = sorted(set(state) - set(base))
    if unknown:
        raise RulesError(f"A Fell sheet has no field {', '.join(map(str, unknown))}.")
    merged = {**base, **copy.deepcopy(dict(state))}
    abilities = merged["abilities"]
    if not isinstance(abilities, Mapping) or set(abilities) != set(ABILITIES):
        raise RulesError("A Fell sheet needs exactly the abilities BOD, INT and WIL.")
    out: dict[str, Any] = {"abilities": {}}
    for ab in ABILITIES:
        a = abilities[ab]
        if not isinstance(a, Mapping) or "die" not in a:
            raise RulesError(f"{ab} needs a die.")
        die = _die(a["die"], f"The {ab} die")
        full = _die(a.get("full_die", die), f"The unharmed {ab} die")
        if full < die:
            raise RulesError(f"The unharmed {ab} die cannot be smaller than the {ab} die now.")
        points = bounded_int(a.get("points", die), f"{ab} points", 0, die)
        out["abilities"][ab] = {"die": die, "full_die": full, "points": points}
    out["hp_max"] = bounded_int(merged["hp_max"], "Maximum HP", 0, 999)
    out["hp"] = bounded_int(merged["hp"], "HP", 0, out["hp_max"])
    out["skills"] = name_list(merged["skills"], "Skills")
    out["spells"] = name_list(merged["spells"], "Spells")
    out["spell_die"] = _die(merged["spell_die"], "The spell die", allow_none=True)
    out["coins"] = bounded_int(merged["coins"], "Coins", 0, 10_000_000)
    out["deprived"] = boolean(merged["deprived"], "Deprived")
    out["days_deprived"] = bounded_int(merged["days_deprived"], "Days deprived", 0, 1000)
    out["fatigue"] = bounded_int(merged["fatigue"], "Fatigue", 0, 1000)
    out["dying"] = boolean(merged["dying"], "Dying")
    out["dead"] = boolean(merged["dead"], "Dead")
    out["protection_damage"] = bounded_int(merged["protection_damage"], "Damaged protection", 0, MAX_PROTECTION)
    if not isinstance(merged["background"], str):
        raise RulesError("Background must be text.")
    out["background"] = merged["background"][:100]
    out["age"] = bounded_int(merged["age"], "Age", 0, 1000)
    out["traits"] = name_list(merged["traits"], "Traits")
    out["hireling"] = boolean(merged["hireling"], "Hireling")
    out["paid_up"] = boolean(merged["paid_up"], "Paid up")
    out["steel_die"] = _die(merged["steel_die"], "The hireling's steel die", allow_none=True)
    out["equipment"] = name_list(merged["equipment"], "Equipment")
    return out


def _st(sheet: Sheet) -> dict[str, Any]:
    return sheet_state(sheet, validate_state)


def _die_of(state: Mapping[str, Any], ab: str) -> int:
    return int(state["abilities"][ab]["die"])


def _is_dead(state: Mapping[str, Any]) -> bool:
    """Seed 000 (Harm and Death): dead when an ability's points reach 0 or a die drops below d4."""
    return bool(state["dead"]) or any(state["abilities"][ab]["points"] == 0 for ab in ABILITIES)


def _step(sides: int, steps: int) -> int | None:
    """One die moved along d4..d12 without overflow: None below d4, capped at d12."""
    rung = ladder_index(sides) + steps
    if rung < 0:
        return None
    return LADDER[min(rung, len(LADDER) - 1)]


def retired(state: Mapping[str, Any]) -> bool:
    """Seed 000 (Advancement): 20 HP and every ability die a d12 means time to retire (or a legend)."""
    return state["hp_max"] >= RETIRE_HP and all(_die_of(state, ab) == 12 for ab in ABILITIES)
