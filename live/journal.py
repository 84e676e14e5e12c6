"""The journal: every write appends what it did at a table, in the write's own transaction; every consumer reads it.

``record(campaign_id, *events)`` is the one way a write tells anyone anything. The first call of a transaction
bumps the campaign's head (live.models.Head: its row lock orders the campaign's writes by commit, so a cursor is
never visible before a smaller one) and inserts the entry; later calls of the same transaction add their events
to that entry: one write, one entry, whatever the number of steps that announce something. The write and its
entry commit or roll back together (a savepoint's rollback takes the entry with it).

Nothing is notified inside the write. Once it commits, ``live.relay`` is told "campaign C has entries up to N",
outside the transaction; each process's hub reads the entries it has not read yet and pushes them to its open
pages, the webhook worker makes one delivery per entry per webhook, the API serves them after a cursor. A lost
announcement costs latency, never an update: every reader reads from its own cursor, and the hub catches up
periodically (architecture.md, pitfall 13).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import QuerySet, Subquery
from django.utils import timezone

from live import relay
from live.events import Event, from_json_list
from live.models import Entry, Head
from live.once import first_in_transaction

MAX_EVENTS = 200  # events one entry holds: a write names a few; a bound on the work any write can cause readers

_BUMP = (
    'INSERT INTO live_head (campaign_id, "cursor") VALUES (%s, 1) '
    'ON CONFLICT (campaign_id) DO UPDATE SET "cursor" = live_head."cursor" + 1 RETURNING "cursor"'
)


@dataclass
class _Open:
    """The entry the connection's open transaction is writing for one campaign."""

    pk: int
    cursor: int
    events: list[dict] = field(default_factory=list)
    by_known: bool = False  # whose write it is, once a record of it said (issue 42: which GM did it)


# Per connection: each campaign's entry in its open transaction (forgotten on commit; replaced after a rollback).
_open: weakref.WeakKeyDictionary[BaseDatabaseWrapper, dict[int, _Open]] = weakref.WeakKeyDictionary()


def record(campaign_id: int | None, *events: Event, by: Any = None, write: str = "") -> int | None:
    """Append ``events`` to this write's entry of the campaign's journal; the cursor it has (None: nothing to say).

    Inside a transaction the entry commits with it; outside one, the entry is its own transaction. ``by``: the user
    whose write this is (or their id)."""
    if campaign_id is None or not events:
        return None
    connection = connections[DEFAULT_DB_ALIAS]
    if not connection.in_atomic_block:
        with transaction.atomic():
            return record(campaign_id, *events, by=by, write=write)
    pending = _open.setdefault(connection, {})
    payload = [event.to_json() for event in events]
    announce = partial(_announce, connection, campaign_id)
    if first_in_transaction(("live.journal", campaign_id), announce):
        unique = _unique(payload)
        kind = (write or unique[0]["kind"])[:60]
        pk, position = _append(connection, campaign_id, getattr(by, "pk", by), kind, unique)
        pending[campaign_id] = _Open(pk, position, unique, by_known=by is not None)
        return position
    opened = pending[campaign_id]
    if by is not None and not opened.by_known:  # the write's first record (a sheet's, the rules') did not say whose
        Entry.objects.filter(pk=opened.pk, by_id__isnull=True).update(by_id=getattr(by, "pk", by))
        opened.by_known = True
    # What the entry holds now, read back: a savepoint rolled back since may have taken events this process added.
    held = Entry.objects.filter(pk=opened.pk).values_list("events", flat=True).first() or []
    more = [each for each in _unique(payload) if each not in held]
    if more and len(held) < MAX_EVENTS:
        opened.events = (held + more)[:MAX_EVENTS]
        Entry.objects.filter(pk=opened.pk).update(events=opened.events)
    return opened.cursor


# The head bumped and the entry written in one statement where the database takes an INSERT in a WITH (PostgreSQL);
# the upsert's row lock orders the campaign's writes as the bump alone does.
_BUMP_AND_APPEND = (
    f"WITH bumped AS ({_BUMP}) "
    'INSERT INTO live_entry (campaign_id, "cursor", "at", by_id, "write", events) '
    'SELECT %s, "cursor", %s, %s, %s, %s FROM bumped RETURNING id, "cursor"'
)
_APPEND = (
    'INSERT INTO live_entry (campaign_id, "cursor", "at", by_id, "write", events) '
    "VALUES (%s, %s, %s, %s, %s, %s) RETURNING id"
)


def _append(
    connection: BaseDatabaseWrapper, campaign_id: int, by_id: int | None, write: str, events: list[dict]
) -> tuple[int, int]:
    """Bump the campaign's head and insert its entry, as plain SQL (the ORM's build of an insert costs more than
    running it): one statement on PostgreSQL, two on SQLite. (The entry's id, its cursor.)"""
    fields = Entry._meta
    at = fields.get_field("at").get_db_prep_save(timezone.now(), connection)
    stored = fields.get_field("events").get_db_prep_save(events, connection)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(_BUMP_AND_APPEND, [campaign_id, campaign_id, at, by_id, write, stored])
            pk, position = cursor.fetchone()
            return pk, position
        cursor.execute(_BUMP, [campaign_id])
        (position,) = cursor.fetchone()
        cursor.execute(_APPEND, [campaign_id, position, at, by_id, write, stored])
        (pk,) = cursor.fetchone()
    return pk, position


def _unique(payload: list[dict]) -> list[dict]:
    out: list[dict] = []
    for each in payload:
        if each not in out:
            out.append(each)
    return out[:MAX_EVENTS]


def _announce(connection: BaseDatabaseWrapper, campaign_id: int) -> None:
    """After the commit: the entry is visible; tell every process (outside the transaction, never inside it)."""
    opened = _open.get(connection, {}).pop(campaign_id, None)
    if opened is not None:
        relay.announce({"campaign": campaign_id, "cursor": opened.cursor})


# --- reading ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """One entry as its readers see it: its events typed."""

    cursor: int
    at: object
    by_id: int | None
    write: str
    events: tuple[Event, ...]


def entries_after(campaign_id: int, after: int, *, limit: int = 500, upto: int | None = None) -> list[Read]:
    """The campaign's entries after cursor ``after`` (up to ``upto``), oldest first, at most ``limit``."""
    rows = Entry.objects.filter(campaign_id=campaign_id, cursor__gt=after)
    if upto is not None:
        rows = rows.filter(cursor__lte=upto)
    return [
        Read(row.cursor, row.at, row.by_id, row.write, tuple(from_json_list(row.events)))
        for row in rows.order_by("cursor")[:limit]
    ]


def heads(campaign_ids: Iterable[int]) -> dict[int, int]:
    """Each campaign's last cursor (0: nothing written yet)."""
    ids = list(campaign_ids)
    found = dict(Head.objects.filter(campaign_id__in=ids).values_list("campaign_id", "cursor"))
    return {campaign_id: found.get(campaign_id, 0) for campaign_id in ids}


def head(campaign_id: int | None) -> int:
    """The campaign's last cursor: what a page drawn now shows up to (read before the page's data)."""
    if campaign_id is None:
        return 0
    return Head.objects.filter(campaign_id=campaign_id).values_list("cursor", flat=True).first() or 0


def head_of(campaign_id: Any) -> Subquery:
    """``head`` as a subquery of another query's row (``OuterRef("campaign_id")``): read in the same statement."""
    return Subquery(Head.objects.filter(campaign_id=campaign_id).values("cursor")[:1])


def head_where(campaign_id: QuerySet) -> int:
    """``head`` of the campaign a query names (the campaign of a character, before the character is read), in one
    query."""
    return Head.objects.filter(campaign_id=Subquery(campaign_id[:1])).values_list("cursor", flat=True).first() or 0


def oldest(campaign_id: int) -> int | None:
    """The oldest cursor still kept (None: none kept); a reader behind it has lost entries to pruning."""
    return Entry.objects.filter(campaign_id=campaign_id).order_by("cursor").values_list("cursor", flat=True).first()


def prune(*, keep_days: int | None = None, keep_last: int | None = None, batch: int = 5000) -> int:
    """Delete entries older than ``keep_days`` except each campaign's last ``keep_last``; how many went.

    The head rows stay (cursors keep counting up); a reader whose cursor falls behind what is kept resyncs whole."""
    days = settings.LIVE_JOURNAL_KEEP_DAYS if keep_days is None else keep_days
    last = settings.LIVE_JOURNAL_KEEP_LAST if keep_last is None else keep_last
    cutoff = timezone.now() - timedelta(days=days)
    deleted = 0
    heads_now = dict(Head.objects.values_list("campaign_id", "cursor"))
    for campaign_id, top in heads_now.items():
        while True:
            ids = list(
                Entry.objects.filter(campaign_id=campaign_id, at__lt=cutoff, cursor__lte=top - last).values_list(
                    "pk", flat=True
                )[:batch]
            )
            if not ids:
                break
            deleted += Entry.objects.filter(pk__in=ids).delete()[0]
    return deleted


def delete_campaign(campaign_id: int) -> None:
    """A campaign deleted: its journal goes with it."""
    Entry.objects.filter(campaign_id=campaign_id).delete()
    Head.objects.filter(campaign_id=campaign_id).delete()


def kinds_in(entries: Sequence[Read]) -> set[str]:
    return {event.kind for entry in entries for event in entry.events}
