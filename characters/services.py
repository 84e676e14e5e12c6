"""Every write to a character goes through here: locked, validated by the rules, logged, announced.

Read-modify-write runs under ``select_for_update`` inside ``transaction.atomic`` (SQLite takes the
write lock at BEGIN: transaction_mode=IMMEDIATE), so two people clicking at once lose nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.db.models import Max

from accounts.names import clean_name
from campaigns.events import publish
from campaigns.models import Campaign
from characters.models import CatalogueItem, Change, Character, Hireling, Item, Roll
from rules import RulesError, system_for
from rules import base as rules_base
from rules.dice import RandomSource, system_random

MAX_ITEMS = 500  # a sanity bound: no sheet needs more rows, and it keeps pages fast


class StaleVersion(RulesError):
    """The form was made from an older version of the sheet than the one stored."""


def _announce(character: Character) -> None:
    publish(character.campaign_id, character.topic, version=character.version)


def _record(character: Character, *, by, what: str) -> None:
    Change.objects.create(character=character, by=by, what=what[:200], version=character.version)


def _lock(character_id: int) -> Character:
    return Character.objects.select_for_update().get(pk=character_id)


def _check_version(character: Character, expected_version: int | None) -> None:
    if expected_version is not None and expected_version != character.version:
        raise StaleVersion(
            "Someone changed this sheet while you were editing it. It now shows the latest numbers: "
            "check them and try again."
        )


def _save_state(character: Character, state: Mapping[str, Any], *, by, what: str) -> Character:
    character.state = system_for(character.system).validate_state(state)
    character.version += 1
    character.save(update_fields=["state", "version", "updated_at"])
    _record(character, by=by, what=what)
    _announce(character)
    return character


def _touch(character: Character, *, by, what: str) -> Character:
    """A change outside ``state`` (items, hirelings, name): still a new version, logged and announced."""
    character.version += 1
    character.save(update_fields=["version", "updated_at"])
    _record(character, by=by, what=what)
    _announce(character)
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
    creation = rules.create(choices, rng or system_random())
    state = rules.validate_state(creation.state)
    name = clean_name(creation.name or "")[:100] or "Nameless"
    character = Character.objects.create(owner=owner, system=system, name=name, state=state, campaign=campaign)
    Item.objects.bulk_create([_item_row(character, item, position) for position, item in enumerate(creation.items)])
    _record(character, by=owner, what="Created the character")
    for result in creation.rolls:
        _store_roll(character, result, by=owner, visibility=Roll.Visibility.PUBLIC)
    _announce(character)
    return character, creation


def _item_row(character: Character, item: rules_base.Item, position: int, catalogue_item=None) -> Item:
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
    character.name = name[:100]
    character.save(update_fields=["name"])
    return _touch(character, by=by, what=f"Renamed to {character.name}")


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
    return _touch(character, by=by, what=f"Joined {campaign.name}" if campaign else "Left the campaign")


@transaction.atomic
def character_adjust(*, character_id: int, key: str, delta: int, by) -> Character:
    """+/- on a track (HP, stress, Stamina...): the rules clamp it and refuse what they must."""
    character = _lock(character_id)
    rules = system_for(character.system)
    sheet = character.to_sheet()
    tracks = {track.key: track for track in rules.tracks(sheet)}
    track = tracks.get(key)
    if track is None or not track.adjustable:
        raise RulesError(f"{character.system_name} sheets have no {key} to change.")
    if not -1000 <= delta <= 1000:
        raise RulesError("Change a track by at most 1000 at a time.")
    state = rules.adjust(sheet, key, delta)
    return _save_state(character, state, by=by, what=f"{track.label} {delta:+d}")


def character_odds(character: Character, procedure_key: str, raw_params: Mapping[str, Any]):
    """The exact odds of a procedure with these modifiers, without rolling (for the live odds panel)."""
    rules = system_for(character.system)
    procedure = _procedure(rules, procedure_key)
    sheet = character.to_sheet()
    params = _resolve(character, procedure, sheet, raw_params)
    # As in character_roll: the resolved rows are the app's, the rules get only the Sheets.
    params = {k: v for k, v in params.items() if not k.endswith("__character")}
    return procedure.odds(sheet, params)


def _procedure(rules, key: str):
    procedure = rules.procedures().get(key)
    if procedure is None:
        raise RulesError(f"{rules.name} has no roll called {key!r}.")
    return procedure


def _resolve(character: Character, procedure, sheet, raw_params: Mapping[str, Any], *, lock: bool = False):
    """Check the inputs, and turn "character" inputs into that character's sheet (same table only)."""
    params = rules_base.check_params(procedure, sheet, raw_params)
    for param in procedure.params(sheet):
        if param.kind != "character" or params.get(param.name) is None:
            continue
        other_id = params[param.name]
        others = Character.objects.filter(pk=other_id, campaign_id=character.campaign_id)
        if character.campaign_id is None or other_id == character.pk:
            others = Character.objects.none()
        other = (others.select_for_update() if lock else others).first()
        if other is None:
            raise RulesError(f"{param.label}: pick another character at this table.")
        params[param.name] = other.to_sheet()
        params[f"{param.name}__character"] = other
    return params


@transaction.atomic
def character_roll(
    *,
    character_id: int,
    procedure: str,
    params: Mapping[str, Any],
    by,
    visibility: str = Roll.Visibility.PUBLIC,
    rng: RandomSource | None = None,
    expected_version: int | None = None,
) -> tuple[Character, Roll]:
    """Roll on the server from the stored sheet and the picked modifiers; apply what the roll changes."""
    if visibility not in Roll.Visibility.values:
        raise RulesError("Pick who may see this roll: everyone, the GM, or only you.")
    character = _lock(character_id)
    _check_version(character, expected_version)
    rules = system_for(character.system)
    proc = _procedure(rules, procedure)
    sheet = character.to_sheet()
    resolved = _resolve(character, proc, sheet, params, lock=True)
    opponents = {k: resolved.pop(k) for k in list(resolved) if k.endswith("__character")}
    result = proc.roll(sheet, resolved, rng or system_random())
    roll = _store_roll(character, result, by=by, visibility=visibility)
    _apply_result(character, result, by=by)
    if result.opponent_state is not None and opponents:
        other = next(iter(opponents.values()))
        _save_state(other, result.opponent_state, by=by, what=f"{result.label} by {character.name}")
    if result.state is None and not _changes_items(result):
        # Nothing on the sheet moved, but the table still wants to see the roll.
        publish(character.campaign_id, "rolls")
    return character, roll


def _changes_items(result: rules_base.RollResult) -> bool:
    return bool(result.items_added or result.items_removed or result.items_changed or result.hirelings_changed)


def _apply_result(character: Character, result: rules_base.RollResult, *, by) -> None:
    if _changes_items(result):
        _apply_items(character, result)
    if result.state is not None:
        _save_state(character, result.state, by=by, what=f"{result.label}: {result.outcome}")
    elif _changes_items(result):
        _touch(character, by=by, what=f"{result.label}: {result.outcome}")


def _apply_items(character: Character, result: rules_base.RollResult) -> None:
    if result.items_removed:
        character.items.filter(pk__in=list(result.items_removed)).delete()
    for item in result.items_changed:
        character.items.filter(pk=item.id).update(
            name=clean_name(item.name)[:100] or "Item",
            slots=item.slots,
            quantity=max(1, item.quantity),
            worn=item.worn,
            data=dict(item.data),
        )
    if result.items_added:
        start = _next_position(character)
        Item.objects.bulk_create([_item_row(character, item, start + i) for i, item in enumerate(result.items_added)])
    for hireling in result.hirelings_changed:
        character.hirelings.filter(pk=hireling.id).update(state=dict(hireling.state), wage=hireling.wage)


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
    publish(roll.campaign_id, "rolls")
    return roll


def _jsonable(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items() if not isinstance(v, rules_base.Sheet)}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    return str(value)


@transaction.atomic
def store_free_roll(*, campaign: Campaign, params: Mapping[str, Any], by, visibility: str) -> Roll:
    """A roll without a character: the GM's luck die and the like."""
    from rules.free import FREE_ROLL

    result = FREE_ROLL.roll(None, params, system_random())
    return _store_roll(None, result, by=by, visibility=visibility, campaign=campaign)


# --- inventory -------------------------------------------------------------------------------


def _check_carry(character: Character, item: rules_base.Item) -> None:
    rules = system_for(character.system)
    check = getattr(rules, "check_can_carry", None)
    if check is not None:
        check(character.to_sheet(), item)


@transaction.atomic
def item_add(*, character_id: int, item: rules_base.Item, by, catalogue_item: CatalogueItem | None = None) -> Item:
    character = _lock(character_id)
    if character.items.count() >= MAX_ITEMS:
        raise RulesError(f"A sheet holds at most {MAX_ITEMS} rows of items.")
    _check_carry(character, item)
    row = _item_row(character, item, _next_position(character), catalogue_item)
    row.save()
    _touch(character, by=by, what=f"Added {row.name}")
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
        rules = system_for(character.system)
        if entry.cost is None:
            raise RulesError(f"{entry.name} has no price: ask your GM, or add it for free.")
        price = entry.cost * quantity
        coins = int(character.state.get("coins", 0))
        if price > coins:
            raise RulesError(f"{entry.name} costs {rules.format_money(price)}; you have {rules.format_money(coins)}.")
        state = {**character.state, "coins": coins - price}
        character.state = rules.validate_state(state)
        character.save(update_fields=["state"])
    if entry.kind == Item.Kind.SERVICE:
        _touch(character, by=by, what=f"Paid for {entry.name}")
        return None
    item = catalogue_to_item(entry, quantity)
    _check_carry(character, item)
    row = _item_row(character, item, _next_position(character), entry)
    row.save()
    _touch(character, by=by, what=f"{'Bought' if buy else 'Added'} {row.name}")
    return row


@transaction.atomic
def item_update(*, character_id: int, item_id: int, by, **fields) -> Item:
    character = _lock(character_id)
    row = character.items.filter(pk=item_id).first()
    if row is None:
        raise RulesError("That item is no longer on this sheet.")
    allowed = {"quantity", "worn", "slots", "name"}
    for key, value in fields.items():
        if key not in allowed:
            raise RulesError(f"Items have no {key} to change.")
        setattr(row, key, clean_name(value)[:100] or row.name if key == "name" else value)
    if row.quantity < 1:
        raise RulesError("Quantity must be at least 1; remove the item instead.")
    row.save()
    _touch(character, by=by, what=f"Changed {row.name}")
    return row


@transaction.atomic
def item_remove(*, character_id: int, item_id: int, by) -> None:
    character = _lock(character_id)
    row = character.items.filter(pk=item_id).first()
    if row is None:
        raise RulesError("That item is no longer on this sheet.")
    name = row.name
    row.delete()
    _touch(character, by=by, what=f"Dropped {name}")


# --- hirelings -------------------------------------------------------------------------------


@transaction.atomic
def hireling_hire(*, character_id: int, choices: Mapping[str, Any], by, rng: RandomSource | None = None) -> Hireling:
    character = _lock(character_id)
    rules = system_for(character.system)
    hired = rules.hire(character.to_sheet(), choices, rng or system_random())
    if hired.upfront:
        coins = int(character.state.get("coins", 0))
        if hired.upfront > coins:
            raise RulesError(
                f"{hired.name} wants {rules.format_money(hired.upfront)} up front; "
                f"you have {rules.format_money(coins)}."
            )
        character.state = rules.validate_state({**character.state, "coins": coins - hired.upfront})
        character.save(update_fields=["state"])
    row = Hireling.objects.create(
        character=character,
        name=(clean_name(hired.name or "") or "Hireling")[:100],
        kind=hired.kind if hired.kind in Hireling.Kind.values else Hireling.Kind.HIRELING,
        state=dict(hired.state),
        wage=max(0, hired.wage),
    )
    _touch(character, by=by, what=f"Hired {row.name}")
    return row


@transaction.atomic
def hireling_update(*, character_id: int, hireling_id: int, state: Mapping[str, Any], by) -> Hireling:
    character = _lock(character_id)
    row = character.hirelings.filter(pk=hireling_id).first()
    if row is None:
        raise RulesError("That hireling is no longer with this character.")
    row.state = {**row.state, **state}
    row.save(update_fields=["state"])
    _touch(character, by=by, what=f"Updated {row.name}")
    return row


@transaction.atomic
def hireling_dismiss(*, character_id: int, hireling_id: int, by) -> None:
    character = _lock(character_id)
    row = character.hirelings.filter(pk=hireling_id).first()
    if row is None:
        raise RulesError("That hireling is no longer with this character.")
    name = row.name
    row.delete()
    _touch(character, by=by, what=f"Parted ways with {name}")


@transaction.atomic
def character_delete(*, character_id: int, by) -> None:
    character = _lock(character_id)
    campaign_id = character.campaign_id
    character.delete()
    publish(campaign_id, "party")
