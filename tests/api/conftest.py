"""API tests: tokens made through the real service, calls through the real URLs with a Bearer header."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.tokens import token_create


def bearer(user, scope: str = "play", campaign=None, name: str = "test") -> Client:
    """A client that sends a new token of ``user`` (no session: the token alone says who calls)."""
    made = token_create(user=user, name=name, scope=scope, campaign_id=campaign.pk if campaign else None)
    return Client(HTTP_AUTHORIZATION=f"Bearer {made.secret}")


@pytest.fixture
def api_as():
    return bearer
