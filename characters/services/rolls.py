"""Rolls from a sheet (and a table's rolls without one), their odds, and the changes they offer to other sheets."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.utils import timezone

from accounts.names import clean_name
from characters import history, locking, table
from characters.models import OFFERS_PENDING_MAX, Change, Character, Item, OfferedChange, Roll
from characters.selectors import characters_editable_by
from characters.services.writes import (
    HIRELINGS_CHANGE,
    ITEMS_CHANGE,
    OFFERS_CHANGE,
    Written,
    announce_regions,
    check_room,
    check_version,
    item_row,
    lock,
    next_position,
    save_state,
    touch,
)
from live.events import RollAmended, RollMade, RollRestored, RollUndone, RollVoided, Seen, gm_only
from live.journal import record
from rules import SYSTEMS, RulesError, dice, system_for
from rules import base as rules_base
from rules.dice import RandomSource
from rules.free import FREE_ROLL
from rules.hand import dice_needed, roll_by_hand

if TYPE_CHECKING:
    from campaigns.models import Campaign


def character_odds(
    character: Character, procedure_key: str, raw_params: Mapping[str, Any], *, sheet: rules_base.Sheet | None = None
):
    """The exact odds of a procedure with these modifiers, without rolling (for the live odds panel).

    ``sheet``: the character's checked sheet when the caller has it already (the panel asks for several).
    """
    sheet = character.checked_sheet() if sheet is None else sheet
    procedure = _procedure(system_for(character.system), procedure_key)
    return procedure.odds(sheet, odds_params(character, procedure, sheet, raw_params))


def odds_params(character: Character, procedure, sheet: rules_base.Sheet, raw_params: Mapping[str, Any]) -> dict:
    """A roll's inputs checked, as its odds read them: another character an input names, as their Sheet."""
    params = _resolve(character, procedure, sheet, raw_params)
    # As in character_roll: the resolved rows are the app's, the rules get only the Sheets.
    return {k: v for k, v in params.items() if not k.endswith("__character")}


def character_dice_needed(
    character: Character, procedure_key: str, raw_params: Mapping[str, Any], *, sheet: rules_base.Sheet
) -> str:
    """The dice a roll asks for at these inputs, in words, for the faces field of a hand roll (rules.hand)."""
    procedure = _procedure(system_for(character.system), procedure_key)
    params = _resolve(character, procedure, sheet, raw_params)
    params = {k: v for k, v in params.items() if not k.endswith("__character")}
    return dice_needed(lambda source: procedure.roll(sheet, params, source)).words


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


@dataclass(frozen=True)
class SeatRead:
    """What a caller read of a character and its roller before any lock (characters.commands' seat)."""

    system: str
    campaign_id: int | None
    gm: bool  # the roller is the GM of that table


def read_lock_ids(
    character_id: int,
    procedure: str,
    params: Mapping[str, Any],
    read: tuple[int, rules_base.Sheet] | None,
    seat: SeatRead | None,
) -> set[int]:
    """The characters a roll will lock, from the sheet its caller read and checked already (``read``): no row
    read again; an empty set without one (or for a procedure the system lacks: the locked row says why)."""
    if read is None or seat is None or seat.system not in SYSTEMS:
        return set()
    proc = system_for(seat.system).procedures().get(procedure)
    if proc is None:
        return set()
    return _named_character_ids(proc, read[1], params) | {character_id}


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
    by: User,
    visibility: str = str(Roll.Visibility.PUBLIC),
    rng: RandomSource | None = None,
    expected_version: int | None = None,
    hand: str | None = None,
    requested_blind: bool = False,
    cause: str = "",
    shape: Callable[[rules_base.RollResult], rules_base.RollResult] | None = None,
    on_result: Callable[[rules_base.RollResult], None] | None = None,
    read: tuple[int, rules_base.Sheet] | None = None,
    seat: SeatRead | None = None,
) -> Written:
    """Roll on the server from the stored sheet and the picked modifiers; apply what the roll changes.

    ``cause``: who made the sheet roll, when not its character ("Goblin 1 hits Wren" before "Take damage"): it
    heads the roll's line in the log and the change in the sheet's history. ``shape``: the result as the caller
    words it before it is stored (an attack on an NPC names it and what it took).

    ``hand``: the faces the roller typed from dice rolled at the table (rules.hand), where the table allows it;
    the same rules resolve them. ``requested_blind``: a player answers the GM's blind request (only the GM
    chooses a blind roll otherwise). A blind roll changes nothing: its change to its own sheet is held on the
    roll for the GM to apply (``blind_apply``), so the player's sheet tells nothing before the GM does.

    What it wrote: its character, the regions of its sheet that changed (the log at least), the change the
    roll made to it if any, and the roll as ``row``.

    The roll changes only what its roller may edit: a change to a character they may not edit (another
    player's, when rolled by a player) is offered to that character's owner and the GM instead.

    ``read``: the version and the checked sheet the caller read the inputs against (characters.commands): not
    checked again when the row locked is still that version at the same table; the other characters its
    inputs name are found from it, not from the row read once more. ``seat``: what the caller's seat read of the
    character and of ``by`` before the lock (whether they are its table's GM is not asked again while the locked
    row is still at that table).
    """
    if visibility not in Roll.Visibility.values:
        raise RulesError("Pick who may see this roll: everyone, the GM, or only you.")
    _check_roll_rate(by)  # the roller's lock first (characters.locking)
    named = read_lock_ids(character_id, procedure, params, read, seat)
    locked = locking.lock_characters(named or roll_lock_ids(character_id, procedure, params))
    character = locked.get(character_id)
    if character is None:
        raise locking.Gone("That character is gone.")
    proc = _procedure(system_for(character.system), procedure)
    check_version(character, expected_version)
    # Written meanwhile: the inputs are read against the new sheet below; every character they name must be
    # among those locked (in id order, before this row's lock: one can't be taken now).
    moved = named and read is not None and read[0] != character.version
    if moved and not _named_character_ids(proc, character.to_sheet(), params) <= set(locked):
        raise RulesError("The sheet changed while you rolled: roll again.")
    at_table = seat is not None and seat.campaign_id == character.campaign_id
    gm = seat.gm if seat is not None and at_table else is_gm(by, character.campaign_id)
    _check_dice_allowed(character, gm=gm, hand=hand is not None)
    blind = visibility == Roll.Visibility.BLIND
    if blind and character.campaign_id is None:
        raise RulesError("A blind roll is for a table: only its GM sees the result.")
    if blind and not (gm or requested_blind):
        raise RulesError("Only the GM rolls blind, or asks a player for a blind roll.")
    if blind and hand is not None and not gm:  # the player's own dice would show them what the GM keeps
        raise RulesError("A blind roll is made with Lantern's dice: dice you roll yourself would show you the result.")
    sheet = sheet_as_read(read, character) or character.checked_sheet()
    resolved = _resolve(character, proc, sheet, params, locked=locked)
    others = {k.removesuffix("__character"): resolved.pop(k) for k in list(resolved) if k.endswith("__character")}
    if blind and others:
        raise RulesError("A roll that involves another character is seen by the whole table: it can't be blind.")
    editable = (  # a roll naming no other character asks nothing more (issue 39)
        set(characters_editable_by(by).filter(pk__in=[c.pk for c in others.values()]).values_list("pk", flat=True))
        if others
        else set()
    )
    strangers = [c for c in others.values() if c.pk not in editable]
    if strangers and visibility != Roll.Visibility.PUBLIC:
        names = ", ".join(c.name for c in strangers)
        raise RulesError(f"A roll that involves {names} is seen by the whole table: choose Everyone.")
    _check_offer_room(strangers)  # before the dice: a roll is never made only to be thrown away
    if hand is not None:
        result = roll_by_hand(lambda source: proc.roll(sheet, resolved, source), hand)
    else:
        result = proc.roll(sheet, resolved, rng or dice.system_random())
    if cause:
        result = replace(result, label=f"{cause}: {result.label}"[:200])
    if shape is not None:
        result = shape(result)
    if on_result is not None:  # a caller that acts on what the dice did (a PC's attack on the tracker's NPCs)
        on_result(result)
    if blind:
        roll = store_roll(character, result, by=by, visibility=visibility, by_hand=hand is not None)
        _hold(roll, character, result)
        return Written(character, frozenset(), None).adding(("log",), row=roll)
    changes = _changes_to_others(result, others)
    offered = [others[name] for name in changes if others[name].pk not in editable]
    if offered:
        who = ", ".join(f"{c.name}'s player" for c in offered)
        result = replace(result, summary=f"{result.summary} Offered to {who} and the GM to apply.".strip())
    roll = store_roll(character, result, by=by, visibility=visibility, by_hand=hand is not None)
    applied = _apply_result(character, result, by=by, roll=roll)
    for name, new_state in changes.items():
        other = others[name]
        if other.pk in editable:
            save_state(
                other, new_state, by=by, what=f"{result.label} by {character.name}{_HAND[roll.by_hand]}", roll=roll
            )
        else:
            _offer(other, new_state, roll=roll, result=result, by=by, from_character=character)
    written = applied or Written(character, frozenset(), None)
    return written.adding(("log",), row=roll)


def sheet_as_read(read: tuple[int, rules_base.Sheet] | None, character: Character) -> rules_base.Sheet | None:
    """The sheet the caller checked, if the locked row is still as it was read (every write moves the version on;
    the table's settings and conditions are the campaign's)."""
    if read is None or read[0] != character.version:
        return None
    sheet = read[1]
    same_table = sheet.settings == character.rule_settings() and sheet.table == character.table_conditions()
    return sheet if same_table else None


@transaction.atomic
def character_pass_time(
    *,
    character_id: int,
    unit: str,
    count: int,
    start_minutes: int,
    by: User,
    rng: RandomSource | None = None,
    start_seconds: int = 0,
) -> rules_base.RollResult:
    """What game time passing does to one sheet (lights burning down, food eaten, deprivation): applied like a
    roll's changes, so it is checked, kept in the history and seen live on the sheet."""
    character = lock(character_id)
    rules = system_for(character.system)
    sheet = character.checked_sheet()
    result = rules.advance_time(sheet, unit, count, start_minutes, rng or dice.system_random(), start_seconds)
    if result.state is not None or _changes_items(result):
        _apply_result(character, result, by=by)
    return result


@transaction.atomic
def character_table_effect(
    *, character_id: int, effect: Callable[[Any, rules_base.Sheet], rules_base.RollResult], by: User
) -> rules_base.RollResult:
    """What the table does to one sheet (a new combat round, a fight ending): ``effect(system, sheet)`` reads the
    locked, checked sheet and the result is applied like a roll's changes: checked, in the history, live."""
    character = lock(character_id)
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


def _offer(target: Character, new_state: Mapping[str, Any], *, roll: Roll, result, by: User, from_character) -> None:
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
    announce_regions(target, OFFERS_CHANGE, by=by)  # its sheet's offers (a region of its own, never kept) and its card


@transaction.atomic
def offer_apply(*, offer_id: int, by: User) -> Written:
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
    resolve_offer(offer, str(OfferedChange.Status.APPLIED), by)
    return save_state(target, state, by=by, what=f"Applied {offer.label}", also=OFFERS_CHANGE, roll=offer.roll_id)


@transaction.atomic
def offer_decline(*, offer_id: int, by: User) -> Written:
    target, offer = _lock_offer(offer_id, by)
    resolve_offer(offer, str(OfferedChange.Status.DECLINED), by)
    return touch(target, OFFERS_CHANGE, by=by, what=f"Declined {offer.label}", check=False)


def _lock_offer(offer_id: int, by: User) -> tuple[Character, OfferedChange]:
    """The offer's character, then the offer (the app's one order: characters.locking): locking the offer first
    deadlocked with the character's deletion, which holds the character and then deletes its offers."""
    found = OfferedChange.objects.filter(pk=offer_id).values_list("character_id", flat=True).first()
    if found is None or not characters_editable_by(by).filter(pk=found).exists():
        raise RulesError("That offer is not yours to answer.")
    target = lock(found)
    offer = OfferedChange.objects.select_for_update().filter(pk=offer_id, character=target).first()
    if offer is None:
        raise RulesError("That offer is not yours to answer.")
    if offer.status != OfferedChange.Status.PENDING:
        raise RulesError(f"That change was already {offer.get_status_display().lower()}.")
    return target, offer


def resolve_offer(offer: OfferedChange, status: str, by: User) -> None:
    offer.status = status
    offer.resolved_by = by
    offer.resolved_at = timezone.now()
    offer.save(update_fields=["status", "resolved_by", "resolved_at"])


def _changes_items(result: rules_base.RollResult) -> bool:
    return bool(result.items_added or result.items_removed or result.items_changed or result.hirelings_changed)


def _apply_result(
    character: Character, result: rules_base.RollResult, *, by: User, roll: Roll | None = None
) -> Written | None:
    """Apply what a roll (or time, or the table) did to the sheet; what it wrote, or None if it changed nothing.

    ``roll``: the roll that did it, named by the history's entry (voiding the roll reverts it)."""
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
    if roll is not None:
        what += _HAND[roll.by_hand]
        record["roll"] = roll
    if result.state is not None:
        return save_state(character, result.state, by=by, what=what, also=regions, **record)
    if regions:
        return touch(character, regions, by=by, what=what, **record)
    return None


def _apply_items(character: Character, result: rules_base.RollResult) -> tuple[list[dict], list[dict]]:
    """Apply a roll's inventory changes; the rows as they were and as they are now, for the history."""
    touched = {*result.items_removed, *(item.id for item in result.items_changed)}
    old_rows = [history.item_snapshot(row) for row in character.items.filter(pk__in=touched)]
    if result.items_removed:
        character.items.filter(pk__in=list(result.items_removed)).delete()
    for item in map(system_for(character.system).validate_item, result.items_changed):
        if item.id is None:  # a changed row always names its row: this one names none
            continue
        character.items.filter(pk=item.id).update(
            name=clean_name(item.name)[:100] or "Item",
            slots=item.slots,
            quantity=max(1, item.quantity),
            worn=item.worn,
            data=dict(item.data),
        )
    added: list[Item] = []
    if result.items_added:
        check_room(character, len(result.items_added))
        start = next_position(character)
        added = [item_row(character, item, start + i) for i, item in enumerate(result.items_added)]
        for row in added:  # one by one: history needs each new row's id
            row.save()
    for hireling in map(system_for(character.system).validate_hireling, result.hirelings_changed):
        if hireling.id is None:
            continue
        character.hirelings.filter(pk=hireling.id).update(state=dict(hireling.state), wage=hireling.wage)
    changed_ids = [item.id for item in result.items_changed]
    new_rows = [history.item_snapshot(row) for row in character.items.filter(pk__in=changed_ids)]
    return old_rows, new_rows + [history.item_snapshot(row) for row in added]


def odds_as_json(odds: rules_base.Odds | None) -> dict[str, str]:
    if odds is None:
        return {}
    return {key: f"{p.numerator}/{p.denominator}" for key, p in odds.outcomes}


def store_roll(
    character: Character | None,
    result: rules_base.RollResult,
    *,
    by: User,
    visibility: str,
    campaign=None,
    by_hand: bool = False,
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
        by_hand=by_hand,
    )
    # Its line lands in every log that lists it, on the pages of those who may see it.
    record(roll.campaign_id, RollMade(roll=roll.pk, character=roll.character_id, seen=roll_seen(roll)), by=by)
    return roll


def push_roll_line(roll: Roll, kind: type[RollVoided | RollRestored | RollUndone | RollAmended] = RollAmended) -> None:
    """Its line drawn again on every page that shows it (struck through, undone, applied): ``revision`` moved."""
    record(roll.campaign_id, kind(roll=roll.pk, character=roll.character_id, seen=roll_seen(roll)))


def bump_roll(roll: Roll, *fields: str) -> None:
    roll.revision += 1
    roll.save(update_fields=[*fields, "revision"])
    if "undone" in fields:
        push_roll_line(roll, RollUndone)
    elif "voided_at" in fields:
        push_roll_line(roll, RollVoided if roll.voided_at else RollRestored)
    else:
        push_roll_line(roll)


def mark_undone(change: Change) -> None:
    """A change reverted from the history marks the roll that made it (its line says so)."""
    roll = Roll.objects.select_for_update().filter(pk=change.roll_id, undone=False).first() if change.roll_id else None
    if roll is not None:
        roll.undone = True
        bump_roll(roll, "undone")


def roll_seen(roll: Roll) -> Seen:
    """Who may know of this roll: everyone, or its roller and the GMs (a blind roll's roller gets a line without its
    result: campaigns.push), or its roller alone (a private roll)."""
    if roll.visibility == Roll.Visibility.PUBLIC:
        return Seen()
    if roll.visibility == Roll.Visibility.PRIVATE:
        return Seen("private", (roll.roller_id,) if roll.roller_id else ())
    if roll.visibility == Roll.Visibility.BLIND:
        return Seen("blind", (roll.roller_id,) if roll.roller_id else ())
    return gm_only(roll.roller_id)


# What the history adds to a change made by a roll typed in from dice rolled at the table.
_HAND = {False: "", True: " (rolled by hand)"}


def is_gm(user, campaign_id: int | None) -> bool:
    return table.is_gm(user, campaign_id)


def _check_dice_allowed(character: Character, *, gm: bool, hand: bool) -> None:
    """A roll typed in by hand only where the table lets this roller (Campaign.hand_dice); away from a table the
    owner runs their own game and may."""
    campaign = character.campaign
    if not hand or campaign is None:
        return
    if not campaign.allows_hand_dice(gm=gm):
        who = "the GM" if gm and campaign.hand_dice == campaign.HandDice.PLAYERS else "anyone"
        raise RulesError(f"At {campaign.name} the server rolls the dice: {who} may not type in their own.")


def _hold(roll: Roll, character: Character, result: rules_base.RollResult) -> None:
    """Keep a blind roll's change to its own sheet on the roll, for the GM to apply: the state keys it changed."""
    if result.state is None:
        return
    new_state = system_for(character.system).validate_state(result.state)
    old = character.state
    changed = [
        k for k in sorted(set(old) | set(new_state)) if old.get(k, history.ABSENT) != new_state.get(k, history.ABSENT)
    ]
    if changed:
        roll.held = {
            "before": {k: old[k] for k in changed if k in old},
            "after": {k: new_state[k] for k in changed if k in new_state},
        }
        roll.save(update_fields=["held"])


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
    *,
    campaign: Campaign,
    params: Mapping[str, Any],
    by: User,
    visibility: str,
    procedure: rules_base.Procedure = FREE_ROLL,
    hand: str | None = None,
) -> Roll:
    """A roll without a character, logged as the GM's: a luck die, or a system's table roll (an NPC's morale).
    ``hand``: the faces of dice the GM rolled at the table, where everyone at it rolls by hand."""
    _check_roll_rate(by)  # a service that locked its campaign first took the roller's lock before it
    if hand is not None:
        if not campaign.allows_hand_dice(gm=True):
            raise RulesError(f"At {campaign.name} the GM rolls with the server's dice: the table's setting says so.")
        result = roll_by_hand(lambda source: procedure.roll(None, params, source), hand)
    else:
        result = procedure.roll(None, params, dice.system_random())  # table rolls take no sheet
    return store_roll(None, result, by=by, visibility=visibility, campaign=campaign, by_hand=hand is not None)


def _rolls_since(roller_id: int, since, limit: int) -> int:
    """How many rolls the roller made since then, counted no further than ``limit``: one fixed statement (the
    ORM's build of the count cost more than running it; issue 39), the work bounded by the cap."""
    table, roller = Roll._meta.db_table, Roll._meta.get_field("roller").column
    created = Roll._meta.get_field("created_at").column
    quote = connection.ops.quote_name
    sql = (
        f"SELECT COUNT(*) FROM (SELECT 1 FROM {quote(table)} WHERE {quote(roller)} = %s "
        f"AND {quote(created)} >= %s LIMIT %s) AS recent"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [roller_id, connection.ops.adapt_datetimefield_value(since), limit])
        return cursor.fetchone()[0]


def _check_roll_rate(by: User) -> None:
    """No table rolls faster than this: a flood would push everyone else's rolls off the log.

    Counted from the log itself, so the cap holds across every app process; under the roller's lock (the first
    in the app's order: characters.locking), so one account's rolls arriving at once are counted one by one.
    """
    locking.lock_roller(by)
    limit = settings.ROLLS_PER_MINUTE
    since = timezone.now() - timedelta(minutes=1)
    if _rolls_since(by.pk, since, limit) >= limit:
        raise RulesError(f"That is {limit} rolls in a minute, faster than a table can follow: wait a moment.")
