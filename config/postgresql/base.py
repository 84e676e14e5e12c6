"""Django's PostgreSQL backend, with a pool that recovers at once when PostgreSQL drops its connections.

``CONN_HEALTH_CHECKS`` makes Django give psycopg's pool a check that runs before a connection is handed
out, so a dead one is replaced instead of failing the request. But the pool meets its dead connections one
at a time, sleeping 1 s, 2 s, 4 s… between them: after a restart or failover with a few idle connections the
first request times out. One dead connection means PostgreSQL dropped them all, so sweep the rest at once.
"""

from __future__ import annotations

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        if pool is not None and not isinstance(getattr(pool, "_check", None), _Sweeper):
            # psycopg_pool keeps its check in `_check`; Django offers no way to pass our own.
            pool._check = _Sweeper(pool)
        return pool


class _Sweeper:
    def __init__(self, pool: ConnectionPool) -> None:
        self.pool = pool

    def __call__(self, conn) -> None:
        try:
            ConnectionPool.check_connection(conn)
        except Exception:
            self.pool.check()  # test every idle connection now; replacements open in the background
            raise
