"""A real HTTP receiver for webhook tests: http.server on a thread, keeping every POST it was sent.

It checks each post's signature as a receiver would (``verify``) and dedupes by ``X-Lantern-Delivery``;
``hold`` makes it keep the first request waiting (the worker is killed meanwhile); ``silent`` makes it answer
nothing at all (each try times out); ``statuses`` scripts its answers. Every post, whichever receiver got it, takes
the next number of one count (``Received.order``), so tests compare the order posts reached several receivers."""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ARRIVALS = itertools.count(1)  # one count across every receiver of the process: the order posts arrived in


@dataclass
class Received:
    headers: dict[str, str]
    body: bytes
    at: float  # time.time() when it arrived
    order: int = 0  # its place among every post any receiver got

    @property
    def json(self) -> dict:
        return json.loads(self.body)

    def verify(self, secret: str, *, max_age: float = 300) -> bool:
        timestamp = self.headers["X-Lantern-Timestamp"]
        expected = hmac.new(secret.encode(), timestamp.encode() + b"." + self.body, hashlib.sha256).hexdigest()
        fresh = abs(time.time() - int(timestamp)) <= max_age  # an old timestamp is a replay
        return fresh and hmac.compare_digest(self.headers["X-Lantern-Signature"], f"sha256={expected}")


@dataclass
class Receiver:
    server: ThreadingHTTPServer
    got: list[Received] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)  # answers in turn; 200 once they run out
    hold_first: threading.Event | None = None  # set it to let the first request be answered
    silent: bool = False  # never answer: each request is held until the receiver closes
    released: threading.Event = field(default_factory=threading.Event)
    arrived: threading.Condition = field(default_factory=threading.Condition)

    @property
    def url(self) -> str:
        host, port = self.server.server_address[:2]
        return f"http://{host}:{port}/hook"

    def unique(self) -> dict[str, Received]:
        """What a receiver that dedupes by delivery id keeps: the first of each."""
        kept: dict[str, Received] = {}
        for item in self.got:
            kept.setdefault(item.headers["X-Lantern-Delivery"], item)
        return kept

    def wait_for(self, count: int, timeout: float) -> bool:
        with self.arrived:
            return self.arrived.wait_for(lambda: len(self.got) >= count, timeout)

    def close(self) -> None:
        self.released.set()
        if self.hold_first is not None:
            self.hold_first.set()
        self.server.shutdown()
        self.server.server_close()


def start_receiver() -> Receiver:
    receiver: Receiver

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server's name
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length)
            with receiver.arrived:
                receiver.got.append(Received(dict(self.headers.items()), body, time.time(), next(ARRIVALS)))
                first = len(receiver.got) == 1
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                receiver.arrived.notify_all()
            if first and receiver.hold_first is not None:
                receiver.hold_first.wait(30)
            if receiver.silent:
                receiver.released.wait(60)
                return
            try:
                self.send_response(status)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")
            except OSError:
                pass  # the worker that sent it is gone

        def log_message(self, *args) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    receiver = Receiver(server)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return receiver
