"""docs/production.md works as written: DEBUG=0, collectstatic, migrate, check --deploy, uvicorn, pages answer 200.

Following the old document gave a 500 on every page: it never said to collect the static files (issue 9,
finding 7). This does what the document says, on the test database, and reads the pages a player reads.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from campaigns.models import Campaign, Membership
from tests.conftest import PASSWORD, make_character
from tests.postgres import database_urls

ROOT = Path(__file__).resolve().parents[2]
HOST = "lantern.test"
ORIGIN = f"https://{HOST}"
SECRET = "a-long-random-production-secret-" + "x7Qp2Lm9Zt4Rw8Ny" * 3


@pytest.fixture(autouse=True)
def _fast_password_hashing():
    """Overrides the suite's MD5 hasher: the server process checks passwords with the production one."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _production_env(static_root: Path) -> dict[str, str]:
    """The environment docs/production.md lists, pointed at the test database."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME", "DJANGO_ALLOW_ASYNC_UNSAFE"}}
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        env.update(database_urls())
    else:
        env["SQLITE_NAME"] = str(db["NAME"])
    env.update(
        DEBUG="0",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS=HOST,
        CSRF_TRUSTED_ORIGINS=ORIGIN,
        BEHIND_TLS_PROXY="1",
        STATIC_ROOT=str(static_root),
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


def _manage(env: dict[str, str], *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


class Browser:
    """Plain HTTP through the proxy's eyes: Host and X-Forwarded-Proto set, cookies kept by hand.

    The cookies are Secure (DEBUG=0), so an HTTP client would not send them over the plain connection to
    uvicorn; the proxy in front of it would, and so does this.
    """

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=20, follow_redirects=False)
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, **kwargs) -> httpx.Response:
        headers = {"Host": HOST, "X-Forwarded-Proto": "https", **kwargs.pop("headers", {})}
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        self.http.cookies.clear()
        response = self.http.request(method, path, headers=headers, **kwargs)
        for header in response.headers.get_list("set-cookie"):
            name, _, rest = header.partition("=")
            self.cookies[name.strip()] = rest.split(";", 1)[0]
        return response


@pytest.mark.django_db(transaction=True)
def test_the_documented_production_setup_serves_pages_static_files_and_logins(tmp_path):
    player = get_user_model().objects.create_user(username="wren", password=PASSWORD)
    campaign = Campaign.objects.create(name="The Sunken Vault", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=player)
    character = make_character(player, campaign, name="Wren")
    env = _production_env(tmp_path / "static")

    _manage(env, "collectstatic", "--noinput")
    assert (tmp_path / "static" / "staticfiles.json").exists()
    _manage(env, "migrate", "--noinput")
    assert "no issues" in _manage(env, "check", "--deploy", "--fail-level", "WARNING")

    port = _free_port()
    log_path = tmp_path / "uvicorn.log"
    with open(log_path, "w") as log:
        server = subprocess.Popen(
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
                "--proxy-headers",
                "--forwarded-allow-ips",
                "127.0.0.1",
                "--no-access-log",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        try:
            _wait_for(server, port, log_path)
            _read_pages_as_a_player(Browser(f"http://127.0.0.1:{port}"), campaign, character, log_path)
        finally:
            server.terminate()
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.kill()


def _wait_for(server: subprocess.Popen, port: int, log_path: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"the server exited: {log_path.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"the server did not start: {log_path.read_text()}")


def _read_pages_as_a_player(browser: Browser, campaign, character, log_path: Path) -> None:
    login = browser.request("GET", "/accounts/login/")
    assert login.status_code == 200, log_path.read_text()
    css = re.search(r'href="(/static/css/lantern\.[0-9a-f]+\.css)"', login.text)
    assert css, "the page names its CSS by content hash (the manifest collectstatic wrote)"
    stylesheet = browser.request("GET", css.group(1))
    assert stylesheet.status_code == 200
    assert stylesheet.headers["content-type"].startswith("text/css")

    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
    assert token
    logged_in = browser.request(
        "POST",
        "/accounts/login/",
        data={"username": "wren", "password": PASSWORD, "csrfmiddlewaretoken": token.group(1)},
        headers={"Origin": ORIGIN, "Referer": f"{ORIGIN}/accounts/login/"},
    )
    assert logged_in.status_code == 302, logged_in.text[:500]
    assert logged_in.headers["location"] == "/campaigns/"

    campaigns = browser.request("GET", "/campaigns/")
    assert campaigns.status_code == 200
    assert "The Sunken Vault" in campaigns.text
    sheet = browser.request("GET", f"/characters/{character.pk}/")
    assert sheet.status_code == 200
    assert "Wren" in sheet.text
    # Without the proxy's header the same server sends everyone to HTTPS.
    plain = browser.http.get("/campaigns/", headers={"Host": HOST})
    assert plain.status_code == 301
    assert plain.headers["location"] == f"{ORIGIN}/campaigns/"
