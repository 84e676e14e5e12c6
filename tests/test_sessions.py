"""The session and its user read for less (issue 39, accounts/sessions.py): two statements and no write for a
logged-in page, and every refusal Django makes still made on the next request."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import HASH_SESSION_KEY
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from accounts.models import Session
from tests.conftest import make_character

WRITES = ("INSERT", "UPDATE", "DELETE")


def _sheet(player, as_user):
    hero = make_character(player)
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200  # warm: the character's query compiled
    return client, hero.get_absolute_url()


def test_a_logged_in_page_reads_the_session_and_its_user_in_one_statement_and_writes_nothing(player, as_user):
    client, url = _sheet(player, as_user)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    sql = [q["sql"] for q in captured]
    (session,) = [q for q in sql if '"accounts_session"' in q]
    assert 'JOIN "auth_user"' in session
    assert not [q for q in sql if 'FROM "auth_user"' in q]  # no user read of its own
    assert not [q for q in sql if q.lstrip().upper().startswith(WRITES)]


def test_the_sheet_costs_two_queries_with_the_floor(player, campaign, as_user):
    hero = make_character(player, campaign)
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200
    with CaptureQueriesContext(connection) as captured:
        assert client.get(hero.get_absolute_url()).status_code == 200
    # The session with its user; the character with its seat and the journal head (the log kept: not in a test's
    # transaction, where it is drawn afresh, so counted here without it).
    assert len([q for q in captured if "characters_roll" not in q["sql"]]) == 2


def test_a_session_saved_before_the_user_column_still_logs_in(player, as_user):
    client, url = _sheet(player, as_user)
    Session.objects.update(user=None)  # as the migration moved the open sessions over
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    assert sum('FROM "auth_user"' in q["sql"] for q in captured) == 1  # the join found nobody: the user by id


def test_the_user_column_follows_the_sessions_data(player, other_player, as_user):
    client, url = _sheet(player, as_user)
    key = client.cookies["sessionid"].value
    assert Session.objects.get(pk=key).user_id == player.pk
    client.post(reverse("logout"))
    assert not Session.objects.filter(pk=key).exists()
    client.force_login(other_player)
    assert Session.objects.get(pk=client.cookies["sessionid"].value).user_id == other_player.pk


def test_a_session_whose_column_names_another_user_is_still_its_datas(player, other_player, as_user):
    client, url = _sheet(player, as_user)
    Session.objects.update(user=other_player)  # a column never trusted alone
    response = client.get(url)
    assert response.status_code == 200 and response.wsgi_request.user.pk == player.pk


def test_a_password_changed_elsewhere_logs_this_session_out(player, as_user):
    client, url = _sheet(player, as_user)
    player.set_password("another-lantern-88")
    player.save()
    response = client.get(url)
    assert response.status_code == 302 and response["Location"].startswith(reverse("login"))
    assert client.get(url).status_code == 302  # the session was flushed, not only refused once


def test_a_deactivated_user_is_refused_on_the_next_request(player, as_user):
    client, url = _sheet(player, as_user)
    player.is_active = False
    player.save()
    assert client.get(url).status_code == 302


def test_a_deleted_user_is_refused(player, as_user):
    client, url = _sheet(player, as_user)
    player.characters.all().delete()
    player.delete()
    assert client.get(url).status_code == 302


def test_an_expired_session_is_refused(player, as_user):
    client, url = _sheet(player, as_user)
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    assert client.get(url).status_code == 302


def test_a_session_without_its_hash_is_refused(player, as_user):
    client, url = _sheet(player, as_user)
    session = client.session
    del session[HASH_SESSION_KEY]
    session.save()
    assert client.get(url).status_code == 302


def test_logout_ends_the_session(player, as_user):
    client, url = _sheet(player, as_user)
    client.post(reverse("logout"))
    assert client.get(url).status_code == 302


def test_a_rotated_secret_keeps_the_session_through_djangos_fallback(player, as_user, settings):
    client, url = _sheet(player, as_user)
    old_key = client.cookies[settings.SESSION_COOKIE_NAME].value
    with override_settings(
        SECRET_KEY="another-secret-key-for-this-test-0123456789", SECRET_KEY_FALLBACKS=[settings.SECRET_KEY]
    ):
        assert client.get(url).status_code == 200
        assert client.cookies[settings.SESSION_COOKIE_NAME].value != old_key  # Django's rotation: a new key
        assert client.get(url).status_code == 200  # and the session's hash now the current secret's


def test_a_session_of_another_backend_goes_through_djangos_get_user(player, as_user):
    client, url = _sheet(player, as_user)
    session = client.session
    session["_auth_user_backend"] = "somewhere.else.Backend"  # not in AUTHENTICATION_BACKENDS
    session.save()
    assert client.get(url).status_code == 302


def test_the_user_is_read_once_for_sync_and_async_askers(player, as_user, rf):
    from asgiref.sync import async_to_sync
    from django.contrib.sessions.middleware import SessionMiddleware

    from accounts.sessions import AuthenticationMiddleware

    client, _ = _sheet(player, as_user)
    request = rf.get("/")
    request.COOKIES[client.cookies["sessionid"].key] = client.cookies["sessionid"].value
    SessionMiddleware(lambda r: None).process_request(request)
    AuthenticationMiddleware(lambda r: None).process_request(request)
    assert request.user.pk == player.pk
    with CaptureQueriesContext(connection) as captured:
        assert async_to_sync(request.auser)() is request.user._wrapped
    assert len(captured) == 0


@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_everyone_logged_in(client, settings):
    """A session opened before the user column (Django's own table) is moved over by accounts 0003 and still
    logs its person in; an expired one is left behind."""
    from django.contrib.auth import BACKEND_SESSION_KEY, SESSION_KEY, get_user_model
    from django.contrib.sessions.backends.db import SessionStore as OldStore
    from django.db.migrations.executor import MigrationExecutor

    executor = MigrationExecutor(connection)
    leaves = executor.loader.graph.leaf_nodes()
    executor.migrate([("accounts", "0002_api_token_expiry")])
    try:
        user = get_user_model().objects.create_user("early", password="correct-horse-battery")
        old = OldStore()
        old[SESSION_KEY], old[BACKEND_SESSION_KEY] = str(user.pk), "django.contrib.auth.backends.ModelBackend"
        old[HASH_SESSION_KEY] = user.get_session_auth_hash()
        old.create()
        gone = OldStore()
        gone["x"] = 1
        gone.set_expiry(-10)
        gone.create()
    finally:
        executor = MigrationExecutor(connection)
        executor.loader.build_graph()
        executor.migrate(leaves)
    assert list(Session.objects.values_list("session_key", "user_id")) == [(old.session_key, None)]
    client.cookies[settings.SESSION_COOKIE_NAME] = old.session_key
    response = client.get(reverse("campaigns:list"))
    assert response.status_code == 200 and response.wsgi_request.user.pk == user.pk
