"""Grit & Flesh: the state's shape, its validation, and the damage track every procedure shares."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import RulesError, Sheet, sheet_state
from rules.dice import DieRoll, RandomSource, roll_die
from rules.systems.grit_flesh.settings import ATTRIBUTE_NAME_MAX, COINS_PER_SLOT, SLOTS, SPELL_LEVEL_MAX, value
from rules.validation import boolean, bounded_int, bounded_text, name_list

BUBBLES = 5  # seed 004, Gear Bubbles
__all__ = ["COINS_PER_SLOT", "SLOTS"]  # seed 004, Carrying Things: 10 slots, 200 coins a slot
LEVEL_MAX = 20
STAT_MAX = 20  # ST and AV are d20 targets
ATTRIBUTE_MAX = 36  # 6d6, the most the attribute setting rolls
TRACK_MAX = 999
COINS_MAX = 10_000_000
SPELLBOOK_MAX = 100

# Seed 004, Free Attacks: Magic-Users 1, Fighters their level, NPCs and monsters 2; spec §004.11.8: others 1.
FIGHTER, MAGIC_USER = "Fighter", "Magic-User"


def default_state() -> dict[str, Any]:
    return {
        "cls": FIGHTER,
        "level": 1,
        "xp": 0,
        "attributes": {},
        "st": 14,
        "av": 12,
        "grit": 1,
        "grit_max": 1,
        "flesh": 1,
        "flesh_max": 1,
        "skills": [],
        "tools": [],
        "bubbles": 0,
        "spellbook": [],
        "scrolls": [],
        "coins": 0,
        "out_rounds": 0,
        "dead": False,
        "feint": False,
        "safe_nights": 0,  # nights of safe sleep the clock counted, each good for purifying one corrupted spell
    }


def _spell(entry: Any, label: str, with_mark: bool) -> dict[str, Any]:
    if not isinstance(entry, Mapping):
        raise RulesError(f"{label}: each spell has a name and a level.")
    known = {"name", "level", "corrupted"} if with_mark else {"name", "level"}
    unknown = sorted(str(k) for k in entry if k not in known)
    if unknown:
        raise RulesError(f"{label}: a spell has no field {', '.join(unknown)}.")
    out = {
        "name": bounded_text(entry.get("name"), f"{label}: a spell's name", 100, required=True),
        "level": bounded_int(entry.get("level"), f"{label}: a spell's level", 1, SPELL_LEVEL_MAX),
    }
    if with_mark:
        out["corrupted"] = boolean(entry.get("corrupted", False), f"{label}: corrupted")
    return out


def validate_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A normalised copy of a Grit & Flesh sheet's state, or RulesError naming what is wrong."""
    if not isinstance(state, Mapping):
        raise RulesError("A Grit & Flesh sheet must be a set of named fields.")
    base = default_state()
    unknown = sorted(str(k) for k in state if k not in base)
    if unknown:
        raise RulesError(f"A Grit & Flesh sheet has no field {', '.join(unknown)}.")
    merged = {**base, **copy.deepcopy(dict(state))}
    out: dict[str, Any] = {}
    out["cls"] = bounded_text(merged["cls"], "Class", 100, required=True)
    out["level"] = bounded_int(merged["level"], "Level", 1, LEVEL_MAX)
    out["xp"] = bounded_int(merged["xp"], "XP", 0, 100_000_000)
    attributes = merged["attributes"]
    if not isinstance(attributes, Mapping) or len(attributes) > 12:
        raise RulesError("Attributes are up to 12 names, each with a score.")
    out["attributes"] = {}
    for name, score in attributes.items():
        key = bounded_text(name, "An attribute's name", ATTRIBUTE_NAME_MAX, required=True)
        out["attributes"][key] = bounded_int(score, key, 1, ATTRIBUTE_MAX)
    out["st"] = bounded_int(merged["st"], "ST", 1, STAT_MAX)
    out["av"] = bounded_int(merged["av"], "AV", 1, STAT_MAX)
    out["grit_max"] = bounded_int(merged["grit_max"], "Maximum Grit", 0, TRACK_MAX)
    out["grit"] = bounded_int(merged["grit"], "Grit", 0, out["grit_max"])
    out["flesh_max"] = bounded_int(merged["flesh_max"], "Maximum Flesh", 1, TRACK_MAX)
    out["flesh"] = bounded_int(merged["flesh"], "Flesh", 0, out["flesh_max"])
    out["skills"] = name_list(merged["skills"], "Skills", 30)
    out["tools"] = name_list(merged["tools"], "Tools", 30)
    out["bubbles"] = bounded_int(merged["bubbles"], "Filled gear bubbles", 0, BUBBLES)
    book = merged["spellbook"]
    if not isinstance(book, list | tuple) or len(book) > SPELLBOOK_MAX:
        raise RulesError(f"The spellbook holds a list of at most {SPELLBOOK_MAX} spells.")
    out["spellbook"] = [_spell(e, "Spellbook", True) for e in book]
    if len({s["name"].lower() for s in out["spellbook"]}) != len(out["spellbook"]):
        raise RulesError("The spellbook holds each spell once.")
    scrolls = merged["scrolls"]
    if not isinstance(scrolls, list | tuple) or len(scrolls) > SPELLBOOK_MAX:
        raise RulesError(f"Scrolls are a list of at most {SPELLBOOK_MAX}.")
    out["scrolls"] = [_spell(e, "Scrolls", False) for e in scrolls]
    out["coins"] = bounded_int(merged["coins"], "Gold", 0, COINS_MAX)
    out["out_rounds"] = bounded_int(merged["out_rounds"], "Rounds out cold", 0, 6)
    out["dead"] = boolean(merged["dead"], "Dead")
    out["feint"] = boolean(merged["feint"], "Feint ready")
    out["safe_nights"] = bounded_int(merged["safe_nights"], "Safe nights' sleep to purify with", 0, SPELLBOOK_MAX)
    return out


def st_of(sheet: Sheet) -> dict[str, Any]:
    return sheet_state(sheet, validate_state)


def ordered_attributes(state: Mapping[str, Any], settings: Mapping[str, Any] | None) -> list[tuple[str, int]]:
    """The attributes in the table's order (a database may store a mapping's keys sorted), then any others."""
    order = {name: n for n, name in enumerate(value(settings, "attributes"))}
    return sorted(state["attributes"].items(), key=lambda kv: (order.get(kv[0], len(order)), kv[0]))


def free_attack_limit(state: Mapping[str, Any]) -> int:
    """Seed 004, Free Attacks: a Fighter makes as many a round as their level, a Magic-User one;
    spec §004.11.8 [REC]: any other class one."""
    return int(state["level"]) if state["cls"] == FIGHTER else 1


def refuse_if_down(state: Mapping[str, Any], what: str) -> None:
    if state["dead"]:
        raise RulesError(f"The dead cannot {what}.")
    if state["out_rounds"]:
        raise RulesError(f"Out cold, nobody can {what}: come round first.")


def death_save_pending(state: Mapping[str, Any], amount: int, to_flesh: bool, spills: bool) -> bool:
    """Whether ``amount`` damage calls for a save vs death (seed 004, Grit and Flesh; spec §004.5 [REC]):
    when it takes Flesh to 0, and again on any damage while Flesh is already 0."""
    if state["dead"] or amount <= 0:
        return False
    if state["flesh"] == 0:
        return True
    return after_damage(state, amount, to_flesh, spills)["flesh"] == 0


def after_damage(state: Mapping[str, Any], amount: int, to_flesh: bool, spills: bool) -> dict[str, Any]:
    """Grit first, then Flesh (seed 004, Grit and Flesh). ``to_flesh``: a critical hit or an unaware
    target, straight to Flesh. ``spills`` (setting): what a hit leaves after emptying Grit reaches Flesh."""
    new = dict(state)
    if to_flesh or new["grit"] == 0:
        new["flesh"] = max(0, new["flesh"] - amount)
        return new
    taken = min(new["grit"], amount)
    new["grit"] -= taken
    if spills:
        new["flesh"] = max(0, new["flesh"] - (amount - taken))
    return new


def apply_damage(
    state: Mapping[str, Any], amount: int, to_flesh: bool, settings: Mapping[str, Any], rng: RandomSource
) -> tuple[dict[str, Any], str, tuple[DieRoll, ...], str]:
    """Damage and, when it calls for one, the save vs death: (state, words, dice, "hurt"/"out"/"dead").

    Seed 004: pass the save and you pass out, waking with 1 Flesh after 1d6 rounds; fail it and you die.
    """
    spills = bool(value(settings, "grit_spills"))
    pending = death_save_pending(state, amount, to_flesh, spills)
    new = after_damage(state, amount, to_flesh, spills)
    lost_grit, lost_flesh = state["grit"] - new["grit"], state["flesh"] - new["flesh"]
    parts = []
    if lost_grit:
        parts.append(f"{lost_grit} Grit")
    if lost_flesh:
        parts.append(f"{lost_flesh} Flesh")
    words = f"{amount} damage: lost {' and '.join(parts)}" if parts else f"{amount} damage: nothing lost"
    words += f" (Grit {new['grit']}/{new['grit_max']}, Flesh {new['flesh']}/{new['flesh_max']})."
    if not pending:
        return new, words, (), "hurt"
    save = roll_die(rng, 20, "save vs death")
    if save.face <= new["st"]:
        rounds = roll_die(rng, 6, "rounds out")
        new["out_rounds"] = rounds.face
        words += (
            f" No Flesh left: save vs death {save.face} against ST {new['st']}, passed: out cold, "
            f"waking with 1 Flesh after {rounds.face} round{'s' if rounds.face != 1 else ''}."
        )
        return new, words, (save, rounds), "out"
    new["dead"] = True
    new["out_rounds"] = 0
    words += f" No Flesh left: save vs death {save.face} against ST {new['st']}, failed: dead."
    return new, words, (save,), "dead"
