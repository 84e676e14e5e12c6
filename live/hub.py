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
import time
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import connections
from django.utils.module_loading import import_string

from live.signals import Key, presence_signal
from live.transport import Listening, transport

log = logging.getLogger(__name__)


QUEUE_SIZE = 64  # per stream; a tab that falls this far behind gets one "resync" instead
PRESENCE_PUSH_DELAY = 0.3  # arrivals this close together redraw the member list once
CLOCK_SKEW = 1.0  # seconds between app servers' clocks (and a page's drawing and its stream) taken as "at once"
MAX_COALESCED = 500  # pushed changes taken off the queue at once, to be drawn together where they can
READY_TIMEOUT = 5.0  # a stream waits this long for LISTEN before opening anyway (it gets "resync" later)


def sse_frame(topic: str, payload: dict[str, Any]) -> bytes:
    return f"event: {topic}\ndata: {json.dumps(payload, separators=(',', ':'))}\n\n".encode()


def drawn_at() -> str:
    """When a page is drawn, for its stream's ``?since=`` (see Hub._opening_push)."""
    return f"{time.time():.3f}"


def push_frame(html: str) -> bytes:
    """A pushed change: HTML whose parts swap themselves in (hx-swap-oob), one ``data:`` line per line."""
    return ("event: push\n" + "".join(f"data: {line}\n" for line in html.splitlines()) + "\n").encode()


# Where a pushed form's CSRF token goes: the HTML is drawn once for everyone of a kind of viewer, and each stream
# puts in its own page's token (read from its cookie when it opened), so a pushed form posts like a served one.
CSRF_SLOT = "__lantern_csrf_token__"
PAGE = "page"  # a part that asks for everything a page shows (a stream that opens, or fell behind)


@dataclass(frozen=True)
class StreamSeat:
    """Who holds a stream and which page it feeds: what a pushed change is drawn for."""

    user_id: int
    session: str = ""  # a hash of the session key: a logout closes just that session's streams
    page: str = ""  # "table", "sheet-12"; "" for a page nothing is pushed to (it only hears signals)
    csrf: str = ""  # the page's CSRF token (see CSRF_SLOT)


@dataclass(frozen=True)
class PushJob:
    campaign_id: int
    parts: tuple[Any, ...]
    audience: frozenset[int] | None = None
    only: frozenset[asyncio.Queue[bytes]] | None = None  # these streams' resync

    def joins(self, other: PushJob) -> bool:
        """Whether ``other``, queued right behind this one, can be drawn with it in one go."""
        mine = (self.campaign_id, self.audience, self.only is None)
        return mine == (other.campaign_id, other.audience, other.only is None)

    def joined(self, other: PushJob) -> PushJob:
        if self.only is not None and other.only is not None:
            return replace(self, only=self.only | other.only)  # pages that opened together: one resync
        seen = {json.dumps(part, sort_keys=True) for part in self.parts}
        more = tuple(part for part in other.parts if json.dumps(part, sort_keys=True) not in seen)
        return replace(self, parts=self.parts + more)


RESYNC = sse_frame("resync", {"topic": "resync"})
PING = b": ping\n\n"  # a comment: keeps proxies from timing the stream out, and finds dead clients
CLOSE = b""  # put by the stream itself when its client has gone


class Hub:
    def __init__(self) -> None:
        self._queues: dict[int, set[asyncio.Queue[bytes]]] = {}
        self._viewers: dict[asyncio.Queue[bytes], StreamSeat] = {}  # who holds each stream, for which page
        self._streams: dict[Key, int] = {}  # open streams per (campaign, user) in this process
        self._present: set[Key] = set()  # streams open, or the last one closed less than the grace ago
        self._leaving: dict[Key, asyncio.TimerHandle] = {}
        # _present is also read by page views running in worker threads (present_user_ids on SQLite).
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._listener: Listening | None = None  # live.transport's listening side: started by the first stream
        self._pinger: asyncio.Task[None] | None = None
        # Pushed changes are drawn one after another in one thread, so every page gets them in commit order.
        self._jobs: asyncio.Queue[PushJob] | None = None
        self._changed: dict[int, float] = {}  # when each campaign's last pushed change was heard here
        self._presence_at: dict[int, float] = {}  # ... and its last arrival or departure
        self._presence_due: dict[int, set[int] | None] = {}  # whose presence moved, by campaign, to be pushed
        self._heard_since = float("inf")  # since when this process hears every change (LISTEN ready)
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
        since: float | None = None,
    ) -> AsyncIterator[asyncio.Queue[bytes]]:
        """A queue of ready-made SSE frames for one stream; on PostgreSQL LISTEN is running when it yields.

        ``session`` (a hash of the session key) lets a logout close just that session's streams. ``page``: what
        the stream's page shows, which gets its regions pushed, the current ones first (a reconnect is a
        resync); ``csrf``: that page's CSRF token, for the forms pushed to it; ``since``: when the page was drawn
        (the server's clock), which spares a page that opens its stream at once a resync of what it shows.
        """
        if self._loop is None:
            self._heard_since = time.time()  # SQLite: signals reach this process from now on
        self._loop = asyncio.get_running_loop()
        queue: asyncio.Queue[bytes] = asyncio.Queue(maxsize=QUEUE_SIZE)
        key = (campaign_id, user_id)
        self._viewers[queue] = StreamSeat(user_id, session, page, csrf)
        self._queues.setdefault(campaign_id, set()).add(queue)
        self._streams[key] = self._streams.get(key, 0) + 1
        if self._pinger is None:
            self._pinger = asyncio.create_task(self._ping(), name="lantern-ping")
        try:
            await self._listen_to(campaign_id)
            self._arrive(key)
            if page:
                self._opening_push(campaign_id, queue, since)
            yield queue
        finally:
            self._viewers.pop(queue, None)
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
        """A signal from the transport (live.transport), on the hub's loop."""
        self.dispatch(signal)

    def missed(self) -> None:
        """The transport reconnected: signals may have gone by unheard."""
        self.broadcast_resync()

    def dispatch(self, payload: dict[str, Any]) -> None:
        """Hand one signal to every local stream of its campaign (runs on the hub's event loop)."""
        try:
            campaign_id = int(payload["campaign"])
            topic = str(payload["topic"])
        except (KeyError, TypeError, ValueError):
            log.warning("Ignoring a malformed live-table signal: %r", payload)
            return
        if not topic or any(c in topic for c in "\r\n:"):
            log.warning("Ignoring a live-table signal with a bad topic: %r", topic)
            return
        if topic == "push":
            self._changed[campaign_id] = time.time()  # a page drawn before this must resync when it opens
        elif topic == "presence":
            self._presence_at[campaign_id] = time.time()
        queues = self._queues.get(campaign_id)
        if not queues:
            return
        if topic == "revoke":
            self._revoke(campaign_id, payload.get("user"), str(payload.get("session") or ""))
            return
        payload = dict(payload)
        audience = payload.pop("to", None)  # who may know of this signal; nobody else's page hears it
        if topic == "push":
            parts = payload.get("parts")
            if isinstance(parts, list) and parts:
                who = None if audience is None else frozenset(int(user) for user in audience)
                self._queue_push(PushJob(campaign_id, tuple(parts), audience=who))
            return
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
        part = ["table", ["members"]] if users is None else ["presence", sorted(users)]
        self._queue_push(PushJob(campaign_id, (part,)))

    def _opening_push(self, campaign_id: int, queue: asyncio.Queue[bytes], since: float | None) -> None:
        """What a stream that opens gets: nothing if its page was drawn after the last change this process heard
        of (while it was listening), the member list alone if only presence moved since, else everything it
        shows (a reconnect, or a page drawn before a change: a resync)."""
        seat = self._seat(queue)
        if (
            since is None
            or since <= self._heard_since + CLOCK_SKEW
            or self._changed.get(campaign_id, 0.0) >= since - CLOCK_SKEW
        ):
            self._queue_push(PushJob(campaign_id, ([PAGE],), only=frozenset({queue})))
        elif seat.page == "table" and self._presence_at.get(campaign_id, 0.0) >= since - CLOCK_SKEW:
            self._queue_push(PushJob(campaign_id, (["table", ["members"]],), only=frozenset({queue})))

    def _seat(self, queue: asyncio.Queue[bytes]) -> StreamSeat:
        return self._viewers.get(queue) or StreamSeat(0)

    def _offer(self, queue: asyncio.Queue[bytes], frame: bytes) -> None:
        """Queue a frame; a page that fell this far behind gets its regions afresh instead (and "resync")."""
        if _offer(queue, frame) and self._seat(queue).page:
            for campaign_id, queues in self._queues.items():
                if queue in queues:
                    self._queue_push(PushJob(campaign_id, ([PAGE],), only=frozenset({queue})))

    # --- pushed changes ----------------------------------------------------------------------------

    def _queue_push(self, job: PushJob) -> None:
        if self._jobs is None:
            self._jobs = asyncio.Queue()
            self._pusher = asyncio.create_task(self._push_all(), name="lantern-push")
        self._jobs.put_nowait(job)

    async def _push_all(self) -> None:
        """Draw each pushed change for the pages open here, then hand each page its HTML, in order."""
        assert self._jobs is not None
        loop = asyncio.get_running_loop()
        while True:
            for job in self._coalesced(await self._jobs.get()):
                await self._push_one(loop, job)

    def _coalesced(self, first: PushJob) -> list[PushJob]:
        """The job and every one queued behind it, those next to each other that can be drawn together joined:
        a burst (fifty pages opening, a fight's round of writes) is drawn once, still in order."""
        assert self._jobs is not None
        jobs = [first]
        while not self._jobs.empty() and len(jobs) < MAX_COALESCED:
            job = self._jobs.get_nowait()
            if jobs[-1].joins(job):
                jobs[-1] = jobs[-1].joined(job)
            else:
                jobs.append(job)
        return jobs

    async def _push_one(self, loop: asyncio.AbstractEventLoop, job: PushJob) -> None:
        """Draw one (joined) job for the pages open here, then hand each page its HTML."""
        seats = self._seats_for(job)
        if not seats:
            return
        wanted = sorted({(seat.user_id, seat.page) for seat in seats.values()})
        if self._drawer is None:
            self._drawer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="lantern-push")
        try:
            drawn = await loop.run_in_executor(self._drawer, _draw, job.campaign_id, job.parts, wanted)
        except Exception:
            log.exception("Live table: could not draw a pushed change; its pages resync")
            drawn = None
        for queue, seat in seats.items():
            if queue not in self._viewers:
                continue  # closed while it was drawn
            if drawn is None:
                self._offer(queue, RESYNC)
            elif html := drawn.get((seat.user_id, seat.page)):
                self._offer(queue, push_frame(html.replace(CSRF_SLOT, seat.csrf)))

    def _seats_for(self, job: PushJob) -> dict[asyncio.Queue[bytes], StreamSeat]:
        queues: set[asyncio.Queue[bytes]] | frozenset[asyncio.Queue[bytes]] = self._queues.get(job.campaign_id, set())
        if job.only is not None:
            queues = job.only & queues
        seats = {queue: self._seat(queue) for queue in queues}
        return {
            queue: seat
            for queue, seat in seats.items()
            if seat.page and (job.audience is None or seat.user_id in job.audience)
        }

    def _revoke(self, campaign_id: int, user_id: Any, session: str) -> None:
        """Close the streams a removal, a departure or a logout took the right to away."""
        for queue in list(self._queues.get(campaign_id, ())):
            seat = self._seat(queue)
            if (user_id is not None and seat.user_id == user_id) or (session and seat.session == session):
                self.close_stream(campaign_id, queue)

    def dispatch_threadsafe(self, payload: dict[str, Any]) -> None:
        """From any thread (SQLite's on_commit in a request thread): dispatch on the hub's loop."""
        loop = self._loop
        if loop is None:
            return  # no stream has opened in this process: nobody to tell
        with contextlib.suppress(RuntimeError):  # the loop has closed (shutdown, end of a test)
            loop.call_soon_threadsafe(self.heard, payload)

    def broadcast_resync(self) -> None:
        """Events may have gone by unheard (LISTEN reconnected): every page gets what it shows afresh."""
        for campaign_id, queues in self._queues.items():
            for queue in queues:
                self._offer(queue, RESYNC)
                if self._seat(queue).page:
                    self._queue_push(PushJob(campaign_id, ([PAGE],), only=frozenset({queue})))

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

    # --- the transport (live.transport) ----------------------------------------------------------

    async def _listen_to(self, campaign_id: int) -> None:
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
            await self._listener.aclose()
        for task in [self._pinger, self._pusher]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        self._pinger = self._pusher = self._jobs = None
        self._changed.clear()
        self._presence_at.clear()
        self._presence_due.clear()
        self._heard_since = float("inf")
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


def _draw(campaign_id: int, parts: tuple[Any, ...], wanted: list[tuple[int, str]]) -> dict[tuple[int, str], str]:
    """In the drawing thread: the app's renderer, then the connection goes back (the thread outlives it)."""
    try:
        return import_string(settings.LIVE_RENDERER)(campaign_id, list(parts), wanted)
    finally:
        connections.close_all()


hub = Hub()


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
    if database["ENGINE"] != "django.db.backends.sqlite3" or _process_lock is not None or sys.platform == "win32":
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
    if database["ENGINE"] != "django.db.backends.sqlite3" or sys.platform == "win32":
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
