"""Every write to a character goes through here: locked, validated by the rules, logged, announced.

Read-modify-write runs under ``select_for_update`` inside ``transaction.atomic`` (SQLite takes the
write lock at BEGIN: transaction_mode=IMMEDIATE), so two people clicking at once lose nothing.

This module is the write core every feature's writes share; the features live beside it. Every character write
is one pipeline, each step in turn:

1. **lock**, in the app's one order (``characters.locking``): ``lock`` for one character;
2. **rules**: the feature's own (what a roll, an item, a hireling changes), refusing with a ``RulesError``;
3. ``save_state`` (a new state) or ``touch`` (anything else), which both end in ``commit``: the **whole
   sheet** checked, a new **version**, the **history**'s entry, the regions **announced** on commit;
4. the caller gets a ``Written`` back: what the write changed, for its answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.contrib.auth.models import User
from django.db.models import Max

from accounts.names import clean_name
from characters import history, locking, table
from characters.models import Change, Character, Item
from live.events import SheetChanged
from live.journal import record
from rules import RulesError, system_for
from rules import base as rules_base

MAX_ITEMS = 500  # a sanity bound: no sheet needs more rows, and it keeps pages fast


class StaleVersion(RulesError):
    """The form was made from an older version of the sheet than the one stored."""


# What each kind of change shows in, on an open sheet: only these regions are drawn and pushed to its open pages
# (campaigns/push.py), and the page that made the change gets them in its answer.
TRACK_CHANGE = ("vitals", "details")
STATE_CHANGE = ("vitals", "details", "hirelings")  # hireling limits and hire forms read the state
ITEMS_CHANGE = ("inventory", "vitals", "details")
HIRELINGS_CHANGE = ("hirelings", "odds")  # procedures offer the hirelings as choices
NAME_CHANGE = ("details",)
OFFERS_CHANGE = ("offers",)  # an offer made, applied or declined (applied: the state's regions too)


@dataclass(frozen=True)
class Written:
    """What one write changed, returned to its caller: the view answers with these regions and offers this
    change's Undo, reading nothing back. ``character``: the row as the write left it (read under its lock);
    ``regions``: the regions of its sheet the write announced; ``change``: the history entry it made (None: it
    kept none); ``row``: what else the write made or changed, when there is one (the item, the hireling, the
    roll); ``sheet``: the whole sheet as the write checked it (None: unchecked, a removal's), so its answer draws
    it without validating it again."""

    character: Character
    regions: frozenset[str]
    change: Change | None
    row: Any = None
    sheet: rules_base.Sheet | None = None

    def adding(self, regions: Iterable[str] = (), *, row: Any = None) -> Written:
        """This result, with more regions announced (the roll's log) and the row the write made."""
        return replace(self, regions=self.regions | frozenset(regions), row=self.row if row is None else row)


def announce_regions(character: Character, regions: tuple[str, ...], *, by: Any = None) -> None:
    """Have the open pages of the table shown what changed: the sheet's regions, and the character's card. ``by``:
    whose write it is (the journal's entry names them when this is the write's first record)."""
    record(character.campaign_id, SheetChanged(character=character.pk, regions=tuple(regions)), by=by)


def _state_regions(character: Character, old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[str, ...]:
    changed = {key for key in set(old) | set(new) if old.get(key) != new.get(key)}
    tracks = {track.key for track in system_for(character.system).tracks(character.to_sheet(items=(), hirelings=()))}
    return TRACK_CHANGE if changed <= tracks else STATE_CHANGE


def _check_whole_sheet(character: Character, read: rules_base.Sheet | None = None) -> rules_base.Sheet:
    """After every write, whatever made it: the sheet as it now stands must keep every rule of its system
    (carry limit, bounds). A RulesError here rolls the whole write back.

    ``read``: the sheet the write read under its lock, when only the state changed since: its items and
    hirelings are still those of the database, so they are not read twice."""
    sheet = character.to_sheet() if read is None else replace(read, state=character.state)
    return system_for(character.system).validate_sheet(sheet)


def record_change(
    character: Character,
    *,
    by: User,
    what: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    reverts: Change | None = None,
    reason: str = "",
    roll: Any = None,
) -> Change:
    return Change.objects.create(
        character=character,
        by=by,
        what=what[:200],
        version=character.version,
        before=dict(before or {}),
        after=dict(after or {}),
        reverts=reverts,
        reason=reason[:200],
        roll_id=getattr(roll, "pk", roll),  # a Roll, or its id (an offer names its roll by id)
    )


def lock(character_id: int, *, with_rows: bool = False) -> Character:
    """The character, locked for the write (in the app's one order: characters.locking), with its campaign (not
    locked: its rule settings go into every sheet the rules read); ``locking.Gone`` if it was deleted meanwhile.
    ``with_rows``: its items and hirelings read along (prefetched), for a write that changes only the state: the
    answer then shows them without reading them again."""
    return locking.lock_character(character_id, with_rows=with_rows)


def check_version(character: Character, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != character.version:
        raise StaleVersion(
            "Someone changed this sheet while you were editing it. It now shows the latest numbers: "
            "check them and try again."
        )


def save_state(
    character: Character,
    state: Mapping[str, Any],
    *,
    by: User,
    what: str,
    also: tuple[str, ...] = (),
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    read: rules_base.Sheet | None = None,
    **record: Any,
) -> Written:
    """Write a new state; the history keeps each field it changed (plus ``before``/``after`` of other parts).

    ``read``: the sheet read under the lock, if nothing but the state changes (see ``_check_whole_sheet``)."""
    old = character.state
    # The whole sheet checked once, here: its state comes back normalised (validate_sheet validates it first).
    character.state = dict(state)
    checked = _check_whole_sheet(character, read)
    character.state = checked.state
    old_fields, new_fields = history.state_diff(old, character.state)
    before = {**(before or {}), **({"state": old_fields} if old_fields or new_fields else {})}
    after = {**(after or {}), **({"state": new_fields} if old_fields or new_fields else {})}
    regions = tuple(dict.fromkeys(_state_regions(character, old, character.state) + also))
    return commit(
        character, regions, by=by, what=what, checked=checked, saving=("state",), before=before, after=after, **record
    )


def touch(
    character: Character, regions: tuple[str, ...], *, by: User, what: str, check: bool = True, **record: Any
) -> Written:
    """A change outside ``state`` (items, hirelings, name): still a new version, checked, logged, announced.

    ``check=False`` only for removals, which can break no rule and must stay possible on a broken sheet.
    ``record``: what the history keeps (``before``, ``after``; a revert's ``reverts`` and ``reason``).
    """
    return commit(character, regions, by=by, what=what, check=check, **record)


def commit(
    character: Character,
    regions: tuple[str, ...],
    *,
    by: User,
    what: str,
    check: bool = True,
    read: rules_base.Sheet | None = None,
    checked: rules_base.Sheet | None = None,
    saving: tuple[str, ...] = (),
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    **record: Any,
) -> Written:
    """The pipeline's steps after the write's own rules, the same for every character write (see the module's
    docstring): the whole sheet checked, a new version saved (with ``saving``, the columns the write changed
    and has not saved), the history's entry, the regions announced (sent once the transaction commits).
    ``checked``: the whole sheet checked already (``save_state``'s), not checked again."""
    if checked is None and check:
        checked = _check_whole_sheet(character, read)
    character.version += 1
    character.save(update_fields=[*saving, "version", "updated_at"])
    change = record_change(character, by=by, what=what, before=before, after=after, **record)
    announce_regions(character, regions, by=by)
    table.sheet_written(character.campaign_id, before, after)  # a torch lit, put out, taken or dropped
    return Written(character, frozenset(regions), change, sheet=checked)


def item_row(character: Character, item: rules_base.Item, position: int, catalogue_item=None) -> Item:
    rules = system_for(character.system)
    item = rules.validate_item(item)  # every new row: bounded by the rules
    return Item(
        character=character,
        catalogue_item=catalogue_item,
        catalogue_version=None if catalogue_item is None else catalogue_item.version,
        name=clean_name(item.name)[:100] or "Item",
        kind=item.kind if item.kind in Item.Kind.values else Item.Kind.OTHER,
        slots=max(0, int(item.slots)),
        quantity=max(1, int(item.quantity)),
        worn=item.worn,
        data=dict(item.data),
        data_version=rules.item_version,  # in today's shape (rows made in bulk are not stamped by save())
        position=position,
    )


def next_position(character: Character) -> int:
    return (character.items.aggregate(top=Max("position"))["top"] or 0) + 1


def check_room(character: Character, adding: int = 1) -> None:
    """Every path that adds item rows stops at the cap: no sheet needs more, and pages stay fast."""
    if character.items.count() + adding > MAX_ITEMS:
        raise RulesError(f"A sheet holds at most {MAX_ITEMS} rows of items: drop something first.")
