"""Many tables at once (issue 37): T campaigns × P open pages over 2 uvicorn workers on PostgreSQL, each table
writing every few seconds; then one campaign with 50 open pages.

Run: .venv/bin/python bench/many_tables.py [--tables 300] [--pages 7] [--interval 5] [--seconds 30] [--big 50]
(needs PostgreSQL; ``BENCH_DB``, default ``lantern_bench_tables``). Issue 37's full size is 300 × 7 = 2,100 streams;
``make bench-journal`` runs a small one.

It makes T campaigns of P members each (a GM and P−1 players, a logged-in session each) and one character per
campaign, starts the production server (uvicorn, ``--workers 2``, DEBUG=0) and opens one real HTTP SSE stream per
member as the table page does (``GET /campaigns/<id>/events/?page=table&after=<head>``, the session cookie). Writer
processes (``--writers``, each with Django set up, no HTTP) then change each table's character's HP through
``characters.services.character_adjust`` every ``--interval`` seconds, the tables spread evenly over the interval,
for ``--seconds``; each write's commit is stamped (``time.time()`` in the after-commit announce) with its campaign
and cursor. A stream's frames carry ``id: <cursor>``; an entry reaches a page when a frame with its cursor or a
later one arrives (the hub draws entries read together at once: a later id covers the ones before it, counted as
coalesced, not late). Figures: commit → page p50 / p99, how many (stream, entry) pairs arrived, were coalesced or
never came, and whether every stream ends at its campaign's head (its last id against ``live_head``, after a
settling wait longer than the hub's catch-up period, and again once all are there or 2 minutes went by: a server
behind its work is told apart from one that lost something), and the server's CPU (both workers, user + system)
per write: the steadiest figure on a shared machine, and what its capacity is (cores / CPU per write).

``--big N``: afterwards, the same with one campaign of N open pages (its seat cap: 50), writing every
``--big-interval`` seconds. Targets: p99 < 150 ms (many tables) and < 50 ms (one big table).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
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
    create_database,
    database_url,
    free_port,
    process_tree,
    production_env,
    session_for,
    start_server,
)

BENCH_DB = os.environ.get("BENCH_DB", "lantern_bench_tables")
PORT = free_port()
SERVER_LOG = Path(tempfile.gettempdir()) / "lantern-many-tables-server.log"
CONNECT_BATCH = 50
DEADLINE = 30.0  # any single wait (a stream's headers) longer than this: the run is broken
SETTLE = 5.0  # after the last write: longer than the hub's catch-up period (LIVE_CATCHUP_SECONDS, 2 s)
SETTLE_MAX = 120.0  # a server behind its work is waited for this long: late is told apart from lost


def server_env() -> dict[str, str]:
    return production_env(DATABASE_URL=database_url(BENCH_DB))


def setup_django() -> None:
    os.environ.update(server_env())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


@dataclass
class Table:
    campaign_id: int
    character_id: int
    gm_id: int
    cookies: list[str]


def make_tables(prefix: str, tables: int, pages: int) -> list[Table]:
    """``tables`` campaigns of ``pages`` members (a GM first), a character each, a session per member."""
    import random

    from django.contrib.auth import get_user_model
    from django.db import connections, transaction

    from campaigns.models import Campaign, Membership
    from characters.services import character_create

    user_model = get_user_model()
    made = []
    with transaction.atomic():
        Campaign.objects.filter(name__startswith=f"{prefix} ").delete()
        user_model.objects.filter(username__startswith=f"{prefix}-").delete()
        users = user_model.objects.bulk_create(
            user_model(username=f"{prefix}-{t}-{p}", password="!") for t in range(tables) for p in range(pages)
        )
        campaigns = Campaign.objects.bulk_create(
            Campaign(name=f"{prefix} {t}", system="fell-draft") for t in range(tables)
        )
        Membership.objects.bulk_create(
            Membership(
                campaign=campaigns[t],
                user=users[t * pages + p],
                role=Membership.Role.GM if p == 0 else Membership.Role.PLAYER,
            )
            for t in range(tables)
            for p in range(pages)
        )
        for t, campaign in enumerate(campaigns):
            gm = users[t * pages]
            character, _ = character_create(
                owner=gm, system="fell-draft", choices={"name": f"T{t}"}, campaign=campaign, rng=random.Random(t)
            )
            members = users[t * pages : (t + 1) * pages]
            made.append(Table(campaign.pk, character.pk, gm.pk, [session_for(user) for user in members]))
    connections.close_all()
    return made


def heads(campaign_ids: list[int]) -> dict[int, int]:
    from django.db import connections

    from live.journal import heads as journal_heads

    try:
        return journal_heads(campaign_ids)
    finally:
        connections.close_all()


# --- a writer process ------------------------------------------------------------------------------------------


def write_for(plan: dict) -> None:
    """Change each table's HP on its schedule; print the commits as JSON: [campaign, cursor, commit time]."""
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, range(os.cpu_count() or 1))  # not the reader's core alone
    setup_django()
    from django.contrib.auth import get_user_model

    from characters.services import character_adjust
    from live import relay

    stamps: list[tuple[int, int, float]] = []
    announce = relay.announce

    def stamped(signal: dict) -> None:
        if "cursor" in signal:
            stamps.append((signal["campaign"], signal["cursor"], time.time()))  # right after the commit
        announce(signal)

    relay.announce = stamped
    users = {u.pk: u for u in get_user_model().objects.filter(pk__in=[t[2] for t in plan["tables"]])}
    start = max(plan["start"], time.time() + 0.5)  # a writer slow to import Django starts late, not behind
    schedule = sorted(
        (start + offset + k * plan["interval"], n)
        for n, (_, _, _, offset) in enumerate(plan["tables"])
        for k in range(plan["writes"])
    )
    behind, sign = 0.0, dict[int, int]()
    for due, n in schedule:
        _, character_id, gm_id, _ = plan["tables"][n]
        wait = due - time.time()
        if wait > 0:
            time.sleep(wait)
        else:
            behind = max(behind, -wait)
        delta = sign.get(n, -1)
        sign[n] = -delta
        character_adjust(character_id=character_id, key="hp", delta=delta, by=users[gm_id])
    print(json.dumps({"stamps": stamps, "behind": behind}))


def run_writers(tables: list[Table], interval: float, seconds: float, writers: int) -> tuple[list, float]:
    """Start ``writers`` processes sharing the tables, writing from a second from now; their commits, and how far
    the most behind one fell behind its schedule (s)."""
    writes = max(1, round(seconds / interval))
    start = time.time() + 3.0  # the writers import Django first
    plans: list[dict] = [{"start": start, "interval": interval, "writes": writes, "tables": []} for _ in range(writers)]
    for n, table in enumerate(tables):
        offset = interval * n / len(tables)
        plans[n % writers]["tables"].append((table.campaign_id, table.character_id, table.gm_id, offset))
    processes = [
        subprocess.Popen(
            [sys.executable, __file__, "--write", json.dumps(plan)],
            env=server_env(),
            cwd=ROOT,
            stdout=subprocess.PIPE,
            text=True,
        )
        for plan in plans
        if plan["tables"]
    ]
    stamps, behind = [], 0.0
    for process in processes:
        out, _ = process.communicate(timeout=seconds + 300)
        if process.returncode:
            raise RuntimeError("a writer failed")
        answer = json.loads(out.strip().splitlines()[-1])
        stamps += answer["stamps"]
        behind = max(behind, answer["behind"])
    return stamps, behind


# --- streams -------------------------------------------------------------------------------------------------


def server_cpu() -> float:
    """CPU seconds (user + system) the server's processes have used so far."""
    total = 0
    for pid in process_tree(SERVER["pid"]):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


SERVER = {"pid": 0}


@dataclass
class Stream:
    campaign_id: int
    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    ids: list[tuple[int, float]] = field(default_factory=list)  # (id, arrival time) of each frame with an id
    resyncs: int = 0


ID = re.compile(rb"^id: ?(\d+)\r?$", re.MULTILINE)


async def open_stream(campaign_id: int, cookie: str, after: int) -> Stream:
    reader, writer = await asyncio.open_connection(HOST, PORT)
    writer.write(
        f"GET /campaigns/{campaign_id}/events/?page=table&after={after} HTTP/1.1\r\nHost: {HOST}\r\n"
        f"Cookie: sessionid={cookie}\r\nAccept: text/event-stream\r\n\r\n".encode()
    )
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError(f"stream refused: {head[:200]!r}")
    return Stream(campaign_id, reader, writer)


async def consume(stream: Stream) -> None:
    """Note each frame's id (the journal's cursor it brings the page to) and when it came; bytes and C regexes
    only, 2,100 streams are read by this one process."""
    buffer = b""
    while True:
        chunk = await stream.reader.read(65536)
        if not chunk:
            return
        now = time.time()
        buffer += chunk
        while b"\n\n" in buffer:
            frame, buffer = buffer.split(b"\n\n", 1)
            found = ID.search(frame)
            if found is not None:
                stream.ids.append((int(found.group(1)), now))
            elif b"event: resync" in frame:
                stream.resyncs += 1


def latencies(streams: list[Stream], stamps: list) -> dict:
    """Commit → page for every (stream, entry) of its campaign; an entry is covered by the first id >= its cursor."""
    commits: dict[int, dict[int, float]] = {}
    for campaign_id, cursor, at in stamps:
        commits.setdefault(campaign_id, {})[cursor] = at
    found, exact, coalesced, missing = [], 0, 0, 0
    for stream in streams:
        ids = sorted(stream.ids)
        seen = {i for i, _ in ids}
        for cursor, at in commits.get(stream.campaign_id, {}).items():
            arrival = next((when for i, when in ids if i >= cursor), None)
            if arrival is None:
                missing += 1
                continue
            found.append(arrival - at)
            if cursor in seen:
                exact += 1
            else:
                coalesced += 1
    pairs = exact + coalesced + missing
    ordered = sorted(found)
    return {
        "pairs": pairs,
        "arrived": 100 * exact / max(1, pairs),
        "coalesced": 100 * coalesced / max(1, pairs),
        "missing": 100 * missing / max(1, pairs),
        "p50": 1000 * statistics.median(ordered) if ordered else float("nan"),
        "p99": 1000 * ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))] if ordered else float("nan"),
        "max": 1000 * ordered[-1] if ordered else float("nan"),
    }


async def phase(label: str, tables: list[Table], interval: float, seconds: float, writers: int) -> dict:
    """Open every member's stream, write, settle, and compare each stream's last id with its campaign's head."""
    from asgiref.sync import sync_to_async

    ids = [t.campaign_id for t in tables]
    start_heads = await sync_to_async(heads, thread_sensitive=False)(ids)
    pending = [(t.campaign_id, cookie) for t in tables for cookie in t.cookies]
    streams: list[Stream] = []
    opened = time.perf_counter()
    for start in range(0, len(pending), CONNECT_BATCH):
        batch = pending[start : start + CONNECT_BATCH]
        streams += await asyncio.gather(*(open_stream(c, cookie, start_heads[c]) for c, cookie in batch))
    open_seconds = time.perf_counter() - opened
    readers = [asyncio.create_task(consume(stream)) for stream in streams]
    await asyncio.sleep(2.0)  # the presence of every arrival settles
    cpu_before = server_cpu()
    stamps, behind = await asyncio.to_thread(run_writers, tables, interval, seconds, writers)
    await asyncio.sleep(SETTLE)
    end_heads = await sync_to_async(heads, thread_sensitive=False)(ids)

    def at_head() -> int:
        last = [max((i for i, _ in s.ids), default=start_heads[s.campaign_id]) for s in streams]
        return sum(1 for s, top in zip(streams, last, strict=True) if top >= end_heads[s.campaign_id])

    at_head_after_settle, settled = at_head(), time.time()
    while at_head() < len(streams) and time.time() - settled < SETTLE_MAX:
        await asyncio.sleep(0.5)
    cpu = server_cpu() - cpu_before
    for task in readers:
        task.cancel()
    for stream in streams:
        stream.writer.close()
    await asyncio.sleep(1.0)
    return {
        "label": label,
        "tables": len(tables),
        "streams": len(streams),
        "writes": len(stamps),
        "writes_per_s": len(stamps) / seconds,
        "open_s": open_seconds,
        "writer_behind_s": behind,
        "at_head": at_head_after_settle,
        "at_head_late": at_head(),
        "settle_s": SETTLE + time.time() - settled,
        "server_cpu_ms_per_write": 1000 * cpu / max(1, len(stamps)),
        "resyncs": sum(s.resyncs for s in streams),
        "load": os.getloadavg()[0],
        **latencies(streams, stamps),
    }


def main(args: argparse.Namespace) -> list[dict]:
    create_database(BENCH_DB)
    for command in (["migrate", "--noinput", "-v", "0"], ["collectstatic", "--noinput", "-v", "0"]):
        subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=server_env(), check=True, timeout=600)
    setup_django()
    many = make_tables("mt", args.tables, args.pages)
    big = make_tables("mtbig", 1, args.big) if args.big else []
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", HOST, "--port", str(PORT)]
    command += ["--workers", "2", "--timeout-graceful-shutdown", "5", "--no-access-log"]
    server = start_server(command, cwd=ROOT, env=server_env(), port=PORT, log=SERVER_LOG, cores="0,1")
    SERVER["pid"] = server.pid

    async def both() -> list[dict]:
        results = [await phase("many tables", many, args.interval, args.seconds, args.writers)]
        if big:
            results.append(await phase("one big table", big, args.big_interval, args.big_seconds, 1))
        return results

    try:
        return asyncio.run(both())
    finally:
        server.terminate()
        server.wait(timeout=15)


def report(results: list[dict], args: argparse.Namespace) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"\nMany tables, commit {commit.stdout.strip()}, {os.cpu_count()} cores (server: uvicorn, 2 workers, both "
        f"cores; streams and writers on the same machine), load average {os.getloadavg()[0]:.1f}\n"
    )
    print(
        "| phase | tables × pages | writes (per s) | commit→page p50 ms | p99 ms | max ms | entries arrived "
        "/ coalesced / never | streams at head 5 s after / at the end (s) | server CPU ms per write | resyncs "
        "| writer behind s | load |"
    )
    print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        print(
            f"| {r['label']} | {r['tables']} × {r['streams'] // max(1, r['tables'])} | {r['writes']} "
            f"({r['writes_per_s']:.1f}) | {r['p50']:.1f} | {r['p99']:.1f} | {r['max']:.0f} "
            f"| {r['arrived']:.1f} / {r['coalesced']:.1f} / {r['missing']:.1f} % "
            f"| {r['at_head']} / {r['at_head_late']} of {r['streams']} ({r['settle_s']:.0f} s) "
            f"| {r['server_cpu_ms_per_write']:.0f} "
            f"| {r['resyncs']} | {r['writer_behind_s']:.2f} | {r['load']:.1f} |"
        )
    targets = {"many tables": 150, "one big table": 50}
    for r in results:
        target = targets[r["label"]]
        verdict = "met" if r["p99"] < target and r["at_head"] == r["streams"] else "NOT met"
        print(f"\n{r['label']}: p99 < {target} ms and every page at its head: {verdict}.")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=300)
    parser.add_argument("--pages", type=int, default=7, help="open pages (members) per table")
    parser.add_argument("--interval", type=float, default=5.0, help="seconds between a table's writes")
    parser.add_argument("--seconds", type=float, default=30.0, help="how long the tables write")
    parser.add_argument("--writers", type=int, default=0, help="writer processes (0: one per 5 writes/s)")
    parser.add_argument("--big", type=int, default=50, help="pages of the one big table (0: skip)")
    parser.add_argument("--big-interval", type=float, default=0.25)
    parser.add_argument("--big-seconds", type=float, default=10.0)
    parser.add_argument("--write", help=argparse.SUPPRESS)  # a writer process's plan
    parser.add_argument("--json", action="store_true", help="print the figures as JSON last (for a summary)")
    args = parser.parse_args()
    if args.write:
        write_for(json.loads(args.write))
        sys.exit()
    args.writers = args.writers or max(1, round(args.tables / args.interval / 5))
    streams = args.tables * args.pages + args.big
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {1 % (os.cpu_count() or 1)})  # the streams' reader on core 1
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # the server's workers inherit it
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 2 * streams + 512)), hard))
    figures = main(args)
    report(figures, args)
    if args.json:
        print(json.dumps(figures))
