"""Fell (late): the price list of this revision's tables as catalogue rows, and starting items."""

from __future__ import annotations

from rules.base import CatalogueEntry, Item
from rules.data import fell_late as data
from rules.systems.fell_late.inventory import parse


def _catalogue() -> tuple[CatalogueEntry, ...]:
    """Every row of tables.md's Equipment (seed 001 companion tables), cost in coin."""
    rows: list[CatalogueEntry] = []
    rows += [
        CatalogueEntry(name, "light" if "torch" in name or "lantern" in name else "gear", data.TOOL_COST, 1, "Tools")
        for name in data.TOOLS
    ]
    rows += [CatalogueEntry(name, "gear", data.LUXURY_COST, 1, "Luxuries") for name in data.LUXURIES]
    rows.append(CatalogueEntry("rations (1 day)", "ration", data.RATION_COST, 1, "Rations"))
    rows += [CatalogueEntry(name, "animal", cost, 0, "Animals") for name, cost in data.ANIMALS]
    rows += [CatalogueEntry(name, "vehicle", cost, 0, "Vehicles") for name, cost in data.VEHICLES]
    rows += [CatalogueEntry(name, "service", cost, 0, "Services") for name, cost in data.SERVICES]
    for cls, cost, die, bulky, names in data.WEAPON_CLASSES:
        group = f"{cls.capitalize()} weapons"
        base = {"damage": die, **({"bulky": True} if bulky else {})}
        for name in names:
            rows.append(CatalogueEntry(name, "weapon", cost, 2 if bulky else 1, group, base))
            rows.append(
                CatalogueEntry(
                    f"pure-iron {name}",
                    "weapon",
                    cost * data.PURE_IRON_FACTOR,
                    2 if bulky else 1,
                    group,
                    {**base, "pure_iron": True},
                    note="Breaks when its damage die shows 1.",
                )
            )
    for cls, cost, value, bulky, names in data.ARMOUR_CLASSES:
        for name in names:
            rows.append(
                CatalogueEntry(
                    name,
                    "armour",
                    cost,
                    2 if bulky else 1,
                    f"{cls.capitalize()} armour",
                    {"armour": value, "bulky": bulky},
                )
            )
    rows += [
        CatalogueEntry(name, "shield", data.SHIELD_COST, 2, "Shields", {"armour": 1, "bulky": True})
        for name in data.SHIELDS
    ]
    return tuple(rows)


CATALOGUE: tuple[CatalogueEntry, ...] = _catalogue()
_BY_NAME = {e.name: e for e in CATALOGUE}


def source_item(text: str, quantity: int = 1) -> Item:
    """A starting item from the background table, its bulk, die and armour from its notation or the price list."""
    parsed = parse(text)
    listed = _BY_NAME.get(parsed.name)
    item_data = {**(dict(listed.data) if listed else {}), **parsed.data}
    if parsed.name == "shield":
        kind = "shield"
    elif "armour" in item_data:
        kind = "armour"
    elif "damage" in item_data:
        kind = "weapon"
    elif listed is not None:
        kind = listed.kind
    elif parsed.name.startswith(("torch", "lantern")):
        kind = "light"  # a background's plain "lantern" burns like the price list's (the table's clock)
    else:
        kind = "gear"
    slots_ = 0 if kind in ("animal", "vehicle") else 2 if item_data.get("bulky") else 1
    return Item(parsed.name, kind, slots_, quantity, item_data, worn=kind in ("armour", "shield"))
