"""Which transport (live.transport) this process's signals travel by: from settings, one per setting."""

from __future__ import annotations

import threading

from django.conf import settings
from django.db import connections

from live.postgres import PgTransport
from live.redis_broker import RedisTransport
from live.transport import InProcess, Transport


def transport() -> Transport:
    """This process's transport, from settings (LIVE_BROKER, else the database's kind)."""
    key = (settings.LIVE_BROKER, connections["default"].vendor)
    with _lock:
        chosen = _transports.get(key)
        if chosen is None:
            chosen = _transports[key] = _make(*key)
    return chosen


def _make(broker: str, vendor: str) -> Transport:
    if broker:
        return RedisTransport(broker, settings.LIVE_BROKER_PREFIX)
    if vendor == "postgresql":
        return PgTransport()
    return InProcess()


def close_all() -> None:
    """Close every transport's publishing connection (tests, shutdown); the next publish reconnects."""
    with _lock:
        made = list(_transports.values())
    for chosen in made:
        chosen.close()


# One per setting: a test that sets LIVE_BROKER gets the Redis transport, and the others are still closed.
_transports: dict[tuple[str, str], Transport] = {}
_lock = threading.Lock()
