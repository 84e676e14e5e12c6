"""How live-table signals travel between processes: one interface, three transports, chosen from settings.

- SQLite: in-process (one server process only: live.hub.claim_single_process), the relay thread hands each signal
  to this process's hub.
- PostgreSQL: LISTEN/NOTIFY on one channel per campaign (``lantern_<id>``), over direct connections built from
  ``DATABASE_LISTEN_URL`` (default ``DATABASE_URL``), so the request pool may go through PgBouncer in
  transaction mode; presence as shared advisory locks (live.postgres).
- ``LIVE_BROKER=redis://…``: Redis pub/sub, one channel per campaign; presence in keys that expire unless their
  process keeps beating (live.redis_broker).

The write side is ``publish(signals)``, called by the relay's thread (live.relay), never inside a transaction.
The listening side runs on the hub's event loop: it subscribes only to the campaigns the hub serves
(``serve``/``unserve``), calls ``hub.heard(signal)`` for each signal, and ``hub.missed()`` after a reconnect
(signals may have gone by unheard; the hub catches up from the journal).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from typing import Any, Protocol

from live.signals import presence_signal

Signal = dict[str, Any]
log = logging.getLogger("live.hub")  # one logger for the live table


class Listening(Protocol):
    """A process's listening side, started on the hub's loop by ``Transport.listen``."""

    ready: asyncio.Event  # set while connected and listening

    async def serve(self, campaign_id: int) -> None:
        """Hear this campaign's signals; returns once they reach the hub (await it with a timeout)."""

    def unserve(self, campaign_id: int) -> None:
        """No stream of this campaign is open here any more: stop hearing it."""

    def presence_changed(self, campaign_id: int, user_id: int) -> None:
        """The hub's local presence moved (``hub.present_local()``): share it, and announce it."""

    async def aclose(self) -> None: ...


class Transport(Protocol):
    def publish(self, signals: list[Signal]) -> None:
        """Send signals to every process that serves their campaigns (sync: from the relay's thread)."""

    def listen(self, hub: Any) -> Listening:
        """Start listening for ``hub`` (a live.hub.Hub) on the running event loop."""

    def present_user_ids(self, campaign_id: int) -> set[int]:
        """Who has a stream of this campaign open, in any process (sync: page views ask)."""

    def close(self) -> None:
        """Close the publishing side's connection (tests, shutdown); the next publish opens it again."""


def channel(campaign_id: int) -> str:
    """A campaign's channel name (PostgreSQL identifiers and Redis channels alike)."""
    return f"lantern_{int(campaign_id)}"


# This process's hub (live.hub registers it when it is made): where the in-process transport hands signals.
_local: list[Any] = []


def hear_locally(hub: Any) -> None:
    _local[:] = [hub]


class InProcess:
    """SQLite: one process, so a signal goes straight to this process's hub."""

    def publish(self, signals: list[Signal]) -> None:
        for signal in signals:
            _local[0].dispatch_threadsafe(signal)

    def listen(self, hub: Any) -> Listening:
        return InProcessListening(hub)

    def present_user_ids(self, campaign_id: int) -> set[int]:
        return {user_id for (c, user_id) in _local[0].present_local() if c == campaign_id}

    def close(self) -> None:
        pass


class InProcessListening:
    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.ready = asyncio.Event()
        self.ready.set()

    async def serve(self, campaign_id: int) -> None:
        pass

    def unserve(self, campaign_id: int) -> None:
        pass

    def presence_changed(self, campaign_id: int, user_id: int) -> None:
        self.hub.heard(presence_signal(campaign_id, {user_id}))

    async def aclose(self) -> None:
        pass


class CampaignListening:
    """What a listening side that subscribes per campaign shares (live.postgres, live.redis_broker): the campaigns
    the hub serves (``wanted``), who waits for their campaign's subscription to take (``serve``), the event its
    loop waits on to follow a change (``changed``), and a message handed to the hub.

    A subclass says when a campaign's signals reach the hub (``hearing``), follows ``wanted`` on its connection,
    and calls ``subscribed(campaign_id)`` once a subscription has taken."""

    def __init__(self, hub: Any) -> None:  # a live.hub.Hub (which starts this)
        self.hub = hub
        self.ready = asyncio.Event()  # set while connected and listening
        self.wanted: set[int] = set()
        self.waiters: dict[int, list[asyncio.Future[None]]] = {}
        self.changed = asyncio.Event()

    def hearing(self, campaign_id: int) -> bool:
        """Whether this campaign's signals reach the hub on the current connection."""
        raise NotImplementedError

    async def serve(self, campaign_id: int) -> None:
        self.wanted.add(campaign_id)
        if self.hearing(campaign_id):
            return
        waiter = asyncio.get_running_loop().create_future()
        self.waiters.setdefault(campaign_id, []).append(waiter)
        self.changed.set()
        await waiter

    def unserve(self, campaign_id: int) -> None:
        self.wanted.discard(campaign_id)
        self.changed.set()

    def subscribed(self, campaign_id: int) -> None:
        """The campaign's subscription took: whoever waited in ``serve`` goes on."""
        for waiter in self.waiters.pop(campaign_id, []):
            if not waiter.done():
                waiter.set_result(None)

    def hand_over(self, payload: str | bytes, source: str) -> None:
        """A message's payload to the hub, if it is a signal (a JSON object); anything else is logged and left."""
        try:
            signal = json.loads(payload)
        except ValueError:
            log.warning("Ignoring a %s that is not JSON: %r", source, payload[:200])
            return
        if isinstance(signal, dict):
            self.hub.heard(signal)


async def cancelled(*tasks: asyncio.Task) -> None:
    """Cancel these tasks and wait until each has stopped."""
    for task in tasks:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
