"""`make run`'s first step: the database is there, and on SQLite no other server serves (or is starting to
serve) the file; then, given a command, it runs it holding `make run`'s lock.

The app server refuses a second process too (ASGI lifespan startup), but under `uvicorn --reload` a worker that
refuses only ends the worker: the reloader stays up, waiting for a file change, and the command never returns.
The serving lock is taken only once the worker starts, so `make run` holds a lock of its own from this step to
its end (``hub.claim_run``): a second `make run` stops here even while the first is still migrating.

A PostgreSQL database that does not exist is said in one sentence, with the command that creates it, rather
than in the traceback of `migrate` (issue 35, item 20).
"""

from __future__ import annotations

import argparse
import os

import psycopg
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.management.base import BaseCommand, CommandError
from django.db import connections
from psycopg.conninfo import make_conninfo

from live import hub


def _postgres_problem(database: dict) -> str | None:
    """A sentence if PostgreSQL cannot be reached or has no such database; None when it is there."""
    host, port = database["HOST"] or "127.0.0.1", database["PORT"] or 5432
    server = make_conninfo(
        host=host, port=port, user=database["USER"] or None, password=database["PASSWORD"] or None, connect_timeout=10
    )
    name = database["NAME"]
    try:
        psycopg.connect(server, dbname=name).close()
        return None
    except psycopg.OperationalError as error:
        problem = str(error).strip().splitlines()[-1] if str(error).strip() else type(error).__name__
    try:
        with psycopg.connect(server, dbname="postgres") as maintenance:
            missing = maintenance.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is None
    except psycopg.Error:
        missing = False  # PostgreSQL itself is out of reach: say why, not that the database is missing
    address = f"{host}:{port}"
    if missing:
        user = f" -U {database['USER']}" if database["USER"] else ""
        return (
            f'The database "{name}" does not exist on the PostgreSQL server at {address}: create it with '
            f"`createdb -h {host} -p {port}{user} {name}`, then run this again."
        )
    return f"PostgreSQL at {address} refused the connection to the database {name!r} ({problem}): check DATABASE_URL."


class Command(BaseCommand):
    help = (
        "Stop with a sentence if the database is missing or, on SQLite, another server serves the file; "
        "then run the given command (the rest of `make run`) holding the lock."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("command", nargs=argparse.REMAINDER, help="the command to run holding the lock")

    def handle(self, *args, command: list[str], **options) -> None:
        database = settings.DATABASES["default"]
        if database["ENGINE"] not in hub.SQLITE_ENGINES and (problem := _postgres_problem(database)):
            raise CommandError(problem)
        try:
            held = hub.claim_run()
            hub.claim_single_process()  # a server started some other way; this lock goes when this process does
        except ImproperlyConfigured as error:
            raise CommandError(str(error)) from None
        if not command:
            return
        connections.close_all()
        if held is not None:
            os.set_inheritable(held.fileno(), True)  # the command's processes keep `make run`'s lock
        os.execvp(command[0], command)
