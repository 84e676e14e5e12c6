"""The admin holds a character's items to the system's rules, like every other path (issue 11)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import CatalogueItem, Hireling, Item
from rules import SYSTEMS
from rules.validation import COST_MAX
from tests.conftest import make_character
from tests.pages import form_fields, text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("field", "value"), [("data", '{"steel_die": 7}'), ("data", '{"damage": "banana"}')])
def test_nonsense_item_data_is_a_form_error_in_the_admin_and_nothing_is_saved(
    player, django_user_model, client, field, value
):
    staff = django_user_model.objects.create_superuser("staff", password="x")
    client.force_login(staff)
    hero = make_character(player)
    item = hero.items.first()
    url = reverse("admin:characters_character_change", args=[hero.pk])
    fields = form_fields(client.get(url), "")  # the admin's change form posts to its own address
    index = next(k.split("-")[1] for k, v in fields.items() if k.endswith("-id") and v == [str(item.pk)])
    fields[f"items-{index}-{field}"] = [value]
    response = client.post(url, fields)
    assert response.status_code == 200 and "errornote" in response.content.decode()
    item.refresh_from_db()
    assert "banana" not in str(item.data) and item.data.get("steel_die") != 7
    assert "steel" in text_of(response).lower() or "damage" in text_of(response).lower()


def test_the_favicon_is_the_svg_logo_and_no_page_uses_an_emoji(client, player):
    response = client.get("/favicon.ico")
    assert response.status_code == 301 and response["Location"].endswith("img/lantern.svg")
    client.force_login(player)
    page = client.get(reverse("campaigns:list")).content.decode()
    assert 'rel="icon"' in page and "🏮" not in page


# --- numbers bounded by us, the same on SQLite and PostgreSQL (issue 23) -----------------------------------


@pytest.mark.parametrize("cost", [str(10**14), str(2**31), str(COST_MAX + 1)])
def test_a_catalogue_price_past_any_purse_is_a_form_error_on_every_engine(django_user_model, client, cost):
    """SQLite's column would take 10^14 and PostgreSQL's refuses past 2^31: the bound is ours, not the column's."""
    client.force_login(django_user_model.objects.create_superuser("staff", password="x"))
    entry = CatalogueItem.objects.create(system="fell-draft", name="Test lantern", kind="light", cost=3)
    url = reverse("admin:characters_catalogueitem_change", args=[entry.pk])
    fields = form_fields(client.get(url), "")
    fields["cost"] = [cost]
    response = client.post(url, fields)
    assert response.status_code == 200 and "errornote" in response.content.decode()
    assert f"No price is above {COST_MAX}" in text_of(response)
    entry.refresh_from_db()
    assert entry.cost == 3


def test_the_highest_price_is_taken(django_user_model, client):
    client.force_login(django_user_model.objects.create_superuser("staff", password="x"))
    entry = CatalogueItem.objects.create(system="fell-draft", name="Test lantern", kind="light", cost=3)
    url = reverse("admin:characters_catalogueitem_change", args=[entry.pk])
    fields = form_fields(client.get(url), "")
    fields["cost"] = [str(COST_MAX)]
    assert client.post(url, fields).status_code == 302
    entry.refresh_from_db()
    assert entry.cost == COST_MAX


def test_a_price_past_any_purse_is_refused_in_the_changelist_too(django_user_model, client):
    client.force_login(django_user_model.objects.create_superuser("staff", password="x"))
    entry = CatalogueItem.objects.create(system="fell-draft", name="Test lantern", kind="light", cost=3)
    url = reverse("admin:characters_catalogueitem_changelist") + "?q=Test+lantern"
    assert 'id="changelist-form"' in client.get(url).content.decode()
    # The changelist's own form (it has no action to find it by): one row, its editable columns.
    fields = {"form-TOTAL_FORMS": "1", "form-INITIAL_FORMS": "1", "form-0-id": str(entry.pk), "_save": "Save"}
    fields |= {"form-0-cost": str(10**14), "form-0-slots": "1", "form-0-available": "on"}
    response = client.post(url, fields)
    assert response.status_code == 200 and "errornote" in response.content.decode()
    entry.refresh_from_db()
    assert entry.cost == 3


@pytest.mark.parametrize(("field", "value"), [("quantity", str(10**14)), ("slots", str(10**6))])
def test_an_inventory_row_past_the_rules_bounds_is_a_form_error_on_every_engine(
    player, django_user_model, client, field, value
):
    client.force_login(django_user_model.objects.create_superuser("staff", password="x"))
    hero = make_character(player)
    item = hero.items.first()
    url = reverse("admin:characters_character_change", args=[hero.pk])
    fields = form_fields(client.get(url), "")
    index = next(k.split("-")[1] for k, v in fields.items() if k.endswith("-id") and v == [str(item.pk)])
    fields[f"items-{index}-{field}"] = [value]
    response = client.post(url, fields)
    assert response.status_code == 200 and "errornote" in response.content.decode()
    assert getattr(Item.objects.get(pk=item.pk), field) == getattr(item, field)


def test_a_hirelings_wage_past_the_bound_is_a_form_error_on_every_engine(player, django_user_model, client):
    client.force_login(django_user_model.objects.create_superuser("staff", password="x"))
    hero = make_character(player)
    pim = Hireling.objects.create(character=hero, name="Pim", kind="hireling", state={}, wage=5)
    url = reverse("admin:characters_character_change", args=[hero.pk])
    fields = form_fields(client.get(url), "")
    index = next(k.split("-")[1] for k, v in fields.items() if k.endswith("-id") and v == [str(pim.pk)])
    fields[f"hirelings-{index}-wage"] = [str(10**14)]
    response = client.post(url, fields)
    assert response.status_code == 200 and "errornote" in response.content.decode()
    pim.refresh_from_db()
    assert pim.wage == 5


def test_every_catalogue_price_in_the_rules_is_within_the_bound():
    for system in SYSTEMS.values():
        for entry in system.catalogue():
            assert entry.cost is None or 0 <= entry.cost <= COST_MAX, (system.id, entry.name)
