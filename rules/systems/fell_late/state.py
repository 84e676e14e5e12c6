"""Fell (late): the state's shape, its validation and the small helpers every other module shares."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from rules.base import RulesError, Sheet, sheet_state
from rules.data import fell_late as data
from rules.dice import LADDER, Overflow, ladder_index
from rules.errors import Settled
from rules.validation import boolean, bounded_int, bounded_text, name_list

ATTRIBUTES: tuple[str, ...] = data.ATTRIBUTES
OVERFLOW: Overflow = "advantage"  # seed 001, Dice Ladder: a step past d12 becomes advantage
DN_DEFAULT = 4  # seed 001, Tests: "usually 4"
DN_MIN, DN_MAX = 1, 20
SHIFT_MAX = 5  # steps or extra dice one person may add by hand to one roll
HARM_MAX = 100
MAX_ARMOUR = 3  # seed 001, Armor: "can never be increased beyond 3"
COINS_PER_SLOT = 100  # seed 001, Item Slots
COINS_MAX = 10_000_000
HOARD_MAX = 100_000_000
HP_MAX = 999
RANKS: tuple[str, ...] = ("", *(rank for _, rank, _, _ in data.THRESHOLDS))
HIRE_RANKS: tuple[str, ...] = tuple(data.HIRELING_FEES)
DRAWBACKS: dict[str, str] = {
    "side_effect": "an unintended side effect",
    "lessened": "the spell is lessened",
    "wil_impaired": "WIL impaired until dawn",
    "locked": "this spell cannot be cast again until dawn",
}
LEGEND_CHOICES = ("", "retire", "carry_on")


def default_state() -> dict[str, Any]:
    return {
        "attributes": {a: {"die": 6, "original": 6} for a in ATTRIBUTES},
        "hp": 3,
        "hp_max": 3,
        "skills": [],
        "spells": [],
        "coins": 0,
        "hoard": 0,
        "advances": 0,  # hoard thresholds reached, in order (0-6)
        "legend_choice": "",
        "fatigue": 0,
        "deprived": False,
        "days_deprived": 0,
        "out": False,  # taken out of the fight by critical harm: dies without treatment
        "dead": False,
        "wil_impaired": False,  # a hurried casting's drawback, until dawn
        "locked_spells": [],  # spells that cannot be cast again until dawn
        "drawbacks": [],  # what failed hurried castings cost, each {"spell", "kind", "until"}
        "pending_drawback": "",  # a hurried casting failed: the spell whose drawback the caster has yet to choose
        "background": "",
        "age": 0,
        "alignment": "",
        "drive": "",
        "traits": [],
        "hireling": False,
        "hire_rank": "",
        "paid_up": False,
        "fees_paid": 0,
    }


def _die(value: Any, label: str) -> int:
    if isinstance(value, bool) or value not in LADDER:
        raise RulesError(f"{label} must be one of {', '.join(f'd{s}' for s in LADDER)}.")
    return int(value)


def _drawback(entry: Any) -> dict[str, str]:
    if not isinstance(entry, Mapping) or set(entry) != {"spell", "kind", "until"}:
        raise RulesError("Each spell drawback names its spell, its kind and when it ends.")
    kind = entry["kind"]
    if kind not in DRAWBACKS:
        raise RulesError(f"A spell drawback is one of {', '.join(DRAWBACKS)}.")
    until = entry["until"]
    if until not in ("dawn", "this casting"):
        raise RulesError("A spell drawback ends at dawn or with its casting.")
    return {
        "spell": bounded_text(entry["spell"], "A drawback's spell", 100, required=True),
        "kind": kind,
        "until": until,
    }


def _choice(value: Any, label: str, allowed: tuple[str, ...]) -> str:
    if value not in allowed:
        raise RulesError(f"{label} is one of {', '.join(a or 'none' for a in allowed)}.")
    return str(value)


def validate_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A normalised copy of a Fell (late) sheet, or RulesError with a sentence saying what is wrong."""
    if not isinstance(state, Mapping):
        raise RulesError("A Fell sheet must be a set of named fields.")
    base = default_state()
    unknown = sorted(str(k) for k in set(state) - set(base))
    if unknown:
        raise RulesError(f"A Fell (late) sheet has no field {', '.join(unknown)}.")
    merged = {**base, **copy.deepcopy(dict(state))}
    attrs = merged["attributes"]
    if not isinstance(attrs, Mapping) or set(attrs) != set(ATTRIBUTES):
        raise RulesError("A Fell (late) sheet needs exactly the attributes STR, DEX, INT and WIL.")
    out: dict[str, Any] = {"attributes": {}}
    for a in ATTRIBUTES:
        entry = attrs[a]
        if not isinstance(entry, Mapping) or "die" not in entry:
            raise RulesError(f"{a} needs a die.")
        die = _die(entry["die"], f"The {a} die")
        original = _die(entry.get("original", die), f"The original {a} die")
        if original < die:
            raise RulesError(f"The {a} die cannot be above its original d{original}; raise the original instead.")
        out["attributes"][a] = {"die": die, "original": original}
    out["hp_max"] = bounded_int(merged["hp_max"], "Maximum HP", 0, HP_MAX)
    out["hp"] = bounded_int(merged["hp"], "HP", 0, out["hp_max"])
    out["skills"] = name_list(merged["skills"], "Skills", 12)
    out["spells"] = name_list(merged["spells"], "Spells", 12)
    out["coins"] = bounded_int(merged["coins"], "Coin", 0, COINS_MAX)
    out["hoard"] = bounded_int(merged["hoard"], "Hoard", 0, HOARD_MAX)
    out["advances"] = bounded_int(merged["advances"], "Thresholds reached", 0, len(data.THRESHOLDS))
    if out["hoard"] < (data.THRESHOLDS[out["advances"] - 1][0] if out["advances"] else 0):
        raise RulesError("The hoard is below the last threshold reached.")
    out["legend_choice"] = _choice(merged["legend_choice"], "The legend's choice", LEGEND_CHOICES)
    out["fatigue"] = bounded_int(merged["fatigue"], "Fatigue", 0, 1000)
    out["deprived"] = boolean(merged["deprived"], "Deprived")
    out["days_deprived"] = bounded_int(merged["days_deprived"], "Days deprived", 0, 1000)
    out["out"] = boolean(merged["out"], "Taken out")
    out["dead"] = boolean(merged["dead"], "Dead")
    out["wil_impaired"] = boolean(merged["wil_impaired"], "WIL impaired until dawn")
    out["locked_spells"] = name_list(merged["locked_spells"], "Spells locked until dawn", 12)
    drawbacks = merged["drawbacks"]
    if not isinstance(drawbacks, list | tuple) or len(drawbacks) > 50:
        raise RulesError("Spell drawbacks must be a short list.")
    out["drawbacks"] = [_drawback(d) for d in drawbacks]
    out["pending_drawback"] = bounded_text(merged["pending_drawback"], "The spell awaiting a drawback", 100)
    out["background"] = bounded_text(merged["background"], "Background", 100)
    out["age"] = bounded_int(merged["age"], "Age", 0, 1000)
    out["alignment"] = bounded_text(merged["alignment"], "Alignment", 40)
    out["drive"] = bounded_text(merged["drive"], "Drive", 200)
    out["traits"] = name_list(merged["traits"], "Traits", 20)
    out["hireling"] = boolean(merged["hireling"], "Hireling")
    out["hire_rank"] = _choice(merged["hire_rank"], "A hireling's rank", ("", *HIRE_RANKS))
    out["paid_up"] = boolean(merged["paid_up"], "Paid up")
    out["fees_paid"] = bounded_int(merged["fees_paid"], "Fees paid", 0, COINS_MAX)
    return out


def st(sheet: Sheet) -> dict[str, Any]:
    return sheet_state(sheet, validate_state)


def die_of(state: Mapping[str, Any], attribute: str) -> int:
    return int(state["attributes"][attribute]["die"])


def face(state: Mapping[str, Any], attribute: str) -> int:
    """An attribute read as a number: the highest face of its die (spec §001.11.4 [REC])."""
    return die_of(state, attribute)


def step(sides: int, steps: int) -> int | None:
    """A die moved along d4..d12 with no overflow: None below d4, held at d12."""
    rung = ladder_index(sides) + steps
    if rung < 0:
        return None
    return LADDER[min(rung, len(LADDER) - 1)]


def rank(state: Mapping[str, Any]) -> str:
    return RANKS[state["advances"]]


def next_threshold(state: Mapping[str, Any]) -> tuple[int, str, bool, bool] | None:
    n = state["advances"]
    return data.THRESHOLDS[n] if n < len(data.THRESHOLDS) else None


def can_act(state: Mapping[str, Any]) -> None:
    if state["dead"]:
        raise Settled("The dead make no more rolls.")
    if state["out"]:
        raise RulesError("Taken out of the fight: nothing more until someone treats them.")
