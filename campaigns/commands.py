"""What a person does at a table, once for every door (issue 38; characters.commands for a character's own
writes): the sheet's request card, the API and any later door read their request into these plain inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User
from django.db import transaction

from campaigns import session, stash
from campaigns.models import Membership, RollRequestAnswer
from campaigns.services import TableWritten
from characters.commands import NotHere, editable, read_inputs
from characters.models import Item
from characters.selectors import Seat
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from rules.errors import Refusal


def answer_request(seat: Seat, *, request_id: int, inputs: Mapping[str, Any], by: User, hand: str = "") -> TableWritten:
    """Answer the GM's roll request for the seat's character: one roll, the GM's inputs as set. ``inputs``: those
    the GM left to the player (only inputs really sent can disagree with the GM's); ``hand``: the faces of dice
    rolled at the table. ``seat``: the character as its viewer sees it (a player at the table who may not change
    it is told whose it is)."""
    if not seat.viewer.can_edit:
        raise RulesError("That request is for someone else's character: only its player or the GM answers it.")
    character = seat.character
    found = RollRequestAnswer.objects.filter(request_id=request_id, character=character).select_related("request")
    answer = found.first()
    if answer is None:  # nothing there this person may see: as if it never was
        raise NotHere("That request is not for this character.")
    rules = SYSTEMS.get(character.system)
    proc = rules.procedures().get(answer.request.procedure) if rules is not None else None
    if proc is None:
        raise RulesError("That roll no longer exists.")
    sheet = character.checked_sheet()
    given = read_inputs(proc, sheet, inputs, gm=seat.viewer.is_gm)
    given = {k: v for k, v in given.items() if k not in answer.request.inputs or k in inputs}
    done: dict[str, Any] = {"request_id": request_id, "character_id": character.pk, "params": given, "by": by}
    return session.request_answer(**done, hand=hand.strip()[:400] or None, read=(character.version, sheet))


# --- the party's stash (issue 41) ----------------------------------------------------------------------------------


class GmOnly(Refusal):
    """A stash write only the table's GM makes."""

    status = 403


def stash_seat(user, campaign_id: int, *, gm: bool = False) -> Membership:
    """The user's seat at the table whose stash this is: a stranger learns nothing (404); ``gm``: the GM's alone."""
    seat = (
        Membership.objects.select_related("campaign").filter(campaign_id=campaign_id, user=user).first()
        if user.is_authenticated
        else None
    )
    if seat is None:
        raise NotHere("No campaign here.")
    if gm and not seat.is_gm:
        raise GmOnly("Only the GM hands out loot, removes it, splits the coins or reverts the stash's moves.")
    return seat


def _mover(user, campaign_id: int, character_id: int) -> Seat:
    """The character a stash move is for: one this person may change (its owner, the GM), at this table."""
    stash_seat(user, campaign_id)
    seat = editable(user, character_id)
    if seat.character.campaign_id != campaign_id:
        raise NotHere("No character here.")
    return seat


def whole(raw: Any, label: str, *, low: int = 1, high: int = 10**12, blank: int | None = None) -> int | None:
    """A whole number a form or a JSON body sent (blank: ``blank``), or a sentence naming the field."""
    if raw is None or raw == "":
        return blank
    if isinstance(raw, bool):
        raise RulesError(f"{label}: give a whole number.")
    if isinstance(raw, str):
        raw = raw.strip()
        if not (raw.isascii() and raw.isdigit()) or len(raw) > 13:  # "²" is a digit to isdigit, not to int
            raise RulesError(f"{label}: give a whole number between {low} and {high:,}.")
        raw = int(raw)
    if not isinstance(raw, int) or not low <= raw <= high:
        raise RulesError(f"{label}: give a whole number between {low} and {high:,}.")
    return raw


def take_from_stash(
    user: User, campaign_id: int, *, character_id: int, stash_item_id: int, quantity: int | None = None
) -> TableWritten:
    _mover(user, campaign_id, character_id)
    return stash.stash_take(
        campaign_id=campaign_id, character_id=character_id, stash_item_id=stash_item_id, quantity=quantity, by=user
    )


def put_in_stash(
    user: User, campaign_id: int, *, character_id: int, item_id: int, quantity: int | None = None
) -> TableWritten:
    _mover(user, campaign_id, character_id)
    return stash.stash_put(
        campaign_id=campaign_id, character_id=character_id, item_id=item_id, quantity=quantity, by=user
    )


def move_coins(user: User, campaign_id: int, *, character_id: int, amount: int, take: bool) -> TableWritten:
    _mover(user, campaign_id, character_id)
    move = stash.stash_take_coins if take else stash.stash_put_coins
    return move(campaign_id=campaign_id, character_id=character_id, amount=amount, by=user)


def add_loot(
    user: User, campaign_id: int, *, name: str, kind: str, slots: int, quantity: int, coins: int = 0
) -> TableWritten | None:
    """The GM hands out loot: an item (if named), coins (if any), each its own entry of the stash's history."""
    stash_seat(user, campaign_id, gm=True)
    name = str(name or "").strip()
    if not name and not coins:
        raise RulesError("Name the item, or give some coins.")
    if name and kind not in Item.Kind.values:
        raise RulesError("Pick the kind of item.")
    done = None
    with transaction.atomic():  # the item and the coins, or neither
        if name:
            item = rules_base.Item(name=name, kind=kind, slots=slots, quantity=quantity)
            done = stash.stash_add_item(campaign_id=campaign_id, item=item, by=user)
        if coins:
            done = stash.stash_add_coins(campaign_id=campaign_id, amount=coins, by=user)
    return done


def remove_loot(user: User, campaign_id: int, *, stash_item_id: int, quantity: int | None = None) -> TableWritten:
    stash_seat(user, campaign_id, gm=True)
    return stash.stash_remove_item(campaign_id=campaign_id, stash_item_id=stash_item_id, quantity=quantity, by=user)


def split_coins(user: User, campaign_id: int, *, character_ids: list[int], amount: int) -> TableWritten:
    stash_seat(user, campaign_id, gm=True)
    return stash.coins_split(campaign_id=campaign_id, character_ids=character_ids, amount=amount, by=user)


def revert_stash_entry(user: User, campaign_id: int, *, entry_id: int, reason: str) -> TableWritten:
    stash_seat(user, campaign_id, gm=True)
    return stash.stash_entry_revert(campaign_id=campaign_id, entry_id=entry_id, by=user, reason=reason)
