"""The sheet's read model (issue 24): who looks is a typed Viewer read with the character, and building the
sheet leaves the rows it read as they came from the database (no attribute set on a model instance for
another module, or a template, to probe; no private Django attribute copied)."""

from __future__ import annotations

import pytest

from campaigns.models import Membership
from characters import services, views
from characters.locking import lock_character
from characters.selectors import Seat, Viewer, character_for
from characters.sheet_view import REGIONS, HirelingRow, ItemRow, sheet_view
from rules import base as rules_base
from tests.conftest import make_character


def test_character_for_says_who_looks_and_what_they_may_do(gm, player, other_player, stranger, campaign):
    hero = make_character(player, campaign, name="Wren")
    loner = make_character(stranger, None, name="Loner")
    player_seat, gm_seat = Membership.Role.PLAYER, Membership.Role.GM
    expected = {
        # (user, character): (role, is_owner, can_edit, is_gm)
        (player, hero): (player_seat, True, True, False),
        (gm, hero): (gm_seat, False, True, True),
        (other_player, hero): (player_seat, False, False, False),
        (stranger, loner): (None, True, True, True),  # at no table, the owner runs their own game
    }
    for (user, character), (role, is_owner, can_edit, is_gm) in expected.items():
        seat = character_for(user, character.pk)
        assert seat == Seat(seat.character, Viewer(user.pk, role, is_owner, can_edit, is_gm))
        assert seat.character.pk == character.pk
    assert character_for(stranger, hero.pk) is None and character_for(player, loner.pk) is None
    assert character_for(other_player, hero.pk, edit=True) is None
    with pytest.raises(AttributeError):  # frozen: what the seat allows is read once, never changed after
        character_for(player, hero.pk).viewer.can_edit = False  # type: ignore[union-attr, misc]


@pytest.mark.parametrize("who", ["player", "gm", "other_player"])
def test_building_the_sheet_sets_nothing_on_the_rows_it_read(who, request, player, campaign):
    hero = make_character(player, campaign, name="Wren")
    services.item_add(character_id=hero.pk, item=rules_base.Item(name="Rope", kind="gear", slots=1), by=player)
    user = request.getfixturevalue(who)
    seat = character_for(user, hero.pk)
    assert seat is not None
    before = set(vars(seat.character))
    view = sheet_view(user, seat, regions=REGIONS)
    assert set(vars(seat.character)) == before
    own = {f.attname for f in type(view.items[0].item)._meta.concrete_fields} | {"_state"}
    assert view.items and all(isinstance(row, ItemRow) and set(vars(row.item)) <= own for row in view.items)
    assert all(isinstance(row, HirelingRow) for row in view.hirelings)
    context = view.context()
    assert context["viewer"] is seat.viewer and "can_edit" not in context
    assert view.items[0].slots == 1


def test_a_write_answer_takes_the_saved_row_without_copying_private_attributes(player, campaign):
    hero = make_character(player, campaign, name="Wren")
    seat = character_for(player, hero.pk)
    assert seat is not None
    fresh = lock_character(hero.pk, with_rows=True)  # as services.lock(with_rows=True) reads it
    fresh.name = "Wren the Bold"
    loaded = views._reload(seat.character, services.Written(fresh, frozenset({"details"}), None))
    assert seat.character.name == "Wren the Bold"
    assert "_prefetched_objects_cache" not in vars(seat.character)
    items, hirelings = loaded["rows"]
    assert list(items) == list(hero.items.all()) and list(hirelings) == list(hero.hirelings.all())
