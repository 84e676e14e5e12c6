"""Once per transaction: whether a key has come up already in the current transaction, with public API only.

A write announces what it changed (live.events) and asks for its table's conditions to be worked out again
after it commits (campaigns.conditions); doing either twice for one transaction is waste. What a transaction
has seen is held through the callbacks it gave ``transaction.on_commit``: each key is remembered by a weak
reference to its callback, and Django drops a transaction's callbacks when it rolls back (a savepoint's when
the savepoint does), so a rollback forgets what it saw without our being told. A commit runs the callbacks;
the first to run forgets the whole transaction, since the connection's next transaction starts afresh.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Hashable

from django.db import DEFAULT_DB_ALIAS, connections, transaction
from django.db.backends.base.base import BaseDatabaseWrapper

# Per connection: key -> its commit callback, alive while the transaction that saw the key may still commit.
_seen: weakref.WeakKeyDictionary[BaseDatabaseWrapper, dict[Hashable, weakref.ref[_OnCommit]]] = (
    weakref.WeakKeyDictionary()
)


class _OnCommit:
    """One key's commit callback: runs ``then``. Django holds it strongly; our table only weakly."""

    __slots__ = ("seen", "then", "__weakref__")

    def __init__(self, seen: dict[Hashable, weakref.ref[_OnCommit]], then: Callable[[], None] | None) -> None:
        self.seen = seen
        self.then = then

    def __call__(self) -> None:
        # Committed: the connection's next transaction must see every key afresh, even one this transaction's
        # later callbacks (still alive in Django's list while this one runs) hold.
        self.seen.clear()
        if self.then is not None:
            self.then()


def first_in_transaction(
    key: Hashable, then: Callable[[], None] | None = None, *, using: str = DEFAULT_DB_ALIAS
) -> bool:
    """True the first time ``key`` comes up in the current transaction (and again after a rollback that
    undid that first time, a savepoint's included); ``then`` runs once, after the transaction commits.

    Outside a transaction every call is a first and ``then`` runs at once, as ``transaction.on_commit`` does."""
    connection = connections[using]
    if not connection.in_atomic_block:
        if then is not None:
            then()
        return True
    seen = _seen.setdefault(connection, {})
    held = seen.get(key)
    if held is not None and held() is not None:
        return False
    callback = _OnCommit(seen, then)
    transaction.on_commit(callback, using=using)
    seen[key] = weakref.ref(callback)
    return True
