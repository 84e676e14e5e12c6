"""Corrections to the roll log: a roll voided (struck through, what it changed reverted through the history), a
change undone from the history marking the roll that made it, and a blind roll's held change applied by the GM."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from accounts.names import clean_name
from characters import history, locking
from characters.models import Change, OfferedChange, Roll
from characters.selectors import rolls_visible_to
from characters.services.rolls import bump_roll, is_gm, resolve_offer
from characters.services.sheet import change_revert
from characters.services.writes import Written, save_state
from rules import RulesError

VOID_OWN_WITHIN = timedelta(minutes=1)  # a player voids their own roll only this soon after it


@transaction.atomic
def roll_void(*, roll_id: int, by: User, reason: str) -> Roll:
    """Strike a roll from the log with a reason, reverting whatever it changed (refused, with the history's
    sentence, when a field moved on since); pending offers it made are declined.

    The GM voids any roll of their table; a player only their own, within a minute and while nothing else changed
    the sheet since."""
    found = rolls_visible_to(by).filter(pk=roll_id).values_list("campaign_id", "roller_id", "character_id").first()
    if found is None:
        raise RulesError("That roll is not in a log you can see.")
    if Roll.objects.filter(pk=roll_id, procedure="creation").exists():
        raise RulesError("A character's creation is not voided: delete the character instead.")
    campaign_id, roller_id, character_id = found
    gm = is_gm(by, campaign_id)
    if not gm and roller_id != by.pk:
        raise RulesError("Only the GM voids another person's roll.")
    reason = clean_name(reason)[:150]
    if not reason:
        raise RulesError("Say in a few words why you void it.")
    # A change that put nothing on record (a roll whose state came out as it was) has nothing to put back.
    changes = list(
        Change.objects.filter(roll_id=roll_id).exclude(before={}, after={}).values_list("pk", "character_id")
    )
    locking.lock_roller(by)
    locking.lock_characters({c for _, c in changes} | ({character_id} if character_id else set()))
    roll = Roll.objects.select_for_update().get(pk=roll_id)
    if roll.voided_at is not None:
        raise RulesError("That roll was voided already.")
    if not gm:
        if timezone.now() - roll.created_at > VOID_OWN_WITHIN:
            raise RulesError("A roll can be voided by its player only within a minute: ask the GM.")
        later = Change.objects.filter(character=roll.character, at__gt=roll.created_at).exclude(roll=roll)
        if roll.character_id and later.exists():
            raise RulesError("The sheet changed since that roll: ask the GM to void it.")
    for change_id, changed_id in sorted(changes, reverse=True):  # the newest first, as Revert would
        if not Change.objects.filter(reverts_id=change_id).exists():
            voided = f"Voided: {reason}"[:150]
            change_revert(character_id=changed_id, change_id=change_id, by=by, reason=voided, marks_roll=False)
    for offer in OfferedChange.objects.filter(roll=roll, status=OfferedChange.Status.PENDING):
        resolve_offer(offer, str(OfferedChange.Status.DECLINED), by)
    roll.voided_at, roll.voided_by, roll.void_reason = timezone.now(), by, reason
    bump_roll(roll, "voided_at", "voided_by", "void_reason")
    return roll


@transaction.atomic
def blind_apply(*, roll_id: int, by: User) -> Written:
    """The GM applies what a blind roll did to its own sheet, unless the sheet moved on in the same places."""
    found = Roll.objects.filter(pk=roll_id, visibility=Roll.Visibility.BLIND).values_list("campaign_id", "character_id")
    row = found.first()
    if row is None or not is_gm(by, row[0]):
        raise RulesError("Only the GM applies a blind roll.")
    if row[1] is None:
        raise RulesError("That roll's character is gone.")
    target = locking.lock_character(row[1])
    roll = Roll.objects.select_for_update().get(pk=roll_id)
    if not roll.held:
        raise RulesError("That roll changes nothing on the sheet.")
    if roll.held_applied:
        raise RulesError("That roll was applied already.")
    if roll.voided_at is not None:
        raise RulesError("That roll was voided: there is nothing to apply.")
    before, after = roll.held.get("before", {}), roll.held.get("after", {})
    current = target.state
    keys = set(before) | set(after)
    moved = [k for k in keys if current.get(k, history.ABSENT) != before.get(k, history.ABSENT)]
    if moved:
        raise RulesError(
            f"{target.name}'s sheet changed since that roll ({', '.join(sorted(moved))}): change it by hand."
        )
    state = {k: v for k, v in current.items() if k not in before or k in after}
    state.update(after)
    written = save_state(target, state, by=by, what=f"Applied the GM's blind roll ({roll.label})", roll=roll)
    roll.held_applied = True
    bump_roll(roll, "held_applied")
    return written
