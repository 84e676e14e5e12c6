"""Issue 37: the outbox is the journal. One write is one journal entry, and each webhook gets one delivery per entry,
by construction (issue 35 item 14 before it: a roll that costs HP once sent two); nothing about webhooks runs in
a write (issue 39)."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django_tasks_db.models import DBTaskResult

from characters.models import Roll
from live import events as ev
from live.journal import head, record
from live.models import Entry
from tests.pages import HTMX, roll_form
from tests.webhooks.conftest import run_worker
from tests.webhooks.test_webhooks import add_hook, player_roll
from webhooks.models import Delivery, Webhook
from webhooks.services import campaigns_behind, fan_out, fan_out_due


def take_harm(client, character, amount: str = "1") -> Roll:
    url, fields = roll_form(client, character, "take_harm", amount=amount)  # seed 000 (Harm and Death): off HP
    response = client.post(url, fields | {"version": character.version}, **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]
    character.refresh_from_db()
    return Roll.objects.filter(character=character, procedure="take_harm").latest("pk")


@pytest.mark.django_db(transaction=True)  # each request commits, as it does in production
def test_a_roll_that_changes_hp_sends_one_delivery_carrying_the_roll_and_the_vitals(
    as_user, gm, player, hero, receiver
):
    table, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    own, _ = add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url, vitals="on")
    hp = hero.state["hp"]
    roll = take_harm(as_user(player), hero)
    assert hero.state["hp"] == hp - 1
    assert Entry.objects.filter(campaign_id=hero.campaign_id, cursor__gt=table.cursor).count() == 1  # one write

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
    run_worker()  # read again: nothing more
    assert Delivery.objects.count() == 2 and len(receiver.got) == 2


@pytest.mark.django_db(transaction=True)
def test_two_writes_are_two_deliveries_in_the_journals_order(as_user, gm, player, hero, receiver):
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    client = as_user(player)
    first, second = player_roll(client, hero, "public"), player_roll(client, hero, "public")
    run_worker()
    assert [[item["roll"]["id"] for item in got.json["items"]] for got in receiver.got] == [[first.pk], [second.pk]]
    entries = Entry.objects.filter(campaign_id=hero.campaign_id, cursor__gt=hook.cursor).order_by("cursor")
    assert sorted(Delivery.objects.values_list("event", flat=True)) == sorted(str(e.pk) for e in entries)
    hook.refresh_from_db()
    assert hook.cursor == head(hero.campaign_id)


def test_the_same_event_recorded_twice_in_one_write_is_sent_once(as_user, gm, hero, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    vitals = ev.SheetChanged(character=hero.pk, regions=("vitals",))
    with transaction.atomic():
        record(hero.campaign_id, vitals)
        record(hero.campaign_id, vitals, ev.SheetChanged(character=hero.pk, regions=("inventory",)))
    run_worker()
    [got] = receiver.got
    assert [item["kind"] for item in got.json["items"]] == ["vitals"]


def test_a_rolled_back_write_sends_nothing(as_user, gm, hero, receiver):
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    with pytest.raises(RuntimeError), transaction.atomic():
        record(hero.campaign_id, ev.SheetChanged(character=hero.pk, regions=("vitals",)))
        raise RuntimeError
    run_worker()
    assert receiver.got == [] and not Delivery.objects.exists()
    hook.refresh_from_db()
    assert hook.cursor == head(hero.campaign_id)


def test_a_crash_between_the_deliveries_and_the_cursor_makes_no_second_delivery(as_user, gm, player, hero, receiver):
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    before = hook.cursor
    client = as_user(player)
    rolls = [player_roll(client, hero, "public") for _ in range(2)]
    # A first worker made the deliveries; its cursor's move was lost (killed before the commit of a fan-out that
    # did not hold both in one transaction, or a cursor set back by hand): the next one reads the entries again.
    fan_out_due()
    Webhook.objects.filter(pk=hook.pk).update(cursor=before)
    assert campaigns_behind() == [hero.campaign_id]
    assert fan_out(hero.campaign_id) == (0, False)
    hook.refresh_from_db()
    assert hook.cursor == head(hero.campaign_id)
    run_worker()
    assert Delivery.objects.count() == 2
    assert sorted(item["roll"]["id"] for got in receiver.got for item in got.json["items"]) == [r.pk for r in rolls]
    assert len(receiver.got) == 2


def test_a_crash_inside_the_fan_out_leaves_the_cursor_and_makes_nothing(as_user, gm, player, hero, receiver):
    from unittest import mock

    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    before = hook.cursor
    player_roll(as_user(player), hero, "public")
    with mock.patch("webhooks.services._queue_send", side_effect=RuntimeError("killed")), pytest.raises(RuntimeError):
        fan_out_due()
    hook.refresh_from_db()
    assert hook.cursor == before and not Delivery.objects.exists()
    run_worker()
    assert Delivery.objects.count() == 1 and len(receiver.got) == 1


def test_one_round_reads_at_most_its_limit_and_the_next_reads_on(as_user, gm, player, hero, receiver):
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    client = as_user(player)
    rolls = [player_roll(client, hero, "public") for _ in range(3)]
    assert fan_out(hero.campaign_id, limit=2) == (2, True)
    assert fan_out(hero.campaign_id, limit=2) == (1, False)
    run_worker()
    assert [item["roll"]["id"] for got in receiver.got for item in got.json["items"]] == [r.pk for r in rolls]


def test_a_webhook_added_later_gets_nothing_from_before_it_existed(as_user, gm, player, hero, receiver):
    early, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, name="Early")
    before = player_roll(as_user(player), hero, "public")
    late, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, name="Late")
    assert late.cursor == head(hero.campaign_id) > early.cursor
    after = player_roll(as_user(player), hero, "public")
    run_worker()
    rolls = {
        hook: [item["roll"]["id"] for d in Delivery.objects.filter(webhook=hook) for item in items(d)]
        for hook in (early, late)
    }
    assert sorted(rolls[early]) == [before.pk, after.pk]
    assert rolls[late] == [after.pk]


def test_a_paused_webhook_resumed_gets_nothing_from_while_it_was_paused(as_user, gm, player, hero, receiver):
    hook, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url)
    Webhook.objects.filter(pk=hook.pk).update(active=False, paused_reason="Paused: …")
    player_roll(as_user(player), hero, "public")
    run_worker()
    assert not Delivery.objects.exists()
    hook.refresh_from_db()
    hook.resume()
    assert hook.cursor == head(hero.campaign_id)
    after = player_roll(as_user(player), hero, "public")
    run_worker()
    assert [item["roll"]["id"] for got in receiver.got for item in got.json["items"]] == [after.pk]


def items(delivery: Delivery) -> list[dict]:
    import json

    return json.loads(delivery.body)["items"]


def test_a_write_at_a_table_with_no_webhook_runs_no_webhook_query(as_user, player, hero):
    client = as_user(player)
    url, fields = roll_form(client, hero, "take_harm", amount="1")
    with CaptureQueriesContext(connection) as captured:
        response = client.post(url, fields | {"version": hero.version}, **HTMX)
    assert response.status_code == 200
    assert Entry.objects.filter(campaign_id=hero.campaign_id).exists()  # the write was journalled
    touching = [q["sql"] for q in captured.captured_queries if "webhooks_" in q["sql"] or "django_tasks" in q["sql"]]
    assert touching == []
    assert not DBTaskResult.objects.exists()


def test_a_write_at_a_table_with_webhooks_runs_no_webhook_query_either(as_user, gm, player, hero, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, vitals="on")
    client = as_user(player)
    url, fields = roll_form(client, hero, "take_harm", amount="1")
    with CaptureQueriesContext(connection) as captured:
        response = client.post(url, fields | {"version": hero.version}, **HTMX)
    assert response.status_code == 200
    touching = [q["sql"] for q in captured.captured_queries if "webhooks_" in q["sql"] or "django_tasks" in q["sql"]]
    assert touching == []  # the worker reads the journal later; the write only appended its entry


def test_each_events_seen_decides_which_webhook_may_carry_it(as_user, gm, player, hero, receiver):
    """A GM-only change of the hero's vitals (a held change) reaches no webhook, not even the hero's owner's; a
    change only the player may know of reaches their character's webhook, never the table's."""
    table, _ = add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, rolls=None, vitals="on")
    own, _ = add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url, rolls=None, vitals="on")
    vitals = {"character": hero.pk, "regions": ("vitals",)}
    record(hero.campaign_id, ev.SheetChanged(**vitals, seen=ev.gm_only()))
    record(hero.campaign_id, ev.SheetChanged(**vitals, seen=ev.Seen("private", (player.pk,))))
    record(hero.campaign_id, ev.SheetChanged(**vitals, seen=ev.Seen("blind", (gm.pk,))))
    run_worker()
    assert list(Delivery.objects.values_list("webhook_id", flat=True)) == [own.pk]
    [got] = receiver.got
    assert got.json["character"]["id"] == hero.pk and [i["kind"] for i in got.json["items"]] == ["vitals"]
