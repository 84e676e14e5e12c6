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
    settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS = 3
    settings.WEBHOOK_READ_TIMEOUT_SECONDS = 3


@pytest.fixture
def silent_receiver():
    """A receiver that takes each post and never answers it: every try times out."""
    running = start_receiver()
    running.silent = True
    yield running
    running.close()


def run_worker(max_tasks: int | None = None) -> None:
    """Run every task that is ready (at most ``max_tasks``), in this process (the worker's own loop, in batch
    mode), in the order the worker takes them, then return.

    The loop closes stale connections between tasks; here that would close the test's own transaction."""
    with mock.patch.object(db_worker, "close_old_connections", lambda: None):
        _worker(max_tasks).run()


def _worker(max_tasks: int | None) -> Worker:
    return Worker(
        queue_names=["default"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=max_tasks,
        worker_id="test-worker",
        excluded_queue_names=[],
    )
