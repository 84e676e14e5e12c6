"""Malformed input gets a readable refusal or a 404 and changes nothing: never a 500 (issue 9, finding 8)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from campaigns.models import Campaign, Membership
from campaigns.services import CLOCK_LIMIT
from characters.models import Character, Roll
from core.converters import MAX_ID, parse_id
from tests.pages import text_of

HX = {"HTTP_HX_REQUEST": "true"}
THIRTY_DIGITS = "9" * 30


def client_of(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


@pytest.mark.parametrize("code", ["/", "//", " / ", "https://lantern.example/ /"])
def test_a_join_code_that_cleans_to_nothing_is_refused_readably(code, stranger, campaign):
    response = client_of(stranger).post(reverse("campaigns:join_form"), {"code": code})
    assert response.status_code == 400
    assert "Paste the invite code" in text_of(response)
    assert not Membership.objects.filter(user=stranger).exists()


def test_an_invite_code_with_a_nul_byte_is_an_unknown_code(stranger, campaign):
    response = client_of(stranger).get("/campaigns/join/a%00b/")
    assert response.status_code == 404


def test_a_pasted_invite_link_still_joins(stranger, campaign):
    link = f"https://lantern.example/campaigns/join/{campaign.invite_code}/"
    response = client_of(stranger).post(reverse("campaigns:join_form"), {"code": link})
    assert response.status_code == 302
    assert response["Location"] == reverse("campaigns:join", kwargs={"code": campaign.invite_code})


@pytest.mark.parametrize("campaign_id", ["²", "٣", THIRTY_DIGITS, str(MAX_ID + 1), "-1", "0", "1e3", " "])
def test_a_new_character_for_a_campaign_id_that_is_no_id_is_refused_readably(campaign_id, player, campaign):
    client = client_of(player)
    response = client.get(reverse("characters:create"), {"system": "fell-draft", "campaign": campaign_id})
    assert response.status_code == 302
    assert "only bring a character to a campaign you sit at" in text_of(client.get(response["Location"]))
    assert not Character.objects.exists()


@pytest.mark.parametrize("action", ["campaigns:remove_player", "campaigns:transfer_gm"])
@pytest.mark.parametrize("user_id", [THIRTY_DIGITS, str(MAX_ID + 1), "-1", "²"])
def test_a_member_action_on_a_user_id_beyond_range_is_refused_readably(action, user_id, gm, campaign):
    client = client_of(gm)
    before = list(campaign.memberships.values_list("user_id", "role").order_by("user_id"))
    response = client.post(reverse(action, args=[campaign.pk]), {"user_id": user_id})
    assert response.status_code == 302
    assert "Pick a person at this table." in text_of(client.get(response["Location"]))
    assert list(campaign.memberships.values_list("user_id", "role").order_by("user_id")) == before


@pytest.mark.parametrize(
    "path",
    [
        f"/campaigns/{THIRTY_DIGITS}/",
        f"/campaigns/{MAX_ID + 1}/",
        f"/campaigns/{MAX_ID}/",
        "/campaigns/٣/",
        f"/characters/{THIRTY_DIGITS}/",
        f"/characters/1/items/{THIRTY_DIGITS}/remove/",
        f"/campaigns/1/cards/{MAX_ID + 1}/",
        f"/characters/{MAX_ID + 1}/roll/free/",
    ],
)
@pytest.mark.parametrize("method", ["get", "post"])
def test_ids_beyond_the_databases_integer_range_are_404(path, method, gm, campaign):
    response = getattr(client_of(gm), method)(path)
    assert response.status_code in (404, 405)


def test_ids_parse_only_from_ascii_digits_within_range():
    assert [parse_id(v) for v in ["7", " 7 ", str(MAX_ID), str(MAX_ID + 1), "²", "", None, "0", "-3", "7x"]] == [
        7,
        7,
        MAX_ID,
        None,
        None,
        None,
        None,
        None,
        None,
        None,
    ]


def test_a_nul_byte_in_a_rolls_text_is_refused_readably(gm, campaign):
    response = client_of(gm).post(
        reverse("campaigns:gm_roll", args=[campaign.pk]), {"count": 1, "sides": "6", "label": "luck\x00die"}, **HX
    )
    assert response.status_code == 422
    assert "What is it for? cannot contain a NUL character." in text_of(response)
    assert not Roll.objects.exists()


@pytest.mark.parametrize(
    ("field", "start", "data", "message"),
    [
        ("round", 0, {"action": "next_round"}, "run from the encounter tracker"),
        ("game_minutes", CLOCK_LIMIT - 10, {"action": "advance", "minutes": "11"}, "cannot count that far"),
        ("game_minutes", CLOCK_LIMIT, {"action": "advance", "minutes": "1"}, "cannot count that far"),
    ],
)
def test_the_game_clock_at_its_limit_refuses_readably(field, start, data, message, gm, campaign):
    Campaign.objects.filter(pk=campaign.pk).update(**{field: start})
    response = client_of(gm).post(reverse("campaigns:clock", args=[campaign.pk]), data, **HX)
    assert response.status_code == 422
    assert message in text_of(response)
    campaign.refresh_from_db()
    assert getattr(campaign, field) == start


def test_the_game_clock_reaches_its_limit_exactly(gm, campaign):
    Campaign.objects.filter(pk=campaign.pk).update(game_minutes=CLOCK_LIMIT - 11)
    client = client_of(gm)
    client.post(reverse("campaigns:clock", args=[campaign.pk]), {"action": "advance", "minutes": "11"}, **HX)
    campaign.refresh_from_db()
    assert campaign.game_minutes == CLOCK_LIMIT
