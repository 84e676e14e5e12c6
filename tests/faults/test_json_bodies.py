"""Every JSON body the app reads goes through one reader (core.json_body): whatever is malformed about it, the
answer is a 400 with a sentence and nothing changes, never a 500 (issue 35, item 10).

The offline changes' endpoint answered 500 to ``[`` × 19,000 (well within its 20,000-byte cap): the JSON decoder's
``RecursionError`` is no ``ValueError``, and its handler caught only those.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.urls import reverse

from characters.models import Character, Roll
from core.json_body import MAX_DEPTH, MalformedJson, json_object
from tests.api.conftest import bearer

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
CHANGE = '{"key": "abcdefgh-1", "version": 1, "kind": "track", "track": "hp", "delta": %s}'
MALFORMED = {
    "nested 19,000 deep": b"[" * 19_000,
    "objects nested 3,900 deep": b'{"a":' * 3_900,
    "nested past the bound": b'{"a": ' + b"[" * MAX_DEPTH + b"]" * MAX_DEPTH + b"}",
    "bad UTF-8": b'{"key": "\xff\xfe"}',
    "a lone surrogate": b'{"key": "\\ud800"}',
    "a NUL character": b'{"key": "a\\u0000b"}',
    "a list": b"[1, 2]",
    "a string": b'"hp"',
    "a number": b"7",
    "null": b"null",
    "nothing": b" ",
    "not JSON": b"hp -1",
    "a 5,000-digit number": (CHANGE % ("1" * 5_000)).encode(),
    "a 20-digit number": (CHANGE % ("-" + "9" * 20)).encode(),
    "1e999": (CHANGE % "1e999").encode(),
    "NaN": (CHANGE % "NaN").encode(),
    "-Infinity": (CHANGE % "-Infinity").encode(),
}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_the_reader_refuses_every_malformed_body_with_a_sentence(raw):
    with pytest.raises(MalformedJson) as refused:
        json_object(raw)
    assert refused.value.status == 400
    assert str(refused.value).startswith("Send ")


def test_the_reader_takes_what_the_app_sends():
    body = b'{"key": "abcdefgh-1", "version": 3, "fields": {"dice": [1, 2.5, -3]}, "notes": "caf\\u00e9"}'
    assert json_object(body) == {"key": "abcdefgh-1", "version": 3, "fields": {"dice": [1, 2.5, -3]}, "notes": "café"}


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
def test_the_offline_endpoint_answers_400_with_a_sentence_and_changes_nothing(raw, as_user, player, hero):
    before = Character.objects.get(pk=hero.pk)
    answer = as_user(player).post(
        reverse("characters:offline_sync", args=[hero.pk]), raw, content_type="application/json"
    )
    assert answer.status_code == 400
    assert answer.json()["outcome"] == "refused"
    assert answer.json()["message"].startswith("Send ")
    after = Character.objects.get(pk=hero.pk)
    assert (after.version, after.state) == (before.version, before.state)


@pytest.mark.parametrize("raw", MALFORMED.values(), ids=MALFORMED.keys())
@pytest.mark.parametrize("endpoint", ["rolls/test", "tracks"])
def test_the_api_answers_400_with_the_same_sentence_and_changes_nothing(raw, endpoint, player, hero):
    before, rolls = Character.objects.get(pk=hero.pk), Roll.objects.count()
    answer = bearer(player).send(f"/api/characters/{hero.pk}/{endpoint}", raw)
    assert answer.status_code == 400
    with pytest.raises(MalformedJson) as refused:
        json_object(raw)
    assert answer.json()["detail"] == str(refused.value)
    after = Character.objects.get(pk=hero.pk)
    assert (after.version, after.state, Roll.objects.count()) == (before.version, before.state, rolls)


BODY_READ = re.compile(r"json\.loads?\([^)]*\b(body|request|stream)\b")


def test_every_json_request_body_is_read_by_the_one_reader():
    """No view parses a request body with json.loads itself: core.json_body is the one place."""
    readers = []
    for package in ("accounts", "api", "campaigns", "characters", "config", "core", "live", "webhooks"):
        for path in (ROOT / package).rglob("*.py"):
            if path.name != "json_body.py" and BODY_READ.search(path.read_text()):
                readers.append(str(path.relative_to(ROOT)))
    assert readers == [], "parse request bodies with core.json_body.json_object"
