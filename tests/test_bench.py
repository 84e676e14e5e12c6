"""Issue 25's benchmarks measure from the outside; these hold the two pieces they lean on: the bench-only bare
views layered over the app's URLs, and the fan-out's reading of a stream whatever it carries."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest
from django.test import override_settings

from bench.fanout import Subscriber, arrivals, consume

LAYER = Path(__file__).resolve().parents[1] / "bench" / "layer"


@pytest.fixture
def bench_urls(monkeypatch):
    monkeypatch.syspath_prepend(str(LAYER))
    with override_settings(ROOT_URLCONF="bench_bare_urls"):
        yield
    sys.modules.pop("bench_bare_urls", None)


@pytest.mark.django_db
def test_the_bare_views_answer_through_the_app_middleware_and_the_app_urls_still_do(
    bench_urls, client, django_user_model
):
    bare = client.get("/bench/bare/")
    assert bare.status_code == 200 and b"<title>bare</title>" in bare.content
    assert bare["X-Frame-Options"] == "DENY"  # the app's middleware ran
    assert client.get("/bench/bare-user/").status_code == 302  # behind the login like any page
    client.force_login(django_user_model.objects.create_user("bench-user"))
    assert client.get("/bench/bare-user/").status_code == 200
    assert client.get("/accounts/login/").status_code in (200, 302)  # the app's own URLs follow


def read(stream: bytes, topic: str = "character-3") -> Subscriber:
    async def go() -> Subscriber:
        reader = asyncio.StreamReader()
        reader.feed_data(stream)
        reader.feed_eof()
        sub = Subscriber(reader, None)  # type: ignore[arg-type] # consume only reads
        await consume(sub, topic)
        return sub

    return asyncio.run(go())


def test_a_versioned_signal_is_keyed_by_its_version_and_comments_and_presence_are_skipped():
    sub = read(
        b": open\nretry: 2000\n\nevent: presence\ndata: {}\n\n: ping\n\n"
        b'event: character-3\ndata: {"version":7}\n\nevent: character-3-vitals\ndata: {}\n\n'
    )
    assert list(sub.received) == [7]
    assert len(sub.frames) == 1
    assert arrivals(sub, {7: 0.0}, per_write=0) == sub.received


def test_pushed_regions_are_cut_into_writes_in_order():
    region = b'event: vitals\ndata: <section id="vitals">\ndata: </section>\n\n'
    sub = read(region * 2 + b"event: presence\ndata: {}\n\n" + region * 3)  # the third write's events not all in
    assert not sub.received and len(sub.frames) == 5
    matched = arrivals(sub, {11: 0.0, 12: 0.0, 13: 0.0}, per_write=2)
    assert list(matched) == [11, 12, 13]
    assert matched[12] == sub.frames[2]


def test_a_write_whose_version_never_came_but_a_later_one_did_is_coalesced_not_lost():
    from bench.fanout import coalesced

    sent = {5: 0.0, 6: 0.1, 7: 0.2, 8: 0.3}
    arrived = {5: 0.05, 7: 0.5}  # 6 drawn together with 7; 8 never came
    assert coalesced(arrived, sent) == [0.5 - 0.1]


def test_many_tables_counts_an_entry_reached_by_its_own_id_or_a_later_one():
    from bench.many_tables import Stream, latencies

    stream = Stream(1, None, None, ids=[(3, 10.2), (5, 10.5)])  # type: ignore[arg-type] # only ids are read
    other = Stream(2, None, None, ids=[])  # type: ignore[arg-type]
    figures = latencies([stream, other], [(1, 3, 10.0), (1, 4, 10.1), (1, 5, 10.3), (2, 1, 10.0)])
    assert figures["pairs"] == 4
    assert (figures["arrived"], figures["coalesced"], figures["missing"]) == (50.0, 25.0, 25.0)
    assert round(figures["max"]) == 400  # cursor 4, committed at 10.1, reached by id 5 at 10.5


@pytest.mark.django_db(transaction=True)
def test_the_journal_cost_bench_runs_at_a_tiny_size():
    from django.db import connection

    from bench.journal_cost import measure

    figures = measure(connection.vendor, fill=120, batch=2, rounds=2, calls=3)
    assert figures["large"]["entries"] >= 120
    assert figures["large"]["bytes_per_entry"] > 0
