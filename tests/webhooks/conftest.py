from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from django_tasks_db.management.commands import db_worker
from django_tasks_db.management.commands.db_worker import Worker

from tests.webhooks.receiver import start_receiver
from webhooks.services import fan_out_due


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
    """Do what one round of the worker does, in this process: read the journal into deliveries (its reader), then
    run every task that is ready (at most ``max_tasks``: the worker's own loop, in batch mode), in the order the
    worker takes them, then return.

    The loop closes stale connections between tasks; here that would close the test's own transaction."""
    fan_out_due()
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


def pytest_collection_modifyitems(items):
    """Every webhook test commits its writes, as production does: each write is then its own journal entry (under
    the default rolled-back test transaction every write of a test would join the first one's entry)."""
    here = str(Path(__file__).parent)
    for item in items:
        uses_db = "db" in getattr(item, "fixturenames", ()) or item.get_closest_marker("django_db") is not None
        if str(item.path).startswith(here) and uses_db:
            item.add_marker(pytest.mark.django_db(transaction=True), append=False)
