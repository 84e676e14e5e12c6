"""Fortune's Favor: gear slots, items, coin and the statuses gear causes (seed 003, Gear)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.base import Hireling, Item, Sheet, SlotSummary
from rules.systems.fortunes_favor.state import _st, is_dead, is_dying
from rules.validation import Check, boolean, bounded_text, fields, hireling_basics, item_basics

BASE_SLOTS = 7

ITEM_FIELDS: dict[str, tuple[str, Check]] = {
    "bulky": ("bulky", boolean),
    "note": ("note", bounded_text),
}


def validate_item(item: Item) -> Item:
    """An item's normalised copy (seed 003, Notable Items: a slot each, more if bulky; the rules give no
    per-weapon numbers, so an item holds only a note)."""
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


def validate_hireling(hireling: Hireling) -> Hireling:
    """1b has no hireling rules: someone in a character's pay is a name (and a note) the GM plays."""
    name, kind, wage, upfront = hireling_basics(hireling.name, hireling.kind, hireling.wage, hireling.upfront)
    state = fields(hireling.state, name, {"note": ("note", bounded_text)})
    return replace(hireling, name=name, kind=kind, wage=wage, upfront=upfront, state=state)


def slots_max(state: Mapping[str, Any]) -> int:
    """Seed 003, Gear Slots: 7 + half Mettle (toward zero) + half the level (rounded down)."""
    return BASE_SLOTS + int(state["stats"]["mettle"] / 2) + state["level"] // 2


def slots_used(sheet: Sheet, state: Mapping[str, Any]) -> int:
    """Every item's slots times its count, plus what Quick Retrieval holds until the next R&R."""
    return sum(max(0, i.slots) * max(0, i.quantity) for i in sheet.items) + state["quick_retrieval"]


def gear_statuses(sheet: Sheet, state: Mapping[str, Any]) -> tuple[str, ...]:
    """Seed 003, Gear Slots: over the maximum Slowed (and Misfortune on Agility tests); over double, Pinned."""
    used, maximum = slots_used(sheet, state), slots_max(state)
    if used > 2 * maximum:
        return ("Slowed", "Pinned")
    if used > maximum:
        return ("Slowed",)
    return ()


def statuses_now(sheet: Sheet, state: Mapping[str, Any]) -> dict[str, int]:
    """The statuses in force: those set, those gear causes, Dying and Dead; never twice (seed 003)."""
    out = dict(state["statuses"])
    for name in gear_statuses(sheet, state):
        out.setdefault(name, 0)
    if is_dead(state):
        out["Dead"] = 0
    elif is_dying(state):
        out["Dying"] = 0
    return out


def slots(sheet: Sheet) -> SlotSummary:
    state = _st(sheet)
    used, maximum = slots_used(sheet, state), slots_max(state)
    notes = []
    if used > 2 * maximum:
        notes.append("More than double your gear slots: Pinned (Speed 0, Misfortune on every Action).")
    elif used > maximum:
        notes.append("Over your gear slots: Slowed, and Misfortune on Agility tests.")
    # The rules set no carry limit: past double you are Pinned, not refused.
    return SlotSummary(used, maximum, None, tuple(notes))


def free_slots(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return slots_max(state) - slots_used(sheet, state)
