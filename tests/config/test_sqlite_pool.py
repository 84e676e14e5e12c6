"""The SQLite backend's pool (config/sqlite): a closed connection is handed to the next, its transaction rolled
back first; no more than the pool's size kept; an in-memory database never pooled (issue 39)."""

from __future__ import annotations

import pytest
from django.db import connection

from config.sqlite import base

pytestmark = pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's backend")


def _wrapper(name, pool=2):
    settings_dict = {**connection.settings_dict, "NAME": str(name), "OPTIONS": {"pool": pool}}
    return base.DatabaseWrapper(settings_dict, alias="pooled")


@pytest.fixture
def database(db, tmp_path):
    name = tmp_path / "pool.sqlite3"
    yield name
    base.drain(name)


def test_a_closed_connection_is_handed_to_the_next(database):
    first = _wrapper(database)
    first.ensure_connection()
    raw = first.connection
    first.close()
    second = _wrapper(database)
    second.ensure_connection()
    assert second.connection is raw
    assert second.cursor().execute("PRAGMA foreign_keys").fetchone() == (1,)
    second.close()


def test_a_connection_closed_in_a_transaction_comes_back_rolled_back(database):
    setup = _wrapper(database)
    setup.cursor().execute("CREATE TABLE t (n integer)")
    setup.close()
    writer = _wrapper(database)
    writer.ensure_connection()
    writer.connection.execute("BEGIN")
    writer.connection.execute("INSERT INTO t VALUES (1)")
    writer.close()
    reader = _wrapper(database)
    reader.ensure_connection()
    assert not reader.connection.in_transaction
    assert reader.cursor().execute("SELECT count(*) FROM t").fetchone() == (0,)
    reader.close()


def test_no_more_than_the_pools_size_is_kept(database):
    wrappers = [_wrapper(database, pool=1) for _ in range(2)]
    for wrapper in wrappers:
        wrapper.ensure_connection()
    raws = [wrapper.connection for wrapper in wrappers]
    for wrapper in wrappers:
        wrapper.close()
    assert base._idle[base._key(database)] == [raws[0]]
    with pytest.raises(Exception, match="closed"):
        raws[1].execute("SELECT 1")


def test_no_pool_means_djangos_own_close(database):
    wrapper = _wrapper(database, pool=0)
    wrapper.ensure_connection()
    raw = wrapper.connection
    wrapper.close()
    assert base._key(database) not in base._idle
    with pytest.raises(Exception, match="closed"):
        raw.execute("SELECT 1")


def test_the_settings_pool_sqlite_connections():
    from django.conf import settings

    database = settings.DATABASES["default"]
    assert database["ENGINE"] == "config.sqlite" and database["OPTIONS"]["pool"] >= 1
