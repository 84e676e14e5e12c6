"""Rolls through the API: a roll from the sheet, its odds, and the answer to the GM's roll request, through the
commands every door shares (characters.commands, campaigns.commands)."""

from __future__ import annotations

from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Router, Schema
from ninja.errors import HttpError
from ninja.responses import codes_4xx

from api import serialize
from api.access import character_seat, token_of
from api.common import Detail, Id, RollOut
from campaigns import commands as table_commands
from characters import commands, services
from characters.models import Roll
from rules.errors import Refusal, Settled

router = Router()


class RollIn(Schema):
    params: dict[str, Any] = Field(default_factory=dict, description="The roll's inputs by name, as the sheet's form.")
    visibility: Literal["public", "gm", "private", "blind"] = "public"
    hand: str = Field("", max_length=400, description="Faces of dice rolled at the table, where it allows them.")
    version: Id | None = Field(None, description="The sheet's version you rolled against: refused if it moved on.")


class Rolled(Schema):
    roll: RollOut
    odds: dict[str, str] = Field(description="The exact odds of each outcome, as fractions.")
    sheet_version: int


class OddsIn(Schema):
    params: dict[str, Any] = Field(default_factory=dict, description="The roll's inputs by name, as for a roll.")


class OddsOut(Schema):
    odds: dict[str, str] | None = Field(description="Exact odds of each outcome; null when no dice decide it.")
    settled: str = Field("", description="What the sheet already answers, when it does (“The dead take no more…”).")


class AnswerIn(Schema):
    params: dict[str, Any] = Field(default_factory=dict, description="The inputs the GM left to the player.")
    hand: str = Field("", max_length=400)


class Answered(Schema):
    request_id: int
    character_id: int
    roll: RollOut


def _roll_shown(roll_id: int, *, gm: bool) -> dict[str, Any]:
    roll = Roll.objects.select_related("character", "roller", "voided_by").get(pk=roll_id)
    return serialize.roll_json(roll, gm=gm)


@router.post(
    "/characters/{id:character_id}/rolls/{procedure}",
    response={200: Rolled, codes_4xx: Detail},
    url_name="character_roll",
)
def character_roll(request: HttpRequest, character_id: int, procedure: str, payload: RollIn):
    """Roll a procedure from the sheet, as its roll panel does: the same checks, the roll cap, the dice on the
    server (or typed in, where the table allows it); the result comes with its exact odds."""
    seat = character_seat(request, character_id, write=True)
    rolled = commands.roll(
        seat,
        procedure=procedure,
        inputs=payload.params,
        by=token_of(request).user,
        visibility=payload.visibility,
        version=payload.version,
        hand=payload.hand,
    )
    shown = _roll_shown(rolled.row.pk, gm=seat.viewer.is_gm)
    return {"roll": shown, "odds": shown.get("odds") or {}, "sheet_version": rolled.character.version}


@router.post(
    "/characters/{id:character_id}/odds/{procedure}",
    response={200: OddsOut, codes_4xx: Detail},
    url_name="character_odds",
)
def character_odds(request: HttpRequest, character_id: int, procedure: str, payload: OddsIn):
    """The exact odds of a roll with these inputs, without rolling it (the roll panel's odds box)."""
    seat = character_seat(request, character_id)
    try:
        if not seat.viewer.can_edit:
            raise commands.NotHere("")
        proc = commands.procedure_of(seat, procedure)
    except Refusal:  # a roll this viewer doesn't make is one the sheet doesn't have
        raise HttpError(404, f"No roll called {procedure!r} here.") from None
    sheet = seat.character.checked_sheet()
    params = commands.read_inputs(proc, sheet, payload.params, gm=seat.viewer.is_gm)
    try:
        odds = services.character_odds(seat.character, procedure, params, sheet=sheet)
    except Settled as settled:
        return {"odds": None, "settled": str(settled)}
    return {"odds": services.odds_as_json(odds) if odds is not None else None}


@router.post(
    "/characters/{id:character_id}/requests/{id:request_id}/answer",
    response={200: Answered, codes_4xx: Detail},
    url_name="character_answer",
)
def character_answer(request: HttpRequest, character_id: int, request_id: int, payload: AnswerIn):
    """Answer the GM's roll request for this character: one roll, the GM's inputs as set."""
    seat = character_seat(request, character_id, write=True)
    by = token_of(request).user
    done = table_commands.answer_request(seat, request_id=request_id, inputs=payload.params, by=by, hand=payload.hand)
    shown = _roll_shown(done.row.roll_id, gm=seat.viewer.is_gm)
    return {"request_id": request_id, "character_id": seat.character.pk, "roll": shown}
