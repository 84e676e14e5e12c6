"""A table through the API: its roll log, the party's cards and the GM's roll requests."""

from __future__ import annotations

from typing import Any

from django.db.models import Prefetch
from django.http import HttpRequest
from django.utils import timezone
from ninja import Field, Query, Router, Schema
from ninja.responses import codes_4xx

from api import serialize
from api.access import table_seat, token_of
from api.common import Detail, Id, RequestOut, RollOut, TrackOut
from campaigns.models import RollRequestAnswer
from campaigns.session_view import REQUESTS_SHOWN
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
