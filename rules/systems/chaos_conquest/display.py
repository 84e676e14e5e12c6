"""What the Chaos & Conquest templates show, as plain values worked out from sheets alone.

``banners`` (the lines above the numbers), ``sheet_facts`` (the "details" region: derived numbers, help words,
slot boxes, the ledger) and ``table_facts`` (the GM's party-save and morale tools). The templates only display
these; every number comes from the rules, and nothing here reads the database.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.base import BACKGROUND_AND_AGE, Banner, Odds, Param, QuickRoll, RulesError, Sheet, sheet_state
from rules.odds_conditions import ConditionChip, condition_chips
from rules.systems.chaos_conquest.advancement import xp_for_level
from rules.systems.chaos_conquest.catalogue import format_money
from rules.systems.chaos_conquest.effects import deaths_door_death_chance
from rules.systems.chaos_conquest.inventory import armour_summary, slots, validate_item
from rules.systems.chaos_conquest.npcs import MORALE_DEFAULT, morale_odds
from rules.systems.chaos_conquest.saves import PARTY_MEMBERS, PartySaveProcedure
from rules.systems.chaos_conquest.state import ATTRIBUTES, light_at_table, validate_hireling, validate_state

# Seed 002, Stamina & Death: what each status means for the player, in a few words.
STATUS_WORDS: dict[str, tuple[str, str]] = {
    "fine": ("Fine", "On their feet."),
    "deaths_door": ("On Death's door", "Stamina is gone: roll the Death's door d6 now."),
    "dying": ("Unconscious and dying", "Someone must treat the wounds within a turn; any more damage kills."),
    "dead": ("Dead", "Nothing more can be rolled for this character."),
}
# Seed 002, Attributes: what each score is for.
ATTRIBUTE_HELP: dict[str, str] = {
    "STR": "strength, endurance, fighting",
    "DEX": "grace, finesse, reflexes",
    "WIL": "magic, charisma, mental endurance",
}
# Equipment.md, Light: the party's light as it bears on one sheet (the table works the level out).
LIGHT_WORDS: dict[str, tuple[str, str, Any]] = {
    "darkness": ("The party is in darkness", "Your saves are at disadvantage and your attacks impaired.", "bad"),
    "dim": ("The party is in dim light", "Your ranged attacks are impaired.", "warning"),
}
LEDGER_SHOWN = 10  # the newest entries the sheet lists; it counts the rest
BOXES_PAST_MAX = 30  # past the last slot a few boxes say "over"; 200,000 of them would say nothing more


def _kills_on(doomed: bool) -> int:
    """The highest face of the Death's door d6 that kills (seed 002: 1-3, or 1-5 when Doomed)."""
    return int(deaths_door_death_chance(doomed) * 6)


def banners(sheet: Sheet) -> tuple[Banner, ...]:
    """The lines above the sheet's numbers, in order: the status (none when fine), Doomed, level-up ready.

    Seed 002, Stamina & Death (Death's door d6, dying, Doomed) and Advancement (the XP of the next level).
    """
    state = sheet_state(sheet, validate_state)
    status = state["status"]
    out: list[Banner] = []
    if status != "fine":
        title, text = STATUS_WORDS[status]
        if status == "deaths_door":
            text += f" It kills on 1–{_kills_on(state['doomed'])}{' (Doomed)' if state['doomed'] else ''}."
        out.append(Banner(status, title, text, "bad"))
    if status == "dead":
        return tuple(out)
    if state["doomed"]:
        out.append(
            Banner(
                "doomed", "Doomed", f"The next time on Death's door, the d6 kills on 1–{_kills_on(True)}.", "warning"
            )
        )
    nxt = state["level"] + 1
    if state["xp"] >= xp_for_level(nxt):
        out.append(Banner("level-ready", "Ready to level up", f'Level {nxt} is waiting: roll "Level up".', "good"))
    light = light_at_table(sheet)  # equipment.md, Light: what the party's light does to this sheet's rolls
    if light in LIGHT_WORDS:
        out.append(Banner(f"light-{light}", *LIGHT_WORDS[light]))
    return tuple(out)


def _boxes(sheet: Sheet, state: Mapping[str, Any]) -> list[dict[str, str]]:
    """One box per inventory slot, filled in the order the rules count them: items, stress, coins, marks."""
    summary = slots(sheet)
    shown = summary.maximum + BOXES_PAST_MAX
    boxes: list[dict[str, str]] = []
    for item in sheet.items:
        if item.kind != "coins":
            count = min(max(0, item.slots) * max(0, item.quantity), max(0, shown - len(boxes)))
            boxes += [{"kind": "item", "label": item.name} for _ in range(count)]
    boxes += [{"kind": "stress", "label": "Stress"} for _ in range(state["stress"])]
    marks = ["Magic aura"] * (1 if state["aura"] else 0) + ["Tumour"] * state["tumours"]
    coins = min(max(0, summary.used - len(boxes) - len(marks)), max(0, shown - len(boxes)))
    boxes += [{"kind": "coins", "label": "Coins"} for _ in range(coins)]
    boxes += [{"kind": "mark", "label": mark} for mark in marks]
    boxes += [{"kind": "empty", "label": "Empty"} for _ in range(max(0, summary.maximum - len(boxes)))]
    for box in boxes[summary.maximum :]:
        box["over"] = "yes"  # past the last slot: over-encumbered
    return boxes


def sheet_facts(sheet: Sheet) -> dict[str, Any]:
    """Everything the C&C "details" region shows beyond the raw state, from the sheet alone."""
    state = sheet_state(sheet, validate_state)
    status_word, status_help = STATUS_WORDS[state["status"]]
    next_level = state["level"] + 1
    next_xp = xp_for_level(next_level)
    ledger = state["xp_ledger"]
    weapons = [
        {
            "name": i.name,
            "die": i.data.get("damage"),
            "bonus": i.data.get("bonus"),
            "worn_out": bool(i.data.get("worn_out")),
            "silver": bool(i.data.get("silver")),
            "ranged": bool(i.data.get("ranged")),
        }
        for i in sheet.items
        if i.kind == "weapon" and isinstance(i.data, Mapping) and i.data.get("damage")
    ]
    return {
        "status": state["status"],
        "status_word": status_word,
        "status_help": status_help,
        "attributes": [
            {
                "key": a,
                **state["attributes"][a],
                "help": ATTRIBUTE_HELP[a],
                "lowered": state["attributes"][a]["current"] < state["attributes"][a]["base"],
            }
            for a in ATTRIBUTES
        ],
        "next_level": next_level,
        "next_xp": next_xp,
        "xp_to_go": max(0, next_xp - state["xp"]),
        "level_ready": state["xp"] >= next_xp,
        "armour": armour_summary(sheet),
        "weapons": weapons,
        "ledger": [{**e, "money": format_money(e["amount"])} for e in reversed(ledger[-LEDGER_SHOWN:])],
        "ledger_more": max(0, len(ledger) - LEDGER_SHOWN),
        "boxes": _boxes(sheet, state),
        "money": format_money(state["coins"]),
    }


def _readable(sheet: Sheet) -> bool:
    """Whether the rules can read every part of a sheet (one they cannot leads and joins nothing)."""
    try:
        sheet_state(sheet, validate_state)
        for item in sheet.items:
            validate_item(item)
        for hireling in sheet.hirelings:
            validate_hireling(hireling)
    except RulesError:
        return False
    return True


def _party_odds(leader: Sheet, members: Mapping[str, Sheet]) -> tuple[Odds | None, tuple[ConditionChip, ...]]:
    """The party save's odds with this leader, and the table's conditions that change them (darkness)."""
    procedure = PartySaveProcedure()
    try:
        odds = procedure.odds(leader, members)
    except RulesError:  # a leader who cannot roll (dying, dead) shows no odds
        return None, ()
    return odds, condition_chips(None, procedure, leader, members, odds)


def table_facts(party: Sequence[tuple[int, Sheet]]) -> dict[str, Any]:
    """The GM's tools at the table: each character as a possible party-save leader with the others as
    ``member1``... (seed 002, Party Saves: at most ``PARTY_MEMBERS`` besides the leader), and the odds of a
    morale check at the default ML (seed 002, Morale)."""
    people = [(cid, sheet) for cid, sheet in party if _readable(sheet)]
    groups: list[dict[str, Any]] = []
    for cid, sheet in people:
        others = [(oid, other) for oid, other in people if oid != cid]
        taking_part = {f"member{n}": (oid, other) for n, (oid, other) in enumerate(others[:PARTY_MEMBERS], 1)}
        groups.append(
            {
                "leader": {"id": cid, "name": sheet.name},
                "members": [
                    {"param": param, "id": oid, "name": other.name} for param, (oid, other) in taking_part.items()
                ],
                "left_out": [other.name for _, other in others[PARTY_MEMBERS:]],
            }
        )
        groups[-1]["odds"], groups[-1]["chips"] = _party_odds(
            sheet, {param: other for param, (_, other) in taking_part.items()}
        )
    return {"groups": groups, "morale_odds": morale_odds(MORALE_DEFAULT)}


# What the history calls each field of a C&C sheet.
FIELD_LABELS = {
    "xp": "XP",
    "stamina_max": "Max stamina",
    "av_lost": "AV knocked off",
    "av_crit_pending": "AV lost at the end of the round",
    "coins": "Money (pennies)",
    "xp_ledger": "XP ledger",
    **{f"attributes.{key}.current": key for key in ATTRIBUTES},
    **{f"attributes.{key}.base": f"{key} when rested" for key in ATTRIBUTES},
}

OUTCOME_LABELS = {
    "new_max": "new maximum stamina",
    "plus_one": "+1 maximum stamina",
    "plus_two": "+2 maximum stamina",
    "deaths_door": "Death's door",
}


def quick_rolls(sheet: Sheet) -> tuple[QuickRoll, ...]:
    """Seed 002 (Saves): most rolls are a save under one attribute."""
    return tuple(QuickRoll(f"Save {key}", "save", {"attribute": key}, stat=key) for key in ATTRIBUTES)


def detail_params() -> tuple[Param, ...]:
    return BACKGROUND_AND_AGE
