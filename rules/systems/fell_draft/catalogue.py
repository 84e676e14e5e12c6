"""Fell (draft): catalogue. See the package docstring for sources and readings."""

from __future__ import annotations

from rules.base import (
    CatalogueEntry,
    Item,
)
from rules.data import fell_draft as data
from rules.systems.fell_draft.inventory import _item_data, _parse

_KINDS = {
    "rations (three days)": "ration",
    "torch (1 hour)": "light",
    "candle (6 hours)": "light",
    "lantern (3 hours)": "light",
    "arrows (20)": "ammo",
    "bolts (20)": "ammo",
    "shield": "shield",
}


def _entry(text: str, cost: int, group: str, kind: str) -> CatalogueEntry:
    parsed = _parse(text)
    kind = _KINDS.get(parsed.name, kind)
    if kind == "armour" and parsed.name == "shield":
        kind = "shield"
    slots_ = 0 if kind in ("animal", "vehicle", "service") else 2 if parsed.bulky else 1
    return CatalogueEntry(parsed.name, kind, cost, slots_, group, _item_data(parsed))


def _catalogue() -> tuple[CatalogueEntry, ...]:
    """Every row of the seed's price lists (seed 000, Equipment), cost in coin."""
    groups = (
        (data.GEAR, "Equipment", "gear"),
        (data.ANIMALS, "Animals", "animal"),
        (data.VEHICLES, "Vehicles", "vehicle"),
        (data.SERVICES, "Services", "service"),
        (data.WEAPONS, "Weapons", "weapon"),
        (data.ARMOUR, "Armour", "armour"),
    )
    return tuple(_entry(text, cost, group, kind) for rows, group, kind in groups for text, cost in rows)


CATALOGUE: tuple[CatalogueEntry, ...] = _catalogue()


_BY_NAME = {e.name: e for e in CATALOGUE}


def _source_item(text: str) -> Item:
    """A starting item from the background table, with the price list's bulk where it names one."""
    parsed = _parse(text)
    listed = _BY_NAME.get(parsed.name) or next((e for e in CATALOGUE if e.name.split(" (")[0] == parsed.name), None)
    item_data = _item_data(parsed)
    kind = "weapon" if parsed.steel_die else "gear"
    slots_ = 1
    if listed is not None:
        item_data = {**dict(listed.data), **item_data}
        kind = listed.kind if not parsed.steel_die else "weapon"
        slots_ = listed.slots
    if parsed.name == "shield":
        kind = "shield"
    elif parsed.protection:
        kind = "armour"
    if item_data.get("bulky"):
        slots_ = 2
    return Item(parsed.name, kind, slots_, 1, item_data, worn=kind in ("armour", "shield"))
