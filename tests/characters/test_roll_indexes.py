"""The two reads that grew with the roll log use their indexes, on SQLite and PostgreSQL (issue 23).

The roll POST's rate check counts the roller's rolls of the last minute; the sheet's "This character" log
reads one character's newest rolls. Each test captures the SQL the app really runs and asks the database
for its plan: a table scan, or an index that does not fit, grows with every roll anyone makes.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from characters.models import Roll
from characters.services.rolls import _check_roll_rate
from tests.conftest import make_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def crowded_log(campaign, player, other_player, gm):
    """Three characters' rolls, spread over a few days, as a table's log holds them."""
    hero = make_character(player, campaign, name="Wren")
    others = [make_character(other_player, campaign, name="Ash"), make_character(gm, campaign, name="Moss")]
    field = Roll._meta.get_field("created_at")
    field.auto_now_add = False  # the rows get their own times, older than a minute
    try:
        start = timezone.now() - timedelta(days=3)
        rows = []
        for n in range(5000):
            character = hero if n % 100 == 0 else others[n % 2]
            rows.append(
                Roll(
                    campaign=campaign,
                    character=character,
                    roller=character.owner,
                    label="Test",
                    procedure="test",
                    outcome="pass",
                    created_at=start + timedelta(seconds=60 * n),
                )
            )
        Roll.objects.bulk_create(rows)
    finally:
        field.auto_now_add = True
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return hero


def _plan(sql: str) -> str:
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # A test-sized table may still be read whole cheaper than through an index: ask for the index plan.
            cursor.execute("SET LOCAL enable_seqscan = off")
            cursor.execute(f"EXPLAIN {sql}")
        else:
            cursor.execute(f"EXPLAIN QUERY PLAN {sql}")
        return "\n".join(" ".join(str(part) for part in row) for row in cursor.fetchall())


def _roll_queries(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries if 'FROM "characters_roll"' in q["sql"]]


def test_the_roll_rate_check_reads_the_roller_index(crowded_log, player):
    with CaptureQueriesContext(connection) as captured:
        _check_roll_rate(player)
    (sql,) = _roll_queries(captured)
    assert "roll_rate_by_roller" in _plan(sql)


def test_the_this_character_log_reads_the_character_index_in_its_order(crowded_log, player, as_user):
    client = as_user(player)
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("characters:region", args=[crowded_log.pk, "log"]), {"log": "mine"})
    assert response.status_code == 200
    (sql,) = [q for q in _roll_queries(captured) if "character_id" in q.split("WHERE", 1)[-1]]
    plan = _plan(sql)
    assert "roll_log_by_character" in plan
    if connection.vendor == "sqlite":
        assert "TEMP B-TREE" not in plan  # the newest fifteen come in the index's order: nothing is sorted
    else:
        assert "Sort" not in plan
