"""The table page's body, drawn once per state of the table and viewer and kept in Django's cache (issue 39).

The body (everything under the site's header) depends on:

- the table's rows: every write at a table appends to its journal in the write's own transaction, and the key
  holds the journal's head; besides it, the campaign row as read (a digest of its fields: an edit in the admin
  moves no head), the viewer's seat as read, the seats at the table (how many, whose) and the party's characters
  as rows (how many, their ids, versions and latest saved time: every write to a sheet, its items, hirelings and
  offers moves its version, an edit in the admin its saved time);
- the viewer: their user id (their own cards' controls, their own rolls in the log) and their seat's role;
- who has the table open (the members' "here now"), the invite link as this request's host spells it;
- the build (the deploy stamp: templates and code).

All but the presence are read in one prepared statement with the seat (``SEAT``). So a key is never stale: a
change makes a new key, and old ones expire unread. What moves with the clock is handled apart: the log's times
and the roller's Void link are kept as marks written at each serving (``fill_times``); a body with an open roll
request or a stash entry's "3 minutes ago" is kept only until its next such moment (``valid_until``); a body
whose game time runs with the wall clock is never kept. The CSRF token is a slot, filled in per page.

Inside a transaction (a test's) the head does not move with the transaction's own writes: the body is drawn
afresh there, as the sheet's log is (characters.region_cache.viewer_log).
"""

from __future__ import annotations

import hashlib
import math
import time
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Count, Max, OuterRef, Subquery, Sum
from django.http import HttpRequest
from django.template.loader import render_to_string
from django.utils import timezone

from campaigns import table_view
from campaigns.models import Campaign, Membership
from characters.models import Character
from characters.templatetags.lantern import TIMES_LATER, fill_times
from core.deploy import deploy_stamp
from core.prepared import Prepared
from live import journal
from live.hub import CSRF_SLOT, present_user_ids

TIMEOUT = 60 * 10  # a body at one head: kept while people look at the table, then let go
BODY = "campaigns/detail.html#table-body"


def _party(campaign_id: Any, aggregate, model=Character) -> Subquery:
    """One figure over the table's characters (or seats), in the seat's own statement."""
    rows = model.objects.filter(campaign_id=campaign_id).order_by().values("campaign_id")
    return Subquery(rows.annotate(figure=aggregate).values("figure")[:1])


def _seat(user_id: int, campaign_id: int):
    outer = OuterRef("campaign_id")
    return (
        Membership.objects.filter(user_id=user_id, campaign_id=campaign_id)
        .select_related("campaign")
        .annotate(
            head=journal.head_of(outer),
            party_count=_party(outer, Count("pk")),
            party_ids=_party(outer, Sum("pk")),
            party_versions=_party(outer, Sum("version")),
            party_saved=_party(outer, Max("updated_at")),
            members=_party(outer, Count("pk"), Membership),
            member_ids=_party(outer, Sum("user_id"), Membership),
        )
    )


# The viewer's seat with its campaign, the journal's head and the party's stamps: one statement, compiled once.
SEAT: Prepared[Membership] = Prepared(_seat, 2)


def seat_with_stamps(user, campaign_id: int) -> Membership | None:
    """The viewer's seat at the table (None: they sit elsewhere), its campaign, and what a kept body is keyed by
    (``head``, ``party_*``), read in the same statement."""
    if not user.is_authenticated:
        return None
    return SEAT.first(user.pk, int(campaign_id))


def _head(seat: Membership) -> int:
    """The table's journal head as read with the seat (0: nothing written there yet)."""
    return getattr(seat, "head", 0) or 0


def _row_digest(row) -> str:
    """A row as read, every field: an edit that moves no head (the admin's) still moves the key."""
    values = [repr(getattr(row, f.attname)) for f in type(row)._meta.concrete_fields]
    return hashlib.blake2b("\x1f".join(values).encode(), digest_size=10).hexdigest()


def body_key(request: HttpRequest, seat: Membership, present: set[int], invite_url: str) -> str:
    campaign = seat.campaign
    party = getattr(seat, "party_saved", None)
    saved = party.timestamp() if isinstance(party, datetime) else party
    parts = [
        _head(seat),
        getattr(seat, "party_count", 0) or 0,
        getattr(seat, "party_ids", 0) or 0,
        getattr(seat, "party_versions", 0) or 0,
        saved or 0,
        getattr(seat, "members", 0) or 0,
        getattr(seat, "member_ids", 0) or 0,
        _row_digest(campaign),
        _row_digest(seat),
        request.user.pk,
        seat.role,
        ",".join(str(pk) for pk in sorted(present)),
        invite_url,
    ]
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=12).hexdigest()
    return f"lantern:table-body:{deploy_stamp()}:{campaign.pk}:{_head(seat)}:{request.user.pk}:{digest}"


def table_body(request: HttpRequest, seat: Membership) -> str:
    """The page's body for this viewer, the CSRF slot empty: from the cache while its key and moment hold, else
    drawn (and kept, unless it runs with the wall clock or this is inside a transaction). Times filled in."""
    campaign = seat.campaign
    present = present_user_ids(campaign.pk)
    invite_url = table_view.invite_url(request, campaign) if seat.is_gm else ""
    if connection.in_atomic_block:
        html, _until = draw_body(request, seat, present)
        return fill_times(html)
    key = body_key(request, seat, present, invite_url)
    kept = cache.get(key)
    if kept is not None and (kept[1] is None or time.time() < kept[1]):
        return fill_times(kept[0])
    html, until = draw_body(request, seat, present)
    if until is None or until > time.time():
        cache.set(key, (html, until), TIMEOUT if until is None else min(TIMEOUT, math.ceil(until - time.time())))
    return fill_times(html)


def draw_body(request: HttpRequest, seat: Membership, present: set[int]) -> tuple[str, float | None]:
    """The body drawn afresh (its log's times as marks) and until when it holds (None: until its key moves)."""
    now = timezone.now()  # before the drawing: a moment reckoned from it comes no later than the true one
    campaign = seat.campaign
    context = table_view.page_context(request, campaign, seat, after=_head(seat), present=present)
    context.update({"csrf_token": CSRF_SLOT, TIMES_LATER: True, "user": request.user, "request": request})
    html = render_to_string(BODY, context)
    return html, valid_until(context, campaign, now)


def valid_until(context: dict, campaign: Campaign, now: datetime) -> float | None:
    """The first moment the body drawn at ``now`` may read otherwise with nothing written (a timestamp; None:
    never; ``now``: keep it not at all): game time running with the wall clock, an open request expiring, a stash
    entry's "3 minutes ago" turning (``timesince`` turns on whole minutes of age)."""
    if campaign.realtime_since is not None:
        return now.timestamp()
    moments = [rq.expires_at for rq in context.get("requests", ()) if rq.expires_at > now]
    for entry in context.get("stash_entries", ()):
        minutes = (now - entry.at) // timedelta(minutes=1)
        moments.append(entry.at + timedelta(minutes=max(0, minutes) + 1))
    return min(moments).timestamp() if moments else None
