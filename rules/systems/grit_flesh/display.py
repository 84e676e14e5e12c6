"""Grit & Flesh: what the sheet, the card and the GM's tools show, computed here so templates only display it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import Banner, QuickRoll, Sheet
from rules.data import grit_flesh as data
from rules.systems.grit_flesh.advancement import level_ready, next_level_xp
from rules.systems.grit_flesh.inventory import armour_class, slots_used, weapons, worn_armour
from rules.systems.grit_flesh.settings import SETTINGS, value
from rules.systems.grit_flesh.state import BUBBLES, SLOTS, free_attack_limit, ordered_attributes, st_of

HOUSE = "house default, not from the rules"


def house_rules(settings: Mapping[str, Any] | None) -> list[dict[str, str]]:
    """The house defaults in force at this table, each as a person reads it."""
    return [
        {"key": s.key, "label": s.label, "shown": s.shown(value(settings, s.key))} for s in SETTINGS if s.house_default
    ]


def bubbles(filled: int) -> list[bool]:
    return [n < filled for n in range(BUBBLES)]


def banners(sheet: Sheet) -> tuple[Banner, ...]:
    state = st_of(sheet)
    who = sheet.name or "This character"
    if state["dead"]:
        return (Banner("dead", "Dead", f"{who} failed the save vs death.", "bad"),)
    out = []
    if state["out_rounds"]:
        rounds = state["out_rounds"]
        out.append(
            Banner(
                "out",
                "Out cold",
                f"Saved vs death: {who} wakes with 1 Flesh after {rounds} round{'s' if rounds != 1 else ''}. "
                "Any more damage means another save vs death.",
                "bad",
            )
        )
    elif state["flesh"] == 0:
        out.append(Banner("no-flesh", "No Flesh left", "Any damage now calls for a save vs death.", "bad"))
    if state["flesh"] < state["flesh_max"] and not state["out_rounds"]:
        out.append(
            Banner(
                "flesh-hurt",
                "Flesh wounded",
                "No Grit comes back with rest until a surgeon heals the Flesh.",
                "warning",
            )
        )
    corrupted = sum(1 for spell in state["spellbook"] if spell["corrupted"])
    if state["safe_nights"] and corrupted:
        nights = min(state["safe_nights"], corrupted)
        out.append(
            Banner(
                "purify",
                "Rested safely",
                f"A safe night's sleep: purify {nights} corrupted spell{'s' if nights != 1 else ''} "
                "(Purify a spell), one for each night.",
                "good",
            )
        )
    if level_ready(state, sheet.settings):
        out.append(Banner("level-ready", "Ready for the next level", "Enough XP: go up a level.", "good"))
    return tuple(out)


def sheet_facts(sheet: Sheet) -> dict[str, Any]:
    state = st_of(sheet)
    settings = sheet.settings
    armour, shield = worn_armour(sheet)
    pieces = [
        {"name": p.name, "now": int(p.data.get("current_AC", p.data.get("AC", 1))), "top": int(p.data.get("AC", 1))}
        for p in (armour, shield)
        if p is not None
    ]
    return {
        "attributes": [{"key": k, "score": v} for k, v in ordered_attributes(state, settings)],
        "ac": armour_class(sheet),
        "armour": pieces,
        "bubbles": bubbles(state["bubbles"]),
        "bubbles_filled": state["bubbles"],
        "bubbles_total": BUBBLES,
        "free_attacks": free_attack_limit(state),
        "slots_used": slots_used(sheet, state),
        "slots_max": SLOTS,
        "next_level_xp": next_level_xp(state, settings),
        "spellbook": state["spellbook"],
        "scrolls": state["scrolls"],
        "empty_weapons": [i.name for _, i in weapons(sheet) if i.data.get("out_of_ammunition")],
        "house_rules": house_rules(settings),
        "house_label": HOUSE,
    }


def table_facts(party: Sequence[tuple[int, Sheet]]) -> dict[str, Any]:
    """The GM's tools: the house stat line for monsters, and each character's gear bubbles."""
    settings = party[0][1].settings if party else None
    base, grit = int(value(settings, "monster_av_base")), int(value(settings, "monster_grit_per_hd"))
    monsters = [
        {"hd": hd, "av": min(20, base + hd), "grit": grit * hd, "flesh": hd, "xp": 50 * hd} for hd in (1, 2, 3, 4, 6, 8)
    ]
    return {
        "monsters": monsters,
        "house_label": HOUSE,
        "helpers": [{"role": k, "weekly": c} for k, c, _ in data.HELPERS],
    }


FIELD_LABELS = {
    "cls": "Class",
    "xp": "XP",
    "st": "ST",
    "av": "AV",
    "grit": "Grit",
    "grit_max": "Maximum Grit",
    "flesh": "Flesh",
    "flesh_max": "Maximum Flesh",
    "bubbles": "Gear bubbles filled",
    "coins": "Gold",
    "out_rounds": "Rounds out cold",
    "feint": "Feint ready",
    "safe_nights": "Safe nights to purify with",
}

OUTCOME_LABELS = {
    "crit": "critical hit",
    "blocked": "miss, turned by armour",
    "miss": "miss",
    "cannot_succeed": "cannot succeed",
    "automatic": "automatic success",
    "out": "out cold, alive",
    "players_first": "players first",
    "enemies_first": "enemies first",
}


def quick_rolls(sheet: Sheet) -> tuple[QuickRoll, ...]:
    """Seed 004 (Attribute Checks): whether a check can succeed turns on the skill and the tools the task calls
    for, which only the table knows, so the quick checks ask both with a toggle each. They start from what the
    sheet lists: its skill if it has one, else its tools, never both (both would succeed without a roll); a
    sheet listing neither starts with the skill ticked, the usual case of a task the character knows, and the
    player unticks what they lack (neither: the seed says it cannot succeed)."""
    state = st_of(sheet)
    has = {"skill": bool(state["skills"]) or not state["tools"], "tools": not state["skills"] and bool(state["tools"])}
    checks = tuple(
        QuickRoll(f"Check {k}", "check", {"attribute": k, **has}, stat=k, asks=("skill", "tools"))
        for k, _ in ordered_attributes(state, sheet.settings)
    )
    return (QuickRoll("Saving throw", "save", {}, stat="ST"), *checks)
