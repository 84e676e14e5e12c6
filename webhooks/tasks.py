"""The webhook tasks the worker runs (``manage.py webhook_worker``, django-tasks' database backend).

``fan_out``: one per event (webhooks.outbox). Reads the event's rows once, and for each webhook that wants it
and whose owner still may see it, fixes one delivery: its body as that audience sees it, or "not sent" with the
reason when the webhook is over its rate. Re-run after a crash, it makes no second delivery (one per webhook
and event, by a unique constraint) and sends only those not sent yet.

``send``: one try of one delivery, claimed by a lease so two runs of it (a crashed worker's task swept back
to the queue while its first try still hangs somewhere) never post it twice at once. A failed try is retried
with exponential backoff up to ``WEBHOOK_MAX_ATTEMPTS`` tries; the last failure's reason goes on the webhook's
page. Every try carries the same ``X-Lantern-Delivery`` id, so a receiver dedupes a try that reached it but
whose answer the worker never recorded (killed between the two).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import F, Q
from django.utils import timezone
from django_tasks import task
from django_tasks.base import TaskContext

from campaigns.models import Campaign, Membership
from webhooks import payloads
from webhooks.models import Delivery, Webhook
from webhooks.sending import post, signature

log = logging.getLogger(__name__)

# A delivery's sends come before further fan-outs: an event waiting behind a burst of others costs less than a
# delivery that is ready to go.
SEND_PRIORITY = 10


@task(takes_context=True)
def fan_out(context: TaskContext, campaign_id: int, parts: list, occurred_at: str) -> int:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    event_id = str(context.task_result.id)
    hooks = list(
        Webhook.objects.filter(campaign=campaign, active=True).select_related("character", "campaign", "owner")
    )
    if not hooks:
        return 0
    roles = dict(
        Membership.objects.filter(campaign=campaign, user_id__in={h.owner_id for h in hooks}).values_list(
            "user_id", "role"
        )
    )
    event = payloads.Event(campaign, parts)
    at = datetime.fromisoformat(occurred_at)
    to_send = []
    for hook in hooks:
        audience = payloads.Audience.of(hook, roles)
        if audience is None:
            continue
        items = event.items(hook, audience)
        if not items:
            continue
        existing = Delivery.objects.filter(webhook=hook, event=event_id).first()
        if existing is not None:  # this fan-out ran before and was cut short: send what it left
            if existing.status == Delivery.Status.PENDING:
                to_send.append(existing.pk)
            continue
        delivery = Delivery(webhook=hook, event=event_id, occurred_at=at, kinds=" ".join(i["kind"] for i in items))
        delivery.body = payloads.body(hook, str(delivery.pk), occurred_at, items)
        if _over_rate(hook):
            delivery.status = Delivery.Status.DROPPED
            delivery.reason = f"More than {settings.WEBHOOK_PER_MINUTE} deliveries in a minute: this one was not sent."
        try:
            with transaction.atomic():
                delivery.save(force_insert=True)
                if delivery.status == Delivery.Status.PENDING:
                    send.using(priority=SEND_PRIORITY).enqueue(str(delivery.pk))
        except IntegrityError:
            continue  # made by a run of this fan-out that is still going
    for pk in to_send:
        send.using(priority=SEND_PRIORITY).enqueue(str(pk))
    return len(hooks)


def _over_rate(hook: Webhook) -> bool:
    since = timezone.now() - timedelta(minutes=1)
    recent = Delivery.objects.filter(webhook=hook, created_at__gte=since).exclude(status=Delivery.Status.DROPPED)
    return recent.count() >= settings.WEBHOOK_PER_MINUTE


@task(priority=SEND_PRIORITY)
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
    if delivery.attempts >= settings.WEBHOOK_MAX_ATTEMPTS:
        tries = "1 try" if delivery.attempts == 1 else f"{delivery.attempts} tries"
        reason = f"Gave up after {tries}. {answer.reason}"[:300]
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.FAILED, response_status=answer.status, reason=reason, lease_until=None
        )
        Webhook.objects.filter(pk=hook.pk).update(last_error=reason)
        return "failed"
    wait = settings.WEBHOOK_RETRY_BASE_SECONDS * 2 ** (delivery.attempts - 1)
    if answer.retry_after is not None:  # a receiver's own Retry-After (Discord's 429), bounded by an hour
        wait = max(wait, min(answer.retry_after, 3600))
    with transaction.atomic():
        Delivery.objects.filter(pk=delivery.pk).update(
            status=Delivery.Status.PENDING, response_status=answer.status, reason=answer.reason[:300], lease_until=None
        )
        send.using(run_after=done + timedelta(seconds=wait)).enqueue(str(delivery.pk))
    return "retry"
