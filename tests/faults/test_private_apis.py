"""The private library detail Lantern leans on, pinned so an upgrade that changes it fails here, loudly.

psycopg_pool keeps a pool's connection check in ``ConnectionPool._check`` and calls it on every checkout;
``config.postgresql.base`` swaps in a check that sweeps the whole pool (Django passes the check itself and
offers no way to pass ours). (Once per transaction, live.once, uses public API only: tests/live/.)
"""

from __future__ import annotations

import pytest
from django.db import connection

from tests.postgres import connect_kwargs


@pytest.mark.django_db
def test_psycopg_pool_keeps_its_check_in_a_private_attribute_it_calls_on_every_checkout():
    if connection.vendor != "postgresql":
        pytest.skip("the connection pool exists only on PostgreSQL")
    from psycopg_pool import ConnectionPool

    calls: list[object] = []
    with ConnectionPool(kwargs=connect_kwargs(), min_size=1, max_size=1, check=ConnectionPool.check_connection) as pool:
        assert pool._check is ConnectionPool.check_connection, "psycopg_pool moved its check: see config/postgresql"
        pool._check = calls.append
        with pool.connection():
            pass
        with pool.connection():
            pass
    assert len(calls) == 2, "psycopg_pool no longer calls _check on checkout: see config/postgresql/base.py"


@pytest.mark.django_db
def test_the_apps_pool_checks_with_the_sweeper():
    if connection.vendor != "postgresql":
        pytest.skip("the connection pool exists only on PostgreSQL")
    from config.postgresql.base import _Sweeper

    assert isinstance(connection.pool._check, _Sweeper)
