"""Once per transaction (live.once): a key's first time in a transaction, forgotten by a rollback, a savepoint's
included, and its callback run once after the commit. Real transactions, so ``transaction=True`` throughout."""

from __future__ import annotations

import pytest
from django.db import transaction

from live.once import first_in_transaction

pytestmark = pytest.mark.django_db(transaction=True)


class _Undo(Exception):
    pass


def _ran(log: list[str], name: str):
    return lambda: log.append(name)


def test_a_key_twice_in_one_transaction_is_a_first_once_and_its_callback_runs_once_after_the_commit():
    ran: list[str] = []
    with transaction.atomic():
        assert first_in_transaction("k", _ran(ran, "first"))
        assert not first_in_transaction("k", _ran(ran, "second"))
        assert first_in_transaction("other")
        assert ran == []
    assert ran == ["first"]


def test_a_rollback_forgets_the_key_and_drops_its_callback():
    ran: list[str] = []
    with pytest.raises(_Undo), transaction.atomic():
        assert first_in_transaction("k", _ran(ran, "undone"))
        raise _Undo
    assert ran == []
    with transaction.atomic():
        assert first_in_transaction("k", _ran(ran, "again"))
    assert ran == ["again"]


def test_a_savepoint_rolled_back_inside_an_outer_transaction_forgets_only_what_it_saw():
    ran: list[str] = []
    with transaction.atomic():
        assert first_in_transaction("outer", _ran(ran, "outer"))
        with pytest.raises(_Undo), transaction.atomic():
            assert first_in_transaction("inner", _ran(ran, "inner, undone"))
            assert not first_in_transaction("outer")
            raise _Undo
        assert first_in_transaction("inner", _ran(ran, "inner, again"))
        assert not first_in_transaction("outer")
    assert ran == ["outer", "inner, again"]


def test_a_nested_atomic_that_commits_shares_the_outer_transaction():
    ran: list[str] = []
    with transaction.atomic():
        with transaction.atomic():
            assert first_in_transaction("k", _ran(ran, "inner"))
        assert not first_in_transaction("k", _ran(ran, "outer"))
        assert ran == []  # a savepoint released is not a commit
    assert ran == ["inner"]


def test_two_transactions_in_a_row_each_see_the_key_first():
    ran: list[str] = []
    for name in ("one", "two"):
        with transaction.atomic():
            assert first_in_transaction("k", _ran(ran, name))
            assert not first_in_transaction("k")
    assert ran == ["one", "two"]


def test_a_transaction_opened_by_a_commit_callback_starts_afresh():
    """The conditions' refresh runs in its own transaction after the write's commit and announces what the write
    announced too; that second transaction's announcement must go out, though the first's callbacks still run."""
    seen: list[bool] = []

    def after_commit():
        with transaction.atomic():
            seen.append(first_in_transaction("shared"))

    with transaction.atomic():
        first_in_transaction("refresh", after_commit)
        first_in_transaction("shared")  # registered after the refresh: still alive when the refresh runs
    assert seen == [True]


def test_outside_a_transaction_every_call_is_a_first_and_the_callback_runs_at_once():
    ran: list[str] = []
    assert first_in_transaction("k", _ran(ran, "one"))
    assert first_in_transaction("k", _ran(ran, "two"))
    assert ran == ["one", "two"]


def test_the_same_event_twice_in_one_write_is_recorded_and_announced_once_and_again_after_a_rollback(monkeypatch):
    from live import journal, relay
    from live.events import LightChanged, RollMade

    sent: list[dict] = []
    monkeypatch.setattr(relay, "announce", sent.append)
    with transaction.atomic():
        journal.record(7, RollMade(roll=1))
        journal.record(7, RollMade(roll=1))
        journal.record(7, LightChanged())
    assert sent == [{"campaign": 7, "cursor": 1}]
    assert [entry.events for entry in journal.entries_after(7, 0)] == [(RollMade(roll=1), LightChanged())]
    with pytest.raises(_Undo), transaction.atomic():
        journal.record(7, RollMade(roll=1))
        raise _Undo
    with transaction.atomic():
        journal.record(7, RollMade(roll=1))
    assert sent == [{"campaign": 7, "cursor": 1}, {"campaign": 7, "cursor": 2}]
    assert [entry.cursor for entry in journal.entries_after(7, 0)] == [1, 2]


def test_the_conditions_are_refreshed_once_per_campaign_after_the_commit_and_not_after_a_rollback(monkeypatch):
    from campaigns import conditions

    calls: list[tuple[int, bool]] = []
    monkeypatch.setattr(conditions, "refresh_conditions", lambda pk, lock=False, **_: calls.append((pk, lock)))
    with transaction.atomic():
        conditions.conditions_changed(1)
        conditions.conditions_changed(2)
        conditions.conditions_changed(1)
        assert calls == [(1, False), (2, False), (1, False)]  # each write's own answer reads them at once
    assert calls[3:] == [(1, True), (2, True)]
    with pytest.raises(_Undo), transaction.atomic():
        conditions.conditions_changed(1)
        raise _Undo
    assert calls[5:] == [(1, False)]
