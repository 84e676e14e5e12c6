"""Login limits (django-axes): wrong passwords lock an account from that address, and an address that guesses
across accounts on its own, for a while; never an account from everywhere (issue 23, item 11: anyone could
lock anyone out)."""

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
    settings.LOGIN_ADDRESS_FAILURE_LIMIT = 20


def from_address(address: str) -> Client:
    return Client(REMOTE_ADDR=address)


def log_in(client: Client, username: str, password: str, url: str | None = None):
    return client.post(url or reverse("login"), {"username": username, "password": password})


def test_five_wrong_passwords_lock_the_account_from_that_address_only(gm, player):
    guesser = from_address("10.0.0.1")
    for _ in range(5):
        log_in(guesser, "gm", "wrong")
    response = log_in(guesser, "gm", PASSWORD)
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    assert "Try again in 15 minutes" in response.content.decode()
    assert guesser.get(reverse("campaigns:list")).status_code == 302  # not logged in
    # A pair, not the address: another account still logs in from there (a shared connection).
    assert log_in(from_address("10.0.0.1"), "player", PASSWORD).status_code == 302
    # The player's own device still gets in while the guessing goes on.
    own_device = from_address("10.0.0.2")
    assert log_in(own_device, "gm", PASSWORD).status_code == 302
    assert own_device.get(reverse("campaigns:list")).status_code == 200


def test_guesses_at_one_account_from_many_addresses_never_lock_its_owner_out(gm):
    for n in range(30):
        assert log_in(from_address(f"10.0.1.{n + 1}"), "gm", "wrong").status_code == 200
    assert log_in(from_address("10.0.2.1"), "gm", PASSWORD).status_code == 302


def test_one_address_guessing_many_accounts_is_locked_on_its_own(gm, player, other_player):
    guesser = from_address("10.0.0.66")
    for n in range(19):
        assert log_in(guesser, f"someone-{n}", "wrong").status_code == 200  # never the same account twice
    assert log_in(from_address("10.0.0.66"), "player", PASSWORD).status_code == 302  # under the limit: still in
    assert log_in(guesser, "someone-19", "wrong").status_code == 429  # the 20th wrong password
    response = log_in(from_address("10.0.0.66"), "other_player", PASSWORD)
    assert response.status_code == 429  # every account, from that address
    elsewhere = from_address("10.0.0.7")
    assert log_in(elsewhere, "other_player", PASSWORD).status_code == 302
    assert elsewhere.get(reverse("campaigns:list")).status_code == 200


def test_logging_into_ones_own_account_does_not_clear_the_addresses_guesses(gm, player):
    guesser = from_address("10.0.0.67")
    for n in range(19):
        log_in(guesser, f"someone-{n}", "wrong")
    assert log_in(guesser, "player", PASSWORD).status_code == 302  # the guesser's own account
    guesser.logout()
    assert log_in(guesser, "someone-19", "wrong").status_code == 429


def test_a_locked_try_never_reaches_the_password_hasher_nor_writes(gm, settings):
    settings.PASSWORD_HASHERS = ["tests.test_login_limits.CountingHasher"]
    gm.set_password(PASSWORD)
    gm.save()
    CountingHasher.checks = 0
    pair, address = from_address("10.0.0.9"), from_address("10.0.0.8")
    for _ in range(5):
        log_in(pair, "gm", "wrong")
    for n in range(20):
        log_in(address, f"nobody-{n}", "wrong")
    assert CountingHasher.checks >= 25  # control: each wrong password was hashed (unknown names too, for timing)
    CountingHasher.checks = 0
    recorded = list(AccessAttempt.objects.values_list("pk", "failures_since_start", "attempt_time"))
    for n in range(20):
        assert log_in(pair, "gm", PASSWORD if n % 2 else "wrong").status_code == 429
        assert log_in(address, "gm", PASSWORD).status_code == 429
        assert log_in(address, f"nobody-{n}", "wrong").status_code == 429
    assert CountingHasher.checks == 0
    # Nothing recorded either: the refusals cost no write and do not push the lock's end back.
    assert list(AccessAttempt.objects.values_list("pk", "failures_since_start", "attempt_time")) == recorded


def test_the_admin_login_is_locked_too(db):
    get_user_model().objects.create_superuser("root", password=PASSWORD)
    client = from_address("10.0.0.10")
    for _ in range(5):
        log_in(client, "root", "wrong", url=reverse("admin:login"))
    response = log_in(client, "root", PASSWORD, url=reverse("admin:login"))
    assert response.status_code == 429
    assert "Too many wrong passwords" in response.content.decode()
    assert log_in(from_address("10.0.0.11"), "root", PASSWORD, url=reverse("admin:login")).status_code == 302


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
