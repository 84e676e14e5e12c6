"""After-commit publishing, outside the write's transaction (issue 37, architecture pitfall 13).

A write hands its signal to ``announce`` from ``transaction.on_commit``: a put on a queue, nothing more, so a
request never waits on the transport. One background thread per process (started by the first signal, and again
in a forked child) takes whatever has queued up, collapses each campaign's ``cursor`` signals to the highest, and
hands the batch to the transport's ``publish``. A transport error costs the batch, never an update: listeners read
the journal from their own cursor, and the hub's periodic catch-up covers a publish that never went out.
"""

from __future__ import annotations

import hashlib
import logging
import os
import queue
import threading
from functools import partial
from typing import Any

from django.db import transaction

from live.broker import transport

log = logging.getLogger(__name__)

MAX_BATCH = 500  # signals handed to one publish (one statement on PostgreSQL, one pipeline on Redis)

Signal = dict[str, Any]


class _Flush:
    """Put on the queue by ``flush``: set once everything queued before it has been handed to the transport."""

    def __init__(self) -> None:
        self.done = threading.Event()


class Relay:
    def __init__(self) -> None:
        self._queue: queue.SimpleQueue[Signal | _Flush] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._pid = 0
        self._start_lock = threading.Lock()

    def announce(self, signal: Signal) -> None:
        """Queue a signal for publishing; thread-safe, never blocks, never raises (call it after commit)."""
        self._queue.put(signal)
        self._ensure_thread()

    def flush(self, timeout: float | None = 10.0) -> bool:
        """Wait until every signal announced so far has been handed to the transport (tests, shutdown)."""
        marker = _Flush()
        self._queue.put(marker)
        self._ensure_thread()
        return marker.done.wait(timeout)

    @property
    def running(self) -> bool:
        return self._thread is not None and self._pid == os.getpid()

    def _ensure_thread(self) -> None:
        if self._thread is not None and self._pid == os.getpid():
            return
        with self._start_lock:
            if self._thread is None or self._pid != os.getpid():  # none yet, or this is a forked child
                self._pid = os.getpid()
                self._thread = threading.Thread(target=self._run, name="lantern-relay", daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            taken = [self._queue.get()]
            while len(taken) < MAX_BATCH:
                try:
                    taken.append(self._queue.get_nowait())
                except queue.Empty:
                    break
            signals = collapse([item for item in taken if not isinstance(item, _Flush)])
            if signals:
                self._publish(signals)
            for item in taken:
                if isinstance(item, _Flush):
                    item.done.set()

    def _publish(self, signals: list[Signal]) -> None:
        try:
            transport().publish(signals)
        except Exception:
            # Listeners catch up from the journal (their cursor, the hub's periodic catch-up): dropping is safe.
            log.exception("Live table: %d signal(s) not published; listeners catch up from the journal", len(signals))


def collapse(signals: list[Signal]) -> list[Signal]:
    """The batch in order, each campaign's ``cursor`` signals folded into one (at its first place) holding the
    highest cursor: "entries up to N" says everything an earlier "up to M" said."""
    out: list[Signal] = []
    at: dict[Any, int] = {}  # campaign -> index of its cursor signal in out
    for signal in signals:
        if "cursor" not in signal or "topic" in signal:
            out.append(signal)
            continue
        campaign = signal.get("campaign")
        index = at.get(campaign)
        if index is None:
            at[campaign] = len(out)
            out.append(signal)
        elif signal["cursor"] > out[index]["cursor"]:
            out[index] = signal
    return out


relay = Relay()
announce = relay.announce
flush = relay.flush


def revoke_streams(campaign_id: int, *, user_id: int | None = None, session: str = "") -> None:
    """Close a user's open pages of this campaign (their password changed), or one session's (logged out), once the
    transaction commits. Not a table write, so not in the journal: the hub closes the matching streams, and a page
    that reconnects goes through the normal checks again (the login page once logged out)."""
    signal = {"campaign": campaign_id, "topic": "revoke", "user": user_id, "session": session}
    transaction.on_commit(partial(announce, signal))


def session_hash(session_key: str | None) -> str:
    """What a stream remembers of its session: enough to match a logout, useless as a session key."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:24] if session_key else ""
