"""How a test opens its own PostgreSQL connection to the test database, beside Django's (to terminate backends,
hold a lock or build a pool of its own)."""

from __future__ import annotations

from django.db import connection


def connect_kwargs() -> dict:
    """psycopg's connection arguments for the database the tests run on."""
    db = connection.settings_dict
    return {
        "host": db["HOST"] or "127.0.0.1",
        "port": db["PORT"] or 5432,
        "user": db["USER"],
        "password": db["PASSWORD"] or None,
        "dbname": db["NAME"],
        "prepare_threshold": None,  # psycopg prepares a query run five times: not through PgBouncer (transaction mode)
    }


def database_urls() -> dict[str, str]:
    """DATABASE_URL and DATABASE_LISTEN_URL naming the test database, for a process the tests start (a server, a
    worker): the live table's direct sessions go where the suite's do (past PgBouncer when the requests go through
    it)."""
    from django.conf import settings

    db = connection.settings_dict
    listen = settings.DATABASE_LISTEN or db
    return {"DATABASE_URL": _url(db, db["NAME"]), "DATABASE_LISTEN_URL": _url(listen, listen["NAME"] or db["NAME"])}


def _url(db: dict, name: str) -> str:
    auth = db["USER"] + (f":{db['PASSWORD']}" if db["PASSWORD"] else "")
    return f"postgres://{auth}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{name}"
