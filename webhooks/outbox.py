"""From a write to the task queue: ``live.events.push`` hands every write's parts here (settings.LIVE_WEBHOOKS).

Inside the write's own transaction, one query asks whether the campaign has a webhook that wants what changed;
only then is one task enqueued, in the same transaction: a write that rolls back sends nothing, and one that
commits has its event in the queue with it (no window where the write landed and its event was lost).
The payloads are built by the worker (webhooks.tasks), so the write pays for one indexed read, and one insert
only where someone listens.

One write, one event: a write often pushes several times (a roll that costs HP pushes its log line, then the
sheet's vitals), and each webhook must get one delivery carrying all of it. The first push of a transaction that
someone listens to queues the campaign's task; the later ones add their parts to that same queued task (its row
is the transaction's own until it commits, so no worker has seen it yet). A savepoint rolled back with the task
in it takes the task away too; the next push then queues it afresh.
"""

from __future__ import annotations

import json
import weakref

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Q
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

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
        elif part[0] == "request":  # ["request", id]: the roll request that was asked, answered or cancelled
            kinds.add("requests")
        elif part[0] in VITALS_AT and len(part) > VITALS_AT[part[0]] and "vitals" in part[VITALS_AT[part[0]]]:
            kinds.add("vitals")
        elif part[0] == "table" and len(part) > 1:
            topics = set(part[1])
            if topics & FIGHT_TOPICS:
                kinds.add("fight")
            if topics & REQUEST_TOPICS:
                kinds.add("requests")
    return kinds


# Per connection: the fan-out task its open transaction queued for each campaign (the task row's id).
_queued: weakref.WeakKeyDictionary[BaseDatabaseWrapper, dict[int, str]] = weakref.WeakKeyDictionary()


def on_push(campaign_id: int, parts: list) -> None:
    kinds = kinds_of(parts)
    if not kinds:
        return
    parts = [part for part in parts if kinds_of([part])]  # what the webhooks read, nothing else
    connection = connections[DEFAULT_DB_ALIAS]
    queued = _queued.setdefault(connection, {})

    def committed() -> None:  # the campaign's next write starts a new event
        queued.pop(campaign_id, None)

    if first_in_transaction(("webhooks", campaign_id), committed):
        queued.pop(campaign_id, None)  # left by a transaction that rolled back
    elif campaign_id in queued and _join(queued[campaign_id], parts):
        return
    wanted = Q()
    for kind in kinds:
        wanted |= Q(**{kind: True})
    if not Webhook.objects.filter(wanted, campaign_id=campaign_id, active=True).exists():
        return
    result = fan_out.enqueue(campaign_id, parts, timezone.now().isoformat())
    if connection.in_atomic_block:
        queued[campaign_id] = str(result.id)


def _join(task_id: str, parts: list) -> bool:
    """Add ``parts`` to the event this transaction queued already; False when that task is gone (a savepoint
    rolled back with it) or already run (only where a transaction outlives a worker's run: the tests')."""
    task = DBTaskResult.objects.filter(pk=task_id, status=TaskResultStatus.READY)
    found = task.values_list("args_kwargs", flat=True).first()
    if found is None:
        return False
    args = found["args"]
    seen = {json.dumps(part) for part in args[1]}
    more = [part for part in parts if json.dumps(part) not in seen]
    if more:
        task.update(args_kwargs={**found, "args": [args[0], args[1] + more, *args[2:]]})
    return True
