"""The admin holds a character's items to the system's rules, like every other path (issue 11)."""

from __future__ import annotations

import pytest
from django.urls import reverse

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
