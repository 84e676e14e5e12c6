"""The real server: `make run`'s uvicorn --reload streams at once, stops promptly, and SQLite stays single-process.

pytest-django's live_server is WSGI and would never send a byte of a stream (pitfall 1), so these start
uvicorn as a subprocess. On SQLite they serve a snapshot of the test database: the browser tests' server
may hold the test database's single-process lock at the same time.
"""

from __future__ import annotations

import os
import signal
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.urls import reverse

import live.hub as live
from tests.campaigns.live_helpers import session_cookie

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME", "WEB_CONCURRENCY"}}
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
        env["DATABASE_URL"] = f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    else:
        snapshot = tmp_path / "db.sqlite3"
        source, target = sqlite3.connect(db["NAME"]), sqlite3.connect(snapshot)
        source.backup(target)  # consistent, WAL included
        source.close()
        target.close()
        env["SQLITE_NAME"] = str(snapshot)
    env.update({"DEBUG": "1", "PYTHONUNBUFFERED": "1", "LOG_LEVEL": "WARNING"})
    return env


def _start(port: int, env: dict[str, str], log: Path, *extra: str) -> subprocess.Popen:
    command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
    command += ["--port", str(port), "--timeout-graceful-shutdown", "1", *extra]
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=log.open("w"), stderr=subprocess.STDOUT)


def _wait_listening(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"the server exited: {log.read_text()}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    process.kill()
    pytest.fail(f"the server did not start: {log.read_text()}")


def _stop(process: subprocess.Popen) -> bool:
    """Whether the process ended by itself once told to (within a generous 30 s that only stops a hang)."""
    process.terminate()
    try:
        process.wait(timeout=30)
        return True
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        return False


def test_the_dev_server_streams_and_stops_with_streams_open(campaign, player, tmp_path):
    path, cookie = reverse("campaigns:events", args=[campaign.pk]), session_cookie(player)
    env, port, log = _server_env(tmp_path), _free_port(), tmp_path / "uvicorn.log"
    # As in the Makefile's `run`: the reloader supervises a worker process.
    server = _start(port, env, log, "--reload", "--reload-dir", str(ROOT / "campaigns"))
    try:
        _wait_listening(server, port, log)
        with socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: sessionid={cookie}\r\n\r\n".encode())
            received = b""
            sock.settimeout(30)  # only stops a hang: how fast it streams is measured in bench/
            while b": open" not in received:
                chunk = sock.recv(4096)
                assert chunk, received
                received += chunk
            assert b"200 OK" in received, received
            assert b"text/event-stream" in received
            # An open stream must not hold up a restart or shutdown: without the graceful timeout the server
            # waits for the stream forever.
            assert _stop(server)
    finally:
        _stop(server)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the single-process rule is SQLite's")
def test_a_second_server_on_the_same_sqlite_file_refuses_to_start(db, tmp_path):
    env = _server_env(tmp_path)
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first_port = _free_port()
    first = _start(first_port, env, first_log)
    try:
        _wait_listening(first, first_port, first_log)
        second = _start(_free_port(), env, second_log)
        assert second.wait(timeout=30) != 0
        assert "SQLite serves one process only" in second_log.read_text()
        assert first.poll() is None  # the first one keeps serving
    finally:
        _stop(first)


def _venv_of_this_python(folder: Path) -> Path:
    """A VENV for the Makefile that is this test run's interpreter, already installed (make installs nothing)."""
    (folder / "bin").mkdir(parents=True)
    python = folder / "bin" / "python"
    python.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    python.chmod(0o755)
    (folder / "bin" / "pip").touch()
    (folder / ".installed-run").touch()
    return folder


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the single-process rule is SQLite's")
def test_a_second_make_run_on_the_same_sqlite_file_stops_with_a_sentence(db, tmp_path):
    """`make run` serves under uvicorn's reloader: a worker that refuses used to leave the reloader waiting."""
    env = _server_env(tmp_path)
    first_log, first_port = tmp_path / "first.log", _free_port()
    first = _start(first_port, env, first_log)
    try:
        _wait_listening(first, first_port, first_log)
        venv = _venv_of_this_python(tmp_path / "venv")
        env.pop("MAKEFLAGS", None)
        second = subprocess.Popen(
            ["make", "-C", str(ROOT), "run", f"VENV={venv}", f"PORT={_free_port()}"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its reloader and worker go with it if it hangs
        )
        try:
            output, _ = second.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(second.pid, signal.SIGKILL)
            output, _ = second.communicate()
            pytest.fail(f"the second make run still runs after 20 s: {output}")
        assert second.returncode != 0
        assert "SQLite serves one process only" in output
        assert "Another server process already serves" in output
        assert first.poll() is None  # the first one keeps serving
    finally:
        _stop(first)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the single-process rule is SQLite's")
def test_several_workers_on_sqlite_refuse_to_start(monkeypatch):
    """What the lifespan startup runs in each worker; failing there makes uvicorn stop the whole server."""
    monkeypatch.setenv("WEB_CONCURRENCY", "2")
    with pytest.raises(ImproperlyConfigured, match="SQLite serves one process only"):
        live.claim_single_process()
