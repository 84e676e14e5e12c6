"""Whether reads stay flat as the roll log and the journal grow: the roll POST (its rate check counts the roller's
rolls of the last minute), the sheet's "This character" log (one character's newest rolls) and the sheet page.

Run: .venv/bin/python bench/growth.py [--baseline DIR] [--postgres] [--sizes 0,1000,100000] [--batches 5]

In-process, like bench/inprocess.py: a child process per checkout (this one and, with ``--baseline``, another,
e.g. ``git archive 4480856 | tar -x -C /tmp/base``) imports that checkout's Django with the production settings,
on its own throwaway database (a SQLite file, or with ``--postgres`` a database named after the checkout on the
``DATABASE_URL`` server), since the checkouts' migrations differ. It makes a GM, a player and a Fell campaign of
three characters, then fills the table's log to each size in turn with ``bulk_create``: one row in ``--share``
the player's own character's rolls (made by the player), the rest the other two's, spread over the past month
(older than the rate check's minute), and the table's journal to as many entries (issue 39). SQLite gets no
ANALYZE (production runs none); PostgreSQL does, as autovacuum would. At each size it times, through Django's
test client, the player's roll (a Fell test, POSTed as htmx does; its answer carries the log), the "This
character" log region and the sheet page: 3 warm-up requests, then batches of
10. The figure is the lowest batch's time per request in milliseconds: CPU time on SQLite (the database works in
this process, and other load barely moves it), wall time on PostgreSQL (its server's work included).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import create_database, database_url, measured_in_child, production_env  # noqa: E402

BATCH = 10
HTMX = {"HX-Request": "true"}


def child(tree: Path, sizes: list[int], batches: int, share: int) -> None:
    """(in the checkout's own interpreter state) Build the table, grow its log, time both requests at each size."""
    sys.path.insert(0, str(tree))
    os.chdir(tree)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import random
    from datetime import timedelta

    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client
    from django.utils import timezone

    call_command("migrate", verbosity=0, interactive=False)
    call_command("collectstatic", verbosity=0, interactive=False)  # DEBUG=0 pages read the static manifest
    from campaigns.models import Campaign, Membership
    from characters.models import Roll
    from characters.services import character_create

    users = get_user_model().objects
    gm, player, other = (users.create_user(name, password="bench-only") for name in ("gm", "player", "other"))
    campaign = Campaign.objects.create(name="Growth", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other)

    def make(owner, name: str, seed: int):
        return character_create(
            owner=owner, system="fell-draft", choices={"name": name}, campaign=campaign, rng=random.Random(seed)
        )[0]

    hero, ash, moss = make(player, "Wren", 1), make(other, "Ash", 2), make(gm, "Moss", 3)
    client = Client(HTTP_HOST="127.0.0.1")
    client.force_login(player)
    roll_url, log_url = f"/characters/{hero.pk}/roll/test/", f"/characters/{hero.pk}/region/log/"

    def roll() -> None:
        response = client.post(roll_url, {"visibility": "public"}, headers=HTMX)
        assert response.status_code == 200, response.content[-500:]

    def log() -> None:
        response = client.get(log_url, {"log": "mine"}, headers=HTMX)
        assert response.status_code == 200, response.status_code

    field = Roll._meta.get_field("created_at")

    def sheet() -> None:
        response = client.get(f"/characters/{hero.pk}/")
        assert response.status_code == 200, response.status_code

    def grow_journal(size: int) -> None:
        """(issue 39; a checkout without the journal has none) The table's journal to ``size`` entries as well,
        one old roll's entry each, the campaign's head moved past them as its writes would."""
        try:
            from live.models import Entry, Head
        except ImportError:
            return
        head = Head.objects.filter(campaign_id=campaign.pk).values_list("cursor", flat=True).first() or 0
        have = Entry.objects.filter(campaign_id=campaign.pk).count()
        at = timezone.now() - timedelta(days=30)
        for first in range(have, size, 5000):
            count = min(size, first + 5000) - first
            Entry.objects.bulk_create(
                Entry(
                    campaign_id=campaign.pk,
                    cursor=head + n + 1,
                    at=at,
                    by_id=player.pk,
                    write="roll.made",
                    events=[{"kind": "roll.made", "roll": 0, "character": hero.pk}],
                )
                for n in range(count)
            )
            head += count
        Head.objects.update_or_create(campaign_id=campaign.pk, defaults={"cursor": head})

    def grow_to(size: int) -> None:
        """Old rolls, bulk-created with their own times (auto_now_add would stamp them all "now")."""
        have = Roll.objects.count()
        start = timezone.now() - timedelta(days=30)
        field.auto_now_add = False
        try:
            for first in range(have, size, 5000):
                rows = []
                for n in range(first, min(size, first + 5000)):
                    character = hero if n % share == 0 else (ash, moss)[n % 2]
                    rows.append(
                        Roll(
                            campaign=campaign,
                            character=character,
                            roller_id=character.owner_id,
                            label="Test",
                            procedure="test",
                            outcome="pass",
                            created_at=start + timedelta(seconds=20 * n),
                        )
                    )
                Roll.objects.bulk_create(rows)
        finally:
            field.auto_now_add = True
        grow_journal(size)
        if (
            connection.vendor == "postgresql"
        ):  # autovacuum's statistics; SQLite has none unless asked (as in production)
            with connection.cursor() as cursor:
                cursor.execute("ANALYZE")

    # SQLite works in this process: its CPU time, which other load on a shared machine barely moves. PostgreSQL
    # works in its server: the wall time, which includes it.
    clock = time.perf_counter if connection.vendor == "postgresql" else time.process_time
    out = {}
    for size in sizes:
        grow_to(size)
        gc.collect()  # the bulk rows' garbage is not the requests' cost
        figures = {}
        for name, request in (("roll POST", roll), ('"This character" log', log), ("sheet page", sheet)):
            for _ in range(3):
                request()
            best = float("inf")
            for _ in range(batches):
                started = clock()
                for _ in range(BATCH):
                    request()
                best = min(best, (clock() - started) / BATCH * 1000)
            figures[name] = best
        out[str(size)] = figures
    print(json.dumps(out))


def run_child(label: str, tree: Path, sizes: list[int], batches: int, share: int, postgres: bool) -> dict:
    if postgres:
        name = f"lantern_bench_growth_{label}"
        import psycopg

        from bench.common import admin_url

        with psycopg.connect(admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        create_database(name)
        env = production_env(DATABASE_URL=database_url(name))
    else:
        path = Path(tempfile.gettempdir()) / f"lantern-bench-growth-{label}-{os.getuid()}.sqlite3"
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        env = production_env(SQLITE_NAME=str(path))
    # The bench rolls faster than a table may: the rate check still runs, its limit out of the way.
    env.update(ROLLS_PER_MINUTE="1000000", SECURE_SSL_REDIRECT="0")
    command = [sys.executable, __file__, "--child", str(tree), "--sizes", ",".join(map(str, sizes))]
    command += ["--batches", str(batches), "--share", str(share)]
    return measured_in_child(command, env, tree, timeout=3600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout, measured on its own database")
    parser.add_argument("--postgres", action="store_true", help="PostgreSQL (DATABASE_URL's server) instead of SQLite")
    parser.add_argument("--sizes", default="0,1000,100000", help="rolls in the table's log, in increasing order")
    parser.add_argument("--batches", type=int, default=5, help="batches of 10 requests per figure")
    parser.add_argument("--share", type=int, default=10, help="one old roll in this many is the player's character's")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    if args.child:
        child(Path(args.child), sizes, args.batches, args.share)
        return
    trees = [("before", Path(args.baseline).resolve())] if args.baseline else []
    trees.append(("now", ROOT))
    results = {label: run_child(label, tree, sizes, args.batches, args.share, args.postgres) for label, tree in trees}
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    engine = "PostgreSQL" if args.postgres else "SQLite"
    print(
        f"\ncommit {commit.stdout.strip()}{f' against {args.baseline}' if args.baseline else ''}, in-process, "
        f"{engine}, load average {os.getloadavg()[0]:.1f}, one old roll in {args.share} the player's, lowest of "
        f"{args.batches} batches of {BATCH}, {'wall' if args.postgres else 'CPU'} ms per request\n"
    )
    print("| request | rolls in the log | " + " | ".join(label for label, _ in trees) + " |")
    print("|---|---:|" + "---:|" * len(trees))
    for name in results["now"][str(sizes[0])]:
        for size in sizes:
            cells = " | ".join(f"{results[label][str(size)][name]:.1f}" for label, _ in trees)
            print(f"| {name} | {size:,} | {cells} |")


if __name__ == "__main__":
    main()
