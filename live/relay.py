"""After a write commits, tell every process that its campaign's journal moved: outside the write's transaction.

``announce(signal)`` is called from ``transaction.on_commit`` (live.journal) or by the server itself (presence, a
logout's revoked streams). Signals are small dicts: ``{"campaign": C, "cursor": N}`` (campaign C's journal has
entries up to N), ``{"campaign": C, "topic": "revoke", "session": h}``, ``{"campaign": C, "topic": "presence", …}``.
A lost signal costs latency only: hubs read the journal from their own cursor and catch up periodically.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable
from functools import partial
from typing import Any

from django.db import connections, transaction

from live.signals import CHANNEL

log = logging.getLogger(__name__)

# This process's hub (live.hub registers it): where a signal goes on SQLite, whose one process hears everything.
_local: list[Callable[[dict[str, Any]], None]] = []


def hear_locally(receiver: Callable[[dict[str, Any]], None]) -> None:
    _local[:] = [receiver]


def announce(signal: dict) -> None:
    """Hand a signal to every process's hub (this one's on SQLite, every one's on PostgreSQL)."""
    connection = connections["default"]
    if connection.vendor == "postgresql":
        if connection.in_atomic_block:  # never inside a write (the notify lock): after its commit
            raise RuntimeError("live.relay.announce runs after a commit, never inside a transaction")
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, json.dumps(signal)])
        except Exception:  # the readers catch up from the journal
            log.warning("Live table: could not announce %r", signal, exc_info=True)
    else:
        for receiver in _local:
            receiver(signal)


def revoke_streams(campaign_id: int, *, user_id: int | None = None, session: str = "") -> None:
    """Close a user's open pages of this campaign (their password changed), or one session's (logged out), once the
    transaction commits. Not a table write, so not in the journal: the hub closes the matching streams, and a page
    that reconnects goes through the normal checks again (the login page once logged out)."""
    signal = {"campaign": campaign_id, "topic": "revoke", "user": user_id, "session": session}
    transaction.on_commit(partial(announce, signal))


def session_hash(session_key: str | None) -> str:
    """What a stream remembers of its session: enough to match a logout, useless as a session key."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:24] if session_key else ""
