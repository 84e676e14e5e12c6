from __future__ import annotations

from unittest import mock

import pytest
from django_tasks_db.management.commands import db_worker
from django_tasks_db.management.commands.db_worker import Worker

from tests.webhooks.receiver import start_receiver


@pytest.fixture
def receiver():
    running = start_receiver()
    yield running
    running.close()


@pytest.fixture(autouse=True)
def _webhook_settings(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True  # the receiver listens on 127.0.0.1
    settings.WEBHOOK_RETRY_BASE_SECONDS = 0
    settings.WEBHOOK_TIMEOUT_SECONDS = 3


def run_worker() -> None:
    """Run every task that is ready, in this process (the worker's own loop, in batch mode), then return.

    The loop closes stale connections between tasks; here that would close the test's own transaction."""
    with mock.patch.object(db_worker, "close_old_connections", lambda: None):
        _worker().run()


def _worker() -> Worker:
    return Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
