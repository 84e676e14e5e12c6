"""Chaos & Conquest state.

The sheet's shape and its validation, the low-level helpers every other module uses, and a hireling's or
retainer's small sheet.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import replace as _replace
from typing import Any

from rules.base import Hireling, Item, RulesError, Sheet, entry_key, sheet_state
from rules.data import chaos_conquest as data
from rules.validation import Check, boolean, bounded_int, bounded_text, die_on, fields, hireling_basics, name_list

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


def _text(value: Any, label: str, limit: int = 100) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{label} must be text.")
    return value.strip()[:limit]


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
        base = bounded_int(entry["base"], f"{a}", 0, ATTRIBUTE_MAX)
        current = bounded_int(entry.get("current", base), f"{a} now", 0, base)
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
                "roll": bounded_int(s.get("roll", 0), "Scar roll", 0, 10),
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
                "amount": bounded_int(e.get("amount", 0), "XP amount", 0, 100_000_000),
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
    out["level"] = bounded_int(m["level"], "Level", 1, 100)
    out["xp"] = bounded_int(m["xp"], "XP", 0, 100_000_000)
    out["xp_ledger"] = _ledger(m["xp_ledger"])
    out["stamina_max"] = bounded_int(m["stamina_max"], "Maximum stamina", 1, 999)
    out["stamina"] = bounded_int(m["stamina"], "Stamina", STAMINA_FLOOR, out["stamina_max"])
    out["stress"] = bounded_int(m["stress"], "Stress", 0, 100)
    out["talents"] = name_list(m["talents"], "Talents", 30)
    out["background"] = _text(m["background"], "Background")
    out["archetype"] = _text(m["archetype"], "Archetype")
    faction = _text(m["faction"], "Faction")
    if faction and faction not in data.FACTIONS:
        raise RulesError(f"Faction must be one of {', '.join(data.FACTIONS)}, or left blank.")
    out["faction"] = faction
    out["age"] = bounded_int(m["age"], "Age", 0, 1000)
    if m["status"] not in STATUSES:
        raise RulesError("Status must be fine, on Death's door, dying or dead.")
    out["status"] = m["status"]
    out["scars"] = _scars(m["scars"])
    for key, label in (("doomed", "Doomed"), ("limp", "Limping"), ("aura", "Magic aura")):
        out[key] = boolean(m[key], label)
    for key, label in (("aura_lost", "Aura lost"), ("bark", "Bark skin"), ("wings", "Wings"), ("swapped", "Swapped")):
        out[key] = boolean(m[key], label)
    out["coins"] = bounded_int(m["coins"], "Coins", 0, 100_000_000)
    out["av_lost"] = bounded_int(m["av_lost"], "Armour lost", 0, MAGIC_AV_MAX)
    out["av_crit_pending"] = bounded_int(m["av_crit_pending"], "Criticals this round", 0, MAGIC_AV_MAX)
    out["tumours"] = bounded_int(m["tumours"], "Tumours", 0, 30)
    out["mishaps"] = name_list(m["mishaps"], "Mishaps", 50)
    return out


def _st(sheet: Sheet) -> dict[str, Any]:
    return sheet_state(sheet, validate_state)


def shown_stamina(body: Mapping[str, Any]) -> int:
    """Stamina as the sheet's track shows it (``Track.shown``: never below 0), for the words of a log line: the
    state counts harm past 0 (Death's door reads it), a person never reads -2 stamina."""
    return max(0, int(body["stamina"]))


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


def light_at_table(sheet: Sheet) -> str:
    """The party's light as the table last worked it out (``Sheet.table``): "bright", "dim", "darkness", or ""
    away from a table. Equipment.md, Light: darkness impairs every attack and puts saves at disadvantage;
    dim light impairs ranged attacks."""
    return str((sheet.table or {}).get("light") or "")


def _data(item: Item) -> Mapping[str, Any]:
    return item.data or {}


def _number(low: int, high: int) -> Check:
    return lambda value, label: bounded_int(value, label, low, high)


def _die(value: Any, label: str) -> int:
    return die_on(value, label, WEAPON_DICE)


def _faction(value: Any, label: str) -> str:
    text = bounded_text(value, label, 20)
    if text and text not in data.FACTIONS:
        raise RulesError(f"{label} must be one of {', '.join(data.FACTIONS)}, not {text[:20]!r}.")
    return text


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


ATTRIBUTE_CHOICES = tuple((a, a) for a in ATTRIBUTES)


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
        out["stamina_max"] = bounded_int(out["stamina_max"], f"{h.name}'s maximum stamina", 1, 999)
        out["stamina"] = bounded_int(out["stamina"], f"{h.name}'s stamina", STAMINA_FLOOR, out["stamina_max"])
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
            out[entry_key(h, i, "h")] = h
    return out


def _helper_changed(h: Hireling, state: Mapping[str, Any]) -> Hireling:
    if h.id is None:
        raise RulesError(f"{h.name} is not saved on the sheet yet.")
    return _replace(h, state=dict(state))


HIRE_KINDS = ("retainer", *data.HIRELINGS)
