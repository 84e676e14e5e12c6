"""The live table's event stream through the real ASGI application, on SQLite and on PostgreSQL.

``transaction=True`` everywhere: with the default rolled-back test transaction nothing ever commits, so
neither NOTIFY nor on_commit would fire (architecture pitfall 5).
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import sync_to_async
from django.db import connections, transaction
from django.test import AsyncClient
from django.urls import reverse

import live.hub as live
from live import journal
from live.events import ClockMoved, PartyChanged, RollMade, SettingsChanged
from live.hub import QUEUE_SIZE
from tests.campaigns.live_helpers import Stream, head, hub_has_cursors, present, run, session_cookie, write

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_presence_grace(settings):
    settings.SSE_PRESENCE_GRACE_SECONDS = 0


def events_path(campaign) -> str:
    return reverse("campaigns:events", args=[campaign.pk])


def table_page(campaign) -> str:
    """The query of a table page's stream, drawn at the journal's head now (templates/campaigns/detail.html)."""
    return f"page=table&after={head(campaign.pk)}"


def test_a_committed_write_reaches_another_members_stream(campaign, gm, player):
    path, cookie, query = events_path(campaign), session_cookie(player), table_page(campaign)
    before = head(campaign.pk)

    async def scenario():
        stream = await Stream(path, cookie, query=query).open()
        assert stream.status == 200
        assert stream.headers["content-type"] == "text/event-stream"
        assert stream.headers["cache-control"] == "no-cache"
        assert stream.headers["x-accel-buffering"] == "no"
        assert "content-encoding" not in stream.headers
        assert (await stream.next_frame()).startswith(": open")
        assert await stream.next_event() == (
            "presence",
            {"campaign": campaign.pk, "topic": "presence", "users": [player.pk]},
        )

        await stream.next_push()  # their own row of the member list
        assert await write(campaign.pk, ClockMoved()) == before + 1
        cursor, html = await stream.next_push()
        assert cursor == before + 1 and 'id="clock"' in html  # its journal cursor: the browser's Last-Event-ID
        await stream.close()

    run(scenario())


def test_a_rolled_back_write_announces_nothing(campaign, player):
    path, cookie, query = events_path(campaign), session_cookie(player), table_page(campaign)
    before = head(campaign.pk)

    def rolled_back():
        try:
            with transaction.atomic():
                journal.record(campaign.pk, RollMade(roll=1))
                transaction.set_rollback(True)
        finally:
            connections.close_all()

    async def scenario():
        stream = await Stream(path, cookie, query=query).open()
        assert await stream.next_event() == (
            "presence",
            {"campaign": campaign.pk, "topic": "presence", "users": [player.pk]},
        )
        await stream.next_push()  # their own row of the member list
        await sync_to_async(rolled_back, thread_sensitive=False)()
        await write(campaign.pk, PartyChanged())
        cursor, html = await stream.next_push()
        assert cursor == before + 1 and 'id="party"' in html  # the rolled-back roll took no cursor, came first never
        await stream.close()

    run(scenario())


def test_events_of_other_campaigns_are_not_sent(campaign, gm, player):
    from campaigns.models import Campaign

    elsewhere = Campaign.objects.create(name="Elsewhere", system=campaign.system)
    path, cookie, query = events_path(campaign), session_cookie(player), table_page(campaign)
    before = head(campaign.pk)

    async def scenario():
        stream = await Stream(path, cookie, query=query).open()
        await stream.next_event()  # presence
        await stream.next_push()  # their own row of the member list
        await write(elsewhere.pk, PartyChanged())
        await write(campaign.pk, ClockMoved())
        cursor, html = await stream.next_push()
        assert cursor == before + 1 and 'id="clock"' in html and 'id="party"' not in html
        assert await stream.events_until_quiet() == []
        await stream.close()

    run(scenario())


@pytest.mark.parametrize("who", ["stranger", "anonymous"])
def test_only_members_may_open_the_stream(who, campaign, stranger):
    cookie = session_cookie(stranger) if who == "stranger" else None
    path = events_path(campaign)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.chunk()
        await stream.task
        return stream

    stream = run(scenario())
    if who == "stranger":
        assert stream.status == 404
    else:
        assert stream.status == 302
        assert stream.headers["location"] == f"{reverse('login')}?next={path}"
    assert live.hub.subscriber_count() == 0


def test_a_missing_campaign_is_404_even_for_members(campaign, player):
    path = reverse("campaigns:events", args=[campaign.pk + 1000])
    cookie = session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.task
        return stream.status

    assert run(scenario()) == 404


def test_presence_announces_arrivals_and_departures(campaign, gm, player):
    path = events_path(campaign)
    player_cookie, gm_cookie = session_cookie(player), session_cookie(gm)

    async def scenario():
        assert await present(campaign.pk) == set()
        watcher = await Stream(path, player_cookie).open()
        assert (await watcher.next_event())[0] == "presence"  # their own arrival
        assert await present(campaign.pk) == {player.pk}

        first_tab = await Stream(path, gm_cookie).open()
        assert (await watcher.next_event())[0] == "presence"
        assert await present(campaign.pk) == {player.pk, gm.pk}

        second_tab = await Stream(path, gm_cookie).open()  # the GM's second page: no news
        await first_tab.close()  # one page still open: the GM is still at the table
        assert await watcher.events_until_quiet() == []
        assert await present(campaign.pk) == {player.pk, gm.pk}

        await second_tab.close()
        assert (await watcher.next_event())[0] == "presence"
        assert await present(campaign.pk) == {player.pk}
        await watcher.close()
        await asyncio.sleep(0)  # let PostgreSQL's presence task drop the last lock
        for _ in range(50):
            if not await present(campaign.pk):
                break
            await asyncio.sleep(0.02)
        assert await present(campaign.pk) == set()

    run(scenario())


def test_changing_page_within_the_grace_period_is_not_a_departure(campaign, gm, player, settings):
    settings.SSE_PRESENCE_GRACE_SECONDS = 30
    path = events_path(campaign)
    player_cookie, gm_cookie = session_cookie(player), session_cookie(gm)

    async def scenario():
        watcher = await Stream(path, player_cookie).open()
        await watcher.next_event()
        table_page = await Stream(path, gm_cookie).open()
        assert (await watcher.next_event())[0] == "presence"
        await table_page.close()
        sheet_page = await Stream(path, gm_cookie).open()
        assert await watcher.events_until_quiet() == []
        assert gm.pk in await present(campaign.pk)
        await sheet_page.close()
        await watcher.close()

    run(scenario())


def test_an_idle_stream_sends_ping_comments(campaign, player, settings):
    settings.SSE_PING_SECONDS = 0.05
    path, cookie = events_path(campaign), session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie).open()
        frames = [await stream.next_frame()]
        # The presence event may come before or after the first ping: on PostgreSQL it travels through
        # NOTIFY, which a busy machine can make slower than a 50 ms ping.
        while frames.count(": ping") < 2:
            frames.append(await stream.next_frame())
        await stream.close()
        return frames

    frames = run(scenario())
    assert frames[0].startswith(": open")
    assert all(f == ": ping" or f.startswith("event: presence\n") for f in frames[1:])


def test_a_client_that_stops_reading_gets_one_resync_not_unbounded_memory(campaign, player):
    path, cookie = events_path(campaign), session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.next_event()  # presence
        stream.gate.clear()  # the tab stops reading: the stream blocks in send, its queue fills
        for n in range(QUEUE_SIZE * 3):
            live.hub.dispatch({"campaign": campaign.pk, "topic": "rolls", "n": n})
            await asyncio.sleep(0)
        [queue] = live.hub._queues[campaign.pk]
        assert queue.qsize() <= QUEUE_SIZE
        stream.gate.set()
        topics = await stream.events_until_quiet()
        await stream.close()
        return topics

    topics = run(scenario())
    assert "resync" in topics
    assert len(topics) <= QUEUE_SIZE + 2  # the event being sent, the queue's content, nothing more
    assert topics[-1] == "rolls"  # events after the overflow still arrive


def test_the_django_view_streams_too(campaign, player):
    """Without config.asgi's router in front (another server setup), Django's own view serves the stream."""
    path, cookie, query = events_path(campaign), session_cookie(player), table_page(campaign)
    before = head(campaign.pk)

    async def scenario():
        client = AsyncClient()
        client.cookies["sessionid"] = cookie
        response = await client.get(f"{path}?{query}")
        assert response.status_code == 200
        assert response["Content-Type"] == "text/event-stream"
        assert response["X-Accel-Buffering"] == "no"
        chunks = aiter(response.streaming_content)
        assert (await asyncio.wait_for(anext(chunks), 5)).startswith(b": open")
        assert b"event: presence" in await asyncio.wait_for(anext(chunks), 5)
        await write(campaign.pk, ClockMoved())
        for _ in range(5):  # the member list's row of their arrival may come first
            chunk = await asyncio.wait_for(anext(chunks), 5)
            if b'id="clock"' in chunk:
                break
        assert chunk.startswith(b"event: push\n") and chunk.endswith(f"\nid: {before + 1}\n\n".encode())
        await chunks.aclose()

    run(scenario())


def test_the_django_view_is_404_for_strangers(campaign, stranger):
    async def scenario():
        client = AsyncClient()
        client.cookies["sessionid"] = session_cookie_sync
        return (await client.get(events_path(campaign))).status_code

    session_cookie_sync = session_cookie(stranger)
    assert run(scenario()) == 404


def test_a_page_that_pushes_nothing_still_hears_its_signals(campaign, gm):
    """The settings page opens its stream with no ``?page=`` and no cursor (templates/campaigns/settings.html): it
    has nothing pushed, but a settings write's entry still tells it to reload its form."""
    path, cookie = events_path(campaign), session_cookie(gm)

    async def scenario():
        stream = await Stream(path, cookie).open()
        await stream.next_event()  # presence
        await hub_has_cursors(campaign.pk)
        await write(campaign.pk, SettingsChanged())
        assert (await stream.next_event())[0] == "settings"
        await stream.close()

    run(scenario())
