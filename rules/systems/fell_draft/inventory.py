"""Fell (draft): inventory. See the package docstring for sources and readings."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from rules.base import (
    Hireling,
    Item,
    RulesError,
    Sheet,
    SlotSummary,
)
from rules.clock import BURNED_MAX
from rules.dice import (
    LADDER,
)
from rules.systems.fell_draft.state import (
    ABILITIES,
    BASE_SLOTS,
    COINS_PER_SLOT,
    HIRELING_HP,
    MAX_PROTECTION,
    _default_state,
    _die_of,
    _st,
    validate_state,
)
from rules.validation import Check, boolean, bounded_int, bounded_text, die_on, fields, hireling_basics, item_basics

_RULE_TOKEN = re.compile(r"^(?:d(\d+)|bulky|blast|\+?(\d+) protection)$")


@dataclass(frozen=True)
class _Parsed:
    name: str
    steel_die: int = 0
    bulky: bool = False
    blast: bool = False
    protection: int = 0


def _parse(text: str) -> _Parsed:
    """Read the source's item notation: "battle axe (d8, bulky)" -> steel d8, bulky."""
    m = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", text)
    if not m:
        return _Parsed(text.strip())
    name, inside = m.group(1), [t.strip() for t in m.group(2).split(",")]
    steel, bulky, blast, protection = 0, False, False, 0
    kept: list[str] = []
    for token in inside:
        rule = _RULE_TOKEN.match(token)
        if not rule:
            kept.append(token)
        elif rule.group(1):
            steel = int(rule.group(1))
        elif rule.group(2):
            protection = int(rule.group(2))
        elif token == "bulky":
            bulky = True
        else:
            blast = True
    full = f"{name} ({', '.join(kept)})" if kept else name
    return _Parsed(full, steel, bulky, blast, protection)


def _item_data(p: _Parsed) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.steel_die:
        out["steel_die"] = p.steel_die
    if p.bulky:
        out["bulky"] = True
    if p.blast:
        out["blast"] = True
    if p.protection:
        out["protection"] = p.protection
    return out


# What an item's data may hold (seed 000, Equipment and Armour): the source's item notation is
# "(d8, bulky, blast, +1 protection)", nothing else. Protection never adds past 3 (spec §000.8 [REC]).
ITEM_FIELDS: dict[str, tuple[str, Check]] = {
    "steel_die": ("steel die", lambda v, label: die_on(v, label, LADDER)),
    "bulky": ("bulky", boolean),
    "blast": ("blast", boolean),
    "protection": ("protection", lambda v, label: bounded_int(v, label, 0, MAX_PROTECTION)),
    "note": ("note", bounded_text),
    "lit": ("lit", boolean),
    "burned": ("minutes burned", lambda v, label: bounded_int(v, label, 0, BURNED_MAX)),
    "eaten": ("days eaten", lambda v, label: bounded_int(v, label, 0, 2)),
}


def validate_item(item: Item) -> Item:
    """An item's normalised copy, or RulesError naming what no Fell item can hold (a d50 steel die...)."""
    name, kind, slots_, quantity = item_basics(item.name, item.kind, item.slots, item.quantity)
    item_data = fields(item.data, name, ITEM_FIELDS)
    return replace(
        item,
        name=name,
        kind=kind,
        slots=slots_,
        quantity=quantity,
        data=item_data,
        worn=boolean(item.worn, f"{name}: worn"),
    )


def validate_hireling(hireling: Hireling) -> Hireling:
    """A hireling's normalised copy: its state is a small Fell sheet (seed 000, Hirelings), d4s unless raised."""
    name, kind, wage, upfront = hireling_basics(hireling.name, hireling.kind, hireling.wage, hireling.upfront)
    checked = replace(hireling, name=name, kind=kind, wage=wage, upfront=upfront)
    full = _hireling_state(checked)
    return replace(checked, state={key: full[key] for key in hireling.state})  # the same fields, normalised


def _steel(item: Item) -> int:
    value = item.data.get("steel_die", 0) if item.data else 0
    return int(value) if isinstance(value, int) and value in LADDER else 0


def _item_slots(item: Item) -> int:
    """Seed 000 (Equipment): most items 1 slot, bulky 2, 100 coins 1 slot (fewer ride in pockets)."""
    if item.kind == "coins":
        return max(0, item.quantity) // COINS_PER_SLOT
    per = item.slots
    if item.data and item.data.get("bulky") and per < 2:
        per = 2
    return max(0, per) * max(0, item.quantity)


MONEY_NOTE = f"Prices and purses are in coin; every {COINS_PER_SLOT} coins carried fill a slot."


def _slots_used(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return sum(_item_slots(i) for i in sheet.items) + state["coins"] // COINS_PER_SLOT


def _slots_max(state: Mapping[str, Any]) -> int:
    """Creation rules: 4 + BOD equipment slots, BOD being the die's highest face (spec §000.12.4)."""
    return BASE_SLOTS + _die_of(state, "BOD")


def protection(sheet: Sheet) -> int:
    """Best worn body armour plus 1 for a worn shield, at most 3 (spec §000.8 [REC])."""
    state = _st(sheet)
    armour = [
        int(i.data.get("protection", 0))
        for i in sheet.items
        if i.worn and i.kind != "shield" and i.data and i.data.get("protection")
    ]
    shield = any(i.worn and i.kind == "shield" for i in sheet.items)
    total = min(MAX_PROTECTION, max(armour, default=0) + (1 if shield else 0))
    return max(0, total - state["protection_damage"])


def _auto_disadvantage(sheet: Sheet, state: Mapping[str, Any]) -> tuple[int, tuple[str, ...]]:
    """Disadvantage every test carries: over the slots (seed 000, Equipment) and fatigue levels."""
    count, why = 0, []
    if _slots_used(sheet, state) > _slots_max(state):
        count += 1
        why.append("over your slots: disadvantage")
    if state["fatigue"]:
        count += state["fatigue"]
        why.append(f"fatigue level {state['fatigue']}: {state['fatigue']} step(s) of disadvantage")
    return count, tuple(why)


def _hireling_state(h: Hireling) -> dict[str, Any]:
    if not isinstance(h.state, Mapping):
        raise RulesError(f"Hireling {h.name}: the sheet must be a set of named fields.")
    base = {**_default_state(), "abilities": {ab: {"die": 4, "points": 4} for ab in ABILITIES}}
    base.update({"hp": HIRELING_HP, "hp_max": HIRELING_HP, "hireling": True})
    base.update(dict(h.state))
    try:
        return validate_state(base)
    except RulesError as err:
        raise RulesError(f"Hireling {h.name}: {err}") from None


def check_can_carry(sheet: Sheet, item: Item) -> SlotSummary:
    """Seed 000 (Equipment): refuse an item that would take you past twice your slots.

    The app calls this before adding an item; it returns the slot summary with the item counted.
    """
    state = _st(sheet)
    limit = 2 * _slots_max(state)
    after = _slots_used(sheet, state) + _item_slots(item)
    if after > limit:
        raise RulesError(f"No room for {item.name}: that makes {after} slots and nobody can carry more than {limit}.")
    return slots(sheet.with_state(state, items=(*sheet.items, item)))


def slots(sheet: Sheet) -> SlotSummary:
    state = _st(sheet)
    used, maximum = _slots_used(sheet, state), _slots_max(state)
    consequences = ("Over your slots: disadvantage on every test.",) if used > maximum else ()
    return SlotSummary(used, maximum, 2 * maximum, consequences)
