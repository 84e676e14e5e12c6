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
    }
