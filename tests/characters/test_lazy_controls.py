"""The roll panel draws the control open at first; the others load when first opened (issue 12)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters.models import Roll
from rules import system_for
from rules.base import ERRANDS, check_params
from tests.conftest import make_character
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db


def _controls(page: str) -> dict[str, str]:
    """Each roll control of the page (its <details>) by procedure."""
    found = re.findall(r'<details class="roll-control" data-procedure="([^"]+)"[^>]*>(.*?)</details>', page, re.S)
    return dict(found)


def test_the_sheet_draws_the_first_control_and_a_placeholder_for_each_other(hero, player, as_user):
    page = as_user(player).get(hero.get_absolute_url()).content.decode()
    rules = system_for("fell-draft")
    # The GM's rolls are not the player's; the rolls of the moment come first, the errands after (issue 26), and
    # buying is the equipment picker's alone.
    players = [p.key for p in rules.procedures().values() if not p.gm_only and p.key != "buy"]
    players = [k for k in players if k not in ERRANDS] + [k for k in players if k in ERRANDS]
    controls = _controls(page)
    assert list(controls) == players
    first, *closed = players
    assert f'data-procedure="{first}" open' in page and "<form" in controls[first]
    for key in closed:
        url = reverse("characters:control", args=[hero.pk, key])
        body = controls[key]
        assert "<form" not in body and "odds-box" not in body
        # htmx loads it on the first opening; without JavaScript the placeholder is a link to it.
        assert f'hx-get="{url}" hx-trigger="toggle once from:closest details"' in body
        assert 'aria-busy="true"' in body and "Loading…" in body
        assert f'<a href="{url}">Open the form for {rules.procedures()[key].label}</a>' in body


def test_the_gm_rolls_load_the_same_way(hero, gm, as_user):
    page = as_user(gm).get(hero.get_absolute_url()).content.decode()
    gm_rolls = page.split('id="gm-rolls"', 1)[1]
    for key in ("npc_attack", "dying", "advance"):
        assert f'hx-get="{reverse("characters:control", args=[hero.pk, key])}"' in gm_rolls


def test_a_loaded_control_holds_the_inputs_odds_button_and_result_box(hero, player, as_user):
    response = as_user(player).get(reverse("characters:control", args=[hero.pk, "take_harm"]), **HTMX)
    assert response.status_code == 200
    html = response.content.decode()
    # Only the inner markup: it replaces the placeholder inside the sheet's <details>.
    assert "<details" not in html and "<html" not in html
    assert f'action="{reverse("characters:roll", args=[hero.pk, "take_harm"])}"' in html
    assert 'name="panel" value="take_harm"' in html and 'name="take_harm-amount"' in html
    assert f'hx-get="{reverse("characters:odds", args=[hero.pk, "take_harm"])}"' in html
    assert 'id="visibility-take_harm"' in html and 'id="result-take_harm"' in html
    rules = system_for("fell-draft")
    sheet = hero.to_sheet()
    procedure = rules.procedures()["take_harm"]
    odds = procedure.odds(sheet, check_params(procedure, sheet, {}))
    assert f'data-odds="{odds.success.numerator}/{odds.success.denominator}"' in html


def test_without_javascript_a_control_is_a_page_of_its_own(hero, player, as_user):
    response = as_user(player).get(reverse("characters:control", args=[hero.pk, "take_harm"]))
    assert response.status_code == 200
    html = response.content.decode()
    assert "<html" in html and '<details class="roll-control" data-procedure="take_harm" open>' in html
    assert f'href="{hero.get_absolute_url()}"' in html
    assert "Wren: Take harm" in text_of(response)


def test_a_loaded_control_rolls_like_a_drawn_one(hero, player, as_user):
    client = as_user(player)
    sheet = client.get(hero.get_absolute_url())
    action = reverse("characters:roll", args=[hero.pk, "take_harm"])
    assert action not in sheet.content.decode()  # not drawn on the page: form_fields loads it as htmx does
    response = client.post(action, form_fields(sheet, action, amount=1), **HTMX)
    assert response.status_code == 200
    assert Roll.objects.filter(character=hero, procedure="take_harm").exists()


@pytest.mark.parametrize(
    ("who", "procedure", "expected"),
    [
        ("anonymous", "take_harm", 302),
        ("stranger", "take_harm", 404),
        ("other_player", "take_harm", 404),  # sees the sheet, may not roll for it
        ("player", "take_harm", 200),
        ("gm", "take_harm", 200),
        ("player", "npc_attack", 404),  # the GM's roll
        ("gm", "npc_attack", 200),
        ("player", "no_such_roll", 404),
        ("gm", "no_such_roll", 404),
    ],
)
@pytest.mark.parametrize("htmx", [False, True], ids=["plain", "htmx"])
def test_a_control_loads_for_who_may_make_the_roll(who, procedure, expected, htmx, hero, as_user, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    url = reverse("characters:control", args=[hero.pk, procedure])
    response = as_user(user).get(url, **(HTMX if htmx else {}))
    assert response.status_code == expected


def test_a_control_offers_the_table_where_a_roll_names_someone(player, other_player, campaign, as_user):
    campaign.system = "fell-late"
    campaign.save()
    hero = make_character(player, campaign, system="fell-late", name="Wren")
    make_character(other_player, campaign, system="fell-late", name="Ash", seed=11)
    client = as_user(player)
    attack = client.get(reverse("characters:control", args=[hero.pk, "attack"]), **HTMX).content.decode()
    harm = client.get(reverse("characters:control", args=[hero.pk, "take_harm"]), **HTMX).content.decode()
    assert re.search(r'<select name="attack-target"[^>]*>.*?>Ash</option>', attack, re.S)
    assert "Ash" not in harm


@pytest.mark.parametrize("campaign_or_not", ["table", "alone"])
def test_a_control_costs_a_fixed_number_of_queries(
    campaign_or_not, player, campaign, as_user, django_assert_max_num_queries
):
    campaign.system = "fell-late"  # its attack names a character of the table
    campaign.save()
    hero = make_character(player, campaign if campaign_or_not == "table" else None, system="fell-late", name="Wren")
    for n in range(3):
        make_character(player, campaign, system="fell-late", name=f"Friend {n}", seed=n)
    client = as_user(player)
    assert client.get(hero.get_absolute_url()).status_code == 200  # logged in before counting
    # Session and user, the character with its table and owner, the GM's membership (at a table), items,
    # hirelings, and the table's characters for a roll that names one (at a table).
    at_table = campaign_or_not == "table"
    for procedure, limit in (("take_harm", 5 + at_table), ("attack", 5 + 2 * at_table)):
        with django_assert_max_num_queries(limit):
            assert client.get(reverse("characters:control", args=[hero.pk, procedure]), **HTMX).status_code == 200
