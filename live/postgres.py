"""The PostgreSQL transport (live.transport): LISTEN/NOTIFY on one channel per campaign, presence as shared advisory
locks, over direct sessions built from ``DATABASE_LISTEN_URL`` (settings.DATABASE_LISTEN).

Three connections per process, none from the request pool (which may go through PgBouncer in transaction mode,
where LISTEN and session locks do not work; architecture pitfall 13):

- LISTEN (``lantern-listen``), only on the channels of the campaigns this process serves; used for nothing else
  (``notifies()`` holds its lock);
- presence (``lantern-presence``): shared advisory locks ``(campaign_id, user_id)`` that every process sees in
  ``pg_locks`` and that vanish with a dead process's connection;
- publishing (``lantern-relay``), in the relay's thread: autocommit, ``synchronous_commit = off`` (a lost
  notification is caught up from the journal), a whole batch of notifications in one statement.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from typing import Any

from django.conf import settings
from django.db import connections

from live.signals import INT4_MAX, Key, presence_signal
from live.transport import CampaignListening, Signal, cancelled, channel

log = logging.getLogger("live.hub")  # one logger for the live table, as before the split

BACKOFF_FIRST = 0.5  # a lost connection is tried again after this, doubling up to BACKOFF_MAX
BACKOFF_MAX = 10.0
PRESENCE_HEARTBEAT = 5.0  # how soon a lost presence connection is noticed and its locks re-taken
NOTIFY_MAX_BYTES = 7900  # PostgreSQL refuses a payload of 8,000 bytes or more (and the whole statement with it)


def pg_params(application_name: str) -> dict[str, Any]:
    """psycopg's arguments for a direct session to the app's database (DATABASE_LISTEN_URL, else DATABASE_URL)."""
    default = connections["default"].settings_dict
    listen = settings.DATABASE_LISTEN or default
    params: dict[str, Any] = {k: v for k, v in listen["OPTIONS"].items() if k not in {"pool", "prepare_threshold"}}
    # NAME None: the request pool's database, which the test runner renames to its test_ copy.
    params["dbname"] = listen["NAME"] or default["NAME"]
    for key in ("USER", "PASSWORD", "HOST", "PORT"):
        if listen[key]:
            params[key.lower()] = listen[key]
    # A silently dropped TCP connection would otherwise leave LISTEN waiting forever.
    params.setdefault("keepalives", 1)
    params.setdefault("keepalives_idle", 30)
    params.setdefault("keepalives_interval", 10)
    params.setdefault("keepalives_count", 3)
    params["application_name"] = application_name
    return params


async def _connect(application_name: str):
    import psycopg

    return await psycopg.AsyncConnection.connect(**pg_params(application_name), autocommit=True)


class PgTransport:
    def __init__(self) -> None:
        self._conn: Any = None  # psycopg.Connection, opened by the first publish
        self._lock = threading.Lock()

    def publish(self, signals: list[Signal]) -> None:
        channels, payloads = [], []
        for signal in signals:
            payload = json.dumps(signal, separators=(",", ":"))
            if len(payload.encode()) > NOTIFY_MAX_BYTES:
                log.warning("Live table: a signal too long to NOTIFY is dropped (listeners catch up): %.200s", payload)
                continue
            channels.append(channel(signal["campaign"]))
            payloads.append(payload)
        if not payloads:
            return
        sql = "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS t(c, p)"
        with self._lock:
            try:
                self._connection().execute(sql, [channels, payloads])
            except Exception as error:
                import psycopg

                self._close()
                if not isinstance(error, psycopg.OperationalError):
                    raise
                # Most often the database restarted since the last publish: one more try on a new connection.
                self._connection().execute(sql, [channels, payloads])

    def _connection(self):
        import psycopg

        if self._conn is None:
            conn = psycopg.connect(**pg_params("lantern-relay"), autocommit=True)
            conn.execute("SET synchronous_commit = off")
            self._conn = conn
        return self._conn

    def close(self) -> None:
        with self._lock:
            self._close()

    def _close(self) -> None:
        conn, self._conn = self._conn, None
        if conn is not None:
            with contextlib.suppress(Exception):
                conn.close()

    def listen(self, hub: Any) -> PgListening:
        return PgListening(hub)

    def present_user_ids(self, campaign_id: int) -> set[int]:
        # pg_locks is the server's: the request pool (even through PgBouncer) sees every process's locks.
        if campaign_id > INT4_MAX:
            return set()
        with connections["default"].cursor() as cursor:
            cursor.execute(PRESENT_SQL, [campaign_id])
            return {row[0] for row in cursor.fetchall()}


PRESENT_SQL = """
SELECT DISTINCT objid::bigint FROM pg_locks
WHERE locktype = 'advisory' AND objsubid = 2 AND granted AND classid = %s::oid
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
"""


class PgListening(CampaignListening):
    """The process's LISTEN connection (campaign channels as the hub serves them) and its presence connection."""

    application_name = "lantern-listen"

    def __init__(self, hub: Any) -> None:  # a live.hub.Hub (which starts this)
        super().__init__(hub)
        self._listening: set[int] = set()  # on the current connection
        self.presence = PgPresence(hub)
        self.task = asyncio.create_task(self._run(), name="lantern-listen")

    def hearing(self, campaign_id: int) -> bool:
        return campaign_id in self._listening

    def presence_changed(self, campaign_id: int, user_id: int) -> None:
        self.presence.wake()

    async def aclose(self) -> None:
        await cancelled(self.task, self.presence.task)

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        missed = False  # True once a connection was lost or refused: signals may have gone by
        while True:
            try:
                async with await _connect(self.application_name) as conn:
                    self._listening = set()
                    await self._follow(conn)
                    self.ready.set()
                    delay = BACKOFF_FIRST
                    if missed:
                        log.info("Live table: LISTEN reconnected; the hub catches up")
                        self.hub.missed()
                    while True:
                        await self._hear_until_changed(conn)
                        await self._follow(conn)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the database restarted, the backend was killed, the network broke
                log.warning("Live table: LISTEN connection lost (%s); retrying in %.1f s", error, delay)
            self.ready.clear()
            missed = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def _follow(self, conn) -> None:
        """LISTEN to the campaigns served since, UNLISTEN the others; wake whoever waited for theirs."""
        self.changed.clear()
        wanted = set(self.wanted)
        statements = [f"LISTEN {channel(c)}" for c in sorted(wanted - self._listening)]
        statements += [f"UNLISTEN {channel(c)}" for c in sorted(self._listening - wanted)]
        if statements:
            await conn.execute("; ".join(statements))
        self._listening = wanted
        for campaign_id in wanted & set(self.waiters):
            self.subscribed(campaign_id)

    async def _hear_until_changed(self, conn) -> None:
        """Hand every notification to the hub until the campaigns served change (or the connection fails)."""
        hearing = asyncio.create_task(self._hear(conn))
        changed = asyncio.create_task(self.changed.wait())
        try:
            await asyncio.wait({hearing, changed}, return_when=asyncio.FIRST_COMPLETED)
            if hearing.done():
                hearing.result()  # the connection's error
                raise ConnectionError("the notifications ended")
        finally:
            for task in (hearing, changed):  # cancelling notifies() between two reads leaves the connection usable
                task.cancel()
            await asyncio.gather(hearing, changed, return_exceptions=True)

    async def _hear(self, conn) -> None:
        async for notify in conn.notifies():
            self.hand_over(notify.payload, "NOTIFY")


class PgPresence:
    """Mirrors the hub's local presence as shared advisory locks ``(campaign_id, user_id)``.

    Shared locks from several processes coexist; ``pg_locks`` lists them for every process; a process
    that dies drops its connection and so its locks: no table, no heartbeat rows, no stale presence.
    """

    application_name = "lantern-presence"

    def __init__(self, hub: Any) -> None:
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
            # After the locks, so a page that refetches on this signal already sees the change. Autocommit and
            # no write's transaction: this NOTIFY holds up nobody's commit.
            signals = [presence_signal(c, {u for k, u in gained | lost if k == c}) for c in campaigns]
            await conn.execute(
                "SELECT pg_notify(c, p) FROM unnest(%s::text[], %s::text[]) AS t(c, p)",
                [[channel(c) for c in campaigns], [json.dumps(s) for s in signals]],
            )
        return wanted
