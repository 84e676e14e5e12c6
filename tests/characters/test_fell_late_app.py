"""Fell (late revision) played through the app: creation form, sheet, exact odds over HTTP, harm, settings, the
GM's luck die, and the issue's bad inputs (each refused with a sentence, nothing changed).

"seed 001" is ../shared/seeds/001_9a541ab1b0476299.txt.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from campaigns import services as campaign_services
from campaigns.models import Campaign, Membership, RuleSettingChange
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character, Hireling, Roll
from rules import dice
from rules.dice import ScriptedRandom
from rules.systems.fell_late import SYSTEM
from tests.conftest import make_character
from tests.pages import BOTH, HTMX, form_fields, post, refused, roll_form, sheet_form, text_of, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _catalogue(db):
    load_catalogue(CatalogueItem, "fell-late")


@pytest.fixture
def table(gm, player, other_player):
    campaign = Campaign.objects.create(name="The Barrow", system="fell-late")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


def late_state(**changes):
    state = SYSTEM.default_state()
    state.update(
        attributes={a: {"die": d, "original": d} for a, d in (("STR", 6), ("DEX", 6), ("INT", 4), ("WIL", 4))},
        hp=4,
        hp_max=4,
        skills=["lore", "survival"],
        coins=9,
        background="Scholar",
        age=30,
    )
    state.update(changes)
    return SYSTEM.validate_state(state)


def set_state(character: Character, **changes) -> Character:
    character.state = late_state(**changes)
    character.save(update_fields=["state"])
    return character


@pytest.fixture
def hero(player, table):
    return set_state(make_character(player, table, system="fell-late", name="Hollis"))


def _hire_helper(hero, name="Bo"):
    return Hireling.objects.create(
        character=hero,
        name=name,
        state={**late_state(skills=["lore"]), "hireling": True, "hire_rank": "novice", "paid_up": True},
        wage=15,
    )


# --- creation and sheet ---------------------------------------------------------------------------


def test_the_creation_form_makes_a_fell_late_character_with_every_roll_logged(as_user, player, table):
    """creation: the form's own fields; the log holds every creation roll with its dice."""
    client = as_user(player)
    url = reverse("characters:create")
    page = client.get(url, {"system": "fell-late", "campaign": table.pk})
    fields = form_fields(page, url)
    response = client.post(url, fields)
    assert response.status_code == 302, text_of(response)
    character = Character.objects.get(owner=player, system="fell-late")
    roll = Roll.objects.get(character=character)
    assert {"Attribute dice", "Hit protection", "Coin", "Drive"} <= set(roll.inputs["rolls"])
    assert character.items.filter(name="torch (1 hour)", quantity=3).exists()


def test_the_sheet_shows_every_number(as_user, player, hero):
    """seed 001: dice with original steps, HP, armour, skills ≤ INT, spells ≤ WIL, slots, fatigue, hoard, rank."""
    state = late_state(fatigue=1, hoard=1500)
    state["attributes"]["STR"] = {"die": 4, "original": 6}
    hero.state = state
    hero.save(update_fields=["state"])
    response = as_user(player).get(hero.get_absolute_url())
    body, page = response.content.decode(), text_of(response)
    assert 'data-attribute="STR"' in body and "original d6" in page and "lowered" in page
    assert "2 of 4 (INT)" in page and "0 of 4 (WIL)" in page
    assert "HP 4 / 4" in page
    assert "Item slots" in page and "/ 8 (twice STR" in page and "never more than 16" in page
    assert "every test impaired 1 step" in page
    assert "Hoard 1500" in page and "Ready to advance" in page
    assert "Armour 0" in page


# --- odds and rolls ---------------------------------------------------------------------------------


def test_a_test_with_two_skills_and_a_helper_shows_the_exact_odds_and_rolls(as_user, player, hero):
    """seed 001 (Skills; Help): STR d6 two steps up to d10, a helper's ADV: 1 - (3/10)^2 = 91/100."""
    _hire_helper(hero)
    client = as_user(player)
    url = reverse("characters:roll", args=[hero.pk, "test"])
    sheet_page = client.get(hero.get_absolute_url())
    helper = str(hero.hirelings.get().pk)
    fields = form_fields(
        sheet_page, url, **{"test-attribute": "STR", "test-skills": ["lore", "survival"], "test-helpers": [helper]}
    )
    odds = client.get(reverse("characters:odds", args=[hero.pk, "test"]), fields, **HTMX).content.decode()
    assert 'data-odds="91/100"' in odds
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200, text_of(response)
    roll = Roll.objects.filter(character=hero, procedure="test").get()
    assert len(roll.dice) == 2 and all(d["sides"] == 10 for d in roll.dice)


@BOTH
def test_taking_critical_harm_lowers_str_or_not(as_user, player, hero, htmx):
    """seed 001 (Harm and Death): past HP, a STR test; failing lowers STR a step and takes them out."""
    set_state(hero, hp=0)
    client = as_user(player)
    url, fields = roll_form(client, hero, "take_harm", amount="3")
    odds = client.get(reverse("characters:odds", args=[hero.pk, "take_harm"]), fields, **HTMX)
    assert 'data-odds-critical_fail="1/2"' in odds.content.decode()
    response = post(client, url, fields, htmx)
    assert response.status_code in (200, 302)
    hero.refresh_from_db()
    assert hero.state["attributes"]["STR"]["die"] in (4, 6)
    assert hero.state["out"] == (hero.state["attributes"]["STR"]["die"] == 4)


def test_settings_change_the_odds_on_the_sheet(as_user, gm, player, hero):
    """spec §5.1: help stacking capped at one makes two helpers worth one ADV."""
    _hire_helper(hero, "Bo")
    _hire_helper(hero, "Cy")
    ids = [str(h.pk) for h in hero.hirelings.all()]
    url = reverse("characters:odds", args=[hero.pk, "test"])
    client = as_user(player)
    params = roll_form(client, hero, "test", attribute="STR", helpers=ids)[1]
    assert 'data-odds="7/8"' in client.get(url, params, **HTMX).content.decode()
    campaign_services.campaign_change_settings(campaign_id=hero.campaign_id, values={"help_stacking": "one"}, by=gm)
    assert 'data-odds="3/4"' in client.get(url, params, **HTMX).content.decode()


def test_the_gm_rolls_the_luck_die_from_the_table(as_user, gm, table, hero):
    """seed 001 (Luck): the referee's d6, logged at the table."""
    client = as_user(gm)
    page = client.get(table.get_absolute_url())
    assert "Luck die" in text_of(page)
    url = reverse("campaigns:table_roll", args=[table.pk, "luck"])
    response = client.post(url, form_fields(page, url), **HTMX)
    assert response.status_code == 200
    assert Roll.objects.filter(procedure="luck").exists()


# --- the bad inputs ---------------------------------------------------------------------------


@BOTH
def test_a_fifth_skill_past_int_is_refused(as_user, player, hero, htmx):
    set_state(hero, skills=["lore", "survival", "repair", "athletics"])
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "learn_skill", skill="speechcraft"), htmx)
    refused(response, htmx, "You know 4 skills, as many as your INT (d4) allows.")
    assert unchanged(hero) == before


@BOTH
def test_a_spell_past_wil_is_refused(as_user, player, hero, htmx):
    set_state(hero, spells=["Sleep", "Charm", "Knock", "Leap"])
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "learn_spell", spell="Web"), htmx)
    refused(response, htmx, "You know 4 spells, as many as your WIL (d4) allows.")
    assert unchanged(hero) == before


@BOTH
def test_a_hireling_past_wil_is_refused(as_user, player, hero, htmx):
    set_state(hero, coins=500)
    for n in range(4):
        _hire_helper(hero, f"H{n}")
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", name="One too many"), htmx)
    refused(response, htmx, "as many as your WIL (d4) allows")
    assert unchanged(hero) == before


def test_armour_above_3_is_refused_on_import(as_user, player, hero):
    client = as_user(player)
    document = json.loads(client.get(reverse("characters:export", args=[hero.pk])).content)
    document["items"] = [{"name": "Dragon plate", "kind": "armour", "slots": 2, "quantity": 1, "data": {"armour": 4}}]
    upload = SimpleUploadedFile("plate.json", json.dumps(document).encode(), content_type="application/json")
    count = Character.objects.count()
    response = client.post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 400
    assert "armour must be between 0 and 3" in text_of(response)
    assert Character.objects.count() == count


@BOTH
def test_buying_without_coin_is_refused(as_user, player, hero, htmx):
    entry = CatalogueItem.objects.get(system="fell-late", name="longsword")
    before = unchanged(hero)
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "quantity": "1", "buy": "on"},
        htmx,
    )
    refused(response, htmx, "longsword costs 20 C; you have 9 C.")
    assert unchanged(hero) == before


@BOTH
def test_a_setting_outside_its_allowed_set_is_refused(as_user, gm, table, htmx):
    client = as_user(gm)
    url = reverse("campaigns:settings", args=[table.pk])
    fields = form_fields(client.get(url), url, help_stacking="sometimes")
    response = post(client, url, fields, htmx)
    assert response.status_code == (200 if htmx else 400)
    assert "Helpers' advantage: choose one of" in text_of(response)
    table.refresh_from_db()
    assert table.rule_settings == {} and not RuleSettingChange.objects.exists()


@pytest.mark.parametrize("key", sorted(SYSTEM.procedures()))
def test_every_procedure_answers_without_a_server_error(as_user, gm, hero, key):
    client = as_user(gm)
    odds = client.get(reverse("characters:odds", args=[hero.pk, key]), **HTMX)
    assert odds.status_code == 200
    response = client.post(reverse("characters:roll", args=[hero.pk, key]), {}, **HTMX)
    assert response.status_code in (200, 422)


def test_a_failed_hurried_casting_offers_the_drawbacks_on_the_sheet(as_user, player, hero, monkeypatch):
    """seed 001 (Spells): the failure shows a banner; the chosen drawback is recorded with its expiry."""
    set_state(hero, spells=["Sleep"])
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([1]))
    client = as_user(player)
    cast = client.post(*roll_form(client, hero, "cast", spell="Sleep", way="hurried"), **HTMX)
    assert cast.status_code == 200, text_of(cast)
    page = client.get(hero.get_absolute_url())
    assert 'data-banner="drawback"' in page.content.decode()
    client.post(*roll_form(client, hero, "choose_drawback", drawback="wil_impaired"), **HTMX)
    hero.refresh_from_db()
    assert hero.state["wil_impaired"] and hero.state["drawbacks"][-1] == {
        "spell": "Sleep",
        "kind": "wil_impaired",
        "until": "dawn",
    }
    assert "WIL impaired until dawn" in text_of(client.get(hero.get_absolute_url()))


def test_the_demo_gives_alice_a_fell_late_character(db):
    """The demo: a Fell (late) character for alice in the Fell (late) campaign."""
    call_command("demo", force=True)
    campaign = Campaign.objects.get(system="fell-late")
    character = Character.objects.get(campaign=campaign, system="fell-late")
    assert character.owner.username == "alice"


def test_the_sheet_query_count_does_not_grow_with_hirelings(as_user, player, hero, django_assert_max_num_queries):
    client = as_user(player)
    _hire_helper(hero, "Bo")
    with django_assert_max_num_queries(20):
        assert client.get(hero.get_absolute_url()).status_code == 200
    for n in range(5):
        _hire_helper(hero, f"H{n}")
    with django_assert_max_num_queries(20):
        assert client.get(hero.get_absolute_url()).status_code == 200


@pytest.mark.parametrize("who", ["other_player", "stranger"])
def test_only_the_owner_and_the_gm_roll_on_the_sheet(as_user, hero, who, request):
    """A player edits only their own characters: another player's or a stranger's harm changes nothing."""
    before = unchanged(hero)
    response = as_user(request.getfixturevalue(who)).post(
        reverse("characters:roll", args=[hero.pk, "take_harm"]), {"take_harm-amount": "3"}, **HTMX
    )
    assert response.status_code in (403, 404)
    assert unchanged(hero) == before
