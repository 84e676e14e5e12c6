"""PostgreSQL only: open streams hold no connection, and the LISTEN connection survives being killed."""

from __future__ import annotations

import asyncio
import time

import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection, connections
from django.urls import reverse

import live.hub as live
import live.postgres as live_postgres
from live.events import ClockMoved, SettingsChanged
from tests.campaigns.live_helpers import Stream, head, hub_has_cursors, present, run, session_cookie, write

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="LISTEN/NOTIFY and pg_stat_activity: PostgreSQL only"),
    pytest.mark.skipif(bool(settings.LIVE_BROKER), reason="the PostgreSQL transport's own (LIVE_BROKER is set)"),
]


def _query(sql: str, params: list | None = None) -> list[tuple]:
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, params or [])
            return cursor.fetchall()
    finally:
        connections.close_all()


query = sync_to_async(_query, thread_sensitive=False)
LISTEN_SQL = (
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'lantern-listen'"
    " AND query LIKE 'LISTEN%%'"
)
BACKENDS_SQL = (
    "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
)


def test_open_streams_hold_no_database_connection(campaign, gm, player, other_player):
    path = reverse("campaigns:events", args=[campaign.pk])
    cookies = [session_cookie(user) for user in (gm, player, other_player)]

    async def scenario():
        first = await Stream(path, cookies[0]).open()
        await first.next_event()
        before = await query(BACKENDS_SQL)
        streams = [await Stream(path, cookies[n % 3]).open() for n in range(30)]
        for stream in streams:
            await stream.next_frame()  # each is open and streaming
        await hub_has_cursors(campaign.pk)
        await write(campaign.pk, SettingsChanged())
        for stream in [first, *streams]:
            while (await stream.next_event())[0] != "settings":
                pass
        after = await query(BACKENDS_SQL)
        for stream in [first, *streams]:
            await stream.close()
        return before, after

    before, after = run(scenario())
    # The write opened the relay's publishing connection (one per process, whatever the streams); else nothing grew.
    assert len(after) == len(before) + 1
    # The process's own three: LISTEN, presence and publishing; the pool may keep idle request connections besides.
    names = [name for (name,) in after]
    assert names.count("lantern-listen") == 1
    assert names.count("lantern-presence") == 1
    assert names.count("lantern-relay") == 1


def test_the_listener_reconnects_after_its_backend_is_killed_and_streams_resync(campaign, player):
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)
    query_string = f"page=table&after={head(campaign.pk)}"

    async def scenario():
        stream = await Stream(path, cookie, query=query_string).open()
        await stream.next_event()  # presence
        await stream.next_push()  # their own row of the member list
        [(old, killed)] = await query(
            "SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = 'lantern-listen'"
        )
        assert killed
        for _ in range(500):  # after the 0.5 s backoff, a new LISTEN (a bound on the wait, never a clock)
            listening = await query(LISTEN_SQL)
            if listening and listening[0][0] != old and live.hub.listener_ready():
                break
            await asyncio.sleep(0.02)
        else:
            pytest.fail("the listener did not come back")
        cursor = await write(campaign.pk, ClockMoved())
        assert (await stream.next_push())[0] == cursor  # heard through the new LISTEN, or read by the catch-up
        await stream.close()

    run(scenario())
    # The teardown (run → hub.aclose) closed both connections; their backends exit a moment later.
    for _ in range(100):
        if not [name for (name,) in _query(BACKENDS_SQL) if name.startswith("lantern-")]:
            break
        time.sleep(0.02)
    else:
        pytest.fail("the listener's connections outlived hub.aclose()")


def test_presence_comes_back_after_its_connection_is_killed(campaign, player, settings, monkeypatch):
    monkeypatch.setattr(live_postgres, "PRESENCE_HEARTBEAT", 0.1)
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.next_event()  # presence
        assert await present(campaign.pk) == {player.pk}
        await query(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
            "WHERE datname = current_database() AND application_name = 'lantern-presence'"
        )
        # The heartbeat notices, the locks are taken again, and pages are told to refetch presence.
        assert (await stream.next_event())[0] == "presence"
        assert await present(campaign.pk) == {player.pk}
        await stream.close()

    run(scenario())


def test_a_second_process_sees_presence_through_the_database(campaign, player):
    """present_user_ids reads pg_locks, so any process (here: a fresh thread's connection) sees the table."""
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.next_event()
        rows = await query(
            "SELECT classid::bigint, objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND objsubid = 2"
        )
        await stream.close()
        return rows

    assert (campaign.pk, player.pk) in run(scenario())
