"""What a person does at a table, once for every door (issue 38; characters.commands for a character's own
writes): the sheet's request card, the API and any later door read their request into these plain inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User

from campaigns import session
from campaigns.models import Membership, RollRequestAnswer
from campaigns.services import TableWritten
from characters.commands import NotHere, read_inputs
from characters.models import Item
from characters.selectors import Seat
from rules import SYSTEMS, RulesError
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


# --- time the server keeps (issue 41): the GM's alone, from the pages and the API alike ---------------------------


class NotTheGM(Refusal):
    """Something only the table's GM does."""

    status = 403


def _gm(seat: Membership) -> None:
    if not seat.is_gm:
        raise NotTheGM("Only the GM keeps the table's time and its countdowns.")


def run_realtime(seat: Membership, *, running: bool, by: User, rate: int = 1) -> TableWritten:
    """Start game time running with the wall clock (at ``rate``), or pause it."""
    _gm(seat)
    if running:
        return session.realtime_start(campaign_id=seat.campaign_id, by=by, rate=rate)
    return session.realtime_pause(campaign_id=seat.campaign_id, by=by)


def make_countdown(
    seat: Membership, *, name: str, segments: int, shown: str, every_minutes: int | None, by: User
) -> TableWritten:
    _gm(seat)
    return session.countdown_create(
        campaign_id=seat.campaign_id, name=name, segments=segments, shown=shown, every_minutes=every_minutes, by=by
    )


def tick_countdown(seat: Membership, *, countdown_id: int, by: User, step: int = 1) -> TableWritten:
    _gm(seat)
    return session.countdown_tick(campaign_id=seat.campaign_id, countdown_id=countdown_id, by=by, step=step)


def show_countdown(seat: Membership, *, countdown_id: int, shown: str, by: User) -> TableWritten:
    _gm(seat)
    return session.countdown_show(campaign_id=seat.campaign_id, countdown_id=countdown_id, shown=shown, by=by)


def remove_countdown(seat: Membership, *, countdown_id: int, by: User) -> TableWritten:
    _gm(seat)
    return session.countdown_remove(campaign_id=seat.campaign_id, countdown_id=countdown_id, by=by)


def set_light_time(seat: Membership, *, item_id: int, minutes: int, by: User) -> TableWritten:
    """The GM sets how long a light at the table has left (any character's: the item names it)."""
    _gm(seat)
    item = Item.objects.filter(pk=item_id, character__campaign_id=seat.campaign_id).only("character_id").first()
    if item is None:
        raise NotHere("That light is not at this table.")
    return session.light_set_time(
        campaign_id=seat.campaign_id, character_id=item.character_id, item_id=item_id, minutes=minutes, by=by
    )
