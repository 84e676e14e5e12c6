"""Publishing live-table signals. The stream side lives in campaigns.live.

A write calls ``publish(campaign_id, topic)`` inside its transaction. Subscribers receive the topic
(e.g. ``character-12``, ``rolls``) only once the transaction commits, and re-fetch the fragment
through the normal permission checks: events never carry content.
"""

from __future__ import annotations

import json
import logging

from django.db import connection, transaction

log = logging.getLogger(__name__)

CHANNEL = "lantern"


def publish(campaign_id: int | None, topic: str, **data) -> None:
    if campaign_id is None:
        return
    payload = {"campaign": campaign_id, "topic": topic, **data}
    if connection.vendor == "postgresql":
        # NOTIFY inside the transaction: PostgreSQL delivers it only on commit, to every process.
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_notify(%s, %s)", [CHANNEL, json.dumps(payload)])
    else:
        transaction.on_commit(lambda: _hand_off(payload))


def _hand_off(payload: dict) -> None:
    from campaigns import live

    live.hub.dispatch_threadsafe(payload)
