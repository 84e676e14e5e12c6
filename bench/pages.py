"""Page and write throughput: req/s, p50/p99 and server CPU per request, on SQLite and PostgreSQL.

Run: .venv/bin/python bench/pages.py   (or `make bench`). For each database it makes a table of its own
(SQLite: a throwaway file; PostgreSQL: the database ``$BENCH_DB``, default ``lantern_bench``, on DATABASE_URL's
server or 127.0.0.1:5432 user postgres): a GM, 6 players, one Fell campaign, 6 characters of 8 items each,
sessions written directly. It starts the production server (``--server uvicorn``: one uvicorn worker, the
way `make run` serves; ``--server gunicorn``: gunicorn, one worker with threads, WSGI) with ``DEBUG=0``,
pinned to core 0 with taskset; this load generator runs on core 1: keep-alive connections of its own
(raw asyncio sockets, the cheapest client, so the load generator never is the limit).

For each endpoint: one warm-up second, then ``--rounds`` rounds of ``--seconds`` (and at most
``--max-requests``) each; the round with the median req/s is reported. **Server CPU per request** is the
server processes' utime + stime (``/proc/<pid>/stat``, every process of the server's tree) over the round,
divided by the requests answered: steadier than req/s on a shared machine. Every loop is bounded in count
and time, and everything stays on 127.0.0.1.

Every server runs with bench/layer's settings over its checkout's own (DJANGO_SETTINGS_MODULE, PYTHONPATH):
the app's URLs plus two bare views through the same middleware, ``/bench/bare/`` (touches nothing) and
``/bench/bare-user/`` (reads the session's user), so an old checkout gets them too. A last table gives, per
checkout, the sheet's CPU per request over the login page's and the bare views' in the same run.

Issue 25's side-by-side run (one run, rounds in turn, this checkout against an export of 4480856):
  git archive 4480856 | tar -x -C /tmp/base4480856
  .venv/bin/python bench/pages.py --db sqlite --baseline /tmp/base4480856 --seconds 2 --rounds 3 \\
      --only "sheet page (owner)" --only login --only bare --only "HP change"
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

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

BENCH_DB = os.environ.get("BENCH_DB", "lantern_bench")
SQLITE_FILE = Path(tempfile.gettempdir()) / f"lantern-bench-pages-{os.getuid()}.sqlite3"
SERVER_LOG = Path(tempfile.gettempdir()) / "lantern-pages-server.log"
# Settings layered over any checkout's own: its URLs plus a bare view (bench/layer/bench_bare_urls.py).
LAYER = ROOT / "bench" / "layer"
DEADLINE = 60.0  # seconds any single response may take (8 queued sheets on a busy machine) before giving up
CLK_TCK = os.sysconf("SC_CLK_TCK")
PLAYERS = 6
ITEMS = 8


def server_env(db: str, copy: int = 0, *, layered: bool = False) -> dict[str, str]:
    """``copy``: SQLite serves one process per file, so each server after the first gets a copy of it.
    ``layered``: the bench's settings over the checkout's own, which add the bare views."""
    env = (
        production_env(DATABASE_URL=database_url(BENCH_DB))
        if db == "postgres"
        else production_env(SQLITE_NAME=str(sqlite_file(copy)))
    )
    # The roll POST and the API read are measured hundreds of times a second: no rate cap in the way.
    env.update(ROLLS_PER_MINUTE="1000000000", API_CALLS_PER_MINUTE="1000000000")
    if layered:
        env.update(
            DJANGO_SETTINGS_MODULE="bench_bare_settings",
            PYTHONPATH=os.pathsep.join(filter(None, [str(LAYER), env.get("PYTHONPATH", "")])),
        )
    return env


def sqlite_file(copy: int) -> Path:
    return SQLITE_FILE.with_suffix(f".{copy}.sqlite3") if copy else SQLITE_FILE


def copy_sqlite(copies: int) -> None:
    import sqlite3

    with sqlite3.connect(SQLITE_FILE) as source:
        for n in range(1, copies):
            sqlite_file(n).unlink(missing_ok=True)
            with sqlite3.connect(sqlite_file(n)) as target:
                source.backup(target)


def prepare_database(db: str, trees: set[Path]) -> dict:
    """A fresh database with the cast; returns the ids and session cookies (made in a child process).
    Each checkout collects its own static files (DEBUG=0 reads their manifest)."""
    if db == "postgres":
        create_database(BENCH_DB)
    else:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{SQLITE_FILE}{suffix}").unlink(missing_ok=True)
    env = server_env(db)
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True, timeout=300
    )
    for tree in trees:
        collect = [sys.executable, "manage.py", "collectstatic", "--noinput", "-v", "0"]
        subprocess.run(collect, cwd=tree, env=env, check=True, timeout=300)
    out = subprocess.run(
        [sys.executable, __file__, "--make-cast"], cwd=ROOT, env=env, check=True, timeout=300, capture_output=True
    )
    return json.loads(out.stdout.decode().strip().splitlines()[-1])


def make_cast() -> None:
    """(child process, the bench database's settings) Users, a campaign, characters, sessions: prints JSON."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import random

    from django.contrib.auth import get_user_model
    from django.db import transaction
    from django.middleware.csrf import _get_new_csrf_string

    from accounts.tokens import token_create
    from campaigns.models import Campaign, Membership
    from characters import services
    from rules.base import Item

    user_model = get_user_model()

    with transaction.atomic():
        Campaign.objects.filter(name="Pages bench").delete()
        user_model.objects.filter(username__startswith="pages-").delete()
        gm = user_model.objects.create_user("pages-gm")
        campaign = Campaign.objects.create(name="Pages bench", system="fell-draft")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        characters = []
        for n in range(PLAYERS):
            player = user_model.objects.create_user(f"pages-{n}")
            Membership.objects.create(campaign=campaign, user=player)
            character, _ = services.character_create(
                owner=player,
                system="fell-draft",
                choices={"name": f"Bench {n}"},
                campaign=campaign,
                rng=random.Random(n),
            )
            for i in range(ITEMS - character.items.count()):
                services.item_add(character_id=character.pk, item=Item(name=f"Trinket {i}", slots=0), by=player)
            characters.append((character, player))
    character, owner = characters[0]
    token = token_create(user=owner, name="Pages bench", scope="read").secret
    print(
        json.dumps(
            {
                "campaign": campaign.pk,
                "character": character.pk,
                "owner": session_for(owner),
                "gm": session_for(gm),
                "csrf": _get_new_csrf_string(),
                "token": token,
            }
        )
    )


# --- the load generator --------------------------------------------------------------------------------


@dataclass
class Endpoint:
    name: str
    path: str
    cookie: str = ""
    body: bytes = b""  # a POST when set; ends with one of ``values`` in turn per connection
    htmx: bool = False
    values: tuple[bytes, bytes] = (b"-1", b"1")  # the HP change's −1 then +1: it stays within the track's bounds
    headers: tuple[str, ...] = ()
    raw_cookie: str = ""  # another server's cookie header as is (Kettlewright's session)


@dataclass
class Round:
    requests: int = 0
    latencies: list[float] = field(default_factory=list)
    statuses: dict[int, int] = field(default_factory=dict)
    bytes: int = 0
    cpu: float = 0.0  # server seconds
    wall: float = 0.0


def endpoints(cast: dict) -> list[Endpoint]:
    c, owner, gm = cast["character"], cast["owner"], cast["gm"]
    return [
        Endpoint("sheet page (owner)", f"/characters/{c}/", owner),
        # As a browser asks for it: gzipped on the wire (core.compress); its CPU over the plain one's is the cost.
        Endpoint("sheet page (owner, gzip)", f"/characters/{c}/", owner, headers=("Accept-Encoding: gzip",)),
        Endpoint("sheet page (owner, br)", f"/characters/{c}/", owner, headers=("Accept-Encoding: gzip, deflate, br",)),
        Endpoint("sheet page (GM)", f"/characters/{c}/", gm),
        Endpoint("region: vitals", f"/characters/{c}/region/vitals/", owner, htmx=True),
        Endpoint("region: details", f"/characters/{c}/region/details/", owner, htmx=True),
        Endpoint("table page (GM)", f"/campaigns/{cast['campaign']}/", gm),
        Endpoint("HP change (POST, htmx)", f"/characters/{c}/adjust/", owner, body=b"key=hp&delta=", htmx=True),
        # A Fell test, as the sheet's roll panel POSTs it (its answer carries the log).
        Endpoint(
            "roll (POST, htmx)",
            f"/characters/{c}/roll/test/",
            owner,
            body=b"visibility=",
            htmx=True,
            values=(b"public", b"public"),
        ),
        Endpoint("API character read", f"/api/characters/{c}", headers=(f"Authorization: Bearer {cast['token']}",)),
        Endpoint("login page", "/accounts/login/"),
        Endpoint("bare Django view (no middleware)", "/bench/django/"),
        Endpoint("bare view", "/bench/bare/"),
        Endpoint("bare view (logged in)", "/bench/bare-user/", owner),
    ]


SHEET, SAVE = "sheet page (owner)", "HP change (POST, htmx)"


def kettlewright_endpoints() -> dict[str, Endpoint]:
    """``KETTLEWRIGHT_URL``: a running Kettlewright's character page (``…/users/<user>/characters/<name>/``),
    measured beside the sheet; its save (``KETTLEWRIGHT_SAVE``, default ``/charedit/<user>/<name>/save``, the
    form in ``KETTLEWRIGHT_SAVE_BODY`` ending in ``hp=``, HP 4 and 5 in turn) beside the HP change; its session
    cookie header in ``KETTLEWRIGHT_COOKIE``. docs/performance.md says how it was set up by hand."""
    url = os.environ.get("KETTLEWRIGHT_URL")
    if not url:
        return {}
    parts = urlsplit(url)
    user, name = [p for p in parts.path.split("/") if p][1::2][:2]
    save = os.environ.get("KETTLEWRIGHT_SAVE", f"/charedit/{user}/{name}/save")
    body = os.environ.get(
        "KETTLEWRIGHT_SAVE_BODY",
        f"name={name}&strength=12&strength_max=12&dexterity=11&dexterity_max=11&willpower=10&willpower_max=10"
        "&hp_max=5&gold=10&description=d&traits=t&bonds=b&omens=o&scars=&notes=n&party_code=&hp=",
    ).encode()
    cookie = os.environ.get("KETTLEWRIGHT_COOKIE", "")
    return {
        SHEET: Endpoint(SHEET, parts.path, raw_cookie=cookie),
        SAVE: Endpoint(SAVE, save, raw_cookie=cookie, body=body, htmx=True, values=(b"4", b"5")),
    }


def listening_pid(port: int) -> int:
    """The lowest pid holding the socket that listens on ``port`` (a gunicorn master: its workers hold it too)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if int(fields[1].rsplit(":", 1)[1], 16) == port and fields[3] == "0A":  # 0A: LISTEN
                inodes.add(f"socket:[{fields[9]}]")
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if any(os.readlink(fd) in inodes for fd in (entry / "fd").iterdir()):
                    pids.append(int(entry.name))
            except OSError:
                continue
    if not pids:
        sys.exit(f"nothing of yours listens on port {port}: set KETTLEWRIGHT_PID")
    return min(pids)


def request_bytes(endpoint: Endpoint, csrf: str, sign: int) -> bytes:
    cookies = f"sessionid={endpoint.cookie}; csrftoken={csrf}" if endpoint.cookie else endpoint.raw_cookie
    head = [f"Host: {HOST}", *endpoint.headers]
    if cookies:
        head.append(f"Cookie: {cookies}")
    if endpoint.htmx:
        head.append("HX-Request: true")
    if endpoint.body:
        body = endpoint.body + endpoint.values[sign > 0]
        head += [
            f"X-CSRFToken: {csrf}",
            "Content-Type: application/x-www-form-urlencoded",
            f"Content-Length: {len(body)}",
        ]
        return f"POST {endpoint.path} HTTP/1.1\r\n{lines(head)}\r\n".encode() + body
    return f"GET {endpoint.path} HTTP/1.1\r\n{lines(head)}\r\n".encode()


def lines(head: list[str]) -> str:
    return "".join(f"{h}\r\n" for h in head)


async def read_response(reader: asyncio.StreamReader) -> tuple[int, int]:
    """(status, body bytes) of one HTTP/1.1 response, Content-Length or chunked."""
    head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), DEADLINE)
    lines = head.split(b"\r\n")
    status = int(lines[0].split()[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines[1:] if line)}
    if b"content-length" in headers:
        length = int(headers[b"content-length"])
        await asyncio.wait_for(reader.readexactly(length), DEADLINE)
        return status, length
    total = 0
    while True:  # chunked
        size = int((await asyncio.wait_for(reader.readuntil(b"\r\n"), DEADLINE)).strip(), 16)
        await asyncio.wait_for(reader.readexactly(size + 2), DEADLINE)
        total += size
        if size == 0:
            return status, total


def server_cpu(root: int) -> float:
    """utime + stime (seconds) of the server process and all its descendants (gunicorn's workers)."""
    total = 0
    for pid in process_tree(root):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
    return total / CLK_TCK


async def run_round(
    port: int, endpoint: Endpoint, csrf: str, pid: int, connections: int, seconds: float, cap: int
) -> Round:
    result = Round()
    stop = time.perf_counter() + seconds

    async def worker(n: int) -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        sign = -1
        try:
            while time.perf_counter() < stop and result.requests < cap:
                started = time.perf_counter()
                writer.write(request_bytes(endpoint, csrf, sign))
                status, size = await read_response(reader)
                result.latencies.append(time.perf_counter() - started)
                result.statuses[status] = result.statuses.get(status, 0) + 1
                result.bytes += size
                result.requests += 1
                sign = -sign  # HP −1 then +1: each connection stays within the track's bounds
        finally:
            writer.close()

    cpu_before = server_cpu(pid)
    started = time.perf_counter()
    await asyncio.gather(*(worker(n) for n in range(connections)))
    result.wall = time.perf_counter() - started
    result.cpu = server_cpu(pid) - cpu_before
    return result


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


@dataclass
class Contender:
    """One server under test: a checkout (this one, or a ``--baseline``'s) served by uvicorn or gunicorn, or a
    running Kettlewright (``external``: the endpoints it has, by the name of Lantern's they stand beside)."""

    label: str
    tree: Path
    server: str
    port: int = 0
    process: subprocess.Popen | None = None
    pid: int = 0
    external: dict[str, Endpoint] | None = None

    def endpoint(self, endpoint: Endpoint) -> Endpoint | None:
        return endpoint if self.external is None else self.external.get(endpoint.name)


def summary(endpoint: Endpoint, contender: Contender, rounds: list[Round]) -> dict:
    median = sorted(rounds, key=lambda r: r.requests / r.wall)[len(rounds) // 2]
    return {
        "endpoint": endpoint.name,
        "contender": contender.label,
        "rps": median.requests / median.wall,
        "p50": 1000 * statistics.median(median.latencies),
        "p99": 1000 * percentile(median.latencies, 0.99),
        "cpu_ms": 1000 * statistics.median(r.cpu / r.requests for r in rounds),
        "cpu_range": [1000 * f(r.cpu / r.requests for r in rounds) for f in (min, max)],
        "bytes": median.bytes / median.requests,
        "statuses": median.statuses,
    }


async def answers(contender: Contender, endpoint: Endpoint, csrf: str) -> bool:
    """Whether this server answers the endpoint at all (an older checkout may not have its URL): one request."""
    reader, writer = await asyncio.open_connection(HOST, contender.port)
    try:
        writer.write(request_bytes(endpoint, csrf, -1))
        status, _ = await read_response(reader)
    finally:
        writer.close()
    return status < 300


async def measure_endpoint(endpoint: Endpoint, cast: dict, contenders: list[Contender], args) -> list[dict]:
    """Rounds taken in turn (A, B, A, B...): whatever else loads the machine weighs on every contender."""
    mine = {c.label: own for c in contenders if (own := c.endpoint(endpoint)) is not None}
    present = [c for c in contenders if c.label in mine and await answers(c, mine[c.label], cast["csrf"])]
    rounds: dict[str, list[Round]] = {c.label: [] for c in present}
    for contender in present:  # warm-up
        await run_round(
            contender.port, mine[contender.label], cast["csrf"], contender.pid, args.connections, 1.0, 10_000
        )
    for _ in range(args.rounds):
        for contender in present:
            rounds[contender.label].append(
                await run_round(
                    contender.port,
                    mine[contender.label],
                    cast["csrf"],
                    contender.pid,
                    args.connections,
                    args.seconds,
                    args.max_requests,
                )
            )
    return [summary(endpoint, c, rounds[c.label]) for c in present]


def start_server_process(db: str, contender: Contender, copy: int) -> subprocess.Popen:
    """The checkout's production server, with bench/layer's application in front (``/bench/django/``)."""
    port = contender.port
    if contender.server == "gunicorn":
        command = [sys.executable, "-m", "gunicorn", "bench_bare_wsgi:application", "-b", f"{HOST}:{port}"]
        command += ["--workers", "1", "--threads", "8", "--keep-alive", "30", "--no-control-socket"]
    else:
        command = [sys.executable, "-m", "uvicorn", "bench_bare_asgi:application", "--host", HOST, "--port", str(port)]
        command += ["--workers", "1", "--timeout-graceful-shutdown", "5", "--no-access-log"]
        command += shlex.split(os.environ.get("UVICORN_ARGS", ""))  # e.g. "--loop asyncio --http h11"
    log = SERVER_LOG.with_suffix(f".{contender.label.replace(' ', '-')}.log")
    return start_server(command, cwd=contender.tree, env=server_env(db, copy, layered=True), port=port, log=log)


def contenders_of(args) -> list[Contender]:
    baselines = args.baseline or []
    trees = [
        (f"before {Path(tree).name}" if len(baselines) > 1 else "before", Path(tree).resolve()) for tree in baselines
    ]
    trees.append(("now", ROOT))
    servers = args.server.split(",")
    return [
        Contender(f"{label} {server}" if len(servers) > 1 or baselines else label, tree, server)
        for label, tree in trees
        for server in servers
    ]


def kettlewright() -> Contender | None:
    external = kettlewright_endpoints()
    if not external:
        return None
    port = urlsplit(os.environ["KETTLEWRIGHT_URL"]).port or 80
    pid = int(os.environ.get("KETTLEWRIGHT_PID") or listening_pid(port))
    return Contender("Kettlewright", Path("."), "gunicorn+eventlet", port=port, pid=pid, external=external)


def bench_database(db: str, args) -> list[list[dict]]:
    """Every endpoint measured ``--repeat`` times over (the servers stay up): one list of rows per repetition."""
    contenders = contenders_of(args)
    cast = prepare_database(db, {c.tree for c in contenders})
    if db == "sqlite":
        copy_sqlite(len(contenders))
    outside = kettlewright()
    try:
        for n, contender in enumerate(contenders):
            contender.port = free_port()
            contender.process = start_server_process(db, contender, n)
            contender.pid = contender.process.pid
        wanted = [e for e in endpoints(cast) if not args.only or any(word in e.name for word in args.only)]
        everyone = [*contenders, outside] if outside else contenders
        return [
            [row for e in wanted for row in asyncio.run(measure_endpoint(e, cast, everyone, args))]
            for _ in range(args.repeat)
        ]
    finally:
        for contender in contenders:
            if contender.process is not None:
                contender.process.terminate()
                contender.process.wait(timeout=15)


def report(results: dict[str, list[list[dict]]], args) -> None:
    """The endpoints' figures: with ``--repeat``, CPU per request as the median of the repetitions (min–max)."""
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True).stdout
    print(
        f"\ncommit {commit.stdout.strip()}{' + uncommitted changes' if dirty.strip() else ''}"
        f"{' against ' + ', '.join(args.baseline) if args.baseline else ''}, {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f}, {args.connections} keep-alive connections, "
        f"median of {args.rounds} rounds of {args.seconds:g} s, rounds taken in turn, {args.repeat} repetitions\n"
    )
    print(
        "| database | endpoint | server | req/s | p50 ms | p99 ms | server CPU ms/request (min–max) "
        "| bytes | statuses |"
    )
    print("|---|---|---|---:|---:|---:|---:|---:|---|")
    for db, reps in results.items():
        for row in reps[0]:
            same = [
                r for rep in reps for r in rep if (r["contender"], r["endpoint"]) == (row["contender"], row["endpoint"])
            ]
            cpu = [r["cpu_ms"] for r in same]
            r = sorted(same, key=lambda r: r["cpu_ms"])[len(same) // 2]
            statuses = ", ".join(f"{k}×{v}" for k, v in sorted(r["statuses"].items()))
            print(
                f"| {db} | {r['endpoint']} | {r['contender']} | {r['rps']:.1f} | {r['p50']:.1f} | {r['p99']:.1f} | "
                f"{statistics.median(cpu):.2f} ({min(cpu):.2f}–{max(cpu):.2f}) | {r['bytes']:,.0f} | {statuses} |"
            )


# (label, numerator, denominator): how far a page is above the floor the stack itself sets, per checkout.
RATIOS = [
    ("sheet / login", SHEET, "login page"),
    ("table (GM) / login", "table page (GM)", "login page"),
    ("roll POST / login", "roll (POST, htmx)", "login page"),
    ("HP change / login", SAVE, "login page"),
    ("API read / sheet", "API character read", SHEET),
    ("sheet gzipped / sheet", "sheet page (owner, gzip)", SHEET),
    ("sheet Brotli / sheet", "sheet page (owner, br)", SHEET),
    ("HP change / sheet", SAVE, SHEET),
    ("login / bare Django", "login page", "bare Django view (no middleware)"),
    ("middleware + empty view / bare Django", "bare view", "bare Django view (no middleware)"),
    ("sheet / bare (logged in)", SHEET, "bare view (logged in)"),
]
# Lantern's endpoint over Kettlewright's counterpart, in the same run.
AGAINST_KETTLEWRIGHT = [("sheet / Kettlewright's sheet", SHEET), ("HP change / Kettlewright's save", SAVE)]


def spread(values: list[float]) -> str:
    return f"{min(values):.2f} / {statistics.median(values):.2f} / {max(values):.2f}"


def report_ratios(results: dict[str, list[list[dict]]]) -> None:
    """Per database and checkout, CPU per request of one endpoint over another's in the same run (each
    repetition its own ratio): min / median / max over the repetitions."""
    lines = []
    for db, reps in results.items():
        bys = [{(r["contender"], r["endpoint"]): r["cpu_ms"] for r in rep} for rep in reps]
        contenders = [c for c in dict.fromkeys(r["contender"] for r in reps[0]) if c != "Kettlewright"]
        for contender in contenders:
            pairs = [(label, (contender, top), (contender, bottom)) for label, top, bottom in RATIOS]
            pairs += [(label, (contender, name), ("Kettlewright", name)) for label, name in AGAINST_KETTLEWRIGHT]
            for label, top, bottom in pairs:
                ratios = [by[top] / by[bottom] for by in bys if top in by and bottom in by]
                if ratios:
                    cpu = f"{statistics.median(by[top] for by in bys if top in by):.2f} / "
                    cpu += f"{statistics.median(by[bottom] for by in bys if bottom in by):.2f}"
                    lines.append(f"| {db} | {contender} | {label} | {spread(ratios)} | {cpu} |")
    if lines:
        print("\n| database | server | ratio | CPU per request, min / median / max | CPU ms (medians) |")
        print("|---|---|---|---:|---:|")
        print("\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--make-cast", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--db", default="sqlite,postgres", help="comma-separated: sqlite, postgres")
    parser.add_argument("--server", default="uvicorn", help="uvicorn, gunicorn, or both: uvicorn,gunicorn")
    parser.add_argument(
        "--baseline",
        action="append",
        help="another checkout to serve side by side, e.g. `git worktree add --detach /tmp/before 41bbcef` "
        "(repeat it for more than one)",
    )
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=1, help="measure every endpoint this many times over")
    parser.add_argument("--max-requests", type=int, default=20_000)
    parser.add_argument("--only", action="append", help="measure only endpoints whose name holds this word")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if args.make_cast:
        make_cast()
        return
    if shutil.which("taskset"):
        os.sched_setaffinity(0, {1 % (os.cpu_count() or 1)})  # the load generator on core 1
    results = {db: bench_database(db, args) for db in args.db.split(",")}
    report(results, args)
    report_ratios(results)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
