"""Issue 35 item 14: one write is one event, one delivery per webhook (docs/webhooks.md: "one task per write").

A roll that costs HP pushes its log line and then the sheet's vitals; each webhook must get one delivery carrying
both, not one for each push (which spent the 30-a-minute budget twice as fast)."""

from __future__ import annotations

import pytest
from django.db import transaction
from django_tasks_db.models import DBTaskResult

from characters.models import Roll
from tests.pages import HTMX, roll_form
from tests.webhooks.conftest import run_worker
from tests.webhooks.test_webhooks import add_hook, player_roll
from webhooks.models import Delivery
from webhooks.outbox import on_push


def fan_outs() -> list[DBTaskResult]:
    return list(DBTaskResult.objects.filter(task_path="webhooks.tasks.fan_out"))


@pytest.mark.django_db(transaction=True)  # each request commits, as it does in production
def test_a_roll_that_changes_hp_sends_one_delivery_carrying_the_roll_and_the_vitals(
    as_user, gm, player, hero, receiver
):
    table, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    own, _ = add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url, vitals="on")
    client = as_user(player)
    hp = hero.state["hp"]
    url, fields = roll_form(client, hero, "take_harm", amount="1")  # seed 000 (Harm and Death): 1 off HP
    response = client.post(url, fields | {"version": hero.version}, **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]
    hero.refresh_from_db()
    assert hero.state["hp"] == hp - 1
    roll = Roll.objects.get(character=hero, procedure="take_harm")

    assert len(fan_outs()) == 1  # one task for the write
    run_worker()
    assert Delivery.objects.filter(webhook=table).count() == 1
    assert Delivery.objects.filter(webhook=own).count() == 1
    assert len(receiver.got) == 2
    for got in receiver.got:
        kinds = [item["kind"] for item in got.json["items"]]
        assert kinds == ["roll", "vitals"]
        roll_item, vitals = got.json["items"]
        assert roll_item["roll"]["id"] == roll.pk
        assert vitals["character"]["id"] == hero.pk
        assert {"key": "hp", "value": hp - 1}.items() <= vitals["tracks"][0].items()


@pytest.mark.django_db(transaction=True)
def test_two_writes_are_two_events(as_user, gm, player, hero, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    client = as_user(player)
    first, second = player_roll(client, hero, "public"), player_roll(client, hero, "public")
    assert len(fan_outs()) == 2
    run_worker()
    assert [[item["roll"]["id"] for item in got.json["items"]] for got in receiver.got] == [[first.pk], [second.pk]]


def test_the_same_part_pushed_twice_in_one_write_is_sent_once(as_user, gm, hero, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    vitals = ["character", hero.pk, ["vitals"]]
    with transaction.atomic():
        on_push(hero.campaign_id, [vitals])
        on_push(hero.campaign_id, [vitals, ["character", hero.pk, ["inventory"]]])  # nothing a webhook reads
    [task] = fan_outs()
    assert task.args_kwargs["args"][1] == [vitals]
    run_worker()
    [got] = receiver.got
    assert [item["kind"] for item in got.json["items"]] == ["vitals"]


def test_a_rolled_back_savepoint_takes_its_parts_and_its_task_with_it(as_user, gm, hero, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    vitals, party = ["character", hero.pk, ["vitals"]], ["party", ["vitals"]]
    with transaction.atomic():
        on_push(hero.campaign_id, [vitals])
        with pytest.raises(RuntimeError), transaction.atomic():
            on_push(hero.campaign_id, [party])  # joins the queued event, then is rolled back
            raise RuntimeError
    [task] = fan_outs()
    assert task.args_kwargs["args"][1] == [vitals]
    run_worker()

    with transaction.atomic():
        with pytest.raises(RuntimeError), transaction.atomic():
            on_push(hero.campaign_id, [party])  # queues the event, then is rolled back with it
            raise RuntimeError
        on_push(hero.campaign_id, [vitals])  # queues it again
    ready = [task for task in fan_outs() if task.status == "READY"]
    assert [task.args_kwargs["args"][1] for task in ready] == [[vitals]]
