"""Issue 37 through the real ASGI stream: a page reads the journal from its own cursor.

A stream opens with the cursor its page was drawn at (``?after=``) or, when the browser reconnects, the id of the last
push it had (``Last-Event-ID``), and gets exactly the entries after it: no gap, no duplicate. An announcement lost
between a commit and its publishing (a crashed process) costs latency only: the hub's catch-up reads the heads.
"""

from __future__ import annotations

import random
import re

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.urls import reverse

import live.hub as live_hub
from characters import services
from live import journal, relay
from tests.campaigns.live_helpers import Stream, run, session_cookie

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _no_presence_grace(settings):
    settings.SSE_PRESENCE_GRACE_SECONDS = 0
    settings.LIVE_CATCHUP_SECONDS = 1


def _adjust(character_id: int, by) -> int:
    """An HP change through the service, as a view makes it; the journal's cursor it was given."""
    try:
        written = services.character_adjust(character_id=character_id, key="hp", delta=-1, by=by)
        return journal.head(written.character.campaign_id)
    finally:
        connections.close_all()


async def adjust(character_id: int, by) -> int:
    return await sync_to_async(_adjust, thread_sensitive=False)(character_id, by)


def _roll(character_id: int, by) -> tuple[int, int]:
    """A public roll through the service (its own entry): its id and the journal's cursor it was given."""
    try:
        written = services.character_roll(
            character_id=character_id, procedure="test", params={}, by=by, rng=random.Random(5)
        )
        return written.row.pk, journal.head(written.character.campaign_id)
    finally:
        connections.close_all()


async def roll(character_id: int, by) -> tuple[int, int]:
    return await sync_to_async(_roll, thread_sensitive=False)(character_id, by)


def lines(html: str) -> list[int]:
    """The roll lines a push brings, by roll id, as they land."""
    return [int(found) for found in re.findall(r'<li id="roll-(\d+)"', html)]


async def pushes(stream: Stream, quiet: float = 0.6) -> list[tuple[int | None, str]]:
    """Every push until the stream is quiet: (its id, its HTML)."""
    out = []
    while True:
        try:
            frame = await stream.next_frame(quiet)
        except TimeoutError:
            return out
        lines = frame.splitlines()
        if not lines or lines[0] != "event: push":
            continue
        ids = [int(line.removeprefix("id: ")) for line in lines if line.startswith("id: ")]
        html = "\n".join(line.removeprefix("data: ") for line in lines if line.startswith("data: "))
        out.append((ids[-1] if ids else None, html))


def _stream(campaign, cookie: str, hero, *, after: int | None = None, last_event_id: int | None = None) -> Stream:
    query = f"page=sheet-{hero.pk}" + (f"&after={after}" if after is not None else "")
    stream = Stream(reverse("campaigns:events", args=[campaign.pk]), cookie, query=query)
    if last_event_id is not None:
        stream.scope["headers"].append((b"last-event-id", str(last_event_id).encode()))
    return stream


def test_a_page_gets_exactly_the_entries_written_after_it_was_drawn(campaign, gm, player, hero):
    gm_cookie = session_cookie(gm)

    async def scenario():
        _, first = await roll(hero.pk, player)
        second, _ = await roll(hero.pk, player)
        third, last = await roll(hero.pk, player)
        stream = await _stream(campaign, gm_cookie, hero, after=first).open()
        got = await pushes(stream)
        # Caught up in one push, up to the last cursor: each later roll's line once, not the first one's.
        assert [cursor for cursor, _ in got] == [last]
        assert sorted(lines(got[0][1])) == [second, third]
        await stream.close()

    run(scenario())


def test_a_page_drawn_at_the_head_gets_nothing_until_the_next_write(campaign, gm, player, hero):
    gm_cookie = session_cookie(gm)

    async def scenario():
        head = await adjust(hero.pk, player)
        stream = await _stream(campaign, gm_cookie, hero, after=head).open()
        assert await pushes(stream) == []
        after = await adjust(hero.pk, player)
        assert [cursor for cursor, _ in await pushes(stream)] == [after]
        await stream.close()

    run(scenario())


def test_a_reconnect_resumes_from_its_last_event_id_without_gap_or_duplicate(campaign, gm, player, hero):
    gm_cookie = session_cookie(gm)

    async def scenario():
        _, head = await roll(hero.pk, player)
        stream = await _stream(campaign, gm_cookie, hero, after=head).open()
        had, seen = await roll(hero.pk, player)
        got = await pushes(stream)
        assert [cursor for cursor, _ in got] == [seen] and lines(got[0][1]) == [had]
        await stream.close()
        missed = [await roll(hero.pk, player) for _ in range(3)]  # while the page was away
        # The browser sends the last id it had; the page's own ?after= (older) loses to it.
        back = await _stream(campaign, gm_cookie, hero, after=head, last_event_id=seen).open()
        got = await pushes(back)
        assert [cursor for cursor, _ in got] == [missed[-1][1]]
        assert sorted(lines(got[0][1])) == [pk for pk, _ in missed]  # no gap, and not the one it had
        await back.close()

    run(scenario())


def test_an_announcement_lost_after_the_commit_is_caught_up(campaign, gm, player, hero, monkeypatch):
    gm_cookie = session_cookie(gm)

    async def scenario():
        head = await adjust(hero.pk, player)
        stream = await _stream(campaign, gm_cookie, hero, after=head).open()
        assert await pushes(stream) == []
        # The process that wrote died between its commit and its announcement: nobody hears of the entry.
        monkeypatch.setattr(relay, "announce", lambda signal: None)
        lost = await adjust(hero.pk, player)
        got = await pushes(stream, quiet=3.0)  # the catch-up reads the heads every LIVE_CATCHUP_SECONDS
        assert [cursor for cursor, _ in got] == [lost]
        await stream.close()

    run(scenario())


def test_a_page_too_far_behind_gets_its_whole_page_afresh(campaign, gm, player, hero, monkeypatch):
    gm_cookie = session_cookie(gm)
    monkeypatch.setattr(live_hub, "REPLAY_MAX", 2)

    async def scenario():
        head = await adjust(hero.pk, player)
        for _ in range(4):
            await adjust(hero.pk, player)
        stream = await _stream(campaign, gm_cookie, hero, after=head).open()
        got = await pushes(stream)
        cursor, html = got[0]
        assert all(f'id="{region}"' in html for region in ("vitals", "details", "inventory", "log"))
        assert cursor == head + 4  # the whole page as it stands, and the cursor it stands at
        assert [c for c, _ in got[1:]] == []  # nothing sent twice after it
        await stream.close()

    run(scenario())


def test_a_stream_without_a_cursor_gets_its_whole_page_then_only_what_is_new(campaign, gm, player, hero):
    gm_cookie = session_cookie(gm)

    async def scenario():
        await adjust(hero.pk, player)
        stream = await _stream(campaign, gm_cookie, hero).open()
        (cursor, html), *rest = await pushes(stream)
        assert 'id="vitals"' in html and rest == []
        new = await adjust(hero.pk, player)
        assert [c for c, _ in await pushes(stream)] == [new] and new == cursor + 1
        await stream.close()

    run(scenario())
