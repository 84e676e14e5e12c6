"""The relay (live.relay): after-commit signals leave from one background thread, batched, and a transport that
fails costs its batch, never the request that announced it nor the signals after it."""

from __future__ import annotations

import threading

import pytest

from live import relay as live_relay
from live.broker import transport
from live.relay import Relay, collapse
from live.transport import InProcess


class Recording:
    """A transport that records each batch; ``gate`` held shut keeps it inside publish; ``fail`` makes it raise."""

    def __init__(self) -> None:
        self.batches: list[list[dict]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self.fail = False

    def publish(self, signals: list[dict]) -> None:
        self.entered.set()
        self.gate.wait(10)
        if self.fail:
            raise ConnectionError("the broker is down")
        self.batches.append(list(signals))


@pytest.fixture
def recording(monkeypatch) -> Recording:
    recorded = Recording()
    monkeypatch.setattr("live.relay.transport", lambda: recorded)
    return recorded


def test_cursor_signals_of_a_campaign_collapse_to_the_highest_in_its_first_place():
    batch = [
        {"campaign": 1, "cursor": 3},
        {"campaign": 2, "cursor": 9},
        {"campaign": 1, "topic": "revoke", "user": 5, "session": ""},
        {"campaign": 1, "cursor": 5},
        {"campaign": 1, "cursor": 4},
    ]
    assert collapse(batch) == [
        {"campaign": 1, "cursor": 5},
        {"campaign": 2, "cursor": 9},
        {"campaign": 1, "topic": "revoke", "user": 5, "session": ""},
    ]


def test_announced_signals_reach_the_transport_from_the_relays_thread(recording):
    relay = Relay()
    relay.announce({"campaign": 1, "cursor": 1})
    assert relay.flush()
    assert recording.batches == [[{"campaign": 1, "cursor": 1}]]


def test_announce_returns_while_the_transport_is_stuck_and_what_queued_meanwhile_goes_out_as_one_batch(recording):
    relay = Relay()
    recording.gate.clear()
    relay.announce({"campaign": 1, "cursor": 1})
    assert recording.entered.wait(10)  # the relay's thread is inside publish, held there
    for cursor in range(2, 50):
        relay.announce({"campaign": 1, "cursor": cursor})  # returns at once: a request never waits on the broker
    relay.announce({"campaign": 2, "topic": "presence", "users": [7]})
    recording.gate.set()
    assert relay.flush()
    assert recording.batches == [
        [{"campaign": 1, "cursor": 1}],
        [{"campaign": 1, "cursor": 49}, {"campaign": 2, "topic": "presence", "users": [7]}],
    ]


def test_a_transport_error_drops_its_batch_and_the_next_signals_still_go_out(recording, caplog):
    relay = Relay()
    recording.fail = True
    relay.announce({"campaign": 1, "cursor": 1})
    assert relay.flush()
    assert "not published" in caplog.text
    recording.fail = False
    relay.announce({"campaign": 1, "cursor": 2})
    assert relay.flush()
    assert recording.batches == [[{"campaign": 1, "cursor": 2}]]


def test_the_relay_thread_starts_again_in_a_forked_child(recording, monkeypatch):
    relay = Relay()
    relay.announce({"campaign": 1, "cursor": 1})
    assert relay.flush()
    first = relay._thread
    monkeypatch.setattr(live_relay.os, "getpid", lambda: -1)  # as a forked child sees it: another process
    assert not relay.running
    relay.announce({"campaign": 1, "cursor": 2})
    assert relay.flush()
    assert relay._thread is not first
    assert recording.batches == [[{"campaign": 1, "cursor": 1}], [{"campaign": 1, "cursor": 2}]]


def test_the_transport_follows_the_settings(settings):
    from django.db import connection

    settings.LIVE_BROKER = ""
    if connection.vendor == "postgresql":
        from live.postgres import PgTransport

        assert isinstance(transport(), PgTransport)
    else:
        assert isinstance(transport(), InProcess)
    settings.LIVE_BROKER = "redis://127.0.0.1:6379/3"
    from live.redis_broker import RedisTransport

    chosen = transport()
    assert isinstance(chosen, RedisTransport)
    assert chosen.url == "redis://127.0.0.1:6379/3"
