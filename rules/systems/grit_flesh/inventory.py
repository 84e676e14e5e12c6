"""Grit & Flesh: items, slots, armour class and the equipment catalogue (seed 004, Carrying Things,
Melee Weapons, Ranged Weapons, Armor and Shields)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.base import CatalogueEntry, Hireling, Item, RulesError, Sheet, SlotSummary, entry_key
from rules.clock import BURNED_MAX
from rules.data import grit_flesh as data
from rules.systems.grit_flesh.state import BUBBLES, COINS_PER_SLOT, SLOTS, st_of
from rules.validation import boolean, bounded_int, bounded_text, fields, hireling_basics, item_basics, name_list

SIZES = ("small", "medium", "large")
AC_MAX = 10


def _size(v: Any, label: str) -> str:
    if v not in SIZES:
        raise RulesError(f"{label} is small, medium or large.")
    return str(v)


def _int(low: int, high: int):
    return lambda v, label: bounded_int(v, label, low, high)


_WEAPON = {
    "size": ("size", _size),
    "hands": ("hands", _int(1, 2)),
    "damage_bonus": ("damage bonus", _int(-5, 5)),
    "range": ("range in feet", _int(0, 1000)),
    "cost": ("cost", _int(0, 1_000_000)),
    "out_of_ammunition": ("out of ammunition", boolean),
}
_ARMOUR = {
    "AC": ("AC", _int(1, AC_MAX)),
    "current_AC": ("current AC", _int(0, AC_MAX)),
    "cost": ("cost", _int(0, 1_000_000)),
}
_OTHER = {
    "cost": ("cost", _int(0, 1_000_000)),
    "bubble": ("from a gear bubble", boolean),
    # a light source (kind "light", rules/clock.py): alight now, minutes burned, and how long one burns
    "lit": ("alight", boolean),
    "burned": ("minutes burned", _int(0, BURNED_MAX)),
    "turns": ("turns it burns", _int(1, 1000)),
}


def slot_cost(kind: str, item_data: Mapping[str, Any], given: int) -> int:
    """Seed 004 (Carrying Things): a weapon takes a slot per hand, armour half its AC (spec §004.6 [REC]:
    rounded up), a shield one; treasure is counted by the coin (200 a slot); gear as written (0 if mundane)."""
    if kind == "weapon" and "hands" in item_data:
        return int(item_data["hands"])
    if kind == "armour" and "AC" in item_data:
        return -(-int(item_data["AC"]) // 2)
    if kind == "shield":
        return 1
    if kind in ("treasure", "coins"):
        return 0
    return given


def validate_item(item: Item) -> Item:
    """An inventory row checked, its slots set by the rules for weapons, armour and shields."""
    name, kind, slots, quantity = item_basics(item.name, item.kind, item.slots, item.quantity)
    boolean(item.worn, f"{name}: worn")
    checks = _WEAPON if kind == "weapon" else _ARMOUR if kind in ("armour", "shield") else _OTHER
    clean = fields(item.data, name, checks)
    if kind in ("armour", "shield") and "AC" in clean:
        clean.setdefault("current_AC", clean["AC"])
        if clean["current_AC"] > clean["AC"]:
            raise RulesError(f"{name}: its AC now cannot pass its starting AC of {clean['AC']}.")
    elif "current_AC" in clean:
        raise RulesError(f"{name}: a current AC needs a starting AC.")
    return replace(item, name=name, kind=kind, slots=slot_cost(kind, clean, slots), quantity=quantity, data=clean)


def treasure(sheet: Sheet, state: Mapping[str, Any]) -> int:
    """Coins and gems carried: the purse plus treasure rows."""
    return int(state["coins"]) + sum(i.quantity for i in sheet.items if i.kind in ("treasure", "coins"))


def slots_used(sheet: Sheet, state: Mapping[str, Any]) -> int:
    goods = sum(slot_cost(i.kind, i.data, i.slots) * i.quantity for i in sheet.items)
    return goods + -(-treasure(sheet, state) // COINS_PER_SLOT)


def slots(sheet: Sheet, state: Mapping[str, Any] | None = None) -> SlotSummary:
    state = st_of(sheet) if state is None else state
    notes = ("Mundane gear takes no slot; 200 coins or gems fill one.",)
    return SlotSummary(slots_used(sheet, state), SLOTS, SLOTS, notes)


def worn_armour(sheet: Sheet) -> tuple[Item | None, Item | None]:
    """The best worn armour and the best worn shield (by AC now), either may be None."""
    armour = [i for i in sheet.items if i.worn and i.kind == "armour" and "AC" in i.data]
    shields = [i for i in sheet.items if i.worn and i.kind == "shield"]

    def now(i: Item) -> int:
        return int(i.data.get("current_AC", i.data.get("AC", 1)))

    return (max(armour, key=now, default=None), max(shields, key=now, default=None))


def armour_class(sheet: Sheet) -> int:
    """Seed 004 (Armor and Shields): unarmoured 0; armour's AC now, plus a shield's (broken pieces give 0)."""
    return sum(int(i.data.get("current_AC", i.data.get("AC", 1))) for i in worn_armour(sheet) if i is not None)


def weapons(sheet: Sheet) -> list[tuple[str, Item]]:
    return [(entry_key(i, n), i) for n, i in enumerate(sheet.items) if i.kind == "weapon" and "size" in i.data]


def validate_hireling(hireling: Hireling) -> Hireling:
    name, kind, wage, upfront = hireling_basics(hireling.name, hireling.kind, hireling.wage, hireling.upfront)
    checks = {
        "role": ("role", lambda v, label: _role(v, label)),
        "weekly": ("weekly cost", _int(0, 1_000_000)),
        "grit": ("Grit", _int(0, 999)),
        "grit_max": ("maximum Grit", _int(0, 999)),
        "flesh": ("Flesh", _int(0, 999)),
        "flesh_max": ("maximum Flesh", _int(1, 999)),
        "av": ("AV", _int(1, 20)),
        "st": ("ST", _int(1, 20)),
        "ac": ("AC", _int(0, AC_MAX)),
        "kit": ("kit", lambda v, label: name_list(v, label, 10)),
        "paid_weeks": ("weeks paid", _int(0, 1000)),
        "weeks": ("weeks served", _int(0, 1000)),
        "dead": ("dead", boolean),
    }
    state = fields(hireling.state, name, checks)
    if state.get("grit", 0) > state.get("grit_max", 999) or state.get("flesh", 0) > state.get("flesh_max", 999):
        raise RulesError(f"{name}: Grit and Flesh cannot pass their maximum.")
    return replace(hireling, name=name, kind=kind, wage=wage, upfront=upfront, state=state)


def _role(v: Any, label: str) -> str:
    roles = [h[0] for h in data.HELPERS]
    if v not in roles:
        raise RulesError(f"{label} is one of {', '.join(roles)}.")
    return str(v)


def _weapon_entry(row: tuple[str, str, int, int, int, int], group: str) -> CatalogueEntry:
    name, size, cost, bonus, hands, reach = row
    item_data = {"size": size, "hands": hands, "damage_bonus": bonus, "range": reach, "cost": cost}
    damage = "1d6" + (f"{bonus:+d}" if bonus else "")
    note = f"{damage} damage"
    if reach:
        note += f", {reach}', reload: {data.RELOAD[size]}"
    elif size == "small":
        note += ", the target's AC counts 1 lower"
    if hands == 2:
        note += ", two hands"
    return CatalogueEntry(name, "weapon", cost, hands, group, item_data, note)


def _catalogue() -> tuple[CatalogueEntry, ...]:
    """Every row of the seed's equipment lists, cost in gp."""
    rows = [_weapon_entry(r, "Melee weapons") for r in data.MELEE_WEAPONS]
    rows += [_weapon_entry(r, "Ranged weapons") for r in data.RANGED_WEAPONS]
    for name, cost, ac in data.ARMOUR:
        rows.append(
            CatalogueEntry(
                name, "armour", cost, -(-ac // 2), "Armour", {"AC": ac, "current_AC": ac, "cost": cost}, f"AC {ac}"
            )
        )
    name, cost, ac = data.SHIELD
    rows.append(CatalogueEntry(name, "shield", cost, 1, "Armour", {"AC": ac, "current_AC": ac, "cost": cost}, "+1 AC"))
    return tuple(rows)


CATALOGUE: tuple[CatalogueEntry, ...] = _catalogue()
BY_NAME: dict[str, CatalogueEntry] = {e.name: e for e in CATALOGUE}
KIT_SLOTS: dict[str, int] = {e.name: e.slots for e in CATALOGUE}


def catalogue_item(name: str) -> Item:
    entry = BY_NAME[name]
    return Item(entry.name, entry.kind, entry.slots, 1, dict(entry.data), worn=entry.kind in ("armour", "shield"))


def bubble_words(filled: int) -> str:
    return f"{filled} of {BUBBLES} gear bubbles filled"


def text_field(value: Any, label: str) -> str:
    return bounded_text(value, label, 100, required=True)
