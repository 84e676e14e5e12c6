"""The sheet as a whole: made, renamed, its details edited, a track adjusted, a change reverted, moved, deleted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from django.contrib.auth.models import User
from django.db import transaction

from accounts.names import clean_name
from characters import history, table
from characters.models import NOTES_MAX, CatalogueItem, Change, Character, Item, Roll
from characters.selectors import characters_editable_by
from characters.services.rolls import character_roll, mark_undone, sheet_as_read, store_roll
from characters.services.writes import (
    ITEMS_CHANGE,
    NAME_CHANGE,
    Written,
    check_room,
    check_version,
    item_row,
    lock,
    record_change,
    save_state,
    touch,
)
from rules import RulesError, dice, system_for
from rules import base as rules_base
from rules.dice import RandomSource

if TYPE_CHECKING:  # a type hint only: characters sit below campaigns
    from campaigns.models import Campaign

MAX_CHARACTERS = 200  # one account's: its character list draws them all
MAX_SEATS = 50  # characters at one table: its page draws a card for each, and every roll request asks them all


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
    if campaign is not None and not campaign.plays(system):
        raise RulesError(f"{campaign.name} plays {campaign.system_name}; make a character of that system.")
    check_character_room(owner, campaign)
    settings = rules.settings_in_force(campaign.stored_settings(system) if campaign is not None else None)
    creation = rules.create(choices, rng or dice.system_random(), settings=settings)
    state = rules.validate_state(creation.state)
    name = clean_name(creation.name or "")[:100] or "Nameless"
    character = Character.objects.create(owner=owner, system=system, name=name, state=state, campaign=campaign)
    # A starting item named like an entry of the system's catalogue is that entry's copy (one entry per name).
    entries = CatalogueItem.objects.filter(system=system, name__in=[clean_name(i.name)[:100] for i in creation.items])
    by_name = {entry.name: entry for entry in entries} if creation.items else {}
    Item.objects.bulk_create(
        [
            item_row(character, item, position, by_name.get(clean_name(item.name)[:100]))
            for position, item in enumerate(creation.items)
        ]
    )
    record_change(character, by=owner, what="Created the character")
    if creation.rolls:  # one line in the table's log, however many rolls creation took
        store_roll(character, _creation_roll(creation), by=owner, visibility=str(Roll.Visibility.PUBLIC))
    rules.validate_sheet(character.to_sheet())
    table.party_changed(character.campaign_id)  # one more in the party, perhaps with a torch lit
    return character, creation


def check_character_room(owner, campaign: Campaign | None = None) -> None:
    """Before a new character (made or imported): the account's cap, and its table's."""
    if Character.objects.filter(owner=owner).count() >= MAX_CHARACTERS:
        raise RulesError(f"You have {MAX_CHARACTERS} characters, as many as an account keeps: delete one first.")
    _check_seat(campaign)


def _check_seat(campaign: Campaign | None) -> None:
    """A character joining a table (made there, imported, or brought from elsewhere): the table's cap."""
    if campaign is not None and campaign.characters.count() >= MAX_SEATS:
        raise RulesError(f"{campaign.name} has {MAX_SEATS} characters already, as many as a table seats.")


def _creation_roll(creation: rules_base.Creation) -> rules_base.RollResult:
    """Creation's rolls folded into one log line: each roll's sentence in turn, without their dice (a chip per
    die, a d1 for a fixed bonus among them, is not a line a person reads: each sentence says what came up)."""
    return rules_base.RollResult(
        procedure="creation",
        label="Character creation",
        outcome="created",
        summary=" ".join(r.summary.strip() for r in creation.rolls if r.summary.strip())[:500],
        dice=(),
        inputs={"rolls": [r.label for r in creation.rolls]},
    )


@transaction.atomic
def character_rename(*, character_id: int, name: str, by: User, expected_version: int | None = None) -> Written:
    character = lock(character_id)
    check_version(character, expected_version)
    name = clean_name(name)
    if not name:
        raise RulesError("A character needs a name.")
    old = character.name
    character.name = name[:100]
    character.save(update_fields=["name"])
    return touch(
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
    by: User,
    name: str,
    notes: str = "",
    details: Mapping[str, Any] | None = None,
    expected_version: int | None = None,
) -> Written:
    """Name, notes and the system's descriptive fields (background, age...) after creation, in one change."""
    character = lock(character_id)
    check_version(character, expected_version)
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
    return save_state(character, state, by=by, what="Edited the details", also=NAME_CHANGE, before=before, after=after)


@transaction.atomic
def change_revert(
    *,
    character_id: int,
    change_id: int,
    by: User,
    reason: str,
    expected_version: int | None = None,
    marks_roll: bool = True,
) -> Written:
    """Put back what one change did, as a new change that names it; refused when a field moved on since.

    The owner or the GM may revert (a GM can bring back the dead); each change is reverted at most once. A change
    a roll made marks that roll undone (``marks_roll``; a void, which strikes the roll itself, does not).
    """
    if not characters_editable_by(by).filter(pk=character_id).exists():
        raise RulesError("Only the character's player or the GM can revert its changes.")
    character = lock(character_id)
    change = Change.objects.filter(pk=change_id, character=character).first()
    if change is None:
        raise RulesError("That change is not in this character's history.")
    check_version(character, expected_version)
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
    record: dict[str, Any] = {
        "what": f"Reverted “{change.what}”"[:200],
        "before": {k: v for k, v in after.items() if k != "state"},
        "after": {k: v for k, v in before.items() if k != "state"},
        "reverts": change,
        "reason": reason,
    }
    if marks_roll:
        mark_undone(change)
    if "state" in before or "state" in after:
        return save_state(character, state, by=by, also=tuple(dict.fromkeys(regions)), **record)
    return touch(character, tuple(dict.fromkeys(regions)), by=by, **record)


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
        # item_row validates by the rules and cleans the name, as for any new row.
        catalogue = CatalogueItem.objects.filter(pk=snapshot.get("catalogue_item") or 0).first()
        row = item_row(character, item, snapshot.get("position", 0), catalogue)
        fields = {field: getattr(row, field) for field in history.ITEM_FIELDS}
        if "catalogue_version" in snapshot:  # a catalogue update undone: the copy is of the older version again
            row.catalogue_version = snapshot["catalogue_version"] if catalogue is not None else None
            fields["catalogue_version"] = row.catalogue_version
        if not character.items.filter(pk=snapshot["id"]).update(**fields):
            check_room(character)
            row.save()


@transaction.atomic
def character_set_campaign(*, character_id: int, campaign: Campaign | None, by: User) -> Written:
    character = lock(character_id)
    if campaign is not None and not campaign.plays(character.system):
        raise RulesError(f"{campaign.name} plays {campaign.system_name}, not {character.system_name}.")
    old_campaign = character.campaign_id
    if campaign is not None and campaign.pk != old_campaign:
        _check_seat(campaign)
    character.campaign = campaign
    character.save(update_fields=["campaign"])
    table.party_changed(old_campaign)  # the party's size and lights change at both tables
    table.party_changed(character.campaign_id)
    return touch(character, (), by=by, what=f"Joined {campaign.name}" if campaign else "Left the campaign", check=False)


class HarmOffered(Exception):  # noqa: N818 - an answer, not a failure: the Change box asks before changing
    """The Change box's change crosses a line the rules act on: nothing was written, and ``shown`` is what the
    box asks in place (the track's key and label, the delta, the rules' ``HarmOffer``)."""

    def __init__(self, shown: dict[str, Any]) -> None:
        super().__init__(shown["offer"].skipped)
        self.shown = shown


def character_adjust(
    *,
    character_id: int,
    key: str,
    delta: int,
    by: User,
    ask: bool = False,
    read: tuple[int, rules_base.Sheet] | None = None,
    locked: Character | None = None,
) -> Written:
    """+/- on a track (HP, stress, Stamina...): the rules clamp it and refuse what they must.

    Across a line the rules act on (``GameSystem.harm_offer``: 0 HP, 0 Stamina...), ``ask`` raises HarmOffered
    and writes nothing, for the Change box to offer the rules' way; otherwise the plain change is applied and its
    history line says what it left out. ``read``: the version and the checked sheet the caller read (the offline
    replay's, under the same lock): not checked again while the row is still that version. ``locked``: the row as
    the caller's transaction locked it already (``commands.editable(lock=True)``): not read again; with ``read``
    of its version, neither are its items and hirelings."""
    held = locked if locked is not None and locked.pk == character_id else None
    # Inside the caller's transaction, which holds the lock: no savepoint (a refusal rolls the caller's back).
    with transaction.atomic(savepoint=held is None):
        character = held or lock(character_id, with_rows=True)
        return _adjust(character, key=key, delta=delta, by=by, ask=ask, read=read)


def _adjust(
    character: Character, *, key: str, delta: int, by: User, ask: bool, read: tuple[int, rules_base.Sheet] | None
) -> Written:
    rules = system_for(character.system)
    sheet = sheet_as_read(read, character) or character.checked_sheet()
    tracks = {track.key: track for track in rules.tracks(sheet)}
    track = tracks.get(key)
    if track is None or not track.adjustable:
        raise RulesError(f"{character.system_name} sheets have no {key} to change.")
    if not -1000 <= delta <= 1000:
        raise RulesError("Change a track by at most 1000 at a time.")
    offer = _harm_offer(rules, sheet, key, delta)
    if offer is not None and ask:
        raise HarmOffered({"key": key, "delta": delta, "label": track.label, "offer": offer})
    state = rules.adjust(sheet, key, delta)
    # A plain change across a line the rules act on says what it left out (the Change box offered the rules').
    skipped = f" by hand, without {offer.skipped}" if offer is not None else ""
    return save_state(character, state, by=by, what=f"{track.label} {delta:+d}{skipped}"[:200], read=sheet)


def _harm_offer(rules, sheet: rules_base.Sheet, key: str, delta: int) -> rules_base.HarmOffer | None:
    offer = rules.harm_offer(sheet, key, delta)
    return offer if offer is not None and offer.procedure in rules.procedures() else None


@transaction.atomic
def character_adjust_by_rules(*, character_id: int, key: str, delta: int, by: User) -> Written:
    """The Change box's change taken the rules' way (``GameSystem.harm_offer``): their procedure rolled with its
    inputs, as any roll of the sheet (logged, in the history, live); refused with a sentence when the change
    crosses nothing now (the sheet moved on since the box asked)."""
    character = lock(character_id)
    rules = system_for(character.system)
    sheet = character.checked_sheet()
    track = next((t for t in rules.tracks(sheet) if t.key == key and t.adjustable), None)
    offer = _harm_offer(rules, sheet, key, delta) if track is not None and -1000 <= delta <= 1000 else None
    if offer is None:
        raise RulesError("That change crosses nothing the rules act on now: apply it as a plain change.")
    return character_roll(character_id=character_id, procedure=offer.procedure, params=dict(offer.params), by=by)


@transaction.atomic
def character_apply_settings(*, character_id: int, by: User) -> Written:
    """Bring a character made earlier in line with the creation settings its table now has (house defaults
    the GM changed since): a logged, live change like any other, refused when the system has nothing to apply."""
    character = lock(character_id)
    rules = system_for(character.system)
    state = rules.apply_settings(character.checked_sheet())
    if state is None:
        raise RulesError(f"{character.system_name} has nothing to apply to a character made earlier.")
    return save_state(character, state, by=by, what="Applied the table's rule settings")


@transaction.atomic
def character_delete(*, character_id: int, by: User) -> None:
    character = lock(character_id)
    campaign_id = character.campaign_id
    character.delete()
    table.party_changed(campaign_id)
