"""A table through the API: its roll log, the party's cards, the GM's roll requests and the party's stash."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, Query, Router, Schema
from ninja.responses import codes_4xx

from api import serialize
from api.access import character_seat, table_seat, token_of
from api.common import Detail, Id, RequestOut, RollOut, TrackOut
from campaigns import commands
from campaigns.models import RollRequestAnswer
from campaigns.session_view import REQUESTS_SHOWN
from campaigns.stash_view import stash_context
from campaigns.table import party_cards, roll_log

router = Router()


class CardOut(Schema):
    id: int
    name: str
    owner: str
    version: int
    problem: str
    tracks: list[TrackOut]
    conditions: list[str]
    slots: dict[str, Any] | None
    offers_waiting: int


class LogOut(Schema):
    rolls: list[RollOut]
    older: bool = Field(description="Whether older rolls exist: ask again with before=<the last id>.")


class LogQuery(Schema):
    before: Id | None = None


@router.get("/campaigns/{id:campaign_id}/log", response={200: LogOut, codes_4xx: Detail}, url_name="log")
def log(request: HttpRequest, campaign_id: int, filters: Query[LogQuery]):
    """The table's rolls you may see, newest first, 50 at a time: GM-only and blind results to the GM alone,
    private rolls to their roller alone, as the table page shows them."""
    seat = table_seat(request, campaign_id)
    rolls, older = roll_log(token_of(request).user, seat.campaign, before=filters.before, role=seat.role)
    return {"rolls": [serialize.roll_json(r, gm=seat.is_gm) for r in rolls], "older": older}


@router.get("/campaigns/{id:campaign_id}/party", response={200: list[CardOut], codes_4xx: Detail}, url_name="party")
def party(request: HttpRequest, campaign_id: int):
    """Every character's tracks, conditions and load at the table, as the GM's cards show them (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    return [serialize.card_json(card) for card in party_cards(seat.campaign)]


@router.get(
    "/campaigns/{id:campaign_id}/requests", response={200: list[RequestOut], codes_4xx: Detail}, url_name="requests"
)
def requests(request: HttpRequest, campaign_id: int):
    """The table's newest roll requests with their answers (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    now = timezone.now()
    rows = seat.campaign.roll_requests.prefetch_related(
        Prefetch("answers", queryset=RollRequestAnswer.objects.order_by("pk"), to_attr="answer_rows")
    )[:REQUESTS_SHOWN]
    return [serialize.request_json(r, now, answers=r.answer_rows, gm=True) for r in rows]


# --- the party's stash (issue 41) ----------------------------------------------------------------------------------


class StashItemOut(Schema):
    id: int
    name: str
    kind: str
    slots: int
    quantity: int


class StashEntryOut(Schema):
    id: int
    what: str
    by: str
    at: str
    reverted: bool


class StashOut(Schema):
    coins: int = Field(description="In the system's smallest coin.")
    coins_shown: str
    items: list[StashItemOut]
    history: list[StashEntryOut] = Field(description="The newest moves first.")


class StashMoveIn(Schema):
    character: Id
    item: Id = Field(description="take: the stash's item; put: the character's item.")
    quantity: int | None = Field(None, ge=1, le=1_000_000, description="How many of the row (none: all of it).")


def _stash_json(seat) -> dict[str, Any]:
    context = stash_context(None, seat.campaign, seat)  # type: ignore[arg-type]  # the builder reads no request
    return {
        "coins": context["stash_coin_count"],
        "coins_shown": context["stash_coins"],
        "items": [
            {"id": row.pk, "name": row.name, "kind": row.kind, "slots": row.slots, "quantity": row.quantity}
            for row in context["stash_items"]
        ],
        "history": [
            {
                "id": entry.pk,
                "what": entry.what,
                "by": entry.by.username if entry.by else "",
                "at": entry.at.isoformat(),
                "reverted": entry.was_reverted,
            }
            for entry in context["stash_entries"]
        ],
    }


@router.get("/campaigns/{id:campaign_id}/stash", response={200: StashOut, codes_4xx: Detail}, url_name="stash")
def stash(request: HttpRequest, campaign_id: int):
    """The party's stash: its coins, its items and its newest moves, for anyone at the table."""
    return _stash_json(table_seat(request, campaign_id))


@router.post(
    "/campaigns/{id:campaign_id}/stash/take", response={200: StashOut, codes_4xx: Detail}, url_name="stash_take"
)
def stash_take(request: HttpRequest, campaign_id: int, payload: StashMoveIn):
    """Take an item from the stash onto a character's sheet (play token: your own; table token: any at the table),
    checked against its system's carry rules. 409 when someone took it first; nothing changes on a refusal."""
    seat = table_seat(request, campaign_id)
    character_seat(request, payload.character, write=True)
    commands.take_from_stash(
        token_of(request).user,
        campaign_id,
        character_id=payload.character,
        stash_item_id=payload.item,
        quantity=payload.quantity,
    )
    return _stash_json(seat)


@router.post("/campaigns/{id:campaign_id}/stash/put", response={200: StashOut, codes_4xx: Detail}, url_name="stash_put")
def stash_put(request: HttpRequest, campaign_id: int, payload: StashMoveIn):
    """Put an item of a character's sheet in the stash (all of the row, or ``quantity`` of it)."""
    seat = table_seat(request, campaign_id)
    character_seat(request, payload.character, write=True)
    commands.put_in_stash(
        token_of(request).user,
        campaign_id,
        character_id=payload.character,
        item_id=payload.item,
        quantity=payload.quantity,
    )
    return _stash_json(seat)
