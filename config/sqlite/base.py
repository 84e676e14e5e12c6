"""Django's SQLite backend, with the process's connections kept open between requests and shared out again.

Django closes a request's connection when the request ends (``CONN_MAX_AGE`` 0), and a new SQLite connection
costs about 1.3 ms of CPU before its first row: SQLite parses the whole schema on a connection's first statement
(180 tables and indexes here), and Django registers its functions and runs its PRAGMAs. That was most of what a
logged-in page paid over an anonymous one (issue 39). ``CONN_MAX_AGE`` can't keep them under ASGI (each request
runs in its own thread and context, so each would open and strand its own), hence a small pool of the raw
connections, as Django's PostgreSQL backend has: a closed connection goes back to it, its transaction rolled back,
and the next request of any thread takes it (Django opens SQLite connections shareable between threads).

``OPTIONS["pool"]``: how many idle connections to keep (0: none, Django's own behaviour).
"""

from __future__ import annotations

import os
import threading

from django.db.backends.sqlite3 import base
from django.db.backends.sqlite3.creation import DatabaseCreation as BaseCreation

_lock = threading.Lock()
# (process, database file) -> idle connections; the process in the key: a forked worker never uses its parent's.
_idle: dict[tuple[int, str], list] = {}


def _key(name) -> tuple[int, str]:
    return (os.getpid(), str(name))


def drain(name) -> None:
    """Close the idle connections to ``name`` (the test database is made again, or deleted)."""
    with _lock:
        idle = _idle.pop(_key(name), [])
    for conn in idle:
        conn.close()


class DatabaseCreation(BaseCreation):
    def _create_test_db(self, verbosity, autoclobber, keepdb=False):
        drain(self._get_test_db_name())
        return super()._create_test_db(verbosity, autoclobber, keepdb)

    def _destroy_test_db(self, test_database_name, verbosity):
        drain(test_database_name)
        return super()._destroy_test_db(test_database_name, verbosity)


class DatabaseWrapper(base.DatabaseWrapper):
    creation_class = DatabaseCreation
    pool_size = 0

    def get_connection_params(self):
        params = super().get_connection_params()
        self.pool_size = int(params.pop("pool", 0) or 0)
        return params

    def _pooled(self) -> bool:
        return self.pool_size > 0 and not self.is_in_memory_db()

    def get_new_connection(self, conn_params):
        if self._pooled():
            with _lock:
                idle = _idle.get(_key(self.settings_dict["NAME"]))
                conn = idle.pop() if idle else None
            if conn is not None:
                conn.execute("PRAGMA foreign_keys = ON")  # as Django's new connection (loaddata turns it off a while)
                return conn
        return super().get_new_connection(conn_params)

    def _close(self):
        conn = self.connection
        if conn is None or not self._pooled():
            return super()._close()
        with self.wrap_database_errors:
            if conn.in_transaction:
                conn.rollback()
            with _lock:
                idle = _idle.setdefault(_key(self.settings_dict["NAME"]), [])
                if len(idle) < self.pool_size:
                    idle.append(conn)
                    return None
            return conn.close()
