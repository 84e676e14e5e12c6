"""How the GM's table page grows with the party and the fight: server CPU and bytes per PC and per NPC, in
process, on SQLite and PostgreSQL (issue 39's target: 0.5 ms per PC and per NPC).

Run: .venv/bin/python bench/party_growth.py [--db sqlite,postgres] [--sizes 2,8] [--npcs 1,7] [--batches 5]
Each database its own throwaway (a SQLite file; on PostgreSQL ``lantern_bench_party``, made afresh on
DATABASE_URL's server): a GM and N players with a character each (8 items); the GM's table page through Django's
test client, the lowest CPU of the batches of 10 requests, and its bytes. Per PC: between the smallest and the
largest party (no fight). Per NPC: a party of the smallest size in a running fight of the fewest and the most NPCs.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.common import admin_url, database_url  # noqa: E402 - after the path

PARTY_DB = os.environ.get("BENCH_PARTY_DB", "lantern_bench_party")  # another name: two benches side by side


def measure(db: str, sizes: list[int], npcs: list[int], batches: int) -> None:
    """(child process) One database: prints the figures."""
    folder = tempfile.mkdtemp(prefix="lantern-party-")
    os.environ.update(DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="*", SECURE_SSL_REDIRECT="0")
    os.environ.pop("SQLITE_NAME", None)
    if db == "postgres":
        import psycopg

        with psycopg.connect(admin_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{PARTY_DB}"')
            conn.execute(f'CREATE DATABASE "{PARTY_DB}"')
        os.environ["DATABASE_URL"] = database_url(PARTY_DB)
    else:
        os.environ.pop("DATABASE_URL", None)
        os.environ["SQLITE_NAME"] = f"{folder}/party.sqlite3"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.test import Client

    from campaigns.models import Campaign, Membership
    from campaigns.session.encounters import encounter_start, npc_add
    from characters.services import character_create, item_add
    from rules import SYSTEMS
    from rules.base import Item

    call_command("migrate", verbosity=0)
    User = get_user_model()
    gm = User.objects.create_user("party-gm", password="x")
    goblin = {p.name: p.default for p in SYSTEMS["fell-draft"].npc_fields()}

    def table(size: int, fight: int | None) -> tuple[float, float, int]:
        campaign = Campaign.objects.create(name=f"Party of {size}", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        for n in range(size):
            player = User.objects.create_user(f"party-{campaign.pk}-{n}", password="x")
            Membership.objects.create(campaign=campaign, user=player)
            character, _ = character_create(
                owner=player, system="fell-draft", choices={"name": f"PC {n}"}, campaign=campaign, rng=random.Random(n)
            )
            for m in range(8):
                item_add(character_id=character.pk, item=Item(f"Thing {m}", "gear", 1), by=player)
        if fight is not None:
            encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm, rng=random.Random(1))
            for n in range(fight):
                npc_add(campaign_id=campaign.pk, name=f"Goblin {n + 1}", stats=goblin)
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(gm)
        url = f"/campaigns/{campaign.pk}/"
        for _ in range(3):
            response = client.get(url)
        assert response.status_code == 200
        best = float("inf")
        for _ in range(batches):
            started = time.process_time()
            for _ in range(10):
                client.get(url)
            best = min(best, (time.process_time() - started) / 10 * 1000)
        # After a change: the table's journal moves before each request (as a roll's would), so the page's kept
        # body is drawn again, from the kept cards (the SQL bump itself is in the figure: a fraction of a ms).
        moved = float("inf")
        for _ in range(batches):
            started = time.process_time()
            for _ in range(10):
                with connection.cursor() as cursor:
                    cursor.execute('UPDATE live_head SET "cursor" = "cursor" + 1 WHERE campaign_id = %s', [campaign.pk])
                client.get(url)
            moved = min(moved, (time.process_time() - started) / 10 * 1000)
        return best, moved, len(response.content)

    pcs = [(size, *table(size, None)) for size in sizes]
    fights = [(count, *table(sizes[0], count)) for count in npcs]
    print(f"\n{db}, in-process CPU (lowest of {batches} batches of 10)\n")
    print("| PCs | NPCs in the fight | table page (GM) CPU ms | after a change | bytes |\n|---:|---:|---:|---:|---:|")
    for size, cpu, moved, size_bytes in pcs:
        print(f"| {size} | – | {cpu:.1f} | {moved:.1f} | {size_bytes:,} |")
    for count, cpu, moved, size_bytes in fights:
        print(f"| {sizes[0]} | {count} | {cpu:.1f} | {moved:.1f} | {size_bytes:,} |")
    for what, rows in (("PC", pcs), ("NPC", fights)):
        (small, cpu0, moved0, bytes0), (large, cpu1, moved1, bytes1) = rows[0], rows[-1]
        per_kb = (bytes1 - bytes0) / (large - small) / 1000
        per_moved = (moved1 - moved0) / (large - small)
        print(f"per {what}: {(cpu1 - cpu0) / (large - small):.2f} ms ({per_moved:.2f} after a change), {per_kb:.1f} KB")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", default="sqlite", help="comma-separated: sqlite, postgres")
    parser.add_argument("--sizes", default="2,8", help="party sizes (PCs), smallest first")
    parser.add_argument("--npcs", default="1,7", help="NPCs in the running fight, fewest first")
    parser.add_argument("--batches", type=int, default=5)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    npcs = [int(count) for count in args.npcs.split(",")]
    if args.one:
        measure(args.one, sizes, npcs, args.batches)
        return
    for db in args.db.split(","):
        command = [sys.executable, __file__, "--one", db, "--sizes", args.sizes, "--npcs", args.npcs]
        subprocess.run([*command, "--batches", str(args.batches)], check=True, timeout=1800)


if __name__ == "__main__":
    main()
