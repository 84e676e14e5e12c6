"""Export a character as a versioned JSON document, and import one back into an identical character."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from django.db import transaction

from accounts.names import clean_name
from characters import table
from characters.models import NOTES_MAX, Character, Hireling, Item, Roll
from characters.selectors import rolls_visible_to
from characters.services import MAX_HIRELINGS, MAX_ITEMS, check_character_room, record_change
from rules import RulesError, system_for
from rules import base as rules_base

if TYPE_CHECKING:  # a type hint only: characters sit below campaigns
    from campaigns.models import Campaign

FORMAT = "lantern-character"
FORMAT_VERSION = 1
ITEM_FIELDS = ("name", "kind", "slots", "quantity", "worn", "data")

# What a character file can hold, well past any real sheet: a C&C sheet nests 4 deep and a big one has a
# few thousand values. Past these a file is refused before anything reads it further.
MAX_DEPTH = 20
MAX_NODES = 100_000
MAX_TEXT = 10_000  # characters in one string
MAX_DIGITS = 15  # a whole number's digits: Python refuses past 4,300, and no sheet needs more than 9


ROLLS_EXPORTED = 200  # the newest of the character's rolls the file lists (import reads none of them)


def export_character(character: Character, viewer=None) -> dict[str, Any]:
    """The character as a file; with ``viewer``, the rolls of its log that viewer may see, as their log shows them."""
    document = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "system": character.system,
        "name": character.name,
        "state": character.state,
        "state_version": character.state_version,  # the shape of "state": an older file's is upgraded on import
        "notes": character.notes,
        # Each item's "data" and each hireling's "state" with the shape they were saved in, upgraded on import too.
        "items": [
            {**{field: getattr(item, field) for field in ITEM_FIELDS}, "data_version": item.data_version}
            for item in character.items.all()
        ],
        "hirelings": [
            {"name": h.name, "kind": h.kind, "state": h.state, "state_version": h.state_version, "wage": h.wage}
            for h in character.hirelings.all()
        ],
    }
    if viewer is not None:
        document["rolls"] = exported_rolls(character, viewer)
    return document


def exported_rolls(character: Character, viewer) -> list[dict[str, Any]]:
    """The character's rolls this viewer's log shows, newest first: rolled by hand or not, voided or undone; a blind
    roll's result only for the table's GM (its roller's file says it was rolled blind, as their log does)."""
    gm = table.is_gm(viewer, character.campaign_id)
    rows = rolls_visible_to(viewer).filter(character=character).select_related("voided_by")[:ROLLS_EXPORTED]
    return [roll_as_json(roll, gm=gm) for roll in rows]


def roll_as_json(roll: Roll, *, gm: bool, with_odds: bool = False) -> dict[str, Any]:
    """One roll as a log shows it to a viewer who may see it (``rolls_visible_to`` chose the rows): a blind roll's
    result only to the table's GM. Shared by the character file and the API (api.serialize), so they say the same.
    ``with_odds``: the exact odds it was rolled at, where its result is shown."""
    row: dict[str, Any] = {
        "label": roll.label,
        "at": roll.created_at.isoformat(),
        "visibility": roll.visibility,
        "rolled_by_hand": roll.by_hand,
        "undone": roll.undone,
    }
    if roll.visibility == Roll.Visibility.BLIND and not gm:
        row["result"] = "rolled blind: the GM has the result"
    else:
        row.update(outcome=roll.outcome, dice=roll.dice, total=roll.total, summary=roll.summary)
        if with_odds:
            row["odds"] = roll.odds
    if roll.voided_at is not None:
        voided_by = roll.voided_by.username if roll.voided_by is not None else ""
        row["voided"] = {"by": voided_by, "reason": roll.void_reason, "at": roll.voided_at.isoformat()}
    return row


def parse_document(raw: bytes) -> dict[str, Any]:
    """The file as JSON, refused with a sentence if it is not one or holds more than a sheet can."""
    document = read_json(raw, what="character", most=MAX_NODES)
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise RulesError("That file is not a Lantern character.")
    if document.get("format_version") != FORMAT_VERSION:
        raise RulesError(
            f"That character file is format {document.get('format_version')!r}; "
            f"this Lantern reads format {FORMAT_VERSION}."
        )
    return document


def read_json(raw: bytes, *, what: str, most: int) -> Any:
    """A Lantern file (``what``: "character", "campaign") as JSON, within ``most`` values and the bounds on depth,
    numbers and texts: anything else is refused with a sentence before more of it is read."""
    try:
        text = raw.decode("utf-8")  # strict: a lone surrogate encoded in the bytes is a decode error
        document = json.loads(text, parse_int=_whole_number, parse_constant=_no_constant)
    except RecursionError:
        raise RulesError(f"That file nests deeper than a Lantern {what} ever does (at most {MAX_DEPTH}).") from None
    except RulesError:
        raise
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise RulesError(f"That file is not a Lantern {what}: it is not JSON.") from None
    _check_shape(document, what=what, most=most)
    return document


def _whole_number(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise RulesError(
            f"That file holds a number with {len(text.lstrip('-'))} digits; a sheet needs at most {MAX_DIGITS}."
        )
    return int(text)


def _no_constant(name: str) -> float:
    raise RulesError(f"That file holds {name}, which is not a number a sheet can hold.")


def _check_shape(document: Any, *, what: str, most: int) -> None:
    """Depth, size and characters: walked without recursion, so a hostile file cannot exhaust the stack."""
    stack = [(document, 1)]
    nodes = 0
    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > most:
            raise RulesError(f"That file holds more than {most:,} values; a {what} has far fewer.")
        if depth > MAX_DEPTH:
            raise RulesError(f"That file nests deeper than a Lantern {what} ever does (at most {MAX_DEPTH}).")
        if isinstance(value, dict):
            stack.extend((key, depth + 1) for key in value)
            stack.extend((item, depth + 1) for item in value.values())
        elif isinstance(value, list):
            stack.extend((item, depth + 1) for item in value)
        elif isinstance(value, str):
            _check_text(value)


def _check_text(text: str) -> None:
    if len(text) > MAX_TEXT:
        raise RulesError(f"That file holds a text of {len(text):,} characters; a sheet's longest is {MAX_TEXT:,}.")
    if "\x00" in text:
        raise RulesError("That file holds a NUL character, which no sheet can store.")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # "\ud800" escapes decode to lone surrogates, which are not text
        raise RulesError("That file holds a broken character (a lone surrogate); export the sheet again.") from None


@transaction.atomic
def import_character(*, owner, document: dict[str, Any]) -> Character:
    """Everything is checked before anything is written; a bad document creates nothing."""
    check_character_room(owner)
    return save_character(check_character(document), owner=owner, what="Imported from a file")


@dataclass(frozen=True)
class CheckedCharacter:
    """A character read from a file and checked field by field against its system, not yet saved."""

    rules: rules_base.GameSystem
    name: str
    state: dict[str, Any]
    items: list[dict[str, Any]]
    hirelings: list[dict[str, Any]]
    notes: str


def check_character(document: dict[str, Any]) -> CheckedCharacter:
    """A character file's fields through the system's own validation, or RulesError with the sentence to show."""
    rules = system_for(str(document.get("system", "")))
    name = document.get("name")
    if not isinstance(name, str) or not clean_name(name):
        raise RulesError("The character in that file has no name.")
    if len(clean_name(name)) > 100:
        raise RulesError(
            f"The character's name in that file is {len(clean_name(name)):,} characters long; at most 100."
        )
    notes = document.get("notes", "")
    if not isinstance(notes, str) or len(notes) > NOTES_MAX:
        raise RulesError(f"{clean_name(name)}: the notes in that file are damaged or longer than {NOTES_MAX:,}.")
    # A file from before a rule change reshaped the state (no "state_version": version 1) is upgraded first.
    state = rules.validate_state(
        rules.upgrade_state(file_mapping(document.get("state"), "state"), document.get("state_version"))
    )
    # The caps of the sheet's own paths (adding items, hiring), then the rules' own (save_character).
    items = [_item(rules, row, n) for n, row in enumerate(file_list(document.get("items"), "items", MAX_ITEMS))]
    hirelings = [_hireling(rules, row) for row in file_list(document.get("hirelings"), "hirelings", MAX_HIRELINGS)]
    return CheckedCharacter(rules, clean_name(name)[:100], state, items, hirelings, notes)


def save_character(checked: CheckedCharacter, *, owner, what: str, campaign: Campaign | None = None) -> Character:
    """The checked character saved (inside the caller's transaction), then checked whole: or RulesError."""
    character = Character.objects.create(
        owner=owner,
        campaign=campaign,
        system=checked.rules.id,
        name=checked.name,
        state=checked.state,
        notes=checked.notes,
    )
    shapes = {"data_version": checked.rules.item_version}  # upgraded on reading: today's shapes (bulk: no save())
    Item.objects.bulk_create(
        [Item(character=character, position=n, **shapes, **fields) for n, fields in enumerate(checked.items)]
    )
    hired = {"state_version": checked.rules.hireling_version}
    Hireling.objects.bulk_create([Hireling(character=character, **hired, **fields) for fields in checked.hirelings])
    # The whole sheet as any write leaves it (the carry limit binds items to the state), and within what the rules
    # let a character gather (hirelings, spells, shields), which the writes check one at a time: or nothing is saved.
    sheet = checked.rules.validate_sheet(character.to_sheet())
    checked.rules.check_limits(sheet)
    record_change(character, by=owner, what=what)
    return character


def file_mapping(value, what: str) -> dict:
    """A part of a Lantern file that must be a JSON object, or a sentence naming it."""
    if not isinstance(value, dict):
        raise RulesError(f"The file's {what} is damaged.")
    return value


def file_list(value, what: str, most: int, holder: str = "a sheet") -> list:
    """A part of a Lantern file that must be a list of at most ``most`` (absent: empty), or a sentence naming it."""
    if value is None:
        return []
    if not isinstance(value, list):
        raise RulesError(f"The file's {what} are damaged.")
    if len(value) > most:
        raise RulesError(f"The file holds {len(value):,} {what}; {holder} holds at most {most:,}.")
    return value


def _item(rules, row, position: int) -> dict[str, Any]:
    row = file_mapping(row, "items")
    name = row.get("name")
    slots, quantity = row.get("slots", 1), row.get("quantity", 1)
    if not isinstance(name, str) or not clean_name(name):
        raise RulesError(f"Item {position + 1} in the file has no name.")
    if row.get("kind", "gear") not in Item.Kind.values:
        raise RulesError(f"{name}: Lantern has no kind of item called {row.get('kind')!r}.")
    if not (isinstance(slots, int) and 0 <= slots <= 20 and isinstance(quantity, int) and 1 <= quantity <= 10_000):
        raise RulesError(f"{name}: its slots or quantity are out of range.")
    item = rules_base.Item(
        name=clean_name(name),
        kind=row.get("kind", "gear"),
        slots=slots,
        quantity=quantity,
        worn=row.get("worn", False),
        data=rules.upgrade_item_data(file_mapping(row.get("data", {}), "item data"), row.get("data_version")),
    )
    item = rules.validate_item(item)  # the system's bounds: a damage die on its ladder, armour within its cap
    return {field: getattr(item, field) for field in ITEM_FIELDS}


def _hireling(rules, row) -> dict[str, Any]:
    row = file_mapping(row, "hirelings")
    name, kind, wage = row.get("name"), row.get("kind", "hireling"), row.get("wage", 0)
    if not isinstance(name, str) or not clean_name(name) or kind not in Hireling.Kind.values:
        raise RulesError("A hireling in the file is damaged.")
    if not isinstance(wage, int) or not 0 <= wage <= 1_000_000:
        raise RulesError(f"{name}: the wage is out of range.")
    state = rules.upgrade_hireling_state(file_mapping(row.get("state", {}), "hireling"), row.get("state_version"))
    hireling = rules_base.Hireling(name=clean_name(name), kind=kind, state=state, wage=wage)
    hireling = rules.validate_hireling(hireling)
    return {"name": hireling.name, "kind": hireling.kind, "state": dict(hireling.state), "wage": hireling.wage}
