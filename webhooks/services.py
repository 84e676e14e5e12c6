"""Delivering webhooks: the journal read into deliveries, and one try of one delivery (the worker's tasks are thin).

The outbox is the journal (live.journal). Each webhook keeps a cursor: the last entry of its campaign's journal it
has been fanned out for. The worker (``manage.py webhook_worker``) polls ``fan_out_due`` every ``--interval``: one
query finds the campaigns whose journal head is past some active webhook's cursor; for each, ``fan_out`` reads the
entries after the cursors and makes, for each entry and each webhook that wants it and whose owner may still see
it, one delivery (its body as that audience sees it, or "not sent" with the reason when the webhook is over its
rate) and queues its first try, advancing the webhooks' cursors **in the same transaction**. A crash before the
commit makes nothing; deliveries already made are never made twice (one per webhook and entry: a unique
constraint, and the ones present are skipped), so a cursor that did not move is merely read again.

Nothing here runs inside a write: a write appends its entry to the journal and no more, whether or not anyone
listens (issue 39: no per-write query for webhooks that aren't there).

``send``: one try of one delivery, claimed by a lease so two runs of it (a crashed worker's task swept back to the
queue while its first try still hangs somewhere) never post it twice at once. A failed try is retried with
exponential backoff up to ``WEBHOOK_MAX_ATTEMPTS`` tries; the last failure's reason goes on the webhook's page. Every
try carries the same ``X-Lantern-Delivery`` id, so a receiver dedupes a try that reached it but whose answer the
worker never recorded (killed between the two). A 4xx other than 408 and 429 is not retried.

One receiver that never answers must not hold up everyone else's webhooks (one worker waits out each of its tries),
so the queue runs in two tiers (django-tasks takes the highest priority first): the first try of a webhook in good
standing, then the rest, retries and every try of a webhook whose last try timed out. A webhook whose tries time
out ``WEBHOOK_PAUSE_AFTER_TIMEOUTS`` times in a row is paused, with the reason on its page, until its owner resumes
it (from the journal's head on: webhooks.models.Webhook.resume). Its deliveries still queued then are not sent.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, OuterRef, Q, Subquery
from django.utils import timezone

from campaigns.models import Membership
from live.events import from_json_list
from live.journal import head
from live.models import Entry, Head
from webhooks import payloads
from webhooks.models import Delivery, Webhook
from webhooks.sending import Answer, post, signature

log = logging.getLogger(__name__)

# The queue's tiers (django-tasks runs the highest first). Retries, and every try of a webhook whose last try timed
# out, come after fresh first tries: they must not hold up another webhook's fresh delivery.
SEND_PRIORITY = 10
SLOW_PRIORITY = -10

ENTRIES_PER_ROUND = 200  # entries one campaign's fan-out reads in one transaction; the next round reads on


# --- the journal into deliveries ------------------------------------------------------------------------------


def campaigns_behind() -> list[int]:
    """The campaigns whose journal has entries past some active webhook's cursor (one query, each poll)."""
    head_of = Head.objects.filter(campaign_id=OuterRef("campaign_id")).values("cursor")[:1]
    behind = Webhook.objects.filter(active=True, cursor__lt=Subquery(head_of))
    return list(behind.order_by().values_list("campaign_id", flat=True).distinct())


def fan_out_due() -> int:
    """Fan out every campaign's entries that some webhook has not had yet; the deliveries made."""
    made = 0
    for campaign_id in campaigns_behind():
        while True:
            count, more = fan_out(campaign_id)
            made += count
            if not more:
                break
    return made


def fan_out(campaign_id: int, *, limit: int = ENTRIES_PER_ROUND) -> tuple[int, bool]:
    """One round of one campaign: its active webhooks' deliveries of up to ``limit`` entries past their cursors,
    made with the cursors' move in one transaction. Returns the deliveries made, and whether entries remain."""
    with transaction.atomic():
        top = head(campaign_id)
        # Locked (PostgreSQL), so two workers never fan out one webhook at once; one locked already is another
        # worker's this round. On SQLite the write transaction itself is exclusive.
        hooks = list(
            Webhook.objects.select_for_update(skip_locked=True, of=("self",))
            .filter(campaign_id=campaign_id, active=True, cursor__lt=top)
            .select_related("campaign", "character")
        )
        if not hooks:
            return 0, False
        after = min(hook.cursor for hook in hooks)
        entries = list(
            Entry.objects.filter(campaign_id=campaign_id, cursor__gt=after, cursor__lte=top).order_by("cursor")[:limit]
        )
        # Read up to the last entry read; when none is left (pruned while the worker was away), up to the head.
        upto = entries[-1].cursor if len(entries) == limit else top
        made = _deliveries(hooks, entries)
        Webhook.objects.filter(pk__in=[hook.pk for hook in hooks], cursor__lt=upto).update(cursor=upto)
    return made, upto < top


def _deliveries(hooks: list[Webhook], entries: list[Entry]) -> int:
    """Each entry's delivery to each webhook that wants it, and the first try of each queued."""
    if not entries:
        return 0
    campaign = hooks[0].campaign
    roles = dict(
        Membership.objects.filter(campaign=campaign, user_id__in={h.owner_id for h in hooks}).values_list(
            "user_id", "role"
        )
    )
    audiences = {hook.pk: payloads.Audience.of(hook, roles) for hook in hooks}
    made_before = set(
        Delivery.objects.filter(webhook__in=hooks, event__in=[str(entry.pk) for entry in entries]).values_list(
            "webhook_id", "event"
        )
    )
    recent = _recent_counts(hooks)
    made = 0
    for entry in entries:
        events = [event for event in from_json_list(entry.events) if payloads.kind_of(event) is not None]
        if not events:
            continue
        rows = None
        for hook in hooks:
            audience = audiences[hook.pk]
            if audience is None or entry.cursor <= hook.cursor or (hook.pk, str(entry.pk)) in made_before:
                continue
            if not any(payloads.wants(hook, event) for event in events):
                continue
            if rows is None:  # read once, for the first webhook that wants the entry
                rows = payloads.Rows(campaign, events)
            items = rows.items(hook, audience)
            if not items:
                continue
            delivery = Delivery(
                webhook=hook, event=str(entry.pk), occurred_at=entry.at, kinds=" ".join(i["kind"] for i in items)
            )
            delivery.body = payloads.body(hook, str(delivery.pk), entry.at.isoformat(), items)
            if recent[hook.pk] >= settings.WEBHOOK_PER_MINUTE:
                delivery.status = Delivery.Status.DROPPED
                delivery.reason = (
                    f"More than {settings.WEBHOOK_PER_MINUTE} deliveries in a minute: this one was not sent."
                )
            else:
                recent[hook.pk] += 1
            delivery.save(force_insert=True)
            if delivery.status == Delivery.Status.PENDING:
                _queue_send(delivery, _first_try_priority(hook))
            made += 1
    return made


def _recent_counts(hooks: list[Webhook]) -> Counter[int]:
    """Deliveries each webhook was made (and not dropped) in the last minute: its rate."""
    since = timezone.now() - timedelta(minutes=1)
    recent = (
        Delivery.objects.filter(webhook__in=hooks, created_at__gte=since)
        .exclude(status=Delivery.Status.DROPPED)
        .order_by()
        .values_list("webhook_id", flat=True)
    )
    return Counter(recent)


def _first_try_priority(hook: Webhook) -> int:
    return SEND_PRIORITY if hook.timeouts_in_row == 0 else SLOW_PRIORITY


# The worker's task for one try (webhooks.tasks, which calls ``send`` below): registered by that module when the app
# starts (WebhooksConfig.ready), so this module need not import the one that imports it.
_send_task: list[Any] = []


def register_send_task(send_task: Any) -> None:
    _send_task[:] = [send_task]


def _queue_send(delivery: Delivery, priority: int, *, after: object = None) -> None:
    options: dict = {"priority": priority}
    if after is not None:
        options["run_after"] = after
    _send_task[0].using(**options).enqueue(str(delivery.pk))


# --- one try of one delivery ----------------------------------------------------------------------------------


def send(delivery_id: str) -> str:
    now = timezone.now()
    lease = now + timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    claimable = Q(status=Delivery.Status.PENDING) | Q(status=Delivery.Status.SENDING, lease_until__lt=now)
    claimed = Delivery.objects.filter(claimable, pk=delivery_id).update(
        status=Delivery.Status.SENDING, attempts=F("attempts") + 1, lease_until=lease
    )
    if not claimed:
        return "not claimable"  # delivered, given up, or a live try holds it
    delivery = Delivery.objects.select_related("webhook").get(pk=delivery_id)
    hook = delivery.webhook
    if not hook.active:  # paused since it was queued: the receiver is not tried again until its owner resumes it
        _finish(delivery, Delivery.Status.DROPPED, None, "Not sent: the webhook is paused.")
        return "paused"
    raw = delivery.body.encode()
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "Lantern-Webhooks/1",
        "X-Lantern-Delivery": str(delivery.pk),
        "X-Lantern-Attempt": str(delivery.attempts),
        "X-Lantern-Timestamp": timestamp,
        "X-Lantern-Signature": signature(hook.secret, timestamp, raw),
    }
    answer = post(hook.url, raw, headers)
    done = timezone.now()
    paused = _count_timeouts(hook, answer)
    if answer.ok:
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.DELIVERED,
            delivered_at=done,
            response_status=answer.status,
            reason="",
            lease_until=None,
        )
        if hook.last_error:
            Webhook.objects.filter(pk=hook.pk).update(last_error="")
        return "delivered"
    if paused or answer.final or delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        tries = "1 try" if delivery.attempts == 1 else f"{delivery.attempts} tries"
        reason = f"Gave up after {tries}. {answer.reason}"[:300]
        _finish(delivery, Delivery.Status.FAILED, answer.status, reason)
        Webhook.objects.filter(pk=hook.pk).update(last_error=reason)
        return "failed"
    wait = settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** (delivery.attempts - 1)
    if answer.retry_after is not None:  # a receiver's own Retry-After (Discord's 429), bounded by an hour
        wait = max(wait, min(answer.retry_after, 3600))
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.PENDING, response_status=answer.status, reason=answer.reason[:300], lease_until=None
        )
        _queue_send(delivery, SLOW_PRIORITY, after=done + timedelta(seconds=wait))
    return "retry"


def _finish(delivery: Delivery, status: str, response_status: int | None, reason: str) -> None:
    Delivery.objects.filter(pk=delivery.pk).update(
        status=status, response_status=response_status, reason=reason, lease_until=None
    )


def _count_timeouts(hook: Webhook, answer: Answer) -> bool:
    """Keep the webhook's count of tries in a row that timed out; True when this try paused it."""
    if not answer.timed_out:
        if hook.timeouts_in_row:
            Webhook.objects.filter(pk=hook.pk).update(timeouts_in_row=0)
        return False
    limit = settings.WEBHOOK_PAUSE_AFTER_TIMEOUTS
    with transaction.atomic():
        Webhook.objects.filter(pk=hook.pk).update(timeouts_in_row=F("timeouts_in_row") + 1)
        count = Webhook.objects.filter(pk=hook.pk).values_list("timeouts_in_row", flat=True).first() or 0
        if count < limit or not hook.active:
            return False
        reason = (
            f"Paused: its last {count} tries timed out ({answer.reason[:-1].lower()}). Nothing is sent to it until "
            "you resume it: check that the receiver answers first."
        )
        Webhook.objects.filter(pk=hook.pk, active=True).update(active=False, paused_reason=reason[:300])
    log.warning("Webhook %s paused after %d timeouts in a row.", hook.pk, count)
    return True
