"""``manage.py webhook_worker``: django-tasks' database worker, plus two threads of its own: the reader, which reads
the journal into deliveries every ``--interval`` (webhooks.services.fan_out_due), and the sweep that re-queues a
killed worker's claimed tasks (webhooks.sweep) every few seconds."""

from __future__ import annotations

import logging
import os
import threading
import time

from django.conf import settings
from django.db import close_old_connections, connection
from django.utils.autoreload import DJANGO_AUTORELOAD_ENV
from django_tasks_db.management.commands.db_worker import Command as DatabaseWorker

from webhooks.services import fan_out_due
from webhooks.sweep import prune_old_deliveries, sweep_stale_claims

log = logging.getLogger(__name__)


class Command(DatabaseWorker):
    help = (
        "Run the worker that delivers webhooks: it reads the journal into deliveries every --interval and sends them "
        "(django-tasks' db_worker, with a stale-claim sweep)."
    )

    def handle(self, *args, **options) -> None:
        # The worker closes "old" connections around every task; on SQLite (CONN_MAX_AGE 0) that meant closing
        # the file each time, and the last connection's close checkpoints the WAL: ~25 ms a task, measured
        # (bench/webhooks.py). Its one connection stays open instead; PostgreSQL's goes back to the pool anyway.
        if connection.vendor == "sqlite":
            connection.settings_dict["CONN_MAX_AGE"] = None
        # Under --reload the parent only watches files; the child, which runs tasks, reads and sweeps.
        if not options.get("reload") or os.environ.get(DJANGO_AUTORELOAD_ENV) == "true":
            interval = max(0.05, float(options.get("interval") or 1))
            threading.Thread(target=_reader, args=(interval,), name="webhook-reader", daemon=True).start()
            threading.Thread(target=_sweeper, name="webhook-sweeper", daemon=True).start()
        super().handle(*args, **options)


def _reader(interval: float) -> None:
    """Every ``interval``: one query for the campaigns whose journal is past a webhook's cursor, and their
    deliveries made. Its connection stays open between polls (a poll is one indexed read); a failure closes it."""
    while True:
        try:
            fan_out_due()
        except Exception:  # a locked or restarting database: try again next round
            log.exception("Reading the journal into webhook deliveries failed")
            connection.close()
        time.sleep(interval)


def _sweeper() -> None:
    every = max(1.0, settings.WEBHOOK_LEASE_SECONDS / 3)
    stop = threading.Event()
    rounds = 0
    while not stop.wait(0 if rounds == 0 else every):
        try:
            close_old_connections()
            sweep_stale_claims()
            if rounds % 600 == 0:
                prune_old_deliveries()
        except Exception:  # a locked or restarting database: try again next round
            log.exception("Webhook sweep failed")
        finally:
            connection.close()
        rounds += 1
