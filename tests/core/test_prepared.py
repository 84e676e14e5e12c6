"""core.prepared: a query compiled once gives the ORM's own rows (converted values, related rows), with an id's
sentinels or others (a string key) (issue 39)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from accounts.models import Session
from core.prepared import Prepared


@pytest.mark.django_db
def test_a_prepared_row_is_the_orms_row(player):
    by_pk = Prepared(lambda pk: get_user_model().objects.filter(pk=pk), 1)
    got, want = by_pk.first(player.pk), get_user_model().objects.get(pk=player.pk)
    assert got == want and got.date_joined == want.date_joined and got.date_joined.tzinfo is not None
    assert got.is_active is True  # a boolean, not SQLite's 1
    assert by_pk.first(player.pk + 1000) is None
    assert by_pk.first(player.pk).username == "player"  # compiled once, asked again


@pytest.mark.django_db
def test_a_string_sentinel_and_a_related_row(player, as_user):
    client = as_user(player)
    key = client.cookies["sessionid"].value
    by_key = Prepared(lambda k: Session.objects.filter(session_key=k).select_related("user"), 1, sentinels=("\x00k",))
    session = by_key.first(key)
    assert session.user == player and session.expire_date == Session.objects.get(pk=key).expire_date
    assert by_key.first("no-such-key") is None


@pytest.mark.django_db
def test_an_input_the_query_never_uses_is_refused():
    never = Prepared(lambda pk: get_user_model().objects.all(), 1)
    with pytest.raises(ValueError, match="never uses"):
        never.first(1)
