"""Chaos & Conquest character creation (character-creation.md).

3d6 in order, the swap, a background and its kit, coins and age.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from rules.base import Creation, Item, Param, RollResult, RulesError, Sheet
from rules.data import chaos_conquest as data
from rules.dice import DieRoll, RandomSource, roll_dice, roll_die
from rules.systems.chaos_conquest.inventory import _free_slots
from rules.systems.chaos_conquest.state import ATTRIBUTES, _default_state, validate_state
from rules.validation import bounded_int

_SWAPS = (("STR-DEX", "STR and DEX"), ("STR-WIL", "STR and WIL"), ("DEX-WIL", "DEX and WIL"))


def creation_params() -> tuple[Param, ...]:
    """The creation form (character-creation.md): every empty answer but the name is left to the dice."""
    backgrounds = tuple((str(n), f"{n}. {b['name']} ({b['archetype']})") for n, b in data.BACKGROUNDS.items())
    return (
        # The rules have no name tables to roll on, so a name is asked for rather than made up.
        Param("name", "Name", "text", "", minimum=1, help="These rules have no name tables to roll one on."),
        Param(
            "faction",
            "Faction (kept secret)",
            "choice",
            "",
            choices=(("", "decide later"), *((f, f) for f in data.FACTIONS)),
            help="Only you and the GM see it.",
        ),
        Param("background", "Background", "choice", "", choices=(("", "roll a d20"), *backgrounds)),
        Param(
            "swap",
            "Swap two scores after rolling 3d6 in order",
            "choice",
            "",
            choices=(("", "no swap"), *_SWAPS),
            help="You may also swap once from the sheet, before play.",
        ),
        Param("age", "Age", "int", None, 18, 1000, help="Leave empty to roll 2d10 + 16."),
    )


def _creation_roll(label: str, words: str, dice: Sequence[DieRoll], total: int | None = None) -> RollResult:
    return RollResult("create", label, words, f"{label}: {words}.", tuple(dice), total)


def _item(row: Mapping[str, Any], quantity: int | None = None) -> Item:
    kind = row["kind"]
    d = {k: v for k, v in dict(row.get("data") or {}).items() if k != "quantity_die"}
    return Item(
        row["name"],
        kind,
        int(row.get("slots", 1)),
        quantity if quantity is not None else int(row.get("quantity", 1)),
        d,
        worn=kind in ("armour", "helmet", "shield"),
    )


def _pick_background(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value in data.BACKGROUNDS:
        return value
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit() and int(text) in data.BACKGROUNDS:
            return int(text)
        for n, b in data.BACKGROUNDS.items():
            if b["name"].lower() == text:
                return n
    raise RulesError(f"{value!r} is not one of the twenty backgrounds.")


def _parse_swap(value: Any) -> tuple[str, str] | None:
    if value in (None, "", ()):
        return None
    parts = value.split("-") if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []
    parts = [str(x).strip().upper() for x in parts]
    if len(parts) != 2 or parts[0] == parts[1] or not set(parts) <= set(ATTRIBUTES):
        raise RulesError("Swap two different attributes, such as STR-WIL.")
    return parts[0], parts[1]


def create(choices: Mapping[str, Any], rng: RandomSource, settings: Mapping[str, Any] | None = None) -> Creation:
    """character-creation.md, rolled in this order: STR, DEX, WIL (3d6 each, in order, then the
    chosen swap), stamina (1d8), background (d20 unless chosen; talents and kit, a mage's grimoire
    spell on d66), 4d10 shillings, age (2d10+16 unless given). Every roll is in ``Creation.rolls``."""
    if not isinstance(choices, Mapping):
        raise RulesError("Creation choices must be named.")
    rolls: list[RollResult] = []
    scores: dict[str, int] = {}
    for a in ATTRIBUTES:
        dice = roll_dice(rng, 3, 6, a)
        scores[a] = sum(d.face for d in dice)
        rolls.append(_creation_roll(a, str(scores[a]), dice, scores[a]))
    swap = _parse_swap(choices.get("swap"))
    if swap:
        x, y = swap
        scores[x], scores[y] = scores[y], scores[x]
        rolls.append(_creation_roll("Swap", f"{x} {scores[x]} and {y} {scores[y]}", ()))
    stamina = roll_die(rng, 8, "stamina")
    rolls.append(_creation_roll("Stamina", str(stamina.face), (stamina,), stamina.face))
    if choices.get("background") not in (None, ""):
        number = _pick_background(choices["background"])
    else:
        d20 = roll_die(rng, 20, "background")
        number = d20.face
        rolls.append(_creation_roll("Background", data.BACKGROUNDS[number]["name"], (d20,), number))
    bg = data.BACKGROUNDS[number]
    items = [_item(row) for row in data.STARTING_ITEMS]
    for row in bg["items"]:
        die = dict(row.get("data") or {}).get("quantity_die")
        if die:
            count = roll_die(rng, die, row["name"])
            rolls.append(_creation_roll(row["name"], str(count.face), (count,), count.face))
            items.append(_item(row, count.face))
        else:
            items.append(_item(row))
    if bg.get("grimoire"):
        tens, ones = roll_die(rng, 6, "spell (tens)"), roll_die(rng, 6, "spell (ones)")
        spell = data.SPELLS[tens.face * 10 + ones.face][0]
        rolls.append(_creation_roll("Grimoire spell", spell, (tens, ones), tens.face * 10 + ones.face))
        items.append(Item("Grimoire", "spellbook", data.GRIMOIRE_SLOTS, 1, {"grimoire": True, "spells": [spell]}))
    if bg.get("retainer"):
        rolls.append(
            _creation_roll(
                bg["retainer"], "joins you as a retainer: hire them from the sheet, with nothing up front", ()
            )
        )
    coin_dice = roll_dice(rng, 4, 10, "shillings")
    shillings = sum(d.face for d in coin_dice)
    rolls.append(_creation_roll("Coins", f"{shillings} s", coin_dice, shillings))
    if choices.get("age") not in (None, ""):
        try:
            age = bounded_int(int(choices["age"]), "Age", 18, 1000)
        except (TypeError, ValueError):
            raise RulesError("Age must be a whole number, 18 or more.") from None
    else:
        age_dice = roll_dice(rng, 2, 10, "age")
        age = sum(d.face for d in age_dice) + 16
        rolls.append(_creation_roll("Age", str(age), age_dice, age))
    faction = str(choices.get("faction") or "").strip().capitalize()
    if faction and faction not in data.FACTIONS:
        raise RulesError(f"Pick a faction: {', '.join(data.FACTIONS)}.")
    state = validate_state(
        {
            **_default_state(),
            "attributes": {a: {"current": v, "base": v} for a, v in scores.items()},
            "stamina": stamina.face,
            "stamina_max": stamina.face,
            "talents": list(bg["talents"]),
            "background": bg["name"],
            "archetype": bg["archetype"],
            "faction": faction,
            "age": age,
            "coins": shillings * data.PENNIES_PER_SHILLING,
            "swapped": bool(swap),
        }
    )
    name = str(choices.get("name") or "").strip()[:100]
    kit = _what_fits(Sheet(state=state), items, rolls)
    return Creation(name, state, kit, tuple(rolls))


def _what_fits(sheet: Sheet, items: Sequence[Item], rolls: list[RollResult]) -> tuple[Item, ...]:
    """Seed 002 (Inventory & Stress): nobody holds more than their slots. A weak character's rolled kit can
    outgrow them (STR 8, ten slots, a kit of twelve): what does not fit stays behind, and the log says what."""
    free = _free_slots(sheet, sheet.state)
    kept: list[Item] = []
    left: list[str] = []
    for item in items:
        each = max(0, int(item.slots))
        count = item.quantity if each == 0 else min(item.quantity, free // each)
        if count > 0:
            kept.append(replace(item, quantity=count))
            free -= each * count
        if count < item.quantity:
            left.append(f"{item.name} ×{item.quantity - count}" if item.quantity > 1 else item.name)
    if left:
        rolls.append(_creation_roll("Left behind", f"no room for {', '.join(left)}", ()))
    return tuple(kept)
