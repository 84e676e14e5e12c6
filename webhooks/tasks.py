"""The webhook tasks the worker runs (``manage.py webhook_worker``, django-tasks' database backend).

``fan_out``: one per event (webhooks.outbox). Reads the event's rows once, and for each webhook that wants it
and whose owner still may see it, fixes one delivery: its body as that audience sees it, or "not sent" with the
reason when the webhook is over its rate. Re-run after a crash, it makes no second delivery (one per webhook
and event, by a unique constraint) and sends only those not sent yet.

``send``: one try of one delivery, claimed by a lease so two runs of it (a crashed worker's task swept back
to the queue while its first try still hangs somewhere) never post it twice at once. A failed try is retried
with exponential backoff up to ``WEBHOOK_MAX_ATTEMPTS`` tries; the last failure's reason goes on the webhook's
page. Every try carries the same ``X-Lantern-Delivery`` id, so a receiver dedupes a try that reached it but
whose answer the worker never recorded (killed between the two). A 4xx other than 408 and 429 is not retried.

One receiver that never answers must not hold up everyone else's webhooks (one worker waits out each of its
tries), so the queue runs in three tiers (django-tasks takes the highest priority first): the first try of a
webhook in good standing, then the fan-outs of new events, then the rest, retries and every try of a webhook
whose last try timed out. Once a slow webhook has timed out once, a healthy webhook's fresh delivery waits
behind at most the one slow try already under way, never behind its retries or later tries; and a webhook
whose tries time out ``WEBHOOK_PAUSE_AFTER_TIMEOUTS`` times in a row is paused, with the reason on its page,
until its owner resumes it. Its deliveries still queued then are not sent.
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
from webhooks.sending import Answer, post, signature

log = logging.getLogger(__name__)

# The queue's tiers (django-tasks runs the highest first). A delivery's first try comes before further fan-outs:
# an event waiting behind a burst of others costs less than a delivery that is ready to go. Retries, and every try
# of a webhook whose last try timed out, come after both: they must not hold up another webhook's fresh delivery.
SEND_PRIORITY = 10
FAN_OUT_PRIORITY = 0
SLOW_PRIORITY = -10


@task(takes_context=True, priority=FAN_OUT_PRIORITY)
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
                to_send.append((existing.pk, hook))
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
                    send.using(priority=_first_try_priority(hook)).enqueue(str(delivery.pk))
        except IntegrityError:
            continue  # made by a run of this fan-out that is still going
    for pk, hook in to_send:
        send.using(priority=_first_try_priority(hook)).enqueue(str(pk))
    return len(hooks)


def _first_try_priority(hook: Webhook) -> int:
    return SEND_PRIORITY if hook.timeouts_in_row == 0 else SLOW_PRIORITY


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
        send.using(priority=SLOW_PRIORITY, run_after=done + timedelta(seconds=wait)).enqueue(str(delivery.pk))
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
