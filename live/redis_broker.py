"""The Redis transport (live.transport), for deployments with many app processes: ``LIVE_BROKER=redis://…``.

Signals travel by PUBLISH on one channel per campaign (``<prefix>lantern_<id>``); each process SUBSCRIBEs only to
the campaigns it serves. Presence is one sorted set per campaign, ``<prefix>presence:<id>``, whose members
``<process>:<user>`` are scored with the moment they expire: each process re-adds its own every heartbeat, so a
dead process's users drop out within ``PRESENCE_TTL`` without anyone cleaning up after it.

A lost connection is never retried silently by redis-py (its retry would re-subscribe without telling anyone):
this module reconnects by itself and tells the hub it may have missed signals (``hub.missed()``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
import time
import uuid
from typing import Any

from live.signals import Key, presence_signal
from live.transport import CampaignListening, Signal, cancelled, channel

log = logging.getLogger("live.hub")

BACKOFF_FIRST = 0.5
BACKOFF_MAX = 10.0
HEARTBEAT = 5.0  # presence re-added, and the subscription's connection checked, this often
PRESENCE_TTL = 3 * HEARTBEAT  # a process silent this long (dead, or cut off) is no longer at anyone's table


def _no_retry():
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    return Retry(NoBackoff(), 0)


class RedisTransport:
    def __init__(self, url: str, prefix: str) -> None:
        self.url = url
        self.prefix = prefix
        self._client: Any = None  # redis.Redis (thread-safe pool), for the relay's thread and page views
        self._lock = threading.Lock()

    def channel(self, campaign_id: int) -> str:
        return self.prefix + channel(campaign_id)

    def presence_key(self, campaign_id: int) -> str:
        return f"{self.prefix}presence:{int(campaign_id)}"

    def _sync(self):
        with self._lock:
            if self._client is None:
                import redis

                self._client = redis.Redis.from_url(self.url, socket_timeout=5, socket_connect_timeout=5)
            return self._client

    def async_client(self, name: str):
        import redis.asyncio

        return redis.asyncio.Redis.from_url(
            self.url,
            client_name=self.prefix + name,  # CLIENT LIST tells each process's connections apart
            retry=_no_retry(),
            socket_connect_timeout=5,
            socket_keepalive=True,
            health_check_interval=HEARTBEAT,
        )

    def publish(self, signals: list[Signal]) -> None:
        pipe = self._sync().pipeline(transaction=False)
        for signal in signals:
            pipe.publish(self.channel(signal["campaign"]), json.dumps(signal, separators=(",", ":")))
        pipe.execute()

    def present_user_ids(self, campaign_id: int) -> set[int]:
        members = self._sync().zrangebyscore(self.presence_key(campaign_id), time.time(), "+inf")
        return {int(member.rsplit(b":", 1)[1]) for member in members}

    def listen(self, hub: Any) -> RedisListening:
        return RedisListening(hub, self)

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()


class RedisListening(CampaignListening):
    """The process's subscription (campaign channels as the hub serves them) and its presence heartbeat."""

    def __init__(self, hub: Any, transport: RedisTransport) -> None:
        super().__init__(hub)
        self.transport = transport
        self.process = uuid.uuid4().hex[:12]  # names this process's presence entries
        self._asked: set[int] = set()  # subscribed to on the current connection
        self._confirmed: set[int] = set()  # ... and Redis said so: its signals reach the hub
        self._presence_changed = asyncio.Event()
        self._mine: set[Key] = set()  # presence entries this process wrote
        self.task = asyncio.create_task(self._run(), name="lantern-redis-listen")
        self.presence_task = asyncio.create_task(self._presence(), name="lantern-redis-presence")

    def hearing(self, campaign_id: int) -> bool:
        return campaign_id in self._confirmed

    def presence_changed(self, campaign_id: int, user_id: int) -> None:
        self._presence_changed.set()

    async def aclose(self) -> None:
        await cancelled(self.task, self.presence_task)
        if self._mine:  # a process that stops cleanly leaves nobody at the table behind it
            client = self.transport.async_client("presence")
            with contextlib.suppress(Exception):
                pipe = client.pipeline(transaction=False)
                for c, u in self._mine:
                    pipe.zrem(self.transport.presence_key(c), f"{self.process}:{u}")
                await pipe.execute()
            with contextlib.suppress(Exception):
                await client.aclose()
            self._mine = set()

    # --- signals ---------------------------------------------------------------------------------

    async def _run(self) -> None:
        delay = BACKOFF_FIRST
        missed = False
        while True:
            client = self.transport.async_client("listen")
            pubsub = client.pubsub()
            try:
                await pubsub.connect()
                self._asked, self._confirmed = set(), set()
                self.changed.set()
                self.ready.set()
                delay = BACKOFF_FIRST
                if missed:
                    log.info("Live table: Redis subscription reconnected; the hub catches up")
                    self.hub.missed()
                await _first_to_end(self._read(pubsub), self._follow(pubsub))
            except asyncio.CancelledError:
                raise
            except Exception as error:  # Redis restarted, CLIENT KILL, the network broke
                log.warning("Live table: Redis subscription lost (%s); retrying in %.1f s", error, delay)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                with contextlib.suppress(Exception):
                    await client.aclose()
            self.ready.clear()
            missed = True
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def _follow(self, pubsub) -> None:
        """SUBSCRIBE to the campaigns served since, UNSUBSCRIBE the others (the reader sees Redis confirm)."""
        while True:
            await self.changed.wait()
            self.changed.clear()
            wanted = set(self.wanted)
            # Unsubscribe first: once Redis confirms a new subscription, it has done the unsubscribing too.
            if gone := self._asked - wanted:
                await pubsub.unsubscribe(*[self.transport.channel(c) for c in sorted(gone)])
            if new := wanted - self._asked:
                await pubsub.subscribe(*[self.transport.channel(c) for c in sorted(new)])
            self._asked = wanted
            self._confirmed &= wanted

    async def _read(self, pubsub) -> None:
        prefix = self.transport.channel(0)[:-1]
        while True:
            message = await pubsub.get_message(timeout=HEARTBEAT)  # each call checks the connection's health
            if message is None or not isinstance(message.get("channel"), bytes):
                continue  # a health check's pong
            kind, name = message["type"], message["channel"].decode()
            if kind == "subscribe" and name.startswith(prefix):
                campaign_id = int(name.removeprefix(prefix))
                if campaign_id in self._asked:
                    self._confirmed.add(campaign_id)
                self.subscribed(campaign_id)
            elif kind == "message":
                self.hand_over(message["data"], "Redis message")

    # --- presence --------------------------------------------------------------------------------

    async def _presence(self) -> None:
        delay = BACKOFF_FIRST
        while True:
            client = self.transport.async_client("presence")
            try:
                delay = BACKOFF_FIRST
                self._presence_changed.set()
                while True:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._presence_changed.wait(), HEARTBEAT)
                    self._presence_changed.clear()
                    await self._reconcile(client)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                log.warning("Live table: Redis presence lost (%s); retrying in %.1f s", error, delay)
            finally:
                with contextlib.suppress(Exception):
                    await client.aclose()
            await asyncio.sleep(delay)
            delay = min(delay * 2, BACKOFF_MAX)

    async def _reconcile(self, client) -> None:
        """Re-add every local presence with a fresh expiry (the heartbeat), drop who left, announce the moves."""
        wanted = self.hub.present_local()
        gained, lost = wanted - self._mine, self._mine - wanted
        now = time.time()
        pipe = client.pipeline(transaction=False)
        for c, u in wanted:
            pipe.zadd(self.transport.presence_key(c), {f"{self.process}:{u}": now + PRESENCE_TTL})
        for c, u in lost:
            pipe.zrem(self.transport.presence_key(c), f"{self.process}:{u}")
        for c in {c for c, _ in wanted | lost}:
            pipe.zremrangebyscore(self.transport.presence_key(c), "-inf", now)  # dead processes' entries
            pipe.expire(self.transport.presence_key(c), int(PRESENCE_TTL) + 1)
        # After the entries, so a page that refetches on this signal already sees the change.
        for c in sorted({c for c, _ in gained | lost}):
            signal = presence_signal(c, {u for k, u in gained | lost if k == c})
            pipe.publish(self.transport.channel(c), json.dumps(signal))
        await pipe.execute()
        self._mine = wanted


async def _first_to_end(*coroutines) -> None:
    """Run these together until one ends or fails (its error raised); the others are cancelled."""
    tasks = [asyncio.create_task(coroutine) for coroutine in coroutines]
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        for task in done:
            task.result()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)  # the failed one's error was raised above
