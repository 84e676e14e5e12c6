"""Live-table fan-out: POST → every open stream has the event, at N = 10, 100, 500 subscribers.

Run: .venv/bin/python bench/fanout.py   (or `make bench`; needs PostgreSQL, DATABASE_URL's server or
127.0.0.1:5432 user postgres). It creates and migrates the database ``lantern_bench``, starts the production
server (uvicorn, 1 worker, DEBUG=0) pinned to core 0 with this load generator on core 1 (taskset), and
for each N opens N logged-in member streams, then makes 20 real writes 200 ms apart: POST
/characters/<id>/adjust/ (hp −1 / +1, htmx) through the whole Django stack. Each write's send time is
keyed by the character's new version, which the event echoes, so latency = event received − POST sent;
when the stream carries no versioned signal (pushed regions, say), a calibration write counts the events one
write sends a subscriber and the stream's events are matched to the writes in order (the first event of a
write is its arrival). A write whose version never came while a later one did was drawn together with it (the hub
coalesces): it is counted as skipped, apart from those that never came, and "p99 with skipped" times it to the
later state. Three rounds per N; the round with the median p99 is reported. PostgreSQL connections
to the bench database (pg_stat_activity) before the server starts, idle, with the streams open and during
the writes (the most of three rounds).

``--load``: the same sizes twice in one run, quiet and then with a second process (a spin loop pinned with
taskset to core 0, the server's) keeping that core busy. ``--workers 2``: two uvicorn workers over cores
0 and 1 (PostgreSQL carries the events between them). Every loop is bounded in count and time, and
everything stays on 127.0.0.1. Results are printed as Markdown tables for docs/performance.md.

Issue 25's runs (BENCH_DB names the database; pick one of your own on a shared server):
  .venv/bin/python bench/fanout.py --sizes 500 --load
  .venv/bin/python bench/fanout.py --sizes 2000 --workers 2 --load
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402 - after the path
    HOST,
    admin_url,
    create_database,
    database_url,
    free_port,
    process_tree,
    production_env,
    session_for,
    start_server,
)

PORT = int(os.environ.get("BENCH_PORT") or free_port())
# --pages gunicorn: pages and POSTs on a WSGI server of their own (this port), streams stay on uvicorn.
PAGES_PORT = {"port": PORT}
BENCH_DB = os.environ.get("BENCH_DB", "lantern_bench")
WRITES = 20
INTERVAL = 0.2
ROUNDS = 3
CONNECT_BATCH = 50
SERVER_LOG = Path(tempfile.gettempdir()) / "lantern-fanout-server.log"
DEADLINE = 10.0  # seconds any single wait may take before the run is declared broken


# --- setup -------------------------------------------------------------------------------------------


def server_env() -> dict[str, str]:
    return production_env(DATABASE_URL=database_url(BENCH_DB))


def manage(*args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=server_env(), check=True, timeout=300)


@dataclass
class Cast:
    campaign_id: int
    character_id: int
    owner_cookie: str
    csrf: str
    cookies: list[str]  # one session per subscriber (a different member each)


def make_cast(members: int) -> Cast:
    """Users, a campaign, a character and sessions, made directly in the bench database."""
    os.environ.update(server_env())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import random

    from django.contrib.auth import get_user_model
    from django.db import connections, transaction
    from django.middleware.csrf import _get_new_csrf_string

    from campaigns.models import Campaign, Membership
    from characters.services import character_create

    user_model = get_user_model()

    with transaction.atomic():
        Campaign.objects.filter(name="Bench table").delete()
        user_model.objects.filter(username__startswith="bench-").delete()
        gm = user_model.objects.create_user("bench-gm")
        users = user_model.objects.bulk_create(user_model(username=f"bench-{n}") for n in range(members))
        for user in users:
            user.set_unusable_password()
        user_model.objects.bulk_update(users, ["password"])
        campaign = Campaign.objects.create(name="Bench table", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.bulk_create(Membership(campaign=campaign, user=user) for user in users)
        character, _ = character_create(
            owner=gm, system="fell-draft", choices={"name": "Bench"}, campaign=campaign, rng=random.Random(1)
        )
    cast = Cast(campaign.pk, character.pk, session_for(gm), _get_new_csrf_string(), [session_for(u) for u in users])
    connections.close_all()
    return cast


# --- the load generator --------------------------------------------------------------------------------


# Frames that are not a write's: who is here, and role changes.
UNRELATED = {"presence", "members", "roles"}


@dataclass
class Subscriber:
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    received: dict[int, float] = field(default_factory=dict)  # version → perf_counter at arrival
    frames: list[float] = field(default_factory=list)  # arrivals of every other event (a pushed region…)

    def clear(self) -> None:
        self.received.clear()
        self.frames.clear()


async def open_stream(campaign_id: int, cookie: str) -> Subscriber:
    reader, writer = await asyncio.open_connection(HOST, PORT)
    writer.write(
        f"GET /campaigns/{campaign_id}/events/?page=table&since={time.time():.3f} HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Cookie: sessionid={cookie}\r\n"
        "Accept: text/event-stream\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"stream refused: {head[:200]!r}")
    return Subscriber(reader, writer)


EVENT = re.compile(rb"^event: ?(.*)$", re.MULTILINE)
DATA = re.compile(rb"^data: ?(.*)$", re.MULTILINE)


async def consume(sub: Subscriber, topic: str) -> None:
    """Record arrival times of events; the stream is chunked, frames end with a blank line.

    A ``topic`` event whose data is JSON with the character's ``version`` (a signal) is keyed by that
    version; any other event (a pushed region, whatever its name and markup) is recorded in order, and
    one_round matches the writes to those in sequence, so the bench needs nothing of the stream's format.
    A stream opens as a table page just drawn would (``?page=table&since=now``): since issue 25 a write pushes
    the character's card drawn, whose ``data-version`` keys it the same way. Bytes and C regexes only: 2,000
    streams are read by this one Python process."""
    own, unrelated = topic.encode(), {name.encode() for name in UNRELATED}
    card_version = re.compile(rb'id="card-' + own.removeprefix(b"character-") + rb'"[^>]*?data-version="(\d+)"')
    buffer = b""
    while True:
        chunk = await sub.reader.read(65536)
        if not chunk:
            return
        now = time.perf_counter()
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            data = DATA.search(frame)
            if data is None:
                continue  # a comment: the hub's ping, the opening bytes
            event = EVENT.search(frame)
            name = event.group(1).rstrip(b"\r") if event else b"message"
            if name in unrelated:
                continue
            if name == b"push":  # a table page's stream (issue 25): the character's card, drawn, with its version
                card = card_version.search(frame)
                version = int(card.group(1)) if card else None
                if version is None:
                    continue  # another region (presence's member list, the page's regions as it opens)
            else:
                version = signal_version(data.group(1)) if name == own else None
            if version is not None:
                sub.received.setdefault(version, now)
            else:
                sub.frames.append(now)


def signal_version(data: bytes) -> int | None:
    try:
        version = json.loads(data).get("version")
    except (ValueError, AttributeError):
        return None
    return version if isinstance(version, int) else None


async def post_adjust(cast: Cast, delta: int) -> None:
    body = f"key=hp&delta={delta}".encode()
    reader, writer = await asyncio.open_connection(HOST, PAGES_PORT["port"])
    writer.write(
        f"POST /characters/{cast.character_id}/adjust/ HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Cookie: sessionid={cast.owner_cookie}; csrftoken={cast.csrf}\r\nX-CSRFToken: {cast.csrf}\r\n"
        "HX-Request: true\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode()
        + body
    )
    response = await asyncio.wait_for(reader.read(), DEADLINE)
    writer.close()
    if not response.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"write refused: {response[:300]!r}")


def current_version(character_id: int) -> int:
    from characters.models import Character

    return Character.objects.values_list("version", flat=True).get(pk=character_id)


def proc_status(root: int) -> tuple[float, int]:
    """RSS (MB) and threads of the server: its process and its workers (``--workers 2``), summed."""
    rss, threads = 0.0, 0
    for pid in process_tree(root):
        try:
            fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
        except OSError:
            continue
        rss += int(fields["VmRSS"].split()[0]) / 1024
        threads += int(fields["Threads"])
    return rss, threads


def pg_connections() -> tuple[int, int]:
    """Connections to the bench database: (all of the server's, its LISTEN + presence ones)."""
    import psycopg

    with psycopg.connect(admin_url(), autocommit=True) as conn:
        row = conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE application_name LIKE 'lantern-%%') FROM pg_stat_activity "
            "WHERE datname = %s AND pid <> pg_backend_pid()",
            [BENCH_DB],
        ).fetchone()
        assert row is not None  # an aggregate always returns its one row
        total, live = row
        return total, live


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def arrivals(sub: Subscriber, sent: dict[int, float], per_write: int) -> dict[int, float]:
    """Version → arrival at ``sub``: the signal's, or else (``per_write`` events a write) the first of the
    write's events, the stream's events cut into writes in the order ``sent`` lists them."""
    if not per_write:
        return sub.received
    return {v: sub.frames[n * per_write] for n, v in enumerate(sent) if n * per_write < len(sub.frames)}


async def one_round(cast: Cast, subs: list[Subscriber], per_write: int) -> dict[str, float]:
    """``per_write``: events one write sends each subscriber besides a versioned signal (calibrate())."""
    from asgiref.sync import sync_to_async
    from django.db import connections

    def version() -> int:
        try:
            return current_version(cast.character_id)
        finally:
            connections.close_all()

    base = await sync_to_async(version, thread_sensitive=False)()
    sent: dict[int, float] = {}
    posts: list[float] = []
    for n in range(WRITES):
        started = time.perf_counter()
        sent[base + n + 1] = started
        await post_adjust(cast, -1 if n % 2 == 0 else 1)  # stays within the track's bounds
        posts.append(time.perf_counter() - started)
        await asyncio.sleep(max(0.0, INTERVAL - (time.perf_counter() - started)))
    during = await asyncio.to_thread(pg_connections)

    last = max(sent)
    deadline = time.perf_counter() + DEADLINE
    while time.perf_counter() < deadline and any(not caught_up(s, sent, per_write, last) for s in subs):
        await asyncio.sleep(0.05)
    latencies = [a[v] - t for s in subs for a in [arrivals(s, sent, per_write)] for v, t in sent.items() if v in a]
    covered = [c for s in subs for c in coalesced(arrivals(s, sent, per_write), sent)]
    pairs = len(subs) * WRITES
    return {
        "pg_during": during[0],
        "delivered": 100 * len(latencies) / pairs,
        "coalesced": 100 * len(covered) / pairs,
        "never": 100 * (pairs - len(latencies) - len(covered)) / pairs,
        "p50": 1000 * statistics.median(latencies) if latencies else float("nan"),
        "p99": 1000 * percentile(latencies, 0.99) if latencies else float("nan"),
        "p99_covered": 1000 * percentile(latencies + covered, 0.99) if latencies else float("nan"),
        "post": 1000 * statistics.median(posts),
    }


def caught_up(sub: Subscriber, sent: dict[int, float], per_write: int, last: int) -> bool:
    """Whether the page shows the last write: its version came (the hub draws the latest; one drawn card covers the
    versions before it), or, matched in sequence, every write's events came."""
    if per_write:
        return len(arrivals(sub, sent, per_write).keys() & sent.keys()) >= WRITES
    return any(version >= last for version in sub.received)


def coalesced(arrived: dict[int, float], sent: dict[int, float]) -> list[float]:
    """For each write whose own version never came but a later one did (the hub drew several writes at once: the
    page skipped a state, it is not behind), the time until that later version came."""
    later = sorted(arrived.items())
    out = []
    for version, at in sent.items():
        if version in arrived:
            continue
        first = next((when for v, when in later if v > version), None)
        if first is not None:
            out.append(first - at)
    return out


async def run_n(cast: Cast, n: int, server_pid: int, idle: tuple[float, int, int], per_write: int) -> dict[str, float]:
    subs: list[Subscriber] = []
    for start in range(0, n, CONNECT_BATCH):
        batch = cast.cookies[start : min(n, start + CONNECT_BATCH)]
        subs += await asyncio.gather(*(open_stream(cast.campaign_id, cookie) for cookie in batch))
    readers = [asyncio.create_task(consume(sub, f"character-{cast.character_id}")) for sub in subs]
    await asyncio.sleep(1.0)  # presence events settle; the server is idle again
    rss, threads = proc_status(server_pid)
    connections_open = pg_connections()
    rounds = []
    for _ in range(ROUNDS):
        for sub in subs:
            sub.clear()
        rounds.append(await one_round(cast, subs, per_write))
    for task in readers:
        task.cancel()
    for sub in subs:
        sub.writer.close()
    await asyncio.sleep(0.5)
    median = sorted(rounds, key=lambda r: r["p99"])[len(rounds) // 2]
    return {
        **median,
        "delivered": min(r["delivered"] for r in rounds),
        "coalesced": max(r["coalesced"] for r in rounds),
        "never": max(r["never"] for r in rounds),
        "rss": rss,
        "rss_per_stream_kb": 1024 * (rss - idle[0]) / n,
        "threads": threads,
        "threads_added": threads - idle[1],
        "pg": connections_open[0],
        "pg_live": connections_open[1],
        "pg_idle": idle[2],
        "pg_during": max(r["pg_during"] for r in rounds),
    }


async def baseline(path: str, seconds: float = 3.0, concurrency: int = 32) -> float:
    """Requests per second for a GET over keep-alive connections (a minimal page, same server)."""
    done = 0
    stop = time.perf_counter() + seconds

    async def worker() -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection(HOST, PAGES_PORT["port"])
        request = f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\n\r\n".encode()
        while time.perf_counter() < stop:
            writer.write(request)
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
            length = int(next(h.split(b":")[1] for h in head.split(b"\r\n") if h.lower().startswith(b"content-length")))
            await reader.readexactly(length)
            done += 1
        writer.close()

    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return done / (time.perf_counter() - started)


def start_server_process(workers: int) -> subprocess.Popen:
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", HOST, "--port", str(PORT)]
    command += ["--workers", str(workers), "--timeout-graceful-shutdown", "5", "--no-access-log"]
    command += shlex.split(os.environ.get("UVICORN_ARGS", ""))  # e.g. "--loop asyncio --http h11"
    cores = "0" if workers == 1 else ",".join(str(n % (os.cpu_count() or 1)) for n in range(workers))
    return start_server(command, cwd=ROOT, env=server_env(), port=PORT, log=SERVER_LOG, cores=cores)


def start_pages_server() -> subprocess.Popen:
    """gunicorn (WSGI, one worker, threads) for the POSTs and the baseline, on core 0 with uvicorn."""
    port = free_port()
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "-b", f"{HOST}:{port}"]
    command += ["--workers", "1", "--threads", "8", "--no-control-socket"]
    server = start_server(command, cwd=ROOT, env=server_env(), port=port, log=SERVER_LOG.with_suffix(".wsgi.log"))
    PAGES_PORT["port"] = port
    return server


def busy_core(core: str) -> subprocess.Popen:
    """A second process that keeps ``core`` (the server's) busy: a spin loop, pinned there with taskset."""
    command = [sys.executable, "-c", "while True: pass"]
    if shutil.which("taskset"):
        command = ["taskset", "-c", core, *command]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def main(sizes: list[int], pages: str, workers: int, load: bool) -> None:
    create_database(BENCH_DB)
    manage("migrate", "--noinput", "-v", "0")
    manage("collectstatic", "--noinput", "-v", "0")  # DEBUG=0 serves the manifest storage
    cast = make_cast(max(sizes))
    before = pg_connections()[0]  # the server not yet started
    servers = [start_server_process(workers)]
    try:
        if pages == "gunicorn":
            servers.append(start_pages_server())
        runs = asyncio.run(measure(cast, servers[0], sizes, load))
    finally:
        for server in servers:
            server.terminate()
            server.wait(timeout=15)
    print(f"\npages and POSTs: {pages}; streams: uvicorn, {workers} worker(s)")
    report(before, runs)


async def measure(cast: Cast, server: subprocess.Popen, sizes: list[int], load: bool) -> list[tuple]:
    """Quiet, then (``load``) with core 0 kept busy, in one run: (label, idle, login, per_write, results,
    the machine's load average at the end, others' work included)."""
    for _ in range(3):  # warm-up: imports, templates, the pool, the LISTEN connection
        await post_adjust(cast, -1)
        await post_adjust(cast, 1)
    per_write = await calibrate(cast)
    runs = []
    for label in ("quiet", "core 0 kept busy") if load else ("quiet",):
        spinner = busy_core("0") if label != "quiet" else None
        try:
            await asyncio.sleep(0.5)
            idle = (*proc_status(server.pid), pg_connections()[0])
            login = await baseline("/accounts/login/")
            results = {n: await run_n(cast, n, server.pid, idle, per_write) for n in sizes}
        finally:
            if spinner is not None:
                spinner.kill()
                spinner.wait(timeout=5)
        runs.append((label, idle, login, per_write, results, os.getloadavg()[0]))
    return runs


async def calibrate(cast: Cast) -> int:
    """Events one write sends a subscriber: 0 when it sends a versioned signal (latency keyed by version),
    else the count, by which the sequence of events is cut into writes."""
    sub = await open_stream(cast.campaign_id, cast.cookies[0])
    reader = asyncio.create_task(consume(sub, f"character-{cast.character_id}"))
    await asyncio.sleep(1.0)  # its own presence settles
    sub.clear()
    await post_adjust(cast, -1)
    await asyncio.sleep(1.0)
    await post_adjust(cast, 1)
    await asyncio.sleep(1.0)
    reader.cancel()
    sub.writer.close()
    await asyncio.sleep(0.5)
    if sub.received:
        return 0
    if not sub.frames or len(sub.frames) % 2:
        raise RuntimeError(f"a write sent a subscriber {len(sub.frames) / 2:g} events: cannot match them to writes")
    return len(sub.frames) // 2


def report(before: int, runs: list[tuple]) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    print(
        f"\ncommit {commit.stdout.strip()}{' + uncommitted changes' if dirty.strip() else ''}, {os.cpu_count()} cores"
        f", load average {os.getloadavg()[0]:.1f}; PostgreSQL connections to the bench database before the server "
        f"started: {before}"
    )
    for label, idle, login, per_write, results, load in runs:
        matched = "by version (a signal)" if not per_write else f"in sequence, {per_write} events per write"
        print(
            f"\n{label} (load average {load:.1f}): idle server RSS {idle[0]:.1f} MB, {idle[1]} threads, "
            f"{idle[2]} PostgreSQL connections"
        )
        print(f"GET /accounts/login/ (same server) {login:,.0f} req/s; events matched to writes {matched}\n")
        print(
            "| machine | subscribers | delivered | skipped by coalescing | never | p50 ms | p99 ms "
            "| p99 with skipped (to the later state) | POST ms (p50) | RSS MB | KB/stream | threads (+) "
            "| PG conns idle / streams open (LISTEN+presence) / during writes (max) |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for n, r in results.items():
            print(
                f"| {label} | {n} | {r['delivered']:.1f} % | {r['coalesced']:.1f} % "
                f"| {r['never']:.1f} % | {r['p50']:.1f} | {r['p99']:.1f} "
                f"| {r['p99_covered']:.1f} | {r['post']:.1f} "
                f"| {r['rss']:.1f} | {r['rss_per_stream_kb']:.0f} | {r['threads']} (+{r['threads_added']}) "
                f"| {r['pg_idle']} / {r['pg']} ({r['pg_live']}) / {r['pg_during']} |"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,500", help="comma-separated subscriber counts")
    parser.add_argument("--pages", choices=("uvicorn", "gunicorn"), default="uvicorn", help="who serves the POSTs")
    parser.add_argument("--workers", type=int, default=1, help="uvicorn worker processes (PostgreSQL)")
    parser.add_argument(
        "--load", action="store_true", help="after the quiet run, again with a spin loop pinned to the server's core 0"
    )
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if shutil.which("taskset"):
        os.sched_setaffinity(0, {1 % (os.cpu_count() or 1)})  # the load generator on core 1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 4 * max(sizes) + 256)), hard))
    main(sizes, args.pages, args.workers, args.load)
