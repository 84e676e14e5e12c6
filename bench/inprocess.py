"""Server CPU per request measured in-process: the steadiest figure on a shared machine.

Run: .venv/bin/python bench/inprocess.py [--baseline DIR] [--rounds 4] [--profile PATH]

No HTTP server and no load generator: a child process per checkout (this one and, with ``--baseline``,
another, e.g. ``git archive 7b56cd1 | tar -x -C /tmp/before``) imports that checkout's Django with the
production settings (``DEBUG=0``), logs the bench cast in (``bench/pages.py``'s: a GM, 6 players, one Fell
campaign, 6 characters of 8 items, on a throwaway SQLite file; here also 60 rolls in the table's log), and
requests each page through Django's test client (the table page and each of its live regions for the GM and
a player): 3 warm-up requests, then batches of 10. The figure is the **lowest** batch's CPU time per
request (``time.process_time``) over ``--rounds`` rounds, the checkouts taken in turn: other load on the
machine only ever adds time, so the minimum is the closest to the code's own cost. It counts SQL queries and
bytes too. It leaves out what a real server adds (the socket, HTTP parsing, uvicorn's thread hop; the
login page shows that part: compare with ``bench/pages.py``). ``--profile PATH`` prints cProfile's top
functions for one page of this checkout instead.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.common import measured_in_child, production_env  # noqa: E402 - after the path
from bench.pages import LAYER, SQLITE_FILE, prepare_database  # noqa: E402

BATCH = 10
ROLLS = 60  # more than the log's page of 50: it draws a full page and the "Older rolls" button


def pages(cast: dict) -> list[tuple[str, str, str, dict]]:
    """(name, user, path, headers): the pages of bench/pages.py, and the HP change."""
    c, htmx = cast["character"], {"HX-Request": "true"}
    table = f"/campaigns/{cast['campaign']}"
    # The table's live regions, each refetched by every open table page on its signal (the log on each roll).
    regions = [
        (f"table region: {region} ({who})", user, f"{table}/region/{region}/", htmx)
        for region in ("party", "log", "members", "clock")
        for who, user in (("GM", "pages-gm"), ("player", "pages-0"))
    ]
    # The session's panels (templates/campaigns/_session.html), each refetched on its own signal; the encounter
    # and the notes are the GM's alone.
    regions += [
        (f"session region: {region} ({who})", user, f"{table}/{region}/", htmx)
        for region in ("requests", "time", "summary", "encounter", "notes")
        for who, user in (("GM", "pages-gm"), ("player", "pages-0"))
        if who == "GM" or region not in ("encounter", "notes")
    ]
    return [
        # The floor (bench/layer/bench_bare_urls.py): Lantern's middleware and an empty view, anonymous and logged in.
        ("bare view", "", "/bench/bare/", {}),
        ("bare view (logged in)", "pages-0", "/bench/bare-user/", {}),
        ("sheet page (owner)", "pages-0", f"/characters/{c}/", {}),
        ("sheet page (GM)", "pages-gm", f"/characters/{c}/", {}),
        ("region: vitals", "pages-0", f"/characters/{c}/region/vitals/", htmx),
        ("region: details", "pages-0", f"/characters/{c}/region/details/", htmx),
        ("region: inventory", "pages-0", f"/characters/{c}/region/inventory/", htmx),
        ("region: log", "pages-0", f"/characters/{c}/region/log/", htmx),
        ("table page (GM)", "pages-gm", f"{table}/", {}),
        ("table page (player)", "pages-0", f"{table}/", {}),
        *regions,
        ("HP change (POST, htmx)", "pages-0", f"/characters/{c}/adjust/", htmx),
        ("roll (POST, htmx)", "pages-0", f"/characters/{c}/roll/test/", htmx),
        ("API character read", "", f"/api/characters/{c}", {"Authorization": f"Bearer {cast.get('token', '')}"}),
        ("login page", "", "/accounts/login/", {}),
    ]


def make_rolls(cast: dict) -> None:
    """(child process, this checkout) The table's log: ROLLS rolls of its characters, for everyone, the GM only
    or the roller only in turn, so the log region draws a full page and the GM and a player see different rows."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    from characters.models import Character, Roll

    characters = list(Character.objects.filter(campaign_id=cast["campaign"]).order_by("pk"))
    visibilities = Roll.Visibility.values
    Roll.objects.bulk_create(
        Roll(
            campaign_id=cast["campaign"],
            character=characters[n % len(characters)],
            roller_id=characters[n % len(characters)].owner_id,
            label=f"Bench roll {n}",
            procedure="free",
            dice=[{"sides": 6, "face": 1 + n % 6, "kept": True}, {"sides": 6, "face": 1 + n % 5, "kept": True}],
            outcome="pass" if n % 2 else "fail",
            visibility=visibilities[n % len(visibilities)],
        )
        for n in range(ROLLS)
    )


def child(tree: Path, cast: dict, batches: int, profile: str, reconnect: bool = False) -> None:
    """(in the checkout's own interpreter state) Measure each page; print one JSON line. ``reconnect``: each
    request ends as under a server, its database connections closed (Django's request_finished; the test client
    leaves them open), so a connection's opening is counted as a server pays it."""
    sys.path.insert(0, str(tree))
    sys.path.insert(0, str(LAYER))  # the bare views over any checkout's URLs
    os.chdir(tree)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bench_bare_settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.db import close_old_connections, connection
    from django.test import Client

    clients: dict[str, Client] = {}

    def client_for(username: str) -> Client:
        if username not in clients:
            clients[username] = Client(HTTP_HOST="127.0.0.1")
            if username:
                clients[username].force_login(get_user_model().objects.get(username=username))
        return clients[username]

    def request(n: int, user: str, path: str, headers: dict):
        response = answer(n, user, path, headers)
        if reconnect:
            close_old_connections()
            connection.close()  # CONN_MAX_AGE 0: what a server's request_finished does
        return response

    def answer(n: int, user: str, path: str, headers: dict):
        if path.endswith("/adjust/"):  # HP −1 then +1: stays within the track's bounds
            data = {"key": "hp", "delta": "-1" if n % 2 else "1"}
            return client_for(user).post(path, data, headers=headers)
        if "/roll/" in path:
            return client_for(user).post(path, {"visibility": "public"}, headers=headers)
        return client_for(user).get(path, headers=headers)

    out = {}
    from characters.models import Roll

    for name, user, path, headers in pages(cast):
        if profile and path != profile:
            continue
        last_roll = Roll.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        for n in range(3):
            response = request(n, user, path, headers)
        assert response.status_code == 200, (path, response.status_code)
        queries: list[str] = []  # an execute wrapper outlives the reconnection each request makes

        def count(execute, sql, params, many, context, queries=queries):
            queries.append(sql)
            return execute(sql, params, many, context)

        with connection.execute_wrapper(count):
            request(1, user, path, headers)
        if profile:
            import cProfile
            import pstats

            profiler = cProfile.Profile()
            profiler.enable()
            for n in range(BATCH):
                request(n, user, path, headers)
            profiler.disable()
            pstats.Stats(profiler).sort_stats("cumulative").print_stats(60)
            return
        best = float("inf")
        for _ in range(batches):
            started = time.process_time()
            for n in range(BATCH):
                request(n, user, path, headers)
            best = min(best, (time.process_time() - started) / BATCH * 1000)
        out[name] = {"cpu_ms": best, "queries": len(queries), "bytes": len(response.content)}
        # The rolls it made leave the log as it was: the next checkout's pages draw the same rows.
        Roll.objects.filter(pk__gt=last_roll).delete()
    if not profile:
        out.update(push_costs(cast, batches))
    print(json.dumps(out))


def push_costs(cast: dict, batches: int) -> dict:
    """(issue 25; a checkout without campaigns.push has none) CPU to draw one HP change for the pages open on it:
    the character's sheet open by its owner, the GM and the other five players, and the GM's and a player's
    table pages; and for one open sheet alone. Drawn afresh each time (a change is a new version: nothing kept
    helps)."""
    try:
        from campaigns.push import render_push
    except ImportError:
        return {}
    from django.contrib.auth import get_user_model
    from django.core.cache import cache

    users = {u.username: u.pk for u in get_user_model().objects.filter(username__startswith="pages-")}
    c, table = cast["character"], cast["campaign"]
    sheet = f"sheet-{c}"
    everyone = [(pk, sheet) for name, pk in users.items()] + [(users["pages-gm"], "table"), (users["pages-0"], "table")]
    try:  # a checkout with the journal draws typed events; an older one, untyped parts
        from live.events import SheetChanged

        parts: list = [SheetChanged(character=c, regions=("vitals", "details"))]
    except ImportError:
        parts = [["character", c, ["vitals", "details"]]]
    out = {}
    for name, wanted in (
        ("push: HP change, 7 sheets + 2 table pages", everyone),
        ("push: HP change, 1 sheet", [(users["pages-1"], sheet)]),
    ):
        best = float("inf")
        for _ in range(batches):
            started = time.process_time()
            for _ in range(BATCH):
                cache.clear()
                render_push(table, parts, wanted)
            best = min(best, (time.process_time() - started) / BATCH * 1000)
        out[name] = {"cpu_ms": best, "queries": 0, "bytes": 0}
    return out


def run_child(tree: Path, cast: dict, batches: int, profile: str = "", reconnect: bool = False) -> dict:
    env = {**production_env(SQLITE_NAME=str(SQLITE_FILE)), "SECURE_SSL_REDIRECT": "0"}
    env.update(ROLLS_PER_MINUTE="1000000000", API_CALLS_PER_MINUTE="1000000000")  # no rate cap in the way
    command = [sys.executable, __file__, "--child", str(tree), "--cast", json.dumps(cast), "--batches", str(batches)]
    if reconnect:
        command.append("--reconnect")
    if profile:
        command += ["--profile", profile]
        subprocess.run(command, env=env, check=True, timeout=600)
        return {}
    return measured_in_child(command, env, tree, timeout=600)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", help="another checkout, measured in turn with this one")
    parser.add_argument("--rounds", type=int, default=4, help="rounds per checkout, taken in turn")
    parser.add_argument("--batches", type=int, default=3, help="batches of 10 requests per page and round")
    parser.add_argument("--profile", help="print cProfile's top functions for this path (this checkout)")
    parser.add_argument(
        "--reconnect", action="store_true", help="close the database connections after each request, as a server does"
    )
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--cast", help=argparse.SUPPRESS)
    parser.add_argument("--make-rolls", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.make_rolls:
        make_rolls(json.loads(args.cast))
        return
    if args.child:
        child(Path(args.child), json.loads(args.cast), args.batches, args.profile or "", args.reconnect)
        return
    trees = [("before", Path(args.baseline).resolve())] if args.baseline else []
    trees.append(("now", ROOT))
    cast = prepare_database("sqlite", {tree for _, tree in trees})
    env = {**production_env(SQLITE_NAME=str(SQLITE_FILE)), "SECURE_SSL_REDIRECT": "0"}
    command = [sys.executable, __file__, "--make-rolls", "--cast", json.dumps(cast)]
    subprocess.run(command, env=env, check=True, timeout=300)
    if args.profile:
        run_child(ROOT, cast, args.batches, args.profile)
        return
    best: dict[str, dict[str, dict]] = {label: {} for label, _ in trees}
    for _ in range(args.rounds):
        for label, tree in trees:
            for name, figures in run_child(tree, cast, args.batches, reconnect=args.reconnect).items():
                kept = best[label].get(name)
                if kept is None or figures["cpu_ms"] < kept["cpu_ms"]:
                    best[label][name] = figures
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(
        f"\ncommit {commit.stdout.strip()}{f' against {args.baseline}' if args.baseline else ''}, in-process, "
        f"SQLite{', connections closed after each request' if args.reconnect else ''}, "
        f"load average {os.getloadavg()[0]:.1f}, lowest of {args.rounds}×{args.batches} batches of {BATCH}\n"
    )
    print("| page | " + " | ".join(f"{label} CPU ms | queries | bytes" for label, _ in trees) + " |")
    print("|---|" + "---:|---:|---:|" * len(trees))
    for name in best["now"]:
        cells = " | ".join(
            f"{best[label][name]['cpu_ms']:.1f} | {best[label][name]['queries']} | {best[label][name]['bytes']:,}"
            for label, _ in trees
            if name in best[label]
        )
        print(f"| {name} | {cells} |")


if __name__ == "__main__":
    main()
