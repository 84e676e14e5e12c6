"""Chaos & Conquest (2023-12-20 rules) by Alexander Gomez and The Chaos Consortium.

Rules from seed 002 ("How to Play", ../shared/seeds/002_882aafdbf41b7f4b.txt), creation, equipment,
magic and hired help from the companion rules of the same date (loaded as data in
``rules.data.chaos_conquest``, CC BY-SA 4.0), and the spec's [REC] readings (rules-spec.md §002).

State layout (a JSON-able dict, normalised by ``validate_state``)::

    {
      "attributes": {"STR": {"current": 12, "base": 12}, "DEX": {...}, "WIL": {...}},
      "level": 1, "xp": 0,
      "xp_ledger": [{"kind": "treasure" | "waste", "amount": 1200, "note": "Barrow silver"}],
      "stamina": 5, "stamina_max": 5,          # stamina may sit at 0 or below on Death's door
      "stress": 0,                             # each point fills an inventory slot
      "talents": ["Survival", ...], "background": "Ranger", "archetype": "Pathfinder",
      "faction": "Law",                        # secret: the app hides it from other players
      "age": 24,
      "status": "fine" | "deaths_door" | "dying" | "dead",
      "scars": [{"roll": 3, "name": "Hobbled", "text": "..."}], "doomed": False, "limp": False,
      "coins": 540,                            # brass pennies; 1 m = 20 s = 240 p
      "av_lost": 0,                            # armour points knocked off by criticals, mended by Supply
      "av_crit_pending": 0,                    # criticals taken this round: AV drops at the round's end
      "aura": False, "aura_lost": False, "bark": False, "wings": False, "tumours": 0,  # mishap marks
      "mishaps": ["12: magic aura"], "swapped": False,
    }

``attributes[..]["base"]`` is the score a full rest returns to; ``current`` may sit lower (poison,
arcane burns). Scars, level-ups and lasting mishaps move both.

Items (``Item.data``): weapons ``{"damage": 8, "bonus": 1, "ranged": True, "silver": True,
"worn_out": True}`` (``worn_out`` is the rules' "worn" weapon: damage 1, no criticals); armour and
helmets ``{"av": 2, "min_str": 12, "dex_disadvantage": True, "magic": True}`` counting when
``Item.worn``; a held shield is a ``kind="shield"`` item with ``worn=True``; Supplies are
``{"supply": True}``; rations ``kind="ration"`` (``{"days": 7}``); ammo ``kind="ammo"``
(``{"last_shot": True}`` after a bad ammo roll); spell books ``kind="spellbook"`` with
``{"grimoire": True, "spells": [...]}``, ``{"holy_book": True, "faction": "Law", "spells": [...]}`` or
``{"scroll": True, "spell": "Bless"}``; mounts ``kind="animal"`` with ``{"mount": True}``.

Hirelings (``Hireling.state``): ``{"role": "porter" | "teamster" | "explorer" | "retainer",
"attributes": {...as above}, "stamina", "stamina_max", "status", "doomed", "scars", "slots",
"morale"`` (hirelings) or ``"loyalty", "level", "xp", "weapon"`` (retainers) ``}``.

App helpers beyond the GameSystem protocol: ``SYSTEM.check_can_carry(sheet, item)`` (call before
adding an item), ``SYSTEM.armour_value(sheet)``, ``SYSTEM.treasure_shares(total, pcs, retainers)`` and
``SYSTEM.heir_split(share)`` (pure), ``SYSTEM.credit``; the forms come from ``creation_params()`` and
``hire_params(sheet)``. Starting rolls are all in ``Creation.rolls``. A retainer's fee up front is
``Hireling.upfront``: ``hire`` cannot touch the employer's sheet, so the app deducts it from ``coins``.
``SYSTEM.private_fields`` names the state the app shows only to the owner and the GM (the faction).

Where the seed and the spec differ
----------------------------------
We found no rule where spec §002 contradicts the seed; these are the places where one says more
than the other, and what we did:
- Level-up at the cap: the seed says "No attribute score can be increased above 18"; the spec's
  "+1 to one attribute (max 18)" could read as a precondition. With every attribute at 18 the seed
  caps the rise and the level still comes, with its stamina roll.
- Stress that kills: spec §002.7 lists stress sources; the seed says a character whose every slot
  holds stress dies, and stress with no slot costs d6 damage each. A push, a failed casting save, a
  mishap, a party-save leader's cover or a scar that shrinks the slots can therefore kill, so the
  odds of those rolls show death (and the dying) with its exact chance. A push that fills the last
  slot kills before the save is rolled; a failed save's stress that kills ends the cast unresolved.
- Night's rest when sleep is interrupted: spec §002.6 (from Camp) says only that no stamina comes
  back; the seed's Night's Rest needs "a full night's rest of two watches", which an interrupted
  night is not, so we give neither stamina nor the stress removal (the ration is still eaten).
- Chronic Wound: the seed says "permanently lose 2 stamina"; the spec reads it as 2 *max* stamina.
  Losing current stamina "permanently" means nothing once rested, so we follow the spec.
- Status: spec §002.3 folds Death's door and dying into one value; the seed has two steps (the d6,
  then dying until treated), so the sheet keeps ``deaths_door`` (the d6 still to roll, after a
  hand adjustment) and ``dying`` apart.
- Doomed: the seed says "the next time you are on Death's door". The spec does not say what
  happens after that time; a character who rolls the 6 and lives has spent the doom, so we clear it.
- Treating the dying: the seed gives one WIL save "within a turn"; a treatment takes that turn
  (a turn is "enough time for ... any other significant activity"), so a failed save means death.
- Reorienting Head Wound: the seed compares 3d6 with "your current attribute score"; we compare with
  the current value and never lower the rested score (spec §002.3 caps it at 18).
- Full rest "restores any lowered attributes": spec §002.13.4 [REC] keeps scar losses; we do too
  (scars lower ``base``, other losses only ``current``).
- Party save: the seed's "best result among them" leaves open whether the leader's own failure
  costs stress; we follow [REC] §002.4.6 (members' failures only, taken even when the party passes).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from dataclasses import replace as _replace
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from rules.base import (
    CatalogueEntry,
    Creation,
    GameSystem,
    Hireling,
    Item,
    Odds,
    Param,
    Procedure,
    RollResult,
    RulesError,
    Sheet,
    SlotSummary,
    Track,
    check_params,
)
from rules.data import chaos_conquest as data
from rules.dice import (
    DieRoll,
    RandomSource,
    UnderMode,
    die_dist,
    roll_dice,
    roll_die,
    roll_under,
    roll_under_chance,
    roll_under_kept_dist,
    roll_under_succeeds,
    sum_dist,
)
from rules.validation import (
    Check,
    boolean,
    bounded_int,
    bounded_list,
    bounded_text,
    die_on,
    fields,
    hireling_basics,
    item_basics,
)

ATTRIBUTES: tuple[str, ...] = data.ATTRIBUTES
ATTRIBUTE_MAX = data.ATTRIBUTE_MAX
STATUSES: tuple[str, ...] = ("fine", "deaths_door", "dying", "dead")
MIN_SLOTS = 10  # seed 002, Inventory & Stress: STR or 10, whichever is higher
MUNDANE_AV_MAX = 4  # seed 002, Damage & Armor: humanoids max 4 AV ...
MAGIC_AV_MAX = 6  # ... up to 6 with magic items
DAMAGE_MAX = 100  # more in one blow is a typo, not a dragon (8d6 fire breath is 48)
STAMINA_FLOOR = -999
POWER_MAX = len(data.POWER_COST)
WING_SLOTS = 5  # mishap 17: five fewer slots
STARTING_SUPPLIES = 2
WEAPON_DICE = (4, 6, 8, 10, 12)
BONUS_DICE = (("0", "none"), ("4", "+d4"), ("6", "+d6"), ("8", "+d8"), ("10", "+d10"), ("12", "+d12"))
UNARMED = "unarmed"
ARMOR_MASTER = "Armor Master"


# --- state ------------------------------------------------------------------------------------


def _default_state() -> dict[str, Any]:
    return {
        "attributes": {a: {"current": 10, "base": 10} for a in ATTRIBUTES},
        "level": 1,
        "xp": 0,
        "xp_ledger": [],
        "stamina": 1,
        "stamina_max": 1,
        "stress": 0,
        "talents": [],
        "background": "",
        "archetype": "",
        "faction": "",
        "age": 0,
        "status": "fine",
        "scars": [],
        "doomed": False,
        "limp": False,
        "coins": 0,
        "av_lost": 0,
        "av_crit_pending": 0,
        "aura": False,
        "aura_lost": False,
        "bark": False,
        "wings": False,
        "tumours": 0,
        "mishaps": [],
        "swapped": False,
    }


def _int(value: Any, label: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{label} must be a whole number.")
    if not low <= value <= high:
        raise RulesError(f"{label} must be between {low} and {high}, not {value}.")
    return value


def _bool(value: Any, label: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{label} must be yes or no.")
    return value


def _text(value: Any, label: str, limit: int = 100) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{label} must be text.")
    return value.strip()[:limit]


def _words(value: Any, label: str, limit: int = 100) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RulesError(f"{label} must be a list of names.")
    out: list[str] = []
    for v in value:
        if v.strip() not in out:
            out.append(v.strip()[:100])
    if len(out) > limit:
        raise RulesError(f"{label}: at most {limit}.")
    return out


def _attributes(value: Any, label: str = "Attributes") -> dict[str, dict[str, int]]:
    if not isinstance(value, Mapping) or set(value) != set(ATTRIBUTES):
        raise RulesError(f"{label} must be exactly STR, DEX and WIL.")
    out: dict[str, dict[str, int]] = {}
    for a in ATTRIBUTES:
        entry = value[a]
        if isinstance(entry, int) and not isinstance(entry, bool):
            entry = {"current": entry, "base": entry}
        if not isinstance(entry, Mapping) or "base" not in entry:
            raise RulesError(f"{a} needs a score.")
        base = _int(entry["base"], f"{a}", 0, ATTRIBUTE_MAX)
        current = _int(entry.get("current", base), f"{a} now", 0, base)
        out[a] = {"current": current, "base": base}
    return out


def _scars(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list | tuple) or len(value) > 50:
        raise RulesError("Scars must be a list.")
    out = []
    for s in value:
        if not isinstance(s, Mapping):
            raise RulesError("Each scar needs a roll, a name and a text.")
        out.append(
            {
                "roll": _int(s.get("roll", 0), "Scar roll", 0, 10),
                "name": _text(s.get("name", ""), "Scar name"),
                "text": _text(s.get("text", ""), "Scar text", 200),
            }
        )
    return out


def _ledger(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list | tuple) or len(value) > 2000:
        raise RulesError("The XP ledger must be a list (at most 2,000 entries).")
    out = []
    for e in value:
        if not isinstance(e, Mapping) or e.get("kind") not in ("treasure", "waste"):
            raise RulesError("Each XP entry is treasure brought back or treasure wasted.")
        out.append(
            {
                "kind": e["kind"],
                "amount": _int(e.get("amount", 0), "XP amount", 0, 100_000_000),
                "note": _text(e.get("note", ""), "XP note", 200),
            }
        )
    return out


def validate_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A normalised copy of a Chaos & Conquest sheet's state, or RulesError saying what is wrong."""
    if not isinstance(state, Mapping):
        raise RulesError("A Chaos & Conquest sheet must be a set of named fields.")
    base = _default_state()
    unknown = sorted(set(state) - set(base))
    if unknown:
        raise RulesError(f"A Chaos & Conquest sheet has no field {', '.join(map(str, unknown))}.")
    m = {**base, **copy.deepcopy(dict(state))}
    out: dict[str, Any] = {"attributes": _attributes(m["attributes"])}
    out["level"] = _int(m["level"], "Level", 1, 100)
    out["xp"] = _int(m["xp"], "XP", 0, 100_000_000)
    out["xp_ledger"] = _ledger(m["xp_ledger"])
    out["stamina_max"] = _int(m["stamina_max"], "Maximum stamina", 1, 999)
    out["stamina"] = _int(m["stamina"], "Stamina", STAMINA_FLOOR, out["stamina_max"])
    out["stress"] = _int(m["stress"], "Stress", 0, 100)
    out["talents"] = _words(m["talents"], "Talents", 30)
    out["background"] = _text(m["background"], "Background")
    out["archetype"] = _text(m["archetype"], "Archetype")
    faction = _text(m["faction"], "Faction")
    if faction and faction not in data.FACTIONS:
        raise RulesError(f"Faction must be one of {', '.join(data.FACTIONS)}, or left blank.")
    out["faction"] = faction
    out["age"] = _int(m["age"], "Age", 0, 1000)
    if m["status"] not in STATUSES:
        raise RulesError("Status must be fine, on Death's door, dying or dead.")
    out["status"] = m["status"]
    out["scars"] = _scars(m["scars"])
    for key, label in (("doomed", "Doomed"), ("limp", "Limping"), ("aura", "Magic aura")):
        out[key] = _bool(m[key], label)
    for key, label in (("aura_lost", "Aura lost"), ("bark", "Bark skin"), ("wings", "Wings"), ("swapped", "Swapped")):
        out[key] = _bool(m[key], label)
    out["coins"] = _int(m["coins"], "Coins", 0, 100_000_000)
    out["av_lost"] = _int(m["av_lost"], "Armour lost", 0, MAGIC_AV_MAX)
    out["av_crit_pending"] = _int(m["av_crit_pending"], "Criticals this round", 0, MAGIC_AV_MAX)
    out["tumours"] = _int(m["tumours"], "Tumours", 0, 30)
    out["mishaps"] = _words(m["mishaps"], "Mishaps", 50)
    return out


def _st(sheet: Sheet) -> dict[str, Any]:
    return validate_state(sheet.state)


def _with_state(sheet: Sheet, state: Mapping[str, Any], items: tuple[Item, ...] | None = None) -> Sheet:
    return Sheet(state=state, items=sheet.items if items is None else items, hirelings=sheet.hirelings, name=sheet.name)


def _cur(state: Mapping[str, Any], attribute: str) -> int:
    return int(state["attributes"][attribute]["current"])


def _lower(state: dict[str, Any], attribute: str, amount: int, *, permanent: bool) -> None:
    """Lower an attribute now; a permanent loss (scars, some mishaps) lowers the rested score too."""
    a = state["attributes"][attribute]
    if permanent:
        a["base"] = max(0, a["base"] - amount)
    a["current"] = max(0, min(a["base"], a["current"] - amount))


def _raise_base(state: dict[str, Any], attribute: str, amount: int) -> None:
    a = state["attributes"][attribute]
    a["base"] = min(ATTRIBUTE_MAX, a["base"] + amount)
    a["current"] = min(a["base"], a["current"] + amount)


def _scar_rolls(state: Mapping[str, Any]) -> set[int]:
    return {int(s["roll"]) for s in state["scars"]}


# --- money, levels, retainers -----------------------------------------------------------------


def format_money(pennies: int) -> str:
    """Pennies written the rules' way (equipment.md, Currency): 1 m = 20 s = 240 p -> "1m 3s 4p"."""
    sign = "-" if pennies < 0 else ""
    marks, rest = divmod(abs(int(pennies)), data.PENNIES_PER_MARK)
    shillings, pence = divmod(rest, data.PENNIES_PER_SHILLING)
    parts = [f"{n}{unit}" for n, unit in ((marks, "m"), (shillings, "s"), (pence, "p")) if n]
    return sign + (" ".join(parts) or "0p")


def coin_count(pennies: int) -> int:
    """How many coins a sum is, paid in the fewest coins (marks, then shillings, then pennies)."""
    marks, rest = divmod(max(0, pennies), data.PENNIES_PER_MARK)
    shillings, pence = divmod(rest, data.PENNIES_PER_SHILLING)
    return marks + shillings + pence


def coin_slots(coins: int) -> int:
    """equipment.md, Currency: up to 500 coins ride free, then every 1,000 (or part) take a slot."""
    over = max(0, coins - data.FREE_COINS)
    return -(-over // data.COINS_PER_SLOT)


def xp_for_level(level: int) -> int:
    """Seed 002, Advancement: the XP table to level 10, then 250,000 more a level."""
    if level < 1:
        raise RulesError("Levels start at 1.")
    if level <= len(data.LEVEL_XP):
        return data.LEVEL_XP[level - 1]
    return data.LEVEL_XP[-1] + (level - len(data.LEVEL_XP)) * data.XP_PER_LEVEL_PAST_10


def level_for_xp(xp: int) -> int:
    level = 1
    while xp >= xp_for_level(level + 1):
        level += 1
    return level


def retainer_row(wil: int) -> tuple[int, int]:
    """hired-help.md, Retainer Loyalty and Max Amount: (loyalty, most retainers) for a WIL score."""
    for _low, high, loyalty, most in data.RETAINER_TABLE:
        if wil <= high:  # rows go up in WIL; a scarred WIL below 3 uses the first row
            return loyalty, most
    return data.RETAINER_TABLE[-1][2], data.RETAINER_TABLE[-1][3]


@dataclass(frozen=True)
class Shares:
    pc: int  # pennies (and XP) for each PC
    retainer: int  # for each retainer: half a share
    left_over: int  # pennies that do not divide evenly


def treasure_shares(total: int, pcs: int, retainers: int = 0) -> Shares:
    """hired-help.md, Shares of Treasure: total / (PCs + half a share per retainer), rounded down."""
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise RulesError("Treasure is a whole number of pennies, zero or more.")
    if pcs < 1 or retainers < 0:
        raise RulesError("Share treasure among at least one PC (and any number of retainers).")
    share = Fraction(total) / (pcs + Fraction(retainers, 2))
    pc, retainer = math.floor(share), math.floor(share / 2)
    return Shares(pc, retainer, total - pc * pcs - retainer * retainers)


def heir_split(share: int) -> tuple[int, int]:
    """hired-help.md, Heirs: a PC with an heir keeps 75% of their share and hands 25% to the heir."""
    heir = share // 4
    return share - heir, heir


# --- items, slots, armour ---------------------------------------------------------------------


def _data(item: Item) -> Mapping[str, Any]:
    return item.data or {}


def _item_slots(item: Item) -> int:
    return max(0, int(item.slots)) * max(0, int(item.quantity))


def _key(item: Item | Hireling, index: int, prefix: str = "i") -> str:
    return str(item.id) if item.id is not None else f"{prefix}{index}"


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


def _number(low: int, high: int) -> Check:
    return lambda value, label: bounded_int(value, label, low, high)


def _die(value: Any, label: str) -> int:
    return die_on(value, label, WEAPON_DICE)


def _faction(value: Any, label: str) -> str:
    text = bounded_text(value, label, 20)
    if text and text not in data.FACTIONS:
        raise RulesError(f"{label} must be one of {', '.join(data.FACTIONS)}, not {text[:20]!r}.")
    return text


# What an item's data may hold, with the bounds of the rules (seed 002, Damage & Armor; equipment.md):
# weapon dice d4-d12, a flat bonus like the pistol's +1, AV at most 6 even with magic, STR needs up to 18.
_FLAGS = [
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


# A hireling's or retainer's sheet beyond what _helper_state checks (hired-help.md): morale and loyalty
# are 2d6 targets, a retainer's level and XP follow the PCs' table, its weapon a d4-d12.
HELPER_FIELDS: dict[str, tuple[str, Check]] = {
    "morale": ("morale", _number(2, 12)),
    "loyalty": ("loyalty", _number(0, 12)),
    "level": ("level", _number(1, 100)),
    "xp": ("XP", _number(0, 100_000_000)),
    "weapon": ("weapon die", _die),
    "slots": ("slots", _number(0, 30)),
    "squire": ("squire", boolean),
    "doomed": ("doomed", boolean),
    "limp": ("limping", boolean),
}
_HELPER_CHECKED = ("role", "attributes", "stamina", "stamina_max", "status", "scars")


def validate_hireling(hireling: Hireling) -> Hireling:
    """A hireling's normalised copy: a porter's, teamster's, explorer's or retainer's small sheet."""
    name, kind, wage, upfront = hireling_basics(hireling.name, hireling.kind, hireling.wage, hireling.upfront)
    checked = _replace(hireling, name=name, kind=kind, wage=wage, upfront=upfront)
    if not isinstance(hireling.state, Mapping):
        raise RulesError(f"{name}: the sheet must be a set of named fields.")
    body = _helper_state(checked)
    if body["role"] not in HIRE_KINDS:
        raise RulesError(f"{name}: the role must be one of {', '.join(HIRE_KINDS)}.")
    rest = fields({k: v for k, v in body.items() if k not in _HELPER_CHECKED}, name, HELPER_FIELDS)
    clean = {**{k: body[k] for k in _HELPER_CHECKED}, **rest}
    return _replace(checked, state={key: clean[key] for key in hireling.state})  # the same fields, normalised


def _weapons(sheet: Sheet) -> dict[str, Item]:
    return {_key(it, i): it for i, it in enumerate(sheet.items) if _weapon_die(it)}


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
    used = _slots_used(_with_state(sheet, state, after), state)
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
    return slots(_with_state(sheet, state, after))


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


# --- what a roll does: damage, Death's door, scars, stress -----------------------------------


class _Effects:
    """What one roll does to a sheet, built step by step: state, item changes, dice and words."""

    def __init__(self, sheet: Sheet):
        self.sheet0 = sheet
        self.before = _st(sheet)
        self.state = copy.deepcopy(self.before)
        self.dice: list[DieRoll] = []
        self.words: list[str] = []
        self.removed: list[int] = []
        self.changed: dict[int, Item] = {}
        self.details: dict[str, Any] = {}

    def current(self, item: Item) -> Item | None:
        if item.id is None:
            return item
        if item.id in self.removed:
            return None
        return self.changed.get(item.id, item)

    def items(self) -> tuple[Item, ...]:
        return tuple(c for c in (self.current(i) for i in self.sheet0.items) if c is not None)

    def sheet(self) -> Sheet:
        return _with_state(self.sheet0, self.state, self.items())

    def replace(self, old: Item, new: Item | None) -> None:
        if old.id is None:
            raise RulesError(f"{old.name} is not saved on the sheet yet; save it before using it in a roll.")
        if new is None:
            self.changed.pop(old.id, None)
            self.removed.append(old.id)
        else:
            self.changed[old.id] = new

    def use_one(self, item: Item) -> Item:
        """Spend one unit of a stack (a Supply, a scroll); the row goes when the last one does."""
        now = self.current(item)
        if now is None:
            raise RulesError(f"{item.name} is already used up.")
        self.replace(item, _replace(now, quantity=now.quantity - 1) if now.quantity > 1 else None)
        return now

    def set_data(self, item: Item, **changes: Any) -> None:
        now = self.current(item)
        if now is not None:
            self.replace(item, _replace(now, data={**dict(now.data or {}), **changes}))

    def say(self, text: str) -> None:
        self.words.append(text)

    def result(
        self,
        proc: Procedure,
        outcome: str,
        odds: Odds | None,
        inputs: Mapping[str, Any],
        total: int | None = None,
        other_states: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> RollResult:
        changed = tuple(i for k, i in self.changed.items() if k not in self.removed)
        return RollResult(
            proc.key,
            proc.label,
            outcome,
            " ".join(self.words),
            tuple(self.dice),
            total,
            odds,
            dict(inputs),
            self.state if self.state != self.before else None,
            dict(self.details),
            items_removed=tuple(self.removed),
            items_changed=changed,
            other_states=dict(other_states or {}),
        )


def deaths_door_death_chance(doomed: bool) -> Fraction:
    """Seed 002, Stamina & Death: the d6 kills on 1-3, or on 1-5 when Doomed."""
    return Fraction(5 if doomed else 3, 6)


def _door(body: dict[str, Any], rng: RandomSource, dice: list[DieRoll], words: list[str]) -> None:
    """Seed 002, Stamina & Death: roll a d6 on Death's door; survive it unconscious and dying."""
    die = roll_die(rng, 6, "Death's door")
    dice.append(die)
    deadly = 5 if body.get("doomed") else 3
    if body.get("doomed"):
        body["doomed"] = False  # the doom is for "the next time" only
    if die.face <= deadly:
        body["status"] = "dead"
        words.append(f"Death's door: {die.face} (dies on 1-{deadly}). Dead.")
    else:
        body["status"] = "dying"
        words.append(
            f"Death's door: {die.face}. Unconscious and dying: someone must treat the wounds (a WIL save or "
            "magic) within a turn, and any further damage kills."
        )


def _hurt(
    body: dict[str, Any], amount: int, rng: RandomSource, dice: list[DieRoll], words: list[str], door: bool = True
) -> None:
    """Seed 002, Stamina & Death: damage comes off stamina; at 0 or lower PCs and retainers go to
    Death's door and other NPCs die; any damage to the dying kills."""
    if amount <= 0:
        return
    if body["status"] == "dead":
        words.append("Already dead.")
        return
    if body["status"] in ("dying", "deaths_door"):
        body["status"] = "dead"
        words.append(f"{amount} damage while bleeding out: dead.")
        return
    body["stamina"] = max(STAMINA_FLOOR, body["stamina"] - amount)
    words.append(f"{amount} damage: stamina {body['stamina']}/{body['stamina_max']}.")
    if body["stamina"] <= 0:
        if door:
            _door(body, rng, dice, words)
        else:
            body["status"] = "dead"
            words.append("A hireling at 0 stamina is dead.")


def _scar(body: dict[str, Any], rng: RandomSource, dice: list[DieRoll], words: list[str]) -> dict[str, Any]:
    """Seed 002, scars table (d10), with its effect on the sheet (spec §002.13.4: scars are lasting)."""
    roll = roll_die(rng, 10, "scar")
    dice.append(roll)
    row = data.SCARS[roll.face]
    text = row["text"]
    effect = row["effect"]
    if effect == "mark":
        where = roll_die(rng, 6, "where")
        dice.append(where)
        text = text.format(where=data.SCAR_PLACES[where.face - 1])
    elif effect == "lose":
        _lower(body, row["attribute"], row["amount"], permanent=True)
        if roll.face == 3:
            body["limp"] = True
    elif effect == "reroll":
        which = roll_die(rng, 6, "which attribute")
        attribute = data.HEAD_WOUND_ATTRIBUTE[which.face - 1]
        three = roll_dice(rng, 3, 6, attribute)
        dice += [which, *three]
        total = sum(d.face for d in three)
        a = body["attributes"][attribute]
        kept = total > a["current"]
        if kept:
            a["current"] = min(ATTRIBUTE_MAX, total)
            a["base"] = max(a["base"], a["current"])
        text = (
            text.format(attribute=attribute)
            + f" Rolled {total}: {attribute} {'now' if kept else 'stays'} {a['current']}."
        )
    elif effect == "chronic":
        body["stamina_max"] = max(1, body["stamina_max"] - 2)
        body["stamina"] = min(body["stamina"], body["stamina_max"])
        _lower(body, "STR", 2, permanent=True)
    elif effect == "doomed":
        body["doomed"] = True
    scar = {"roll": roll.face, "name": row["name"], "text": text}
    body["scars"].append(scar)
    words.append(f"Scar ({roll.face}): {row['name']}. {text}")
    return scar


def _stress_death(fx: _Effects) -> None:
    """Seed 002, Inventory & Stress: if every inventory slot holds stress, you die (spec §002.13.10)."""
    st = fx.state
    if st["stress"] > _slots_max(st):
        st["stress"] = _slots_max(st)  # no more stress than slots: the slots lost were full of it
    if st["status"] != "dead" and st["stress"] >= _slots_max(st):
        st["status"] = "dead"
        fx.say("Stress fills every slot: dead.")


def _item_keys(sheet: Sheet) -> dict[str, Item]:
    return {_key(it, i): it for i, it in enumerate(sheet.items)}


def _add_stress(fx: _Effects, amount: int, drop: Sequence[str], rng: RandomSource, why: str) -> None:
    """Seed 002, Inventory & Stress: stress fills empty slots. With none left the player drops items
    (``drop``, in order) or takes d6 damage for each stress that does not fit (spec §002.7 [REC])."""
    st = fx.state
    if amount <= 0 or st["status"] == "dead":
        return
    keyed = _item_keys(fx.sheet0)
    for key in drop:
        item = keyed.get(key)
        if item is None:
            raise RulesError("An item chosen to drop is not on this sheet.")
        while _free_slots(fx.sheet(), st) < amount:
            now = fx.current(item)
            if now is None or now.slots <= 0:
                break
            fx.use_one(item)
            fx.say(f"Dropped {now.name} to make room.")
    fit = min(amount, _free_slots(fx.sheet(), st))
    st["stress"] += fit
    if fit:
        fx.say(f"{why}: {fit} stress.")
    over = amount - fit
    if over:
        d6s = roll_dice(rng, over, 6, "stress with no slot")
        fx.dice += d6s
        hurt = sum(d.face for d in d6s)
        fx.say(f"{why}: no slot for {over} stress, so {over}d6 = {hurt} damage.")
        _hurt(st, hurt, rng, fx.dice, fx.words)
    _stress_death(fx)


class _Tally:
    """A random source for working out odds: every die shows its lowest face, and the dice are counted.

    Stress that finds no slot costs d6 damage each; run with this, a roll's effects show how many such
    dice it needs, and whether even the least damage already kills.
    """

    def __init__(self) -> None:
        self.calls = 0

    def randint(self, a: int, b: int) -> int:
        self.calls += 1
        return a


def _at_least(count: int, sides: int, total: int) -> Fraction:
    """P(count dice of ``sides`` sum to ``total`` or more)."""
    return sum((p for v, p in sum_dist((sides,) * count).items() if v >= total), Fraction(0))


def _stress_fates(sheet: Sheet, amount: int, drop: Sequence[str]) -> dict[str, Fraction]:
    """What taking ``amount`` stress does, exactly: "fine", "dying" or "dead" (seed 002, Inventory &
    Stress: all slots full of stress is death; stress with no slot is d6 damage each, and damage to 0
    or less is Death's door)."""
    state = _st(sheet)
    if amount <= 0 or state["status"] == "dead":  # as _add_stress: nothing is added
        return {"fine": Fraction(1)}
    fx, tally = _Effects(sheet), _Tally()
    _add_stress(fx, amount, drop, tally, "")
    after = fx.state
    if after["stress"] >= _slots_max(after):
        return {"dead": Fraction(1)}
    if not tally.calls:
        return {"fine": Fraction(1)}
    door = deaths_door_death_chance(bool(state["doomed"]))
    # When even the least damage (1 a die) reaches Death's door, every roll does; otherwise the dice decide.
    hit = _at_least(tally.calls, 6, state["stamina"]) if after["stamina"] > 0 else Fraction(1)
    return {"fine": 1 - hit, "dying": hit * (1 - door), "dead": hit * door}


def _push_kills(save: _Save | None, state: Mapping[str, Any]) -> bool:
    """Seed 002 (Pushing; Inventory & Stress): the push's stress fills the last slot, so every slot holds stress."""
    return save is not None and save.push and state["stress"] + 1 >= _slots_max(state)


DEATH = Odds((("dies", Fraction(1)),), success_keys=())


# --- saves ------------------------------------------------------------------------------------

ATTRIBUTE_CHOICES = tuple((a, a) for a in ATTRIBUTES)


def _mode(advantage: bool, disadvantage: bool) -> UnderMode:
    """Seed 002, Advantage & Disadvantage: any of both, in any numbers, is a plain d20."""
    if advantage and not disadvantage:
        return "advantage"
    if disadvantage and not advantage:
        return "disadvantage"
    return "plain"


def save_chance(target: int, mode: UnderMode = "plain") -> Fraction:
    """Seed 002, Saves: d20 <= the attribute; 1 always succeeds, 20 always fails."""
    return roll_under_chance(target, mode)


def opposed_odds(pc: int, pc_mode: UnderMode, skill: int, npc_mode: UnderMode = "plain") -> dict[str, Fraction]:
    """Seed 002, Opposed Saves: the highest successful roll wins; both fail = worse for both; equal
    successes = the GM decides (spec §002.4.5, §002.13.3). Advantage keeps the best die (§002.4.3)."""
    out = dict.fromkeys(("win", "gm_decides", "lose", "both_fail"), Fraction(0))
    npc = roll_under_kept_dist(skill, npc_mode)
    for fa, pa in roll_under_kept_dist(pc, pc_mode).items():
        for fb, pb in npc.items():
            out[_opposed(fa, pc, fb, skill)] += pa * pb
    return out


def _opposed(face: int, target: int, npc_face: int, skill: int) -> str:
    mine, theirs = roll_under_succeeds(face, target), roll_under_succeeds(npc_face, skill)
    if mine and theirs:
        return "win" if face > npc_face else "lose" if face < npc_face else "gm_decides"
    if mine or theirs:
        return "win" if mine else "lose"
    return "both_fail"


@dataclass(frozen=True)
class _Save:
    attribute: str
    target: int
    mode: UnderMode
    push: bool
    may_auto: bool  # talent (or a push in its place) plus equipment: the GM may rule it a success
    auto: bool
    notes: tuple[str, ...]


def _save_params(sheet: Sheet, default: str = "STR", *, push: bool = True, auto: bool = True) -> tuple[Param, ...]:
    talents = tuple((t, t) for t in _st(sheet)["talents"])
    out = [
        Param("attribute", "Attribute", "choice", default, choices=ATTRIBUTE_CHOICES),
        Param("talent", "A talent that applies", "choice", "", choices=(("", "none"), *talents), help="Advantage."),
        Param("equipment", "Using equipment that helps", "bool", False, help="Advantage (a crowbar on a door)."),
        Param("advantage", "Other advantage", "bool", False),
        Param("disadvantage", "Disadvantage", "bool", False, help="Any advantage and disadvantage cancel out."),
    ]
    if push:
        out.append(Param("push", "Push: take a stress for advantage", "bool", False, help="Needs an empty slot."))
    if auto:
        out.append(
            Param(
                "auto_success",
                "GM rules it an automatic success",
                "bool",
                False,
                gm_only=True,
                help="Allowed with a talent (or a push) and the right equipment.",
            )
        )
    return tuple(out)


def _save_setup(sheet: Sheet, state: Mapping[str, Any], p: Mapping[str, Any]) -> _Save:
    """Seed 002 (Saves; Talents; Pushing a Character): work out the target and advantage of a save."""
    _able(state)
    attribute = p["attribute"]
    notes: list[str] = []
    talent = p.get("talent") or ""
    if talent and talent not in state["talents"]:
        raise RulesError(f"You do not have the talent {talent}.")
    push = bool(p.get("push"))
    if push and _free_slots(sheet, state) < 1:
        raise RulesError("Pushing needs an empty inventory slot for the stress, and every slot is full.")
    advantage = bool(talent or p.get("equipment") or p.get("advantage") or push)
    for flag, word in ((talent, f"talent {talent}"), (p.get("equipment"), "equipment"), (push, "pushing")):
        if flag:
            notes.append(f"{word}: advantage")
    disadvantage = bool(p.get("disadvantage"))
    if attribute == "DEX":
        armour = _dex_disadvantage(sheet, state)
        if armour:
            disadvantage = True
            notes.append(armour)
    mode = _mode(advantage, disadvantage)
    if advantage and disadvantage:
        notes.append("advantage and disadvantage cancel: one d20")
    may_auto = bool(p.get("equipment")) and bool(talent or push)
    auto = bool(p.get("auto_success"))
    if auto and not may_auto:
        raise RulesError("An automatic success needs a talent (or a push in its place) and the right equipment.")
    return _Save(attribute, _cur(state, attribute), mode, push, may_auto, auto, tuple(notes))


def _save_odds(save: _Save) -> Odds:
    if save.auto:
        return Odds((("pass", Fraction(1)), ("fail", Fraction(0))))
    p = save_chance(save.target, save.mode)
    return Odds((("pass", p), ("fail", 1 - p)))


def _roll_save(fx: _Effects, save: _Save, rng: RandomSource) -> tuple[bool, int | None]:
    """Roll it (pushing first), adding the dice to ``fx``; returns (success, kept face)."""
    if save.push:
        _add_stress(fx, 1, (), rng, "Pushed")
        if fx.state["status"] == "dead":
            return False, None  # the push's stress filled the last slot: nobody is left to roll
    if save.auto:
        fx.say(f"{save.attribute} save: the GM rules an automatic success.")
        return True, None
    dice, ok, face = roll_under(rng, save.target, save.mode, label=save.attribute)
    fx.dice += dice
    how = "" if save.mode == "plain" else f" with {save.mode}"
    fx.say(f"{save.attribute} save{how}: kept {face} against {save.target}, {'success' if ok else 'failure'}.")
    return ok, face


def _able(state: Mapping[str, Any]) -> None:
    if state["status"] == "dead":
        raise RulesError("The dead make no rolls.")
    if state["status"] == "deaths_door":
        raise RulesError("You are on Death's door: roll the d6 first.")
    if state["status"] == "dying":
        raise RulesError("You are unconscious and dying until someone treats your wounds.")


# --- procedures: saves ------------------------------------------------------------------------


def _clean(proc: Procedure, sheet: Sheet, params: Mapping[str, Any]) -> dict[str, Any]:
    """check_params for everything but resolved characters, which pass through as Sheets (or None)."""
    people = {k: v for k, v in params.items() if isinstance(v, Sheet)}
    rest = {k: v for k, v in params.items() if k not in people}
    clean = check_params(proc, sheet, rest)
    for p in proc.params(sheet):
        if p.kind == "character":
            clean[p.name] = people.get(p.name)
    return clean


def _inputs(p: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.name or "a character") if isinstance(v, Sheet) else v for k, v in p.items()}


def _drop_param(sheet: Sheet) -> Param:
    options = tuple((k, f"{it.name} ({_item_slots(it)} slots)") for k, it in _item_keys(sheet).items() if it.slots)
    return Param(
        "drop",
        "If stress finds no empty slot, drop",
        "multichoice",
        (),
        choices=options,
        help="In this order, until the stress fits. Otherwise each stress that does not fit deals d6 damage.",
    )


@dataclass(frozen=True)
class SaveProcedure:
    """Seed 002, Saves: d20 at or under the attribute; 1 always succeeds, 20 always fails."""

    key: str = "save"
    label: str = "Save"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return _save_params(sheet)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        save = _save_setup(sheet, state, p)
        return DEATH if _push_kills(save, state) else _save_odds(save)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        fx = _Effects(sheet)
        save = _save_setup(sheet, fx.state, p)
        odds = self.odds(sheet, p)
        ok, face = _roll_save(fx, save, rng)
        if fx.state["status"] == "dead":
            return fx.result(self, "dies", odds, _inputs(p))
        if save.may_auto and not save.auto:
            fx.say("Talent and equipment together: the GM may rule this an automatic success.")
        fx.details.update(
            {"target": save.target, "mode": save.mode, "notes": list(save.notes), "gm_may_grant_success": save.may_auto}
        )
        return fx.result(self, "pass" if ok else "fail", odds, _inputs(p), total=face)


_OPPOSED_WORDS = {
    "win": "you win",
    "lose": "they win",
    "gm_decides": "equal successes: the GM decides",
    "both_fail": "both fail: things get worse and more tangled for both",
}


@dataclass(frozen=True)
class OpposedSaveProcedure:
    """Seed 002, Opposed Saves: both sides save (NPCs on Skill); the highest successful roll wins."""

    key: str = "opposed_save"
    label: str = "Opposed save"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            *_save_params(sheet, auto=False),
            Param("skill", "Their Skill", "int", 10, 1, 18, help="The NPC's one save score (18 at most)."),
            Param(
                "npc_mode",
                "Their roll",
                "choice",
                "plain",
                choices=(("plain", "one d20"), ("advantage", "advantage"), ("disadvantage", "disadvantage")),
                help="NPCs cannot push.",
            ),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[_Save, Odds]:
        state = _st(sheet)
        save = _save_setup(sheet, state, p)
        if _push_kills(save, state):
            return save, DEATH
        o = opposed_odds(save.target, save.mode, p["skill"], p["npc_mode"])
        return save, Odds(tuple(o.items()), success_keys=("win",))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, _clean(self, sheet, params))[1]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        fx = _Effects(sheet)
        save, odds = self._setup(sheet, p)
        _, face = _roll_save(fx, save, rng)
        if fx.state["status"] == "dead":
            return fx.result(self, "dies", odds, _inputs(p))
        npc_dice, npc_ok, npc_face = roll_under(rng, p["skill"], p["npc_mode"], label="NPC Skill")
        fx.dice += npc_dice
        assert face is not None
        outcome = _opposed(face, save.target, npc_face, p["skill"])
        fx.say(f"They kept {npc_face} against Skill {p['skill']}, {'success' if npc_ok else 'failure'}: ")
        fx.words[-1] += _OPPOSED_WORDS[outcome] + "."
        fx.details.update({"target": save.target, "mode": save.mode, "npc_face": npc_face, "notes": list(save.notes)})
        return fx.result(self, outcome, odds, _inputs(p), total=face)


PARTY_MEMBERS = 6


def _failures_dist(chances: Sequence[Fraction]) -> dict[int, Fraction]:
    """How many of the members fail, each failing independently with 1 - chance."""
    dist = {0: Fraction(1)}
    for c in chances:
        nxt: dict[int, Fraction] = {}
        for k, p in dist.items():
            nxt[k] = nxt.get(k, Fraction(0)) + p * c
            nxt[k + 1] = nxt.get(k + 1, Fraction(0)) + p * (1 - c)
        dist = nxt
    return dist


@dataclass(frozen=True)
class PartySaveProcedure:
    """Seed 002, Party Saves: everyone saves, the best result counts for the group (any success
    passes, spec §002.4.6 [REC]); the leader, whose sheet this is, takes a stress per member who failed."""

    key: str = "party_save"
    label: str = "Party save (leader)"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        members = tuple(Param(f"member{i}", f"Party member {i}", "character") for i in range(1, PARTY_MEMBERS + 1))
        return (
            Param("attribute", "Attribute", "choice", "DEX", choices=ATTRIBUTE_CHOICES),
            Param("advantage", "Advantage for everyone", "bool", False),
            Param("disadvantage", "Disadvantage for everyone", "bool", False, help="Darkness, for one."),
            *members,
            _drop_param(sheet),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[list[tuple[str, int, UnderMode]], Odds]:
        a = p["attribute"]
        people: list[tuple[str, int, UnderMode]] = []
        for who in (sheet, *(p[f"member{i}"] for i in range(1, PARTY_MEMBERS + 1))):
            if who is None:
                continue
            st = _st(who)
            if who is sheet:
                _able(st)
            if st["status"] != "fine":
                continue  # the dying and the dead take no part
            dis = bool(p["disadvantage"]) or bool(a == "DEX" and _dex_disadvantage(who, st))
            people.append((who.name or "someone", _cur(st, a), _mode(bool(p["advantage"]), dis)))
        leader_pass = save_chance(people[0][1], people[0][2])
        chances = [save_chance(t, m) for _, t, m in people[1:]]
        all_fail = (1 - leader_pass) * math.prod((1 - c for c in chances), start=Fraction(1))
        fails = _failures_dist(chances)
        outcomes: dict[str, Fraction] = {}
        for k in sorted(fails):
            # P(party fails and k members fail) is nonzero only when everyone fails (k = all members).
            failed = all_fail if k == len(chances) else Fraction(0)
            # The leader's stress can fill the last slot, or find none and cost d6 damage each.
            fates = _stress_fates(sheet, k, p["drop"])
            for name, q in ((f"pass_stress_{k}", fails[k] - failed), ("fail", failed)):
                base = "pass" if name != "fail" else "fail"
                outcomes[name] = outcomes.get(name, Fraction(0)) + q * fates.get("fine", Fraction(0))
                for fate in ("dying", "dead"):
                    key = f"{base}_leader_{'dies' if fate == 'dead' else 'dying'}"
                    outcomes[key] = outcomes.get(key, Fraction(0)) + q * fates.get(fate, Fraction(0))
        rows = tuple((k, v) for k, v in outcomes.items() if v or k == "fail")
        keys = tuple(k for k, _ in rows if k.startswith("pass"))
        return people, Odds(rows, success_keys=keys)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, _clean(self, sheet, params))[1]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        people, odds = self._setup(sheet, p)
        fx = _Effects(sheet)
        results = []
        for i, (name, target, mode) in enumerate(people):
            label = "leader" if i == 0 else name
            dice, ok, face = roll_under(rng, target, mode, label=f"{p['attribute']}: {label}")
            fx.dice += dice
            results.append({"who": label, "target": target, "face": face, "success": ok})
        passed = any(r["success"] for r in results)
        failed_members = sum(1 for r in results[1:] if not r["success"])
        fx.say(f"Party {p['attribute']} save: {'the party succeeds' if passed else 'everyone fails'}.")
        _add_stress(fx, failed_members, p["drop"], rng, f"{failed_members} member(s) failed; the leader covers")
        fx.details.update({"results": results, "failed_members": failed_members})
        outcome = f"pass_stress_{failed_members}" if passed else "fail"
        if fx.state["status"] in ("dead", "dying"):
            outcome = f"{'pass' if passed else 'fail'}_leader_{'dies' if fx.state['status'] == 'dead' else 'dying'}"
        return fx.result(self, outcome, odds, _inputs(p))


# --- procedures: combat -----------------------------------------------------------------------


@dataclass(frozen=True)
class Weapon:
    key: str
    name: str
    die: int
    flat: int = 0  # pistol d6+1, musket d8+1
    worn_out: bool = False
    ranged: bool = False
    silver: bool = False
    item: Item | None = None


def _weapon(sheet: Sheet, key: str) -> Weapon:
    if key == UNARMED:
        return Weapon(UNARMED, "bare hands", 4)
    item = _weapons(sheet).get(key)
    if item is None:
        raise RulesError("That weapon is not on this sheet.")
    d = _data(item)
    flat = d.get("bonus", 0)
    flat = flat if isinstance(flat, int) and not isinstance(flat, bool) else 0
    return Weapon(
        key,
        item.name,
        _weapon_die(item),
        flat,
        bool(d.get("worn_out")),
        bool(d.get("ranged")),
        bool(d.get("silver")),
        item,
    )


def weapon_outcomes(weapon: Weapon, impaired: bool = False) -> dict[tuple[int, bool], Fraction]:
    """One weapon's (damage before bonus dice and armour, critical?) with exact chances.

    Seed 002 (Attacks; Critical Hits; Worn Weapons): the weapon's own die at its maximum is a critical;
    impaired rolls twice and keeps the lower, so both must show the maximum (spec §002.5 [REC]);
    a worn weapon does 1 and never crits; a flat bonus (pistol d6+1) needs the die itself at 6.
    """
    if weapon.worn_out:
        return {(1, False): Fraction(1)}
    out: dict[tuple[int, bool], Fraction] = {}
    if impaired:
        for a, b in product(range(1, weapon.die + 1), repeat=2):
            kept = min(a, b)
            key = (kept + weapon.flat, kept == weapon.die)
            out[key] = out.get(key, Fraction(0)) + Fraction(1, weapon.die**2)
        return out
    for face, p in die_dist(weapon.die).items():
        out[(face + weapon.flat, face == weapon.die)] = p
    return out


def _dealt(raw: int, crit: bool, bonus: int, av: int) -> int:
    """Seed 002: damage minus AV, never below 0; a critical bypasses all armour."""
    return raw + bonus if crit else max(0, raw + bonus - av)


def attack_distribution(
    weapons: Sequence[Weapon], av: int, bonus_dice: Sequence[int] = (), impaired: bool = False
) -> dict[tuple[int, bool], Fraction]:
    """Exact (damage dealt, critical?) of an attack; with two weapons (dual wielding) the better result
    is kept, a critical winning a tie since it also cracks the armour."""
    per = [weapon_outcomes(w, impaired) for w in weapons]
    bonus = sum_dist(tuple(bonus_dice))
    out: dict[tuple[int, bool], Fraction] = {}
    for combo in product(*(d.items() for d in per)):
        p_weapons = math.prod((p for _, p in combo), start=Fraction(1))
        for b, pb in bonus.items():
            best = max(((_dealt(raw, crit, b, av), crit) for (raw, crit), _ in combo))
            out[best] = out.get(best, Fraction(0)) + p_weapons * pb
    return out


def _damage_odds(dist: Mapping[tuple[int, bool], Fraction]) -> Odds:
    rows = sorted(dist.items())
    outcomes = tuple((f"{d} damage" + (" (critical)" if c else ""), p) for (d, c), p in rows)
    return Odds(outcomes, success_keys=tuple(k for k, _ in outcomes if not k.startswith("0 damage")))


@dataclass(frozen=True)
class _Attack:
    weapons: tuple[Weapon, ...]
    av: int
    bonus: tuple[tuple[int, str], ...]  # (sides, why)
    impaired: bool
    notes: tuple[str, ...]


@dataclass(frozen=True)
class AttackProcedure:
    """Seed 002, Attacks: always hit; the weapon die minus the target's AV; criticals, impaired and
    enhanced attacks, dual wielding, mounted combat and blast damage."""

    key: str = "attack"
    label: str = "Attack"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        weapons = tuple((k, f"{it.name} (d{_weapon_die(it)})") for k, it in _weapons(sheet).items())
        choices = (*weapons, (UNARMED, "Unarmed or improvised (d4)"))
        return (
            Param("weapon", "Weapon", "choice", choices[0][0], choices=choices),
            Param("second", "Second weapon (dual wielding)", "choice", "", choices=(("", "none"), *choices)),
            Param("target_av", "Target's AV", "int", 0, 0, MAGIC_AV_MAX, help="Ignored when a character is picked."),
            Param("opponent", "Target character", "character", help="Uses their AV and applies the damage."),
            Param("impaired", "Impaired (cover, grappled...)", "bool", False, help="Roll twice, keep the lower."),
            Param("bonus_die", "Enhanced: bonus die", "choice", "0", choices=BONUS_DICE, help="The GM picks it."),
            Param("helpless", "Target completely helpless", "bool", False, help="Always +d12."),
            Param("mounted", "Mounted, in melee against a smaller foe", "bool", False),
            Param("in_melee", "Engaged in melee", "bool", False, help="Ranged weapons cannot be used in melee."),
            Param("targets", "Blast: targets caught", "int", 1, 1, 20, help="Damage is rolled for each target."),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> _Attack:
        state = _st(sheet)
        _able(state)
        weapons = [_weapon(sheet, p["weapon"])]
        if p["second"]:
            if p["second"] == p["weapon"]:
                raise RulesError("Dual wielding takes two different weapons.")
            weapons.append(_weapon(sheet, p["second"]))
        notes: list[str] = []
        if p["in_melee"] and any(w.ranged for w in weapons):
            raise RulesError("Ranged weapons cannot be used in melee.")
        impaired = bool(p["impaired"])
        if not impaired and 8 in _scar_rolls(state) and any(w.ranged for w in weapons):
            impaired = True
            notes.append("lost eye: ranged attacks are impaired")
        bonus: list[tuple[int, str]] = []
        if p["helpless"]:
            bonus.append((12, "helpless"))
        elif p["bonus_die"] != "0":
            bonus.append((int(p["bonus_die"]), "enhanced"))
        first = weapons[0]
        # Mounted and dual wielding: the bonus die follows the first weapon (the rules do not say).
        if p["mounted"]:
            if not any(i.kind == "animal" and _data(i).get("mount") for i in sheet.items):
                raise RulesError("Mounted combat needs a horse or similar mount on your sheet.")
            if first.ranged:
                raise RulesError("The mounted bonus is for melee.")
            if first.worn_out:
                notes.append("a worn weapon gets no mounted bonus")  # spec §002.13.11 [REC]
            else:
                # A magic weapon past d10 uses "a basic similar weapon": the biggest basic die is d10.
                bonus.append((min(first.die, 10), "mounted"))
        if p["targets"] > 1 and isinstance(p.get("opponent"), Sheet):
            raise RulesError("Pick a target character for a single target only; roll blasts against NPCs.")
        av = armour_value(p["opponent"]) if isinstance(p.get("opponent"), Sheet) else p["target_av"]
        return _Attack(tuple(weapons), av, tuple(bonus), impaired, tuple(notes))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        a = self._setup(sheet, _clean(self, sheet, params))
        return _damage_odds(attack_distribution(a.weapons, a.av, [s for s, _ in a.bonus], a.impaired))

    def _strike(self, a: _Attack, rng: RandomSource, fx: _Effects) -> tuple[int, bool, int]:
        options: list[tuple[int, bool, list[DieRoll]]] = []
        for w in a.weapons:
            if w.worn_out:
                options.append((1, False, []))
                continue
            dice = [roll_die(rng, w.die, w.name)]
            if a.impaired:
                dice.append(roll_die(rng, w.die, f"{w.name} (impaired)"))
                low = min(range(2), key=lambda i: (dice[i].face, i))
                dice = [_replace(d, kept=(i == low)) for i, d in enumerate(dice)]
            kept = next(d.face for d in dice if d.kept)
            options.append((kept + w.flat, kept == w.die, dice))
        bonus_dice = [roll_die(rng, s, f"bonus ({why})") for s, why in a.bonus]
        b = sum(d.face for d in bonus_dice)
        ranked = [(_dealt(raw, crit, b, a.av), crit) for raw, crit, _ in options]
        pick = max(range(len(options)), key=lambda i: (ranked[i], -i))
        for i, (_, _, dice) in enumerate(options):
            fx.dice += dice if i == pick else [_replace(d, kept=False) for d in dice]
        fx.dice += bonus_dice
        return ranked[pick][0], ranked[pick][1], pick

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        a = self._setup(sheet, p)
        odds = _damage_odds(attack_distribution(a.weapons, a.av, [s for s, _ in a.bonus], a.impaired))
        fx = _Effects(sheet)
        hits: list[dict[str, Any]] = []
        for t in range(p["targets"]):
            damage, crit, pick = self._strike(a, rng, fx)
            w = a.weapons[pick]
            after = max(0, a.av - 1) if crit else a.av
            hit = {"target": t + 1, "damage": damage, "critical": crit, "weapon": w.name}
            hits.append({**hit, "av_after_round": after})
            where = f"Target {t + 1}: " if p["targets"] > 1 else ""
            if crit:
                fx.say(
                    f"{where}{w.name}: critical! {damage} damage through all armour; "
                    "their AV drops by 1 at the end of the round."
                )
            else:
                fx.say(f"{where}{w.name}: {damage} damage after AV {a.av}.")
        for w in a.weapons:
            if w.silver and w.item is not None and not w.worn_out:  # equipment.md: silver wears after every attack
                wear = roll_die(rng, 6, f"wear: {w.name}")
                fx.dice.append(wear)
                if wear.face == 1:
                    fx.set_data(w.item, worn_out=True)
                    fx.say(f"The silver of {w.name} wears (rolled 1): damage 1 until repaired.")
        other_states: dict[str, Mapping[str, Any]] = {}
        target = p.get("opponent")
        if isinstance(target, Sheet):
            other = _st(target)
            words: list[str] = []
            if hits[0]["critical"]:
                other["av_crit_pending"] = min(MAGIC_AV_MAX, other["av_crit_pending"] + 1)
            _hurt(other, hits[0]["damage"], rng, fx.dice, words)
            fx.say(f"{target.name or 'The target'}: " + " ".join(words))
            other_states["opponent"] = other
        fx.details.update({"hits": hits, "av": a.av, "notes": list(a.notes), "impaired": a.impaired})
        fx.details["target_av_after_round"] = hits[0]["av_after_round"]
        total = sum(h["damage"] for h in hits)
        first = hits[0]
        outcome = f"{first['damage']} damage" + (" (critical)" if first["critical"] else "")
        if p["targets"] > 1:
            outcome = f"{total} damage in all"
        return fx.result(self, outcome, odds, _inputs(p), total=total, other_states=other_states)


def _sunder_shield(sheet: Sheet) -> Item | None:
    return next((i for i in sheet.items if i.kind == "shield" and i.worn), None)


def damage_odds(state: Mapping[str, Any], damage: int) -> Odds:
    """Seed 002, Stamina & Death: what ``damage`` (after armour) does to a PC or retainer, exactly."""
    if damage <= 0:
        return Odds((("unhurt", Fraction(1)),), success_keys=("unhurt",))
    if state["status"] in ("dying", "deaths_door"):
        return Odds((("dies", Fraction(1)),), success_keys=())
    if state["stamina"] - damage > 0:
        return Odds((("hurt", Fraction(1)),), success_keys=("hurt",))
    dies = deaths_door_death_chance(bool(state["doomed"]))
    return Odds((("dying", 1 - dies), ("dies", dies)), success_keys=("dying",))


@dataclass(frozen=True)
class TakeDamageProcedure:
    """Seed 002 (Damage & Armor; Shields; Stamina & Death): damage less your AV comes off stamina;
    at 0 or lower you roll on Death's door; a held shield can be sundered to stop one attack."""

    key: str = "take_damage"
    label: str = "Take damage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("amount", "Damage rolled", "int", 1, 0, DAMAGE_MAX),
            Param("armour", "Your AV reduces it", "bool", True, help="Off for magic, falls and direct damage."),
            Param("critical", "A critical hit", "bool", False, help="Ignores armour; your AV drops 1 after the round."),
            Param("sunder", "Sunder your shield to block it", "bool", False, help="The shield breaks for good."),
        )

    def _amount(self, sheet: Sheet, p: Mapping[str, Any]) -> int:
        amount = p["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= DAMAGE_MAX:
            raise RulesError(f"Damage must be a whole number from 0 to {DAMAGE_MAX}.")
        if p["sunder"]:
            if _sunder_shield(sheet) is None:
                raise RulesError("Sundering needs a shield in hand.")
            return 0
        if p["critical"] or not p["armour"]:
            return amount
        return max(0, amount - armour_value(sheet))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        if state["status"] == "dead":
            raise RulesError("The dead take no more damage.")
        return damage_odds(state, self._amount(sheet, p))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        damage = self._amount(sheet, p)
        if p["sunder"]:
            shield = _sunder_shield(sheet)
            assert shield is not None
            fx.replace(shield, None)
            fx.say(f"{shield.name} is sundered and stops all {p['amount']} damage. It is beyond repair.")
        else:
            if p["critical"]:
                fx.state["av_crit_pending"] = min(MAGIC_AV_MAX, fx.state["av_crit_pending"] + 1)
                fx.say("A critical: armour does nothing, and your AV drops 1 at the end of the round.")
            elif p["armour"] and damage < p["amount"]:
                fx.say(f"AV stops {p['amount'] - damage}.")
            if damage == 0:
                fx.say("No damage gets through.")
            _hurt(fx.state, damage, rng, fx.dice, fx.words)
        outcome = {"dead": "dies", "dying": "dying"}.get(fx.state["status"], "hurt" if damage else "unhurt")
        return fx.result(self, outcome, odds, _inputs(p), total=damage)


@dataclass(frozen=True)
class DeathsDoorProcedure:
    """Seed 002, Stamina & Death: the d6 on Death's door, when stamina was set to 0 by hand."""

    key: str = "deaths_door"
    label: str = "Death's door"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        state = _st(sheet)
        if state["status"] != "deaths_door":
            raise RulesError("Only a character on Death's door (0 stamina or less) rolls this.")
        dies = deaths_door_death_chance(state["doomed"])
        return Odds((("dying", 1 - dies), ("dies", dies)), success_keys=("dying",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        _clean(self, sheet, params)
        odds = self.odds(sheet, params)
        fx = _Effects(sheet)
        _door(fx.state, rng, fx.dice, fx.words)
        return fx.result(self, "dies" if fx.state["status"] == "dead" else "dying", odds, {})


def _helper_state(h: Hireling) -> dict[str, Any]:
    """A hireling's or retainer's small sheet, with defaults for anything missing (hired-help.md)."""
    if not isinstance(h.state or {}, Mapping):
        raise RulesError(f"{h.name}: the sheet must be a set of named fields.")
    raw = dict(h.state or {})
    role = raw.get("role", "retainer" if h.kind == "retainer" else "porter")
    base = data.HIRELING_ATTRIBUTE if role != "retainer" else 10
    out: dict[str, Any] = {
        "role": role,
        "attributes": {a: {"current": base, "base": base} for a in ATTRIBUTES},
        "stamina": 1,
        "stamina_max": 1,
        "status": "fine",
        "doomed": False,
        "limp": False,
        "scars": [],
        "slots": data.RETAINER_SLOTS,
    }
    out.update(copy.deepcopy(raw))
    try:
        out["attributes"] = _attributes(out["attributes"], f"{h.name}'s attributes")
        out["stamina_max"] = _int(out["stamina_max"], f"{h.name}'s maximum stamina", 1, 999)
        out["stamina"] = _int(out["stamina"], f"{h.name}'s stamina", STAMINA_FLOOR, out["stamina_max"])
        out["scars"] = _scars(out["scars"])
    except RulesError as err:
        raise RulesError(f"{h.name}: {err}") from None
    if out["status"] not in STATUSES:
        raise RulesError(f"{h.name}: status must be fine, on Death's door, dying or dead.")
    return out


def _helpers(sheet: Sheet, role: str | None = None) -> dict[str, Hireling]:
    out = {}
    for i, h in enumerate(sheet.hirelings):
        if role is None or _helper_state(h)["role"] == role:
            out[_key(h, i, "h")] = h
    return out


def _helper_changed(h: Hireling, state: Mapping[str, Any]) -> Hireling:
    if h.id is None:
        raise RulesError(f"{h.name} is not saved on the sheet yet.")
    return _replace(h, state=dict(state))


@dataclass(frozen=True)
class TreatProcedure:
    """Seed 002, Stamina & Death: another character treats the dying with a WIL save or magic within
    a turn; survivors wake with 1 stamina and roll on the scars table. Also for retainers."""

    key: str = "treat"
    label: str = "Treat the dying"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        retainers = tuple((k, h.name) for k, h in _helpers(sheet, "retainer").items())
        return (
            Param("patient", "Who is dying", "choice", "self", choices=(("self", "this character"), *retainers)),
            Param("method", "Treatment", "choice", "wil", choices=(("wil", "healer's WIL save"), ("magic", "magic"))),
            Param("healer", "Healer", "character", help="Their WIL is used; a Healing talent gives advantage."),
            Param("healer_wil", "Healer's WIL (if not a character here)", "int", 10, 0, ATTRIBUTE_MAX),
            Param("advantage", "Healer has advantage", "bool", False),
            Param("disadvantage", "Healer has disadvantage", "bool", False),
            Param("in_time", "Treated within the turn (10 minutes)", "bool", True),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[int, UnderMode, list[str], Odds]:
        body = self._body(sheet, p)[1]
        if body["status"] != "dying":
            raise RulesError("Only someone unconscious and dying can be treated.")
        notes: list[str] = []
        healer = p.get("healer")
        wil = p["healer_wil"]
        advantage = bool(p["advantage"])
        if isinstance(healer, Sheet):
            hstate = _st(healer)
            _able(hstate)
            wil = _cur(hstate, "WIL")
            if "Healing" in hstate["talents"] and not advantage:
                advantage = True
                notes.append(f"{healer.name or 'the healer'}'s Healing talent: advantage")
        mode = _mode(advantage, bool(p["disadvantage"]))
        if not p["in_time"]:
            odds = Odds((("saved", Fraction(0)), ("dies", Fraction(1))), success_keys=("saved",))
        elif p["method"] == "magic":
            odds = Odds((("saved", Fraction(1)), ("dies", Fraction(0))), success_keys=("saved",))
        else:
            c = save_chance(wil, mode)
            odds = Odds((("saved", c), ("dies", 1 - c)), success_keys=("saved",))
        saved = odds.of("saved")
        if saved and p["patient"] == "self":
            # The scar that follows can lower STR, and fewer slots can leave every one full of stress.
            shrink = Fraction(sum(1 for n in data.SCARS if self._scar_kills(body, n)), len(data.SCARS))
            odds = Odds((("saved", saved * (1 - shrink)), ("dies", 1 - saved * (1 - shrink))), success_keys=("saved",))
        return wil, mode, notes, odds

    @staticmethod
    def _scar_kills(body: Mapping[str, Any], face: int) -> bool:
        row = data.SCARS[face]
        if row["effect"] not in ("lose", "chronic") or (row.get("attribute", "STR") != "STR"):
            return False
        after = copy.deepcopy(dict(body))
        _lower(after, "STR", 2 if row["effect"] == "chronic" else row["amount"], permanent=True)
        return after["stress"] >= _slots_max(after)

    def _body(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling | None, dict[str, Any]]:
        if p["patient"] == "self":
            return None, _st(sheet)
        h = _helpers(sheet, "retainer").get(p["patient"])
        if h is None:
            raise RulesError("That retainer is not with this character.")
        return h, _helper_state(h)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, _clean(self, sheet, params))[3]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        wil, mode, notes, odds = self._setup(sheet, p)
        fx = _Effects(sheet)
        helper, body = self._body(sheet, p)
        if helper is None:
            body = fx.state
        if not p["in_time"]:
            ok = False
            fx.say("Nobody treated the wounds in time.")
        elif p["method"] == "magic":
            ok = True
            fx.say("Magic closes the wounds.")
        else:
            dice, ok, face = roll_under(rng, wil, mode, label="healer's WIL")
            fx.dice += dice
            fx.say(f"Healer's WIL save: kept {face} against {wil}, {'success' if ok else 'failure'}.")
        if ok:
            body["status"] = "fine"
            body["stamina"] = 1
            fx.say("They wake with 1 stamina.")
            _scar(body, rng, fx.dice, fx.words)
        else:
            body["status"] = "dead"
            fx.say("The wounds were not treated: dead.")
        if helper is None:
            _stress_death(fx)  # a scar can lower STR and so the slots (spec §002.13.10)
        fx.details["notes"] = notes
        result = fx.result(self, "saved" if body["status"] != "dead" else "dies", odds, _inputs(p))
        if helper is not None:
            result = _replace(result, hirelings_changed=(_helper_changed(helper, body),))
        return result


def _settle_crits(fx: _Effects) -> None:
    """Spec §002.13.9 [REC]: a critical's AV loss lands at the end of the round, the aura first."""
    st = fx.state
    for _ in range(st["av_crit_pending"]):
        if st["aura"] and not st["aura_lost"]:
            st["aura_lost"] = True
            fx.say("A critical broke your magic aura.")
            continue
        have = armour_value(fx.sheet(), {**st, "av_lost": 0, "aura": False})
        if st["av_lost"] < have:
            st["av_lost"] += 1
            fx.say("A critical cracked your armour: AV -1 until mended.")
    st["av_crit_pending"] = 0


@dataclass(frozen=True)
class EndRoundProcedure:
    """Seed 002, Critical Hits: the AV a critical takes away goes at the end of the round."""

    key: str = "end_round"
    label: str = "End of round"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        _clean(self, sheet, params)
        fx = _Effects(sheet)
        if not fx.state["av_crit_pending"]:
            fx.say("No criticals to settle this round.")
        _settle_crits(fx)
        fx.say(f"AV now {armour_value(fx.sheet(), fx.state)}.")
        return fx.result(self, "settled", None, {})


def _ammo(items: Sequence[Item]) -> Item | None:
    return next((i for i in items if i.kind == "ammo" and not _data(i).get("silver")), None)


@dataclass(frozen=True)
class EndCombatProcedure:
    """Seed 002, Worn Weapons (a d6 per weapon used: 1 = worn) and equipment.md, Ammo (a d6 after
    using a ranged weapon: 1 = one shot left; once that is gone, so is the Ammo)."""

    key: str = "end_combat"
    label: str = "End of combat"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        weapons = tuple((k, it.name) for k, it in _weapons(sheet).items())
        return (Param("used", "Weapons you used", "multichoice", (), choices=weapons),)

    def _plan(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[list[Item], bool, Item | None]:
        weapons = _weapons(sheet)
        used = [weapons[k] for k in p["used"]]
        # Silver weapons already rolled after every attack; worn ones have nothing left to lose.
        wear = [w for w in used if not _data(w).get("worn_out") and not _data(w).get("silver")]
        ranged = any(_data(w).get("ranged") and not _data(w).get("thrown") for w in used)
        return wear, ranged, _ammo(sheet.items) if ranged else None

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        wear, _, ammo = self._plan(sheet, _clean(self, sheet, params))
        rolls = len(wear) + (1 if ammo is not None and not _data(ammo).get("last_shot") else 0)
        fine = Fraction(5, 6) ** rolls
        return Odds((("all_fine", fine), ("something_wears", 1 - fine)), success_keys=("all_fine",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        odds = self.odds(sheet, p)
        wear, ranged, ammo = self._plan(sheet, p)
        fx = _Effects(sheet)
        bad = False
        for w in wear:
            die = roll_die(rng, 6, f"wear: {w.name}")
            fx.dice.append(die)
            if die.face == 1:
                bad = True
                fx.set_data(w, worn_out=True)
                fx.say(f"{w.name} is worn (rolled 1): damage 1 and no criticals until repaired.")
        if ranged and ammo is None:
            fx.say("You fired a ranged weapon, but there is no Ammo on your sheet.")
        elif ammo is not None and _data(ammo).get("last_shot"):
            fx.replace(ammo, None)
            fx.say(f"The last shot of {ammo.name} is gone.")
        elif ammo is not None:
            die = roll_die(rng, 6, f"ammo: {ammo.name}")
            fx.dice.append(die)
            if die.face == 1:
                bad = True
                fx.set_data(ammo, last_shot=True)
                fx.say(f"{ammo.name}: one shot left (rolled 1).")
        _settle_crits(fx)
        if not bad:
            fx.say("Your gear holds up.")
        return fx.result(self, "something_wears" if bad else "all_fine", odds, _inputs(p))


def _two_d6() -> dict[int, Fraction]:
    return sum_dist((6, 6))


@dataclass(frozen=True)
class MoraleProcedure:
    """Seed 002, Morale: roll 2d6; above the NPCs' Morale they flee or try to parley."""

    key: str = "morale"
    label: str = "Morale (NPCs)"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("morale", "Their Morale (ML)", "int", 7, 2, 12),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        ml = _clean(self, sheet, params)["morale"]
        flee = sum((p for v, p in _two_d6().items() if v > ml), Fraction(0))
        return Odds((("hold", 1 - flee), ("flee", flee)), success_keys=("hold",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        dice = roll_dice(rng, 2, 6, "morale")
        total = sum(d.face for d in dice)
        flee = total > p["morale"]
        summary = f"Morale 2d6 = {total} against ML {p['morale']}: " + (
            "they flee or try to parley." if flee else "they stand firm."
        )
        return RollResult(
            self.key, self.label, "flee" if flee else "hold", summary, dice, total, self.odds(sheet, p), p
        )


@dataclass(frozen=True)
class ReactionProcedure:
    """npcs.md, Reaction: 2d6 when an NPC's attitude is not obvious."""

    key: str = "reaction"
    label: str = "NPC reaction"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        dist = _two_d6()
        rows = tuple(
            (name.lower(), sum((dist[v] for v in range(lo, hi + 1)), Fraction(0))) for lo, hi, name in data.REACTIONS
        )
        return Odds(rows, success_keys=("friendly", "helpful"))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        _clean(self, sheet, params)
        dice = roll_dice(rng, 2, 6, "reaction")
        total = sum(d.face for d in dice)
        name = next(n for lo, hi, n in data.REACTIONS if lo <= total <= hi)
        summary = f"Reaction 2d6 = {total}: {name}."
        return RollResult(self.key, self.label, name.lower(), summary, dice, total, self.odds(sheet, params), {})


@dataclass(frozen=True)
class CombatOrderProcedure:
    """Seed 002, Combat: a d6 for each side each round; higher goes first, a tie acts at once."""

    key: str = "combat_order"
    label: str = "Combat order"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return Odds(
            (("party_first", Fraction(5, 12)), ("simultaneous", Fraction(1, 6)), ("enemies_first", Fraction(5, 12))),
            success_keys=("party_first",),
        )

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        _clean(self, sheet, params)
        party, enemies = roll_die(rng, 6, "party"), roll_die(rng, 6, "enemies")
        if party.face == enemies.face:
            outcome, words = "simultaneous", "both sides act at once; all damage lands before anyone falls"
        elif party.face > enemies.face:
            outcome, words = "party_first", "the party acts first"
        else:
            outcome, words = "enemies_first", "the enemies act first"
        summary = f"Party {party.face}, enemies {enemies.face}: {words}."
        return RollResult(self.key, self.label, outcome, summary, (party, enemies), None, self.odds(sheet, params), {})


@dataclass(frozen=True)
class LoyaltyProcedure:
    """hired-help.md, Loyalty Checks: 2d6 at or under the retainer's loyalty and they do as asked."""

    key: str = "loyalty"
    label: str = "Retainer loyalty check"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        retainers = tuple((k, h.name) for k, h in _helpers(sheet, "retainer").items())
        return (
            Param(
                "retainer",
                "Retainer",
                "choice",
                retainers[0][0] if retainers else "",
                choices=retainers or (("", "none"),),
            ),
            Param("adjust", "GM's adjustment to loyalty", "int", 0, -5, 5, help="Treated well or badly, paid more."),
        )

    def _loyalty(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling, int]:
        h = _helpers(sheet, "retainer").get(p["retainer"])
        if h is None:
            raise RulesError("Pick one of this character's retainers.")
        base = _helper_state(h).get("loyalty")
        if not isinstance(base, int) or isinstance(base, bool):
            base = retainer_row(_cur(_st(sheet), "WIL"))[0]
        return h, base + p["adjust"]

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        _, loyalty = self._loyalty(sheet, _clean(self, sheet, params))
        obey = sum((p for v, p in _two_d6().items() if v <= loyalty), Fraction(0))
        return Odds((("obeys", obey), ("refuses", 1 - obey)), success_keys=("obeys",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        h, loyalty = self._loyalty(sheet, p)
        dice = roll_dice(rng, 2, 6, "loyalty")
        total = sum(d.face for d in dice)
        obeys = total <= loyalty
        summary = f"{h.name}: 2d6 = {total} against loyalty {loyalty}, " + (
            "they do as asked." if obeys else "they refuse, and may leave your service."
        )
        return RollResult(
            self.key, self.label, "obeys" if obeys else "refuses", summary, dice, total, self.odds(sheet, p), p
        )


@dataclass(frozen=True)
class HelperDamageProcedure:
    """Seed 002, Stamina & Death: retainers go to Death's door like PCs; other hirelings just die."""

    key: str = "helper_damage"
    label: str = "Hireling or retainer takes damage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        helpers = tuple((k, h.name) for k, h in _helpers(sheet).items())
        return (
            Param("helper", "Who", "choice", helpers[0][0] if helpers else "", choices=helpers or (("", "nobody"),)),
            Param("amount", "Damage rolled", "int", 1, 0, DAMAGE_MAX),
            Param("av", "Their AV", "int", 0, 0, MAGIC_AV_MAX),
            Param("critical", "A critical hit (ignores armour)", "bool", False),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling, dict[str, Any], int, Odds]:
        h = _helpers(sheet).get(p["helper"])
        if h is None:
            raise RulesError("Pick one of this character's hirelings or retainers.")
        body = _helper_state(h)
        if body["status"] == "dead":
            raise RulesError(f"{h.name} is already dead.")
        damage = p["amount"] if p["critical"] else max(0, p["amount"] - p["av"])
        odds = damage_odds(body, damage)
        if body["role"] != "retainer" and "dying" in dict(odds.outcomes):
            odds = Odds((("dies", Fraction(1)),), success_keys=())  # a hireling has no Death's door
        return h, body, damage, odds

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, _clean(self, sheet, params))[3]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        h, body, damage, odds = self._setup(sheet, p)
        dice: list[DieRoll] = []
        words: list[str] = [f"{h.name}:"]
        _hurt(body, damage, rng, dice, words, door=body["role"] == "retainer")
        if damage == 0:
            words.append("no damage gets through.")
        outcome = {"dead": "dies", "dying": "dying"}.get(body["status"], "hurt" if damage else "unhurt")
        return RollResult(
            self.key,
            self.label,
            outcome,
            " ".join(words),
            tuple(dice),
            damage,
            odds,
            p,
            hirelings_changed=(_helper_changed(h, body),),
        )


@dataclass(frozen=True)
class StressProcedure:
    """Seed 002, Inventory & Stress (and Fatigue): take stress; with no empty slot, drop items or take
    d6 damage per stress that does not fit."""

    key: str = "stress"
    label: str = "Take stress"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        reasons = (
            ("other", "something strains you"),
            ("camp", "skipped camp last night"),
            ("watch", "travelled or explored past three watches"),
        )
        return (
            Param("amount", "Stress", "int", 1, 1, 20),
            Param("reason", "Why", "choice", "other", choices=reasons),
            _drop_param(sheet),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        _able(_st(sheet))
        fates = _stress_fates(sheet, p["amount"], p["drop"])
        rows = (
            ("stressed", fates.get("fine", Fraction(0))),
            ("dying", fates.get("dying", Fraction(0))),
            ("dies", fates.get("dead", Fraction(0))),
        )
        return Odds(tuple(r for r in rows if r[1] or r[0] == "stressed"), success_keys=("stressed",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        why = {"camp": "No camp", "watch": "A long day on the road"}.get(p["reason"], "Strain")
        _add_stress(fx, p["amount"], p["drop"], rng, why)
        outcome = {"dead": "dies", "dying": "dying"}.get(fx.state["status"], "stressed")
        return fx.result(self, outcome, odds, _inputs(p), total=fx.state["stress"])


def _worn_weapons(items: Sequence[Item]) -> dict[str, Item]:
    return {_key(it, i): it for i, it in enumerate(items) if _weapon_die(it) and _data(it).get("worn_out")}


def _ration(items: Sequence[Item]) -> Item | None:
    return next((i for i in items if i.kind == "ration" and i.quantity > 0), None)


@dataclass(frozen=True)
class RestProcedure:
    """Seed 002, Rest & Healing: short rest (a Supply mends one thing), night's rest (a ration:
    d8 stamina, -1 stress, Supplies mend), full rest (a safe week restores nearly everything)."""

    key: str = "rest"
    label: str = "Rest"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        worn = tuple((k, it.name) for k, it in _worn_weapons(sheet.items).items())
        return (
            Param(
                "kind",
                "Rest",
                "choice",
                "night",
                choices=(
                    ("short", "short rest (a turn)"),
                    ("night", "night's rest"),
                    ("full", "full rest (a safe week)"),
                ),
            ),
            Param("repair_av", "Supplies to mend armour (1 AV each)", "int", 0, 0, MAGIC_AV_MAX),
            Param("repair_weapons", "Supplies to restore worn weapons", "multichoice", (), choices=worn),
            Param("interrupted", "Sleep interrupted by combat or excitement", "bool", False),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        _able(state)
        repairs = p["repair_av"] + len(p["repair_weapons"])
        if p["kind"] == "full":
            return state
        if p["kind"] == "short" and repairs != 1:
            raise RulesError("A short rest spends one Supply to mend one thing: 1 AV or one worn weapon.")
        have = sum(i.quantity for i in _supplies(sheet.items))
        if repairs > have:
            raise RulesError(f"Mending {repairs} thing(s) takes {repairs} Supplies and you have {have}.")
        lost = state["av_lost"] + state["av_crit_pending"]
        if p["repair_av"] > lost:
            raise RulesError(f"Your armour has lost {lost} AV; there is no more to mend.")
        if p["kind"] == "night" and _ration(sheet.items) is None:
            raise RulesError("A night's rest needs a ration to eat, and you have none.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds | None:
        p = _clean(self, sheet, params)
        state = self._check(sheet, p)
        if p["kind"] != "night" or p["interrupted"]:
            return None
        missing = state["stamina_max"] - state["stamina"]
        dist: dict[int, Fraction] = {}
        for face, q in die_dist(8).items():
            gain = min(face, missing)
            dist[gain] = dist.get(gain, Fraction(0)) + q
        return Odds(tuple((f"+{g} stamina", q) for g, q in sorted(dist.items())), success_keys=())

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        st = fx.state
        _settle_crits(fx)
        if p["kind"] == "full":
            st["stamina"] = st["stamina_max"]
            for a in st["attributes"].values():
                a["current"] = a["base"]
            st.update({"stress": 0, "av_lost": 0, "aura_lost": False})
            for item in _worn_weapons(fx.items()).values():
                fx.set_data(item, worn_out=False)
            fx.say("A safe week: all stamina back, lowered attributes restored, no stress, armour and weapons mended.")
            if st["scars"]:
                fx.say("Scars stay.")
            return fx.result(self, "rested", odds, _inputs(p))
        supplies = _supplies(sheet.items)
        spent = 0

        def spend() -> None:
            nonlocal spent
            while fx.current(supplies[0]) is None:
                supplies.pop(0)
            fx.use_one(supplies[0])
            spent += 1

        if p["repair_av"]:
            for _ in range(p["repair_av"]):
                spend()
            st["av_lost"] -= p["repair_av"]
            fx.say(f"Mended {p['repair_av']} AV.")
        worn = _worn_weapons(sheet.items)
        for key in p["repair_weapons"]:
            spend()
            fx.set_data(worn[key], worn_out=False)
            fx.say(f"Restored {worn[key].name}.")
        if spent:
            fx.say(f"Spent {spent} Supply.")
        if p["kind"] == "night":
            ration = _ration(sheet.items)
            assert ration is not None
            days = _data(ration).get("days")
            if isinstance(days, int) and days > 1:
                fx.set_data(ration, days=days - 1)
            else:
                fx.use_one(ration)
            fx.say(f"Ate from {ration.name}.")
            if p["interrupted"]:
                fx.say("Sleep was broken: no stamina back and no stress lifted tonight.")
            else:
                die = roll_die(rng, 8, "stamina")
                fx.dice.append(die)
                gain = min(die.face, st["stamina_max"] - st["stamina"])
                st["stamina"] += gain
                st["stress"] = max(0, st["stress"] - 1)
                fx.say(f"Slept two watches: d8 = {die.face}, +{gain} stamina; one stress lifted.")
        return fx.result(self, "rested", odds, _inputs(p))


# --- procedures: magic ------------------------------------------------------------------------


def power_cost(power: int) -> int:
    """magic-spellcasting.md, Casting Spells: 1, 2, 4, 8 or 16 stamina for Power 1-5."""
    if isinstance(power, bool) or not isinstance(power, int) or not 1 <= power <= POWER_MAX:
        raise RulesError(f"Power runs from 1 to {POWER_MAX}; nobody can channel Power {power}.")
    return data.POWER_COST[power - 1]


def mishap_chances(power: int) -> tuple[Fraction, Fraction]:
    """(P(two or more dice match), P(they match and the sum is 21+, death)) for Power x d6, exactly."""
    power_cost(power)
    match = explode = 0
    for faces in product(range(1, 7), repeat=power):
        if len(set(faces)) < power:
            match += 1
            explode += sum(faces) >= 21
    return Fraction(match, 6**power), Fraction(explode, 6**power)


def _spell_sources(sheet: Sheet) -> dict[str, tuple[Item, str]]:
    """Every castable spell on the sheet: "<item key>|<spell>" -> (book or scroll, spell)."""
    out: dict[str, tuple[Item, str]] = {}
    for key, item in _item_keys(sheet).items():
        d = _data(item)
        if item.kind != "spellbook" or d.get("ruined"):
            continue
        names = [d.get("spell")] if d.get("scroll") else list(d.get("spells") or [])
        for name in names:
            if isinstance(name, str) and name:
                out[f"{key}|{name}"] = (item, name)
    return out


def _spell_text(name: str, dice: int, total: int) -> str:
    row = next((text for n, text in data.SPELLS.values() if n.lower() == name.lower()), "")
    return row.replace("[DICE]", str(dice)).replace("[SUM]", str(total))


def _mishap(fx: _Effects, total: int, count: int, source: Item, drop: Sequence[str], rng: RandomSource) -> str:
    """magic-spellcasting.md, Mishaps Table: look up [SUM]; the effects a sheet can hold are applied."""
    row = min(total, 21)
    text = data.MISHAPS[row].replace("[DICE]", str(count)).replace("[SUM]", str(total))
    st = fx.state
    book = bool(_data(source).get("grimoire"))
    fx.say(f"Mishap ({total}): {text}")
    if row in (4, 5):
        _add_stress(fx, 1, drop, rng, "Mishap")
    elif row == 11:
        _lower(st, "WIL", count, permanent=False)
    elif row == 12:
        st["aura"], st["aura_lost"] = True, False
    elif row == 13 and book:
        fx.set_data(source, ruined=True)
    elif row == 14:
        st["tumours"] = min(30, st["tumours"] + count)
    elif row == 15:
        _lower(st, "WIL", st["attributes"]["WIL"]["base"] // 2, permanent=True)
        if book:
            now = fx.current(source)
            if now is not None:
                fx.replace(source, _replace(now, slots=0, data={**dict(now.data or {}), "soul_bound": True}))
    elif row == 16:
        _lower(st, "STR", count, permanent=True)
        st["bark"] = True
    elif row == 17:
        _raise_base(st, "STR", count)
        st["wings"] = True
    elif row == 18 and book:
        now = fx.current(source)
        if now is not None:
            fx.replace(source, _replace(now, slots=1, data={**dict(now.data or {}), "fused": True}))
    elif row == 21:
        st["status"] = "dead"
    st["mishaps"] = [*st["mishaps"], f"{total}: {text}"[:100]][-50:]
    _stress_death(fx)
    return text


@dataclass(frozen=True)
class _Cast:
    item: Item
    spell: str
    scroll: bool
    power: int
    cost: int
    save: _Save | None


@dataclass(frozen=True)
class CastProcedure:
    """magic-spellcasting.md, Casting Spells: pay 1/2/4/8/16 stamina for Power 1-5, save on WIL
    (failure still casts, with a stress; scrolls need no save), roll Power x d6; matching dice mishap."""

    key: str = "cast"
    label: str = "Cast a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        spells = tuple((k, f"{name} ({item.name})") for k, (item, name) in _spell_sources(sheet).items())
        save = tuple(p for p in _save_params(sheet, "WIL", auto=False) if p.name not in ("attribute", "equipment"))
        return (
            Param("spell", "Spell", "choice", spells[0][0] if spells else "", choices=spells or (("", "none"),)),
            Param("power", "Power", "int", 1, 1, POWER_MAX, help="Costs 1, 2, 4, 8 or 16 stamina."),
            *save,
            _drop_param(sheet),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> _Cast:
        state = _st(sheet)
        _able(state)
        found = _spell_sources(sheet).get(p["spell"])
        if found is None:
            raise RulesError("Pick a spell from a grimoire, holy book or scroll you carry.")
        item, spell = found
        d = _data(item)
        if d.get("holy_book") and d.get("faction") and d.get("faction") != state["faction"]:
            raise RulesError("Only the faithful of its faction and order can cast from this holy book.")
        cost = power_cost(p["power"])
        scroll = bool(d.get("scroll"))
        save = None if scroll else _save_setup(sheet, state, {**p, "attribute": "WIL", "equipment": False})
        return _Cast(item, spell, scroll, p["power"], cost, save)

    def _odds(self, sheet: Sheet, c: _Cast, drop: Sequence[str] = ()) -> Odds:
        """Every outcome, exactly: the save, the stress a failure adds, the Power dice and their mishap.

        Stress can kill (seed 002, Inventory & Stress): filling the last slot, or with no slot left as
        d6 damage that takes the caster to 0 (and casting to 0 is death). Each branch is run with
        ``_Tally`` dice; those d6s then kill when their sum reaches the stamina left.
        """
        state = _st(sheet)
        if state["stamina"] - c.cost <= 0 or _push_kills(c.save, state):
            return DEATH
        ok = Fraction(1) if c.save is None else save_chance(c.save.target, c.save.mode)
        out = dict.fromkeys(("cast", "cast_stress", "mishap", "mishap_stress", "explodes", "dies"), Fraction(0))
        for strained, q in ((False, ok), (True, 1 - ok)):
            if not q:
                continue
            for (mishap, total), pm in _power_classes(c.power):
                fx, tally = _Effects(sheet), _Tally()
                fx.state["stamina"] -= c.cost
                if c.save is not None and c.save.push:
                    fx.state["stress"] += 1  # it fits: pushing needs an empty slot, and it did not kill
                if strained:
                    _add_stress(fx, 1, drop, tally, "")
                if fx.state["status"] == "dead":
                    key = "dies"  # as in the roll: the strain killed before the spell resolved
                else:
                    if mishap:
                        _mishap(fx, total, c.power, c.item, drop, tally)
                    key = _cast_outcome(fx.state, mishap, total, strained)
                hit = Fraction(0)
                if tally.calls and fx.state["stamina"] > 0:
                    hit = _at_least(tally.calls, 6, fx.state["stamina"] + tally.calls)
                out["dies"] += q * pm * hit
                out[key] += q * pm * (1 - hit)
        rows = tuple((k, v) for k, v in out.items() if v or k == "cast")
        return Odds(rows, success_keys=("cast", "cast_stress"))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        return self._odds(sheet, self._setup(sheet, p), p["drop"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        c = self._setup(sheet, p)
        odds = self._odds(sheet, c, p["drop"])
        fx = _Effects(sheet)
        st = fx.state
        st["stamina"] = max(STAMINA_FLOOR, st["stamina"] - c.cost)
        fx.say(f"{c.spell} at Power {c.power}: {c.cost} stamina (now {st['stamina']}).")
        strained = False
        if c.scroll:
            fx.use_one(c.item)
            fx.say("The scroll needs no save and crumbles to dust.")
        else:
            assert c.save is not None
            ok, _ = _roll_save(fx, c.save, rng)
            if st["status"] == "dead":  # the push filled the last slot with stress
                return fx.result(self, "dies", odds, _inputs(p))
            if not ok:
                strained = True
                _add_stress(fx, 1, p["drop"], rng, "The magic strains you")
                if st["status"] == "dead":  # that stress filled the last slot, or its damage killed
                    return fx.result(self, "dies", odds, _inputs(p))
        dice = roll_dice(rng, c.power, 6, "power")
        fx.dice += dice
        total = sum(d.face for d in dice)
        effect = _spell_text(c.spell, c.power, total)
        fx.say(f"[DICE] {c.power}, [SUM] {total}." + (f" {effect}" if effect else ""))
        mishap = len({d.face for d in dice}) < c.power
        if mishap:
            _mishap(fx, total, c.power, c.item, p["drop"], rng)
        if st["stamina"] <= 0 and st["status"] != "dead":
            st["status"] = "dead"
            fx.say("Casting burned the last of your essence: dead once the spell resolves, beyond any resurrection.")
        fx.details.update({"dice": c.power, "sum": total, "mishap": mishap, "cost": c.cost, "effect": effect})
        if st["status"] == "dead" and (total >= 21 and mishap or st["stamina"] <= 0):
            fx.details["no_resurrection"] = True
        return fx.result(self, _cast_outcome(st, mishap, total, strained), odds, _inputs(p), total=total)


@lru_cache(maxsize=8)
def _power_classes(power: int) -> tuple[tuple[tuple[bool, int], Fraction], ...]:
    """Power x d6 by what the rest of a cast depends on: no mishap (any sum), or a mishap and its sum."""
    counts: dict[tuple[bool, int], int] = {}
    for faces in product(range(1, 7), repeat=power):
        mishap = len(set(faces)) < power
        key = (mishap, sum(faces) if mishap else 0)
        counts[key] = counts.get(key, 0) + 1
    return tuple((k, Fraction(n, 6**power)) for k, n in sorted(counts.items()))


def _cast_outcome(st: Mapping[str, Any], mishap: bool, total: int, strained: bool) -> str:
    if st["stamina"] <= 0:
        return "dies"
    if mishap and total >= 21:
        return "explodes"
    if st["status"] == "dead":  # the strain's or a mishap's stress filled the last slot (or shrank the slots)
        return "dies"
    return ("mishap" if mishap else "cast") + ("_stress" if strained else "")


# --- procedures: advancement --------------------------------------------------------------------


@dataclass(frozen=True)
class XpProcedure:
    """Seed 002, Rewarding XP: 1 XP per penny of treasure brought back safely (your share), and per
    penny wasted on returning to town (spec §002.12 [REC]: a ledger of both)."""

    key: str = "xp"
    label: str = "XP: treasure"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        kinds = (("treasure", "treasure brought back safely (your share)"), ("waste", "treasure wasted in town"))
        return (
            Param("kind", "Kind", "choice", "treasure", choices=kinds),
            Param("amount", "Pennies", "int", 0, 0, 10_000_000),
            Param("note", "What it was", "text", ""),
            Param("coins", "Add to (or pay from) your coins", "bool", True),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        fx = _Effects(sheet)
        st = fx.state
        if st["status"] == "dead":
            raise RulesError("The dead earn no XP; an heir gets 10% of it (hired-help.md, Heirs).")
        amount = p["amount"]
        if p["coins"]:
            if p["kind"] == "waste" and amount > st["coins"]:
                raise RulesError(f"You cannot waste {format_money(amount)}; you have {format_money(st['coins'])}.")
            st["coins"] += amount if p["kind"] == "treasure" else -amount
        st["xp"] += amount
        st["xp_ledger"] = [*st["xp_ledger"], {"kind": p["kind"], "amount": amount, "note": p["note"][:200]}]
        nxt = xp_for_level(st["level"] + 1)
        verb = "brought back" if p["kind"] == "treasure" else "wasted"
        fx.say(f"{format_money(amount)} {verb}: +{amount:,} XP, now {st['xp']:,} (level {st['level'] + 1} at {nxt:,}).")
        if st["xp"] >= nxt:
            fx.say("Ready to level up.")
        if _slots_used(fx.sheet(), st) > _slots_max(st):
            fx.say("That much coin is more than your slots hold: leave some in safe keeping.")
        return fx.result(self, p["kind"], None, _inputs(p), total=st["xp"])


def level_up_odds(new_level: int, stamina_max: int) -> Odds:
    """Seed 002, Advancement: to levels 2-10 roll [new level]d8; above the max it is the new max,
    otherwise max +1. From 11 on, +2 without a roll."""
    if new_level > len(data.LEVEL_XP):
        return Odds((("plus_two", Fraction(1)),), success_keys=("plus_two",))
    higher = sum((p for v, p in sum_dist((8,) * new_level).items() if v > stamina_max), Fraction(0))
    return Odds((("new_max", higher), ("plus_one", 1 - higher)), success_keys=("new_max",))


def _all_maxed(state: Mapping[str, Any]) -> bool:
    return all(state["attributes"][a]["base"] >= ATTRIBUTE_MAX for a in ATTRIBUTES)


@dataclass(frozen=True)
class LevelUpProcedure:
    """Seed 002, Advancement: at the XP of the next level, +1 to an attribute (18 at most) and more stamina."""

    key: str = "level_up"
    label: str = "Level up"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("attribute", "Raise", "choice", "STR", choices=ATTRIBUTE_CHOICES, help="Levels 2-10 only."),)

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        if state["status"] == "dead":
            raise RulesError("The dead do not level up.")
        new = state["level"] + 1
        need = xp_for_level(new)
        if state["xp"] < need:
            raise RulesError(f"Level {new} needs {need:,} XP; you have {state['xp']:,}.")
        if new <= len(data.LEVEL_XP) and not _all_maxed(state):
            a = p["attribute"]
            if state["attributes"][a]["base"] >= ATTRIBUTE_MAX:
                raise RulesError(f"{a} is already {ATTRIBUTE_MAX}, the most a score can be; raise another attribute.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        state = self._check(sheet, _clean(self, sheet, params))
        return level_up_odds(state["level"] + 1, state["stamina_max"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        self._check(sheet, p)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        st = fx.state
        st["level"] += 1
        new = st["level"]
        old_max = st["stamina_max"]
        if new <= len(data.LEVEL_XP):
            # The cap stops the attribute, not the level: with all three at 18 only stamina grows.
            maxed = _all_maxed(st)
            if not maxed:
                _raise_base(st, p["attribute"], 1)
            fx.details["attribute_raised"] = "" if maxed else p["attribute"]
            dice = roll_dice(rng, new, 8, "stamina")
            fx.dice += dice
            total = sum(d.face for d in dice)
            outcome = "new_max" if total > old_max else "plus_one"
            st["stamina_max"] = min(999, total if total > old_max else old_max + 1)
            a = st["attributes"][p["attribute"]]["base"]
            raised = f"every attribute is already {ATTRIBUTE_MAX}, so none rises" if maxed else f"{p['attribute']} {a}"
            fx.say(f"Level {new}: {raised}. {new}d8 = {total} against max {old_max}:")
        else:
            total, outcome = 0, "plus_two"
            st["stamina_max"] = min(999, old_max + data.STAMINA_PER_LEVEL_PAST_10)
            fx.say(f"Level {new}: past level 10 there is no roll;")
        st["stamina"] = min(st["stamina_max"], st["stamina"] + st["stamina_max"] - old_max)
        fx.say(f"max stamina {st['stamina_max']}.")
        return fx.result(self, outcome, odds, _inputs(p), total=total or None)


@dataclass(frozen=True)
class SwapProcedure:
    """character-creation.md: you may swap two attribute scores (once, before play)."""

    key: str = "swap"
    label: str = "Swap two attributes"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("first", "Swap", "choice", "STR", choices=ATTRIBUTE_CHOICES),
            Param("second", "with", "choice", "WIL", choices=ATTRIBUTE_CHOICES),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        fx = _Effects(sheet)
        st = fx.state
        if st["swapped"] or st["level"] != 1 or st["xp"] or st["scars"]:
            raise RulesError("The swap is part of making a character: once, before play starts.")
        if p["first"] == p["second"]:
            raise RulesError("Pick two different attributes to swap.")
        a, b = st["attributes"][p["first"]], st["attributes"][p["second"]]
        st["attributes"][p["first"]], st["attributes"][p["second"]] = b, a
        st["swapped"] = True
        fx.say(f"Swapped: {p['first']} {b['base']}, {p['second']} {a['base']}.")
        return fx.result(self, "swapped", None, _inputs(p))


# --- creation -----------------------------------------------------------------------------------

_SWAPS = (("STR-DEX", "STR and DEX"), ("STR-WIL", "STR and WIL"), ("DEX-WIL", "DEX and WIL"))


def creation_params() -> tuple[Param, ...]:
    """The creation form (character-creation.md): every empty answer is left to the dice."""
    backgrounds = tuple((str(n), f"{n}. {b['name']} ({b['archetype']})") for n, b in data.BACKGROUNDS.items())
    return (
        Param("name", "Name", "text", ""),
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


def create(choices: Mapping[str, Any], rng: RandomSource) -> Creation:
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
            age = _int(int(choices["age"]), "Age", 18, 1000)
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
    return Creation(name, state, tuple(items), tuple(rolls))


# --- hired help ---------------------------------------------------------------------------------

HIRE_KINDS = ("retainer", *data.HIRELINGS)


def hire_params(sheet: Sheet) -> tuple[Param, ...]:
    kinds = [("retainer", "Retainer: fights; half a share, 5 s a level up front")]
    for key, h in data.HIRELINGS.items():
        kinds.append((key, f"{h['label']}: {format_money(h['day'])} a day, {h['slots']} slots"))
    return (
        Param("kind", "Who", "choice", "retainer", choices=tuple(kinds)),
        Param("name", "Name", "text", ""),
        Param("level", "Retainer's level", "int", 1, 1, 100, help="Never above yours."),
    )


def hireling_limit(sheet: Sheet) -> int:
    """hired-help.md: the most retainers your WIL allows (hirelings who do not fight have no limit)."""
    return retainer_row(_cur(_st(sheet), "WIL"))[1]


def hire(sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
    """hired-help.md: a retainer (3d6 attributes, 1d8 stamina, a d6 weapon, 10 slots, loyalty and a cap
    from your WIL, 5 s x level up front, never above your level) or a hireling (8s, 6 Morale, 1d8
    stamina, 10 slots, a porter 15; paid by the day). A Knight's squire comes without the fee."""
    state = _st(sheet)
    if state["status"] != "fine":
        raise RulesError("Nobody signs on with someone who is dying or dead.")
    kind = str(choices.get("kind") or "retainer")
    if kind not in HIRE_KINDS:
        raise RulesError(f"Hire a {', '.join(HIRE_KINDS)}.")
    name = str(choices.get("name") or "").strip()[:100]
    stamina = roll_die(rng, 8, "stamina").face
    if kind != "retainer":
        h = data.HIRELINGS[kind]
        if state["coins"] < h["day"]:
            raise RulesError(f"A {kind} wants {format_money(h['day'])} a day; you have {format_money(state['coins'])}.")
        body = {
            "role": kind,
            "attributes": {
                a: {"current": data.HIRELING_ATTRIBUTE, "base": data.HIRELING_ATTRIBUTE} for a in ATTRIBUTES
            },
            "stamina": stamina,
            "stamina_max": stamina,
            "status": "fine",
            "morale": data.HIRELING_MORALE,
            "slots": h["slots"],
        }
        return Hireling(name or h["label"], "hireling", body, h["day"])
    wil = _cur(state, "WIL")
    loyalty, most = retainer_row(wil)
    retainers = _helpers(sheet, "retainer")
    if len(retainers) >= most:
        raise RulesError(f"With WIL {wil} you can keep {most} retainer(s), and you have {len(retainers)}.")
    level = choices.get("level") or 1
    level = _int(int(level) if isinstance(level, str) and level.isdigit() else level, "Retainer's level", 1, 100)
    if level > state["level"]:
        raise RulesError(f"A retainer can never be a higher level than you (you are level {state['level']}).")
    squire = state["background"] == "Knight" and not any(_helper_state(r).get("squire") for r in retainers.values())
    upfront = 0 if squire else data.RETAINER_UPFRONT_PER_LEVEL * level
    if upfront > state["coins"]:
        raise RulesError(
            f"A level {level} retainer wants {format_money(upfront)} up front; you have {format_money(state['coins'])}."
        )
    scores = {a: sum(d.face for d in roll_dice(rng, 3, 6, a)) for a in ATTRIBUTES}
    top = stamina
    for new in range(2, min(level, len(data.LEVEL_XP)) + 1):  # they advance like PCs (hired-help.md)
        rolled = sum(d.face for d in roll_dice(rng, new, 8, "stamina"))
        top = rolled if rolled > top else top + 1
    top += max(0, level - len(data.LEVEL_XP)) * data.STAMINA_PER_LEVEL_PAST_10
    body = {
        "role": "retainer",
        "attributes": {a: {"current": v, "base": v} for a, v in scores.items()},
        "stamina": top,
        "stamina_max": top,
        "status": "fine",
        "doomed": False,
        "scars": [],
        "level": level,
        "xp": xp_for_level(level),
        "loyalty": loyalty,
        "weapon": 6,
        "slots": data.RETAINER_SLOTS,
    }
    if squire:
        body["squire"] = True
    # hire() returns only the row; the app takes the fee from the employer's coins (Hireling.upfront).
    return Hireling(name or ("Squire" if squire else "Retainer"), "retainer", body, 0, upfront=upfront)


# --- catalogue ----------------------------------------------------------------------------------


def _catalogue() -> tuple[CatalogueEntry, ...]:
    """equipment.md's tables, prices in pennies (silver weapons at ten times the price)."""
    out: list[CatalogueEntry] = []
    for name, die, slots_, price, extra, note in data.WEAPONS:
        if price is None:
            continue  # bare hands are no purchase
        numbers = {"damage": die, **extra}
        out.append(CatalogueEntry(name, "weapon", price, slots_, "Weapons", numbers, note))
    for name, die, slots_, price, extra, note in data.WEAPONS:
        if price is not None:
            silver_note = "Wears after every attack; harms what only silver harms."
            out.append(
                CatalogueEntry(
                    f"Silver {name.lower()}",
                    "weapon",
                    price * data.SILVER_PRICE_FACTOR,
                    slots_,
                    "Silver weapons",
                    {"damage": die, **extra, "silver": True},
                    f"{note} {silver_note}".strip(),
                )
            )
    for name, kind, av, slots_, price, extra, note in data.ARMOUR:
        numbers = {"av": av, **extra} if av else dict(extra)
        out.append(CatalogueEntry(name, kind, price, slots_, "Armour", numbers, note))
    for name, kind, slots_, price, extra, note in data.GEAR:
        out.append(CatalogueEntry(name, kind, price, slots_, "Gear", dict(extra), note))
    for name, price, note in data.SERVICES:
        out.append(CatalogueEntry(name, "service", price, 0, "Food, lodging and travel", {}, note))
    for name, price, rarity in data.BUILDINGS:
        numbers = {"rarity": rarity} if rarity else {}
        out.append(CatalogueEntry(name, "service", price, 0, "Buildings", numbers, "Cost to build."))
    for name, ridden, unridden, miles, price, hd, skill, ml, traits in data.MOUNTS:
        numbers = {
            "mount": True,
            "slots_ridden": ridden,
            "slots_unridden": unridden,
            "miles_per_day": miles,
            "hd": hd,
            "skill": skill,
            "ml": ml,
        }
        out.append(CatalogueEntry(name, "animal", price, 0, "Mounts", numbers, traits))
    return tuple(out)


CATALOGUE: tuple[CatalogueEntry, ...] = _catalogue()


# --- the system ---------------------------------------------------------------------------------

PROCEDURES: dict[str, Procedure] = {
    p.key: p
    for p in (
        SaveProcedure(),
        OpposedSaveProcedure(),
        PartySaveProcedure(),
        AttackProcedure(),
        TakeDamageProcedure(),
        DeathsDoorProcedure(),
        TreatProcedure(),
        EndRoundProcedure(),
        EndCombatProcedure(),
        StressProcedure(),
        RestProcedure(),
        CastProcedure(),
        XpProcedure(),
        LevelUpProcedure(),
        SwapProcedure(),
        HelperDamageProcedure(),
        LoyaltyProcedure(),
        MoraleProcedure(),
        ReactionProcedure(),
        CombatOrderProcedure(),
    )
}

ADJUSTABLE: tuple[str, ...] = ("stamina", "stamina_max", "stress", *ATTRIBUTES, "av", "coins")


def tracks(sheet: Sheet) -> tuple[Track, ...]:
    state = _st(sheet)
    out = [
        Track("stamina", "Stamina", state["stamina"], state["stamina_max"], minimum=min(0, state["stamina"])),
        Track("stamina_max", "Max stamina", state["stamina_max"], minimum=1),
        Track("stress", "Stress", state["stress"], _slots_max(state)),
    ]
    for a in ATTRIBUTES:
        score = state["attributes"][a]
        out.append(Track(a, a, score["current"], score["base"]))
    out += [
        Track("av", "AV", armour_value(sheet, state), _raw_av(sheet, state)),
        Track("supplies", "Supplies", sum(i.quantity for i in _supplies(sheet.items)), adjustable=False),
        Track("level", "Level", state["level"], adjustable=False),
        Track("xp", "XP", state["xp"], xp_for_level(state["level"] + 1), adjustable=False),
        Track("coins", "Coins (pennies)", state["coins"]),
    ]
    return tuple(out)


def adjust(sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
    """Change one track by ``delta``, clamped by the rules (seed 002): stamina 0..max (0 puts you on
    Death's door), stress only into empty slots (all slots stress kills), attributes 0..their rested
    score, AV between 0 and the armour worn, coins not below 0 nor past your slots."""
    if key not in ADJUSTABLE:
        raise RulesError(f"{key} cannot be changed by hand.")
    if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 1_000_000:
        raise RulesError("Change it by a whole number.")
    state = _st(sheet)
    if key == "stamina":
        if state["status"] == "dead":
            raise RulesError("The dead have no stamina to change.")
        if state["status"] != "fine":
            raise RulesError("Bleeding out: roll Death's door or treat the wounds instead.")
        state["stamina"] = max(0, min(state["stamina_max"], state["stamina"] + delta))
        if state["stamina"] <= 0:
            state["status"] = "deaths_door"
    elif key == "stamina_max":
        state["stamina_max"] = max(1, min(999, state["stamina_max"] + delta))
        state["stamina"] = min(state["stamina"], state["stamina_max"])
    elif key == "stress":
        if delta > 0:
            free = _free_slots(sheet, state)
            if free < delta:
                raise RulesError(
                    f"Only {free} empty slot(s) for {delta} stress. Drop an item first, or use Take stress to "
                    "drop items or take d6 damage for each stress that does not fit."
                )
        state["stress"] = max(0, state["stress"] + delta)
        if state["stress"] >= _slots_max(state):
            state["status"] = "dead"
    elif key in ATTRIBUTES:
        a = state["attributes"][key]
        a["current"] = max(0, min(a["base"], a["current"] + delta))
        if state["stress"] >= _slots_max(state):
            # Fewer slots than the stress carried (spec §002.13.10): seed 002 says a PC cannot hold more
            # stress than slots and that stress in every slot kills, so every slot fills and they die.
            state["stress"] = _slots_max(state)
            state["status"] = "dead"
    elif key == "av":
        state["av_lost"] = max(0, min(_raw_av(sheet, state), state["av_lost"] - delta))
    else:
        state["coins"] = max(0, state["coins"] + delta)
        if delta > 0 and _slots_used(sheet, state) > _slots_max(state):
            raise RulesError("That much coin needs slots you do not have: leave some in safe keeping.")
    return validate_state(state)


def conditions(sheet: Sheet) -> tuple[str, ...]:
    state = _st(sheet)
    status = state["status"]
    if status == "dead":
        return ("Dead",)
    out = []
    if status == "deaths_door":
        out.append("On Death's door: roll the d6")
    elif status == "dying":
        out.append("Unconscious and dying")
    if state["doomed"]:
        out.append("Doomed")
    if _slots_used(sheet, state) > _slots_max(state):
        out.append("Over-encumbered")
    elif _free_slots(sheet, state) == 0:
        out.append("No empty slot")
    if state["stress"]:
        out.append(f"Stress {state['stress']}")
    if any(a["current"] < a["base"] for a in state["attributes"].values()):
        out.append("Weakened")
    worn = [i.name for i in _worn_weapons(sheet.items).values()]
    if worn:
        out.append("Worn: " + ", ".join(worn))
    if any(not _fits_armour(i, state) for i in _armour_pieces(sheet, state)):
        out.append("Armour too heavy")
    scars = _scar_rolls(state)
    for roll, words in ((7, "One leg"), (8, "One eye"), (9, "One arm")):
        if roll in scars:
            out.append(words)
    if state["limp"]:
        out.append("Limping")
    if state["xp"] >= xp_for_level(state["level"] + 1):
        out.append("Level up ready")
    return tuple(out)


@dataclass(frozen=True)
class ChaosConquest(GameSystem):
    """Chaos & Conquest (2023-12 rules): the GameSystem for seed 002."""

    id: str = "chaos-conquest"
    name: str = "Chaos & Conquest"
    coin_label: str = "pennies"
    credit: str = data.CREDIT
    # character-creation.md (spec §002): the faction is secret; the app shows it to the owner and the GM only.
    private_fields: tuple[str, ...] = ("faction",)
    # hireling_limit() caps retainers only: porters and other paid help do not count against WIL.
    limited_hireling_kinds: tuple[str, ...] = ("retainer",)

    def default_state(self) -> dict[str, Any]:
        return _default_state()

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return validate_state(state)

    def create(self, choices: Mapping[str, Any], rng: RandomSource) -> Creation:
        return create(choices, rng)

    def creation_params(self) -> tuple[Param, ...]:
        return creation_params()

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        return tracks(sheet)

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        return adjust(sheet, key, delta)

    def slots(self, sheet: Sheet) -> SlotSummary:
        return slots(sheet)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        return conditions(sheet)

    def procedures(self) -> Mapping[str, Procedure]:
        return PROCEDURES

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def format_money(self, amount: int) -> str:
        return format_money(amount)

    def hireling_limit(self, sheet: Sheet) -> int:
        return hireling_limit(sheet)

    def hire_params(self, sheet: Sheet) -> tuple[Param, ...]:
        return hire_params(sheet)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        return hire(sheet, choices, rng)

    def validate_item(self, item: Item) -> Item:
        return validate_item(item)

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        return validate_hireling(hireling)

    # helpers the app calls beyond the protocol
    def check_can_carry(self, sheet: Sheet, item: Item) -> SlotSummary:
        return check_can_carry(sheet, item)

    def armour_value(self, sheet: Sheet) -> int:
        return armour_value(sheet)

    def treasure_shares(self, total: int, pcs: int, retainers: int = 0) -> Shares:
        return treasure_shares(total, pcs, retainers)

    def heir_split(self, share: int) -> tuple[int, int]:
        return heir_split(share)


SYSTEM = ChaosConquest()
