"""How the table page grows with the party: server CPU and bytes per PC, in process (issue 25's target: half of
1.5 ms and 8 KB per PC at `4480856`).

Run: .venv/bin/python bench/party_growth.py [--sizes 2,8] [--batches 5]
A throwaway SQLite database; a GM and N players with a character each (8 items); the GM's table page, the lowest
CPU of the batches of 10 requests, and its bytes; then the growth per PC between the smallest and largest party.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2,8")
    parser.add_argument("--batches", type=int, default=5)
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    folder = tempfile.mkdtemp(prefix="lantern-party-")
    os.environ.update(SQLITE_NAME=f"{folder}/party.sqlite3", DEBUG="0", SECRET_KEY="bench", ALLOWED_HOSTS="*")
    os.environ["SECURE_SSL_REDIRECT"] = "0"  # the test client speaks plain HTTP
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.pop("DATABASE_URL", None)
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from campaigns.models import Campaign, Membership
    from characters.services import character_create, item_add
    from rules.base import Item

    call_command("migrate", verbosity=0)
    User = get_user_model()
    gm = User.objects.create_user("party-gm", password="x")
    figures = []
    for size in sizes:
        campaign = Campaign.objects.create(name=f"Party of {size}", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        for n in range(size):
            player = User.objects.create_user(f"party-{size}-{n}", password="x")
            Membership.objects.create(campaign=campaign, user=player)
            character, _ = character_create(
                owner=player,
                system="fell-draft",
                choices={"name": f"PC {n}"},
                campaign=campaign,
                rng=random.Random(n),
            )
            for m in range(8):
                item_add(character_id=character.pk, item=Item(f"Thing {m}", "gear", 1), by=player)
        client = Client(HTTP_HOST="127.0.0.1")
        client.force_login(gm)
        url = f"/campaigns/{campaign.pk}/"
        for _ in range(3):
            response = client.get(url)
        best = float("inf")
        for _ in range(args.batches):
            started = time.process_time()
            for _ in range(10):
                client.get(url)
            best = min(best, (time.process_time() - started) / 10 * 1000)
        figures.append((size, best, len(response.content)))
    print("| PCs | table page (GM) CPU ms | bytes |\n|---:|---:|---:|")
    for size, cpu, size_bytes in figures:
        print(f"| {size} | {cpu:.1f} | {size_bytes:,} |")
    (small, cpu0, bytes0), (large, cpu1, bytes1) = figures[0], figures[-1]
    print(f"\nper PC: {(cpu1 - cpu0) / (large - small):.2f} ms and {(bytes1 - bytes0) / (large - small) / 1000:.1f} KB")


if __name__ == "__main__":
    main()
