"""From a write to the task queue: ``live.events.push`` hands every write's parts here (settings.LIVE_WEBHOOKS).

Inside the write's own transaction, one query asks whether the campaign has a webhook that wants what changed;
only then is one task enqueued, in the same transaction: a write that rolls back sends nothing, and one that
commits has its event in the queue with it (no window where the write landed and its event was lost).
The payloads are built by the worker (webhooks.tasks), so the write pays for one indexed read, and one insert
only where someone listens.
"""

from __future__ import annotations

import json

from django.db.models import Q
from django.utils import timezone

from live.once import first_in_transaction
from webhooks.models import Webhook
from webhooks.tasks import fan_out

# The table topics (campaigns.announce) that are fight events and request events.
FIGHT_TOPICS = {"encounter", "fight"}
REQUEST_TOPICS = {"requests"}
# Where a part lists the sheet regions it changed: ["character", id, regions], ["party", regions].
VITALS_AT = {"character": 2, "party": 1}


def kinds_of(parts: list) -> set[str]:
    """Which kinds of event (Webhook.KINDS) these pushed parts carry."""
    kinds: set[str] = set()
    for part in parts:
        if not part:
            continue
        if part[0] == "roll":
            kinds.add("rolls")
        elif part[0] in VITALS_AT and len(part) > VITALS_AT[part[0]] and "vitals" in part[VITALS_AT[part[0]]]:
            kinds.add("vitals")
        elif part[0] == "table" and len(part) > 1:
            topics = set(part[1])
            if topics & FIGHT_TOPICS:
                kinds.add("fight")
            if topics & REQUEST_TOPICS:
                kinds.add("requests")
    return kinds


def on_push(campaign_id: int, parts: list) -> None:
    kinds = kinds_of(parts)
    if not kinds:
        return
    wanted = Q()
    for kind in kinds:
        wanted |= Q(**{kind: True})
    if not Webhook.objects.filter(wanted, campaign_id=campaign_id, active=True).exists():
        return
    if not first_in_transaction(("webhooks", json.dumps([campaign_id, parts]))):
        return
    fan_out.enqueue(campaign_id, parts, timezone.now().isoformat())
