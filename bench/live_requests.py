"""How many HTTP requests one change costs each open page of the live table, in a real browser.

Run: .venv/bin/python bench/live_requests.py [--system fell-draft] [--sheets 2] [--tables 2] [--repeat 3]
(or `make bench-live`). Needs Debian's chromium (apt-get install chromium) and nothing else: it makes a
throwaway SQLite database in a temporary directory, migrates it, creates a GM, two players, a campaign and
the players' characters through the app's own services, and starts the ASGI server (uvicorn, as `make run`).

Chromium (Playwright) then opens ``--sheets`` pages of character A's sheet (as its owner and as the GM, in
turn) and ``--tables`` table pages (as the GM and as the other player), each in its own browser context,
and waits until each is quiet. A separate logged-in context makes each change through the same endpoints
the page's forms use; every other page's requests are counted (the event stream itself is not) until all
pages have been quiet for a second. Scenarios: one HP change, one roll, one item added. The write's own
answer is measured too: its bytes and how many regions it carries.

Targets (issue 10): one HP change costs an open sheet at most 2 requests and an open table page at most 1.
Counting only: the script does not depend on region ids or markup beyond the forms' URLs.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ROPE = {"name": "Rope", "kind": "gear", "slots": "0", "quantity": "1"}
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
PASSWORD = "bench-light-42"
QUIET = 1.0  # seconds without a request that count as "done"
LONGEST = 10.0  # the most any scenario may take to settle


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _env(db_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME"}}
    env.update(SQLITE_NAME=str(db_path), DEBUG="1", LOG_LEVEL="WARNING", PYTHONUNBUFFERED="1")
    return env


def _prepare(env: dict[str, str], system: str) -> dict[str, int]:
    """Migrate and fill the throwaway database; the ids of what the pages open."""
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env, check=True)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()
    import random

    from django.contrib.auth import get_user_model

    from campaigns.models import Membership
    from campaigns.services import campaign_create
    from characters.services import character_create

    users = {name: get_user_model().objects.create_user(name, password=PASSWORD) for name in ("gm", "ana", "bo")}
    campaign = campaign_create(name="Bench table", system=system, gm=users["gm"])
    for name in ("ana", "bo"):
        Membership.objects.create(campaign=campaign, user=users[name])
    hero, _ = character_create(
        owner=users["ana"], system=system, choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    character_create(owner=users["bo"], system=system, choices={"name": "Ash"}, campaign=campaign, rng=random.Random(8))
    return {"campaign": campaign.pk, "hero": hero.pk}


def _start_server(env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("the app server did not start")


class Watched:
    """One open page and the requests it makes (the event stream excepted)."""

    def __init__(self, page, label: str):
        self.page, self.label = page, label
        self.requests: list[tuple[float, str]] = []
        page.on("request", self._seen)

    def _seen(self, request) -> None:
        if "/events/" not in request.url:
            self.requests.append((time.monotonic(), request.url))


def _log_in(browser, base: str, username: str):
    context = browser.new_context(base_url=base)
    context.set_default_timeout(10_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password:", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/campaigns/**")
    return context, page


def _settle(watched: list[Watched], since: float) -> None:
    """Until no page has made a request for QUIET seconds (at most LONGEST)."""
    deadline = since + LONGEST
    while time.monotonic() < deadline:
        for w in watched:
            w.page.wait_for_timeout(50)  # lets Playwright deliver the pages' events
        last = max([since] + [t for w in watched for t, _ in w.requests])
        if time.monotonic() - last >= QUIET:
            return


def _csrf(context) -> str:
    return next(c["value"] for c in context.cookies() if c["name"] == "csrftoken")


def run(args) -> dict:
    from playwright.sync_api import sync_playwright

    tmp = Path(tempfile.mkdtemp(prefix="lantern-live-bench-"))
    env = _env(tmp / "bench.sqlite3")
    ids = _prepare(env, args.system)
    server, base = _start_server(env)
    sheet_url, table_url = f"/characters/{ids['hero']}/", f"/campaigns/{ids['campaign']}/"
    results: dict = {"system": args.system, "sheets": args.sheets, "tables": args.tables, "scenarios": {}}
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"], headless=True)
            results["chromium"] = browser.version
            watched = []
            for n in range(args.sheets):
                _, page = _log_in(browser, base, "ana" if n % 2 == 0 else "gm")
                page.goto(sheet_url)
                watched.append(Watched(page, f"sheet {n + 1} ({'owner' if n % 2 == 0 else 'GM'})"))
            for n in range(args.tables):
                _, page = _log_in(browser, base, "gm" if n % 2 == 0 else "bo")
                page.goto(table_url)
                watched.append(Watched(page, f"table {n + 1} ({'GM' if n % 2 == 0 else 'player'})"))
            writer_context, writer = _log_in(browser, base, "ana")
            writer.goto(sheet_url)
            track = args.track or writer.locator("#vitals [data-track]").first.get_attribute("data-track") or "hp"
            procedure = writer.locator(".roll-control[data-procedure]").first.get_attribute("data-procedure")
            _settle(watched, time.monotonic())
            headers = {"X-CSRFToken": _csrf(writer_context), "HX-Request": "true", "Referer": base + sheet_url}
            scenarios = {
                "one HP change": (f"{sheet_url}adjust/", {"key": track, "delta": str(args.delta)}),
                "one roll": (f"{sheet_url}roll/{procedure}/", {"visibility": "public"}),
                "one item added": (
                    f"{sheet_url}items/",
                    {"name": "Rope", "kind": "gear", "slots": "0", "quantity": "1"},
                ),
            }
            for name, (url, form) in scenarios.items():
                per_page: dict[str, list[int]] = {w.label: [] for w in watched}
                answer = None
                for _ in range(args.repeat):
                    for w in watched:
                        w.requests.clear()
                    start = time.monotonic()
                    response = writer.request.post(url, form=form, headers=headers)
                    if not response.ok:
                        raise SystemExit(f"{name}: {response.status} {response.text()[:300]}")
                    body = response.text()
                    answer = {"bytes": len(body.encode()), "regions": 1 + body.count('hx-swap-oob="outerHTML"')}
                    _settle(watched, start)
                    for w in watched:
                        per_page[w.label].append(len(w.requests))
                results["scenarios"][name] = {
                    "per_page": {label: statistics.median(counts) for label, counts in per_page.items()},
                    "urls": {w.label: sorted({re.sub(r"\?.*", "", u) for _, u in w.requests}) for w in watched},
                    "answer": answer,
                }
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    return results


def report(results: dict) -> str:
    lines = [
        f"system {results['system']}, chromium {results.get('chromium', '?')}, "
        f"{results['sheets']} open sheets, {results['tables']} open table pages",
        "",
        "| change | per open sheet (each) | per open table page (each) | write answer: regions, bytes |",
        "|---|---|---|---|",
    ]
    for name, figures in results["scenarios"].items():
        sheets = [f"{v:g}" for k, v in figures["per_page"].items() if k.startswith("sheet")]
        tables = [f"{v:g}" for k, v in figures["per_page"].items() if k.startswith("table")]
        answer = figures["answer"]
        lines.append(f"| {name} | {', '.join(sheets)} | {', '.join(tables)} | {answer['regions']}, {answer['bytes']} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--system", default="fell-draft")
    parser.add_argument("--sheets", type=int, default=2)
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--track", default="", help="the track the HP change moves (default: the sheet's first)")
    parser.add_argument("--delta", type=int, default=-1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if not os.path.exists(CHROMIUM):
        raise SystemExit(f"Chromium not found at {CHROMIUM}: apt-get install chromium (or set CHROMIUM)")
    results = run(args)
    print(json.dumps(results, indent=2) if args.json else report(results))


if __name__ == "__main__":
    main()
