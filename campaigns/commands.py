"""What a person does at a table, once for every door (issue 38; characters.commands for a character's own
writes): the sheet's request card, the API and any later door read their request into these plain inputs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import User

from campaigns import session
from campaigns.models import ChronicleLine, Membership, PlaySession, RollRequestAnswer
from campaigns.selectors import seats_of
from campaigns.services import TableWritten
from characters.commands import NotHere, read_inputs
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


# --- play sessions and their chronicle (issue 40) -------------------------------------------------------------


class NotTheGm(Refusal):
    """A member asked for what only the table's GM does."""

    status = 403


def table_seat(user, campaign_id: int) -> Membership:
    """The user's seat at the table; a table they do not sit at is answered as one that does not exist."""
    seat = seats_of(user).filter(campaign_id=campaign_id).first()
    if seat is None:
        raise NotHere("No campaign here.")
    return seat


def start_session(user: User, campaign_id: int) -> PlaySession:
    """The GM starts a session at their table."""
    if not table_seat(user, campaign_id).is_gm:
        raise NotTheGm("Only the GM starts a session.")
    return session.session_start(campaign_id=campaign_id, by=user).row


def end_session(user: User, campaign_id: int, *, summary: str = "") -> PlaySession:
    """The GM ends the session under way, with a summary."""
    if not table_seat(user, campaign_id).is_gm:
        raise NotTheGm("Only the GM ends a session.")
    return session.session_end(campaign_id=campaign_id, by=user, summary=summary).row


def write_summary(user: User, campaign_id: int, number: int, *, text: str) -> PlaySession:
    if not table_seat(user, campaign_id).is_gm:
        raise NotTheGm("Only the GM writes a session's summary.")
    return session.session_summary(campaign_id=campaign_id, number=number, text=text, by=user).row


def play_session(user, campaign_id: int, number: int) -> tuple[Membership, PlaySession]:
    """One session of a table the user sits at (else: none here)."""
    seat = table_seat(user, campaign_id)
    found = PlaySession.objects.filter(campaign_id=campaign_id, number=number).first()
    if found is None:
        raise NotHere("No such session at this table.")
    return seat, found


def add_line(user: User, campaign_id: int, number: int, *, entry: str, text: str) -> ChronicleLine:
    """A member's own line on an entry of a chronicle they may read."""
    seat = table_seat(user, campaign_id)
    return session.line_add(
        campaign_id=campaign_id, number=number, entry=str(entry)[:40], text=text, by=user, is_gm=seat.is_gm
    )


def edit_line(user: User, campaign_id: int, line_id: int, *, text: str) -> ChronicleLine:
    table_seat(user, campaign_id)
    return session.line_edit(campaign_id=campaign_id, line_id=line_id, text=text, by=user)


def remove_line(user: User, campaign_id: int, line_id: int) -> int:
    table_seat(user, campaign_id)
    return session.line_remove(campaign_id=campaign_id, line_id=line_id, by=user)
