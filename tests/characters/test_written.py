"""Issue 24: a character write returns what it changed (``Written``), the one place its answer reads from.

Before, services announced the changed regions through a context variable a view decorator copied onto the
request, and left the change on the row for the view to probe: neither exists any more."""

from __future__ import annotations

import pytest

from characters import services, views
from characters.models import Change, Roll
from rules import base as rules_base
from rules.dice import ScriptedRandom

pytestmark = pytest.mark.django_db


def test_an_adjust_returns_its_character_regions_and_change(hero, player):
    written = services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    assert isinstance(written, services.Written)
    assert written.character.pk == hero.pk and written.character.version == hero.version + 1
    assert written.regions == frozenset(services.TRACK_CHANGE)
    assert written.change == Change.objects.filter(character=hero).first()
    assert not hasattr(written.character, "latest_change")  # nothing left on the row for a view to probe


def test_a_roll_returns_the_roll_and_the_log_among_its_regions(hero, player):
    plain = services.character_roll(character_id=hero.pk, procedure="test", params={}, by=player)
    assert plain.regions == {"log"} and plain.change is None
    assert plain.row == Roll.objects.get(character=hero, procedure="test")
    harmed = services.character_roll(
        character_id=hero.pk, procedure="take_harm", params={"amount": 1}, by=player, rng=ScriptedRandom([6])
    )
    assert {"log", "vitals"} <= harmed.regions and harmed.change is not None
    assert harmed.row.procedure == "take_harm" and harmed.change.what.startswith(harmed.row.label)


def test_item_and_hireling_writes_return_their_rows(hero, player):
    added = services.item_add(character_id=hero.pk, item=rules_base.Item("Rope", "gear", 1, 1), by=player)
    assert added.row.name == "Rope" and added.regions == frozenset(services.ITEMS_CHANGE)
    dropped = services.item_remove(character_id=hero.pk, item_id=added.row.pk, by=player)
    assert dropped.regions == frozenset(services.ITEMS_CHANGE) and dropped.change.what == "Dropped Rope"


def test_no_context_variable_and_no_decorator_carry_what_a_write_announced():
    assert not hasattr(services, "collecting_announcements") and not hasattr(services, "_announced")
    assert not hasattr(views, "_announcing")
