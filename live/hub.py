"""The per-process hub that fans live-table signals out to open event streams, and who is at the table.

One hub per process: ``dict[campaign_id, set[asyncio.Queue]]``. Signals reach it

- on PostgreSQL through one autocommit connection per process that LISTENs on ``lantern`` (started lazily
  by the first stream, reconnecting with backoff 0.5 s → 10 s and sending ``resync`` after each reconnect);
- on SQLite (one process only) straight from ``transaction.on_commit`` via ``loop.call_soon_threadsafe``.

Presence ("at the table" = at least one page of theirs holds a stream) is kept per process in memory and,
on PostgreSQL, mirrored as shared advisory locks held by a second dedicated connection, so
``present_user_ids`` sees every process and a crashed process's users vanish with its connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sys
import threading
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.utils.module_loading import import_string

from live import journal
from live.broker import transport
from live.events import Event, MembersChanged, RolesChanged, SettingsChanged
from live.signals import Key, presence_signal
from live.transport import Listening, hear_locally

# Django's SQLite backend, and the settings' one over it that keeps its connections (config/sqlite).
SQLITE_ENGINES = frozenset({"django.db.backends.sqlite3", "config.sqlite"})

log = logging.getLogger(__name__)


QUEUE_SIZE = 64  # per stream; a tab that falls this far behind gets one "resync" instead
PRESENCE_PUSH_DELAY = 0.3  # arrivals this close together redraw the member list once
MAX_COALESCED = 500  # pushed changes taken off the queue at once, to be drawn together where they can
STOP_TIMEOUT = 5.0  # a task that does not answer its cancellation this soon is left behind: a stop never hangs
REPLAY_MAX = 200  # entries a stream is sent to catch up; further behind, it gets its whole page afresh
READY_TIMEOUT = 5.0  # a stream waits this long for LISTEN before opening anyway (it gets "resync" later)


def sse_frame(topic: str, payload: dict[str, Any]) -> bytes:
    return f"event: {topic}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def push_frame(html: str, cursor: int | None = None) -> bytes:
    """A pushed change: HTML whose parts swap themselves in (hx-swap-oob), one ``data:`` line per line; ``id:`` the
    journal's cursor it brings the page to (the browser sends it back as Last-Event-ID when it reconnects)."""
    mark = "" if cursor is None else f"id: {cursor}\n"
    return ("event: push\n" + "".join(f"data: {line}\n" for line in html.splitlines()) + mark + "\n").encode()


def cursor_frame(cursor: int) -> bytes:
    """Only moves the page's cursor (an entry it may not see): no event fires, Last-Event-ID follows."""
    return f"id: {cursor}\n\n".encode()


# Where a pushed form's CSRF token goes: the HTML is drawn once for everyone of a kind of viewer, and each stream
# puts in its own page's token (read from its cookie when it opened), so a pushed form posts like a served one.
CSRF_SLOT = "__lantern_csrf_token__"


@dataclass(frozen=True)
class WholePage:
    """Everything a page shows (a stream that opened without a cursor, fell behind, or missed entries)."""


@dataclass(frozen=True)
class Arrivals:
    """Members whose pages came to or left the table (their rows of the member list); None: too many to name."""

    users: tuple[int, ...] | None


Happened = Event | WholePage | Arrivals  # what the renderer (settings.LIVE_RENDERER) is asked to draw


@dataclass(frozen=True)
class StreamSeat:
    """Who holds a stream and which page it feeds: what a pushed change is drawn for."""

    user_id: int
    session: str = ""  # a hash of the session key: a logout closes just that session's streams
    page: str = ""  # "table", "sheet-12"; "" for a page nothing is pushed to (it only hears signals)
    csrf: str = ""  # the page's CSRF token (see CSRF_SLOT)


@dataclass(frozen=True)
class PushJob:
    """Something to draw for some of a campaign's streams: entries of its journal read for them (``cursor``: the
    last one's), or their whole page, or arrivals. ``only``: those streams (None: every stream of the campaign)."""

    campaign_id: int
    happened: tuple[Happened, ...]
    only: frozenset[asyncio.Queue[bytes]] | None = None
    cursor: int | None = None

    def joins(self, other: PushJob) -> bool:
        """Whether ``other``, queued right behind this one, can be drawn with it in one go: pages of one campaign
        that opened together (one whole-page draw), or changes for the same streams."""
        if (self.campaign_id, self.whole) != (other.campaign_id, other.whole):
            return False
        return self.whole and self.only is not None and other.only is not None or self.only == other.only

    @property
    def whole(self) -> bool:
        return any(isinstance(each, WholePage) for each in self.happened)

    def joined(self, other: PushJob) -> PushJob:
        if self.whole and self.only is not None and other.only is not None:
            return replace(self, only=self.only | other.only)
        more = tuple(each for each in other.happened if each not in self.happened)
        cursor = max((c for c in (self.cursor, other.cursor) if c is not None), default=None)
        return replace(self, happened=self.happened + more, cursor=cursor)


@dataclass(frozen=True)
class ReadJob:
    """Read the campaign's journal past the cursors of its streams here, and push what each may see."""

    campaign_id: int


RESYNC = sse_frame("resync", {"topic": "resync"})
PING = b": ping\n\n"  # a comment: keeps proxies from timing the stream out, and finds dead clients
CLOSE = b""  # put by the stream itself when its client has gone


class Hub:
    def __init__(self) -> None:
        self._queues: dict[int, set[asyncio.Queue[bytes]]] = {}
        self._viewers: dict[asyncio.Queue[bytes], StreamSeat] = {}  # who holds each stream, for which page
        # How far each stream's page has the journal (None: not known yet, its whole page is on its way).
        self._cursors: dict[asyncio.Queue[bytes], int | None] = {}
        self._streams: dict[Key, int] = {}  # open streams per (campaign, user) in this process
        self._present: set[Key] = set()  # streams open, or the last one closed less than the grace ago
        self._leaving: dict[Key, asyncio.TimerHandle] = {}
        # _present is also read by page views running in worker threads (present_user_ids on SQLite).
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: Listening | None = None  # live.transport's listening side: started by the first stream
        self._pinger: asyncio.Task[None] | None = None
        self._catcher: asyncio.Task[None] | None = None
        # Reads of the journal and pushed changes are drawn one after another in one thread, so every page gets
        # them in the journal's order.
        self._jobs: asyncio.Queue[PushJob | ReadJob] | None = None
        self._reads_due: set[int] = set()  # campaigns with a ReadJob queued (one is enough)
        self._presence_due: dict[int, set[int] | None] = {}  # whose presence moved, by campaign, to be pushed
        self._pusher: asyncio.Task[None] | None = None
        self._drawer: ThreadPoolExecutor | None = None

    # --- streams ---------------------------------------------------------------------------------

    @contextlib.asynccontextmanager
    async def subscribe(
        self,
        campaign_id: int,
        user_id: int,
        session: str = "",
        *,
        page: str = "",
        csrf: str = "",
        after: int | None = None,
    ) -> AsyncIterator[asyncio.Queue[bytes]]:
        """A queue of ready-made SSE frames for one stream; on PostgreSQL LISTEN is running when it yields.

        ``session`` (a hash of the session key) lets a logout close just that session's streams. ``page``: what
        the stream's page shows, which gets its regions pushed; ``csrf``: that page's CSRF token, for the forms
        pushed to it; ``after``: the journal's cursor the page shows (drawn at it, or its Last-Event-ID): it gets
        exactly the entries after it, or its whole page afresh when none is given or it is too far behind.
        """
        self._loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=QUEUE_SIZE)
        key = (campaign_id, user_id)
        self._viewers[queue] = StreamSeat(user_id, session, page, csrf)
        self._cursors[queue] = after
        self._queues.setdefault(campaign_id, set()).add(queue)
        self._streams[key] = self._streams.get(key, 0) + 1
        if self._pinger is None:
            self._pinger = asyncio.create_task(self._ping(), name="lantern-ping")
            self._catcher = asyncio.create_task(self._catch_up_often(), name="lantern-catch-up")
        try:
            await self._listen_to(campaign_id)
            self._arrive(key)
            if after is None:
                self._whole_page(campaign_id, queue)
            else:
                self._queue_read(campaign_id)  # what was written since its page was drawn, if anything
            yield queue
        finally:
            self._viewers.pop(queue, None)
            self._cursors.pop(queue, None)
            queues = self._queues.get(campaign_id, set())
            queues.discard(queue)
            if not queues:
                self._queues.pop(campaign_id, None)
                if self._listener is not None:
                    self._listener.unserve(campaign_id)
            left = self._streams.get(key, 0) - 1  # aclose() may have forgotten every stream already
            if left > 0:
                self._streams[key] = left
            else:
                self._streams.pop(key, None)
                self._schedule_leave(key)

    def heard(self, signal: dict[str, Any]) -> None:
        """A signal from any process (runs on the hub's event loop): a campaign's journal moved, someone arrived or
        left, a session logged out."""
        if "cursor" in signal:
            try:
                campaign_id = int(signal["campaign"])
            except (KeyError, TypeError, ValueError):
                log.warning("Ignoring a malformed live-table signal: %r", signal)
                return
            if campaign_id in self._queues:
                self._queue_read(campaign_id)
            return
        self.dispatch(signal)

    def dispatch(self, payload: dict[str, Any]) -> None:
        """Hand one bare signal (presence, revoke) to the local streams of its campaign (on the hub's event loop)."""
        try:
            campaign_id = int(payload["campaign"])
            topic = str(payload["topic"])
        except (KeyError, TypeError, ValueError):
            log.warning("Ignoring a malformed live-table signal: %r", payload)
            return
        if not topic or any(c in topic for c in "\r\n:"):
            log.warning("Ignoring a live-table signal with a bad topic: %r", topic)
            return
        queues = self._queues.get(campaign_id)
        if not queues:
            return
        if topic == "revoke":
            self._revoke(campaign_id, payload.get("user"), str(payload.get("session") or ""))
            return
        payload = dict(payload)
        audience = payload.pop("to", None)  # who may know of this signal; nobody else's page hears it
        if topic == "presence" and self._loop is not None:
            # Someone arrived or left: their rows of the table page's member list, drawn once for everyone who
            # came together (None: whose is not said, the whole list).
            users = payload.get("users")
            named = set(users) if isinstance(users, list) and all(isinstance(u, int) for u in users) else None
            due = self._presence_due.get(campaign_id, set())
            if campaign_id not in self._presence_due:
                self._loop.call_later(PRESENCE_PUSH_DELAY, self._push_presence, campaign_id)
            self._presence_due[campaign_id] = None if due is None or named is None else due | named
        frame = sse_frame(topic, payload)
        for queue in queues:
            if audience is None or self._seat(queue).user_id in audience:
                self._offer(queue, frame)

    def _push_presence(self, campaign_id: int) -> None:
        users = self._presence_due.pop(campaign_id, None)
        self._queue_push(PushJob(campaign_id, (Arrivals(None if users is None else tuple(sorted(users))),)))

    def _whole_page(self, campaign_id: int, queue: asyncio.Queue[bytes]) -> None:
        self._cursors[queue] = None  # until its page is drawn: the entries it gets then start after that
        self._queue_push(PushJob(campaign_id, (WholePage(),), only=frozenset({queue})))

    def _seat(self, queue: asyncio.Queue[bytes]) -> StreamSeat:
        return self._viewers.get(queue) or StreamSeat(0)

    def _offer(self, queue: asyncio.Queue[bytes], frame: bytes) -> None:
        """Queue a frame; a page that fell this far behind gets its regions afresh instead (and "resync")."""
        if _offer(queue, frame) and self._seat(queue).page:
            for campaign_id, queues in self._queues.items():
                if queue in queues:
                    self._whole_page(campaign_id, queue)

    # --- reading the journal -------------------------------------------------------------------------

    def _queue_read(self, campaign_id: int) -> None:
        if campaign_id not in self._reads_due:
            self._reads_due.add(campaign_id)
            self._queue_job(ReadJob(campaign_id))

    def catch_up(self) -> None:
        """Signals may have gone by unheard (the transport reconnected): read every served campaign's journal."""
        for campaign_id in list(self._queues):
            self._queue_read(campaign_id)

    missed = catch_up  # the transport reconnected: a lost signal loses no update, the journal has them

    async def _catch_up_often(self) -> None:
        """A lost announcement costs at most this long: the heads of the campaigns served here, read now and then."""
        loop = asyncio.get_running_loop()
        while True:
            await asyncio.sleep(settings.LIVE_CATCHUP_SECONDS)
            served = list(self._queues)
            if not served:
                continue
            try:
                found = await loop.run_in_executor(self._drawing(), _heads, served)
            except Exception:
                log.warning("Live table: could not read the journal's heads", exc_info=True)
                continue
            for campaign_id, top in found.items():
                behind = [c for q in self._queues.get(campaign_id, ()) if (c := self._cursors.get(q)) is not None]
                if behind and min(behind) < top:
                    self._queue_read(campaign_id)

    async def _read(self, loop: asyncio.AbstractEventLoop, campaign_id: int) -> None:
        """Push the campaign's entries that its streams here have not had, each to those that may see it."""
        self._reads_due.discard(campaign_id)
        queues = self._queues.get(campaign_id, set())
        known = {queue: cursor for queue in queues if (cursor := self._cursors.get(queue)) is not None}
        if not known:
            return
        low = min(known.values())
        try:
            top, oldest, entries = await loop.run_in_executor(self._drawing(), _entries, campaign_id, low)
        except Exception:
            log.exception("Live table: could not read the journal; its pages resync")
            for queue in known:
                self._whole_page(campaign_id, queue)
            return
        for queue, cursor in known.items():
            lost = oldest is not None and cursor < oldest - 1  # pruned away
            if cursor > top or lost or top - cursor > REPLAY_MAX:  # a cursor from elsewhere, or too far behind
                self._whole_page(campaign_id, queue)
        jobs: list[PushJob] = []
        for entry in entries:
            # Streams that came meanwhile with an older cursor are not among them: their own read follows.
            behind = frozenset(
                queue
                for queue in queues
                if queue in self._viewers
                and (cursor := self._cursors.get(queue)) is not None
                and low <= cursor < entry.cursor
            )
            if not behind:
                continue
            self._control(campaign_id, entry.events, behind)
            job = PushJob(campaign_id, entry.events, only=behind, cursor=entry.cursor)
            # Entries for the same streams are drawn together (a page catching up: one draw, not one per entry).
            jobs[-1:] = [jobs[-1].joined(job)] if jobs and jobs[-1].joins(job) else [*jobs[-1:], job]
        for job in jobs:
            await self._push_one(loop, job)
            for queue in job.only or ():
                if self._cursors.get(queue) is not None:  # not sent back to its whole page meanwhile
                    self._cursors[queue] = job.cursor
        if len(entries) == REPLAY_MAX:
            self._queue_read(campaign_id)  # more than one read's worth: the rest next

    def _control(self, campaign_id: int, events: tuple[Event, ...], queues: frozenset[asyncio.Queue[bytes]]) -> None:
        """What an entry does to the streams themselves: those of members who left close; a settings page reloads
        its form; the two whose role changed reload theirs."""
        for event in events:
            if isinstance(event, MembersChanged) and event.left:
                for user in event.users:
                    self._revoke(campaign_id, user, "")
            elif isinstance(event, SettingsChanged | RolesChanged):
                frame = sse_frame("settings" if isinstance(event, SettingsChanged) else "roles", {"topic": "x"})
                for queue in queues:
                    if queue in self._viewers and event.seen.lets(self._seat(queue).user_id, is_gm=False):
                        self._offer(queue, frame)

    # --- pushed changes ----------------------------------------------------------------------------

    def _queue_push(self, job: PushJob) -> None:
        self._queue_job(job)

    def _queue_job(self, job: PushJob | ReadJob) -> None:
        if self._jobs is None:
            self._jobs = asyncio.Queue()
            self._pusher = asyncio.create_task(self._push_all(), name="lantern-push")
        self._jobs.put_nowait(job)

    def _drawing(self) -> ThreadPoolExecutor:
        if self._drawer is None:
            self._drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lantern-push")
        return self._drawer

    async def _push_all(self) -> None:
        """Read each campaign's new entries and draw each pushed change for the pages open here, in order."""
        assert self._jobs is not None
        loop = asyncio.get_running_loop()
        while True:
            for job in self._coalesced(await self._jobs.get()):
                try:
                    if isinstance(job, ReadJob):
                        await self._read(loop, job.campaign_id)
                    else:
                        await self._push_one(loop, job)
                except Exception:  # one bad job must not stop the table
                    log.exception("Live table: a pushed change failed")

    def _coalesced(self, first: PushJob | ReadJob) -> list[PushJob | ReadJob]:
        """The job and every one queued behind it, those next to each other that can be drawn together joined:
        a burst (fifty pages opening, a fight's round of writes) is drawn once, still in order."""
        assert self._jobs is not None
        jobs = [first]
        while not self._jobs.empty() and len(jobs) < MAX_COALESCED:
            job = self._jobs.get_nowait()
            last = jobs[-1]
            if isinstance(job, PushJob) and isinstance(last, PushJob) and last.joins(job):
                jobs[-1] = last.joined(job)
            else:
                jobs.append(job)
        return jobs

    async def _push_one(self, loop: asyncio.AbstractEventLoop, job: PushJob) -> None:
        """Draw one (joined) job for the pages open here, then hand each page its HTML."""
        seats = self._seats_for(job)
        if not seats:
            return
        wanted = sorted({(seat.user_id, seat.page) for seat in seats.values() if seat.page})
        cursor = job.cursor
        try:
            if job.whole:
                cursor, drawn = await loop.run_in_executor(self._drawing(), _draw_whole, job.campaign_id, wanted)
            else:
                drawn = await loop.run_in_executor(self._drawing(), _draw, job.campaign_id, job.happened, wanted)
        except Exception:
            log.exception("Live table: could not draw a pushed change; its pages resync")
            drawn = None
        for queue, seat in seats.items():
            if queue not in self._viewers:
                continue  # closed while it was drawn
            if drawn is None:
                self._offer(queue, RESYNC)
                continue
            if job.whole:
                self._cursors[queue] = cursor  # its page is as the journal stood before it was drawn
            if not seat.page:
                continue
            if html := drawn.get((seat.user_id, seat.page)):
                self._offer(queue, push_frame(html.replace(CSRF_SLOT, seat.csrf), cursor))
            elif cursor is not None and seat.page:
                self._offer(queue, cursor_frame(cursor))
        if job.whole:
            self._queue_read(job.campaign_id)  # what was written while the pages were drawn

    def _seats_for(self, job: PushJob) -> dict[asyncio.Queue[bytes], StreamSeat]:
        queues: set[asyncio.Queue[bytes]] | frozenset[asyncio.Queue[bytes]] = self._queues.get(job.campaign_id, set())
        if job.only is not None:
            queues = job.only & queues
        seats = {queue: self._seat(queue) for queue in queues}
        # A stream with no page (the settings page) has nothing drawn, but a whole page's job still gives it the
        # journal's cursor, without which it would never read the entries that bring it its signals.
        return {queue: seat for queue, seat in seats.items() if seat.page or job.whole}

    def _revoke(self, campaign_id: int, user_id: Any, session: str) -> None:
        """Close the streams a removal, a departure or a logout took the right to away."""
        for queue in list(self._queues.get(campaign_id, ())):
            seat = self._seat(queue)
            if (user_id is not None and seat.user_id == user_id) or (session and seat.session == session):
                self.close_stream(campaign_id, queue)

    def dispatch_threadsafe(self, payload: dict[str, Any]) -> None:
        """From any thread (SQLite's on_commit in a request thread): hand a signal to the hub's loop."""
        loop = self._loop
        if loop is None:
            return  # no stream has opened in this process: nobody to tell
        with contextlib.suppress(RuntimeError):  # the loop has closed (shutdown, end of a test)
            loop.call_soon_threadsafe(self.heard, payload)

    def close_stream(self, campaign_id: int, queue: asyncio.Queue[bytes]) -> None:
        """The client has gone: stop feeding the queue and wake its writer with CLOSE."""
        self._queues.get(campaign_id, set()).discard(queue)
        _offer(queue, CLOSE, overflow=CLOSE)

    async def _ping(self) -> None:
        # One timer for every stream of the process: cheaper than a timeout on every queue.get().
        while True:
            await asyncio.sleep(settings.SSE_PING_SECONDS)
            for queues in self._queues.values():
                for queue in queues:
                    self._offer(queue, PING)

    def streams_of(self, user_id: int) -> int:
        """How many streams this user holds open in this process (the per-user cap counts these)."""
        return sum(count for (_, user), count in self._streams.items() if user == user_id)

    def subscriber_count(self) -> int:
        return sum(len(queues) for queues in self._queues.values())

    # --- presence --------------------------------------------------------------------------------

    def present_local(self) -> set[Key]:
        with self._lock:
            return set(self._present)

    def _arrive(self, key: Key) -> None:
        timer = self._leaving.pop(key, None)
        if timer is not None:
            timer.cancel()  # back within the grace period (a page change): nobody left
            return
        with self._lock:
            if key in self._present:
                return
            self._present.add(key)
        self._presence_changed(*key)

    def _schedule_leave(self, key: Key) -> None:
        grace = settings.SSE_PRESENCE_GRACE_SECONDS
        if grace <= 0 or self._loop is None:
            self._leave(key)
        else:
            self._leaving[key] = self._loop.call_later(grace, self._leave, key)

    def _leave(self, key: Key) -> None:
        self._leaving.pop(key, None)
        if self._streams.get(key):
            return
        with self._lock:
            if key not in self._present:
                return
            self._present.discard(key)
        self._presence_changed(*key)

    def _presence_changed(self, campaign_id: int, user_id: int) -> None:
        if self._listener is not None:
            self._listener.presence_changed(campaign_id, user_id)  # shared, then announced, by the transport
        else:
            self.dispatch(presence_signal(campaign_id, {user_id}))

    # --- PostgreSQL ------------------------------------------------------------------------------

    async def _listen_to(self, campaign_id: int) -> None:
        """The transport (live.transport) started, hearing this campaign's signals."""
        if self._listener is None:
            self._listener = transport().listen(self)
        try:
            await asyncio.wait_for(self._listener.serve(campaign_id), READY_TIMEOUT)
        except TimeoutError:
            log.warning("Live table: not listening after %.0f s; the stream opens anyway", READY_TIMEOUT)

    def listener_ready(self) -> bool:
        return self._listener is not None and self._listener.ready.is_set()

    async def aclose(self) -> None:
        """Stop the PostgreSQL tasks and forget every stream (server shutdown, end of a test)."""
        if self._listener is not None:
            try:
                await asyncio.wait_for(self._listener.aclose(), STOP_TIMEOUT)
            except TimeoutError:
                log.warning("Live table: the transport's listening did not stop within %.0f s", STOP_TIMEOUT)
        for task in [self._pinger, self._pusher, self._catcher]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, TimeoutError):
                    await asyncio.wait_for(task, STOP_TIMEOUT)
        self._pinger = self._pusher = self._jobs = self._catcher = None
        self._reads_due.clear()
        self._cursors.clear()
        self._presence_due.clear()
        for timer in self._leaving.values():
            timer.cancel()
        self._listener = None
        self._leaving.clear()
        self._queues.clear()
        self._viewers.clear()
        self._streams.clear()
        with self._lock:
            self._present.clear()
        self._loop = None


def _offer(queue: asyncio.Queue[bytes], frame: bytes, overflow: bytes = RESYNC) -> bool:
    """Queue a frame; True when the queue was full (a tab that stopped reading): what it missed is dropped
    and it is told to refetch everything instead."""
    try:
        queue.put_nowait(frame)
        return False
    except asyncio.QueueFull:
        while not queue.empty():
            queue.get_nowait()
        queue.put_nowait(overflow)
        return True


def _draw(
    campaign_id: int, happened: tuple[Happened, ...], wanted: list[tuple[int, str]]
) -> dict[tuple[int, str], str]:
    """In the drawing thread: the app's renderer, then the connection goes back (the thread outlives it)."""
    try:
        return import_string(settings.LIVE_RENDERER)(campaign_id, happened, wanted)
    finally:
        connections.close_all()


def _draw_whole(campaign_id: int, wanted: list[tuple[int, str]]) -> tuple[int, dict[tuple[int, str], str]]:
    """Whole pages, and the cursor they show the journal up to: read first, so an entry written while they are
    drawn is sent again after (harmless) rather than missed."""
    try:
        cursor = journal.head(campaign_id)
        if not wanted:
            return cursor, {}
        return cursor, import_string(settings.LIVE_RENDERER)(campaign_id, (WholePage(),), wanted)
    finally:
        connections.close_all()


def _entries(campaign_id: int, after: int) -> tuple[int, int | None, list[journal.Read]]:
    """The campaign's head, its oldest kept cursor and its entries after ``after`` (at most REPLAY_MAX)."""
    try:
        top = journal.head(campaign_id)
        entries = journal.entries_after(campaign_id, after, limit=REPLAY_MAX) if top > after else []
        oldest = entries[0].cursor if entries and entries[0].cursor > after + 1 else None
        if oldest is not None:
            oldest = journal.oldest(campaign_id)
        return top, oldest, entries
    finally:
        connections.close_all()


def _heads(campaign_ids: list[int]) -> dict[int, int]:
    try:
        return journal.heads(campaign_ids)
    finally:
        connections.close_all()


hub = Hub()
hear_locally(hub)


def present_user_ids(campaign_id: int) -> set[int]:
    """Ids of the members with at least one page of this campaign open (a stream), in any process."""
    return transport().present_user_ids(campaign_id)


# --- SQLite serves one process only ----------------------------------------------------------------

_process_lock: IO[str] | None = None
_ONE_PROCESS = "SQLite serves one process only (live updates travel inside that process)."


def claim_single_process() -> None:
    """On SQLite, hold an exclusive lock file for the life of the server process; a second one refuses.

    The in-process hub and presence only see their own process, so a second worker (``--workers 2``,
    ``gunicorn -w 2``, or a second server on the same file) would silently miss events. Called from the
    ASGI lifespan startup: a failure there exits with uvicorn's startup-failure code, which stops the
    whole server, where an import error would only make the supervisor restart the worker forever.
    """
    global _process_lock
    database = settings.DATABASES["default"]
    if database["ENGINE"] not in SQLITE_ENGINES or _process_lock is not None or sys.platform == "win32":
        return
    # `WEB_CONCURRENCY=4 uvicorn …` (uvicorn's and gunicorn's worker count): refuse before taking the lock.
    if os.environ.get("WEB_CONCURRENCY", "").strip() not in {"", "1"}:
        raise ImproperlyConfigured(_ONE_PROCESS + " Unset WEB_CONCURRENCY, or set DATABASE_URL to PostgreSQL.")
    _process_lock = _lock_file(
        "serve",
        f"Another server process already serves {database['NAME']}: run one worker, or set DATABASE_URL "
        "to PostgreSQL for several.",
    )


def claim_run() -> IO[str] | None:
    """On SQLite, `make run`'s lock on ``<database file>-run.lock``, held from its first step to its last.

    The serving lock above is taken only when the server's worker starts, after `make run` has migrated and
    loaded its demo: a second `make run` checking in between found nothing held, went on, and one of the two
    servers then hung in uvicorn's reloader. The caller keeps the returned handle open (its command's process
    inherits it) for as long as that `make run` lasts. None when there is nothing to hold (PostgreSQL).
    """
    database = settings.DATABASES["default"]
    if database["ENGINE"] not in SQLITE_ENGINES or sys.platform == "win32":
        return None
    return _lock_file(
        "run",
        f"Another server process already serves {database['NAME']}, or a `make run` is starting to: stop it "
        "first, or set DATABASE_URL to PostgreSQL for several.",
    )


def _lock_file(kind: str, held: str) -> IO[str]:
    """An exclusive lock on ``<database file>-<kind>.lock``, held while the returned handle stays open; the
    one-process sentence and ``held`` when another process holds it."""
    import fcntl

    handle = Path(f"{settings.DATABASES['default']['NAME']}-{kind}.lock").open("a")  # noqa: SIM115 - kept open
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.close()
        raise ImproperlyConfigured(f"{_ONE_PROCESS} {held}") from None
    return handle
