"""The party's stash (issue 41): loot the GM hands out lands here; players take items and coins onto their sheets
and put them back, without the GM online; the GM splits the coins by the table's rule.

Every move between a sheet and the stash is one write that changes both sides or neither: one transaction, its
locks in the app's one order (characters.locking: the characters by id, then the stash row, then its items), the
sheet's side through the character's own write (its system's carry limit and bounds, its history, its regions
announced), the stash's side in the stash's history (``StashEntry``), which names the sheet's entry. Reverting
either entry reverts both. A taker who comes second finds the item gone and reads a sentence (``Taken``, a 409).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from accounts.names import clean_name
from campaigns.models import Campaign, Stash, StashEntry, StashItem
from campaigns.services import TableWritten, written
from campaigns.session.hits import change_revert as sheet_change_revert
from characters import locking
from characters import services as sheet
from characters.models import CatalogueItem, Change, Character, Item
from live.events import StashChanged
from live.journal import record
from rules import RulesError, system_for
from rules import base as rules_base
from rules.loot import CoinSplit, split_coins

STASH_ITEMS_MAX = 500  # rows one stash holds: its region lists them all
STASH_COINS_MAX = 10**12  # far past any hoard; bounded so both databases hold it
HISTORY_SHOWN = 30  # the newest entries the stash's region lists
REGIONS = ("stash",)
SOURCE_IN, SOURCE_OUT = " from the stash", " in the stash"


class Taken(RulesError):
    """What the request was for moved meanwhile (another player took it first, the GM removed it)."""

    status = 409


class NotAtTable(RulesError):
    """A character of another table (or none this person may change): as if it did not exist."""

    status = 404


# --- locks and the history ----------------------------------------------------------------------------------------


def lock_stash(campaign_id: int) -> Stash:
    """Step 4 of the app's one lock order (after the characters a write changes): the campaign's stash row, made
    on first use (two first uses at once: one inserts, the other waits for it and finds it)."""
    rows = Stash.objects.select_for_update(of=("self",)).select_related("campaign")
    stash = rows.filter(campaign_id=campaign_id).first()
    if stash is None:
        if not Campaign.objects.filter(pk=campaign_id).exists():
            raise NotAtTable("That campaign no longer exists.")
        Stash.objects.bulk_create([Stash(campaign_id=campaign_id)], ignore_conflicts=True)
        stash = rows.get(campaign_id=campaign_id)
    return stash


def snapshot(row: StashItem) -> dict[str, Any]:
    """A stash row as its history keeps it: enough to put it back as it was."""
    return {
        "id": row.pk,
        "name": row.name,
        "kind": row.kind,
        "slots": row.slots,
        "quantity": row.quantity,
        "data": dict(row.data),
        "catalogue_item": row.catalogue_item_id,
        "catalogue_version": row.catalogue_version,
    }


ROW_FIELDS = ("name", "kind", "slots", "quantity", "data")


def _log(
    stash: Stash,
    *,
    by: User,
    what: str,
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    character: Character | None = None,
    change: Change | None = None,
    changes: Mapping[str, int] | None = None,
    reverts: StashEntry | None = None,
    reason: str = "",
) -> StashEntry:
    """The stash's side of a write: a new version, the history's entry, the stash announced (on commit)."""
    stash.version += 1
    stash.save(update_fields=["coins", "version"])
    entry = StashEntry.objects.create(
        campaign_id=stash.campaign_id,
        by=by,
        what=what[:300],
        before=dict(before),
        after=dict(after),
        character=character,
        change=change,
        changes=dict(changes or {}),
        reverts=reverts,
        reason=reason[:200],
    )
    record(stash.campaign_id, StashChanged(character=character.pk if character else None), by=by)
    return entry


def _rules_item(row: StashItem) -> rules_base.Item:
    return rules_base.Item(name=row.name, kind=row.kind, slots=row.slots, quantity=row.quantity, data=dict(row.data))


def _count(quantity: int | None, held: int, name: str) -> int:
    count = held if quantity is None else quantity
    if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= held:
        raise RulesError(f"The stash holds {held} of {name}: take between 1 and {held}.")
    return count


def _into_stash(
    stash: Stash, item: rules_base.Item, catalogue_item_id: int | None, version: int | None, of: str | None = None
) -> tuple:
    """Put ``item`` in the stash: onto a row of the same thing its system stacks, else a new row. (before, after)
    snapshots: before is None for a new row. ``of``: the system that reads it (at a mixed table, the sheet or the
    catalogue it comes from: issue 42; the home system's by default); whoever takes it reads it by their own."""
    rules = system_for(of or stash.campaign.system)
    item = rules.validate_item(item)
    name = clean_name(item.name)[:100] or "Item"
    rows = stash.items.select_for_update().filter(name=name, kind=item.kind).order_by("pk")
    held = next((row for row in rows if rules.stacks(_rules_item(row), item) and row.data == dict(item.data)), None)
    if held is not None:
        old = snapshot(held)
        held.quantity += item.quantity
        rules.validate_item(_rules_item(held))  # one row's count stays within the rules' bound
        held.save(update_fields=["quantity"])
        return old, snapshot(held)
    if stash.items.count() >= STASH_ITEMS_MAX:
        raise RulesError(f"The stash holds at most {STASH_ITEMS_MAX} rows of items: take something out first.")
    row = StashItem.objects.create(
        stash=stash,
        name=name,
        kind=item.kind if item.kind in Item.Kind.values else Item.Kind.OTHER,
        slots=max(0, int(item.slots)),
        quantity=max(1, int(item.quantity)),
        data=dict(item.data),
        catalogue_item_id=catalogue_item_id,
        catalogue_version=version,
    )
    return None, snapshot(row)


def _out_of_stash(stash: Stash, stash_item_id: int, quantity: int | None) -> tuple[StashItem, int, dict, dict | None]:
    """Take ``quantity`` (None: all) of one row out: (the row as it was, the count, before, after or None)."""
    row = stash.items.select_for_update().filter(pk=stash_item_id).first()
    if row is None:
        raise Taken("That item is no longer in the stash: someone took it, or the GM moved it, just before you.")
    count = _count(quantity, row.quantity, row.name)
    old = snapshot(row)
    if count == row.quantity:
        row.delete()
        return row, count, old, None
    row.quantity -= count
    row.save(update_fields=["quantity"])
    return row, count, old, snapshot(row)


def _sides(old: dict | None, new: dict | None) -> tuple[dict, dict]:
    return ({"items": [old]} if old else {}), ({"items": [new]} if new else {})


def _named(count: int, name: str) -> str:
    return f"{name} ×{count}" if count > 1 else name


def _lock_at_table(campaign_id: int, character_id: int) -> Character:
    character = locking.lock_character(character_id)
    if character.campaign_id != campaign_id:
        raise NotAtTable("That character is not at this table.")
    return character


# --- the GM's loot ------------------------------------------------------------------------------------------------


@transaction.atomic
def stash_add_item(
    *, campaign_id: int, item: rules_base.Item, by: User, catalogue_item: CatalogueItem | None = None
) -> TableWritten:
    """Loot the GM hands out: into the stash (checked by the table's system, as any new sheet row is)."""
    stash = lock_stash(campaign_id)
    if catalogue_item is not None and not stash.campaign.plays(catalogue_item.system):
        raise RulesError("That item is not in the equipment list of a system this table plays.")
    version = catalogue_item.version if catalogue_item is not None else None
    of = catalogue_item.system if catalogue_item is not None else None
    old, new = _into_stash(stash, item, getattr(catalogue_item, "pk", None), version, of)
    before, after = _sides(old, new)
    entry = _log(
        stash, by=by, what=f"Put {_named(item.quantity, new['name'])} in the stash", before=before, after=after
    )
    return written(stash.campaign, REGIONS, entry)


@transaction.atomic
def stash_add_coins(*, campaign_id: int, amount: int, by: User) -> TableWritten:
    stash = lock_stash(campaign_id)
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= STASH_COINS_MAX - stash.coins:
        raise RulesError(f"Add between 1 and {STASH_COINS_MAX - stash.coins:,} coins.")
    before = {"coins": stash.coins}
    stash.coins += amount
    money = system_for(stash.campaign.system).format_money(amount)
    entry = _log(stash, by=by, what=f"Put {money} in the stash", before=before, after={"coins": stash.coins})
    return written(stash.campaign, REGIONS, entry)


@transaction.atomic
def stash_remove_item(*, campaign_id: int, stash_item_id: int, by: User, quantity: int | None = None) -> TableWritten:
    """The GM takes loot back out of the stash (to no sheet)."""
    stash = lock_stash(campaign_id)
    row, count, old, new = _out_of_stash(stash, stash_item_id, quantity)
    entry = _log(
        stash,
        by=by,
        what=f"Removed {_named(count, row.name)} from the stash",
        before={"items": [old]},
        after={"items": [new]} if new else {},
    )
    return written(stash.campaign, REGIONS, entry)


# --- a sheet and the stash: one write, both sides -----------------------------------------------------------------


@transaction.atomic
def stash_take(
    *, campaign_id: int, character_id: int, stash_item_id: int, by: User, quantity: int | None = None
) -> TableWritten:
    """An item (``quantity`` of a row; None: all of it) out of the stash onto the character's sheet; refused whole
    when the sheet can't carry it (its system's sentence) or someone took it first (``Taken``)."""
    return _take(campaign_id, character_id, stash_item_id, by, quantity)[0]


def _take(campaign_id: int, character_id: int, stash_item_id: int, by: User, quantity: int | None):
    """The take, and the sheet's side of it (its ``Written``)."""
    character = _lock_at_table(campaign_id, character_id)
    stash = lock_stash(campaign_id)
    row, count, old, new = _out_of_stash(stash, stash_item_id, quantity)
    catalogue = CatalogueItem.objects.filter(pk=row.catalogue_item_id).first() if row.catalogue_item_id else None
    if catalogue is not None and catalogue.system != character.system:
        catalogue = None  # another system's entry: its updates are not this sheet's rules (issue 42)
    item = rules_base.Item(name=row.name, kind=row.kind, slots=row.slots, quantity=count, data=dict(row.data))
    try:  # read, and its slots counted, by the taker's own system
        done = sheet.item_receive(
            character_id=character.pk, item=item, by=by, source=SOURCE_IN, catalogue_item=catalogue
        )
    except RulesError as problem:
        if character.system == stash.campaign.system:
            raise
        own = system_for(character.system).name
        raise RulesError(f"{character.name}'s {own} sheet cannot take {row.name}: {problem}") from None
    what = f"{character.name} took {_named(count, row.name)} from the stash"
    after = {"items": [new]} if new else {}
    entry = _log(stash, by=by, what=what, before={"items": [old]}, after=after, character=character, change=done.change)
    return written(stash.campaign, REGIONS, entry), done


@transaction.atomic
def stash_put(
    *, campaign_id: int, character_id: int, item_id: int, by: User, quantity: int | None = None
) -> TableWritten:
    """An item (``quantity`` of a sheet's row; None: all of it) off the character's sheet into the stash."""
    return _put(campaign_id, character_id, item_id, by, quantity)[0]


def _put(campaign_id: int, character_id: int, item_id: int, by: User, quantity: int | None):
    """The put, and the sheet's side of it (its ``Written``)."""
    character = _lock_at_table(campaign_id, character_id)
    stash = lock_stash(campaign_id)
    held = character.items.filter(pk=item_id).values("catalogue_item_id", "catalogue_version").first()
    if held is None:
        raise Taken("That item is no longer on this sheet.")
    done = sheet.item_hand_over(character_id=character.pk, item_id=item_id, quantity=quantity, by=by, source=SOURCE_OUT)
    item: rules_base.Item = done.row
    old, new = _into_stash(stash, item, held["catalogue_item_id"], held["catalogue_version"], character.system)
    before, after = _sides(old, new)
    what = f"{character.name} put {_named(item.quantity, item.name)} in the stash"
    entry = _log(stash, by=by, what=what, before=before, after=after, character=character, change=done.change)
    return written(stash.campaign, REGIONS, entry), done


@transaction.atomic
def offline_move(*, kind: str, character_id: int, by: User, payload: Mapping[str, Any]):
    """A stash move a device kept offline (characters.services.offline: "stash-take", "stash-put"), made now at
    the character's table: the sheet's ``Written``. Someone who took the item meanwhile: ``Taken`` (a conflict)."""
    campaign_id = Character.objects.filter(pk=character_id).values_list("campaign_id", flat=True).first()
    if campaign_id is None:
        raise NotAtTable("That character sits at no table: it has no stash.")
    quantity = payload.get("quantity")
    if kind == "stash-take":
        return _take(campaign_id, character_id, int(payload["item"]), by, quantity)[1]
    return _put(campaign_id, character_id, int(payload["item"]), by, quantity)[1]


@transaction.atomic
def stash_take_coins(*, campaign_id: int, character_id: int, amount: int, by: User) -> TableWritten:
    character = _lock_at_table(campaign_id, character_id)
    stash = lock_stash(campaign_id)
    if isinstance(amount, bool) or not isinstance(amount, int) or amount < 1:
        raise RulesError("Take a whole number of coins, at least 1.")
    if amount > stash.coins:
        held = system_for(stash.campaign.system).format_money(stash.coins)
        raise Taken(f"The stash holds {held}: someone may have taken some just before you.")
    own = _own_coins(stash, character, amount)  # the stash's coin, in the taker's own money (issue 42)
    done = sheet.coins_receive(character_id=character.pk, amount=own, by=by, source=SOURCE_IN)
    before = {"coins": stash.coins}
    stash.coins -= amount
    home = system_for(stash.campaign.system)
    money = _as_own(home.format_money(amount), character, own, home)
    what = f"{character.name} took {money} from the stash"
    entry = _log(
        stash, by=by, what=what, before=before, after={"coins": stash.coins}, character=character, change=done.change
    )
    return written(stash.campaign, REGIONS, entry)


@transaction.atomic
def stash_put_coins(*, campaign_id: int, character_id: int, amount: int, by: User) -> TableWritten:
    character = _lock_at_table(campaign_id, character_id)
    stash = lock_stash(campaign_id)
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= STASH_COINS_MAX - stash.coins:
        raise RulesError("Put in a whole number of coins, at least 1.")
    into = _stash_coins(stash, character, amount)  # the putter's money, in the stash's coin (issue 42)
    if into > STASH_COINS_MAX - stash.coins:
        raise RulesError(f"The stash holds at most {STASH_COINS_MAX:,} coins.")
    done = sheet.coins_hand_over(character_id=character.pk, amount=amount, by=by, source=SOURCE_OUT)
    before = {"coins": stash.coins}
    stash.coins += into
    money = system_for(stash.campaign.system).format_money(into)
    what = f"{character.name} put {money} in the stash"
    entry = _log(
        stash, by=by, what=what, before=before, after={"coins": stash.coins}, character=character, change=done.change
    )
    return written(stash.campaign, REGIONS, entry)


def _own_coins(stash: Stash, character: Character, amount: int) -> int:
    """``amount`` of the stash's coin (the home system's smallest) in ``character``'s own system's money; the
    rules' sentence when it has no worth there or makes no whole coins (``Economy.coins_from``)."""
    return system_for(character.system).coins_from(system_for(stash.campaign.system), amount)


def _as_own(money: str, character: Character, own: int, home: rules_base.GameSystem) -> str:
    """The stash's coin, and what it made in the character's own money when that is another system's."""
    rules = system_for(character.system)
    return money if rules is home else f"{money} (as {rules.format_money(own)})"


def _stash_coins(stash: Stash, character: Character, amount: int) -> int:
    """``amount`` of ``character``'s own money in the stash's coin."""
    return system_for(stash.campaign.system).coins_from(system_for(character.system), amount)


# --- the coins split by the table's rule ---------------------------------------------------------------------------


def plan_split(characters: Sequence[Character], amount: int) -> CoinSplit:
    """The split of ``amount`` among these characters and the hirelings their system gives a share (keys: the
    character's id; a hireling's: (its employer's id, its id, its name))."""
    hirelings = []
    for character in characters:
        rules = system_for(character.system)
        for hireling in character.hirelings.all():
            share = rules.loot_share(hireling.to_rules())
            if share is not None:
                hirelings.append(((character.pk, hireling.pk, hireling.name), share))
    return split_coins(amount, [c.pk for c in characters], hirelings)


@transaction.atomic
def coins_split(*, campaign_id: int, character_ids: Sequence[int], amount: int, by: User) -> TableWritten:
    """``amount`` of the stash's coins split among the chosen characters by the table's rule (rules.loot): equal
    shares, a share for each hireling whose rules give it one (paid to it: it leaves the stash), the rest left in
    the stash. One write: every sheet and the stash, or nothing (a purse that can't hold its share refuses it)."""
    wanted = sorted(set(character_ids))
    if not wanted:
        raise RulesError("Pick at least one character to share the coins.")
    locked = locking.lock_characters(wanted)  # step 3: every sheet, by id, before the stash
    characters = [locked[pk] for pk in wanted if pk in locked and locked[pk].campaign_id == campaign_id]
    if len(characters) != len(wanted):
        raise NotAtTable("A character picked is not at this table.")
    stash = lock_stash(campaign_id)
    if isinstance(amount, bool) or not isinstance(amount, int) or not 1 <= amount <= stash.coins:
        money = system_for(stash.campaign.system).format_money
        raise Taken(f"Split between 1 coin and what the stash holds ({money(stash.coins)}).")
    plan = plan_split(sorted(characters, key=lambda c: c.pk), amount)
    home = system_for(stash.campaign.system)
    money = home.format_money
    changes: dict[str, int] = {}
    by_id = {c.pk: c for c in characters}
    # A share goes to each PC in its own system's money (issue 42): what does not make its whole coins stays.
    paid = {pk: system_for(by_id[pk].system).whole_coins_from(home, share) for pk, share in plan.pcs}
    for character_id, (_, own) in paid.items():
        if own > 0:
            done = sheet.coins_receive(character_id=character_id, amount=own, by=by, source=" as a share of the stash")
            assert done.change is not None
            changes[str(character_id)] = done.change.pk
    before = {"coins": stash.coins}
    kept = plan.left + sum(share - paid[pk][0] for pk, share in plan.pcs)
    stash.coins -= amount - kept
    names = {c.pk: c.name for c in characters}
    told = [f"{names[pk]} {_as_own(money(used), by_id[pk], own, home)}" for pk, (used, own) in paid.items()]
    told += [f"{name} (hireling) {money(share)}" for (_, _, name), share in plan.hirelings]
    what = f"Split {money(amount)}: " + ", ".join(told) + f"; {money(kept)} left in the stash"
    entry = _log(stash, by=by, what=what, before=before, after={"coins": stash.coins}, changes=changes)
    return written(stash.campaign, REGIONS, entry)


# --- reverting: either side's entry puts both back -----------------------------------------------------------------


def _revert_stash_side(stash: Stash, entry: StashEntry) -> tuple[dict, dict]:
    """The stash's side of ``entry`` put back; refused when what it moved has moved on since. (before, after)."""
    before_rows = {s["id"]: s for s in entry.before.get("items", [])}
    after_rows = {s["id"]: s for s in entry.after.get("items", [])}
    current = {row.pk: row for row in stash.items.select_for_update().filter(pk__in=[*before_rows, *after_rows])}
    for row_id, made in after_rows.items():
        row = current.get(row_id)
        if row is None or any(getattr(row, f) != made[f] for f in ROW_FIELDS):
            raise Taken(f"Since “{entry.what}”, {made['name']} moved in the stash: revert the later move first.")
    for row_id, was in before_rows.items():
        if row_id not in after_rows and row_id in current:
            raise Taken(f"Since “{entry.what}”, {was['name']} came back to the stash: revert that first.")
    coins_delta = entry.before.get("coins", stash.coins) - entry.after.get("coins", stash.coins)
    if "coins" in entry.before and stash.coins + coins_delta < 0:
        raise Taken(f"Since “{entry.what}”, the stash's coins were taken: it holds too few to put that back.")
    undo_before: dict[str, Any] = {"items": [snapshot(current[i]) for i in after_rows]} if after_rows else {}
    undo_after: dict[str, Any] = {}
    back = []
    for row_id, was in before_rows.items():
        row = current.get(row_id) or StashItem(pk=row_id, stash=stash)
        for field in ROW_FIELDS:
            setattr(row, field, was[field])
        row.catalogue_item_id, row.catalogue_version = was.get("catalogue_item"), was.get("catalogue_version")
        row.save()
        back.append(snapshot(row))
    for row_id in set(after_rows) - set(before_rows):
        current[row_id].delete()
    if back:
        undo_after["items"] = back
    if "coins" in entry.before:
        undo_before["coins"] = stash.coins
        stash.coins += coins_delta
        undo_after["coins"] = stash.coins
    return undo_before, undo_after


def _reverted(entry: StashEntry) -> None:
    if StashEntry.objects.filter(reverts=entry).exists():
        raise RulesError(f"“{entry.what}” was already reverted.")


@transaction.atomic
def stash_entry_revert(*, campaign_id: int, entry_id: int, by: User, reason: str) -> TableWritten:
    """The GM reverts an entry of the stash's history: its stash side and every sheet it changed, or nothing."""
    entry = StashEntry.objects.filter(pk=entry_id, campaign_id=campaign_id).first()
    if entry is None:
        raise NotAtTable("That entry is not in this stash's history.")
    reason = clean_name(reason)[:150]
    if not reason:
        raise RulesError("Say in a few words why you revert it.")
    sheets = {int(pk): change for pk, change in entry.changes.items()}
    if entry.change_id is not None and entry.character_id is not None:
        sheets[entry.character_id] = entry.change_id
    locking.lock_characters(sheets)  # step 3, then the stash
    stash = lock_stash(campaign_id)
    _reverted(entry)
    changes: dict[str, int] = {}
    for character_id, change_id in sorted(sheets.items()):
        done, _ = sheet_change_revert(character_id=character_id, change_id=change_id, by=by, reason=reason)
        changes[str(character_id)] = done.change.pk
    before, after = _revert_stash_side(stash, entry)
    character = entry.character if entry.change_id is not None else None
    change = Change.objects.get(pk=changes[str(entry.character_id)]) if character is not None else None
    undo = _log(
        stash,
        by=by,
        what=f"Reverted “{entry.what}”",
        before=before,
        after=after,
        character=character,
        change=change,
        changes={k: v for k, v in changes.items() if character is None},
        reverts=entry,
        reason=reason,
    )
    return written(stash.campaign, REGIONS, undo)


def is_stash_move(change_id: int) -> bool:
    return StashEntry.objects.filter(change_id=change_id).exists()


@transaction.atomic
def move_revert(*, character_id: int, change_id: int, by: User, reason: str, expected_version: int | None = None):
    """A stash move reverted from the character's history (its owner or the GM): the sheet's change and the
    stash's side, in one write. What the sheet's revert wrote, and no NPC given anything back."""
    entry = StashEntry.objects.select_related("character").get(change_id=change_id)
    locking.lock_character(character_id)
    stash = lock_stash(entry.campaign_id)
    _reverted(entry)
    done, _ = sheet_change_revert(
        character_id=character_id, change_id=change_id, by=by, reason=reason, expected_version=expected_version
    )
    before, after = _revert_stash_side(stash, entry)
    _log(
        stash,
        by=by,
        what=f"Reverted “{entry.what}”",
        before=before,
        after=after,
        character=entry.character,
        change=done.change,
        reverts=entry,
        reason=done.change.reason if done.change else reason,
    )
    return done, []
