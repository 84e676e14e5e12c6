"""The table's journal for a program: ``GET /api/campaigns/<id>/events?after=<cursor>``, so a bot or a dice tray
can follow a table the way its pages do (live.journal; docs/api.md, "Following a table").

Each entry is one write at the table; each event in it names what changed by ids and names, never a result. The
token's owner sees exactly the events the pages would push them: their seat and role are read on every call
(api.access.table_seat), and each event's ``seen`` decides (live.events.Seen.lets). An entry with nothing they may
see is left out, but the cursor answered moves past it, so a client never reads it again."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema
from ninja.errors import HttpError
from ninja.responses import Status, codes_4xx
from pydantic import BaseModel, ConfigDict

from api.access import table_seat
from api.common import Detail
from live import journal
from live.events import KINDS, Event

router = Router(tags=["journal"])

LIMIT = 100  # entries a call reads unless it asks for fewer or more
MAX_LIMIT = 500  # and at most: a bound on one call's work, as the roll log's pages of 50
MAX_CURSOR = 2**63 - 1  # the largest bigint: a cursor is one

Visibility = Literal["public", "gm", "private", "blind"]


class EventOut(BaseModel):
    """One event: its kind, who may know of it, and the ids and names its kind carries (docs/api.md lists them).
    A plain pydantic model: ninja's Schema would drop the fields each kind adds."""

    model_config = ConfigDict(extra="allow")

    kind: Literal[tuple(sorted(KINDS))]  # type: ignore[valid-type]  # every kind live.events defines
    visibility: Visibility = Field(
        description="public: the whole table; gm: the GM (and the roller of a GM-only roll); private: its roller "
        "alone; blind: the GM, and its roller learns only that it happened."
    )


class EntryOut(Schema):
    cursor: int = Field(description="This entry's place in the table's journal (from 1, without gaps).")
    at: str
    by: int | None = Field(description="The id of the user whose write it was (null: the server's own).")
    write: str = Field(description="What kind of write it was, for people reading it.")
    events: list[EventOut]


class FeedOut(Schema):
    entries: list[EntryOut]
    cursor: int = Field(description="Ask again with after=<this>: past every entry read, shown or not.")
    head: int = Field(description="The table's last cursor when this was read.")
    more: bool = Field(description="Whether the limit cut it: ask again at once with after=<cursor>.")


class Gone(Schema):
    detail: str
    head: int = Field(description="Read the table's state afresh, then follow from here.")


class FeedQuery(Schema):
    after: int | None = Field(
        None, ge=0, le=MAX_CURSOR, description="The last cursor you read; leave it out to start from now (the head)."
    )
    limit: int = Field(LIMIT, ge=1, le=MAX_LIMIT, description=f"Entries to read, 1 to {MAX_LIMIT}.")


@router.get(
    "/campaigns/{id:campaign_id}/events",
    response={200: FeedOut, codes_4xx: Detail, 410: Gone, 422: Detail},  # ninja's 4xx leave out 422
    url_name="events",
    summary="Follow the table: what happened after a cursor",
)
def events(request: HttpRequest, campaign_id: int, filters: Query[FeedQuery]):
    """The table's journal after ``after``, oldest first, with only the events your seat at the table may see
    (GM-only and blind events to the GM and the roller, private ones to the roller alone). Poll it with the
    ``cursor`` of the last answer; a 410 means the entries after yours are no longer kept."""
    seat = table_seat(request, campaign_id)
    head = journal.head(campaign_id)  # first: every entry up to it has committed (cursors are in commit order)
    after = head if filters.after is None else filters.after
    if after > head:
        raise HttpError(422, f"after: this table's journal has no cursor {after} yet (its last is {head}).")
    read = journal.entries_after(campaign_id, after, limit=filters.limit, upto=head)
    if after < head and (not read or read[0].cursor != after + 1):  # pruned away: a gap nobody can fill
        kept = f"from {read[0].cursor}" if read else "none of them"
        return Status(
            410,
            {
                "detail": f"The entries after cursor {after} are no longer kept ({kept}): read the table afresh "
                f"(its sheets, log and party), then follow it again from the head, after={head}.",
                "head": head,
            },
        )
    user_id, is_gm = seat.user_id, seat.is_gm
    shown = [
        entry_json(entry, [event for event in entry.events if event.seen.lets(user_id, is_gm=is_gm)]) for entry in read
    ]
    cursor = read[-1].cursor if read else after
    return {
        "entries": [each for each in shown if each["events"]],
        "cursor": cursor,
        "head": head,
        "more": cursor < head,
    }


def entry_json(entry: journal.Read, visible: list[Event]) -> dict[str, Any]:
    """The entry with the events its reader may see. Its ``write`` names its first event's kind unless the
    write said otherwise: with an event hidden, the first one shown names it (a GM-only roll's entry says
    "sheet.changed" to a player, not "roll.made")."""
    whole = len(visible) == len(entry.events)
    return {
        "cursor": entry.cursor,
        "at": entry.at.isoformat() if isinstance(entry.at, datetime) else str(entry.at),
        "by": entry.by_id,
        "write": entry.write if whole or not visible else visible[0].kind,
        "events": [event_json(event) for event in visible],
    }


def event_json(event: Event) -> dict[str, Any]:
    """The event's ids and names, and who may know of it in one word (not the users it names for that)."""
    data = event.to_json()
    data.pop("seen", None)
    return {**data, "visibility": event.seen.who}
