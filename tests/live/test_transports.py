"""The transports (live.transport) held to one contract: PostgreSQL LISTEN/NOTIFY and Redis pub/sub each deliver a
published signal to a listening hub for a campaign it serves and never for one it does not, come back after their
connection is killed and say so (``hub.missed()``), and share presence across processes.

PostgreSQL runs when the suite does (DATABASE_URL); Redis at LIVE_TEST_REDIS_URL (default db 3 of 127.0.0.1:6379),
each test under a key prefix of its own. Without Redis its tests are skipped, except in CI, where .ci/run starts it.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connection, connections

from live import redis_broker
from live.postgres import PgTransport
from live.redis_broker import RedisTransport
from tests.postgres import connect_kwargs

# The PostgreSQL transport connects to the test database (the Redis tests only need it not to be in the way).
pytestmark = pytest.mark.django_db(transaction=True)

REDIS_URL = os.environ.get("LIVE_TEST_REDIS_URL", "redis://127.0.0.1:6379/3")
TIMEOUT = 10.0  # only stops a hang


def _redis_reachable() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


class FakeHub:
    """What a transport's listening side asks of live.hub.Hub."""

    def __init__(self) -> None:
        self.signals: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.missed_count = 0
        self.missed_once = asyncio.Event()
        self.present: set[tuple[int, int]] = set()
        self._heard_since = 0.0

    def heard(self, signal: dict[str, Any]) -> None:
        self.signals.put_nowait(signal)

    def missed(self) -> None:
        self.missed_count += 1
        self.missed_once.set()

    def present_local(self) -> set[tuple[int, int]]:
        return set(self.present)

    async def next(self) -> dict[str, Any]:
        return await asyncio.wait_for(self.signals.get(), TIMEOUT)

    async def next_of(self, campaign_id: int) -> dict[str, Any]:
        """The next signal of this campaign that is not presence."""
        while True:
            signal = await self.next()
            if signal["campaign"] == campaign_id and signal.get("topic") != "presence":
                return signal


class Kind:
    """One transport under test: how to make it, and how to kill its listening connection from outside."""

    def __init__(self, name: str, make: Callable[[], Any], kill: Callable[[], int], cleanup: Callable[[], None]):
        self.name, self.make, self.kill, self.cleanup = name, make, kill, cleanup


def _pg_kill(application_name: str) -> int:
    import psycopg

    with psycopg.connect(**connect_kwargs(), autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = %s",
            [application_name],
        ).fetchall()
    return len(rows)


def _pg_kind() -> Kind:
    return Kind("postgresql", PgTransport, lambda: _pg_kill("lantern-listen"), lambda: None)


def _redis_kind() -> Kind:
    import redis

    prefix = f"lantern-test-{uuid.uuid4().hex[:10]}:"
    client = redis.Redis.from_url(REDIS_URL)

    def kill() -> int:
        # Only this test's own subscription (named after its prefix): other runs share the server.
        mine = [c for c in client.client_list() if c.get("name") == f"{prefix}listen"]
        for c in mine:
            client.client_kill_filter(_id=c["id"])
        return len(mine)

    def cleanup() -> None:
        keys = list(client.scan_iter(f"{prefix}*"))
        if keys:
            client.delete(*keys)
        client.close()

    return Kind("redis", lambda: RedisTransport(REDIS_URL, prefix), kill, cleanup)


@pytest.fixture(params=["postgresql", "redis"])
def kind(request) -> Iterator[Kind]:
    if request.param == "postgresql":
        if connection.vendor != "postgresql":
            pytest.skip("the PostgreSQL transport: run the suite with DATABASE_URL")
        made = _pg_kind()
    else:
        if not _redis_reachable():
            if os.environ.get("CI"):
                pytest.fail(f"Redis is not reachable at {REDIS_URL} (.ci/run starts redis-server)")
            pytest.skip(f"Redis is not reachable at {REDIS_URL}")
        made = _redis_kind()
    yield made
    made.cleanup()


def run(kind: Kind, scenario: Callable[[Any, FakeHub, Any], Any]) -> Any:
    """Start the transport's listening side for a fake hub, run the scenario, stop everything."""

    async def main() -> Any:
        transport = kind.make()
        hub = FakeHub()
        listening = transport.listen(hub)
        try:
            return await asyncio.wait_for(scenario(transport, hub, listening), 4 * TIMEOUT)
        finally:
            await listening.aclose()
            transport.close()

    return asyncio.run(main())


def _present(transport, campaign_id: int) -> set[int]:
    try:
        return transport.present_user_ids(campaign_id)
    finally:
        if isinstance(transport, PgTransport):  # it asked pg_locks through the request pool
            connections.close_all()  # a worker thread's connection must not outlive the test


async def present(transport, campaign_id: int) -> set[int]:
    return await sync_to_async(_present, thread_sensitive=False)(transport, campaign_id)


async def until(condition: Callable[[], Any]) -> None:
    """Wait until an async condition holds (a generous bound only stops a hang)."""
    for _ in range(400):
        if await condition():
            return
        await asyncio.sleep(0.025)
    raise AssertionError("the condition never held")


def test_a_published_signal_reaches_a_hub_that_serves_its_campaign_and_no_other(kind):
    async def scenario(transport, hub, listening):
        await asyncio.wait_for(listening.serve(1), TIMEOUT)
        # The unserved campaign's signal goes first: if it were heard, it would come before campaign 1's.
        await asyncio.to_thread(transport.publish, [{"campaign": 2, "cursor": 5}, {"campaign": 1, "cursor": 7}])
        assert await hub.next() == {"campaign": 1, "cursor": 7}
        listening.unserve(1)
        await asyncio.wait_for(listening.serve(3), TIMEOUT)
        await asyncio.to_thread(transport.publish, [{"campaign": 1, "cursor": 8}])
        await asyncio.to_thread(transport.publish, [{"campaign": 3, "topic": "revoke", "user": 4, "session": ""}])
        assert await hub.next() == {"campaign": 3, "topic": "revoke", "user": 4, "session": ""}
        assert hub.signals.empty()

    run(kind, scenario)


def test_a_batch_of_signals_arrives_whole_and_in_order(kind):
    async def scenario(transport, hub, listening):
        await asyncio.wait_for(listening.serve(1), TIMEOUT)
        await asyncio.wait_for(listening.serve(2), TIMEOUT)
        batch = [{"campaign": 1 + n % 2, "cursor": n} for n in range(200)]
        await asyncio.to_thread(transport.publish, batch)
        assert [await hub.next() for _ in batch] == batch

    run(kind, scenario)


def test_the_listener_comes_back_after_its_connection_is_killed_and_says_it_may_have_missed_signals(kind):
    async def scenario(transport, hub, listening):
        await asyncio.wait_for(listening.serve(1), TIMEOUT)
        assert listening.ready.is_set()
        assert await asyncio.to_thread(kind.kill) == 1
        await asyncio.wait_for(hub.missed_once.wait(), TIMEOUT)  # after the backoff and a new subscription
        assert hub.missed_count == 1
        await until(lambda: _served_again(transport, hub, 1))

    run(kind, scenario)


async def _served_again(transport, hub, campaign_id: int) -> bool:
    """Publish a probe and see whether it arrives (the subscription may still be on its way back)."""
    probe = {"campaign": campaign_id, "topic": "probe", "n": uuid.uuid4().hex}
    await asyncio.to_thread(transport.publish, [probe])
    try:
        while True:
            if await asyncio.wait_for(hub.signals.get(), 0.2) == probe:
                return True
    except TimeoutError:
        return False


def test_presence_is_shared_announced_and_taken_back(kind, monkeypatch):
    async def scenario(transport, hub, listening):
        await asyncio.wait_for(listening.serve(5), TIMEOUT)
        hub.present = {(5, 11), (5, 12), (6, 13)}
        listening.presence_changed(5, 11)
        arrived = await hub.next()
        assert arrived == {"campaign": 5, "topic": "presence", "users": [11, 12]}  # only served campaigns are heard
        assert await present(transport, 5) == {11, 12}
        assert await present(transport, 6) == {13}
        hub.present = {(5, 12)}
        listening.presence_changed(5, 11)
        assert await hub.next() == {"campaign": 5, "topic": "presence", "users": [11]}
        assert await present(transport, 5) == {12}
        assert await present(transport, 6) == set()

    run(kind, scenario)


def test_a_stopped_processs_users_leave_the_table(kind, monkeypatch):
    """PostgreSQL: its connection and so its locks are gone. Redis: its entries expire with no heartbeat."""
    monkeypatch.setattr(redis_broker, "PRESENCE_TTL", 0.5)

    async def scenario(transport, hub, listening):
        await asyncio.wait_for(listening.serve(5), TIMEOUT)
        hub.present = {(5, 11)}
        listening.presence_changed(5, 11)
        await hub.next()
        assert await present(transport, 5) == {11}
        # A crash, not a clean stop: the tasks end without taking their presence back.
        tasks = [t for t in (getattr(listening, name, None) for name in ("task", "presence_task")) if t]
        tasks += [listening.presence.task] if kind.name == "postgresql" else []
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        listening._mine = set()  # Redis: what a clean stop would take back
        await until(lambda: _nobody(transport, 5))

    run(kind, scenario)


async def _nobody(transport, campaign_id: int) -> bool:
    return await present(transport, campaign_id) == set()
