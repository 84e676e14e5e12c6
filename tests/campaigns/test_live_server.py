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
from tests.postgres import database_urls

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
        env.update(database_urls())
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


# --- issue 35, items 20 and 21: the real commands do what docs/production.md says ---------------------------


def _make_run(venv: Path, env: dict[str, str], log: Path) -> subprocess.Popen:
    env = {key: value for key, value in env.items() if key != "MAKEFLAGS"}
    return subprocess.Popen(
        ["make", "-C", str(ROOT), "run", f"VENV={venv}", f"PORT={_free_port()}"],
        env=env,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,  # its reloader and worker go with it
    )


def _end(process: subprocess.Popen) -> None:
    """Stop the process and whatever it started (its session's group, when it leads one)."""

    def send(sig: int) -> None:
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:  # not a group of its own
            process.send_signal(sig)

    if process.poll() is None:
        send(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            send(signal.SIGKILL)
            process.wait()


def _finished(process: subprocess.Popen, log: Path, what: str) -> int:
    """The exit status; a generous limit that only stops a hang (it is the hang these tests look for)."""
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        _end(process)
        pytest.fail(f"{what} still runs after 60 s: {log.read_text()}")


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the single-process rule is SQLite's")
def test_a_make_run_started_while_another_is_still_starting_stops_with_a_sentence(db, tmp_path):
    """The first `make run` is held in its demo step (after its check, before its server holds the serving lock):
    the second used to pass its check, and one of the two then hung in uvicorn's reloader."""
    env = _server_env(tmp_path)
    venv = _venv_of_this_python(tmp_path / "venv")
    gate = tmp_path / "gate"
    (venv / "bin" / "python").write_text(
        "#!/bin/sh\n"
        f'if [ "$2" = demo ]; then touch "{gate}.waiting"; while [ ! -e "{gate}.open" ]; do sleep 0.05; done; fi\n'
        f'exec "{sys.executable}" "$@"\n'
    )
    first_log, second_log = tmp_path / "first.log", tmp_path / "second.log"
    first = _make_run(venv, env, first_log)
    try:
        while not Path(f"{gate}.waiting").exists():
            assert first.poll() is None, first_log.read_text()
            time.sleep(0.05)
        second = _make_run(venv, env, second_log)
        try:
            assert _finished(second, second_log, "the second make run") != 0
        finally:
            _end(second)
        output = second_log.read_text()
        assert "SQLite serves one process only" in output
        assert "a `make run` is starting to" in output
        assert "Traceback" not in output
        Path(f"{gate}.open").touch()
        port = int(first.args[-1].removeprefix("PORT="))
        _wait_listening(first, port, first_log)  # the first one goes on to serve
    finally:
        _end(first)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the single-process rule is SQLite's")
def test_gunicorn_with_two_workers_on_sqlite_refuses_with_status_3(db, tmp_path):
    env, log = _server_env(tmp_path), tmp_path / "gunicorn.log"
    command = [sys.executable, "-m", "gunicorn", "config.wsgi:application", "-w", "2"]
    command += ["-b", f"127.0.0.1:{_free_port()}", "--no-control-socket"]
    log_file = log.open("w")
    server = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True
    )
    status = _finished(server, log, "gunicorn -w 2")
    assert status == 3, log.read_text()
    assert "SQLite serves one process only" in log.read_text()


@pytest.mark.skipif(connection.vendor != "sqlite", reason="the single-process rule is SQLite's")
def test_uvicorn_with_two_workers_on_sqlite_stops_every_worker(db, tmp_path):
    """uvicorn's supervisor stops the whole server when a worker fails its startup, and exits 0 itself
    (docs/production.md says so: it does not pass the worker's status on)."""
    env, log = _server_env(tmp_path), tmp_path / "uvicorn.log"
    server = _start(_free_port(), env, log, "--workers", "2")
    status = _finished(server, log, "uvicorn --workers 2")
    assert status == 0, log.read_text()
    assert "SQLite serves one process only" in log.read_text()
    assert "stopping the parent process" in log.read_text()


def _postgres_server() -> dict | None:
    import psycopg

    settings = connection.settings_dict if connection.vendor == "postgresql" else {}
    where = {"host": settings.get("HOST") or "127.0.0.1", "port": int(settings.get("PORT") or 5432)}
    where["user"] = settings.get("USER") or "postgres"
    try:
        psycopg.connect(dbname="postgres", connect_timeout=5, **where).close()
    except psycopg.Error:
        return None
    return where


def test_make_run_on_a_postgres_database_that_does_not_exist_says_how_to_create_it(tmp_path):
    where = _postgres_server()
    if where is None:
        pytest.skip("no PostgreSQL server to ask")
    env = _server_env(tmp_path)
    name = "lantern_never_created"
    env["DATABASE_URL"] = f"postgres://{where['user']}@{where['host']}:{where['port']}/{name}"
    log = tmp_path / "make.log"
    run = _make_run(_venv_of_this_python(tmp_path / "venv"), env, log)
    assert _finished(run, log, "make run") != 0
    output = log.read_text()
    assert "Traceback" not in output
    assert f'The database "{name}" does not exist' in output
    assert f"createdb -h {where['host']} -p {where['port']} -U {where['user']} {name}" in output
    # Besides make's own lines and the command it echoes: the one sentence (it was a 96-line traceback).
    said = [line for line in output.splitlines() if not line.startswith("make") and "check_one_server" not in line]
    assert len(said) == 1, output
