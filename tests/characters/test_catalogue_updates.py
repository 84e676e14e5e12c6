"""Catalogue edits reach the characters who hold the item (issue 30): each copy remembers its entry and version;
the admin shows who holds an older copy and what would change; staff push to all, to chosen tables or to none; a
GM pulls the updates for their table. Each update is the character's own inventory write: its rules (the carry
limit), a new version, a history entry its player can revert, its pages told. A sheet it would break is skipped."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth.models import Permission
from django.urls import reverse

from characters.models import CatalogueItem, Change, Item
from characters.services import catalogue_updates
from characters.services.inventory import item_add_from_catalogue
from characters.services.sheet import change_revert
from live.events import SheetChanged
from rules import RulesError
from tests.conftest import client_for, make_character, make_table
from tests.pages import form_fields, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db

SWORD = "Medium melee weapon"  # Grit & Flesh: 1 slot (one hand); every new character starts with one
TWO_HANDED = '{"size": "medium", "hands": 2, "damage_bonus": 0, "range": 0, "cost": 6}'  # the rules: 2 slots


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_superuser("staff", password="x")


@pytest.fixture
def cast(gm, player, other_player, django_user_model):
    """Two Grit & Flesh tables: Wren (3 of 10 slots) at the first, Ash loaded to all 10 at the second."""
    second_gm = django_user_model.objects.create_user("second_gm", password="x")
    first = make_table("grit-flesh", gm, player, name="The Salt Road")
    second = make_table("grit-flesh", second_gm, other_player, name="The Ash Court")
    wren = make_character(player, first, system="grit-flesh", name="Wren")
    ash = make_character(other_player, second, system="grit-flesh", name="Ash", seed=11)
    small = CatalogueItem.objects.get(system="grit-flesh", name="Small melee weapon")
    item_add_from_catalogue(character_id=ash.pk, entry_id=small.pk, by=other_player, quantity=7)
    sword = CatalogueItem.objects.get(system="grit-flesh", name=SWORD)
    return {"first": first, "second": second, "wren": wren, "ash": ash, "sword": sword, "second_gm": second_gm}


def _edit_in_admin(client, entry: CatalogueItem, **changes) -> object:
    url = reverse("admin:characters_catalogueitem_change", args=[entry.pk])
    fields = form_fields(client.get(url), "", **{k: [str(v)] for k, v in changes.items()})
    return client.post(url, fields)


def _copy(character, name=SWORD) -> Item:
    return character.items.get(name=name)


def test_copies_remember_their_entry_and_version_and_only_copied_fields_make_a_version(staff, cast):
    client = client_for(staff)
    wren, sword = cast["wren"], cast["sword"]
    assert (_copy(wren).catalogue_item_id, _copy(wren).catalogue_version) == (sword.pk, 1)
    assert _edit_in_admin(client, sword, cost=7).status_code == 302  # a price is paid once: no new version
    sword.refresh_from_db()
    assert (sword.version, sword.edits) == (1, [])
    response = _edit_in_admin(client, sword, data=TWO_HANDED)
    assert response.status_code == 302
    assert response["Location"] == reverse("admin:characters_catalogueitem_holders", args=[sword.pk])
    sword.refresh_from_db()
    assert sword.version == 2 and sword.edits == [{"version": 2, "changed": {"data.hands": [1, 2]}}]
    wren.refresh_from_db()
    assert _copy(wren).slots == 1  # nothing on any sheet changes unasked
    small = CatalogueItem.objects.get(system="grit-flesh", name="Small melee weapon")
    added = item_add_from_catalogue(character_id=wren.pk, entry_id=sword.pk, by=wren.owner)
    assert added.row.catalogue_version == 2 and added.row.slots == 2
    assert small.version == 1


def test_admin_preview_lists_holders_tables_the_difference_and_who_would_be_skipped(
    staff, cast, django_assert_max_num_queries
):
    client = client_for(staff)
    sword = cast["sword"]
    _edit_in_admin(client, sword, data=TWO_HANDED)
    url = reverse("admin:characters_catalogueitem_holders", args=[sword.pk])
    with django_assert_max_num_queries(14):
        response = client.get(url)
    assert response.status_code == 200
    page = text_of(response)
    assert "version 2" in page and "2 characters hold a copy" in page
    assert "Wren" in page and "The Salt Road" in page and "slots 1 → 2" in page
    assert "Ash" in page and "The Ash Court" in page
    assert "Skipped: That makes 11 slots, and nobody can carry more than 10." in page
    fields = form_fields(response, url)
    assert fields["reach"] and sorted(fields) == ["csrfmiddlewaretoken", "reach"]  # no table ticked yet


def test_admin_preview_queries_do_not_grow_with_holders(staff, cast, player, django_assert_max_num_queries):
    client = client_for(staff)
    sword = cast["sword"]
    for n in range(6):
        make_character(player, cast["first"], system="grit-flesh", name=f"Extra {n}", seed=20 + n)
    _edit_in_admin(client, sword, data=TWO_HANDED)
    with django_assert_max_num_queries(14):
        response = client.get(reverse("admin:characters_catalogueitem_holders", args=[sword.pk]))
    assert text_of(response).count("slots 1 → 2") == 8


def test_push_to_all_updates_each_sheet_through_its_rules_and_skips_the_one_it_would_break(
    staff, cast, player, monkeypatch
):
    client = client_for(staff)
    wren, ash, sword = cast["wren"], cast["ash"], cast["sword"]
    _edit_in_admin(client, sword, data=TWO_HANDED)
    first, second = Since(cast["first"].pk), Since(cast["second"].pk)
    wren.refresh_from_db()
    ash.refresh_from_db()
    versions = {wren.pk: wren.version, ash.pk: ash.version}
    url = reverse("admin:characters_catalogueitem_holders", args=[sword.pk])
    response = client.post(url, form_fields(client.get(url), url, reach="all"), follow=True)
    page = text_of(response)
    assert f"{SWORD} version 2 reached Wren." in page
    assert "Skipped Ash: That makes 11 slots, and nobody can carry more than 10." in page
    wren.refresh_from_db()
    ash.refresh_from_db()
    assert (_copy(wren).slots, _copy(wren).catalogue_version, wren.version) == (2, 2, versions[wren.pk] + 1)
    assert (_copy(ash).slots, _copy(ash).catalogue_version, ash.version) == (1, 1, versions[ash.pk])
    # Wren's table is told, by whoever pushed the update; nothing was written at Ash's
    assert [(entry.by_id, entry.events) for entry in first.entries()] == [
        (staff.pk, (SheetChanged(character=wren.pk, regions=("inventory", "vitals", "details")),))
    ]
    assert second.entries() == []
    change = Change.objects.filter(character=wren).latest("pk")
    assert change.what == f"Catalogue update: {SWORD} (slots: 1 → 2, hands: 1 → 2)" and change.by == staff
    # Her player takes it back: the copy is of version 1 again, so the update is offered again.
    change_revert(character_id=wren.pk, change_id=change.pk, by=player, reason="I like it light")
    assert (_copy(wren).slots, _copy(wren).catalogue_version) == (1, 1)
    assert "Wren" in text_of(client.get(url))


def test_push_to_chosen_tables_only_and_to_none(staff, cast):
    client = client_for(staff)
    wren, sword = cast["wren"], cast["sword"]
    _edit_in_admin(client, sword, data='{"size": "medium", "hands": 2, "damage_bonus": 1, "range": 0}')
    url = reverse("admin:characters_catalogueitem_holders", args=[sword.pk])
    preview = client.get(url)
    assert "damage_bonus 0 → 1" in text_of(preview) and "cost 6 → —" in text_of(preview)
    client.post(url, form_fields(preview, url, reach="none"))
    assert _copy(wren).slots == 1
    tables = form_fields(preview, url, reach="campaigns", campaign=[str(cast["second"].pk)])
    response = client.post(url, tables, follow=True)
    assert "reached nobody" in text_of(response) and "Skipped Ash" in text_of(response)
    assert _copy(wren).slots == 1
    refused = client.post(url, form_fields(preview, url, reach="campaigns"), follow=True)
    assert "Choose at least one table" in text_of(refused)
    client.post(url, form_fields(preview, url, reach="campaigns", campaign=[str(cast["first"].pk)]))
    copy = _copy(wren)
    assert (copy.slots, copy.data["damage_bonus"], "cost" in copy.data) == (2, 1, False)


def test_an_update_writes_only_what_staff_changed(staff, cast, player):
    """A player's own name for the item and a value the copy keeps (Grit & Flesh armour's current AC) stay."""
    client = client_for(staff)
    wren = cast["wren"]
    armour = CatalogueItem.objects.get(system="grit-flesh", name="Light armour")
    Item.objects.filter(character=wren, name="Light armour").update(data={"AC": 2, "current_AC": 1, "cost": 20})
    _edit_in_admin(client, armour, data='{"AC": 2, "current_AC": 2, "cost": 25}')
    catalogue_updates.push_entry(entry_id=armour.pk, by=staff)
    copy = wren.items.get(catalogue_item=armour)
    assert copy.data == {"AC": 2, "current_AC": 1, "cost": 25} and copy.catalogue_version == 2


def test_only_staff_see_and_push(cast, player, gm, staff, django_user_model):
    sword = cast["sword"]
    url = reverse("admin:characters_catalogueitem_holders", args=[sword.pk])
    for user in (player, gm):
        assert client_for(user).get(url).status_code == 302  # to the admin's login
        assert client_for(user).post(url, {"reach": "all"}).status_code == 302
    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_catalogueitem"))
    assert client_for(viewer).get(url).status_code == 403
    assert client_for(viewer).post(url, {"reach": "all"}).status_code == 403
    with pytest.raises(RulesError, match="Only staff"):
        catalogue_updates.push_entry(entry_id=sword.pk, by=gm)
    assert client_for(staff).get(reverse("admin:characters_catalogueitem_holders", args=[999999])).status_code == 404


def test_gm_pulls_updates_for_their_own_table_only(staff, cast, gm, player, stranger, django_assert_max_num_queries):
    wren, ash, sword = cast["wren"], cast["ash"], cast["sword"]
    _edit_in_admin(client_for(staff), sword, data=TWO_HANDED)
    url = reverse("campaigns:catalogue_updates", args=[cast["first"].pk])
    as_gm = client_for(gm)
    assert (
        reverse("campaigns:catalogue_updates", args=[cast["first"].pk])
        in as_gm.get(cast["first"].get_absolute_url()).content.decode()
    )
    with django_assert_max_num_queries(12):
        page = as_gm.get(url)
    assert "Wren" in text_of(page) and "slots 1 → 2" in text_of(page) and "Ash" not in text_of(page)
    for outsider in (player, stranger, cast["second_gm"]):
        assert client_for(outsider).get(url).status_code == 404
        assert client_for(outsider).post(url).status_code == 404
    assert _copy(wren).slots == 1
    response = as_gm.post(url, form_fields(page, url), follow=True)
    assert "Brought up to date: Wren." in text_of(response) and "Every item at this table matches" in text_of(response)
    assert _copy(wren).slots == 2 and _copy(ash).slots == 1  # the other table's sheet is not this GM's
    second = client_for(cast["second_gm"])
    url2 = reverse("campaigns:catalogue_updates", args=[cast["second"].pk])
    assert "Would be skipped: That makes 11 slots" in text_of(second.get(url2))
    skipped = second.post(url2, form_fields(second.get(url2), url2), follow=True)
    assert "Skipped Ash: That makes 11 slots" in text_of(skipped) and _copy(ash).slots == 1


def test_existing_copies_are_linked_by_name_within_their_system(cast):
    """Migration 0014: a copy made before copies remembered their entry is linked by its name, in its system."""
    from importlib import import_module

    wren = cast["wren"]
    Item.objects.filter(character=wren).update(catalogue_item=None, catalogue_version=None)
    Item.objects.create(character=wren, name="Grandpa's sword", kind="weapon", slots=1, data={"size": "small"})
    import_module("characters.migrations.0014_catalogue_versions").link_by_name(apps, None)
    linked = {i.name: (i.catalogue_item_id is not None, i.catalogue_version) for i in wren.items.all()}
    assert linked == {SWORD: (True, 1), "Light armour": (True, 1), "Grandpa's sword": (False, None)}
    assert _copy(wren).catalogue_item.system == "grit-flesh"
