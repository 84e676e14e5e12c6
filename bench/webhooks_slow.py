"""Webhooks with receivers that never answer (issue 35 item 13): how late a healthy webhook's deliveries arrive.

    python bench/webhooks_slow.py [--db postgres] [--slow 5] [--rolls 20] [--gap 3] [--wait 180]

A player adds ``--slow`` webhooks to their character, each pointing at a receiver that takes the post and never
answers (every try waits out the read timeout); the GM's campaign webhook, added after them, points at a healthy
receiver. One worker (``manage.py webhook_worker``) runs as its own process with the production timeouts and
retries; the player makes ``--rolls`` public rolls ``--gap`` seconds apart, through the same service the sheet's
POST calls. Printed: each healthy delivery's lateness (its roll's commit to its arrival), how many never arrived
within ``--wait`` seconds of the last roll, how many posts the silent receivers took, and the webhooks paused.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.webhooks import environment, make_table, percentile, start_worker, stop  # noqa: E402

arrived: dict[int, float] = {}  # roll id -> when the healthy receiver got it
silent_posts = [0]
lock = threading.Lock()
closing = threading.Event()


class Healthy(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        now = time.time()
        with lock:
            for item in json.loads(body)["items"]:
                if item["kind"] == "roll":
                    arrived.setdefault(item["roll"]["id"], now)
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


class Silent(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            silent_posts[0] += 1
        closing.wait(600)  # never answers

    def log_message(self, *args) -> None:
        pass


def serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/hook"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--slow", type=int, default=5, help="webhooks pointing at a receiver that never answers")
    parser.add_argument("--rolls", type=int, default=20)
    parser.add_argument("--gap", type=float, default=3.0, help="seconds between rolls")
    parser.add_argument("--wait", type=float, default=180.0, help="seconds to wait after the last roll")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="lantern-bench-slow-hooks-"))
    env = environment(args.db, folder)
    env["WEBHOOK_PER_MINUTE"] = "30"  # the production rate: the slow webhooks' budget is part of the story
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.conf import settings

    from characters.services import character_roll
    from webhooks.models import Webhook

    gm, player, campaign, hero = make_table()
    silent_server, silent_url = serve(Silent)
    healthy_server, healthy_url = serve(Healthy)
    for n in range(args.slow):  # made first, so each event's first tries queue theirs first
        Webhook.objects.create(
            campaign=campaign, character=hero, owner=player, name=f"Silent {n}", url=silent_url, format="json"
        )
    Webhook.objects.create(campaign=campaign, owner=gm, name="Healthy", url=healthy_url, format="json")

    log = folder / "worker.log"
    worker = start_worker(env, log)
    committed: dict[int, float] = {}
    try:
        for _ in range(args.rolls):
            written = character_roll(character_id=hero.pk, procedure="test", params={"ability": "BOD"}, by=player)
            committed[written.row.pk] = time.time()
            time.sleep(args.gap)
        deadline = time.monotonic() + args.wait
        while time.monotonic() < deadline:
            with lock:
                if all(pk in arrived for pk in committed):
                    break
            time.sleep(0.2)
    finally:
        stop(worker)
        closing.set()
        silent_server.shutdown()
        healthy_server.shutdown()
    with lock:
        late = [arrived[pk] - at for pk, at in committed.items() if pk in arrived]
        second_half = [arrived[pk] - at for pk, at in list(committed.items())[args.rolls // 2 :] if pk in arrived]
    missing = len(committed) - len(late)
    paused = Webhook.objects.filter(active=False).count()
    timeouts = f"connect {settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS} s, read {settings.WEBHOOK_READ_TIMEOUT_SECONDS} s"
    print(f"database: {args.db}; one worker; timeouts {timeouts}; {args.slow} silent webhook(s) and a healthy one")
    print(f"{args.rolls} rolls {args.gap:.1f} s apart; waited up to {args.wait:.0f} s after the last")
    if late:
        print(
            f"healthy webhook, commit to arrival: mean {statistics.mean(late) * 1000:.0f} ms, "
            f"p50 {statistics.median(late) * 1000:.0f} ms, p90 {percentile(late, 0.9) * 1000:.0f} ms, "
            f"max {max(late) * 1000:.0f} ms ({len(late)} arrived)"
        )
    if second_half:
        print(
            f"the second half of the rolls: mean {statistics.mean(second_half) * 1000:.0f} ms, "
            f"max {max(second_half) * 1000:.0f} ms ({len(second_half)} arrived)"
        )
    print(f"healthy deliveries not arrived by the end: {missing} of {len(committed)}")
    print(f"posts the silent receivers took: {silent_posts[0]}; webhooks paused: {paused}")
    print(f"machine load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
