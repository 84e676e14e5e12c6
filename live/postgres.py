"""The hub's two PostgreSQL connections per process: LISTEN (every write's notification reaches every process)
and presence (shared advisory locks, so every process sees who is at the table). See live.hub."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from typing import Any

from django.db import connections

from live.signals import CHANNEL, INT4_MAX, Key, presence_signal

log = logging.getLogger("live.hub")  # one logger for the live table, as before the split

BACKOFF_FIRST = 0.5  # a lost connection is tried again after this, doubling up to BACKOFF_MAX
BACKOFF_MAX = 10.0
PRESENCE_HEARTBEAT = 5.0  # how soon a lost presence connection is noticed and its locks re-taken


def _pg_params(application_name: str) -> dict[str, Any]:
    params = connections["default"].get_connection_params()
    for key in ("cursor_factory", "context"):  # Django's sync cursor class and adapters: not for these
        params.pop(key, None)
    # A silently dropped TCP connection would otherwise leave LISTEN waiting forever.
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", 30)
    params.setdefault("keepalives_interval", 10)
    params.setdefault("keepalives_count", 3)
    params["application_name"] = application_name
    return params


async def _connect(application_name: str):
    import psycopg

    return await psycopg.AsyncConnection.connect(**_pg_params(application_name), autocommit=True)


class PgListener:
    """The process's one LISTEN connection; used for nothing else (notifies() holds its lock)."""

    application_name = "lantern-listen"

    def __init__(self, hub: Any) -> None:  # a live.hub.Hub (which starts these)
        self.hub = hub
        self.ready = asyncio.Event()
        self.task = asyncio.create_task(self._run(), name="lantern-listen")

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        missed = False  # True once a connection was lost or refused: events may have gone by
        while True:
            try:
                async with await _connect(self.application_name) as conn:
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.hub._heard_since = time.time()  # what went by before this may have been missed
                    self.ready.set()
                    delay = BACKOFF_FIRST
                    if missed:
                        log.info("Live table: LISTEN reconnected; streams resync")
                        self.hub.broadcast_resync()
                    async for notify in conn.notifies():
                        self._route(notify.payload)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarted, the backend was killed, the network broke
                log.warning("Live table: LISTEN connection lost (%s); retrying in %.1f s", error, delay)
            self.ready.clear()
            missed = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    def _route(self, raw: str) -> None:
        try:
            payload = json.loads(raw)
        except ValueError:
            log.warning("Ignoring a NOTIFY that is not JSON: %r", raw[:200])
            return
        if isinstance(payload, dict):
            self.hub.heard(payload)


class PgPresence:
    """Mirrors the hub's local presence as shared advisory locks ``(campaign_id, user_id)``.

    Shared locks from several processes coexist; ``pg_locks`` lists them for every process; a process
    that dies drops its connection and so its locks: no table, no heartbeat rows, no stale presence.
    """

    application_name = "lantern-presence"

    def __init__(self, hub: Any) -> None:  # a live.hub.Hub (which starts these)
        self.hub = hub
        self.changed = asyncio.Event()
        self.task = asyncio.create_task(self._run(), name="lantern-presence")

    def wake(self) -> None:
        self.changed.set()

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            try:
                async with await _connect(self.application_name) as conn:
                    delay = BACKOFF_FIRST
                    locked: set[Key] = set()  # a new session holds no locks: take them all again
                    self.changed.set()
                    while True:
                        try:
                            await asyncio.wait_for(self.changed.wait(), PRESENCE_HEARTBEAT)
                        except TimeoutError:
                            await conn.execute("SELECT 1")  # notice a lost connection (its locks are gone)
                            continue
                        self.changed.clear()
                        locked = await self._reconcile(conn, locked)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("Live table: presence connection lost (%s); retrying in %.1f s", error, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def _reconcile(self, conn, locked: set[Key]) -> set[Key]:
        wanted = {key for key in self.hub.present_local() if max(key) <= INT4_MAX}
        gained, lost = wanted - locked, locked - wanted
        for function, keys in (("pg_advisory_lock_shared", gained), ("pg_advisory_unlock_shared", lost)):
            if keys:
                await conn.execute(
                    f"SELECT {function}(c, u) FROM unnest(%s::int[], %s::int[]) AS t(c, u)",
                    [[c for c, _ in keys], [u for _, u in keys]],
                )
        campaigns = sorted({c for c, _ in gained | lost})
        if campaigns:
            # After the locks, so a page that refetches on this signal already sees the change.
            payloads = [json.dumps(presence_signal(c, {u for k, u in gained | lost if k == c})) for c in campaigns]
            await conn.execute("SELECT pg_notify(%s, p) FROM unnest(%s::text[]) AS p", [CHANNEL, payloads])
        return wanted
