"""Fell (late): items, item slots, armour and the carry limit (seed 001, Item Slots and Armor)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.base import Hireling, Item, RulesError, Sheet, SlotSummary
from rules.clock import BURNED_MAX
from rules.dice import LADDER
from rules.systems.fell_late.state import COINS_PER_SLOT, MAX_ARMOUR, default_state, face, st, validate_state
from rules.validation import (
    Check,
    boolean,
    bounded_int,
    bounded_text,
    die_on,
    fields,
    hireling_basics,
    item_basics,
)

# What an item's data may hold: the source's notation "(d8, bulky, blast, 1 armor)", pure iron, and a
# treasure's worth in coin. Armour never goes above 3 (seed 001, Armor).
ITEM_FIELDS: dict[str, tuple[str, Check]] = {
    "damage": ("damage die", lambda v, label: die_on(v, label, LADDER)),
    "bulky": ("bulky", boolean),
    "blast": ("blast", boolean),
    "pure_iron": ("pure iron", boolean),
    "armour": ("armour", lambda v, label: bounded_int(v, label, 0, MAX_ARMOUR)),
    "value": ("worth in coin", lambda v, label: bounded_int(v, label, 0, 10_000_000)),
    "note": ("note", bounded_text),
    "lit": ("lit", boolean),  # a torch or lantern alight, and the minutes it has burned (rules/clock.py)
    "burned": ("minutes burned", lambda v, label: bounded_int(v, label, 0, BURNED_MAX)),
}

_TOKEN = re.compile(r"^(?:d(\d+)|bulky|blast|\+?(\d+) armou?r)$")


@dataclass(frozen=True)
class Parsed:
    name: str
    data: Mapping[str, Any]


def parse(text: str) -> Parsed:
    """Read the source's item notation: "crowbar (d4, bulky)" -> d4, bulky; "firebomb (d6 blast)" -> d6, blast."""
    m = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", text)
    if not m:
        return Parsed(text.strip(), {})
    name = m.group(1)
    kept: list[str] = []
    out: dict[str, Any] = {}
    for part in (t.strip() for t in m.group(2).split(",")):
        words = part.split(" ") if re.match(r"^d\d+ blast$", part) else [part]
        for token in words:
            rule = _TOKEN.match(token)
            if not rule:
                kept.append(token)
            elif rule.group(1):
                out["damage"] = int(rule.group(1))
            elif rule.group(2):
                out["armour"] = int(rule.group(2))
            else:
                out[token] = True
    return Parsed(f"{name} ({', '.join(kept)})" if kept else name, out)


def validate_item(item: Item) -> Item:
    """An item's normalised copy, or RulesError naming what no Fell item holds (armour 4, a d50...)."""
    name, kind, slots_, quantity = item_basics(item.name, item.kind, item.slots, item.quantity)
    return replace(
        item,
        name=name,
        kind=kind,
        slots=slots_,
        quantity=quantity,
        data=fields(item.data, name, ITEM_FIELDS),
        worn=boolean(item.worn, f"{name}: worn"),
    )


def damage_die(item: Item) -> int:
    value = item.data.get("damage", 0) if item.data else 0
    return int(value) if value in LADDER else 0


def item_slots(item: Item) -> int:
    """Seed 001 (Item Slots): one slot an item, bulky two; coin and treasure count by their worth instead."""
    if item.kind in ("coins", "treasure"):
        return 0
    per = max(item.slots, 2) if item.data.get("bulky") else item.slots
    return max(0, per) * item.quantity


def worth(sheet: Sheet, state: Mapping[str, Any]) -> int:
    """Coin and treasure carried, in coin: every hundred fills a slot (seed 001, Item Slots)."""
    coins = state["coins"]
    for item in sheet.items:
        if item.kind == "coins":
            coins += item.quantity
        elif item.kind == "treasure":
            coins += int(item.data.get("value", 0)) * item.quantity
    return coins


def slots_used(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return sum(item_slots(i) for i in sheet.items) + worth(sheet, state) // COINS_PER_SLOT


def slots_max(state: Mapping[str, Any]) -> int:
    """Seed 001 (Item Slots): twice STR, STR read as its die's highest face (spec §001.11.4 [REC])."""
    return 2 * face(state, "STR")


def over_slots(sheet: Sheet, state: Mapping[str, Any]) -> bool:
    """Seed 001 (Item Slots): carrying more than your slots gives DIS on every roll and HP zero."""
    return slots_used(sheet, state) > slots_max(state)


def effective_hp(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return 0 if over_slots(sheet, state) else int(state["hp"])


def armour(sheet: Sheet) -> int:
    """Seed 001 (Armor): the best worn armour plus worn shields, never above 3."""
    body = max((int(i.data.get("armour", 0)) for i in sheet.items if i.worn and i.kind != "shield"), default=0)
    shields = sum(int(i.data.get("armour", 1)) for i in sheet.items if i.worn and i.kind == "shield")
    return min(MAX_ARMOUR, body + shields)


def slots(sheet: Sheet) -> SlotSummary:
    state = st(sheet)
    used, maximum = slots_used(sheet, state), slots_max(state)
    consequences: tuple[str, ...] = ()
    if used > maximum:
        consequences = ("Over your slots: disadvantage on every roll, and your HP count as zero.",)
    return SlotSummary(used, maximum, 2 * maximum, consequences)


def check_can_carry(sheet: Sheet, item: Item) -> SlotSummary:
    """Seed 001 (Item Slots): nobody carries more than double their slots; name the item refused."""
    state = st(sheet)
    limit = 2 * slots_max(state)
    after = slots_used(sheet, state) + item_slots(item)
    if item.kind in ("coins", "treasure"):
        after = slots_used(sheet.with_state(state, items=(*sheet.items, item)), state)
    if after > limit:
        raise RulesError(f"No room for {item.name}: that makes {after} slots, and nobody carries more than {limit}.")
    return slots(sheet.with_state(state, items=(*sheet.items, item)))


def hireling_state(h: Hireling) -> dict[str, Any]:
    """A hireling's sheet: made like a PC's (seed 001, Hirelings), with its rank and pay."""
    if not isinstance(h.state, Mapping):
        raise RulesError(f"Hireling {h.name}: the sheet must be a set of named fields.")
    try:
        return validate_state({**default_state(), "hireling": True, "hire_rank": "untrained", **dict(h.state)})
    except RulesError as err:
        raise RulesError(f"Hireling {h.name}: {err}") from None


def validate_hireling(hireling: Hireling) -> Hireling:
    name, kind, wage, upfront = hireling_basics(hireling.name, hireling.kind, hireling.wage, hireling.upfront)
    checked = replace(hireling, name=name, kind=kind, wage=wage, upfront=upfront)
    full = hireling_state(checked)
    return replace(checked, state={key: full[key] for key in hireling.state})
