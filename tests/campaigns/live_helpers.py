"""Drive the live-table stream through the real ASGI application, frame by frame, without a server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Coroutine
from typing import Any

from django.db import connections, transaction
from django.test import Client

import live.hub as live
from config.asgi import application
from live import relay

TIMEOUT = 5.0  # generous upper bound for anything that should take milliseconds


def run(coro: Coroutine[Any, Any, Any]) -> Any:
    """Run a scenario on a fresh event loop; stop the hub's LISTEN task before the loop ends (pitfall 5)."""

    async def main() -> Any:
        try:
            return await coro
        finally:
            await live.hub.aclose()

    return asyncio.run(main())


def session_cookie(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def _publish_committed(campaign_id: int, topic: str, data: dict[str, Any]) -> None:
    try:
        with transaction.atomic():
            transaction.on_commit(lambda: relay.announce({"campaign": campaign_id, "topic": topic, **data}))
    finally:
        connections.close_all()  # this worker thread's connection must not outlive the test


def _present_then_close(campaign_id: int) -> set[int]:
    try:
        return live.present_user_ids(campaign_id)
    finally:
        connections.close_all()


async def present(campaign_id: int) -> set[int]:
    """live.present_user_ids as a page view calls it: from a worker thread."""
    from asgiref.sync import sync_to_async

    return await sync_to_async(_present_then_close, thread_sensitive=False)(campaign_id)


async def write(campaign_id: int, topic: str, **data: Any) -> None:
    """A committed write that announces ``topic``, from a worker thread as a view would."""
    from asgiref.sync import sync_to_async

    await sync_to_async(_publish_committed, thread_sensitive=False)(campaign_id, topic, data)


class Stream:
    """One GET on config.asgi.application; ``gate`` closed means the client has stopped reading."""

    def __init__(self, path: str, cookie: str | None = None, *, query: str = "", csrf: str = "") -> None:
        headers = [(b"host", b"testserver")]
        if cookie:
            headers.append((b"cookie", f"sessionid={cookie}{f'; csrftoken={csrf}' if csrf else ''}".encode()))
        self.scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "GET",
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query.encode(),
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 40000),
            "server": ("testserver", 80),
        }
        self.messages: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.gate = asyncio.Event()
        self.gate.set()
        self._gone = asyncio.Event()
        self._buffer = b""
        self.status = 0
        self.headers: dict[str, str] = {}
        self.body = b""  # everything received so far

    async def open(self) -> Stream:
        self.task = asyncio.create_task(application(self.scope, self._receive, self._send))
        start = await asyncio.wait_for(self.messages.get(), TIMEOUT)
        self.status = start["status"]
        self.headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
        return self

    async def _receive(self) -> dict[str, Any]:
        await self._gone.wait()
        return {"type": "http.disconnect"}

    async def _send(self, message: dict[str, Any]) -> None:
        await self.gate.wait()
        await self.messages.put(message)

    async def chunk(self, timeout: float = TIMEOUT) -> bytes:
        message = await asyncio.wait_for(self.messages.get(), timeout)
        body = message.get("body", b"")
        self.body += body
        return body

    async def next_frame(self, timeout: float = TIMEOUT) -> str:
        """The next complete SSE frame (comments included), as text."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while b"\n\n" not in self._buffer:
            self._buffer += await self.chunk(max(0.0, deadline - loop.time()))
        frame, self._buffer = self._buffer.split(b"\n\n", 1)
        return frame.decode()

    async def next_event(self, timeout: float = TIMEOUT) -> tuple[str, dict[str, Any]]:
        """The next ``event:`` frame as (topic, data), skipping comments (open, ping)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            frame = await self.next_frame(max(0.0, deadline - loop.time()))
            lines = [line.split(": ", 1) for line in frame.splitlines() if not line.startswith(":")]
            event = next((value for name, value in lines if name == "event"), None)
            data = "\n".join(value for name, value in lines if name == "data")
            if event == "push":  # drawn HTML (campaigns/push.py), not a signal
                return event, {"html": data}
            if event is not None:
                return event, json.loads(data)

    async def events_until_quiet(self, quiet: float = 0.2) -> list[str]:
        topics = []
        while True:
            try:
                topic, _ = await self.next_event(quiet)
            except TimeoutError:
                return topics
            topics.append(topic)

    async def close(self) -> None:
        self._gone.set()
        self.gate.set()
        await asyncio.wait_for(self.task, TIMEOUT)
