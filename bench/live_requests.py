"""How many HTTP requests, and how many bytes, one change costs each kind of open page, in a real browser.

Run: .venv/bin/python bench/live_requests.py [--tree DIR] [--system fell-draft] [--repeat 3]
(or `make bench-live`). Needs Debian's chromium (apt-get install chromium) and nothing else. It serves the
checkout ``--tree`` (default: this one; an old one works too, e.g. ``git archive 4480856 | tar -x -C
/tmp/base4480856``): a throwaway SQLite database in a temporary directory, migrated and filled by that
checkout's own code (a GM, two players, a campaign, each player's character; sessions written directly), and
its ASGI server (uvicorn, as `make run`).

Chromium (Playwright), each page in a browser context of its own, opens:
  - the owner's sheet that makes the changes (through its own forms: a click, as a player would),
  - a second copy of the owner's sheet, the GM's view of that sheet, the other player's view of it,
  - the GM's table page and the other player's table page,
and waits until every page is quiet. Changes, each ``--repeat`` times (the median is reported): an HP
change (the track's −/+ buttons, alternately), a public roll, a GM-only roll (the roll form's "Who sees this
roll"), an item added (the sheet's "Add your own item" form). The HP change presses the −/+ button of
``--track`` (default: the sheet's first), ``--delta`` first and then back, so the track stays in bounds.

Per page and change it counts the HTTP requests the page makes (the event stream's own GET excepted; the
changing page's POST included), the bytes those requests received (CDP Network.loadingFinished), and the
messages and bytes that reached the page over the event stream (CDP Network.eventSourceMessageReceived).
A change is over when no page has made a request or received a message for a second. Measured from the
outside only: the forms are found by their URLs (``…/adjust/``, ``…/roll/…``, ``…/items/``), nothing else of
the markup is assumed, so the same script compares the baseline with whatever the live path becomes.

Targets (issue 25): every other open page 0 requests per change; the changing page its POST only.
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
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
QUIET = 1.0  # seconds without a request or a stream message that count as "done"
LONGEST = 15.0  # the most any change may take to settle
STREAM = "/events/"
CHANGES = ("HP change", "roll (public)", "roll (GM only)", "item added")


def _env(db_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME", "DJANGO_SETTINGS_MODULE"}}
    env.update(SQLITE_NAME=str(db_path), DEBUG="1", LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
    return env


def prepare_child(system: str) -> None:
    """(child process, cwd = the tree under test) Fill the migrated database; print the ids and sessions."""
    sys.path.insert(0, os.getcwd())  # the tree's own code, not this checkout's
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import random
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY, get_user_model

    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore  # noqa: N806 - the checkout's own store

    from campaigns.models import Membership
    from campaigns.services import campaign_create
    from characters.services import character_create

    def session(user) -> str:
        store = SessionStore()
        store[SESSION_KEY] = str(user.pk)
        store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
        store[HASH_SESSION_KEY] = user.get_session_auth_hash()
        store.create()
        assert store.session_key is not None  # create() saved it
        return store.session_key

    users = {name: get_user_model().objects.create_user(name) for name in ("gm", "ana", "bo")}
    campaign = campaign_create(name="Bench table", system=system, gm=users["gm"])
    for name in ("ana", "bo"):
        Membership.objects.create(campaign=campaign, user=users[name])
    hero, _ = character_create(
        owner=users["ana"], system=system, choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    character_create(owner=users["bo"], system=system, choices={"name": "Ash"}, campaign=campaign, rng=random.Random(8))
    sessions = {name: session(user) for name, user in users.items()}
    print(json.dumps({"campaign": campaign.pk, "hero": hero.pk, "sessions": sessions}))


def prepare(tree: Path, env: dict[str, str], system: str) -> dict:
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=tree, env=env, check=True)
    done = subprocess.run(
        [sys.executable, __file__, "--prepare", "--system", system],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=300,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def start_server(tree: Path, env: dict[str, str], log: Path) -> tuple[subprocess.Popen, str]:
    sys.path.insert(0, str(ROOT))
    from bench.common import HOST, free_port
    from bench.common import start_server as start

    port = free_port()
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", HOST, "--port", str(port)]
    command += ["--timeout-graceful-shutdown", "2", "--no-access-log"]
    # Both cores: the browser and the server share the machine; this counts requests, it does not time them.
    return start(command, cwd=tree, env=env, port=port, log=log, cores="0-1"), f"http://{HOST}:{port}"


@dataclass
class Watched:
    """One open page: the requests it makes (the stream's own excepted), their bytes, the stream's messages."""

    label: str
    page: object
    requests: list[tuple[float, str, str]] = field(default_factory=list)  # (when, method, url)
    fetched: dict[str, int] = field(default_factory=dict)  # CDP request id → encoded bytes received
    ids: set[str] = field(default_factory=set)
    messages: list[tuple[float, str, int]] = field(default_factory=list)  # (when, event name, bytes)
    refused: list[str] = field(default_factory=list)  # "status URL" of answers ≥ 400: a change that did not happen

    def clear(self) -> None:
        self.requests.clear()
        self.fetched.clear()
        self.ids.clear()
        self.messages.clear()
        self.refused.clear()

    def last_activity(self) -> float:
        return max([t for t, *_ in self.requests] + [t for t, *_ in self.messages], default=0.0)


def watch(context, page, label: str) -> Watched:
    watched = Watched(label, page)
    cdp = context.new_cdp_session(page)

    def sent(event: dict) -> None:
        request = event["request"]
        if STREAM not in request["url"]:
            watched.ids.add(event["requestId"])
            watched.requests.append((time.monotonic(), request["method"], request["url"]))

    def answered(event: dict) -> None:
        if event["requestId"] in watched.ids and event["response"]["status"] >= 400:
            watched.refused.append(f"{event['response']['status']} {event['response']['url']}")

    def finished(event: dict) -> None:
        if event["requestId"] in watched.ids:
            watched.fetched[event["requestId"]] = int(event.get("encodedDataLength", 0))

    def message(event: dict) -> None:
        watched.messages.append((time.monotonic(), event.get("eventName", ""), len(event["data"].encode())))

    cdp.on("Network.requestWillBeSent", sent)
    cdp.on("Network.responseReceived", answered)
    cdp.on("Network.loadingFinished", finished)
    cdp.on("Network.eventSourceMessageReceived", message)
    cdp.send("Network.enable")
    return watched


def settle(watched: list[Watched], since: float) -> None:
    """Until no page has made a request or received a stream message for QUIET seconds (LONGEST at most)."""
    deadline = since + LONGEST
    while time.monotonic() < deadline:
        for w in watched:
            w.page.wait_for_timeout(50)  # type: ignore[attr-defined] # lets Playwright deliver the events
        if time.monotonic() - max([since] + [w.last_activity() for w in watched]) >= QUIET:
            return


def open_page(browser, base: str, session: str, url: str, label: str) -> Watched:
    context = browser.new_context(base_url=base)
    context.set_default_timeout(15_000)
    context.add_cookies([{"name": "sessionid", "value": session, "url": base}])
    page = context.new_page()
    watched = watch(context, page, label)
    page.goto(url)
    return watched


def ready(page, name: str, n: int, args):
    """Fill in change ``name``'s form on the changing page (before counting: choosing a roll's audience
    refreshes its odds, which is the choosing's cost, not the change's); return the button that makes it."""
    if name == "HP change":  # --delta, then back: the track stays within its bounds
        form = page.locator('form[action$="/adjust/"]:has(button[name="delta"])')
        if args.track:
            form = form.filter(has=page.locator(f'input[name="key"][value="{args.track}"]'))
        delta = args.delta if n % 2 == 0 else -args.delta
        return form.first.locator(f'button[name="delta"][value="{delta}"]')
    if name.startswith("roll"):
        form = page.locator('form[action*="/roll/"]:has(select[name="visibility"])').first
        form.locator('select[name="visibility"]').select_option("gm" if "GM" in name else "public")
        return form.locator('button[type="submit"]').first
    if name == "item added":
        form = page.locator('form[action$="/items/"]').first
        if not form.is_visible():
            form.locator("xpath=ancestor::details[1]/summary").click()  # "Add your own item" opens
        form.locator('input[name="name"]').fill(f"Rope {n}")
        return form.locator('button[type="submit"]').first
    raise ValueError(name)


@dataclass
class Figures:
    requests: list[int] = field(default_factory=list)
    fetched: list[int] = field(default_factory=list)
    messages: list[int] = field(default_factory=list)
    stream_bytes: list[int] = field(default_factory=list)
    urls: set[str] = field(default_factory=set)

    def median(self) -> dict:
        return {
            "requests": statistics.median(self.requests),
            "fetched": statistics.median(self.fetched),
            "messages": statistics.median(self.messages),
            "stream_bytes": statistics.median(self.stream_bytes),
            "urls": sorted(self.urls),
        }


def run(args) -> dict:
    from playwright.sync_api import sync_playwright

    tree = Path(args.tree).resolve()
    tmp = Path(tempfile.mkdtemp(prefix="lantern-live-bench-"))
    env = _env(tmp / "bench.sqlite3")
    cast = prepare(tree, env, args.system)
    server, base = start_server(tree, env, tmp / "server.log")
    sheet, table = f"/characters/{cast['hero']}/", f"/campaigns/{cast['campaign']}/"
    s = cast["sessions"]
    pages = [  # (label, user, url); the first makes the changes
        ("owner's sheet (changing)", s["ana"], sheet),
        ("owner's sheet (another copy)", s["ana"], sheet),
        ("GM's view of the sheet", s["gm"], sheet),
        ("other player's view of the sheet", s["bo"], sheet),
        ("GM's table page", s["gm"], table),
        ("player's table page", s["bo"], table),
    ]
    results: dict = {"tree": str(tree), "system": args.system, "repeat": args.repeat, "changes": {}}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
            results["chromium"] = browser.version
            watched = [open_page(browser, base, session, url, label) for label, session, url in pages]
            changing = watched[0]
            settle(watched, time.monotonic())
            for name in args.changes:
                figures = {w.label: Figures() for w in watched}
                for n in range(args.repeat):
                    button = ready(changing.page, name, n, args)
                    settle(watched, time.monotonic())
                    for w in watched:
                        w.clear()
                    start = time.monotonic()
                    button.click()
                    settle(watched, start)
                    if refused := [r for w in watched for r in w.refused]:
                        raise SystemExit(f"{name}: refused: {', '.join(refused)}")
                    for w in watched:
                        f = figures[w.label]
                        f.requests.append(len(w.requests))
                        f.fetched.append(sum(w.fetched.values()))
                        f.messages.append(len(w.messages))
                        f.stream_bytes.append(sum(b for *_, b in w.messages))
                        f.urls.update(f"{m} {url.removeprefix(base).split('?')[0]}" for _, m, url in w.requests)
                results["changes"][name] = {label: f.median() for label, f in figures.items()}
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    return results


def report(results: dict) -> str:
    changes = list(results["changes"])
    labels = list(results["changes"][changes[0]]) if changes else []
    head = "| page | " + " | ".join(changes) + " |"
    rule = "|---|" + "---:|" * len(changes)

    def table(title: str, cell) -> list[str]:
        rows = [
            f"| {label} | " + " | ".join(cell(results["changes"][c][label]) for c in changes) + " |" for label in labels
        ]
        return ["", title, "", head, rule, *rows]

    lines = [
        f"tree {results['tree']}, system {results['system']}, chromium {results.get('chromium', '?')}, "
        f"median of {results['repeat']} changes each",
        *table(
            "HTTP requests per change (the event stream's own GET excepted; the changing page's POST counted):",
            lambda f: f"{f['requests']:g}",
        ),
        *table(
            "Bytes received per change: by those requests + over the event stream (messages):",
            lambda f: f"{f['fetched']:,.0f} + {f['stream_bytes']:,.0f} ({f['messages']:g})",
        ),
        "",
        "Requests seen (any repeat):",
    ]
    for c in changes:
        for label in labels:
            if urls := results["changes"][c][label]["urls"]:
                lines.append(f"- {c}, {label}: {', '.join(urls)}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prepare", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", default=str(ROOT), help="the checkout to serve (default: this one)")
    parser.add_argument("--system", default="fell-draft")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--track", default="", help="the track the HP change moves (default: the sheet's first)")
    parser.add_argument("--delta", type=int, choices=(-1, 1), default=-1, help="the HP change's first step")
    parser.add_argument("--changes", default=",".join(CHANGES), help=f"comma-separated, of: {', '.join(CHANGES)}")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args()
    if args.prepare:
        prepare_child(args.system)
        return
    args.changes = [c.strip() for c in args.changes.split(",")]
    if unknown := set(args.changes) - set(CHANGES):
        parser.error(f"unknown changes: {', '.join(sorted(unknown))}")
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"Chromium not found at {CHROMIUM}: apt-get install chromium (or set CHROMIUM)")
    results = run(args)
    print(report(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
