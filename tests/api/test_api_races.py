"""API calls at once lose nothing and break no cap (issue 28): they go through the pages' services and locks, and
the token's own counts (its calls a minute, an account's tokens) are kept in the database under a lock.

Threads released together by a barrier (tests/races.py); on SQLite writers queue anyway, on PostgreSQL this is the
real race."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.models import ApiToken
from accounts.tokens import token_create
from characters.models import Character
from tests.conftest import make_character, make_table, make_user
from tests.races import together

pytestmark = pytest.mark.django_db(transaction=True)

RACES = 8


def _client(user, scope="play", campaign=None, name="race") -> Client:
    made = token_create(user=user, name=name, scope=scope, campaign_id=campaign.pk if campaign else None)
    return Client(HTTP_AUTHORIZATION=f"Bearer {made.secret}")


def test_track_changes_at_once_through_the_api_all_land():
    gm, player = make_user("racegm"), make_user("raceplayer")
    campaign = make_table("fell-draft", gm, player)
    hero = make_character(player, campaign)
    clients = [_client(player, name=f"p{n}") for n in range(RACES // 2)]
    clients += [_client(gm, "table", campaign, name=f"g{n}") for n in range(RACES // 2)]
    statuses: list[int] = []

    def change(client):
        def call():
            body = json.dumps({"key": "fatigue", "delta": 1})
            response = client.post(f"/api/characters/{hero.pk}/tracks", body, content_type="application/json")
            statuses.append(response.status_code)

        return call

    assert together(*(change(c) for c in clients)) == []
    assert statuses == [200] * RACES
    assert Character.objects.get(pk=hero.pk).state["fatigue"] == RACES  # none lost


def test_calls_at_once_keep_to_the_token_s_minute(settings):
    settings.API_CALLS_PER_MINUTE = 5
    player = make_user("counted")
    client = _client(player)
    assert client.get("/api/me").status_code == 200  # the minute has started
    statuses: list[int] = []

    def call():
        statuses.append(client.get("/api/me").status_code)

    assert together(*([call] * RACES)) == []
    assert sorted(statuses) == [200] * 4 + [429] * (RACES - 4)


def test_tokens_made_at_once_keep_to_the_account_s_cap(settings):
    settings.API_TOKENS_PER_USER = 3
    player = make_user("maker")
    token_create(user=player, name="first", scope="read")

    def make(n):
        return lambda: token_create(user=player, name=f"t{n}", scope="read")

    assert together(*(make(n) for n in range(RACES))) == []  # the refusals are TokenError, a Refusal
    assert ApiToken.objects.filter(user=player).count() == 3
