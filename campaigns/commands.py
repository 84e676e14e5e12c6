"""What a person does at a table, once for every door (issue 38; characters.commands for a character's own
writes): the sheet's request card, the API and any later door read their request into these plain inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User

from campaigns import session
from campaigns.models import RollRequestAnswer
from campaigns.selectors import campaigns_run_by
from campaigns.services import TableWritten
from characters.commands import NotHere, read_inputs
from characters.selectors import Seat, character_for
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


# --- group checks (issue 40): what only the table's GM does to them, for the page and the API alike -----------------


def _run_by(campaign_id: int, by: User) -> None:
    """Only the table's GM runs a group check; anyone else is answered as if the table were not there."""
    if not campaigns_run_by(by).filter(pk=campaign_id).exists():
        raise NotHere("No campaign here that you run.")


def ask(campaign_id: int, *, procedure: str, fixed: Mapping[str, Any], character_ids: list[int], by: User, **how: Any):
    """The GM asks characters for a roll, a group check when ``how`` names a rule (session.request_create)."""
    _run_by(campaign_id, by)
    return session.request_create(
        campaign_id=campaign_id, procedure=procedure, fixed=fixed, character_ids=character_ids, by=by, **how
    )


def skip(campaign_id: int, *, request_id: int, character_id: int, by: User) -> TableWritten:
    """The GM leaves an absent player's character out of a group check."""
    _run_by(campaign_id, by)
    return session.request_skip(request_id=request_id, campaign_id=campaign_id, character_id=character_id, by=by)


def close(campaign_id: int, *, request_id: int, by: User) -> TableWritten:
    """The GM closes a group check: its outcome from those who rolled."""
    _run_by(campaign_id, by)
    return session.request_close(request_id=request_id, campaign_id=campaign_id, by=by)


def roll_for(campaign_id: int, *, request_id: int, character_id: int, by: User, hand: str = "") -> TableWritten:
    """The GM rolls a waiting answer on its player's behalf (the roll's line says so), at the GM's inputs and the
    sheet's defaults for the rest."""
    _run_by(campaign_id, by)
    seat = character_for(by, character_id)
    if seat is None or seat.character.campaign_id != campaign_id:
        raise NotHere("That character is not at this table.")
    return answer_request(seat, request_id=request_id, inputs={}, by=by, hand=hand)
