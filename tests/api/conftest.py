"""API tests: tokens made through the real service, calls through the real URLs with a Bearer header."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.tokens import token_create


class ApiClient(Client):
    """A client that sends one token of its user on every call (no session: the token alone says who calls)."""

    def __init__(self, secret: str) -> None:
        super().__init__(HTTP_AUTHORIZATION=f"Bearer {secret}")
        self.secret = secret

    def send(self, path: str, body) -> object:
        raw = body if isinstance(body, str | bytes) else json.dumps(body)
        return self.post(path, raw, content_type="application/json")


def bearer(user, scope: str = "play", campaign=None, name: str = "test") -> ApiClient:
    made = token_create(user=user, name=name, scope=scope, campaign_id=campaign.pk if campaign else None)
    return ApiClient(made.secret)


@pytest.fixture
def api_as():
    """``api_as(player)`` a play token; ``api_as(player, "read")``; ``api_as(gm, "table", campaign)``."""
    return bearer


@pytest.fixture
def pushed(monkeypatch):
    """The events each write recorded (live.journal.record), as JSON, in order. Read from each call rather than
    from the entries: inside a test's one transaction every write joins the first write's entry."""
    from live import journal

    events: list[dict] = []
    real = journal._unique  # each record() call's events pass through it once

    def recording(payload):
        events.extend(payload)
        return real(payload)

    monkeypatch.setattr(journal, "_unique", recording)
    return events
