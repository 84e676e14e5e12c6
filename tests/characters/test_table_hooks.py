"""characters asks and tells the table through characters.table; campaigns registers the table (issue 38)."""

from __future__ import annotations

from campaigns.conditions import SheetsAtTheTable
from campaigns.models import Membership
from characters import table


def test_campaigns_registers_the_table_at_startup():
    assert isinstance(table.registered(), SheetsAtTheTable)


def test_the_gm_role_characters_compares_is_the_campaigns_one():
    assert table.GM == Membership.Role.GM
