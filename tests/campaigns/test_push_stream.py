"""Issue 25 through the real ASGI stream, on SQLite and PostgreSQL: a page's stream gets its regions drawn.

``transaction=True``: the hub draws in its own thread, on its own connection, what has committed.
"""

from __future__ import annotations

import re

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.urls import reverse

from characters import services
from live.hub import CSRF_SLOT
from tests.campaigns.live_helpers import Stream, head, hub_has_cursors, run, session_cookie

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
    return (await stream.next_push())[1]


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
        assert not [frame for frame in frames if "event: push" in frame]
        await stream.close()

    run(scenario())


def test_a_page_gets_exactly_the_entries_after_the_cursor_it_was_drawn_at(campaign, gm, player, hero):
    """``?after=`` (the journal's cursor the page was drawn at) or ``Last-Event-ID`` (a reconnect): a page at the
    head gets nothing when its stream opens; one drawn before a change gets that change, not its whole page; a
    cursor the journal never reached (from another database) gets the whole page."""
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(gm)
    sheet, at = f"page=sheet-{hero.pk}", head(campaign.pk)

    async def pushes(stream: Stream, quiet: float = 0.5) -> list[str]:
        frames = []
        try:
            while True:
                frames.append(await stream.next_frame(quiet))
        except TimeoutError:
            return [frame for frame in frames if "event: push" in frame]

    async def scenario():
        first = await Stream(path, cookie, query=sheet).open()
        assert 'id="inventory"' in (await first.next_push())[1]  # no cursor: its whole page
        fresh = await Stream(path, cookie, query=f"{sheet}&after={at}").open()
        await hub_has_cursors(campaign.pk)
        assert await pushes(fresh) == []
        await sync_to_async(_adjust, thread_sensitive=False)(hero.pk, player)
        assert (await first.next_push())[0] == (await fresh.next_push())[0] == at + 1
        stale = [
            await Stream(path, cookie, query=f"{sheet}&after={at}").open(),
            await Stream(path, cookie, query=sheet, last_event_id=str(at)).open(),
        ]
        for reconnected in stale:
            cursor, html = await reconnected.next_push()
            assert cursor == at + 1 and 'id="vitals"' in html and 'id="inventory"' not in html  # that change only
        elsewhere = await Stream(path, cookie, query=f"{sheet}&after={at + 1000}").open()
        assert 'id="inventory"' in (await elsewhere.next_push())[1]  # its whole page afresh
        for stream in (first, fresh, *stale, elsewhere):
            await stream.close()

    run(scenario())
