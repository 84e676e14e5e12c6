"""An item's data and a hireling's state follow a rule change as a sheet's state does (issue 38, rules/upgrades.py):
each row keeps the version of the shape it was saved in; reading it upgrades it, the first write of it stores today's
shape, a character file carries the versions, and a row or file from a newer Lantern is refused with a sentence.

Grit & Flesh keeps both shapes (an item's AC and size, a hireling's role, Grit and Flesh): its rows are the ones
reshaped here, by a test-only version 2 that drops a field its version 1 kept (``legacy_wear``, ``legacy_morale``),
as a real reshape would (rules/upgrades.py ``dropping``)."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from characters.models import Character, Hireling, Item
from characters.services import hireling_hire, item_add
from characters.transfer import export_character
from rules import SYSTEMS, RulesError
from rules import base as rules_base
from rules.upgrades import dropping
from tests.conftest import make_character

pytestmark = pytest.mark.django_db

GF = "grit-flesh"
RESHAPE = {
    "item_version": 2,
    "item_upgrades": (dropping("legacy_wear"),),
    "hireling_version": 2,
    "hireling_upgrades": (dropping("legacy_morale"),),
}


@pytest.fixture
def reshaped() -> Iterator[rules_base.GameSystem]:
    """Grit & Flesh as if a rule change had reshaped its items and hirelings (the systems are frozen dataclasses)."""
    system = SYSTEMS[GF]
    for name, value in RESHAPE.items():
        object.__setattr__(system, name, value)
    try:
        yield system
    finally:
        for name in RESHAPE:
            object.__delattr__(system, name)


def _stored_as_before(player, *, item_version: int = 1, hireling_version: int = 1) -> Character:
    """A Grit & Flesh character whose armour and hireling rows hold version 1's extra field, as the database
    would have kept them (written past save())."""
    hero = make_character(player, None, system=GF, name="Mara")
    hero.items.all().delete()
    hero.hirelings.all().delete()
    hired = SYSTEMS[GF].validate_hireling(SYSTEMS[GF].hire(hero.to_sheet(), {}, random.Random(1)))
    armour = Item.objects.create(character=hero, name="Old mail", kind="armour", slots=1, data={"AC": 3})
    Item.objects.filter(pk=armour.pk).update(data={"AC": 3, "legacy_wear": 1}, data_version=item_version)
    hand = Hireling.objects.create(character=hero, name="Pim", kind=hired.kind, state=dict(hired.state))
    old_state = {**hired.state, "legacy_morale": 7}
    Hireling.objects.filter(pk=hand.pk).update(state=old_state, state_version=hireling_version)
    return Character.objects.get(pk=hero.pk)


def test_every_system_has_a_step_for_each_item_and_hireling_version():
    for system in SYSTEMS.values():
        assert system.item_version >= 1 and len(system.item_upgrades) == system.item_version - 1, system.id
        assert system.hireling_version >= 1 and len(system.hireling_upgrades) == system.hireling_version - 1


def test_grit_and_flesh_rows_are_stored_at_today_s_versions(player):
    hero = make_character(player, None, system=GF, name="Mara")
    item_add(character_id=hero.pk, item=rules_base.Item(name="Rope", kind="gear", slots=1, quantity=1), by=player)
    hero.state = {**hero.state, "coins": 500}
    Character.objects.filter(pk=hero.pk).update(state=hero.state)
    hireling_hire(character_id=hero.pk, choices={}, by=player)
    assert set(Item.objects.filter(character=hero).values_list("data_version", flat=True)) == {1}
    assert set(Hireling.objects.filter(character=hero).values_list("state_version", flat=True)) == {1}
    assert SYSTEMS[GF].item_version == SYSTEMS[GF].hireling_version == 1  # no reshape yet: version 1's shape


def test_without_the_upgrade_the_old_rows_are_numbers_the_rules_can_t_read(player):
    hero = _stored_as_before(player)
    with pytest.raises(RulesError):
        hero.checked_sheet()


def test_rows_saved_before_a_reshape_are_read_in_today_s_shape(player, reshaped, as_user):
    hero = _stored_as_before(player)
    sheet = hero.checked_sheet()
    [armour] = [item for item in sheet.items if item.name == "Old mail"]
    assert armour.data == {"AC": 3}
    assert all("legacy_morale" not in h.state for h in sheet.hirelings)
    page = as_user(player).get(reverse("characters:sheet", args=[hero.pk]))
    assert page.status_code == 200 and "can&#x27;t read" not in page.content.decode()


def test_the_first_save_of_the_data_stores_today_s_shape_and_version(player, reshaped):
    hero = _stored_as_before(player)
    armour, hand = hero.items.get(name="Old mail"), hero.hirelings.get()
    armour.quantity = 2
    armour.save(update_fields=["quantity"])  # the data not written: its version stays
    assert Item.objects.values_list("data_version", flat=True).get(pk=armour.pk) == 1
    armour.save()
    hand.save(update_fields=["state"])
    assert Item.objects.values_list("data", "data_version").get(pk=armour.pk) == ({"AC": 3}, 2)
    state, version = Hireling.objects.values_list("state", "state_version").get(pk=hand.pk)
    assert version == 2 and "legacy_morale" not in state


def test_a_row_from_a_newer_lantern_is_refused_with_a_sentence(player, reshaped, as_user):
    hero = _stored_as_before(player, item_version=3)
    with pytest.raises(RulesError, match="saved by a newer Lantern"):
        hero.checked_sheet()
    page = as_user(player).get(reverse("characters:sheet", args=[hero.pk]))
    assert page.status_code == 200 and "saved by a newer Lantern" in page.content.decode()


def test_a_file_saved_before_a_reshape_imports_in_today_s_shape(player, reshaped, as_user):
    document = export_character(_stored_as_before(player))
    assert document["items"][0]["data_version"] == 1 and document["hirelings"][0]["state_version"] == 1
    document["name"] = "Old file"
    upload = SimpleUploadedFile("old.json", json.dumps(document).encode(), content_type="application/json")
    assert as_user(player).post(reverse("characters:import"), {"file": upload}).status_code == 302
    copy = Character.objects.get(name="Old file")
    assert list(copy.items.values_list("data", "data_version")) == [({"AC": 3, "current_AC": 3}, 2)]
    [(state, version)] = copy.hirelings.values_list("state", "state_version")
    assert version == 2 and "legacy_morale" not in state


def test_a_file_from_a_newer_lantern_is_refused_with_a_sentence(player, reshaped, as_user):
    document = {**export_character(_stored_as_before(player)), "name": "New file"}
    document["hirelings"][0]["state_version"] = 5
    upload = SimpleUploadedFile("new.json", json.dumps(document).encode(), content_type="application/json")
    response = as_user(player).post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 400 and "saved by a newer Lantern" in response.content.decode()
    assert not Character.objects.filter(name="New file").exists()
