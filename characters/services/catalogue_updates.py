"""Catalogue edits reaching the characters who hold the item (issue 30).

A character's item is a copy of a catalogue entry's numbers, taken when it was added, and it remembers the entry
and the entry's version (``Item.catalogue_item``, ``Item.catalogue_version``). An admin edit raises the entry's
version; nothing on any sheet changes until staff push the edit (to every holder, or to the holders at chosen
tables) or a GM pulls the edits for their table. Each character's update is an ordinary inventory write: the
item held to the system's rules, the whole sheet checked (a slot count past the carry limit is refused), a new
version, a history entry its player can revert, its open pages updated. A holder whose sheet the edit would
break is skipped, with the rules' reason, and keeps the old copy.

What an update writes: only the fields staff changed in the versions since the copy's (``CatalogueItem.edits``),
set to the entry's values now. A copy's own name, a shield's current AC, its quantity and whether it is worn stay
unless staff changed that very field.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from accounts.names import clean_name
from characters import history, locking, table
from characters.models import CatalogueItem, Character, Item
from characters.services.writes import ITEMS_CHANGE, Written, lock, touch
from rules import RulesError, system_for
from rules import base as rules_base

COPIED_FIELDS = ("name", "kind", "slots")  # besides each key of ``data``, named "data.<key>"


def edit_of(old: CatalogueItem, new: CatalogueItem) -> dict[str, list[Any]]:
    """What an edit changed in the fields copies hold: {"slots": [1, 2], "data.damage": [6, 8]}; a data key
    added or taken out has None on its missing side."""
    changed: dict[str, list[Any]] = {
        name: [getattr(old, name), getattr(new, name)]
        for name in COPIED_FIELDS
        if getattr(old, name) != getattr(new, name)
    }
    for key in dict.fromkeys([*old.data, *new.data]):
        before, after = old.data.get(key), new.data.get(key)
        if before != after or (key in old.data) != (key in new.data):
            changed[f"data.{key}"] = [before, after]
    return changed


def record_edit(old: CatalogueItem, entry: CatalogueItem) -> bool:
    """Before saving an admin edit: a new version, with what it changed, when copies hold any of it."""
    changed = edit_of(old, entry)
    if not changed:
        return False
    entry.version = old.version + 1
    entry.edits = [*(old.edits or []), {"version": entry.version, "changed": changed}]
    return True


def pending_fields(row: Item, entry: CatalogueItem) -> list[str]:
    """The fields staff changed in the versions after the copy's, in the order first changed."""
    since = row.catalogue_version or 1
    fields: dict[str, None] = {}
    for edit in entry.edits or []:
        if edit.get("version", 0) > since:
            fields.update(dict.fromkeys(edit.get("changed", {})))
    return list(fields)


@dataclass(frozen=True)
class FieldChange:
    """One field of a copy an update changes, as people read it: "damage: 6 → 8"."""

    field: str
    before: str
    after: str

    def __str__(self) -> str:
        return f"{self.field}: {self.before} → {self.after}"


def updated_copy(row: Item, entry: CatalogueItem) -> rules_base.Item:
    """The copy with the fields staff changed since its version set to the entry's values now."""
    values: dict[str, Any] = {name: getattr(row, name) for name in COPIED_FIELDS}
    data = dict(row.data)
    for name in pending_fields(row, entry):
        if name.startswith("data."):
            key = name.removeprefix("data.")
            if key in entry.data:
                data[key] = entry.data[key]
            else:
                data.pop(key, None)
        elif name in values:
            values[name] = getattr(entry, name)
    name = clean_name(values["name"])[:100] or row.name
    kind, slots, quantity = values["kind"], values["slots"], row.quantity
    return rules_base.Item(name=name, kind=kind, slots=slots, quantity=quantity, data=data, worn=row.worn, id=row.pk)


def changes_of(row: Item, entry: CatalogueItem) -> tuple[FieldChange, ...]:
    """Each field an update would change on this copy, old → new (a field already at the new value: none), as
    the system's rules hold it (Grit & Flesh sets a weapon's slots by its hands)."""
    new = updated_copy(row, entry)
    with contextlib.suppress(RulesError):  # a copy the rules refuse keeps its raw numbers: the refusal says why
        new = system_for(entry.system).validate_item(new)
    out = [
        FieldChange(name, history.shown(getattr(row, name)), history.shown(getattr(new, name)))
        for name in COPIED_FIELDS
        if getattr(row, name) != getattr(new, name)
    ]
    for key in dict.fromkeys([*row.data, *new.data]):
        if row.data.get(key, history.ABSENT) != new.data.get(key, history.ABSENT):
            out.append(FieldChange(str(key), history.shown(row.data.get(key)), history.shown(new.data.get(key))))
    return tuple(out)


def is_behind(row: Item, entry: CatalogueItem) -> bool:
    """The copy was taken from an older version of the entry."""
    return (row.catalogue_version or 1) < entry.version


def problem_with(character: Character, rows: Sequence[Item], entries: Mapping[int | None, CatalogueItem]) -> str:
    """Why the update would break this sheet (the rules' sentence), or "" when it fits. Reads the character's
    prefetched items and hirelings: the same checks as the write (item bounds, then the whole sheet)."""
    rules = system_for(character.system)
    changed = {row.pk: updated_copy(row, entries[row.catalogue_item_id]) for row in rows}
    try:
        held = character.items.all()
        items = tuple(rules.validate_item(changed[row.pk]) if row.pk in changed else row.to_rules() for row in held)
        sheet = character.to_sheet(items=(), hirelings=character.hirelings.all())
        rules.validate_sheet(replace(sheet, items=items))
    except RulesError as problem:
        return str(problem)
    return ""


@dataclass
class Holding:
    """One character holding copies of catalogue entries that are behind: what an update would change on each
    copy, and why it would be refused ("" if it fits)."""

    character: Character
    rows: list[tuple[Item, tuple[FieldChange, ...]]] = field(default_factory=list)
    problem: str = ""

    @property
    def campaign(self):
        return self.character.campaign

    @property
    def summary(self) -> str:
        return "; ".join(
            f"{row.name}: " + (", ".join(str(c) for c in changes) if changes else "same numbers, newer version")
            for row, changes in self.rows
        )


def holdings(characters: Iterable[Character], entries: Sequence[CatalogueItem]) -> list[Holding]:
    """The characters (items and hirelings prefetched, campaign selected) holding copies of ``entries`` that are
    behind, with the changes and any refusal: what the admin and the GM's page preview."""
    by_id: dict[int | None, CatalogueItem] = {entry.pk: entry for entry in entries}
    out = []
    for character in characters:
        behind = [
            row
            for row in character.items.all()
            if row.catalogue_item_id in by_id and is_behind(row, by_id[row.catalogue_item_id])
        ]
        if behind:
            holding = Holding(character, [(row, changes_of(row, by_id[row.catalogue_item_id])) for row in behind])
            holding.problem = problem_with(character, behind, by_id)
            out.append(holding)
    return out


def holders_of(entry: CatalogueItem, campaign_ids: Iterable[int] | None = None):
    """Every character holding a copy of the entry (optionally only at these tables), ready for ``holdings``."""
    characters = Character.objects.filter(items__catalogue_item=entry)
    if campaign_ids is not None:
        characters = characters.filter(campaign_id__in=list(campaign_ids))
    return (
        characters.distinct()
        .select_related("campaign", "owner")
        .prefetch_related("items", "hirelings")
        .order_by("campaign__name", "name", "pk")
    )


@dataclass
class PushReport:
    """What a push did: the characters brought up to date, and those skipped with the reason."""

    updated: list[Character] = field(default_factory=list)
    skipped: list[tuple[Character, str]] = field(default_factory=list)


def _refresh(character_id: int, entry_ids: set[int] | None, by: User) -> Written | None:
    """One character's copies of these entries (all entries: None) brought up to date, as one inventory write:
    locked, each copy held to the rules, the whole sheet checked, one history entry, its pages updated. None when
    nothing was behind. A RulesError rolls this character's write back."""
    character = lock(character_id)
    rows = character.items.filter(catalogue_item__isnull=False).select_related("catalogue_item")
    if entry_ids is not None:
        rows = rows.filter(catalogue_item_id__in=entry_ids)
    rules = system_for(character.system)
    before: list[dict[str, Any]] = []
    after: list[dict[str, Any]] = []
    names: list[str] = []
    for row in rows:
        entry = row.catalogue_item
        assert entry is not None  # filtered above
        if not is_behind(row, entry):
            continue
        changes = changes_of(row, entry)
        if not changes:  # the numbers are already the entry's: only the version it is marked with moves
            Item.objects.filter(pk=row.pk).update(catalogue_version=entry.version)
            continue
        before.append(history.item_snapshot(row))
        new = rules.validate_item(updated_copy(row, entry))
        row.name, row.kind, row.slots, row.data = new.name, new.kind, new.slots, dict(new.data)
        row.catalogue_version = entry.version
        row.save(update_fields=["name", "kind", "slots", "data", "catalogue_version"])
        after.append(history.item_snapshot(row))
        names.append(f"{row.name} ({', '.join(str(c) for c in changes)})")
    if not after:
        return None
    what = "Catalogue update: " + "; ".join(names)
    return touch(character, ITEMS_CHANGE, by=by, what=what, before={"items": before}, after={"items": after})


def push(character_ids: Iterable[int], by: User, entry_ids: set[int] | None = None) -> PushReport:
    """Each character's update in its own transaction (a refusal skips that character alone, with the reason;
    no row lock is held across characters)."""
    report = PushReport()
    for character_id in sorted(set(character_ids)):
        try:
            with transaction.atomic():
                written = _refresh(character_id, entry_ids, by)
        except locking.Gone:
            continue
        except RulesError as problem:
            character = Character.objects.filter(pk=character_id).first()
            if character is not None:
                report.skipped.append((character, str(problem)))
            continue
        if written is not None:
            report.updated.append(written.character)
    return report


def push_entry(*, entry_id: int, by: User, campaign_ids: Iterable[int] | None = None) -> PushReport:
    """Staff push an entry's edit to its holders: all of them (``campaign_ids`` None) or those at these tables."""
    if not (by.is_staff and by.has_perm("characters.change_catalogueitem")):
        raise RulesError("Only staff who edit the catalogue push its changes.")
    entry = CatalogueItem.objects.filter(pk=entry_id).first()
    if entry is None:
        raise RulesError("That catalogue entry is gone.")
    holders = Character.objects.filter(items__catalogue_item=entry)
    if campaign_ids is not None:
        holders = holders.filter(campaign_id__in=list(campaign_ids))
    return push(holders.values_list("pk", flat=True), by, {entry.pk})


def behind_at_table(campaign) -> tuple[list[Holding], list[CatalogueItem]]:
    """The table's characters with copies behind their catalogue entries, for the GM's page."""
    characters = list(
        Character.objects.filter(campaign=campaign)
        .select_related("campaign", "owner")
        .prefetch_related("items__catalogue_item", "hirelings")
        .order_by("name", "pk")
    )
    entries = {
        row.catalogue_item_id: row.catalogue_item
        for character in characters
        for row in character.items.all()
        if row.catalogue_item is not None
    }
    listed = list(entries.values())
    return holdings(characters, listed), listed


def pull_for_table(*, campaign, by: User) -> PushReport:
    """The GM brings their table's copies up to date with the catalogue (every entry their characters hold)."""
    if not table.is_gm(by, campaign.pk):
        raise RulesError("Only the table's GM brings its items up to date.")
    ids = Character.objects.filter(campaign=campaign, items__catalogue_item__isnull=False).values_list("pk", flat=True)
    return push(ids, by)
