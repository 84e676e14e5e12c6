"""Group checks (issue 40) through the webhooks: the group's line goes to the table's channel when the GM made it
public, never when it is GM-only or blind (nor its outcome in the request's message)."""

from __future__ import annotations

import pytest

from campaigns import commands, session
from campaigns.models import RollRequest
from tests.webhooks.conftest import run_worker
from tests.webhooks.test_webhooks import add_hook, items_of


def _decided(gm, player, hero, rival, seen: str) -> RollRequest:
    asked = session.request_create(
        campaign_id=hero.campaign_id,
        procedure="test",
        fixed={"ability": "BOD", "dn": 1},
        character_ids=[hero.pk, rival.pk],
        minutes=5,
        by=gm,
        rule="all",
        group_seen=seen,
    ).row
    commands.roll_for(hero.campaign_id, request_id=asked.pk, character_id=hero.pk, by=gm)
    commands.skip(hero.campaign_id, request_id=asked.pk, character_id=rival.pk, by=gm)
    asked.refresh_from_db()
    assert asked.group_roll is not None and asked.group_outcome == "pass"
    return asked


@pytest.mark.parametrize("seen", ["public", "gm", "blind"])
def test_the_tables_webhook_gets_the_group_line_only_when_public(seen, as_user, gm, player, hero, rival, receiver):
    add_hook(as_user(gm), "webhooks:campaign", hero.campaign_id, receiver.url, requests="on")
    request = _decided(gm, player, hero, rival, seen)
    run_worker()
    lines = {item["roll"]["id"]: item["roll"] for item in items_of(receiver)}
    requests = [r for item in items_of(receiver, "requests") for r in item["requests"] if r["id"] == request.pk]
    if seen == "public":
        assert lines[request.group_roll_id]["outcome"] == "pass"
        assert "Wren" in lines[request.group_roll_id]["summary"]
        assert requests and requests[-1]["group_outcome"] == "pass"
    else:
        assert request.group_roll_id not in lines
        assert all(r["group_outcome"] == "" for r in requests)
        assert request.group_summary not in str(receiver.got[0].json if receiver.got else "")
