"""Issue 37's benchmarks in one run, and a summary of its targets: `make bench-journal`.

Run: .venv/bin/python bench/journal.py [--writes service,sql] [--tables 20] [--fill 100000]
It runs, one after another (each prints its own tables): bench/notify_writes.py once per kind of write (through the
service; ``sql``: the journal's statements without Django), bench/journal_cost.py (both engines), and
bench/many_tables.py at a small size (``--tables`` × 7 pages, then one table of 50 pages; the full 300 × 7:
``bench/many_tables.py`` with its defaults), then prints each target with the figure measured.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def run(script: str, *args: str) -> Any:
    """Run a bench script, showing its output as it comes; its figures (the JSON it prints last)."""
    command = [sys.executable, str(ROOT / "bench" / script), *args, "--json"]
    print(f"\n$ {' '.join(command[1:])}", flush=True)
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, text=True)
    lines = done.stdout.rstrip().splitlines()
    print("\n".join(lines[:-1]), flush=True)
    if done.returncode or not lines:
        sys.exit(f"{script} failed")
    return json.loads(lines[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--writes", default="service,sql", help="notify_writes.py --write kinds, in turn")
    parser.add_argument("--tables", type=int, default=20, help="many_tables.py's tables (7 pages each)")
    parser.add_argument("--fill", type=int, default=100_000, help="journal_cost.py's larger table")
    args = parser.parse_args()
    load = os.getloadavg()
    notify = {what: run("notify_writes.py", "--write", what) for what in args.writes.split(",") if what}
    cost = run("journal_cost.py", "--fill", str(args.fill))
    tables = run("many_tables.py", "--tables", str(args.tables), "--seconds", "20")

    print(f"\n## Issue 37's targets (load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)\n")
    print("| target | measured | met |\n|---|---|---|")
    for what, figures in notify.items():
        ratios = figures["ratios"]
        top = max(int(key.split()[0]) for key in ratios)
        journal, old = ratios.get(f"{top} journal"), ratios.get(f"{top} notify")
        if journal is not None:
            print(
                f"| notifying writes ({what}) at {top} writers >= 0.5 × without notify | journal {journal:.2f}, "
                f"old pg_notify in the write {old:.2f} | {'yes' if journal >= 0.5 else 'NO'} |"
            )
    for engine in cost:
        small, large = engine["small"], engine["large"]
        print(
            f"| journal cost, {engine['engine']}: bytes and ms per write | {large['bytes_per_entry']:,.0f} B/entry, "
            f"{engine['cpu_ms']['journal'] - engine['cpu_ms']['none']:+.2f} ms CPU/write | (figure) |"
        )
        flat = large["record_cpu_ms"] / small["record_cpu_ms"], large["read50_cpu_ms"] / small["read50_cpu_ms"]
        print(
            f"| growth flat, {engine['engine']}: {small['entries']:,} → {large['entries']:,} entries "
            f"| CPU: record() ×{flat[0]:.2f}, entries_after(head-50) ×{flat[1]:.2f} "
            f"| {'yes' if max(flat) < 1.5 else 'NO'} |"
        )
    targets = {"many tables": 150, "one big table": 50}
    for phase in tables:
        target = targets[phase["label"]]
        met = phase["p99"] < target and phase["at_head"] == phase["streams"]
        print(
            f"| {phase['label']} ({phase['tables']} tables, {phase['streams']} streams): p99 < {target} ms, every page "
            f"at its head | p99 {phase['p99']:.0f} ms, {phase['at_head']} of {phase['streams']} at head "
            f"| {'yes' if met else 'NO'} |"
        )


if __name__ == "__main__":
    main()
