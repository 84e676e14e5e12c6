"""Issue 36 item 12 (its Discord part): a roll request's message carries the request that changed, with who
answered and how, not every request of the evening again."""

from __future__ import annotations

from django.urls import reverse

from campaigns.models import RollRequest
from tests.pages import HTMX, form_fields
from tests.webhooks.conftest import run_worker
from tests.webhooks.test_webhooks import _table_post, add_hook, items_of


def ask(client, campaign, *characters, blind: bool = False) -> RollRequest:
    action = reverse("campaigns:request_new", args=[campaign.pk])
    changes = {"fix-ability": "BOD", "fix-dn": "6", "characters": [c.pk for c in characters]}
    if blind:
        changes["blind"] = "on"
    assert _table_post(client, campaign, action, **changes).status_code == 200
    return RollRequest.objects.latest("pk")


def answer(client, request: RollRequest, character) -> None:
    campaign_id = request.campaign_id
    region = client.get(reverse("campaigns:sheet_requests", args=[campaign_id, character.pk]))
    action = reverse("campaigns:request_answer", args=[campaign_id, request.pk, character.pk])
    response = client.post(action, form_fields(region, action), **HTMX)
    assert response.status_code == 200, response.content.decode()[:500]


def embeds(receiver) -> list[dict]:
    """The embeds of the one post the last worker run made, and that post alone."""
    [got] = receiver.got
    receiver.got.clear()
    return got.json["embeds"]


def test_discord_gets_only_the_request_that_changed_with_who_answered_and_how(
    as_user, gm, player, hero, rival, receiver
):
    campaign = hero.campaign
    add_hook(as_user(gm), "webhooks:campaign", campaign.pk, receiver.url, format="discord", rolls=None, requests="on")
    gm_client = as_user(gm)
    earlier = ask(gm_client, campaign, hero)
    run_worker()
    [embed] = embeds(receiver)
    assert embed["title"].startswith("Roll request: ")
    assert embed["description"].splitlines() == ["· Wren: not rolled yet", "0 of 1 rolled."]

    request = ask(gm_client, campaign, hero, rival)
    run_worker()
    [embed] = embeds(receiver)  # the new request alone, not the earlier one again
    assert embed["description"].splitlines() == ["· Ash: not rolled yet", "· Wren: not rolled yet", "0 of 2 rolled."]

    answer(as_user(player), request, hero)
    run_worker()
    outcome = request.answers.get(character=hero).outcome
    assert outcome
    [embed] = embeds(receiver)  # the answered request alone: who rolled, and what came of it
    assert embed["description"].splitlines() == [f"✓ Wren: {outcome}", "· Ash: not rolled yet", "1 of 2 rolled."]
    assert earlier.pk != request.pk

    cancel = reverse("campaigns:request_cancel", args=[campaign.pk, request.pk])
    assert gm_client.post(cancel, **HTMX).status_code == 200
    run_worker()
    [embed] = embeds(receiver)
    assert embed["description"].splitlines()[-1] == "Cancelled by the GM."
    assert f"✓ Wren: {outcome}" in embed["description"]


def test_a_blind_requests_answers_say_who_rolled_never_what_came_of_it(as_user, gm, player, hero, receiver):
    campaign = hero.campaign
    add_hook(as_user(gm), "webhooks:campaign", campaign.pk, receiver.url, format="discord", rolls=None, requests="on")
    request = ask(as_user(gm), campaign, hero, blind=True)
    run_worker()
    receiver.got.clear()
    answer(as_user(player), request, hero)
    run_worker()
    [embed] = embeds(receiver)
    assert embed["title"].endswith("· blind")
    assert embed["description"].splitlines() == ["✓ Wren: rolled blind, the GM has the result", "Everyone has rolled."]
    outcome = request.answers.get().outcome
    assert outcome and outcome not in embed["description"]


def test_lanterns_json_carries_the_changed_request_and_a_characters_webhook_only_its_characters(
    as_user, gm, player, hero, rival, receiver
):
    campaign = hero.campaign
    add_hook(as_user(player), "webhooks:character", hero.pk, receiver.url, format="json", rolls=None, requests="on")
    gm_client = as_user(gm)
    ask(gm_client, campaign, rival)  # not Wren's: Wren's webhook hears nothing of it
    run_worker()
    assert receiver.got == []
    request = ask(gm_client, campaign, hero)
    run_worker()
    receiver.got.clear()
    answer(as_user(player), request, hero)
    run_worker()
    [item] = items_of(receiver, "requests")
    [line] = item["requests"]
    assert (line["id"], line["status"], line["asked"], line["answered"]) == (request.pk, "answered", 1, 1)
    [only] = line["answers"]
    assert only["character"] == {"id": hero.pk, "name": "Wren"} and only["answered"]
    assert only["outcome"] == request.answers.get().outcome and only["by_hand"] is False
