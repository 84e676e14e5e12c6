"""When PostgreSQL drops the app's connections (a restart, a failover), the next requests still succeed.

psycopg's pool hands out connections it already holds; unless it checks them first, every dead one in
the pool becomes a 500 (issue 9, finding 6: seven in a row).
"""

from __future__ import annotations

import psycopg
import pytest
from django.db import connection
from django.test import Client

from tests.postgres import connect_kwargs

POOL_CONNECTIONS = 5


def _terminate_every_backend_of_the_test_database() -> int:
    with psycopg.connect(**connect_kwargs(), autocommit=True) as admin:
        rows = admin.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = current_database() AND pid <> pg_backend_pid()"
        ).fetchall()
    return len(rows)


@pytest.mark.django_db(transaction=True)
def test_the_next_ten_requests_succeed_after_postgresql_drops_every_connection(player, campaign):
    if connection.vendor != "postgresql":
        pytest.skip("the connection pool exists only on PostgreSQL")
    pool = connection.pool
    assert pool is not None, "requests must go through psycopg's pool"
    client = Client(raise_request_exception=False)
    client.force_login(player)
    assert client.get("/campaigns/").status_code == 200
    connection.close()  # hand the test's own connection back to the pool too
    # Several idle connections in the pool, as after a busy minute.
    held = [pool.getconn() for _ in range(POOL_CONNECTIONS)]
    for conn in held:
        pool.putconn(conn)
    assert pool.get_stats()["pool_available"] >= POOL_CONNECTIONS

    assert _terminate_every_backend_of_the_test_database() >= POOL_CONNECTIONS
    before = pool.get_stats()["requests_num"]

    statuses = []
    for _ in range(10):
        statuses.append(client.get(f"/campaigns/{campaign.pk}/").status_code)
        connection.close()
    assert statuses == [200] * 10
    assert pool.get_stats()["requests_num"] - before >= 10, "each request took a connection from the pool"
