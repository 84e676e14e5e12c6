"""The harness the race tests share: real threads released together by a barrier, each closing its connection.

A readable refusal (``rules.errors.Refusal``: the roll cap, a character gone, a full offer list) is a correct
answer to a race; anything else a thread raises is counted. The must-fail controls need PostgreSQL: SQLite's
IMMEDIATE transactions let one writer in at a time.
"""

from __future__ import annotations

import threading

import pytest
from django.db import close_old_connections, connection

from rules.errors import Refusal

postgresql_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite's IMMEDIATE transactions serialise writers: no race"
)


def together(*actions, timeout: float = 60) -> list[BaseException]:
    """Run the actions in threads released at once; return the unexpected errors they raised."""
    barrier = threading.Barrier(len(actions))
    errors: list[BaseException] = []

    def run(action):
        try:
            barrier.wait()
            action()
        except Refusal:
            pass
        except BaseException as error:  # noqa: BLE001 - the test counts whatever went wrong
            errors.append(error)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=run, args=(action,)) for action in actions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return errors
