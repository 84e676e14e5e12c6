"""Fell (draft): what the sheet shows, computed here so the template only displays it."""

from __future__ import annotations

from typing import Any

from rules.base import BACKGROUND_AND_AGE, Banner, Param, QuickRoll, Sheet
from rules.systems.fell_draft.inventory import _slots_max, _slots_used, protection
from rules.systems.fell_draft.state import ABILITIES, RETIRE_HP, _die_of, _is_dead, _st, retired

# Seed 000 (Abilities): what each ability covers, in our words.
ABILITY_HELP = {"BOD": "strength, grit, reflexes", "INT": "aim, wits, learning", "WIL": "nerve, leadership, magic"}


def banners(sheet: Sheet) -> tuple[Banner, ...]:
    """Seed 000 (Harm and Death, Advancement): death, dying, and the time to retire."""
    state = _st(sheet)
    who = sheet.name or "This character"
    out = []
    if _is_dead(state):
        out.append(
            Banner(
                "dead",
                "Dead",
                f"An ability ran out of points or a die fell off the ladder: {who} rolls no more.",
                "bad",
            )
        )
    elif state["dying"]:
        out.append(
            Banner(
                "dying",
                "Unconscious and dying",
                f"{who} failed the test after critical harm: dead in about an hour unless someone treats them.",
                "bad",
            )
        )
    if retired(state) and not _is_dead(state):
        out.append(
            Banner(
                "retire",
                "Ready to retire",
                f"{RETIRE_HP} HP and every ability a d12: retire somewhere safe, or carry on as a legend.",
                "good",
            )
        )
    return tuple(out)


def sheet_facts(sheet: Sheet) -> dict[str, Any]:
    """Seed 000: the numbers the sheet's details show beside the tracks."""
    state = _st(sheet)
    abilities = []
    for key in ABILITIES:
        ability = state["abilities"][key]
        abilities.append(
            {
                "key": key,
                "die": ability["die"],
                "points": ability["points"],
                "full_die": ability["full_die"],
                "hurt": ability["full_die"] != ability["die"],
                "help": ABILITY_HELP[key],
            }
        )
    worn = [
        {"name": item.name, "protection": item.data.get("protection")}
        for item in sheet.items
        if item.worn and item.data.get("protection")
    ]
    return {
        "abilities": abilities,
        "protection": protection(sheet),
        "worn_protection": worn,
        "critical_next": state["hp"] == 0,  # Seed 000 (Harm): at 0 HP, more harm is critical
        "skill_die": _die_of(state, "INT"),
        "skills_limit": _die_of(state, "INT"),  # Seed 000 (Skills): as many skills as INT's face
        "spells_limit": _die_of(state, "WIL"),  # Seed 000 (Spells): as many spells as WIL's face
        "slots_used": _slots_used(sheet, state),
        "slots_max": _slots_max(state),
        "retire_hp": RETIRE_HP,
    }


# What the history calls each field of a Fell sheet.
FIELD_LABELS = {
    "hp": "HP",
    "hp_max": "Max HP",
    "coins": "Coin",
    "spell_die": "Spell die",
    "steel_die": "Steel die",
    "days_deprived": "Days deprived",
    "protection_damage": "Damaged protection",
    "paid_up": "Paid up",
    **{f"abilities.{key}.points": f"{key} points" for key in ABILITIES},
    **{f"abilities.{key}.die": f"{key} die" for key in ABILITIES},
    **{f"abilities.{key}.full_die": f"{key} die after rest" for key in ABILITIES},
}

OUTCOME_LABELS = {
    "pass_backlash": "pass, with backlash",
    "fail_backlash": "fail, with backlash",
    # harm and rest, in the words of what happened (issue 26: "hp only", "short" and "start" were keys)
    "hp only": "harm to HP only",
    "standing": "critical harm, still standing",
    "unharmed": "no harm",
    "short": "several minutes' rest",
    "night": "a night's rest",
    "week": "a week's rest",
    "start": "deprived",
    "day": "another day deprived",
    "end": "no longer deprived",
    "fatigue_on": "a fatigue level more",
    "fatigue_off": "a fatigue level less",
}


def quick_rolls(sheet: Sheet) -> tuple[QuickRoll, ...]:
    """Seed 000 (Tests): the everyday roll is a test of one ability at DN 4."""
    return tuple(QuickRoll(f"Test {key}", "test", {"ability": key}, stat=key) for key in ABILITIES)


def detail_params() -> tuple[Param, ...]:
    return BACKGROUND_AND_AGE
