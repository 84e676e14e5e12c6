"""What the benchmarks share: the loopback address, a free port, the admin database URL, sessions made
directly in the database, and starting a production server pinned to core 0 (taskset)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

HOST = "127.0.0.1"
SECRET_KEY = "bench-only-secret-key-not-for-production-0123456789"


def free_port() -> int:
    """A port nobody listens on now: never someone else's server on a fixed port."""
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def admin_url() -> str:
    url = os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres")
    return urlsplit(url)._replace(path="/postgres").geturl()


def database_url(name: str) -> str:
    return urlsplit(admin_url())._replace(path=f"/{name}").geturl()


def create_database(name: str) -> None:
    import psycopg

    with psycopg.connect(admin_url(), autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def production_env(**database: str) -> dict[str, str]:
    """The server's environment: DEBUG off, a secret key, plain HTTP on the loopback, the given database."""
    env = {k: v for k, v in os.environ.items() if k not in {"SQLITE_NAME", "WEB_CONCURRENCY", "DATABASE_URL"}}
    env.update(
        database,
        DEBUG="0",
        SECRET_KEY=SECRET_KEY,
        ALLOWED_HOSTS=HOST,
        SECURE_SSL_REDIRECT="0",  # plain HTTP on the loopback; the proxy terminates TLS in production
        SECURE_HSTS_SECONDS="0",
        LOG_LEVEL="WARNING",
        PYTHONUNBUFFERED="1",
    )
    return env


def session_for(user) -> str:
    """A logged-in session for ``user``, written straight into the session table (Django set up)."""
    from importlib import import_module

    from django.conf import settings
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY

    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore  # noqa: N806 - the checkout's own store

    store = SessionStore()
    store[SESSION_KEY] = str(user.pk)
    store[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    store[HASH_SESSION_KEY] = user.get_session_auth_hash()
    store.create()
    assert store.session_key is not None  # create() made one
    from django.contrib.sessions.models import Session

    if store.model is not Session:  # the same session in Django's own table too: an older checkout reads it there
        row = store.model.objects.get(pk=store.session_key)
        Session.objects.create(session_key=row.session_key, session_data=row.session_data, expire_date=row.expire_date)
    return store.session_key


def start_server(
    command: list[str], *, cwd: Path, env: dict[str, str], port: int, log: Path, cores: str = "0"
) -> subprocess.Popen:
    """Start ``command`` pinned to ``cores`` (core 0) and wait (120 s at most) until ``port`` accepts connections."""
    if shutil.which("taskset"):
        command = ["taskset", "-c", cores, *command]
    out = open(log, "w")  # noqa: SIM115 - lives as long as the server
    server = subprocess.Popen(command, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120  # a busy machine imports Django slowly
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited; see {log}")
        try:
            socket.create_connection((HOST, port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise RuntimeError("the server did not start")


def process_tree(root: int) -> list[int]:
    """``root`` and all its descendants (uvicorn's or gunicorn's worker processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo += children.get(pid, [])
    return found


def measured_in_child(command: list[str], env: dict[str, str], tree: Path, timeout: int) -> dict:
    """Run one checkout's measuring child and read the JSON it prints last; stop with its error output."""
    done = subprocess.run(command, env=env, timeout=timeout, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"measuring {tree} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


_REAL_RECORD: list = []


def _no_record(*args, **kwargs) -> None:
    return None


def journal_recording(on: bool) -> None:
    """Switch ``live.journal.record`` on or off in every module that imported it (``from live.journal import
    record``): off, a write is the same write without its journal entry (Django set up)."""
    from live import journal

    if not _REAL_RECORD:
        _REAL_RECORD.append(journal.record)
    real = _REAL_RECORD[0]
    for module in list(sys.modules.values()):
        if getattr(module, "record", None) in (real, _no_record):
            module.record = real if on else _no_record  # type: ignore[attr-defined]
