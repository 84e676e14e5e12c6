"""Webhook delivery: latency from a roll's commit to a local receiver (p50/p99), and what one worker sustains.

    python bench/webhooks.py                 # SQLite, a fresh file in a temporary folder
    python bench/webhooks.py --db postgres   # PostgreSQL, database BENCH_DB (lantern_bench_hooks) on DATABASE_URL

One worker (``manage.py webhook_worker``, polling every 50 ms when idle) runs as its own process; this process
makes the rolls through the same service the sheet's POST calls and runs the receiver (http.server, a thread).
Latency: rolls spaced ``--gap`` apart, each timed from the moment its write returned (committed) to the moment
its delivery reached the receiver. Throughput: ``--burst`` rolls made while the worker is stopped, then the time a
freshly started worker takes to deliver them all (its reader makes the deliveries from the journal, one send each).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import create_database, database_url  # noqa: E402

arrived: dict[int, float] = {}  # roll id -> when its delivery reached the receiver
arrived_lock = threading.Condition()


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        now = time.time()
        with arrived_lock:
            for item in json.loads(body)["items"]:
                if item["kind"] == "roll":
                    arrived.setdefault(item["roll"]["id"], now)
            arrived_lock.notify_all()
        self.send_response(204)
        self.end_headers()

    def log_message(self, *args) -> None:
        pass


def environment(db: str, folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME"}}
    if db == "postgres":
        name = os.environ.get("BENCH_DB", "lantern_bench_hooks")
        create_database(name)
        env["DATABASE_URL"] = database_url(name)
    else:
        env["SQLITE_NAME"] = str(folder / "bench-hooks.sqlite3")
    env.update(
        DEBUG="0",
        SECRET_KEY="bench-only-secret-key-not-for-production-0123456789",
        ALLOWED_HOSTS="127.0.0.1",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
        WEBHOOKS_ALLOW_PRIVATE="1",  # the receiver is on the loopback
        WEBHOOK_PER_MINUTE="1000000",  # measuring the worker, not the rate limit
        ROLLS_PER_MINUTE="1000000",
    )
    return env


def start_worker(env: dict[str, str], log: Path) -> subprocess.Popen:
    command = [sys.executable, "manage.py", "webhook_worker", "--no-reload", "--interval", "0.05", "--no-startup-delay"]
    before = log.read_text().count("Starting worker") if log.exists() else 0
    out = open(log, "a")  # noqa: SIM115 - the child holds it
    process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 60
    while log.read_text().count("Starting worker") <= before:
        if process.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the worker did not start: {log.read_text()}")
        time.sleep(0.02)
    return process


def stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=30)


def wait_for(ids: list[int], timeout: float) -> bool:
    with arrived_lock:
        return arrived_lock.wait_for(lambda: all(i in arrived for i in ids), timeout)


def cpu_seconds(pid: int) -> float:
    """User + system CPU the process has used (Linux /proc): steadier than wall time on a busy machine."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def make_table():
    """The database migrated and emptied of tasks and deliveries; a table: (its GM, its player, the campaign, the
    player's Fell character at it). Django is set up already."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django_tasks_db.models import DBTaskResult

    from campaigns.models import Campaign, Membership
    from characters.services import character_create
    from webhooks.models import Delivery

    call_command("migrate", verbosity=0)
    DBTaskResult.objects.all().delete()
    Delivery.objects.all().delete()
    users = get_user_model().objects
    gm = users.filter(username="bench-gm").first() or users.create_user("bench-gm")
    player = users.filter(username="bench-player").first() or users.create_user("bench-player")
    campaign = Campaign.objects.create(name="Bench table", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    return gm, player, campaign, hero


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--rolls", type=int, default=100, help="rolls timed one by one for the latency")
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between the timed rolls")
    parser.add_argument("--burst", type=int, default=300, help="rolls queued at once for the throughput")
    parser.add_argument("--hooks", type=int, default=1, help="webhooks on the campaign (deliveries per roll)")
    args = parser.parse_args()

    folder = Path(tempfile.mkdtemp(prefix="lantern-bench-hooks-"))
    env = environment(args.db, folder)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from characters.services import character_roll
    from webhooks.models import Webhook

    gm, player, campaign, hero = make_table()
    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    for n in range(args.hooks):
        Webhook.objects.create(campaign=campaign, owner=gm, name=f"Bench {n}", url=url, format="json")

    def roll() -> int:
        written = character_roll(character_id=hero.pk, procedure="test", params={"ability": "BOD"}, by=player)
        return written.row.pk

    log = folder / "worker.log"
    worker = start_worker(env, log)
    try:
        latencies = []
        for _ in range(args.rolls):
            pk = roll()
            committed = time.time()
            if not wait_for([pk], timeout=30):
                raise RuntimeError(f"roll {pk} never arrived: {log.read_text()[-2000:]}")
            latencies.append((arrived[pk] - committed) * 1000)
            time.sleep(args.gap)
        stop(worker)

        burst = [roll() for _ in range(args.burst)]
        began = time.time()
        worker = start_worker(env, log)
        started, cpu_before = time.time(), cpu_seconds(worker.pid)
        if not wait_for(burst, timeout=600):
            raise RuntimeError(f"the burst was not delivered: {log.read_text()[-2000:]}")
        cpu = cpu_seconds(worker.pid) - cpu_before
        with arrived_lock:
            last = max(arrived[pk] for pk in burst)
        elapsed = last - started
    finally:
        if worker.poll() is None:
            stop(worker)
        server.shutdown()
    deliveries = args.burst * args.hooks
    print(f"database: {args.db}; one worker; {args.hooks} webhook(s) on the campaign")
    print(
        f"latency, commit to receiver, {len(latencies)} rolls {args.gap:.2f} s apart: "
        f"p50 {statistics.median(latencies):.0f} ms, p99 {percentile(latencies, 0.99):.0f} ms, "
        f"max {max(latencies):.0f} ms"
    )
    print(
        f"throughput: {deliveries} deliveries ({args.burst} events) in {elapsed:.1f} s after the worker started "
        f"({started - began:.1f} s to start): {deliveries / elapsed:.0f} deliveries/s, "
        f"{args.burst / elapsed:.0f} events/s"
    )
    print(
        f"worker CPU: {cpu * 1000 / deliveries:.1f} ms a delivery ({cpu:.1f} s in all): "
        f"one core would sustain about {deliveries / cpu:.0f} deliveries/s"
    )
    print(f"machine load average while measuring: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
