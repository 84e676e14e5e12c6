"""Items on a sheet: added (by hand or from the catalogue, free or bought), changed, dropped."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from accounts.names import clean_name
from characters import history
from characters.models import CatalogueItem, Character, Item
from characters.services.writes import (
    ITEMS_CHANGE,
    STATE_CHANGE,
    Written,
    check_room,
    item_row,
    lock,
    next_position,
    save_state,
    touch,
)
from rules import RulesError, system_for
from rules import base as rules_base


def _check_carry(character: Character, item: rules_base.Item) -> None:
    """Before adding a row: the system's own sentence when it will not fit (the whole-sheet check after the
    write would refuse it too, in more general words)."""
    rules = system_for(character.system)
    rules.check_can_carry(character.checked_sheet(), rules.validate_item(item))


@transaction.atomic
def item_add(
    *, character_id: int, item: rules_base.Item, by: User, catalogue_item: CatalogueItem | None = None
) -> Written:
    """What it wrote; its ``row``: the item row it added or raised the quantity of."""
    character = lock(character_id)
    return _take(character, item, by=by, verb="Added", catalogue_item=catalogue_item)


def _take(
    character: Character,
    item: rules_base.Item,
    *,
    by: User,
    verb: str,
    catalogue_item: CatalogueItem | None = None,
    regions: tuple[str, ...] = ITEMS_CHANGE,
    paid: Mapping[str, Any] | None = None,
    source: str = "",
) -> Written:
    """Put an item on the sheet: raise the quantity of a row it stacks onto (the system says which do: the
    same thing, of a kind whose units are alike), else add a row. One history entry, with what was paid."""
    rules = system_for(character.system)
    item = rules.validate_item(item)
    _check_carry(character, item)
    name = clean_name(item.name)[:100] or "Item"
    candidates = character.items.filter(name=name, kind=item.kind, worn=False)
    held = next((row for row in candidates if rules.stacks(row.to_rules(), replace(item, name=name))), None)
    before: dict[str, Any] = dict((paid or {}).get("before", {}))
    after: dict[str, Any] = dict((paid or {}).get("after", {}))
    if held is None:
        check_room(character)
        row = item_row(character, item, next_position(character), catalogue_item)
        row.save()
    else:
        before["items"] = [history.item_snapshot(held)]
        held.quantity += item.quantity
        rules.validate_item(held.to_rules())  # one row's count stays within the rules' bound
        held.save(update_fields=["quantity"])
        row = held
    after["items"] = [history.item_snapshot(row)]
    what = f"{verb} {row.name}" + (f" ×{item.quantity}" if item.quantity > 1 else "") + source
    return touch(character, regions, by=by, what=what, before=before, after=after).adding(row=row)


def catalogue_to_item(entry: CatalogueItem, quantity: int = 1) -> rules_base.Item:
    """Copy the catalogue's numbers now: a later admin edit reaches the copy only when staff push it or the GM
    pulls it (characters.services.catalogue_updates)."""
    return rules_base.Item(
        name=clean_name(entry.name), kind=entry.kind, slots=entry.slots, quantity=quantity, data=dict(entry.data)
    )


@transaction.atomic
def item_add_from_catalogue(
    *, character_id: int, entry_id: int, by: User, buy: bool = False, quantity: int = 1
) -> Written:
    """Add a catalogue item (free, or bought): its ``row``. A service is paid for and leaves nothing to carry: None."""
    character = lock(character_id)
    entry = CatalogueItem.objects.filter(pk=entry_id, system=character.system, available=True).first()
    if entry is None:
        raise RulesError("That item is not in this system's equipment list.")
    if not 1 <= quantity <= 100:
        raise RulesError("Take between 1 and 100 at a time.")
    if entry.kind == Item.Kind.SERVICE and not buy:
        raise RulesError(f"{entry.name} is a service: buy it, there is nothing to carry.")
    if buy:
        if entry.cost is None:
            raise RulesError(f"{entry.name} has no price: ask your GM, or add it for free.")
        rules = system_for(character.system)
        old_state = character.state
        character.state = rules.pay(character.checked_sheet(), entry.cost * quantity, entry.name)
        character.save(update_fields=["state"])
        spent_before, spent_after = history.state_diff(old_state, character.state)
        paid: dict[str, Any] = {"before": {"state": spent_before}, "after": {"state": spent_after}}
    else:
        paid = {}
    regions = ITEMS_CHANGE + (STATE_CHANGE if buy else ())
    if entry.kind == Item.Kind.SERVICE:
        return touch(character, tuple(dict.fromkeys(regions)), by=by, what=f"Paid for {entry.name}", **paid)
    return _take(
        character,
        catalogue_to_item(entry, quantity),
        by=by,
        verb="Bought" if buy else "Added",
        catalogue_item=entry,
        regions=tuple(dict.fromkeys(regions)),
        paid=paid,
    )


@transaction.atomic
def item_update(*, character_id: int, item_id: int, by: User, **fields) -> Written:
    character = lock(character_id)
    row = character.items.filter(pk=item_id).first()
    if row is None:
        raise RulesError("That item is no longer on this sheet.")
    allowed = {"quantity", "worn", "slots", "name"}
    old = history.item_snapshot(row)
    for key, value in fields.items():
        if key not in allowed:
            raise RulesError(f"Items have no {key} to change.")
        setattr(row, key, clean_name(value)[:100] or row.name if key == "name" else value)
    if row.quantity < 1:
        raise RulesError("Quantity must be at least 1; remove the item instead.")
    system_for(character.system).validate_item(row.to_rules())
    row.save()
    written = touch(  # refused past the carry limit
        character,
        ITEMS_CHANGE,
        by=by,
        what=f"{_item_verb(old['worn'], row.worn)} {row.name}",
        before={"items": [old]},
        after={"items": [history.item_snapshot(row)]},
    )
    return written.adding(row=row)


def _item_verb(was_worn: bool, worn: bool) -> str:
    if worn != was_worn:
        return "Put on" if worn else "Took off"
    return "Changed"


@transaction.atomic
def item_remove(*, character_id: int, item_id: int, by: User) -> Written:
    character = lock(character_id)
    row = character.items.filter(pk=item_id).first()
    if row is None:
        raise RulesError("That item is no longer on this sheet.")
    snapshot = history.item_snapshot(row)
    row.delete()
    return touch(
        character, ITEMS_CHANGE, by=by, what=f"Dropped {snapshot['name']}", check=False, before={"items": [snapshot]}
    )


# --- an item or coins moving between this sheet and somewhere else (the party's stash: campaigns.stash) ----------


@transaction.atomic
def item_receive(
    *, character_id: int, item: rules_base.Item, by: User, source: str, catalogue_item: CatalogueItem | None = None
) -> Written:
    """An item handed to the sheet from elsewhere (``source``: " from the stash", for the history's line): checked
    against the carry limit and the rules' bounds, stacked as ``item_add`` stacks. Its ``row``: the row it landed on."""
    character = lock(character_id)
    return _take(character, item, by=by, verb="Took", catalogue_item=catalogue_item, source=source)


@transaction.atomic
def item_hand_over(*, character_id: int, item_id: int, quantity: int | None, by: User, source: str) -> Written:
    """``quantity`` of one row leaving the sheet for elsewhere (None: all of it; ``source``: " in the stash", for
    the history's line). Its ``row``: what left, as the rules' item; the history's snapshot names its catalogue
    entry."""
    character = lock(character_id)
    row = character.items.filter(pk=item_id).first()
    if row is None:
        raise RulesError("That item is no longer on this sheet.")
    count = row.quantity if quantity is None else quantity
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= row.quantity:
        raise RulesError(f"{character.name} holds {row.quantity} of {row.name}: hand over between 1 and that.")
    old = history.item_snapshot(row)
    left = replace(row.to_rules(), quantity=count, worn=False, id=None)
    if count == row.quantity:
        row.delete()
        what = f"Put {old['name']}" + (f" ×{count}" if count > 1 else "") + source
        done = touch(character, ITEMS_CHANGE, by=by, what=what, check=False, before={"items": [old]})
    else:
        row.quantity -= count
        row.save(update_fields=["quantity"])
        after = {"items": [history.item_snapshot(row)]}
        what = f"Put {row.name} ×{count}{source}"
        done = touch(character, ITEMS_CHANGE, by=by, what=what, before={"items": [old]}, after=after)
    return done.adding(row=left)


@transaction.atomic
def coins_receive(*, character_id: int, amount: int, by: User, source: str) -> Written:
    """Coins handed to the sheet (the system's purse: ``GameSystem.receive``), within its bounds and carry limit."""
    character = lock(character_id)
    rules = system_for(character.system)
    state = rules.receive(character.checked_sheet(), amount, source.strip())
    what = f"Took {rules.format_money(amount)}{source}"
    return save_state(character, state, by=by, what=what, also=ITEMS_CHANGE)


@transaction.atomic
def coins_hand_over(*, character_id: int, amount: int, by: User, source: str) -> Written:
    """Coins leaving the sheet's purse (``GameSystem.pay``): refused with the rules' sentence when it is short."""
    character = lock(character_id)
    rules = system_for(character.system)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
        raise RulesError("Put in a whole number of coins, at least 1.")
    state = rules.pay(character.checked_sheet(), amount, f"putting {rules.format_money(amount)}{source}")
    what = f"Put {rules.format_money(amount)}{source}"
    return save_state(character, state, by=by, what=what, also=ITEMS_CHANGE)
