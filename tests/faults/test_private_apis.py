"""The two private library details Lantern leans on, each pinned so an upgrade that changes it fails here, loudly.

- psycopg_pool keeps a pool's connection check in ``ConnectionPool._check`` and calls it on every checkout;
  ``config.postgresql.base`` swaps in a check that sweeps the whole pool (Django passes the check itself and
  offers no way to pass ours).
- Django keeps a transaction's on-commit callbacks in ``connection.run_on_commit`` as
  ``(savepoint ids, callback, robust)`` and empties it on rollback; ``live.events`` and ``campaigns.conditions``
  find their once-per-transaction collector there, so a rollback forgets what it collected.
"""

from __future__ import annotations

import pytest
from django.db import connection, transaction

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


def _marker() -> None:
    pass


@pytest.mark.django_db(transaction=True)
def test_django_keeps_on_commit_callbacks_as_triples_and_forgets_them_on_rollback():
    with transaction.atomic():
        transaction.on_commit(_marker)
        entries = list(connection.run_on_commit)
        assert [func for _, func, _ in entries] == [_marker], "Django changed run_on_commit: see live/events.py"
        savepoints, _, robust = entries[0]
        assert isinstance(savepoints, set | list | tuple) and robust is False
    assert connection.run_on_commit == []

    try:
        with transaction.atomic():
            transaction.on_commit(_marker)
            raise RuntimeError("roll back")
    except RuntimeError:
        pass
    assert connection.run_on_commit == [], "a rollback must drop the callbacks (the collectors rely on it)"
