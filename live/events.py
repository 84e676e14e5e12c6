"""Publishing live-table signals. The fan-out lives in live.hub, the stream in live.stream.

A write calls ``push(campaign_id, part, …)`` (or ``publish`` for a bare signal: a request, presence, a revoked
stream) inside its transaction. The signal names what changed (``["character", 12, ["vitals"]]``,
``["roll", 55]``), never its content, and goes out only once the transaction commits: on PostgreSQL as a
``pg_notify`` every process hears, on SQLite to this process's hub. Each process's hub then draws every part
once per kind of viewer with a page open there and sends each page the HTML its viewer may see, so no page
asks for anything (docs/production.md, "Pushed regions and the cache").
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from functools import cache, partial

from django.conf import settings
from django.db import transaction
from django.utils.module_loading import import_string

from live.once import first_in_transaction
from live.relay import announce

log = logging.getLogger(__name__)


def publish(campaign_id: int | None, topic: str, *, audience: Iterable[int] | None = None, **data) -> None:
    """Announce ``topic`` to the campaign's open pages once the transaction commits.

    ``audience`` limits it to those users' pages (a GM-only roll: its roller and the GM). The same signal
    twice in one transaction goes out once.
    """
    publish_many(campaign_id, [(topic, data)], audience=audience)


def publish_many(
    campaign_id: int | None, signals: Iterable[tuple[str, dict]], *, audience: Iterable[int] | None = None
) -> None:
    """``publish`` for several signals of one write (its regions and its card): on PostgreSQL one statement,
    one round trip, whatever their number; each signal still travels as its own notification."""
    if campaign_id is None:
        return
    payloads = []
    for topic, data in signals:
        payload = {"campaign": campaign_id, "topic": topic, **data}
        if audience is not None:
            payload["to"] = sorted(set(audience))
        if _first_in_transaction(payload):
            payloads.append(payload)
    if not payloads:
        return
    # Nothing is notified inside the write (architecture pitfall 13): after commit the relay hands the signals to
    # the transport (live.transport), outside the transaction. Bridge until the journal (issue 37) replaces this.
    for payload in payloads:
        transaction.on_commit(partial(announce, payload))


def _first_in_transaction(payload: dict) -> bool:
    return first_in_transaction(("live.events", json.dumps(payload, sort_keys=True)))


def push(campaign_id: int | None, *parts: list, audience: Iterable[int] | None = None) -> None:
    """Have the open pages of this campaign shown what ``parts`` changed, once the transaction commits.

    A part names what changed, never its content: ``["character", 12, ["vitals", "details"]]`` (regions of a
    sheet, and its card on the table page), ``["party", ["details"]]`` (those of every sheet at the table: its
    rule settings or conditions changed) or ``["roll", 55]`` (a new line of the log). Each process's hub
    renders every part once per kind of viewer that has a page open there (``settings.LIVE_RENDERER``) and
    sends each page the HTML its viewer may see: no page asks for anything. ``audience``: as for ``publish``.
    """
    parts_list = [list(part) for part in parts]
    publish_many(campaign_id, [("push", {"parts": parts_list})], audience=audience)
    hand_on = _webhooks()
    if campaign_id is not None and hand_on is not None:
        hand_on(campaign_id, parts_list)


@cache
def _webhooks() -> Callable[[int, list], None] | None:
    """What hands a write's parts to the webhooks (settings.LIVE_WEBHOOKS): inside the write's transaction, so
    its event is queued with the write or not at all."""
    path = getattr(settings, "LIVE_WEBHOOKS", "")
    return import_string(path) if path else None


def revoke_streams(campaign_id: int | None, *, user_id: int | None = None, session: str = "") -> None:
    """Close a user's open pages of this campaign (removed, left), or one session's (logged out).

    The hub closes the matching streams and sends nothing to anyone; a page that reconnects goes through
    the normal checks again (404 once removed, the login page once logged out).
    """
    publish(campaign_id, "revoke", user=user_id, session=session)


def session_hash(session_key: str | None) -> str:
    """What a stream remembers of its session: enough to match a logout, useless as a session key."""
    return hashlib.sha256((session_key or "").encode()).hexdigest()[:24] if session_key else ""
