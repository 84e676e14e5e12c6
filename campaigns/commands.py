"""What a person does at a table, once for every door (issue 38; characters.commands for a character's own
writes): the sheet's request card, the API and any later door read their request into these plain inputs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User

from campaigns import session
from campaigns.models import RollRequestAnswer
from campaigns.selectors import campaigns_run_by
from campaigns.services import TableWritten
from characters.commands import NotHere, read_inputs
from characters.models import Character
from characters.selectors import Seat
from rules import SYSTEMS, RulesError


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


def ask_for_roll(
    by: User,
    *,
    campaign_id: int,
    procedure: str,
    inputs: Mapping[str, Any],
    minutes: int = 10,
    blind: bool = False,
    character_ids: Sequence[int] = (),
) -> TableWritten:
    """The GM asks the table's characters (or those named) for one roll, as the GM's request card does; ``inputs``:
    those the GM fixes (a word or a number each, as the card's fields send). Anyone else: no such campaign."""
    if not campaigns_run_by(by).filter(pk=campaign_id).exists():
        raise NotHere("No campaign here.")
    ids = list(character_ids) or list(Character.objects.filter(campaign_id=campaign_id).values_list("pk", flat=True))
    return session.request_create(
        campaign_id=campaign_id,
        procedure=procedure,
        fixed=dict(inputs),
        character_ids=ids,
        minutes=minutes,
        by=by,
        blind=blind,
    )
