"""What the journal costs a write (issue 37): bytes per entry, CPU per write, and whether it grows with the table.

Run: .venv/bin/python bench/journal_cost.py [--engines sqlite,postgresql] [--fill 100000] [--batch 100] [--rounds 5]
(or `make bench-journal`). One child process per engine (production settings, ``DEBUG=0``; SQLite on a throwaway
file, PostgreSQL on ``BENCH_DB``, default ``lantern_bench_journal``) makes one campaign with one character and:

1. **CPU per write**: batches of ``--batch`` HP changes through ``characters.services.character_adjust``, with the
   journal and with ``live.journal.record`` a no-op in every module (the same write without its entry), in turn,
   ``--rounds`` times; the figure is each way's lowest batch's ``time.process_time`` per write (other load only
   ever adds time), and the difference is what ``record()`` adds. Wall time per write is shown beside it.
2. **Bytes per entry**: the journal tables' size over their entries (PostgreSQL: ``pg_total_relation_size`` of
   ``live_entry`` and ``live_head``, indexes and TOAST included; SQLite: ``dbstat``'s pages of those tables and
   their indexes).
   Also the growth per entry of the tables (and of the SQLite file, after a WAL checkpoint) while the table is
   filled to ``--fill``.
3. **Growth**: ``record()`` alone (its own transaction: the head bump, the insert, the commit) and
   ``entries_after(after=head-50)`` (what a reconnecting page reads), medians over many calls, with about 1,000
   entries in the table and again with ``--fill`` (all of them the measured campaign's: its index ranges are the
   longest they can be). Wall time moves with the machine's other load; CPU time (``process_time``, this process's
   own work) is the steadier figure for "flat".
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import (  # noqa: E402 - after the path
    create_database,
    database_url,
    journal_recording,
    production_env,
)

BENCH_DB = os.environ.get("BENCH_DB", "lantern_bench_journal")
CALLS = 300  # record() and entries_after() calls timed at each size


def child_env(engine: str, sqlite_file: str) -> dict[str, str]:
    if engine == "postgresql":
        return production_env(DATABASE_URL=database_url(BENCH_DB))
    return production_env(SQLITE_NAME=sqlite_file)


# --- the child: one engine ----------------------------------------------------------------------------------


def measure(engine: str, fill: int, batch: int, rounds: int, calls: int = CALLS) -> dict:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import random

    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, transaction

    from campaigns.models import Campaign, Membership
    from characters.services import character_adjust, character_create
    from live.journal import entries_after, head, record
    from live.models import Entry, Head

    call_command("migrate", "--noinput", verbosity=0)
    user_model = get_user_model()
    with transaction.atomic():
        Campaign.objects.filter(name="Journal bench").delete()
        user_model.objects.filter(username="journal-bench").delete()
        Entry.objects.all().delete()  # the bench database is the bench's: each size counts what it put there
        Head.objects.all().delete()
        gm = user_model.objects.create_user("journal-bench")
        campaign = Campaign.objects.create(name="Journal bench", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        character, _ = character_create(
            owner=gm, system="fell-draft", choices={"name": "J"}, campaign=campaign, rng=random.Random(1)
        )
    campaign_id, sign = campaign.pk, [-1]

    def writes(count: int) -> tuple[float, float]:
        cpu, wall = time.process_time(), time.perf_counter()
        for _ in range(count):
            character_adjust(character_id=character.pk, key="hp", delta=sign[0], by=gm)
            sign[0] = -sign[0]
        return (time.process_time() - cpu) / count, (time.perf_counter() - wall) / count

    def file_size() -> int:
        if engine == "postgresql":
            return 0
        with connection.cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return Path(connection.settings_dict["NAME"]).stat().st_size

    writes(20)  # warm-up: imports, templates, the connection
    cpu: dict[bool, list[float]] = {True: [], False: []}
    wall: dict[bool, list[float]] = {True: [], False: []}
    for r in range(rounds):
        for on in (True, False) if r % 2 == 0 else (False, True):
            journal_recording(on)
            each_cpu, each_wall = writes(batch)
            cpu[on].append(each_cpu)
            wall[on].append(each_wall)
    journal_recording(True)

    def journal_bytes() -> tuple[int, int]:
        count = Entry.objects.count()
        with connection.cursor() as cursor:
            if engine == "postgresql":
                cursor.execute("SELECT pg_total_relation_size('live_entry') + pg_total_relation_size('live_head')")
            else:
                cursor.execute(
                    "SELECT SUM(pgsize) FROM dbstat WHERE name IN "
                    "(SELECT name FROM sqlite_master WHERE tbl_name IN ('live_entry', 'live_head'))"
                )
            (size,) = cursor.fetchone()
        return int(size or 0), count

    def sample() -> list:
        return Entry.objects.filter(campaign_id=campaign_id).order_by("-cursor").values_list("events", flat=True)[0]

    def fill_to(total: int) -> None:
        """Entries like the bench's own (the same events), bulk-inserted after the campaign's head."""
        events, start = sample(), head(campaign_id)
        missing = total - Entry.objects.count()
        for offset in range(0, max(0, missing), 5000):
            rows = [
                Entry(campaign_id=campaign_id, cursor=start + offset + n + 1, write="sheet.changed", events=events)
                for n in range(min(5000, missing - offset))
            ]
            with transaction.atomic():
                Entry.objects.bulk_create(rows)
                Head.objects.filter(campaign_id=campaign_id).update(cursor=start + offset + len(rows))
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE live_entry" if engine == "postgresql" else "ANALYZE")

    from live.events import SheetChanged

    event = SheetChanged(character=character.pk, regions=("vitals",))

    def timed_at_size() -> dict:
        record_times, record_cpu, read_times, read_cpu = [], [], [], []
        for _ in range(calls):
            started, cpu_started = time.perf_counter(), time.process_time()
            record(campaign_id, event, by=gm)  # its own transaction: bump, insert, commit
            record_times.append(time.perf_counter() - started)
            record_cpu.append(time.process_time() - cpu_started)
            top = head(campaign_id)
            started, cpu_started = time.perf_counter(), time.process_time()
            read = entries_after(campaign_id, top - 50)
            read_times.append(time.perf_counter() - started)
            read_cpu.append(time.process_time() - cpu_started)
            assert len(read) == 50
        size, count = journal_bytes()
        return {
            "entries": count,
            "record_ms": 1000 * statistics.median(record_times),
            "record_cpu_ms": 1000 * statistics.median(record_cpu),
            "read50_ms": 1000 * statistics.median(read_times),
            "read50_cpu_ms": 1000 * statistics.median(read_cpu),
            "bytes_per_entry": size / count,
        }

    small_bytes = journal_bytes()
    fill_to(min(1000, fill))
    at_small = timed_at_size()
    bytes_before, file_before, count_before = journal_bytes()[0], file_size(), Entry.objects.count()
    fill_to(fill)
    added = max(1, Entry.objects.count() - count_before)
    fill_growth = ((journal_bytes()[0] - bytes_before) / added, (file_size() - file_before) / added)
    at_large = timed_at_size()
    return {
        "engine": engine,
        "cpu_ms": {"journal": 1000 * min(cpu[True]), "none": 1000 * min(cpu[False])},
        "wall_ms": {"journal": 1000 * statistics.median(wall[True]), "none": 1000 * statistics.median(wall[False])},
        "growth_per_entry": fill_growth[0],
        "file_growth_per_entry": fill_growth[1] if engine == "sqlite" else None,
        "bytes_after_writes": small_bytes[0] / max(1, small_bytes[1]),
        "entries_after_writes": small_bytes[1],
        "small": at_small,
        "large": at_large,
        "load": os.getloadavg()[0],
    }


# --- the parent -------------------------------------------------------------------------------------------------


def run(engines: list[str], fill: int, batch: int, rounds: int) -> list[dict]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for engine in engines:
            sqlite_file = str(Path(tmp) / "journal-bench.sqlite3")
            if engine == "postgresql":
                create_database(BENCH_DB)
            command = [sys.executable, __file__, "--child", engine, "--fill", str(fill)]
            command += ["--batch", str(batch), "--rounds", str(rounds)]
            done = subprocess.run(command, env=child_env(engine, sqlite_file), capture_output=True, text=True)
            if done.returncode:
                sys.exit(f"measuring {engine} failed:\n{done.stderr[-3000:]}")
            results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def report(results: list[dict], batch: int, rounds: int) -> None:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"\nJournal cost, commit {commit.stdout.strip()}, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}; HP changes through character_adjust, {rounds} batches of {batch} each way\n"
    )
    print(
        "| engine | CPU ms/write with journal | without | added by record() | wall ms/write with / without "
        "| bytes/entry (tables+indexes) | growth/entry while filling: tables / SQLite file |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|")
    for r in results:
        growth = "n/a" if r["file_growth_per_entry"] is None else f"{r['file_growth_per_entry']:,.0f} B"
        print(
            f"| {r['engine']} | {r['cpu_ms']['journal']:.2f} | {r['cpu_ms']['none']:.2f} "
            f"| {r['cpu_ms']['journal'] - r['cpu_ms']['none']:+.2f} "
            f"| {r['wall_ms']['journal']:.2f} / {r['wall_ms']['none']:.2f} "
            f"| {r['large']['bytes_per_entry']:,.0f} B at {r['large']['entries']:,} "
            f"({r['bytes_after_writes']:,.0f} B at {r['entries_after_writes']:,}) "
            f"| {r['growth_per_entry']:,.0f} B / {growth} |"
        )
    print("\nGrowth: medians of record() (its own transaction) and entries_after(head-50), one campaign's entries\n")
    print(
        "| engine | entries | record() ms (CPU ms) | entries_after(head-50) ms (CPU ms) "
        "| CPU ratio record / read at the larger size |"
    )
    print("|---|---:|---:|---:|---:|")
    for r in results:
        small, large = r["small"], r["large"]
        for size in (small, large):
            ratio = (
                f"{large['record_cpu_ms'] / small['record_cpu_ms']:.2f} "
                f"/ {large['read50_cpu_ms'] / small['read50_cpu_ms']:.2f}"
                if size is large
                else ""
            )
            print(
                f"| {r['engine']} | {size['entries']:,} | {size['record_ms']:.2f} ({size['record_cpu_ms']:.2f}) "
                f"| {size['read50_ms']:.2f} ({size['read50_cpu_ms']:.2f}) | {ratio} |"
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engines", default="sqlite,postgresql")
    parser.add_argument("--fill", type=int, default=100_000, help="entries in the table for the second size")
    parser.add_argument("--batch", type=int, default=100, help="writes per timed batch")
    parser.add_argument("--rounds", type=int, default=5, help="batches each way")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON last (for a summary)")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child, args.fill, args.batch, args.rounds)))
        sys.exit()
    figures = run([e for e in args.engines.split(",") if e], args.fill, args.batch, args.rounds)
    report(figures, args.batch, args.rounds)
    if args.json:
        print(json.dumps(figures))
