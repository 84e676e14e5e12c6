"""A table through the API: its roll log, the party's cards and the GM's roll requests; and the GM's table (a table
token): the clock and the party's light, the fight and its NPCs, roll requests asked and cancelled. Each write is
the GM's command (campaigns.commands) with the body as its inputs, the very names the table page's forms send: the
same checks, the same sentences. Its time and countdowns (issue 41) likewise, and the party's stash."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Model, Prefetch
from django.http import HttpRequest
from django.utils import timezone
from ninja import Body, Field, Query, Router, Schema
from ninja.errors import HttpError
from ninja.responses import codes_4xx

from api import serialize
from api.access import character_seat, table_seat, token_of
from api.common import Detail, Id, RequestOut, RollOut, TrackOut
from campaigns import commands, session
from campaigns.chronicle import read as chronicle_read
from campaigns.models import Campaign, Countdown, PlaySession, RollRequest, RollRequestAnswer
from campaigns.services import TableWritten
from campaigns.session_view import REQUESTS_SHOWN
from campaigns.stash_view import stash_context
from campaigns.table import party_cards, roll_log
from core.json_body import MalformedJson, json_object

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


# --- the GM's table ------------------------------------------------------------------------------

Inputs = dict[str, Any]
INPUTS = Body(
    default_factory=dict,
    description="The inputs by name, as the table page's form sends them (a number, a word, true or false, a list).",
)


def _optional_inputs(request: HttpRequest) -> Inputs:
    """The inputs of a write whose body may be left out altogether (one that had none before, whose callers send
    none): ninja's Body refuses an empty one. Only a JSON body is read."""
    if request.content_type != "application/json" or not request.body.strip():
        return {}
    try:
        return json_object(request.body)
    except MalformedJson as problem:
        raise HttpError(400, str(problem)) from None


OPTIONAL_BODY = {
    "requestBody": {
        "required": False,
        "content": {"application/json": {"schema": {"type": "object", "additionalProperties": True}}},
    }
}


class TableDone(Schema):
    campaign_id: int
    changed: list[str] = Field(description="The table's live regions the write changed.")
    row_id: int | None = Field(None, description="What the write made, when it is a row (the request, the NPC).")


def _done(done: TableWritten) -> dict[str, Any]:
    row_id = done.row.pk if isinstance(done.row, Model) else None  # a row, or what the rules said (no id)
    return {"campaign_id": done.campaign.pk, "changed": sorted(done.regions), "row_id": row_id}


def _gm(request: HttpRequest, campaign_id: int):
    """Who calls, once their token reaches this table as its GM (the command checks they run it)."""
    table_seat(request, campaign_id, gm=True)
    return token_of(request).user


RESPONSES = {200: TableDone, codes_4xx: Detail}


@router.post("/campaigns/{id:campaign_id}/clock", response=RESPONSES, url_name="table_clock")
def table_clock(request: HttpRequest, campaign_id: int, inputs: Inputs = INPUTS):
    """Minutes of game time pass ({"action": "advance", "minutes": 30}), or the fight's turn moves on
    ({"action": "next_turn"})."""
    return _done(commands.move_clock(campaign_id, inputs=inputs, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/time/advance", response=RESPONSES, url_name="table_time")
def table_time(request: HttpRequest, campaign_id: int, inputs: Inputs = INPUTS):
    """The clock moves by the system's units ({"unit": "turn", "count": 2}): lights burn, food is eaten."""
    return _done(commands.advance_time(campaign_id, inputs=inputs, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/time/daylight", response=RESPONSES, url_name="table_daylight")
def table_daylight(request: HttpRequest, campaign_id: int, inputs: Inputs = INPUTS):
    """The party in daylight ({"daylight": true}) or in the dark: the table's conditions follow."""
    return _done(commands.set_daylight(campaign_id, inputs=inputs, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/encounter/{action}", response=RESPONSES, url_name="table_encounter")
def table_encounter(request: HttpRequest, campaign_id: int, action: str, inputs: Inputs = INPUTS):
    """The fight: start ({"name"}), next (round), end, add (an NPC: {"name", its stats, "keep"}), attack (a
    character's on NPCs: {"character", "npcs", "feature", "ranged", "visibility"})."""
    by = _gm(request, campaign_id)
    command = commands.ENCOUNTER_COMMANDS.get(action)
    if command is None:
        raise HttpError(404, f"The fight has no action called {action!r}.")
    return _done(command(campaign_id, inputs=inputs, by=by))


@router.post("/campaigns/{id:campaign_id}/npcs/{id:npc_id}/{action}", response=RESPONSES, url_name="table_npc")
def table_npc(request: HttpRequest, campaign_id: int, npc_id: int, action: str, inputs: Inputs = INPUTS):
    """An NPC: damage ({"amount", "ignore_armour", "visibility"}), status ({"name", "rounds"}), roll ({"key",
    "visibility", "target"}), bring (a saved one into the fight), remove."""
    by = _gm(request, campaign_id)
    command = commands.NPC_COMMANDS.get(action)
    if command is None:
        raise HttpError(404, f"An NPC has no action called {action!r}.")
    return _done(command(campaign_id, npc_id, inputs=inputs, by=by))


@router.post("/campaigns/{id:campaign_id}/hits/{id:hit_id}/undo", response=RESPONSES, url_name="table_hit_undo")
def table_hit_undo(request: HttpRequest, campaign_id: int, hit_id: int):
    """Undo one hit of the running fight: what it did to the sheet or the NPC put back."""
    return _done(commands.undo_hit(campaign_id, hit_id, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/co-gms", response=RESPONSES, url_name="table_co_gm")
def table_co_gm(request: HttpRequest, campaign_id: int, inputs: Inputs = INPUTS):
    """The owner names a member co-GM ({"user_id": n, "co_gm": true}) or makes a co-GM a player again
    ("co_gm": false); row_id is their seat. A co-GM's token is refused (403): only the owner names co-GMs."""
    return _done(commands.set_co_gm(campaign_id, inputs=inputs, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/hand-over", response=RESPONSES, url_name="table_hand_over")
def table_hand_over(request: HttpRequest, campaign_id: int, inputs: Inputs = INPUTS):
    """The owner hands the table to a member ({"user_id": n, "stay": "cogm" or "player"}: the seat the old owner
    keeps; not said, a player). The table's history stays as it was."""
    return _done(commands.hand_over(campaign_id, inputs=inputs, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/requests", response=RESPONSES, url_name="table_ask")
def table_ask(request: HttpRequest, campaign_id: int, inputs: Inputs = INPUTS):
    """Ask characters for a roll: {"procedure", "fix-<input>": what you set…, "characters": [ids], "minutes",
    "blind"}; row_id is the request."""
    return _done(commands.ask_roll(campaign_id, inputs=inputs, by=_gm(request, campaign_id)))


@router.post("/campaigns/{id:campaign_id}/requests/{id:request_id}/cancel", response=RESPONSES, url_name="table_cancel")
def table_cancel(request: HttpRequest, campaign_id: int, request_id: int):
    """Cancel a roll request still open."""
    return _done(commands.cancel_request(campaign_id, request_id, by=_gm(request, campaign_id)))


# --- play sessions and their chronicle (issue 40) -------------------------------------------------------------


class SessionOut(Schema):
    number: int
    started_at: datetime
    ended_at: datetime | None
    under_way: bool
    gm: str | None = Field(None, description="Which of the table's GMs runs it (issue 42).")


class ChronicleItemOut(Schema):
    key: str = Field(description="The entry's key: a player's line names it.")
    text: str
    marks: list[str] = Field(description="critical, death, near-death, scar, level-up")
    state: str = Field(description='"voided", "reverted" or ""')
    seen_by: str = Field(description='"GM only", "blind", "private" or "" (everyone)')
    lines: list[dict[str, Any]]


class ChronicleSectionOut(Schema):
    title: str
    items: list[ChronicleItemOut]


class ChronicleOut(Schema):
    number: int
    present: list[str]
    time_passed: str
    rolls_seen: int
    sections: list[ChronicleSectionOut]
    summary: str
    text: str = Field(description="The whole chronicle as plain text, as you may read it.")


class SessionEndIn(Schema):
    summary: str = ""


def _session_out(row: PlaySession) -> dict[str, Any]:
    gm = row.gm.username if row.gm is not None else None
    return {
        "number": row.number,
        "started_at": row.started_at,
        "ended_at": row.ended_at,
        "under_way": row.is_open,
        "gm": gm,
    }


def _lines(lines) -> list[dict[str, Any]]:
    return [{"id": line.id, "author": line.author_name, "text": line.text} for line in lines]


@router.get(
    "/campaigns/{id:campaign_id}/sessions", response={200: list[SessionOut], codes_4xx: Detail}, url_name="sessions"
)
def sessions(request: HttpRequest, campaign_id: int):
    """The table's play sessions, newest first (any member)."""
    seat = table_seat(request, campaign_id)
    return [_session_out(row) for row in seat.campaign.play_sessions.select_related("gm")[:500]]


@router.get(
    "/campaigns/{id:campaign_id}/sessions/{id:number}/chronicle",
    response={200: ChronicleOut, codes_4xx: Detail},
    url_name="chronicle",
)
def chronicle(request: HttpRequest, campaign_id: int, number: int):
    """One session's chronicle as you may read it: a player's leaves out GM-only, blind and others' private rolls
    and private fields; the GM's marks what only the GM saw. Built from the journal when asked, never stored."""
    seat = table_seat(request, campaign_id)
    user = token_of(request).user
    session = seat.campaign.play_sessions.filter(number=number).first()
    if session is None:
        raise HttpError(404, "No such session at this table.")
    told = chronicle_read.records(session, seat.campaign).for_reader(chronicle_read.reader_of(user, seat))
    return {
        "number": told.number,
        "present": list(told.present),
        "time_passed": told.time_passed,
        "rolls_seen": told.rolls_seen,
        "sections": [
            {
                "title": section.title,
                "items": [
                    {
                        "key": item.key,
                        "text": item.text,
                        "marks": list(item.marks),
                        "state": item.state,
                        "seen_by": item.seen_by,
                        "lines": _lines(item.lines),
                    }
                    for item in section.items
                ],
            }
            for section in told.sections
        ],
        "summary": told.summary,
        "text": told.text(),
    }


@router.post(
    "/campaigns/{id:campaign_id}/sessions/start",
    response={200: SessionOut, codes_4xx: Detail},
    url_name="session_start",
    openapi_extra=OPTIONAL_BODY,
)
def session_start(request: HttpRequest, campaign_id: int):
    """Start a session (a GM, through a table token): {"present": [character ids], "gm": user id}, both optional
    (the whole roster at the table; the GM who calls)."""
    table_seat(request, campaign_id, gm=True)
    inputs = _optional_inputs(request)
    return _session_out(commands.start_session(token_of(request).user, campaign_id, inputs))


@router.post(
    "/campaigns/{id:campaign_id}/sessions/end", response={200: SessionOut, codes_4xx: Detail}, url_name="session_end"
)
def session_end(request: HttpRequest, campaign_id: int, payload: SessionEndIn):
    """End the session under way with the GM's summary (the GM, through a table token)."""
    table_seat(request, campaign_id, gm=True)
    return _session_out(commands.end_session(token_of(request).user, campaign_id, summary=payload.summary))


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
    done = commands.run_realtime(seat, running=payload.running, rate=payload.rate, by=token_of(request).user)
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
    done = commands.make_countdown(seat, **payload.dict(), by=token_of(request).user)
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
    done = commands.tick_countdown(seat, countdown_id=countdown_id, step=payload.step, by=token_of(request).user)
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
    done = commands.set_light_time(seat, item_id=item_id, minutes=payload.minutes, by=token_of(request).user)
    return {"detail": str(done.row)}


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
