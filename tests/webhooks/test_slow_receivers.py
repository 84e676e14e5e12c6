"""Issue 35 item 13: one receiver that never answers must not stall everyone's webhooks.

The worker runs here in this process, one task at a time in the order it takes them, against two real HTTP
receivers: one that takes every post and never answers (each try waits out the read timeout) and a healthy one.
Every post takes the next number of one count across both (``Received.order``), so the tests bound how long the
healthy webhook waits by what the worker did first, never by the clock."""

from __future__ import annotations

import socket
from unittest import mock

import pytest
from django.urls import reverse

from tests.webhooks.conftest import run_worker
from tests.webhooks.test_webhooks import add_hook, player_roll
from webhooks import sending
from webhooks.models import Delivery, Webhook

READ_SECONDS = 0.2  # a silent receiver's try lasts this long


@pytest.fixture(autouse=True)
def _short_reads(settings):
    settings.WEBHOOK_READ_TIMEOUT_SECONDS = READ_SECONDS
    settings.WEBHOOK_MAX_ATTEMPTS = 6
    settings.WEBHOOK_PAUSE_AFTER_TIMEOUTS = 3


def test_a_healthy_webhook_is_never_held_behind_a_silent_ones_retries_and_the_silent_one_is_paused(
    as_user, gm, player, hero, receiver, silent_receiver
):
    gm_client = as_user(gm)
    silent, _ = add_hook(gm_client, "webhooks:campaign", hero.campaign_id, silent_receiver.url, name="Silent")
    healthy, _ = add_hook(gm_client, "webhooks:campaign", hero.campaign_id, receiver.url, name="Healthy")
    client = as_user(player)
    player_roll(client, hero, "public")
    run_worker(max_tasks=1)  # the silent webhook's first try (its delivery was made first)
    assert (len(silent_receiver.got), len(receiver.got)) == (1, 0)
    player_roll(client, hero, "public")  # a second event while the silent webhook's retry waits in the queue
    run_worker()

    # Both of the healthy webhook's deliveries were attempted before the silent one's second try: its retries
    # never sat ahead of a fresh delivery, whichever event it belonged to.
    assert len(receiver.got) == 2 and len(receiver.unique()) == 2
    assert max(got.order for got in receiver.got) < silent_receiver.got[1].order
    assert Delivery.objects.filter(webhook=healthy, status=Delivery.Status.DELIVERED).count() == 2

    # Three tries in a row timed out: the silent webhook is paused, its second event never posted.
    assert len(silent_receiver.got) == 3
    assert len(silent_receiver.unique()) == 1
    silent.refresh_from_db()
    assert not silent.active and silent.timeouts_in_row == 3
    assert silent.paused_reason.startswith("Paused: its last 3 tries timed out (the receiver gave no answer within")
    first, second = Delivery.objects.filter(webhook=silent).order_by("created_at")
    assert (first.status, first.attempts) == (Delivery.Status.FAILED, 3)
    assert (second.status, second.reason) == (Delivery.Status.DROPPED, "Not sent: the webhook is paused.")

    # Its owner reads why on the webhook's page, and resumes it there.
    page_url = reverse("webhooks:campaign", args=[hero.campaign_id])
    page = gm_client.get(page_url).content.decode()
    assert silent.paused_reason in page and "Resume Silent" in page and "Resume Healthy" not in page
    assert as_user(player).post(reverse("webhooks:resume", args=[silent.pk])).status_code == 404  # not theirs
    assert gm_client.post(reverse("webhooks:resume", args=[silent.pk])).status_code == 302
    silent.refresh_from_db()
    assert silent.active and silent.paused_reason == "" and silent.timeouts_in_row == 0
    silent_receiver.silent = False  # its receiver answers again
    player_roll(client, hero, "public")
    run_worker()
    assert len(silent_receiver.got) == 4 and len(receiver.got) == 3


def test_a_paused_webhook_queues_nothing(as_user, gm, player, hero, silent_receiver):
    from django_tasks_db.models import DBTaskResult

    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, silent_receiver.url)
    Webhook.objects.filter(pk=hook.pk).update(active=False, paused_reason="Paused: testing.")
    player_roll(as_user(player), hero, "public")
    assert not DBTaskResult.objects.exists()


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410, 422])
def test_a_4xx_other_than_408_and_429_is_not_tried_again(as_user, gm, player, hero, receiver, status):
    receiver.statuses = [status]  # a deleted Discord webhook answers 404
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    player_roll(as_user(player), hero, "public")
    run_worker()
    assert len(receiver.got) == 1
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts, delivery.response_status) == (Delivery.Status.FAILED, 1, status)
    assert delivery.reason == (
        f"Gave up after 1 try. The receiver answered {status}: it refuses the request itself, so it is not tried again."
    )
    hook.refresh_from_db()
    assert hook.last_error == delivery.reason and hook.active  # a refusal is not slowness: nothing is paused


@pytest.mark.parametrize("status", [408, 429])
def test_a_408_or_429_is_tried_again(as_user, gm, player, hero, receiver, status):
    receiver.statuses = [status]
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    player_roll(as_user(player), hero, "public")
    run_worker()
    delivery = Delivery.objects.get()
    assert (delivery.status, delivery.attempts, len(receiver.got)) == (Delivery.Status.DELIVERED, 2, 2)


def test_connecting_and_reading_have_their_own_timeouts(settings, silent_receiver):
    settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS = 1.5
    real = socket.create_connection
    seen: list[float | None] = []

    def recording(address, timeout=None, *args, **kwargs):
        seen.append(timeout)
        return real(address, timeout, *args, **kwargs)

    with mock.patch.object(sending.socket, "create_connection", recording):
        answer = sending.post(silent_receiver.url, b"{}", {"Content-Type": "application/json"})
    assert seen == [1.5]  # connected within the connect timeout, then waited the read timeout for an answer
    assert answer.timed_out and not answer.ok
    assert answer.reason == f"The receiver gave no answer within {READ_SECONDS:g} seconds."

    def unreachable(address, timeout=None, *args, **kwargs):
        raise TimeoutError("timed out")

    with mock.patch.object(sending.socket, "create_connection", unreachable):
        answer = sending.post(silent_receiver.url, b"{}", {})
    assert answer.timed_out
    assert answer.reason == "The receiver could not be reached within 1.5 seconds."
