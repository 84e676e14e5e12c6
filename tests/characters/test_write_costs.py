"""What the hot paths cost in queries (issue 12): the sheet, an HP change and its answer.

Counted with the ``db`` fixture, where every write's transaction is a savepoint (two statements the
count includes); the bounds are today's figures, so a regression shows here first.
"""

from __future__ import annotations

from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import make_character
from tests.pages import HTMX
from tests.recorded import commit_pending


def test_an_hp_change_costs_eleven_queries_and_answers_only_what_changed(
    player, campaign, other_player, as_user, django_assert_max_num_queries
):
    hero = make_character(player, campaign, name="Wren")
    for n in range(3):
        make_character(other_player, campaign, name=f"Friend {n}", seed=n)
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200  # logged in before counting
    url = f"/characters/{hero.pk}/adjust/"
    # Session and user (2), the row locked with its seat, its items and hirelings (nothing kept for this version
    # yet), the row saved, the history's entry (6), two for its journal entry (a head bump and the entry; under the
    # test's one transaction, the open entry's read and update), the view's savepoint (2, the test's transaction
    # around it); nothing notified inside the write, on either database.
    with (
        django_assert_max_num_queries(11),
        CaptureQueriesContext(connection) as captured,
    ):
        response = client.post(url, {"key": "hp", "delta": "-1"}, **HTMX)
    assert response.status_code == 200
    page = response.content.decode()
    # The vitals it targets and the details that show the tracks, out of band; no inventory, log or panel.
    assert page.count('id="vitals"') == 1 and page.count('id="details"') == 1
    assert 'id="inventory"' not in page and 'id="log"' not in page and "roll-control" not in page
    # Items and hirelings are read once, under the write's lock, not again for the answer; nor is the change
    # that the answer's Undo offers.
    assert sum('FROM "characters_change"' in q["sql"] for q in captured) == 0
    # Items and hirelings are read once, under the write's lock, not again for the answer.
    reads = [q["sql"] for q in captured if q["sql"].startswith("SELECT")]
    assert sum('FROM "characters_item"' in sql for sql in reads) == 1
    assert sum('FROM "characters_hireling"' in sql for sql in reads) == 1


def test_the_sheet_reads_the_table_in_one_query(player, campaign, other_player, as_user, django_assert_max_num_queries):
    """The other characters a roll can name come in one query, however many sit at the table."""
    hero = make_character(player, campaign, name="Wren")
    for n in range(5):
        make_character(other_player, campaign, name=f"Friend {n}", seed=n)
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200  # logged in before counting
    # Session, user, the character with the viewer's seat, offers, undo, log, items, hirelings, the table.
    with django_assert_max_num_queries(9):
        assert client.get(hero.get_absolute_url()).status_code == 200


def test_a_roll_reads_its_character_once_before_the_lock_and_once_under_it(
    player, campaign, as_user, django_assert_max_num_queries
):
    """Issue 39: the roll finds what to lock from the sheet its inputs were checked against, and takes the
    roller's seat as read, so its character, items and hirelings are read once before the lock and its row once
    under it; nothing asks whether the table has webhooks (they read the journal)."""
    hero = make_character(player, campaign, name="Wren")
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200  # logged in before counting
    # Session and user (2), character and seat, items, hirelings (3), the roll cap, the locked row (2), the roll,
    # and its journal entry (head and entry: 2 more under the test's transaction), the savepoints (2).
    with django_assert_max_num_queries(14), CaptureQueriesContext(connection) as captured:
        response = client.post(f"/characters/{hero.pk}/roll/test/", {"visibility": "public"}, **HTMX)
    assert response.status_code == 200 and 'class="roll-result"' in response.content.decode()
    reads = [q["sql"] for q in captured if q["sql"].startswith("SELECT")]
    assert sum('FROM "characters_character"' in sql for sql in reads) == 2
    assert sum('FROM "characters_item"' in sql for sql in reads) == 1
    assert sum('FROM "campaigns_membership"' in sql and "role" in sql for sql in reads) <= 1  # the seat's own
    assert not any("webhook" in q["sql"] for q in captured)


def test_an_hp_change_asks_nothing_of_webhooks(player, campaign, as_user):
    hero = make_character(player, campaign, name="Wren")
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200
    with CaptureQueriesContext(connection) as captured:
        assert client.post(f"/characters/{hero.pk}/adjust/", {"key": "hp", "delta": "-1"}, **HTMX).status_code == 200
    assert not any("webhook" in q["sql"] for q in captured)


def test_an_hp_change_reads_its_row_once_and_no_items_while_its_sheet_is_kept(
    player, campaign, other_player, as_user, django_assert_max_num_queries
):
    """Issue 39: the row is read once, locked with the viewer's seat (no read before the lock), and the sheet
    the last write checked is kept for the version it saved: the next HP change reads no items, no hirelings and
    no history, and its answer is drawn from that sheet."""
    hero = make_character(player, campaign, name="Wren")
    for n in range(3):
        make_character(other_player, campaign, name=f"Friend {n}", seed=n)
    client = as_user(player)
    url = f"/characters/{hero.pk}/adjust/"
    assert client.post(url, {"key": "hp", "delta": "-1"}, **HTMX).status_code == 200
    commit_pending()  # as after its commit: its sheet kept for the version it saved, its journal entry closed
    # Session and user (2), the row locked with its seat (1), saved (1), the history's entry (1), the journal's
    # head and entry (2; one statement on PostgreSQL), the view's savepoint under the test's transaction (2).
    bound = 8 if connection.vendor == "postgresql" else 9
    with django_assert_max_num_queries(bound), CaptureQueriesContext(connection) as captured:
        response = client.post(url, {"key": "hp", "delta": "1"}, **HTMX)
    assert response.status_code == 200 and 'id="vitals"' in response.content.decode()
    reads = [q["sql"] for q in captured if q["sql"].startswith("SELECT")]
    assert sum('FROM "characters_character"' in sql for sql in reads) == 1
    locked = [sql for sql in reads if 'FROM "characters_character"' in sql][0]
    assert "FOR UPDATE" in locked or connection.vendor == "sqlite"  # SQLite: BEGIN IMMEDIATE locks
    assert not any(table in sql for sql in reads for table in ("characters_item", "characters_hireling"))
    assert not any('FROM "characters_change"' in sql for sql in reads)
    assert not any("webhook" in q["sql"] for q in captured)
