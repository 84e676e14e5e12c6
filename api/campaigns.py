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
from campaigns import commands
from campaigns.models import RollRequest, RollRequestAnswer
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


# --- group checks (issue 40): what the GM does to one, through the commands the page uses -----------------------


class GroupCheckDone(Schema):
    request: RequestOut
    group_roll_id: int | None = Field(description="The group's line in the roll log, once its outcome is decided.")


def _request_shown(campaign_id: int, request_id: int) -> dict[str, Any]:
    row = RollRequest.objects.prefetch_related(
        Prefetch("answers", queryset=RollRequestAnswer.objects.order_by("pk"), to_attr="answer_rows")
    ).get(pk=request_id, campaign_id=campaign_id)
    shown = serialize.request_json(row, timezone.now(), answers=row.answer_rows, gm=True)
    return {"request": shown, "group_roll_id": row.group_roll_id}


@router.post(
    "/campaigns/{id:campaign_id}/requests/{id:request_id}/close",
    response={200: GroupCheckDone, codes_4xx: Detail},
    url_name="request_close",
)
def request_close(request: HttpRequest, campaign_id: int, request_id: int):
    """Close a group check (table token): whoever has not rolled is left out, and its outcome is decided."""
    seat = table_seat(request, campaign_id, gm=True)
    commands.close(seat.campaign_id, request_id=request_id, by=token_of(request).user)
    return _request_shown(campaign_id, request_id)


@router.post(
    "/campaigns/{id:campaign_id}/requests/{id:request_id}/skip/{id:character_id}",
    response={200: GroupCheckDone, codes_4xx: Detail},
    url_name="request_skip",
)
def request_skip(request: HttpRequest, campaign_id: int, request_id: int, character_id: int):
    """Leave an absent player's character out of a group check (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    commands.skip(seat.campaign_id, request_id=request_id, character_id=character_id, by=token_of(request).user)
    return _request_shown(campaign_id, request_id)
