"""Chaos & Conquest items, slots and armour (seed 002, Inventory & Stress; Damage & Armor; Shields).

What is carried, what it weighs, what protects.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace as _replace
from typing import Any

from rules.base import Item, RulesError, Sheet, SlotSummary, entry_key
from rules.clock import BURNED_MAX
from rules.systems.chaos_conquest.catalogue import coin_count, coin_slots
from rules.systems.chaos_conquest.state import (
    ARMOR_MASTER,
    ATTRIBUTE_MAX,
    MAGIC_AV_MAX,
    MIN_SLOTS,
    MUNDANE_AV_MAX,
    WEAPON_DICE,
    WING_SLOTS,
    _cur,
    _data,
    _die,
    _faction,
    _number,
    _st,
)
from rules.validation import Check, boolean, bounded_list, bounded_text, fields, item_basics


def _item_slots(item: Item) -> int:
    return max(0, int(item.slots)) * max(0, int(item.quantity))


def row_slots(sheet: Sheet, item: Item) -> int:
    """The slots one row fills (seed 002, Inventory & Stress): slots times quantity; a bag of coins fills
    what it adds to the purse's weight (equipment.md, Currency: 500 coins free, then a slot per 1,000).

    Reads the stored purse without validating the state: the picker asks this for hundreds of rows."""
    if item.kind != "coins":
        return _item_slots(item)
    purse = sheet.state.get("coins", 0)
    loose = sum(max(0, i.quantity) for i in sheet.items if i.kind == "coins")
    total = coin_count(purse if isinstance(purse, int) else 0) + loose + (0 if item in sheet.items else item.quantity)
    return coin_slots(total) - coin_slots(total - max(0, item.quantity))


def _slots_max(state: Mapping[str, Any]) -> int:
    """Seed 002, Inventory & Stress: STR or 10, whichever is higher (mishap 17's wings take 5 away)."""
    return max(_cur(state, "STR"), MIN_SLOTS) - (WING_SLOTS if state["wings"] else 0)


def _coins_carried(sheet: Sheet, state: Mapping[str, Any]) -> int:
    loose = sum(max(0, i.quantity) for i in sheet.items if i.kind == "coins")
    return coin_count(state["coins"]) + loose


def _items_used(sheet: Sheet) -> int:
    return sum(_item_slots(i) for i in sheet.items if i.kind != "coins")


def _slots_used(sheet: Sheet, state: Mapping[str, Any]) -> int:
    """Items, stress, coins past the free 500, and what mishaps fill (the aura, tumours)."""
    marks = (1 if state["aura"] else 0) + state["tumours"]
    return _items_used(sheet) + state["stress"] + coin_slots(_coins_carried(sheet, state)) + marks


def _free_slots(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return max(0, _slots_max(state) - _slots_used(sheet, state))


def _supplies(items: Sequence[Item]) -> list[Item]:
    return [i for i in items if _data(i).get("supply") and i.quantity > 0]


def _weapon_die(item: Item) -> int:
    die = _data(item).get("damage")
    # Only a die of the rules' weapons: a stored d50000 must not reach the odds (it is refused on every write).
    return die if item.kind == "weapon" and isinstance(die, int) and die in WEAPON_DICE else 0


# What an item's data may hold, with the bounds of the rules (seed 002, Damage & Armor; equipment.md):
# weapon dice d4-d12, a flat bonus like the pistol's +1, AV at most 6 even with magic, STR needs up to 18.
_FLAGS = [
    "lit",
    "ranged",
    "silver",
    "worn_out",
    "thrown",
    "two_handed",
    "reach",
    "loud",
    "long_range",
    "sunder",
    "reload_two_hands",
    "needs_oil",
    "dex_disadvantage",
    "magic",
    "supply",
    "last_shot",
    "grimoire",
    "holy_book",
    "scroll",
    "ruined",
    "mount",
]


ITEM_FIELDS: dict[str, tuple[str, Check]] = {
    **{flag: (flag.replace("_", " "), boolean) for flag in _FLAGS},
    "damage": ("damage die", _die),
    "bite": ("bite die", _die),
    "bonus": ("flat damage bonus", _number(0, 3)),
    "av": ("AV", _number(0, MAGIC_AV_MAX)),
    "min_str": ("STR needed", _number(0, ATTRIBUTE_MAX)),
    "days": ("days of food", _number(0, 365)),
    "shots": ("shots", _number(0, 100)),
    "rounds": ("rounds", _number(0, 100)),
    "turns": ("turns", _number(0, 1000)),
    "burned": ("minutes burned", _number(0, BURNED_MAX)),
    "lp": ("light points", _number(0, 100)),
    "rarity": ("rarity", _number(0, 10)),
    "hd": ("hit dice", _number(0, 20)),
    "skill": ("skill", _number(0, 20)),
    "ml": ("morale", _number(2, 12)),
    "slots_ridden": ("slots when ridden", _number(0, 100)),
    "slots_unridden": ("slots when led", _number(0, 100)),
    "miles_per_day": ("miles a day", _number(0, 200)),
    "spells": ("spells", bounded_list),
    "spell": ("spell", lambda value, label: bounded_text(value, label, 100)),
    "faction": ("faction", _faction),
    "note": ("note", bounded_text),
}


def validate_item(item: Item) -> Item:
    """An item's normalised copy, or RulesError naming what no Chaos & Conquest item can hold (a d50 sword...)."""
    name, kind, slots_, quantity = item_basics(item.name, item.kind, item.slots, item.quantity)
    numbers = fields(item.data, name, ITEM_FIELDS)
    worn = boolean(item.worn, f"{name}: worn")
    return _replace(item, name=name, kind=kind, slots=slots_, quantity=quantity, data=numbers, worn=worn)


def _weapons(sheet: Sheet) -> dict[str, Item]:
    return {entry_key(it, i): it for i, it in enumerate(sheet.items) if _weapon_die(it)}


def _fits_armour(item: Item, state: Mapping[str, Any]) -> bool:
    """equipment.md: medium armour needs STR 12+, heavy STR 14+, or the Armor Master talent."""
    need = _data(item).get("min_str", 0)
    return not need or _cur(state, "STR") >= need or ARMOR_MASTER in state["talents"]


def _armour_pieces(sheet: Sheet, state: Mapping[str, Any]) -> list[Item]:
    if state["wings"]:  # mishap 17: no armour over the wings
        return []
    return [i for i in sheet.items if i.worn and i.kind in ("armour", "helmet") and _data(i).get("av")]


def armour_value(sheet: Sheet, state: Mapping[str, Any] | None = None) -> int:
    """Seed 002, Damage & Armor: best body armour + best helmet, at most 4; magic lifts the cap to 6.

    Magic counts from magic armour and the mishap marks (aura, bark). Criticals knock points off
    (``av_lost``) after the round they land in (spec §002.13.9 [REC]: the aura goes first).
    """
    state = _st(sheet) if state is None else state
    body, helmet, magic = 0, 0, 0
    for item in _armour_pieces(sheet, state):
        if not _fits_armour(item, state):
            continue
        av = int(_data(item).get("av", 0))
        if _data(item).get("magic"):
            magic += av
        elif item.kind == "helmet":
            helmet = max(helmet, av)
        else:
            body = max(body, av)
    magic += (1 if state["aura"] and not state["aura_lost"] else 0) + (1 if state["bark"] else 0)
    mundane = body + helmet
    total = min(MAGIC_AV_MAX, min(MUNDANE_AV_MAX, mundane) + magic) if magic else min(MUNDANE_AV_MAX, mundane)
    return max(0, total - state["av_lost"])


def armour_summary(sheet: Sheet) -> dict[str, Any]:
    """What the sheet shows about protection (seed 002, Damage & Armor; Shields): AV and its cap, the
    pieces worn (and whether the wearer is strong enough), DEX disadvantage, the shield in hand."""
    state = _st(sheet)
    pieces = _armour_pieces(sheet, state)
    magic = any(_data(i).get("magic") for i in pieces) or (state["aura"] and not state["aura_lost"]) or state["bark"]
    held = [i.name for i in sheet.items if i.kind == "shield" and i.worn]
    spare = [i.name for i in sheet.items if i.kind == "shield" and not i.worn]
    return {
        "av": armour_value(sheet, state),
        "cap": MAGIC_AV_MAX if magic else MUNDANE_AV_MAX,
        "pieces": [{"name": i.name, "av": int(_data(i).get("av", 0)), "fits": _fits_armour(i, state)} for i in pieces],
        "dex_disadvantage": _dex_disadvantage(sheet, state),
        "shield": held[0] if held else "",
        "spare_shield": spare[0] if spare else "",
        "supplies": sum(i.quantity for i in _supplies(sheet.items)),
    }


def _raw_av(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return armour_value(sheet, {**state, "av_lost": 0})


def _dex_disadvantage(sheet: Sheet, state: Mapping[str, Any]) -> str:
    for item in _armour_pieces(sheet, state):
        if _data(item).get("dex_disadvantage"):
            return f"{item.name}: disadvantage on DEX saves"
    return ""


def _shields(items: Sequence[Item]) -> tuple[int, int]:
    """(shields carried, shields held)."""
    carried = sum(max(0, i.quantity) for i in items if i.kind == "shield")
    held = sum(1 for i in items if i.kind == "shield" and i.worn)
    return carried, held


def check_can_carry(sheet: Sheet, item: Item) -> SlotSummary:
    """Seed 002, Inventory & Stress: no more items and stress than slots; shields: one spare at most.

    The app calls this before adding an item; it returns the slot summary with the item counted.
    """
    state = _st(sheet)
    after = (*sheet.items, item)
    used = _slots_used(sheet.with_state(state, after), state)
    maximum = _slots_max(state)
    if used > maximum and (_item_slots(item) or item.kind == "coins"):
        free = _free_slots(sheet, state)
        raise RulesError(
            f"No room for {item.name}: it needs {_item_slots(item)} slot(s) and you have {free} free "
            f"of {maximum}. Drop something first."
        )
    if item.kind == "shield":
        carried, held = _shields(after)
        if carried > 2:
            raise RulesError("You can carry one spare shield at most, besides the one in your hand.")
        if carried == 2 and not held:
            raise RulesError("A spare shield rides along only while you hold another one; take it in hand first.")
    return slots(sheet.with_state(state, after))


def slots(sheet: Sheet) -> SlotSummary:
    state = _st(sheet)
    used, maximum = _slots_used(sheet, state), _slots_max(state)
    out = []
    if used > maximum:
        out.append("Carrying more than your slots allow: drop something.")
    if state["stress"]:
        out.append(f"Stress fills {state['stress']} slot(s); stress in every slot kills.")
    if used >= maximum:
        out.append("No empty slot: you cannot push, and new stress means dropping an item or d6 damage each.")
    return SlotSummary(used, maximum, maximum, tuple(out))


def _item_keys(sheet: Sheet) -> dict[str, Item]:
    return {entry_key(it, i): it for i, it in enumerate(sheet.items)}


def _sunder_shield(sheet: Sheet) -> Item | None:
    return next((i for i in sheet.items if i.kind == "shield" and i.worn), None)


def _ammo(items: Sequence[Item]) -> Item | None:
    return next((i for i in items if i.kind == "ammo" and not _data(i).get("silver")), None)


def _worn_weapons(items: Sequence[Item]) -> dict[str, Item]:
    return {entry_key(it, i): it for i, it in enumerate(items) if _weapon_die(it) and _data(it).get("worn_out")}


def _ration(items: Sequence[Item]) -> Item | None:
    return next((i for i in items if i.kind == "ration" and i.quantity > 0), None)
