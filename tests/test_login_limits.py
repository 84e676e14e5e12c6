"""Login limits (django-axes): wrong passwords lock the account and, separately, the address, for a while."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.test import Client
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


class CountingHasher(MD5PasswordHasher):
    """The tests' fast hasher, counting how often a password is actually checked."""

    algorithm = "counting_md5"
    checks = 0

    def verify(self, password, encoded):
        CountingHasher.checks += 1
        return super().verify(password, encoded)

    def encode(self, password, salt):
        CountingHasher.checks += 1
        return super().encode(password, salt).replace("md5$", "counting_md5$", 1)


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.AXES_FAILURE_LIMIT = 5


def from_address(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def log_in(client: Client, username: str, password: str, url: str | None = None):
    return client.post(url or reverse("login"), {"username": username, "password": password})


def test_after_five_wrong_passwords_the_right_one_is_refused_for_that_account(gm):
    for n in range(5):
        log_in(from_address(f"10.0.0.{n + 1}"), "gm", "wrong")  # a different address each time
    client = from_address("10.0.1.1")
    response = log_in(client, "gm", PASSWORD)
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    assert "Try again in 15 minutes" in response.content.decode()
    assert client.get(reverse("campaigns:list")).status_code == 302  # not logged in


def test_one_address_guessing_many_accounts_is_locked_but_others_still_log_in(gm, player, other_player):
    guesser = from_address("10.0.0.66")
    for n in range(5):
        log_in(guesser, f"someone-{n}", "wrong")  # never the same account twice
    assert log_in(guesser, "player", PASSWORD).status_code == 429
    elsewhere = from_address("10.0.0.7")
    response = log_in(elsewhere, "other_player", PASSWORD)
    assert response.status_code == 302
    assert elsewhere.get(reverse("campaigns:list")).status_code == 200


def test_a_locked_login_is_refused_before_the_password_hasher_runs(db, settings):
    settings.PASSWORD_HASHERS = ["tests.test_login_limits.CountingHasher"]
    client = from_address("10.0.0.9")
    CountingHasher.checks = 0
    for _ in range(5):
        log_in(client, "nobody", "wrong")
    assert CountingHasher.checks >= 5  # control: Django hashes even for unknown names (timing)
    CountingHasher.checks = 0
    for _ in range(50):
        assert log_in(client, "nobody", "wrong").status_code == 429
    assert CountingHasher.checks == 0


def test_the_admin_login_is_locked_too(db):
    get_user_model().objects.create_superuser("root", password=PASSWORD)
    client = from_address("10.0.0.10")
    for _ in range(5):
        log_in(client, "root", "wrong", url=reverse("admin:login"))
    response = log_in(from_address("10.0.0.11"), "root", PASSWORD, url=reverse("admin:login"))
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()


def test_the_lock_lifts_after_the_cool_off(gm, settings):
    client = from_address("10.0.0.12")
    for _ in range(5):
        log_in(client, "gm", "wrong")
    assert log_in(client, "gm", PASSWORD).status_code == 429
    # Age the recorded failures past the cool-off, as the clock would.
    for attempt in AccessAttempt.objects.all():
        attempt.attempt_time -= settings.AXES_COOLOFF_TIME
        attempt.save()
    assert log_in(client, "gm", PASSWORD).status_code == 302


def test_fewer_wrong_passwords_than_the_limit_do_not_lock(gm):
    client = from_address("10.0.0.13")
    for _ in range(4):
        assert log_in(client, "gm", "wrong").status_code == 200
    assert log_in(client, "gm", PASSWORD).status_code == 302
