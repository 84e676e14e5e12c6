"""What a character write must tell the table the character sits at (issue 38).

characters sits below campaigns and imports nothing of it: the table's app registers what it does when a sheet
changes (``register``, from its ``AppConfig.ready``), and the write pipeline calls the two steps below. With no
table registered (characters on its own), a write tells nobody.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol


class Table(Protocol):
    """What the table does when one of its sheets changes; both run inside the write's transaction."""

    def sheet_written(
        self, campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
    ) -> None:
        """A sheet at this table was written; ``before``/``after`` as its history keeps them (a light lit, put out,
        taken or dropped changes the table's conditions)."""

    def party_changed(self, campaign_id: int | None) -> None:
        """A character came to this table, left it or was deleted: the party, and what it carries, changed."""


class _NoTable:
    def sheet_written(
        self, campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
    ) -> None:
        return None

    def party_changed(self, campaign_id: int | None) -> None:
        return None


_registered: list[Table] = [_NoTable()]


def register(table: Table) -> None:
    """The table's app says what it does (once, at startup); a second registration replaces the first."""
    _registered[0] = table


def sheet_written(campaign_id: int | None, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> None:
    _registered[0].sheet_written(campaign_id, before, after)


def party_changed(campaign_id: int | None) -> None:
    _registered[0].party_changed(campaign_id)
