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
def pushed(campaign):
    """What the writes recorded in the table's journal from now on (tests/recorded.py): what every reader gets."""
    from tests.recorded import Since

    return Since(campaign.pk)
