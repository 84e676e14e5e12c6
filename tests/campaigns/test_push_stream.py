"""Issue 25 through the real ASGI stream, on SQLite and PostgreSQL: a page's stream gets its regions drawn.

``transaction=True``: the hub draws in its own thread, on its own connection, what has committed.
"""

from __future__ import annotations

import asyncio
import re
import time

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.urls import reverse

from characters import services
from live.hub import CLOCK_SKEW, CSRF_SLOT
from tests.campaigns.live_helpers import Stream, run, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)
CSRF_COOKIE = "k" * 32  # a CSRF secret as Django's cookie holds it


@pytest.fixture(autouse=True)
def _no_presence_grace(settings):
    settings.SSE_PRESENCE_GRACE_SECONDS = 0


def _adjust(character_id: int, by) -> int:
    try:
        return services.character_adjust(character_id=character_id, key="hp", delta=-1, by=by).character.version
    finally:
        connections.close_all()


async def _next_push(stream: Stream) -> str:
    while True:
        frame = await stream.next_frame()
        if frame.startswith("event: push"):
            return "\n".join(line.removeprefix("data: ") for line in frame.splitlines()[1:])


def test_an_open_sheet_gets_its_regions_on_opening_and_each_change_drawn(campaign, gm, player, hero):
    path = reverse("campaigns:events", args=[campaign.pk])
    query, cookie = f"page=sheet-{hero.pk}", session_cookie(gm)

    async def scenario():
        gm_sheet = await Stream(path, cookie, query=query, csrf=CSRF_COOKIE).open()
        assert gm_sheet.status == 200
        opened = await _next_push(gm_sheet)  # a stream that opens is a resync: the page's regions, once
        assert all(f'id="{region}"' in opened for region in ("vitals", "details", "inventory", "hirelings", "log"))
        version = await sync_to_async(_adjust, thread_sensitive=False)(hero.pk, player)
        changed = await _next_push(gm_sheet)
        assert re.findall(r'<section class="card" id="(\w+)"', changed) == ["vitals", "details"]
        assert f'data-version="{version}"' in changed
        # The GM's forms carry this page's own CSRF token, never the slot.
        assert CSRF_SLOT not in changed
        tokens = set(re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', changed))
        assert len(tokens) == 1 and len(tokens.pop()) == 64
        await gm_sheet.close()

    run(scenario())


def test_a_stream_without_a_page_hears_signals_only(campaign, player, hero):
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)

    async def scenario():
        stream = await Stream(path, cookie, query="page=../../etc").open()
        assert stream.status == 200
        await sync_to_async(_adjust, thread_sensitive=False)(hero.pk, player)
        frames = []
        try:
            while True:
                frames.append(await stream.next_frame(0.5))
        except TimeoutError:
            pass
        assert not [frame for frame in frames if frame.startswith("event: push")]
        await stream.close()

    run(scenario())


def test_a_page_that_opens_its_stream_at_once_is_not_resynced_but_one_drawn_before_a_change_is(
    campaign, gm, player, hero
):
    """``?since=``: a page drawn after the last change this process heard of (while listening) gets nothing
    when its stream opens; one drawn before a change gets everything it shows."""
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(gm)
    sheet = f"page=sheet-{hero.pk}"

    async def pushes(stream: Stream, quiet: float = 0.5) -> list[str]:
        frames = []
        try:
            while True:
                frames.append(await stream.next_frame(quiet))
        except TimeoutError:
            return [frame for frame in frames if frame.startswith("event: push")]

    async def scenario():
        first = await Stream(path, cookie, query=sheet).open()  # the process now hears every change
        assert len(await pushes(first)) == 1  # no since: a resync
        await asyncio.sleep(CLOCK_SKEW + 0.1)
        fresh = await Stream(path, cookie, query=f"{sheet}&since={time.time():.3f}").open()
        assert await pushes(fresh) == []
        drawn = time.time()
        await asyncio.sleep(0.1)
        await sync_to_async(_adjust, thread_sensitive=False)(hero.pk, player)
        await pushes(first)
        stale = await Stream(path, cookie, query=f"{sheet}&since={drawn:.3f}").open()
        assert len(await pushes(stale)) == 1  # drawn before the change: everything afresh
        for stream in (first, fresh, stale):
            await stream.close()

    run(scenario())
