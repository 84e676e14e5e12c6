"""Export a character as a versioned JSON document, and import one back into an identical character."""

from __future__ import annotations

import json
from typing import Any

from django.db import transaction

from accounts.names import clean_name
from characters.models import Character, Hireling, Item
from characters.services import _record
from rules import RulesError, system_for

FORMAT = "lantern-character"
FORMAT_VERSION = 1
ITEM_FIELDS = ("name", "kind", "slots", "quantity", "worn", "data")


def export_character(character: Character) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "system": character.system,
        "name": character.name,
        "state": character.state,
        "items": [{field: getattr(item, field) for field in ITEM_FIELDS} for item in character.items.all()],
        "hirelings": [
            {"name": h.name, "kind": h.kind, "state": h.state, "wage": h.wage} for h in character.hirelings.all()
        ],
    }


def parse_document(raw: bytes) -> dict[str, Any]:
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RulesError("That file is not a Lantern character: it is not JSON.") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RulesError("That file is not a Lantern character.")
    if document.get("format_version") != FORMAT_VERSION:
        raise RulesError(
            f"That character file is format {document.get('format_version')!r}; "
            f"this Lantern reads format {FORMAT_VERSION}."
        )
    return document


@transaction.atomic
def import_character(*, owner, document: dict[str, Any]) -> Character:
    """Everything is checked before anything is written; a bad document creates nothing."""
    rules = system_for(str(document.get("system", "")))
    name = document.get("name")
    if not isinstance(name, str) or not clean_name(name):
        raise RulesError("The character in that file has no name.")
    state = rules.validate_state(_mapping(document.get("state"), "state"))
    items = [_item(row, n) for n, row in enumerate(_list(document.get("items"), "items"))]
    hirelings = [_hireling(row) for row in _list(document.get("hirelings"), "hirelings")]
    character = Character.objects.create(owner=owner, system=rules.id, name=clean_name(name)[:100], state=state)
    Item.objects.bulk_create([Item(character=character, position=n, **fields) for n, fields in enumerate(items)])
    Hireling.objects.bulk_create([Hireling(character=character, **fields) for fields in hirelings])
    _record(character, by=owner, what="Imported from a file")
    return character


def _mapping(value, what: str) -> dict:
    if not isinstance(value, dict):
        raise RulesError(f"The file's {what} is damaged.")
    return value


def _list(value, what: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 500:
        raise RulesError(f"The file's {what} are damaged.")
    return value


def _item(row, position: int) -> dict[str, Any]:
    row = _mapping(row, "items")
    name = row.get("name")
    slots, quantity = row.get("slots", 1), row.get("quantity", 1)
    if not isinstance(name, str) or not clean_name(name):
        raise RulesError(f"Item {position + 1} in the file has no name.")
    if row.get("kind", "gear") not in Item.Kind.values:
        raise RulesError(f"{name}: Lantern has no kind of item called {row.get('kind')!r}.")
    if not (isinstance(slots, int) and 0 <= slots <= 20 and isinstance(quantity, int) and 1 <= quantity <= 10_000):
        raise RulesError(f"{name}: its slots or quantity are out of range.")
    return {
        "name": clean_name(name)[:100],
        "kind": row.get("kind", "gear"),
        "slots": slots,
        "quantity": quantity,
        "worn": bool(row.get("worn", False)),
        "data": _mapping(row.get("data", {}), "item data"),
    }


def _hireling(row) -> dict[str, Any]:
    row = _mapping(row, "hirelings")
    name, kind, wage = row.get("name"), row.get("kind", "hireling"), row.get("wage", 0)
    if not isinstance(name, str) or not clean_name(name) or kind not in Hireling.Kind.values:
        raise RulesError("A hireling in the file is damaged.")
    if not isinstance(wage, int) or not 0 <= wage <= 1_000_000:
        raise RulesError(f"{name}: the wage is out of range.")
    return {
        "name": clean_name(name)[:100],
        "kind": kind,
        "state": _mapping(row.get("state", {}), "hireling"),
        "wage": wage,
    }
