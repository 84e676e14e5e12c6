"""What the Chaos & Conquest sheet shows, worked out from the state the view passed (never the database).

The view has already removed private fields (the faction) for people who may not see them; these
helpers only read the ``state`` and ``items`` already in the template's context, so they add no queries.
"""

from __future__ import annotations

from typing import Any

from django import template

from rules import base as rules_base
from rules.systems import chaos_conquest as cc

register = template.Library()

STATUS_WORDS = {
    "fine": ("Fine", "On their feet."),
    "deaths_door": ("On Death's door", "Stamina is gone: roll the Death's door d6 now."),
    "dying": ("Unconscious and dying", "Someone must treat the wounds within a turn; any more damage kills."),
    "dead": ("Dead", "Nothing more can be rolled for this character."),
}
ATTRIBUTE_HELP = {
    "STR": "strength, endurance, fighting",
    "DEX": "grace, finesse, reflexes",
    "WIL": "magic, charisma, mental endurance",
}


@register.filter
def cc_money(pennies) -> str:
    """Pennies the rules' way: 1 m = 20 s = 240 p."""
    try:
        return cc.format_money(int(pennies or 0))
    except (TypeError, ValueError):
        return ""


@register.simple_tag
def cc_sheet(state, items, slots) -> dict[str, Any]:
    """Everything the C&C "details" region shows, as plain values for the template."""
    shown = cc.validate_state(state)
    sheet = rules_base.Sheet(state=shown, items=tuple(i.to_rules() for i in items))
    weapons = [
        {
            "name": i.name,
            "die": i.data.get("damage"),
            "bonus": i.data.get("bonus"),
            "worn_out": bool(i.data.get("worn_out")),
            "silver": bool(i.data.get("silver")),
            "ranged": bool(i.data.get("ranged")),
        }
        for i in items
        if i.kind == "weapon" and isinstance(i.data, dict) and i.data.get("damage")
    ]
    status_word, status_help = STATUS_WORDS[shown["status"]]
    next_xp = cc.xp_for_level(shown["level"] + 1)
    ledger = shown["xp_ledger"]
    return {
        "status": shown["status"],
        "status_word": status_word,
        "status_help": status_help,
        "attributes": [
            {"key": a, **shown["attributes"][a], "help": ATTRIBUTE_HELP[a], "lowered": _lowered(shown, a)}
            for a in cc.ATTRIBUTES
        ],
        "next_level": shown["level"] + 1,
        "next_xp": next_xp,
        "xp_to_go": max(0, next_xp - shown["xp"]),
        "level_ready": shown["xp"] >= next_xp,
        "armour": cc.armour_summary(sheet),
        "weapons": weapons,
        "ledger": list(reversed(ledger[-10:])),
        "ledger_more": max(0, len(ledger) - 10),
        "boxes": _boxes(shown, items, slots),
    }


def _lowered(state: dict[str, Any], attribute: str) -> bool:
    score = state["attributes"][attribute]
    return score["current"] < score["base"]


def _boxes(state: dict[str, Any], items, slots) -> list[dict[str, str]]:
    """One box per inventory slot, filled in the order the rules count them: items, stress, coins, marks."""
    boxes: list[dict[str, str]] = []
    shown = slots.maximum + 30  # past the last slot a few boxes say "over"; 200,000 of them say nothing more
    for item in items:
        if item.kind != "coins":
            count = min(max(0, item.slots) * max(0, item.quantity), max(0, shown - len(boxes)))
            boxes += [{"kind": "item", "label": item.name} for _ in range(count)]
    boxes += [{"kind": "stress", "label": "Stress"} for _ in range(state["stress"])]
    marks = ["Magic aura"] * (1 if state["aura"] else 0) + ["Tumour"] * state["tumours"]
    coins = min(max(0, slots.used - len(boxes) - len(marks)), max(0, shown - len(boxes)))
    boxes += [{"kind": "coins", "label": "Coins"} for _ in range(coins)]
    boxes += [{"kind": "mark", "label": mark} for mark in marks]
    boxes += [{"kind": "empty", "label": "Empty"} for _ in range(max(0, slots.maximum - len(boxes)))]
    for box in boxes[slots.maximum :]:
        box["over"] = "yes"  # past the last slot: over-encumbered
    return boxes


@register.simple_tag
def cc_party(cards) -> list[dict[str, Any]]:
    """For the GM's party save: each character as a possible leader, the others as ``member1``... params."""
    size = cc.PARTY_MEMBERS
    out = []
    cards = [card for card in cards if not card.problem]  # a sheet the rules can't read leads and joins nothing
    for card in cards:
        others = [c.character for c in cards if c.character.pk != card.character.pk]
        members = [{"param": f"member{n}", "character": other} for n, other in enumerate(others[:size], start=1)]
        out.append(
            {
                "leader": card.character,
                "members": members,
                "left_out": others[size:],
                "odds": _odds("party_save", card.character, {m["param"]: _sheet(m["character"]) for m in members}),
            }
        )
    return out


@register.simple_tag
def cc_odds(procedure: str, character, **params) -> rules_base.Odds | None:
    """A GM tool's odds with its default inputs, so they show before any request (and without JavaScript)."""
    return _odds(procedure, character, params)


def _sheet(character) -> rules_base.Sheet:
    # The table's cards prefetch items and hirelings: .all() here reads the prefetch, no new query.
    return character.to_sheet(character.items.all(), character.hirelings.all())


def _odds(procedure: str, character, params: dict[str, Any]) -> rules_base.Odds | None:
    try:
        return cc.PROCEDURES[procedure].odds(rules_base.check_sheet(cc.SYSTEM, _sheet(character)), params)
    except rules_base.RulesError:
        return None
