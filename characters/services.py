"""Every write to a character goes through here: locked, validated by the rules, logged, announced.

Read-modify-write runs under ``select_for_update`` inside ``transaction.atomic`` (SQLite takes the
write lock at BEGIN: transaction_mode=IMMEDIATE), so two people clicking at once lose nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import replace
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from accounts.names import clean_name
from campaigns.conditions import conditions_changed, touches_light
from campaigns.models import Campaign, Membership
from characters import history, locking
from characters.models import (
    NOTES_MAX,
    OFFERS_PENDING_MAX,
    CatalogueItem,
    Change,
    Character,
    Hireling,
    Item,
    OfferedChange,
    Roll,
)
from characters.selectors import characters_editable_by
from live.events import publish, publish_many
from rules import RulesError, system_for
from rules import base as rules_base
from rules.dice import RandomSource, system_random
from rules.free import FREE_ROLL

MAX_ITEMS = 500  # a sanity bound: no sheet needs more rows, and it keeps pages fast
# The same for hired help, where the rules set no number (Fortune's Favor's helpers, Chaos & Conquest's porters).
MAX_HIRELINGS = 50
MAX_CHARACTERS = 200  # one account's: its character list draws them all
MAX_SEATS = 50  # characters at one table: its page draws a card for each, and every roll request asks them all


class StaleVersion(RulesError):
    """The form was made from an older version of the sheet than the one stored."""


# What each kind of change shows in, on an open sheet: each region listens to its own event, so one HP
# change costs an open sheet two requests (vitals; details, which brings the roll panel's odds along).
TRACK_CHANGE = ("vitals", "details")
STATE_CHANGE = ("vitals", "details", "hirelings")  # hireling limits and hire forms read the state
ITEMS_CHANGE = ("inventory", "vitals", "details")
HIRELINGS_CHANGE = ("hirelings", "odds")  # procedures offer the hirelings as choices
NAME_CHANGE = ("details",)
OFFERS_CHANGE = ("vitals",)


_announced: ContextVar[dict[int, set[str]] | None] = ContextVar("announced", default=None)


@contextlib.contextmanager
def collecting_announcements() -> Iterator[dict[int, set[str]]]:
    """Within the block, which regions of which characters (by id) the writes announced: a view's answer
    then carries those regions and no others."""
    collected: dict[int, set[str]] = {}
    token = _announced.set(collected)
    try:
        yield collected
    finally:
        _announced.reset(token)


def _announce(character: Character, regions: tuple[str, ...]) -> None:
    """Tell open sheets which regions changed, and open table pages that the character's card did."""
    collected = _announced.get()
    if collected is not None:
        collected.setdefault(character.pk, set()).update(regions)
    # One statement for all of them; the card's event carries the version: bench/fanout.py times each write by it.
    signals: list[tuple[str, dict]] = [(character.region_topic(region), {}) for region in regions]
    publish_many(character.campaign_id, [*signals, (character.topic, {"version": character.version})])


def _state_regions(character: Character, old: Mapping[str, Any], new: Mapping[str, Any]) -> tuple[str, ...]:
    changed = {key for key in set(old) | set(new) if old.get(key) != new.get(key)}
    tracks = {track.key for track in system_for(character.system).tracks(character.to_sheet(items=(), hirelings=()))}
    return TRACK_CHANGE if changed <= tracks else STATE_CHANGE


def _check_whole_sheet(character: Character, read: rules_base.Sheet | None = None) -> None:
    """After every write, whatever made it: the sheet as it now stands must keep every rule of its system
    (carry limit, bounds). A RulesError here rolls the whole write back.

    ``read``: the sheet the write read under its lock, when only the state changed since: its items and
    hirelings are still those of the database, so they are not read twice."""
    sheet = character.to_sheet() if read is None else replace(read, state=character.state)
    system_for(character.system).validate_sheet(sheet)


def _record(
    character: Character,
    *,
    by,
    what: str,
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    reverts: Change | None = None,
    reason: str = "",
) -> Change:
    # Kept on the row too: the write's own answer offers this change's Undo without reading it back.
    character.latest_change = Change.objects.create(
        character=character,
        by=by,
        what=what[:200],
        version=character.version,
        before=dict(before or {}),
        after=dict(after or {}),
        reverts=reverts,
        reason=reason[:200],
    )
    return character.latest_change


def _lock(character_id: int, *, with_rows: bool = False) -> Character:
    """The character, locked for the write (in the app's one order: characters.locking), with its campaign (not
    locked: its rule settings go into every sheet the rules read); ``locking.Gone`` if it was deleted meanwhile.
    ``with_rows``: its items and hirelings read along (prefetched), for a write that changes only the state: the
    answer then shows them without reading them again."""
    return locking.lock_character(character_id, with_rows=with_rows)


def _check_version(character: Character, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != character.version:
        raise StaleVersion(
            "Someone changed this sheet while you were editing it. It now shows the latest numbers: "
            "check them and try again."
        )


def _save_state(
    character: Character,
    state: Mapping[str, Any],
    *,
    by,
    what: str,
    also: tuple[str, ...] = (),
    before: Mapping[str, Any] | None = None,
    after: Mapping[str, Any] | None = None,
    read: rules_base.Sheet | None = None,
    **record: Any,
) -> Character:
    """Write a new state; the history keeps each field it changed (plus ``before``/``after`` of other parts).

    ``read``: the sheet read under the lock, if nothing but the state changes (see ``_check_whole_sheet``)."""
    old = character.state
    character.state = system_for(character.system).validate_state(state)
    _check_whole_sheet(character, read)
    character.version += 1
    character.save(update_fields=["state", "version", "updated_at"])
    old_fields, new_fields = history.state_diff(old, character.state)
    before = {**(before or {}), **({"state": old_fields} if old_fields or new_fields else {})}
    after = {**(after or {}), **({"state": new_fields} if old_fields or new_fields else {})}
    _record(character, by=by, what=what, before=before, after=after, **record)
    _announce(character, tuple(dict.fromkeys(_state_regions(character, old, character.state) + also)))
    if touches_light(before, after):
        conditions_changed(character.campaign_id)
    return character


def _touch(
    character: Character, regions: tuple[str, ...], *, by, what: str, check: bool = True, **record: Any
) -> Character:
    """A change outside ``state`` (items, hirelings, name): still a new version, checked, logged, announced.

    ``check=False`` only for removals, which can break no rule and must stay possible on a broken sheet.
    ``record``: what the history keeps (``before``, ``after``; a revert's ``reverts`` and ``reason``).
    """
    if check:
        _check_whole_sheet(character)
    character.version += 1
    character.save(update_fields=["version", "updated_at"])
    _record(character, by=by, what=what, **record)
    _announce(character, regions)
    if touches_light(record.get("before"), record.get("after")):  # a torch lit, put out, taken or dropped
        conditions_changed(character.campaign_id)
    return character


@transaction.atomic
def character_create(
    *,
    owner,
    system: str,
    choices: Mapping[str, Any],
    campaign: Campaign | None = None,
    rng: RandomSource | None = None,
) -> tuple[Character, rules_base.Creation]:
    """Make a character by the system's creation rules (rolled on the server, or chosen)."""
    rules = system_for(system)
    if campaign is not None and campaign.system != system:
        raise RulesError(f"{campaign.name} plays {campaign.system_name}; make a character of that system.")
    check_character_room(owner, campaign)
    settings = rules.settings_in_force(campaign.rule_settings if campaign is not None else None)
    creation = rules.create(choices, rng or system_random(), settings=settings)
    state = rules.validate_state(creation.state)
    name = clean_name(creation.name or "")[:100] or "Nameless"
    character = Character.objects.create(owner=owner, system=system, name=name, state=state, campaign=campaign)
    Item.objects.bulk_create([_item_row(character, item, position) for position, item in enumerate(creation.items)])
    _record(character, by=owner, what="Created the character")
    if creation.rolls:  # one line in the table's log, however many rolls creation took
        _store_roll(character, _creation_roll(creation), by=owner, visibility=str(Roll.Visibility.PUBLIC))
    rules.validate_sheet(character.to_sheet())
    publish(character.campaign_id, "party")
    conditions_changed(character.campaign_id)  # one more in the party, perhaps with a torch lit
    return character, creation


def check_character_room(owner, campaign: Campaign | None = None) -> None:
    """Before a new character (made or imported): the account's cap, and its table's."""
    if Character.objects.filter(owner=owner).count() >= MAX_CHARACTERS:
        raise RulesError(f"You have {MAX_CHARACTERS} characters, as many as an account keeps: delete one first.")
    if campaign is not None and campaign.characters.count() >= MAX_SEATS:
        raise RulesError(f"{campaign.name} has {MAX_SEATS} characters already, as many as a table seats.")


def _creation_roll(creation: rules_base.Creation) -> rules_base.RollResult:
    """Creation's rolls folded into one log entry: every die, each roll's sentence in turn."""
    return rules_base.RollResult(
        procedure="creation",
        label="Character creation",
        outcome="created",
        summary=" ".join(r.summary.strip() for r in creation.rolls if r.summary.strip())[:500],
        dice=tuple(die for r in creation.rolls for die in r.dice),
        inputs={"rolls": [r.label for r in creation.rolls]},
    )


def _item_row(character: Character, item: rules_base.Item, position: int, catalogue_item=None) -> Item:
    item = system_for(character.system).validate_item(item)  # every new row: bounded by the rules
    return Item(
        character=character,
        catalogue_item=catalogue_item,
        name=clean_name(item.name)[:100] or "Item",
        kind=item.kind if item.kind in Item.Kind.values else Item.Kind.OTHER,
        slots=max(0, int(item.slots)),
        quantity=max(1, int(item.quantity)),
        worn=item.worn,
        data=dict(item.data),
        position=position,
    )


@transaction.atomic
def character_rename(*, character_id: int, name: str, by, expected_version: int | None = None) -> Character:
    character = _lock(character_id)
    _check_version(character, expected_version)
    name = clean_name(name)
    if not name:
        raise RulesError("A character needs a name.")
    old = character.name
    character.name = name[:100]
    character.save(update_fields=["name"])
    return _touch(
        character,
        NAME_CHANGE,
        by=by,
        what=f"Renamed to {character.name}",
        before={"name": old},
        after={"name": character.name},
    )


@transaction.atomic
def character_edit_details(
    *,
    character_id: int,
    by,
    name: str,
    notes: str = "",
    details: Mapping[str, Any] | None = None,
    expected_version: int | None = None,
) -> Character:
    """Name, notes and the system's descriptive fields (background, age...) after creation, in one change."""
    character = _lock(character_id)
    _check_version(character, expected_version)
    rules = system_for(character.system)
    name = clean_name(name)[:100]
    if not name:
        raise RulesError("A character needs a name.")
    notes = notes.replace("\r\n", "\n").strip()
    if len(notes) > NOTES_MAX:
        raise RulesError(f"Notes are {len(notes)} characters long; at most {NOTES_MAX}.")
    state = rules.with_details(character.checked_sheet(), dict(details or {}))
    new = {"name": name, "notes": notes}
    before = {key: getattr(character, key) for key, value in new.items() if getattr(character, key) != value}
    after = {key: new[key] for key in before}
    character.name, character.notes = name, notes
    character.save(update_fields=["name", "notes"])
    return _save_state(character, state, by=by, what="Edited the details", also=NAME_CHANGE, before=before, after=after)


@transaction.atomic
def change_revert(*, character_id: int, change_id: int, by, reason: str, expected_version: int | None = None):
    """Put back what one change did, as a new change that names it; refused when a field moved on since.

    The owner or the GM may revert (a GM can bring back the dead); each change is reverted at most once.
    """
    if not characters_editable_by(by).filter(pk=character_id).exists():
        raise RulesError("Only the character's player or the GM can revert its changes.")
    character = _lock(character_id)
    change = Change.objects.filter(pk=change_id, character=character).first()
    if change is None:
        raise RulesError("That change is not in this character's history.")
    _check_version(character, expected_version)
    if Change.objects.filter(reverts=change).exists():
        raise RulesError(f"“{change.what}” was already reverted.")
    if not change.revertible:
        raise RulesError(f"“{change.what}” can't be reverted from here: change it by hand.")
    reason = clean_name(reason)[:150]
    if not reason:
        raise RulesError("Say in a few words why you revert it.")
    before, after = change.before, change.after
    moved: list[str] = []
    state, moved_fields = history.revert_state(character.state, before.get("state", {}), after.get("state", {}))
    moved += [system_for(character.system).field_label(path) for path in moved_fields]
    for key in ("name", "notes"):
        if key in before and getattr(character, key) != after.get(key):
            moved.append(key)
    regions: tuple[str, ...] = ()
    items_back, items_gone = _items_to_revert(character, before.get("items", []), after.get("items", []), moved)
    if moved:
        raise RulesError(
            f"Since “{change.what}”, {', '.join(dict.fromkeys(moved))} changed again: revert the later change "
            "first, or change it by hand."
        )
    for key in ("name", "notes"):
        if key in before:
            setattr(character, key, before[key])
            character.save(update_fields=[key])
            regions += NAME_CHANGE
    if items_back or items_gone:
        regions += ITEMS_CHANGE
        _restore_items(character, items_back, items_gone)
    record = {
        "what": f"Reverted “{change.what}”"[:200],
        "before": {k: v for k, v in after.items() if k != "state"},
        "after": {k: v for k, v in before.items() if k != "state"},
        "reverts": change,
        "reason": reason,
    }
    if "state" in before or "state" in after:
        return _save_state(character, state, by=by, also=tuple(dict.fromkeys(regions)), **record)
    return _touch(character, tuple(dict.fromkeys(regions)), by=by, **record)


def _items_to_revert(character: Character, removed: list, added: list, moved: list[str]) -> tuple[list, list]:
    """Rows to put back (as they were) and rows to take away, noting in ``moved`` what changed since."""
    rows = {row.pk: row for row in character.items.filter(pk__in=[i["id"] for i in [*removed, *added]])}
    added_ids, removed_ids = {i["id"] for i in added}, {i["id"] for i in removed}
    back, gone = [], []
    for snapshot in added:
        row = rows.get(snapshot["id"])
        if row is None or not history.same_item(row, snapshot):
            moved.append(snapshot["name"])
        elif snapshot["id"] not in removed_ids:
            gone.append(row)
    for snapshot in removed:
        if snapshot["id"] in added_ids:  # changed in place: put the old numbers back on the same row
            back.append(snapshot)
        elif snapshot["id"] in rows:
            moved.append(snapshot["name"])
        else:
            back.append(snapshot)
    return back, gone


def _restore_items(character: Character, back: list, gone: list) -> None:
    for row in gone:
        row.delete()
    for snapshot in back:
        item = rules_base.Item(**{field: snapshot[field] for field in history.ITEM_FIELDS})
        # _item_row validates by the rules and cleans the name, as for any new row.
        catalogue = CatalogueItem.objects.filter(pk=snapshot.get("catalogue_item") or 0).first()
        row = _item_row(character, item, snapshot.get("position", 0), catalogue)
        fields = {field: getattr(row, field) for field in history.ITEM_FIELDS}
        if not character.items.filter(pk=snapshot["id"]).update(**fields):
            _check_room(character)
            row.save()


@transaction.atomic
def character_set_campaign(*, character_id: int, campaign: Campaign | None, by) -> Character:
    character = _lock(character_id)
    if campaign is not None and campaign.system != character.system:
        raise RulesError(f"{campaign.name} plays {campaign.system_name}, not {character.system_name}.")
    old_campaign = character.campaign_id
    character.campaign = campaign
    character.save(update_fields=["campaign"])
    publish(old_campaign, "party")
    publish(character.campaign_id, "party")
    conditions_changed(old_campaign)  # the party's size and lights change at both tables
    conditions_changed(character.campaign_id)
    return _touch(
        character, (), by=by, what=f"Joined {campaign.name}" if campaign else "Left the campaign", check=False
    )


@transaction.atomic
def character_adjust(*, character_id: int, key: str, delta: int, by) -> Character:
    """+/- on a track (HP, stress, Stamina...): the rules clamp it and refuse what they must."""
    character = _lock(character_id, with_rows=True)
    rules = system_for(character.system)
    sheet = character.checked_sheet()
    tracks = {track.key: track for track in rules.tracks(sheet)}
    track = tracks.get(key)
    if track is None or not track.adjustable:
        raise RulesError(f"{character.system_name} sheets have no {key} to change.")
    if not -1000 <= delta <= 1000:
        raise RulesError("Change a track by at most 1000 at a time.")
    state = rules.adjust(sheet, key, delta)
    return _save_state(character, state, by=by, what=f"{track.label} {delta:+d}", read=sheet)


@transaction.atomic
def character_apply_settings(*, character_id: int, by) -> Character:
    """Bring a character made earlier in line with the creation settings its table now has (house defaults
    the GM changed since): a logged, live change like any other, refused when the system has nothing to apply."""
    character = _lock(character_id)
    rules = system_for(character.system)
    state = rules.apply_settings(character.checked_sheet())
    if state is None:
        raise RulesError(f"{character.system_name} has nothing to apply to a character made earlier.")
    return _save_state(character, state, by=by, what="Applied the table's rule settings")


def character_odds(
    character: Character, procedure_key: str, raw_params: Mapping[str, Any], *, sheet: rules_base.Sheet | None = None
):
    """The exact odds of a procedure with these modifiers, without rolling (for the live odds panel).

    ``sheet``: the character's checked sheet when the caller has it already (the panel asks for several).
    """
    rules = system_for(character.system)
    procedure = _procedure(rules, procedure_key)
    sheet = character.checked_sheet() if sheet is None else sheet
    params = _resolve(character, procedure, sheet, raw_params)
    # As in character_roll: the resolved rows are the app's, the rules get only the Sheets.
    params = {k: v for k, v in params.items() if not k.endswith("__character")}
    return procedure.odds(sheet, params)


def _procedure(rules, key: str):
    procedure = rules.procedures().get(key)
    if procedure is None:
        raise RulesError(f"{rules.name} has no roll called {key!r}.")
    return procedure


def _resolve(character: Character, procedure, sheet, raw_params: Mapping[str, Any], *, locked=None):
    """Check the inputs, and turn "character" inputs into that character's sheet (same table only).

    ``locked`` maps ids to rows already locked by the caller (character_roll locks them all in id order).
    """
    params = rules_base.check_params(procedure, sheet, raw_params)
    for param in procedure.params(sheet):
        if param.kind != "character" or params.get(param.name) is None:
            continue
        other_id = params[param.name]
        other = None
        if character.campaign_id is not None and other_id != character.pk:
            if locked is not None:
                other = locked.get(other_id)
                if other is not None and other.campaign_id != character.campaign_id:
                    other = None
            else:
                other = Character.objects.filter(pk=other_id, campaign_id=character.campaign_id).first()
        if other is None:
            raise RulesError(f"{param.label}: pick another character at this table.")
        params[param.name] = other.checked_sheet()
        params[f"{param.name}__character"] = other
    return params


def _named_character_ids(procedure, sheet, raw_params: Mapping[str, Any]) -> set[int]:
    """The ids of the other characters a roll's inputs name, before anything is locked."""
    ids = set()
    for param in procedure.params(sheet):
        if param.kind == "character":
            with contextlib.suppress(TypeError, ValueError, OverflowError):
                value = int(raw_params.get(param.name) or 0)
                if 0 < value < 2**63:
                    ids.add(value)
    return ids


def roll_lock_ids(character_id: int, procedure: str, params: Mapping[str, Any]) -> set[int]:
    """The characters a roll will lock: its own and those its inputs name (read before any lock is taken), so a
    caller that must lock a row of its own after them (a request's answer) can take them first, in the order."""
    unlocked = Character.objects.filter(pk=character_id).first()
    if unlocked is None:
        raise locking.Gone("That character is gone.")
    proc = _procedure(system_for(unlocked.system), procedure)
    return _named_character_ids(proc, unlocked.to_sheet(), params) | {character_id}


@transaction.atomic
def character_roll(
    *,
    character_id: int,
    procedure: str,
    params: Mapping[str, Any],
    by,
    visibility: str = str(Roll.Visibility.PUBLIC),
    rng: RandomSource | None = None,
    expected_version: int | None = None,
) -> tuple[Character, Roll]:
    """Roll on the server from the stored sheet and the picked modifiers; apply what the roll changes.

    The roll changes only what its roller may edit: a change to a character they may not edit (another
    player's, when rolled by a player) is offered to that character's owner and the GM instead.
    """
    if visibility not in Roll.Visibility.values:
        raise RulesError("Pick who may see this roll: everyone, the GM, or only you.")
    _check_roll_rate(by)  # the roller's lock first (characters.locking)
    locked = locking.lock_characters(roll_lock_ids(character_id, procedure, params))
    character = locked.get(character_id)
    if character is None:
        raise locking.Gone("That character is gone.")
    proc = _procedure(system_for(character.system), procedure)
    _check_version(character, expected_version)
    sheet = character.checked_sheet()
    resolved = _resolve(character, proc, sheet, params, locked=locked)
    others = {k.removesuffix("__character"): resolved.pop(k) for k in list(resolved) if k.endswith("__character")}
    editable = set(
        characters_editable_by(by).filter(pk__in=[c.pk for c in others.values()]).values_list("pk", flat=True)
    )
    strangers = [c for c in others.values() if c.pk not in editable]
    if strangers and visibility != Roll.Visibility.PUBLIC:
        names = ", ".join(c.name for c in strangers)
        raise RulesError(f"A roll that involves {names} is seen by the whole table: choose Everyone.")
    _check_offer_room(strangers)  # before the dice: a roll is never made only to be thrown away
    result = proc.roll(sheet, resolved, rng or system_random())
    changes = _changes_to_others(result, others)
    offered = [others[name] for name in changes if others[name].pk not in editable]
    if offered:
        who = ", ".join(f"{c.name}'s player" for c in offered)
        result = replace(result, summary=f"{result.summary} Offered to {who} and the GM to apply.".strip())
    roll = _store_roll(character, result, by=by, visibility=visibility)
    _apply_result(character, result, by=by)
    for name, new_state in changes.items():
        other = others[name]
        if other.pk in editable:
            _save_state(other, new_state, by=by, what=f"{result.label} by {character.name}")
        else:
            _offer(other, new_state, roll=roll, result=result, by=by, from_character=character)
    return character, roll


@transaction.atomic
def character_pass_time(
    *,
    character_id: int,
    unit: str,
    count: int,
    start_minutes: int,
    by,
    rng: RandomSource | None = None,
    start_seconds: int = 0,
) -> rules_base.RollResult:
    """What game time passing does to one sheet (lights burning down, food eaten, deprivation): applied like a
    roll's changes, so it is checked, kept in the history and seen live on the sheet."""
    character = _lock(character_id)
    rules = system_for(character.system)
    sheet = character.checked_sheet()
    result = rules.advance_time(sheet, unit, count, start_minutes, rng or system_random(), start_seconds)
    if result.state is not None or _changes_items(result):
        _apply_result(character, result, by=by)
    return result


@transaction.atomic
def character_table_effect(
    *, character_id: int, effect: Callable[[Any, rules_base.Sheet], rules_base.RollResult], by
) -> rules_base.RollResult:
    """What the table does to one sheet (a new combat round, a fight ending): ``effect(system, sheet)`` reads the
    locked, checked sheet and the result is applied like a roll's changes: checked, in the history, live."""
    character = _lock(character_id)
    result = effect(system_for(character.system), character.checked_sheet())
    if result.state is not None or _changes_items(result):
        _apply_result(character, result, by=by)
    return result


def _changes_to_others(result: rules_base.RollResult, others: Mapping[str, Character]) -> dict[str, Mapping]:
    """New states of the other characters a roll changed, by the name of the input that named them."""
    return {name: state for name, state in result.other_states.items() if name in others}


def _check_offer_room(targets: list[Character]) -> None:
    """Refuse a roll that could offer one more change to a character already holding the most its sheet shows.

    Refused rather than making room by dropping the oldest offer: that would throw away a hit its player has not
    seen. The targets are locked (character_roll locks them in id order), so two rolls cannot both take the
    last place."""
    for target in targets:
        if target.offers.filter(status=OfferedChange.Status.PENDING).count() >= OFFERS_PENDING_MAX:
            raise RulesError(
                f"{target.name} has {OFFERS_PENDING_MAX} changes waiting for their player or the GM: "
                "ask them to apply or decline some before rolling again."
            )


def _offer(target: Character, new_state: Mapping[str, Any], *, roll: Roll, result, by, from_character) -> None:
    old = target.state
    keys = sorted(set(old) | set(new_state))
    changed = [k for k in keys if old.get(k, history.ABSENT) != new_state.get(k, history.ABSENT)]
    if not changed:
        return
    OfferedChange.objects.create(
        character=target,
        roll=roll,
        from_character=from_character,
        offered_by=by,
        label=f"{result.label} by {from_character.name}"[:200],
        summary=result.summary[:500],
        before={k: old[k] for k in changed if k in old},
        after={k: new_state[k] for k in changed if k in new_state},
    )
    _announce(target, OFFERS_CHANGE)


@transaction.atomic
def offer_apply(*, offer_id: int, by) -> Character:
    """The owner or the GM applies an offered change, unless the sheet moved on in the same places."""
    target, offer = _lock_offer(offer_id, by)
    current = target.state
    keys = set(offer.before) | set(offer.after)
    moved = [k for k in keys if current.get(k, history.ABSENT) != offer.before.get(k, history.ABSENT)]
    if moved:
        raise RulesError(
            f"{target.name}'s sheet changed since that roll ({', '.join(sorted(moved))}): apply it by hand, "
            "or decline it."
        )
    state = {k: v for k, v in current.items() if k not in offer.before or k in offer.after}
    state.update(offer.after)
    _resolve_offer(offer, str(OfferedChange.Status.APPLIED), by)
    return _save_state(target, state, by=by, what=f"Applied {offer.label}", also=OFFERS_CHANGE)


@transaction.atomic
def offer_decline(*, offer_id: int, by) -> Character:
    target, offer = _lock_offer(offer_id, by)
    _resolve_offer(offer, str(OfferedChange.Status.DECLINED), by)
    return _touch(target, OFFERS_CHANGE, by=by, what=f"Declined {offer.label}", check=False)


def _lock_offer(offer_id: int, by) -> tuple[Character, OfferedChange]:
    """The offer's character, then the offer (the app's one order: characters.locking): locking the offer first
    deadlocked with the character's deletion, which holds the character and then deletes its offers."""
    found = OfferedChange.objects.filter(pk=offer_id).values_list("character_id", flat=True).first()
    if found is None or not characters_editable_by(by).filter(pk=found).exists():
        raise RulesError("That offer is not yours to answer.")
    target = _lock(found)
    offer = OfferedChange.objects.select_for_update().filter(pk=offer_id, character=target).first()
    if offer is None:
        raise RulesError("That offer is not yours to answer.")
    if offer.status != OfferedChange.Status.PENDING:
        raise RulesError(f"That change was already {offer.get_status_display().lower()}.")
    return target, offer


def _resolve_offer(offer: OfferedChange, status: str, by) -> None:
    offer.status = status
    offer.resolved_by = by
    offer.resolved_at = timezone.now()
    offer.save(update_fields=["status", "resolved_by", "resolved_at"])


def _changes_items(result: rules_base.RollResult) -> bool:
    return bool(result.items_added or result.items_removed or result.items_changed or result.hirelings_changed)


def _apply_result(character: Character, result: rules_base.RollResult, *, by) -> None:
    regions: tuple[str, ...] = ()
    if result.items_added or result.items_removed or result.items_changed:
        regions += ITEMS_CHANGE
    if result.hirelings_changed:
        regions += HIRELINGS_CHANGE
    record: dict[str, Any] = {}
    if _changes_items(result):
        old_rows, new_rows = _apply_items(character, result)
        record = {"before": {"items": old_rows} if old_rows else {}, "after": {"items": new_rows} if new_rows else {}}
    if result.hirelings_changed:  # hirelings keep no history: such a change is not reverted from the sheet
        record.setdefault("before", {})["hirelings"] = [h.id for h in result.hirelings_changed]
    what = f"{result.label}: {system_for(character.system).outcome_label(result.outcome)}"
    if result.state is not None:
        _save_state(character, result.state, by=by, what=what, also=regions, **record)
    elif regions:
        _touch(character, regions, by=by, what=what, **record)


def _apply_items(character: Character, result: rules_base.RollResult) -> tuple[list[dict], list[dict]]:
    """Apply a roll's inventory changes; the rows as they were and as they are now, for the history."""
    touched = {*result.items_removed, *(item.id for item in result.items_changed)}
    old_rows = [history.item_snapshot(row) for row in character.items.filter(pk__in=touched)]
    if result.items_removed:
        character.items.filter(pk__in=list(result.items_removed)).delete()
    for item in map(system_for(character.system).validate_item, result.items_changed):
        character.items.filter(pk=item.id).update(
            name=clean_name(item.name)[:100] or "Item",
            slots=item.slots,
            quantity=max(1, item.quantity),
            worn=item.worn,
            data=dict(item.data),
        )
    added: list[Item] = []
    if result.items_added:
        _check_room(character, len(result.items_added))
        start = _next_position(character)
        added = [_item_row(character, item, start + i) for i, item in enumerate(result.items_added)]
        for row in added:  # one by one: history needs each new row's id
            row.save()
    for hireling in map(system_for(character.system).validate_hireling, result.hirelings_changed):
        character.hirelings.filter(pk=hireling.id).update(state=dict(hireling.state), wage=hireling.wage)
    changed_ids = [item.id for item in result.items_changed]
    new_rows = [history.item_snapshot(row) for row in character.items.filter(pk__in=changed_ids)]
    return old_rows, new_rows + [history.item_snapshot(row) for row in added]


def _next_position(character: Character) -> int:
    return (character.items.aggregate(top=Max("position"))["top"] or 0) + 1


def odds_as_json(odds: rules_base.Odds | None) -> dict[str, str]:
    if odds is None:
        return {}
    return {key: f"{p.numerator}/{p.denominator}" for key, p in odds.outcomes}


def _store_roll(
    character: Character | None, result: rules_base.RollResult, *, by, visibility: str, campaign=None
) -> Roll:
    roll = Roll.objects.create(
        campaign_id=character.campaign_id if character is not None else campaign.pk,
        character=character,
        roller=by,
        label=result.label[:200],
        procedure=result.procedure[:60],
        inputs=_jsonable(result.inputs),
        dice=[d.as_dict() for d in result.dice],
        outcome=str(result.outcome)[:60],
        summary=result.summary[:500],
        total=result.total,
        odds=odds_as_json(result.odds),
        visibility=visibility,
    )
    audience = _roll_audience(roll)
    publish(roll.campaign_id, "rolls", audience=audience)  # the table's log
    if character is not None:  # the sheet's own log
        publish(roll.campaign_id, character.region_topic("log"), audience=audience)
        if (collected := _announced.get()) is not None:
            collected.setdefault(character.pk, set()).add("log")
    return roll


def _roll_audience(roll: Roll) -> list[int] | None:
    """Whose pages hear of this roll: everyone's, or only those who may see it (its roller, and the GM)."""
    if roll.visibility == Roll.Visibility.PUBLIC:
        return None
    audience = [roll.roller_id] if roll.roller_id else []
    if roll.visibility == Roll.Visibility.GM:
        audience += Membership.objects.filter(campaign_id=roll.campaign_id, role=Membership.Role.GM).values_list(
            "user_id", flat=True
        )
    return audience


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items() if not isinstance(v, rules_base.Sheet)}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


@transaction.atomic
def store_free_roll(
    *, campaign: Campaign, params: Mapping[str, Any], by, visibility: str, procedure: rules_base.Procedure = FREE_ROLL
) -> Roll:
    """A roll without a character, logged as the GM's: a luck die, or a system's table roll (an NPC's morale)."""
    _check_roll_rate(by)  # a service that locked its campaign first took the roller's lock before it
    result = procedure.roll(None, params, system_random())  # table rolls take no sheet
    return _store_roll(None, result, by=by, visibility=visibility, campaign=campaign)


def _check_roll_rate(by) -> None:
    """No table rolls faster than this: a flood would push everyone else's rolls off the log.

    Counted from the log itself, so the cap holds across every app process; under the roller's lock (the first
    in the app's order: characters.locking), so one account's rolls arriving at once are counted one by one.
    """
    locking.lock_roller(by)
    limit = settings.ROLLS_PER_MINUTE
    since = timezone.now() - timedelta(minutes=1)
    if Roll.objects.filter(roller=by, created_at__gte=since).count() >= limit:
        raise RulesError(f"That is {limit} rolls in a minute, faster than a table can follow: wait a moment.")


# --- inventory -------------------------------------------------------------------------------


def _check_carry(character: Character, item: rules_base.Item) -> None:
    """Before adding a row: the system's own sentence when it will not fit (the whole-sheet check after the
    write would refuse it too, in more general words)."""
    rules = system_for(character.system)
    rules.check_can_carry(character.checked_sheet(), rules.validate_item(item))


def _check_room(character: Character, adding: int = 1) -> None:
    """Every path that adds item rows stops at the cap: no sheet needs more, and pages stay fast."""
    if character.items.count() + adding > MAX_ITEMS:
        raise RulesError(f"A sheet holds at most {MAX_ITEMS} rows of items: drop something first.")


@transaction.atomic
def item_add(*, character_id: int, item: rules_base.Item, by, catalogue_item: CatalogueItem | None = None) -> Item:
    character = _lock(character_id)
    return _take(character, item, by=by, verb="Added", catalogue_item=catalogue_item)


def _take(
    character: Character,
    item: rules_base.Item,
    *,
    by,
    verb: str,
    catalogue_item: CatalogueItem | None = None,
    regions: tuple[str, ...] = ITEMS_CHANGE,
    paid: Mapping[str, Any] | None = None,
) -> Item:
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
        _check_room(character)
        row = _item_row(character, item, _next_position(character), catalogue_item)
        row.save()
    else:
        before["items"] = [history.item_snapshot(held)]
        held.quantity += item.quantity
        rules.validate_item(held.to_rules())  # one row's count stays within the rules' bound
        held.save(update_fields=["quantity"])
        row = held
    after["items"] = [history.item_snapshot(row)]
    what = f"{verb} {row.name}" + (f" ×{item.quantity}" if item.quantity > 1 else "")
    _touch(character, regions, by=by, what=what, before=before, after=after)
    return row


def catalogue_to_item(entry: CatalogueItem, quantity: int = 1) -> rules_base.Item:
    """Copy the catalogue's numbers now: a later admin edit never rewrites a character's item."""
    return rules_base.Item(
        name=clean_name(entry.name), kind=entry.kind, slots=entry.slots, quantity=quantity, data=dict(entry.data)
    )


@transaction.atomic
def item_add_from_catalogue(
    *, character_id: int, entry_id: int, by, buy: bool = False, quantity: int = 1
) -> Item | None:
    """Add a catalogue item (free, or bought). A service is paid for and leaves nothing to carry: None."""
    character = _lock(character_id)
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
        _touch(character, tuple(dict.fromkeys(regions)), by=by, what=f"Paid for {entry.name}", **paid)
        return None
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
def item_update(*, character_id: int, item_id: int, by, **fields) -> Item:
    character = _lock(character_id)
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
    _touch(  # refused past the carry limit
        character,
        ITEMS_CHANGE,
        by=by,
        what=f"{_item_verb(old['worn'], row.worn)} {row.name}",
        before={"items": [old]},
        after={"items": [history.item_snapshot(row)]},
    )
    return row


def _item_verb(was_worn: bool, worn: bool) -> str:
    if worn != was_worn:
        return "Put on" if worn else "Took off"
    return "Changed"


@transaction.atomic
def item_remove(*, character_id: int, item_id: int, by) -> None:
    character = _lock(character_id)
    row = character.items.filter(pk=item_id).first()
    if row is None:
        raise RulesError("That item is no longer on this sheet.")
    snapshot = history.item_snapshot(row)
    row.delete()
    _touch(
        character, ITEMS_CHANGE, by=by, what=f"Dropped {snapshot['name']}", check=False, before={"items": [snapshot]}
    )


# --- hirelings -------------------------------------------------------------------------------


@transaction.atomic
def hireling_hire(*, character_id: int, choices: Mapping[str, Any], by, rng: RandomSource | None = None) -> Hireling:
    character = _lock(character_id)
    if character.hirelings.count() >= MAX_HIRELINGS:
        raise RulesError(f"A sheet keeps at most {MAX_HIRELINGS} hirelings: part ways with one first.")
    rules = system_for(character.system)
    hired = rules.validate_hireling(rules.hire(character.to_sheet(), choices, rng or system_random()))
    if hired.upfront:
        character.state = rules.pay(character.checked_sheet(), hired.upfront, f"Hiring {hired.name} up front")
        character.save(update_fields=["state"])
    row = Hireling.objects.create(
        character=character,
        name=(clean_name(hired.name or "") or "Hireling")[:100],
        kind=hired.kind if hired.kind in Hireling.Kind.values else Hireling.Kind.HIRELING,
        state=dict(hired.state),
        wage=max(0, hired.wage),
    )
    regions = HIRELINGS_CHANGE + (STATE_CHANGE if hired.upfront else ())
    _touch(character, tuple(dict.fromkeys(regions)), by=by, what=f"Hired {row.name}")
    return row


@transaction.atomic
def hireling_update(*, character_id: int, hireling_id: int, state: Mapping[str, Any], by) -> Hireling:
    character = _lock(character_id)
    row = character.hirelings.filter(pk=hireling_id).first()
    if row is None:
        raise RulesError("That hireling is no longer with this character.")
    row.state = {**row.state, **state}
    row.state = dict(system_for(character.system).validate_hireling(row.to_rules()).state)
    row.save(update_fields=["state"])
    _touch(character, HIRELINGS_CHANGE, by=by, what=f"Updated {row.name}")
    return row


@transaction.atomic
def hireling_dismiss(*, character_id: int, hireling_id: int, by) -> None:
    character = _lock(character_id)
    row = character.hirelings.filter(pk=hireling_id).first()
    if row is None:
        raise RulesError("That hireling is no longer with this character.")
    name = row.name
    row.delete()
    _touch(character, HIRELINGS_CHANGE, by=by, what=f"Parted ways with {name}", check=False)


@transaction.atomic
def character_delete(*, character_id: int, by) -> None:
    character = _lock(character_id)
    campaign_id = character.campaign_id
    character.delete()
    publish(campaign_id, "party")
    conditions_changed(campaign_id)
