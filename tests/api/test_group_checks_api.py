"""Group checks (issue 40) through the API: the GM closes or skips through a table token, the same commands as the
page; the event feed shows a GM-only or blind group's outcome to the GM alone."""

from __future__ import annotations

import pytest

from campaigns import session
from campaigns.models import RollRequest
from live import journal
from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db(transaction=True)


def _asked(gm, hero, rival, **how) -> RollRequest:
    return session.request_create(
        campaign_id=hero.campaign_id,
        procedure="test",
        fixed={"ability": "BOD", "dn": 30},
        character_ids=[hero.pk, rival.pk],
        minutes=5,
        by=gm,
        **how,
    ).row


def _grouped(client, campaign, after: int) -> list[dict]:
    body = client.get(f"/api/campaigns/{campaign.pk}/events", {"after": after}).json()
    return [event for entry in body["entries"] for event in entry["events"] if event["kind"] == "request.grouped"]


@pytest.mark.parametrize(("seen", "player_sees"), [("public", True), ("gm", False), ("blind", False)])
def test_the_feed_shows_the_groups_outcome_as_the_gm_chose(seen, player_sees, campaign, gm, player, hero, rival):
    start = journal.head(campaign.pk)
    request = _asked(gm, hero, rival, rule="any", group_seen=seen)
    answered = bearer(player).send(f"/api/characters/{hero.pk}/requests/{request.pk}/answer", {})
    assert answered.status_code == 200, answered.content
    closed = bearer(gm, "table", campaign).post(f"/api/campaigns/{campaign.pk}/requests/{request.pk}/close")
    assert closed.status_code == 200, closed.content
    body = closed.json()
    assert body["request"]["status"] == "closed" and body["request"]["group_outcome"] == "fail"  # DN 30
    assert body["request"]["rule"] == "any" and body["request"]["group_odds"] == {"pass": "0/1", "fail": "1/1"}
    roll = body["group_roll_id"]
    [event] = _grouped(bearer(gm), campaign, start)
    assert event["roll"] == roll and event["request"] == request.pk
    assert bool(_grouped(bearer(player), campaign, start)) == player_sees
    log = bearer(player).get(f"/api/campaigns/{campaign.pk}/log").json()["rolls"]
    assert (roll in [r["id"] for r in log]) == player_sees


def test_only_the_gms_table_token_closes_or_skips(campaign, gm, player, hero, rival):
    request = _asked(gm, hero, rival, rule="all")
    for client in (bearer(player), bearer(gm)):  # a player's token; the GM's play token is not a table token
        assert client.post(f"/api/campaigns/{campaign.pk}/requests/{request.pk}/close").status_code in (403, 404)
        skip = f"/api/campaigns/{campaign.pk}/requests/{request.pk}/skip/{rival.pk}"
        assert client.post(skip).status_code in (403, 404)
    table = bearer(gm, "table", campaign)
    skipped = table.post(f"/api/campaigns/{campaign.pk}/requests/{request.pk}/skip/{rival.pk}")
    assert skipped.status_code == 200
    assert {a["character_id"]: a["skipped"] for a in skipped.json()["request"]["answers"]} == {
        hero.pk: False,
        rival.pk: True,
    }
    again = table.post(f"/api/campaigns/{campaign.pk}/requests/{request.pk}/skip/{rival.pk}")
    assert again.status_code == 422 and "not waited for" in again.json()["detail"]
    request.refresh_from_db()
    assert request.answers.get(character=rival).skipped and request.group_roll is None
