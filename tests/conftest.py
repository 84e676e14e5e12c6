"""The cast every test can use: a GM, two players, a stranger, and a campaign they sit at."""

from __future__ import annotations

import gzip
import os
import re

import brotli
import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from hypothesis import settings as hypothesis_settings

from campaigns.models import Campaign, Membership
from tests.html_check import html_problems

PASSWORD = "correct-horse-battery"

# Property tests: CI runs the same examples on every run (a red build is a real bug, never bad luck);
# locally each run draws new ones to keep exploring. A failure prints the blob to replay it, and every
# example found is then pinned with @example. HYPOTHESIS_PROFILE=ci|dev chooses explicitly.
hypothesis_settings.register_profile("ci", derandomize=True, print_blob=True)
hypothesis_settings.register_profile("dev", derandomize=False, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_collection_modifyitems(items):
    # Playwright's sync API keeps an event loop running in this thread until the session ends, and
    # async tests (the live table's) cannot start their own after it: real-browser tests go last.
    items.sort(key=lambda item: "/tests/browser/" in str(item.path))


@pytest.fixture(autouse=True, scope="session")
def _every_page_is_well_formed_html():
    """Each HTML page or fragment the suite receives through the test client must parse strictly.

    The check sits on the client, not in a few tests, so a template bug fails whichever test happens
    to render it (see tests/html_check.py for what counts as malformed).
    """
    original = Client.request

    def checked(self, **request):
        response = original(self, **request)
        content_type = response.get("Content-Type", "")
        if content_type.startswith("text/html") and not response.streaming and response.content:
            body = response.content  # compressed when the test asked for it (core.compress)
            body = {"gzip": gzip.decompress, "br": brotli.decompress}.get(response.get("Content-Encoding"), bytes)(body)
            problems = html_problems(body.decode(response.charset or "utf-8"))
            if problems:
                where = f"{request.get('REQUEST_METHOD', 'GET')} {request.get('PATH_INFO', '')}"
                raise AssertionError(f"{where} rendered malformed HTML:\n  " + "\n  ".join(problems[:20]))
        return response

    Client.request = checked
    yield
    Client.request = original


NOTIFY = re.compile(r"\bpg_notify\s*\(|^\s*NOTIFY\s", re.IGNORECASE | re.MULTILINE)


@pytest.fixture(autouse=True)
def _nothing_notified_inside_a_write():
    """Issue 37, architecture pitfall 13: a write's transaction executes no NOTIFY / pg_notify (PostgreSQL then
    serialises every commit on its notify-queue lock). Signals leave after commit through live.relay.

    On PostgreSQL, every statement of the test's own thread is watched; one that notifies while
    ``connection.in_atomic_block`` fails the test. Afterwards the relay hands on what it still holds and its
    publishing connection closes, so no connection outlives the test database.
    """
    from django.db import connection

    from live import broker, relay

    inside: list[str] = []

    def guard(execute, sql, params, many, context):
        if context["connection"].in_atomic_block and NOTIFY.search(sql):
            inside.append(sql)
        return execute(sql, params, many, context)

    if connection.vendor != "postgresql":
        yield
    else:
        with connection.execute_wrapper(guard):
            yield
    if relay.relay.running:
        relay.flush()
        broker.close_all()
    if inside:
        pytest.fail(f"NOTIFY inside a transaction (issue 37): {inside[0][:200]}")


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Drawn regions are kept by character id and version (characters.region_cache), and a test database
    hands out the same ids and versions again: each test starts with nothing kept."""
    from django.core.cache import cache

    cache.clear()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    # The production hasher is slow on purpose; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def make_user(username: str):
    return get_user_model().objects.create_user(username=username, password=PASSWORD)


@pytest.fixture
def gm(db):
    return make_user("gm")


@pytest.fixture
def player(db):
    return make_user("player")


@pytest.fixture
def other_player(db):
    return make_user("other_player")


@pytest.fixture
def stranger(db):
    return make_user("stranger")


def make_table(system: str, gm, *players, name: str = "The Sunken Vault") -> Campaign:
    """A campaign of ``system`` run by ``gm`` with these players seated."""
    campaign = Campaign.objects.create(name=name, system=system)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for seated in players:
        Membership.objects.create(campaign=campaign, user=seated)
    return campaign


@pytest.fixture
def campaign(gm, player, other_player):
    return make_table("fell-draft", gm, player, other_player)


def client_for(user) -> Client:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def as_user():
    """``as_user(gm)`` gives a logged-in test client; ``as_user(None)`` an anonymous one."""
    return client_for


def make_character(owner, campaign=None, system="fell-draft", name="Wren", seed=7):
    """A character made by its system's own creation rules, with fixed dice."""
    import random

    from characters.services import character_create

    character, _ = character_create(
        owner=owner, system=system, choices={"name": name}, campaign=campaign, rng=random.Random(seed)
    )
    return character


def seat_one_per_system(table) -> dict:
    """A mixed table's party: one new player and one character (made by its own rules) for each of its systems."""
    from campaigns.models import Membership

    party = {}
    for n, system_id in enumerate(table.systems):
        player = make_user(f"player{n}")
        Membership.objects.create(campaign=table, user=player)
        party[system_id] = make_character(player, table, system=system_id, name=f"Hero {n}", seed=3 + n)
    return party


@pytest.fixture
def hero(player, campaign):
    """The player's Fell character, at the campaign's table."""
    return make_character(player, campaign, name="Wren")


@pytest.fixture
def rival(other_player, campaign):
    return make_character(other_player, campaign, name="Ash", seed=11)
