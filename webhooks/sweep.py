"""Putting back tasks a killed worker had claimed.

django-tasks' database worker marks a task RUNNING when it claims it and runs it outside any transaction; a
worker killed then (``kill -9``, the machine lost) leaves it RUNNING for ever, and nothing in the backend runs it
again. Every task here finishes well within ``WEBHOOK_LEASE_SECONDS`` (one POST with a short timeout), so one
still RUNNING past that belongs to a dead worker: it goes back to READY and the next free worker takes it.
The delivery's own lease (webhooks.services.send) keeps a slow but living try from being doubled.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from webhooks.models import Delivery

log = logging.getLogger(__name__)

TASK_PATHS = ("webhooks.tasks.send",)


def sweep_stale_claims() -> int:
    cutoff = timezone.now() - timedelta(seconds=settings.WEBHOOK_LEASE_SECONDS)
    stale = DBTaskResult.objects.filter(
        status=TaskResultStatus.RUNNING, started_at__lt=cutoff, task_path__in=TASK_PATHS
    )
    count = stale.update(status=TaskResultStatus.READY, started_at=None)
    if count:
        log.warning("Put back %d webhook task(s) a stopped worker had claimed.", count)
    return count


def prune_old_deliveries() -> int:
    """Deliveries older than WEBHOOK_KEEP_DAYS go (a webhook's page lists the latest)."""
    cutoff = timezone.now() - timedelta(days=settings.WEBHOOK_KEEP_DAYS)
    deleted, _ = (
        Delivery.objects.filter(created_at__lt=cutoff)
        .exclude(status__in=(Delivery.Status.PENDING, Delivery.Status.SENDING))
        .delete()
    )
    return deleted
