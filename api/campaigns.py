"""A table through the API: its roll log, the party's cards, the GM's roll requests, its time and countdowns."""

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
from campaigns import commands as table_commands
from campaigns import session
from campaigns.models import Campaign, Countdown, RollRequestAnswer
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


# --- time the server keeps (issue 41) -----------------------------------------------------------------------------


class CountdownOut(Schema):
    id: int | None = Field(description="Null for a player when the GM hid its name.")
    name: str | None = Field(description="Null when the GM hid it from players.")
    segments: int | None = Field(description="Null (with filled) when the GM hid its progress from players.")
    filled: int | None
    shown: str | None = Field(
        description="What players see of it (the GM only): all, name_hidden, progress_hidden, gm."
    )
    every_minutes: int | None = Field(description="It fills a segment every so many game minutes (the GM only).")


class TimeOut(Schema):
    game_seconds: int = Field(description="The time of play now, in game seconds since the campaign's start.")
    running: bool = Field(description="Whether game time runs with the wall clock.")
    since: str | None = Field(description="ISO 8601: when game_stored was the time of play (while running).")
    game_stored: int = Field(description="The game seconds stored: the time of play at `since`.")
    rate: int = Field(description="Game seconds per real second while running.")
    countdowns: list[CountdownOut]


def _countdown_json(countdown: Countdown, *, gm: bool) -> dict[str, Any]:
    named, progress = gm or countdown.players_see_name(), gm or countdown.players_see_progress()
    return {
        "id": countdown.pk if named else None,
        "name": countdown.name if named else None,
        "segments": countdown.segments if progress else None,
        "filled": countdown.filled if progress else None,
        "shown": countdown.shown if gm else None,
        "every_minutes": countdown.every_minutes if gm else None,
    }


def _time_json(campaign: Campaign, *, gm: bool) -> dict[str, Any]:
    rows = [c for c in campaign.countdowns.all() if gm or c.players_see()]
    return {
        "game_seconds": session.realtime_game_seconds(campaign),
        "running": campaign.realtime_since is not None,
        "since": campaign.realtime_since.isoformat() if campaign.realtime_since else None,
        "game_stored": campaign.game_minutes * 60 + campaign.game_seconds,
        "rate": campaign.realtime_rate,
        "countdowns": [_countdown_json(c, gm=gm) for c in rows],
    }


@router.get("/campaigns/{id:campaign_id}/time", response={200: TimeOut, codes_4xx: Detail}, url_name="time")
def time(request: HttpRequest, campaign_id: int):
    """The time of play and the countdowns you may see: a player never receives a countdown the GM hid, nor
    the name or progress the GM hid of one they see."""
    seat = table_seat(request, campaign_id)
    return _time_json(seat.campaign, gm=seat.is_gm)


class RealtimeIn(Schema):
    running: bool
    rate: int = 1


@router.post(
    "/campaigns/{id:campaign_id}/time/realtime", response={200: TimeOut, codes_4xx: Detail}, url_name="realtime"
)
def realtime(request: HttpRequest, campaign_id: int, payload: RealtimeIn):
    """Start game time running with the wall clock, or pause it (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    done = table_commands.run_realtime(seat, running=payload.running, rate=payload.rate, by=token_of(request).user)
    return _time_json(done.campaign, gm=True)


class CountdownIn(Schema):
    name: str
    segments: int
    shown: str = "all"
    every_minutes: int | None = None


@router.post(
    "/campaigns/{id:campaign_id}/countdowns", response={200: CountdownOut, codes_4xx: Detail}, url_name="countdowns"
)
def countdown_new(request: HttpRequest, campaign_id: int, payload: CountdownIn):
    """Make a countdown (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    done = table_commands.make_countdown(seat, **payload.dict(), by=token_of(request).user)
    return _countdown_json(done.row, gm=True)


class TickIn(Schema):
    step: int = 1


@router.post(
    "/campaigns/{id:campaign_id}/countdowns/{id:countdown_id}/tick",
    response={200: CountdownOut, codes_4xx: Detail},
    url_name="countdown_tick",
)
def countdown_tick(request: HttpRequest, campaign_id: int, countdown_id: int, payload: TickIn):
    """Fill a segment (step 1) or empty one (step -1) (table token)."""
    seat = table_seat(request, campaign_id, gm=True)
    done = table_commands.tick_countdown(seat, countdown_id=countdown_id, step=payload.step, by=token_of(request).user)
    return _countdown_json(done.row, gm=True)


class LightTimeIn(Schema):
    minutes: int


class LightTimeOut(Schema):
    detail: str


@router.post(
    "/campaigns/{id:campaign_id}/lights/{id:item_id}",
    response={200: LightTimeOut, codes_4xx: Detail},
    url_name="light_time",
)
def light_time(request: HttpRequest, campaign_id: int, item_id: int, payload: LightTimeIn):
    """Set how many game minutes of light one light at the table has left (table token; in its sheet's history)."""
    seat = table_seat(request, campaign_id, gm=True)
    done = table_commands.set_light_time(seat, item_id=item_id, minutes=payload.minutes, by=token_of(request).user)
    return {"detail": str(done.row)}
