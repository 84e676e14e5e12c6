"""The session and its user read for less (issue 39, accounts/sessions.py): two statements and no write for a
logged-in page, and every refusal Django makes still made on the next request."""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth import HASH_SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from tests.conftest import make_character

WRITES = ("INSERT", "UPDATE", "DELETE")


def _sheet(player, as_user):
    hero = make_character(player)
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200  # warm: the character's query compiled
    return client, hero.get_absolute_url()


def test_a_logged_in_page_reads_the_session_and_the_user_once_each_and_writes_nothing(player, as_user):
    client, url = _sheet(player, as_user)
    with CaptureQueriesContext(connection) as captured:
        assert client.get(url).status_code == 200
    sql = [q["sql"] for q in captured]
    assert sum('FROM "django_session"' in q for q in sql) == 1
    assert sum('FROM "auth_user"' in q for q in sql) == 1
    assert not [q for q in sql if q.lstrip().upper().startswith(WRITES)]


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
