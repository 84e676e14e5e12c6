"""No API call ends in a 500 (issue 28, "bad input: 4xx with a message"): every endpoint, as every kind of token,
with odd path values and odd JSON bodies (junk types, huge numbers, NUL, other scripts, nesting, not JSON at all),
and the roll's inputs drawn from the procedures' real names beside junk ones. Every refusal is JSON with a
``detail`` sentence. Each call runs in a savepoint that is rolled back, so one call never steers the next."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from campaigns import session
from rules import SYSTEMS
from tests.api.conftest import bearer
from tests.conftest import make_character, make_table

pytestmark = pytest.mark.django_db

EDGE_IDS = ["0", "-1", "1", str(2**63 - 1), str(2**63), "9" * 30, "²", "٣", "", "%00", "abc", "1.5"]
JUNK_TEXT = ["", " ", "\x00", "a\x00b", "é☃𝔘", "\u202e", "<b>x</b>", "a" * 10_000, "on", "true", "null", "[]", "-1"]
NUMBERS = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, -1, 1, 2**31, 2**63, -(2**63) - 1, 10**30]),
    st.floats(allow_nan=False, allow_infinity=False),
)
SCALARS = st.one_of(st.none(), st.booleans(), NUMBERS, st.sampled_from(JUNK_TEXT), st.text(max_size=20))
JSON = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
RAW_BODIES = ["", "{", "not json", "[]", "5", "null", '"text"', "\xff", '{"params": ' + "[" * 200 + "]" * 200 + "}"]

ENDPOINTS = [
    ("get", "/api/me"),
    ("get", "/api/characters"),
    ("get", "/api/characters/{character}"),
    ("get", "/api/characters/{character}/requests"),
    ("get", "/api/characters/{character}/procedures"),
    ("post", "/api/characters/{character}/odds/{procedure}"),
    ("post", "/api/characters/{character}/rolls/{procedure}"),
    ("post", "/api/characters/{character}/tracks"),
    ("post", "/api/characters/{character}/requests/{request}/answer"),
    ("get", "/api/campaigns/{campaign}/log"),
    ("get", "/api/campaigns/{campaign}/party"),
    ("get", "/api/campaigns/{campaign}/requests"),
    ("get", "/api/campaigns/{campaign}/stash"),
    ("post", "/api/campaigns/{campaign}/stash/take"),
    ("post", "/api/campaigns/{campaign}/stash/put"),
]


@pytest.fixture
def world(gm, player, other_player, stranger, settings):
    settings.API_CALLS_PER_MINUTE = 10**6
    settings.ROLLS_PER_MINUTE = 10**6
    fell = make_table("fell-draft", gm, player, other_player)
    cc = make_table("chaos-conquest", gm, player, name="Keep")
    hero = make_character(player, fell, name="Wren")
    rival = make_character(other_player, fell, name="Ash", seed=11)
    knight = make_character(player, cc, system="chaos-conquest", name="Knight")
    asked = session.request_create(
        campaign_id=fell.pk, procedure="test", fixed={"ability": "BOD"}, character_ids=[hero.pk], minutes=30, by=gm
    ).row
    ids = {
        "character": [str(c.pk) for c in (hero, rival, knight)],
        "campaign": [str(fell.pk), str(cc.pk)],
        "request": [str(asked.pk)],
        "procedure": sorted({key for c in (hero, knight) for key in SYSTEMS[c.system].procedures()}) + ["fly"],
    }
    params = sorted(
        {p.name for c in (hero, knight) for proc in SYSTEMS[c.system].procedures().values() for p in _params(proc, c)}
    )
    clients = {
        "owner": bearer(player),
        "reader": bearer(player, "read"),
        "other": bearer(other_player),
        "gm": bearer(gm, "table", fell),
        "gm-keep": bearer(gm, "table", cc),
        "stranger": bearer(stranger),
    }
    return {"ids": ids, "params": params, "clients": clients}


def _params(procedure, character):
    try:
        return procedure.params(character.checked_sheet())
    except Exception:  # a procedure whose inputs need more than a sheet: its names come from the others
        return ()


def _bodies(params: list[str]):
    inputs = st.dictionaries(st.sampled_from(params) | st.text(max_size=8), JSON, max_size=5)
    shaped = st.fixed_dictionaries(
        {},
        optional={
            "params": inputs | JSON,
            "visibility": st.sampled_from(["public", "gm", "private", "blind", "everyone", ""]) | JSON,
            "hand": st.sampled_from(["", "4", "6 6", "99", "a\x00b", "1 " * 300]) | JSON,
            "version": st.sampled_from([1, 2, 0, -1, 2**63, None]) | JSON,
            "key": st.sampled_from(["hp", "stress", "protection", "coins", "\x00", ""]) | JSON,
            "delta": st.sampled_from([1, -1, 0, 1000, -1001, 2**63]) | JSON,
            "character": st.sampled_from([1, 2, 3, 0, -1, 2**63]) | JSON,  # the stash's moves
            "item": st.sampled_from([1, 2, 3, 0, 2**63]) | JSON,
            "quantity": st.sampled_from([1, 0, None, 10**7]) | JSON,
        },
    )
    return st.one_of(shaped.map(json.dumps), JSON.map(json.dumps), st.sampled_from(RAW_BODIES))


@pytest.mark.parametrize(("method", "route"), ENDPOINTS)
def test_no_api_call_ends_in_a_server_error(world, method, route):
    names = [part.strip("{}") for part in route.split("/") if part.startswith("{")]

    @settings(
        max_examples=40 if method == "post" else 15,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )
    @given(st.data())
    def one_call(data):
        role = data.draw(st.sampled_from(sorted(world["clients"])), label="who")
        path = route
        for name in names:
            value = data.draw(st.sampled_from(world["ids"][name] + EDGE_IDS), label=name)
            path = path.replace("{" + name + "}", value)
        client = world["clients"][role]
        with transaction.atomic():
            if method == "post":
                body = data.draw(_bodies(world["params"]), label="body")
                response = client.post(path, body, content_type="application/json")
            else:
                query = data.draw(st.dictionaries(st.sampled_from(["before", "x"]), st.sampled_from(EDGE_IDS)))
                response = client.get(path, query)
            transaction.set_rollback(True)
        where = f"{method.upper()} {path!r} as {role}"
        assert response.status_code < 500, where
        if response.status_code >= 400:
            assert response["Content-Type"].startswith("application/json"), where
            detail = response.json().get("detail")
            assert isinstance(detail, str) and detail, where

    one_call()
