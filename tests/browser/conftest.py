"""Real-browser tests: Debian's Chromium driven by Playwright against the real ASGI server.

The app runs as a uvicorn subprocess on the test database (pytest-django's live_server is WSGI and
cannot stream events). A missing browser, or a Playwright driver that cannot start, is said once in one
sentence naming the package to install: locally every browser test is skipped with it, in CI the run stops.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.db import connection

from tests.discord import standin
from tests.postgres import database_urls

# Playwright's sync API runs an event loop in this thread; Django's ORM calls from the test body are
# still plain blocking calls, so tell Django not to refuse them.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


@pytest.fixture(autouse=True)
def _fast_password_hashing():
    """Overrides the suite's MD5 hasher: the app server process checks passwords with the real one."""


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser/" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        env.update(database_urls())
    else:
        env["SQLITE_NAME"] = str(db["NAME"])
    env.update({"DEBUG": "1", "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"})
    # Discord's endpoint answers the stand-in's test key pair (tests/discord/standin.py; issue 43)
    env.update({"DISCORD_PUBLIC_KEY": standin.PUBLIC_KEY, "DISCORD_APPLICATION_ID": standin.APPLICATION_ID})
    return env


@pytest.fixture(scope="session")
def live_url(django_db_setup, django_db_blocker, tmp_path_factory):
    """Start uvicorn on the test database; yield its base URL."""
    port = _free_port()
    log_path = tmp_path_factory.mktemp("server") / "uvicorn.log"
    with django_db_blocker.unblock():
        env = _server_env()
    log = open(log_path, "w")  # noqa: SIM115 - closed at teardown
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "config.asgi:application",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--timeout-graceful-shutdown",
            "1",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app server exited: {log_path.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    else:
        process.kill()
        raise RuntimeError(f"the app server did not start: {log_path.read_text()}")
    yield f"http://127.0.0.1:{port}"
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


# Debian packages of the shared libraries Playwright's bundled node may lack on a minimal system (`ldd` on
# playwright/driver/node: libatomic is the one a bare Debian with only chromium installed does not have).
LIBRARY_PACKAGES = {"libatomic.so.1": "libatomic1", "libstdc++.so.6": "libstdc++6", "libgcc_s.so.1": "libgcc-s1"}
MISSING_LIBRARY = re.compile(r"([\w.+-]+\.so[\w.]*): cannot open shared object file")


def driver_problem(returncode: int, output: str) -> str | None:
    """What keeps Playwright's driver from starting, as one sentence naming what to install; None if it ran."""
    if returncode == 0:
        return None
    missing = MISSING_LIBRARY.search(output)
    if missing:
        library = missing.group(1)
        package = LIBRARY_PACKAGES.get(library)
        if package:
            return f"Playwright's driver cannot start without {library}: install {package} (apt-get install {package})."
        return f"Playwright's driver cannot start without {library}: install the Debian package that provides it."
    first_line = next((line.strip() for line in output.splitlines() if line.strip()), "no output")
    return f"Playwright's driver did not start (exit {returncode}): {first_line}"


def check_driver(command: list[str]) -> str | None:
    """Run the driver once (``--version``) and say what keeps it from starting, or None."""
    try:
        result = subprocess.run([*command, "--version"], capture_output=True, text=True, timeout=60)
    except OSError as error:
        return f"Playwright's driver did not start: {error}."
    return driver_problem(result.returncode, result.stdout + result.stderr)


def _browser_unavailable(message: str) -> None:
    if os.environ.get("CI"):
        pytest.exit(f"Browser tests cannot run: {message}", returncode=1)  # once, not one error per test
    pytest.skip(message)


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        _browser_unavailable(f"Chromium not found at {CHROMIUM} (apt-get install chromium)")
    from playwright._impl._driver import compute_driver_executable

    problem = check_driver(list(compute_driver_executable()))
    if problem:
        _browser_unavailable(problem)
    from playwright.sync_api import expect, sync_playwright

    # Every expectation waits this long at most: a generous bound that only stops a hang, never a claim about
    # speed (issue 35, item 19: no test bounds wall-clock time; tests/test_no_wall_clock_bounds.py).
    expect.set_options(timeout=15_000)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser, live_url, transactional_db):
    """``new_page()`` opens a page in a fresh browser context (its own cookies: another person), in the light
    colour scheme unless ``color_scheme="dark"``."""
    contexts = []

    def open_page(width: int = 1024, height: int = 800, color_scheme: str = "light"):
        context = browser.new_context(
            base_url=live_url, viewport={"width": width, "height": height}, color_scheme=color_scheme
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(f"{page.url}: {error} {error.stack}"))
        return page

    errors: list[str] = []
    yield open_page
    for context in contexts:
        context.close()
    # No page may raise an uncaught script error (issue 36, item 12: two of them showed in a session's console).
    assert errors == [], "uncaught JavaScript errors: " + "; ".join(errors)


def sign_up(page, username: str, password: str = "lantern-light-42") -> None:
    page.goto("/accounts/signup/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password:", exact=True).fill(password)
    page.get_by_label("Password confirmation").fill(password)
    page.get_by_role("button", name="Sign up").click()
    page.wait_for_url("**/campaigns/")


def log_in(page, username: str, password: str) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password:", exact=True).fill(password)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/campaigns/**")


def show_part(page, part: str) -> None:
    """On a phone the sheet shows one part at a time: tap its tab (on a wide screen every part shows)."""
    tab = page.locator(f'.section-tabs a[data-part="{part}"]')
    if tab.is_visible():
        tab.click()
