"""Notifying writes per second on PostgreSQL (issue 37's target, architecture pitfall 13), through the write service.

Run: .venv/bin/python bench/notify_writes.py [--writers 1,4,16] [--seconds 5] [--rounds 3] [--modes …]
(or `make bench-journal`; needs PostgreSQL: DATABASE_URL's server or 127.0.0.1:5432 user postgres). It creates and
migrates ``BENCH_DB`` (default ``lantern_bench_notify``), makes one campaign and one character per writer, and starts
one process per writer (Django set up, production settings, ``synchronous_commit=on``). Each writer calls
``characters.services.character_adjust`` (HP −1 / +1) on its own character as fast as it can; a LISTEN-ing connection
in this process drains the channel during every run. The modes, taken in turn (same writes, same processes):

- ``journal``: this checkout: the journal entry in the write's transaction, announced after commit (live.relay);
- ``silent``: the same writes with ``live.relay.announce`` a no-op: the journal, without any notify;
- ``notify``: the old way (before the journal, c041e89): ``SELECT pg_notify('lantern', …)`` inside the write's
  transaction (the service wrapped in ``atomic()``), nothing announced after it;
- ``bare`` (ask for it): no journal and no notify (``live.journal.record`` a no-op): what the journal adds.

``--write record``: each write is the journal's part alone (one ``record()`` in its own transaction), with far
less Python per commit than the service: on 2 shared cores the service's CPU caps writes/s well below where
PostgreSQL's notify lock bites (~150 commits/s here), so this shows the lock the service's figure cannot.
``--write sql``: the same two statements with no Django at all (pgbench's kind of write), the notify after commit
in a transaction of its own (``journal``) or inside (``notify``): the database's own ceiling.

Each round runs every writer count and every mode for ``--seconds``, the modes' order turning each round; the
figure is the median over rounds of writes/s, with the p50 / p99 of that round's write times. Target: journal /
silent >= 0.5 at 16 writers (the notify-in-transaction way measured 0.07-0.09 with pgbench). The machine's load
average is printed with each round: other work on a shared machine moves every mode alike within a round, so read
the ratios, not the absolute figures.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import queue
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import create_database, database_url, journal_recording, production_env  # noqa: E402 - after the path

BENCH_DB = os.environ.get("BENCH_DB", "lantern_bench_notify")
MODES = ("journal", "silent", "notify")
ALL_MODES = (*MODES, "bare")
CHANNEL = "lantern"
WRITES = {
    "service": "HP changes through characters.services.character_adjust",
    "record": "live.journal.record() alone, one sheet.changed in its own transaction",
    "sql": (
        "the journal's two statements in raw SQL (psycopg, no Django), announced after commit by a relay thread as "
        "live.relay does"
    ),
}


def bench_env() -> dict[str, str]:
    # A small pool per writer process: it holds one connection for its one thread.
    return production_env(DATABASE_URL=database_url(BENCH_DB), DB_POOL_MIN="1", DB_POOL_MAX="2")


def setup_django() -> None:
    os.environ.update(bench_env())
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def make_cast(writers: int) -> list[tuple[int, int, int]]:
    """(campaign, character, user) per writer, made afresh in the bench database."""
    import random

    from django.contrib.auth import get_user_model
    from django.db import connections, transaction

    from campaigns.models import Campaign, Membership
    from characters.services import character_create

    user_model = get_user_model()
    cast = []
    with transaction.atomic():
        Campaign.objects.filter(name__startswith="Notify bench").delete()
        user_model.objects.filter(username__startswith="notify-").delete()
        for n in range(writers):
            gm = user_model.objects.create_user(f"notify-{n}")
            campaign = Campaign.objects.create(name=f"Notify bench {n}", system="fell-draft")
            Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
            character, _ = character_create(
                owner=gm, system="fell-draft", choices={"name": f"W{n}"}, campaign=campaign, rng=random.Random(n)
            )
            cast.append((campaign.pk, character.pk, gm.pk))
    connections.close_all()
    return cast


# --- a writer process ------------------------------------------------------------------------------------


def set_mode(mode: str, originals: dict) -> None:
    """Patch this process for ``mode``."""
    from live import relay

    relay.announce = originals["announce"] if mode == "journal" else (lambda signal: None)
    journal_recording(mode != "bare")


def payload_for(campaign_id: int, character_id: int) -> str:
    """What c041e89's writes notified."""
    return json.dumps({"campaign": campaign_id, "topic": "push", "parts": [["character", character_id, ["vitals"]]]})


def sql_writer(conn, campaign_id: int, payload: str) -> None:
    """``--write sql``: pgbench's kind of write, so the database, not Python, sets the pace: the head bump and the
    entry's insert in one transaction; ``journal`` then notifies in a transaction of its own, ``notify`` inside."""
    import psycopg

    from live.journal import _BUMP

    insert = (
        'INSERT INTO live_entry (campaign_id, "cursor", at, by_id, write, events) '
        "VALUES (%s, %s, now(), NULL, 'sheet.changed', %s)"
    )
    events = json.dumps([{"kind": "sheet.changed", "character": 1, "regions": ["vitals"]}])
    announced: queue.SimpleQueue[int] = queue.SimpleQueue()

    def relay() -> None:
        """As live.relay does: after the commit, off the writer's path, each batch in one notify on a connection of
        its own with synchronous_commit off (a lost notify is caught up from the journal)."""
        with psycopg.connect(database_url(BENCH_DB), autocommit=True) as pub:
            pub.execute("SET synchronous_commit = off")
            while True:
                latest = announced.get()
                while not announced.empty():
                    latest = max(latest, announced.get_nowait())
                pub.execute(
                    "SELECT pg_notify(%s, %s)", [CHANNEL, json.dumps({"campaign": campaign_id, "cursor": latest})]
                )

    threading.Thread(target=relay, daemon=True).start()
    with psycopg.connect(database_url(BENCH_DB)) as db:
        db.execute("SET synchronous_commit = on")
        db.commit()
        while True:
            command = conn.recv()
            if command[0] == "stop":
                return
            _, mode, start_at, seconds = command
            times: list[float] = []
            errors = 0
            time.sleep(max(0.0, start_at - time.time()))
            end = start_at + seconds
            while time.time() < end:
                started = time.perf_counter()
                try:
                    (position,) = db.execute(_BUMP, [campaign_id]).fetchone()  # type: ignore[misc]
                    db.execute(insert, [campaign_id, position, events])
                    if mode == "notify":
                        db.execute("SELECT pg_notify(%s, %s)", [CHANNEL, payload])
                    db.commit()
                    if mode == "journal":
                        announced.put(position)
                except psycopg.Error:
                    db.rollback()
                    errors += 1
                    continue
                times.append(time.perf_counter() - started)
            conn.send((len(times), times, errors))


def writer(conn, campaign_id: int, character_id: int, user_id: int, what: str) -> None:
    """One writer: waits for ("run", mode, start_at, seconds), writes until the end, answers its count and times.

    ``what``: "service" (an HP change through character_adjust) or "record" (the journal's part alone: one
    ``record()`` of a sheet.changed in its own transaction, the head bump and the insert)."""
    setup_django()
    from django.contrib.auth import get_user_model
    from django.db import connection, transaction

    from characters.services import character_adjust
    from live import relay
    from live.events import SheetChanged
    from live.journal import record

    event = SheetChanged(character=character_id, regions=("vitals",))

    if what == "sql":
        sql_writer(conn, campaign_id, payload_for(campaign_id, character_id))
        return

    def write(delta: int) -> None:
        if what == "record":
            record(campaign_id, event, by=user)
        else:
            character_adjust(character_id=character_id, key="hp", delta=delta, by=user)

    user = get_user_model().objects.get(pk=user_id)
    with connection.cursor() as cursor:
        cursor.execute("SET synchronous_commit = on")  # the pool keeps this session: the setting stays
    originals = {"announce": relay.announce}
    payload = payload_for(campaign_id, character_id)
    sign = -1
    while True:
        command = conn.recv()
        if command[0] == "stop":
            return
        _, mode, start_at, seconds = command
        set_mode(mode, originals)
        times: list[float] = []
        errors = 0
        time.sleep(max(0.0, start_at - time.time()))
        end = start_at + seconds
        while time.time() < end:
            started = time.perf_counter()
            try:
                if mode == "notify":
                    with transaction.atomic():
                        write(sign)
                        with connection.cursor() as cursor:
                            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, payload])
                else:
                    write(sign)
            except Exception:  # counted, not fatal: the figure says how many failed
                errors += 1
                continue
            times.append(time.perf_counter() - started)
            sign = -sign
        conn.send((len(times), times, errors))


# --- the LISTEN-ing connection ----------------------------------------------------------------------------


class Listener(threading.Thread):
    """Drains the channel the whole time (a notification queue nobody reads would grow, not block, but a hub
    always listens), counting what it hears."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.heard = 0
        self.stopping = threading.Event()
        self.ready = threading.Event()

    def run(self) -> None:
        import psycopg

        with psycopg.connect(database_url(BENCH_DB), autocommit=True) as conn:
            conn.execute(f"LISTEN {CHANNEL}")
            self.ready.set()
            while not self.stopping.is_set():
                for _ in conn.notifies(timeout=0.2):
                    self.heard += 1


# --- the run ------------------------------------------------------------------------------------------------


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))] if ordered else float("nan")


def run_once(pipes: list, listener: Listener, n: int, mode: str, seconds: float) -> dict:
    heard = listener.heard
    start_at = time.time() + 0.3
    for conn in pipes[:n]:
        conn.send(("run", mode, start_at, seconds))
    answers = [conn.recv() for conn in pipes[:n]]
    time.sleep(0.3)  # the last notifications drain
    times = [t for _, each, _ in answers for t in each]
    return {
        "writes_s": sum(count for count, _, _ in answers) / seconds,
        "p50": 1000 * statistics.median(times) if times else float("nan"),
        "p99": 1000 * percentile(times, 0.99),
        "errors": sum(e for _, _, e in answers),
        "heard": listener.heard - heard,
        "load": os.getloadavg()[0],
    }


def main(writer_counts: list[int], modes: list[str], seconds: float, rounds: int, what: str) -> dict:
    create_database(BENCH_DB)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=bench_env(), check=True
    )
    setup_django()
    cast = make_cast(max(writer_counts))
    context = multiprocessing.get_context("spawn")  # a fresh Django per writer: no pool threads forked
    pipes, processes = [], []
    for campaign_id, character_id, user_id in cast:
        ours, theirs = context.Pipe()
        process = context.Process(target=writer, args=(theirs, campaign_id, character_id, user_id, what), daemon=True)
        process.start()
        pipes.append(ours)
        processes.append(process)
    listener = Listener()
    listener.start()
    listener.ready.wait(30)
    load_before = os.getloadavg()
    results: dict[tuple[int, str], list[dict]] = {}
    try:
        for mode in modes:  # warm-up: imports, templates, the pool, every code path once
            run_once(pipes, listener, len(pipes), mode, min(1.0, seconds))
        for r in range(rounds):
            turn = modes[r % len(modes) :] + modes[: r % len(modes)]  # each mode goes first in some round
            for n in writer_counts:
                for mode in turn:
                    results.setdefault((n, mode), []).append(run_once(pipes, listener, n, mode, seconds))
            print(f"round {r + 1}/{rounds} done, load average {os.getloadavg()[0]:.1f}", file=sys.stderr)
    finally:
        for conn in pipes:
            conn.send(("stop",))
        for process in processes:
            process.join(10)
        listener.stopping.set()
    return report(results, writer_counts, modes, seconds, rounds, load_before, what)


def median_round(runs: list[dict]) -> dict:
    return sorted(runs, key=lambda r: r["writes_s"])[len(runs) // 2]


def report(results, writer_counts, modes, seconds, rounds, load_before, what) -> dict:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    print(
        f"\nNotifying writes: {WRITES[what]}, PostgreSQL synchronous_commit=on, "
        f"commit {commit.stdout.strip()}{' + uncommitted changes' if dirty.strip() else ''}, {os.cpu_count()} cores; "
        f"{seconds:g} s runs, {rounds} rounds in turn, median round; load average before "
        f"{load_before[0]:.1f} / {load_before[1]:.1f} / {load_before[2]:.1f}, after {os.getloadavg()[0]:.1f}\n"
    )
    print("| writers | mode | writes/s (median) | each round | p50 ms | p99 ms | heard by LISTEN | errors |")
    print("|---:|---|---:|---|---:|---:|---:|---:|")
    summary: dict = {}
    for n in writer_counts:
        for mode in modes:
            runs = results[(n, mode)]
            m = median_round(runs)
            summary[(n, mode)] = m
            rounds_text = " / ".join(f"{r['writes_s']:.0f}" for r in runs)
            print(
                f"| {n} | {mode} | {m['writes_s']:.0f} | {rounds_text} | {m['p50']:.1f} | {m['p99']:.1f} "
                f"| {m['heard']} | {sum(r['errors'] for r in runs)} |"
            )
    print("\nRatios of writes/s against the same writes without any notify (silent), each round's own pair:\n")
    others = [mode for mode in modes if mode != "silent"]
    print("| writers | " + " | ".join(f"{mode} / silent" for mode in others) + " |")
    print("|---:|" + "---:|" * len(others))
    ratios: dict = {}
    for n in writer_counts:
        cells = []
        for mode in others:
            if "silent" not in modes:
                continue
            pairs = zip(results[(n, mode)], results[(n, "silent")], strict=True)
            per_round = [a["writes_s"] / b["writes_s"] for a, b in pairs]
            ratios[(n, mode)] = statistics.median(per_round)
            cells.append(f"{statistics.median(per_round):.2f} ({' / '.join(f'{x:.2f}' for x in per_round)})")
        print(f"| {n} | " + " | ".join(cells) + " |")
    top = max(writer_counts)
    if (top, "journal") in ratios:
        verdict = "met" if ratios[(top, "journal")] >= 0.5 else "NOT met"
        print(f"\nTarget journal / silent >= 0.5 at {top} writers: {ratios[(top, 'journal')]:.2f} ({verdict}).")
    return {
        "writes": {f"{n} {mode}": round(m["writes_s"], 1) for (n, mode), m in summary.items()},
        "ratios": {f"{n} {mode}": round(v, 3) for (n, mode), v in ratios.items()},
    }


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writers", default="1,4,16", help="comma-separated concurrent writer counts")
    parser.add_argument("--modes", default=",".join(MODES), help=f"comma-separated, of {', '.join(ALL_MODES)}")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--write", choices=sorted(WRITES), default="service", help="what a write is (record: the journal's SQL alone)"
    )
    parser.add_argument("--json", action="store_true", help="print the figures as JSON last (for a summary)")
    args = parser.parse_args()
    chosen = [m for m in args.modes.split(",") if m]
    if unknown := set(chosen) - set(ALL_MODES):
        sys.exit(f"unknown mode(s): {', '.join(sorted(unknown))}")
    if args.write != "service" and "bare" in chosen:
        sys.exit("bare has nothing to write with --write record")
    figures = main([int(n) for n in args.writers.split(",")], chosen, args.seconds, args.rounds, args.write)
    if args.json:
        print(json.dumps(figures))
