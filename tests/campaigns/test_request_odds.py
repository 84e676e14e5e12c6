"""Requests with odds before sending (issue 26): as the GM composes a roll request, each ticked character's exact odds
at it (from their own sheet, the GM's inputs fixed, the rest at the sheet's defaults) and the party's chance, where
the rules make it a group roll (C&C's party save, seed 002) or as plain "at least one" / "all" products elsewhere;
the player's prompt shows their own odds."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import RollRequest
from rules import SYSTEMS
from rules.group import group_odds
from tests.campaigns.test_table_conditions import _dark
from tests.characters.test_fortunes_favor_app import set_state
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db

ODDS_QUERIES = 7  # however many characters are asked


@pytest.fixture
def ash(other_player, cc):
    return make_character(other_player, cc, system="chaos-conquest", name="Ash", seed=11)


def _form(client, campaign, **changes) -> dict:
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    return form_fields(page, reverse("campaigns:request_new", args=[campaign.pk]), **changes)


def _odds(client, campaign, fields):
    return client.get(reverse("campaigns:request_odds", args=[campaign.pk]), fields, **HTMX)


def _row(response, name: str) -> str:
    match = re.search(rf'<li data-odds-for="{name}">(.*?)</li>', response.content.decode(), re.S)
    assert match, f"no odds for {name}"
    return match.group(1)


def _shown(response, name: str) -> Fraction:
    return Fraction(re.search(r'data-odds="([0-9/]+)"', _row(response, name)).group(1))


def _save(character, attribute: str) -> Fraction:
    """Seed 002, Saves: a d20 under the attribute passes (a 1 always, a 20 never)."""
    character.refresh_from_db()
    current = character.to_sheet().state["attributes"][attribute]["current"]
    return Fraction(min(max(current, 1), 19), 20)


def test_the_gm_sees_each_characters_odds_and_the_party_save_before_asking(cc, wren, ash, gm, as_user):
    """Seed 002, Party Saves: the best result counts, so the party passes unless everyone fails."""
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[cc.pk]))
    assert 'id="request-odds"' in page.content.decode() and 'data-odds-for="Wren"' in page.content.decode()
    response = _odds(client, cc, _form(client, cc, **{"fix-attribute": "DEX"}))
    assert response.status_code == 200, text_of(response)
    wren_p, ash_p = _save(wren, "DEX"), _save(ash, "DEX")
    assert _shown(response, "Wren") == wren_p and _shown(response, "Ash") == ash_p
    party = 1 - (1 - wren_p) * (1 - ash_p)
    group = re.search(r'data-party-odds="group">.*?data-odds="([0-9/]+)"', response.content.decode(), re.S)
    assert group and Fraction(group.group(1)) == party
    assert "As a group:" in text_of(response)
    # Ash alone: no party line past one character's own odds.
    alone = _odds(client, cc, _form(client, cc, **{"fix-attribute": "STR", "characters": [ash.pk]}))
    assert _shown(alone, "Ash") == _save(ash, "STR") and 'data-odds-for="Wren"' not in alone.content.decode()
    assert "data-party-odds" not in alone.content.decode()


def test_where_no_rule_makes_a_group_roll_at_least_one_and_all_are_exact_products(campaign, hero, rival, gm, as_user):
    client = as_user(gm)
    response = _odds(client, campaign, _form(client, campaign, **{"fix-ability": "BOD", "fix-dn": "6"}))
    assert response.status_code == 200, text_of(response)
    a, b = _shown(response, "Wren"), _shown(response, "Ash")
    page = response.content.decode()
    assert f'data-anyone="{1 - (1 - a) * (1 - b)}"' in page.replace("data-anyone", "data-anyone")
    assert f'data-everyone="{a * b}"' in page
    assert "at least one succeeds" in text_of(response) and "all succeed" in text_of(response)


def test_darkness_shows_on_each_characters_odds_as_a_chip(cc, wren, gm, as_user):
    """Equipment.md, Light: in darkness saves are at disadvantage; the chip says so where the odds show."""
    client = as_user(gm)
    _dark(client, cc)
    response = _odds(client, cc, _form(client, cc, **{"fix-attribute": "WIL"}))
    plain = _save(wren, "WIL")
    assert _shown(response, "Wren") == plain**2
    row = _row(response, "Wren")
    assert 'data-condition="table-light"' in row and "Dark:" in row


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"fix-attribute": "XYZ"}, "Select a valid choice"),
        ({"procedure": "party_save"}, "has no roll a player makes"),
        ({"procedure": "nonsense"}, "has no roll a player makes"),
        ({"characters": ["999999"]}, "Only characters at this table can be asked for a roll."),
    ],
)
def test_bad_input_is_a_422_with_a_sentence(changes, message, cc, wren, gm, as_user):
    client = as_user(gm)
    response = _odds(client, cc, _form(client, cc, **changes))
    assert response.status_code == 422 and message in text_of(response)
    assert not RollRequest.objects.exists()


def test_nobody_ticked_shows_no_odds_and_no_error(cc, wren, gm, as_user):
    client = as_user(gm)
    fields = _form(client, cc)
    fields.pop("characters")
    response = _odds(client, cc, fields)
    assert response.status_code == 200 and "Tick someone to ask." in text_of(response)


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 404), ("stranger", 404), (None, 302)])
def test_only_the_campaigns_gm_sees_the_odds(who, status, cc, wren, gm, request, as_user):
    fields = _form(as_user(gm), cc, **{"fix-attribute": "DEX"})
    user = request.getfixturevalue(who) if who else None
    response = _odds(as_user(user), cc, fields)
    assert response.status_code == status
    if status != 200:
        assert "data-odds-for" not in response.content.decode()


def test_the_odds_cost_the_same_queries_for_two_characters_or_five(
    cc, wren, ash, gm, player, as_user, django_assert_max_num_queries
):
    client = as_user(gm)
    fields = _form(client, cc, **{"fix-attribute": "DEX"})
    # The GM's session and campaign, the party's characters, items, hirelings and pending offers.
    with django_assert_max_num_queries(ODDS_QUERIES):
        assert _odds(client, cc, fields).status_code == 200
    for n in range(3):
        make_character(player, cc, system="chaos-conquest", name=f"Extra {n}", seed=20 + n)
    fields = _form(client, cc, **{"fix-attribute": "DEX"})
    with django_assert_max_num_queries(ODDS_QUERIES):
        response = _odds(client, cc, fields)
    assert response.status_code == 200 and response.content.decode().count("data-odds-for=") == 5


def test_the_players_prompt_shows_their_own_odds_with_the_gms_inputs(cc, wren, ash, gm, player, as_user):
    client = as_user(gm)
    url = reverse("campaigns:request_new", args=[cc.pk])
    assert client.post(url, _form(client, cc, **{"fix-attribute": "DEX"}), **HTMX).status_code == 200
    request = RollRequest.objects.get()
    prompt = as_user(player).get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]))
    page = prompt.content.decode()
    box = re.search(rf'id="rq-odds-{request.answers.get(character=wren).pk}"[^>]*>(.*?)</p>', page, re.S)
    assert box, page
    p = _save(wren, "DEX")
    assert f'data-odds="{p.numerator}/{p.denominator}"' in box.group(1)
    assert f"Roll {request.label}" in text_of(prompt)


def test_a_refused_request_keeps_its_odds_as_the_gm_filled_it(cc, wren, gm, as_user):
    client = as_user(gm)
    url = reverse("campaigns:request_new", args=[cc.pk])
    refused = client.post(url, _form(client, cc, **{"fix-attribute": "WIL", "minutes": "0"}), **HTMX)
    assert refused.status_code == 422 and "greater than or equal to 1" in text_of(refused)
    assert _shown(refused, "Wren") == _save(wren, "WIL")
    assert not RollRequest.objects.exists()


@pytest.mark.parametrize(
    ("who", "status"), [("player", 200), ("gm", 200), ("other_player", 404), ("stranger", 404), (None, 302)]
)
def test_the_players_odds_follow_their_own_options_and_only_those_who_answer_see_them(
    who, status, cc, wren, gm, player, request, as_user
):
    """Seed 002, Saves: disadvantage rolls twice and keeps the worse, so the odds square."""
    client = as_user(gm)
    url = reverse("campaigns:request_new", args=[cc.pk])
    assert client.post(url, _form(client, cc, **{"fix-attribute": "DEX"}), **HTMX).status_code == 200
    asked = RollRequest.objects.get()
    odds_url = reverse("campaigns:request_answer_odds", args=[cc.pk, asked.pk, wren.pk])
    user = request.getfixturevalue(who) if who else None
    response = as_user(user).get(odds_url, {"disadvantage": "on"}, **HTMX)
    assert response.status_code == status
    if status == 200:
        p = _save(wren, "DEX") ** 2
        assert f'data-odds="{p.numerator}/{p.denominator}"' in response.content.decode()
        # The GM's input wins over one sent; an input the roll has not is refused with a sentence.
        forced = as_user(user).get(odds_url, {"attribute": "STR"}, **HTMX)
        dex = _save(wren, "DEX")
        assert f'data-odds="{dex.numerator}/{dex.denominator}"' in forced.content.decode()
        bad = as_user(user).get(odds_url, {"colour": "red"}, **HTMX)
        assert bad.status_code == 422 and "has no option colour" in text_of(bad)


def test_a_fortunes_favor_group_test_shows_each_group_outcome_exactly(gm, player, other_player, as_user):
    """Seed 003, Group Tests: the group's result is read for every way the party's Passes, Mixed and Fails fall."""
    table = make_table("fortunes-favor", gm, player, other_player, name="The Gilded Road")
    sable = set_state(make_character(player, table, system="fortunes-favor", name="Sable"))
    orrin = set_state(make_character(other_player, table, system="fortunes-favor", name="Orrin", seed=11))
    client = as_user(gm)
    response = _odds(client, table, _form(client, table, procedure="test", **{"fix-stat": "mettle"}))
    assert response.status_code == 200, text_of(response)
    system = SYSTEMS["fortunes-favor"]
    each = [system.procedures()["test"].odds(c.checked_sheet(), {"stat": "mettle"}) for c in (sable, orrin)]
    expected = group_odds(system, "test", each)
    group = re.search(r'data-party-odds="group">.*?<span class="odds-line"([^>]*)>', response.text, re.S).group(1)
    for key, p in expected.outcomes:
        if p:
            assert f'data-odds-{key}="{p.numerator}/{p.denominator}"' in group
