"""Issue 37: several app servers for real. Three uvicorn processes on one PostgreSQL database, signalling through
PostgreSQL's LISTEN/NOTIFY and again through Redis: a change made through process A reaches the pages open on B
and C; killing B loses nothing for A and C; a page that moves from B to C (its reconnect carries Last-Event-ID)
resumes from its cursor with no gap and no duplicate.

Each page here is a real SSE connection (httpx, a reader thread per stream), as a browser's EventSource holds it.
"""

from __future__ import annotations

import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from django.db import connection

from accounts.tokens import token_create
from live import journal
from tests.campaigns.live_helpers import session_cookie
from tests.conftest import make_character, make_table, make_user
from tests.postgres import database_urls

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
WAIT = 20.0  # an upper bound on waiting for something that takes milliseconds (a loaded CI machine)


@pytest.fixture(params=["postgresql", "redis"])
def broker(request) -> str:
    """The transport the three processes share: PostgreSQL's LISTEN/NOTIFY, or Redis pub/sub."""
    if connection.vendor != "postgresql":
        pytest.skip("several app processes need PostgreSQL (SQLite serves one process)")
    if request.param == "redis":
        try:
            socket.create_connection(("127.0.0.1", 6379), timeout=0.5).close()
        except OSError:
            if os.environ.get("CI"):
                raise
            pytest.skip("Redis is not running on 127.0.0.1:6379")
    return request.param


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One uvicorn process of the app on the test database."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self.port = _free_port()
        command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--timeout-graceful-shutdown", "1"]
        self.log = log
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"an app server exited: {log.read_text()}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"an app server did not start: {log.read_text()}")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=WAIT)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Page:
    """One open page's event stream: each push as (its id, the roll lines it brings), in the order they came."""

    def __init__(self, server: Server, campaign_id: int, sheet_id: int, cookie: str, **resume: int) -> None:
        self.pushes: queue.Queue[tuple[int | None, list[int]]] = queue.Queue()
        self.opened = threading.Event()
        params = {"page": f"sheet-{sheet_id}"}
        headers = {"Cookie": f"sessionid={cookie}"}
        if "after" in resume:
            params["after"] = str(resume["after"])
        if "last_event_id" in resume:
            headers["Last-Event-ID"] = str(resume["last_event_id"])
        self.url, self.params, self.headers = f"{server.url}/campaigns/{campaign_id}/events/", params, headers
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        assert self.opened.wait(WAIT), "the stream did not open"

    def _read(self) -> None:
        try:
            with httpx.stream("GET", self.url, params=self.params, headers=self.headers, timeout=None) as answer:
                assert answer.status_code == 200, answer.status_code
                self.opened.set()
                for frame in _frames(answer.iter_text()):
                    lines = frame.splitlines()
                    if lines and lines[0] == "event: push":
                        ids = [int(line[4:]) for line in lines if line.startswith("id: ")]
                        html = "\n".join(line[6:] for line in lines if line.startswith("data: "))
                        self.pushes.put((ids[-1] if ids else None, [int(r) for r in ROLL_LINE.findall(html)]))
        except (httpx.HTTPError, OSError):
            return  # its server went away

    def next_rolls(self, wanted: int) -> tuple[int | None, list[int]]:
        """The pushes until one brings a roll line, and every roll line and the last id they brought."""
        rolls: list[int] = []
        cursor = None
        deadline = time.monotonic() + WAIT
        while len(rolls) < wanted:
            cursor, lines = self.pushes.get(timeout=max(0.01, deadline - time.monotonic()))
            rolls += lines
        return cursor, rolls

    def quiet(self, seconds: float = 1.5) -> list[tuple[int | None, list[int]]]:
        """What else came within ``seconds`` (nothing, when nothing is sent twice)."""
        more = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                more.append(self.pushes.get(timeout=left))
            except queue.Empty:
                break
        return [(cursor, lines) for cursor, lines in more if lines]


ROLL_LINE = re.compile(r'<li id="roll-(\d+)"')


def _frames(chunks: Iterator[str]) -> Iterator[str]:
    buffer = ""
    for chunk in chunks:
        buffer += chunk
        while "\n\n" in buffer:
            frame, buffer = buffer.split("\n\n", 1)
            yield frame


def _roll(server: Server, secret: str, character_id: int) -> int:
    answer = httpx.post(
        f"{server.url}/api/characters/{character_id}/rolls/test",
        json={},
        headers={"Authorization": f"Bearer {secret}"},
        timeout=WAIT,
    )
    assert answer.status_code == 200, answer.text
    return answer.json()["roll"]["id"]


@pytest.fixture
def servers(broker, tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME", "WEB_CONCURRENCY"}}
    env.update(database_urls())
    env.update({"DEBUG": "1", "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING", "LIVE_CATCHUP_SECONDS": "60"})
    if broker == "redis":
        env.update({"LIVE_BROKER": "redis://127.0.0.1:6379/0", "LIVE_BROKER_PREFIX": f"t{uuid.uuid4().hex[:8]}:"})
    else:
        env.pop("LIVE_BROKER", None)
    started: list[Server] = []
    try:
        for name in "abc":
            started.append(Server(env, tmp_path / f"{name}.log"))
        yield started
    finally:
        for server in started:
            server.stop()


def test_three_app_servers_share_the_table_and_lose_nothing_when_one_dies(servers):
    a, b, c = servers
    gm, player = make_user("gm3"), make_user("player3")
    campaign = make_table("fell-draft", gm, player)
    hero = make_character(player, campaign, name="Wren")
    secret = token_create(user=player, name="dice tray", scope="play").secret
    cookie = session_cookie(gm)
    head = journal.head(campaign.pk)

    on_b = Page(b, campaign.pk, hero.pk, cookie, after=head)
    on_c = Page(c, campaign.pk, hero.pk, cookie, after=head)
    first = _roll(a, secret, hero.pk)  # made through A, seen on B and C
    b_cursor, b_rolls = on_b.next_rolls(1)
    assert b_rolls == [first] and on_c.next_rolls(1)[1] == [first]
    assert b_cursor == journal.head(campaign.pk)

    b.kill()  # B dies with its page open: A and C go on
    second = _roll(a, secret, hero.pk)
    assert on_c.next_rolls(1)[1] == [second]

    # B's page reconnects to C, sending the last id it had: exactly what it missed, nothing it had again.
    moved = Page(c, campaign.pk, hero.pk, cookie, after=head, last_event_id=b_cursor)
    cursor, rolls = moved.next_rolls(1)
    assert rolls == [second] and cursor == journal.head(campaign.pk)
    third = _roll(a, secret, hero.pk)
    assert moved.next_rolls(1)[1] == [third] and on_c.next_rolls(1)[1] == [third]
    assert moved.quiet() == [] and on_c.quiet() == []  # no duplicate anywhere
