"""The webhook worker as it runs in production: ``manage.py webhook_worker`` in a process of its own, on the test
database, posting to a real receiver; and killed with SIGKILL mid-delivery, then started again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.db import connection
from django_tasks.base import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from tests.postgres import database_urls
from tests.webhooks.test_webhooks import add_hook, player_roll
from webhooks.models import Delivery

ROOT = Path(__file__).resolve().parents[2]
LEASE_SECONDS = 2


def worker_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "SQLITE_NAME"}}
    db = connection.settings_dict
    if connection.vendor == "postgresql":
        env.update(database_urls())
    else:
        env["SQLITE_NAME"] = str(db["NAME"])
    env.update(
        {
            "DEBUG": "1",
            "PYTHONUNBUFFERED": "1",
            "LOG_LEVEL": "WARNING",
            "WEBHOOKS_ALLOW_PRIVATE": "1",
            "WEBHOOK_RETRY_BASE_SECONDS": "0",
            "WEBHOOK_LEASE_SECONDS": str(LEASE_SECONDS),
        }
    )
    return env


def start_worker(log: Path) -> subprocess.Popen:
    command = [sys.executable, "manage.py", "webhook_worker", "--no-reload", "--interval", "0.05", "--no-startup-delay"]
    with open(log, "a") as out:
        return subprocess.Popen(command, cwd=ROOT, env=worker_env(), stdout=out, stderr=subprocess.STDOUT)


@pytest.fixture
def worker_log(tmp_path):
    return tmp_path / "worker.log"


def wait_started(log: Path, count: int, process: subprocess.Popen) -> None:
    """Until the worker's log says it is taking tasks (its count-th start in this log)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if log.exists() and log.read_text().count("Starting worker") >= count:
            return
        if process.poll() is not None:
            raise RuntimeError(f"the worker exited: {log.read_text()}")
        time.sleep(0.05)
    raise RuntimeError(f"the worker did not start: {log.read_text()}")


@pytest.fixture
def workers(worker_log):
    started: list[subprocess.Popen] = []

    def start() -> subprocess.Popen:
        process = start_worker(worker_log)
        started.append(process)
        wait_started(worker_log, len(started), process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


@pytest.mark.django_db(transaction=True)
def test_a_public_roll_arrives_signed_within_seconds_and_a_gm_only_roll_never(
    as_user, gm, player, hero, receiver, workers, worker_log
):
    hook, secret = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    workers()
    client = as_user(player)
    hidden = player_roll(client, hero, "gm")
    public = player_roll(client, hero, "public")
    assert receiver.wait_for(1, timeout=10), worker_log.read_text()
    got = receiver.got[0]
    assert got.verify(secret)
    assert [item["roll"]["id"] for item in got.json["items"]] == [public.pk]
    time.sleep(1.5)  # time enough for anything else the worker had
    assert len(receiver.got) == 1
    assert hidden.visibility == "gm" and Delivery.objects.count() == 1


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_mid_delivery_is_replaced_and_the_delivery_retried_once(
    as_user, gm, player, hero, receiver, workers, worker_log
):
    receiver.hold_first = threading.Event()  # the first post gets no answer until the worker is dead
    hook, secret = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    first = workers()
    player_roll(as_user(player), hero, "public")
    assert receiver.wait_for(1, timeout=10), worker_log.read_text()
    first.send_signal(signal.SIGKILL)
    first.wait(timeout=10)
    receiver.hold_first.set()
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.SENDING, 1)
    assert DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).count() == 1  # left claimed by the dead

    workers()  # its replacement puts the dead worker's claim back once the lease is over, and runs it
    assert receiver.wait_for(2, timeout=LEASE_SECONDS + 15), worker_log.read_text()
    time.sleep(LEASE_SECONDS + 1.5)  # long enough for a third try, were one coming
    assert len(receiver.got) == 2
    ids = {g.headers["X-Lantern-Delivery"] for g in receiver.got}
    assert ids == {str(delivery.pk)} and len(receiver.unique()) == 1  # a receiver that dedupes keeps one
    assert [g.headers["X-Lantern-Attempt"] for g in receiver.got] == ["1", "2"]
    assert all(g.verify(secret) for g in receiver.got)
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts) == (Delivery.Status.DELIVERED, 2)
    assert Delivery.objects.count() == 1
    assert not DBTaskResult.objects.exclude(status=TaskResultStatus.SUCCESSFUL).exists()
