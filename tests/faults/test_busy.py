"""Overload is a 503 with ``Retry-After`` and a sentence where the person acted, never a 500, and nothing is half
saved (issue 35, item 11; core/busy.py).

Before: 200 parallel writes to one sheet gave 54 × 500 "database is locked" on SQLite and PoolTimeout 500s on
PostgreSQL. Here the database is made tight (SQLite waits 50 ms for its write lock, the pool holds 2 connections
and waits 100 ms for one) and then (1) held by the test, so every request must give up, and (2) raced by many
writers at once: every answer is a 200 or a 503, and the sheet moved once for each 200.
"""

from __future__ import annotations

import copy
import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django.test import Client
from django.urls import reverse

from characters.models import Change, Character
from core.busy import RETRY_AFTER, SENTENCE
from tests.api.conftest import bearer
from tests.pages import text_of
from tests.races import together

pytestmark = pytest.mark.django_db(transaction=True)

WRITERS = 40
HX = {"HTTP_HX_REQUEST": "true"}


@contextmanager
def _tight_database() -> Iterator[None]:
    options = connection.settings_dict["OPTIONS"]
    saved = copy.deepcopy(options)
    connection.close()
    if connection.vendor == "postgresql":
        connection.close_pool()
        options["pool"] = {**options["pool"], "min_size": 0, "max_size": 2, "timeout": 0.1}
    else:
        options["timeout"] = 0.05
    try:
        yield
    finally:
        connection.close()
        if connection.vendor == "postgresql":
            connection.close_pool()
        options.clear()
        options.update(saved)


@contextmanager
def _held() -> Iterator[None]:
    """Someone else holds what a write needs: SQLite's write lock, or every connection of the pool."""
    if connection.vendor == "postgresql":
        connection.ensure_connection()  # Django opens its pool on the first connection
        connection.close()  # and hands that one back
        pool = connection.pool
        held = [pool.getconn() for _ in range(pool.max_size)]
        try:
            yield
        finally:
            for conn in held:
                pool.putconn(conn)
    else:
        other = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        other.execute("BEGIN IMMEDIATE")
        try:
            yield
        finally:
            other.execute("ROLLBACK")
            other.close()


def _player(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user)
    return client


def _state(hero) -> tuple[int, dict, int]:
    character = Character.objects.get(pk=hero.pk)
    return character.version, character.state, Change.objects.filter(character=character).count()


def test_a_database_too_busy_answers_503_with_a_sentence_where_the_person_acted(player, hero):
    client, api = _player(player), bearer(player)
    adjust = reverse("characters:adjust", args=[hero.pk])
    offline = reverse("characters:offline_sync", args=[hero.pk])
    before = _state(hero)
    change = {"key": str(uuid.uuid4()), "version": before[0], "kind": "track", "track": "hp", "delta": -1}
    with _tight_database(), _held():
        on_the_sheet = client.post(adjust, {"key": "hp", "delta": -1}, **HX)
        plain = client.post(adjust, {"key": "hp", "delta": -1})
        by_api = api.send(f"/api/characters/{hero.pk}/tracks", {"track": "hp", "delta": -1})
        kept = client.post(offline, json.dumps(change), content_type="application/json")
    assert _state(hero) == before, "nothing was saved"

    for answer in (on_the_sheet, plain, by_api, kept):
        assert answer.status_code == 503
        assert answer["Retry-After"] == str(RETRY_AFTER)
    # htmx puts it in the page's message area (static/js/lantern.js swaps a 503 that names its target).
    assert (on_the_sheet["HX-Retarget"], on_the_sheet["HX-Reswap"]) == ("#messages", "innerHTML")
    assert SENTENCE in text_of(on_the_sheet)
    assert SENTENCE in text_of(plain)
    assert by_api.json() == {"detail": SENTENCE}
    assert kept.json() == {"outcome": "busy", "message": SENTENCE}  # static/js/offline.js keeps it for later


def test_many_writers_at_once_get_200_or_503_and_the_sheet_moves_once_per_200(player, hero):
    clients = [_player(player) for _ in range(WRITERS)]
    adjust = reverse("characters:adjust", args=[hero.pk])
    version, _, changes = _state(hero)
    statuses: list[int] = []
    lock = threading.Lock()

    def write(client: Client) -> None:
        status = client.post(adjust, {"key": "hp", "delta": 1 - 2 * (len(statuses) % 2)}, **HX).status_code
        with lock:
            statuses.append(status)

    with _tight_database():
        errors = together(*(lambda client=client: write(client) for client in clients))

    assert errors == []
    assert len(statuses) == WRITERS
    assert set(statuses) <= {200, 503}, statuses
    ok = statuses.count(200)
    now, _, changes_now = _state(hero)
    assert (now - version, changes_now - changes) == (ok, ok), "one version and one history line per 200, no more"
