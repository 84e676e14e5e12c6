"""Shared checks for the numbers a sheet stores: bounded whole numbers, yes/no, dice on a ladder, short text.

Every system validates its item data and hireling state with these, so one bound means the same thing
everywhere and a refusal always reads as a sentence naming the field. Nothing here knows a game's rules:
each system passes its own bounds (a d4-d12 ladder, at most 3 protection, 6 AV...).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from rules.errors import RulesError

NAME_MAX = 100  # an item's or a hireling's name, as the app stores it
TEXT_MAX = 300  # a note on an item
LIST_MAX = 100  # names in one list (a grimoire's spells, a hireling's kit)
SLOTS_MAX = 20  # one row of gear: more than any rules text's bulkiest thing
QUANTITY_MAX = 10_000  # one row's count (arrows, coins, rations)
WAGE_MAX = 1_000_000  # per day, in the smallest coin
COST_MAX = 100_000_000  # a price, in the smallest coin: the biggest purse any system keeps (C&C's)

# Item kinds the app knows (characters.models.Item.Kind); a system may use any of them.
ITEM_KINDS: frozenset[str] = frozenset(
    {
        "weapon",
        "armour",
        "shield",
        "helmet",
        "gear",
        "ration",
        "light",
        "ammo",
        "spellbook",
        "treasure",
        "coins",
        "animal",
        "vehicle",
        "service",
        "other",
    }
)
HIRELING_KINDS: frozenset[str] = frozenset({"hireling", "retainer", "helper"})


def bounded_int(value: Any, label: str, low: int, high: int) -> int:
    """A whole number (not a yes/no) between ``low`` and ``high``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{label} must be a whole number, not {_shown(value)}.")
    if not low <= value <= high:
        raise RulesError(f"{label} must be between {low} and {high}, not {_shown(value)}.")
    return value


def boolean(value: Any, label: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{label} must be yes or no (true or false), not {_shown(value)}.")
    return value


def die_on(value: Any, label: str, ladder: Sequence[int]) -> int:
    """A die size that is one rung of ``ladder`` (e.g. 4, 6, 8, 10, 12)."""
    if isinstance(value, bool) or not isinstance(value, int) or value not in ladder:
        sizes = ", ".join(f"d{s}" for s in ladder)
        raise RulesError(f"{label} must be one of {sizes}, not {_shown(value)}.")
    return value


def bounded_text(value: Any, label: str, limit: int = TEXT_MAX, *, required: bool = False) -> str:
    if not isinstance(value, str):
        raise RulesError(f"{label} must be text, not {_shown(value)}.")
    text = value.strip()
    if required and not text:
        raise RulesError(f"{label} cannot be empty.")
    if len(text) > limit:
        raise RulesError(f"{label} is {len(text)} characters long; at most {limit}.")
    return text


def bounded_list(value: Any, label: str, limit: int = LIST_MAX, text_limit: int = NAME_MAX) -> list[str]:
    """A list of short names, at most ``limit`` of them."""
    if not isinstance(value, list | tuple):
        raise RulesError(f"{label} must be a list of names, not {_shown(value)}.")
    if len(value) > limit:
        raise RulesError(f"{label} holds {len(value)} entries; at most {limit}.")
    return [bounded_text(v, f"{label}: each entry", text_limit, required=True) for v in value]


def name_list(value: Any, label: str, limit: int = LIST_MAX, text_limit: int = NAME_MAX) -> list[str]:
    """A sheet's list of names (skills, spells, traits): stripped, each once, each cut to ``text_limit``."""
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RulesError(f"{label} must be a list of names.")
    out: list[str] = []
    for v in value:
        name = v.strip()[:text_limit]
        if name not in out:
            out.append(name)
    if len(out) > limit:
        raise RulesError(f"{label}: at most {limit}.")
    return out


Check = Callable[[Any, str], Any]


def fields(data: Any, what: str, checks: Mapping[str, tuple[str, Check]]) -> dict[str, Any]:
    """Check each known key of ``data`` with its check; unknown keys are refused, naming them.

    ``checks`` maps a key to (the words a person reads for it, a check taking the value and those words).
    Refusing rather than dropping an unknown key keeps a typo ("damge") from silently disarming a weapon.
    """
    if not isinstance(data, Mapping):
        raise RulesError(f"{what} must be a set of named numbers, not {_shown(data)}.")
    unknown = sorted(str(k) for k in data if k not in checks)
    if unknown:
        known = ", ".join(sorted(checks))
        raise RulesError(f"{what} has no field {', '.join(_shown(k, 40) for k in unknown)} (it knows {known}).")
    return {key: checks[key][1](value, f"{what}: {checks[key][0]}") for key, value in data.items()}


def item_basics(name: Any, kind: Any, slots: Any, quantity: Any) -> tuple[str, str, int, int]:
    """What every system asks of an inventory row: a short name, a kind the app knows, sane counts."""
    clean_name = bounded_text(name, "An item's name", NAME_MAX, required=True)
    if kind not in ITEM_KINDS:
        raise RulesError(f"{clean_name}: Lantern has no kind of item called {_shown(kind, 40)}.")
    return (
        clean_name,
        kind,
        bounded_int(slots, f"{clean_name}: slots", 0, SLOTS_MAX),
        bounded_int(quantity, f"{clean_name}: quantity", 1, QUANTITY_MAX),
    )


def hireling_basics(name: Any, kind: Any, wage: Any, upfront: Any) -> tuple[str, str, int, int]:
    clean_name = bounded_text(name, "A hireling's name", NAME_MAX, required=True)
    if kind not in HIRELING_KINDS:
        raise RulesError(f"{clean_name}: Lantern has no kind of helper called {_shown(kind, 40)}.")
    return (
        clean_name,
        kind,
        bounded_int(wage, f"{clean_name}: wage", 0, WAGE_MAX),
        bounded_int(upfront, f"{clean_name}: fee up front", 0, WAGE_MAX),
    )


def _shown(value: Any, limit: int = 20) -> str:
    """A value quoted for a message, cut short: a refusal must not echo a megabyte back."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _int_words(value)
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _int_words(value: int) -> str:
    # str() of a huge int costs quadratic time (and Python refuses past 4,300 digits): describe it instead.
    if abs(value) < 10**18:
        return str(value)
    return f"a number of about {int(value.bit_length() * 0.30103) + 1} digits"
