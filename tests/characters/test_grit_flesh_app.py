"""Grit & Flesh played through the app: creation with the house defaults shown as such, the sheet, rolls with
exact odds, damage into the save vs death, gear bubbles, the table's settings and applying them, refusals.

"seed 004" is ../shared/seeds/004_ebd0e2535c17253c.txt; "spec" is ../shared/rules-spec.md §004.
"""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from campaigns import services as campaign_services
from campaigns.models import Campaign, Membership
from characters import services
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character, Hireling, Item, Roll
from rules.systems.grit_flesh import SYSTEM
from tests.conftest import make_character
from tests.pages import (
    BOTH,
    HTMX,
    field_text,
    form_fields,
    post,
    quick_roll_fields,
    refused,
    roll_form,
    sheet_form,
    text_of,
    unchanged,
)

pytestmark = pytest.mark.django_db
HOUSE = "house default, not from the rules"


@pytest.fixture(autouse=True)
def _catalogue(db):
    load_catalogue(CatalogueItem, "grit-flesh")


@pytest.fixture
def table(gm, player, other_player):
    campaign = Campaign.objects.create(name="The Mire", system="grit-flesh")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


def known_state(**changes) -> dict:
    state = SYSTEM.default_state()
    state.update(
        attributes={"STR": 10, "DEX": 12, "CON": 9, "INT": 8, "WIS": 11, "CHA": 7},
        st=12,
        grit=2,
        grit_max=6,
        flesh=3,
        flesh_max=3,
        coins=100,
    )
    state.update(changes)
    return SYSTEM.validate_state(state)


@pytest.fixture
def hero(player, table):
    character = make_character(player, table, system="grit-flesh", name="Tamsin")
    character.state = known_state()
    character.save(update_fields=["state"])
    return character


def _roll(client, hero, key, htmx=True, **changes):
    url = reverse("characters:roll", args=[hero.pk, key])
    fields = form_fields(client.get(hero.get_absolute_url()), url, **changes)
    return post(client, url, fields, htmx)


# --- creation and the sheet -------------------------------------------------------------------------------


def test_the_create_page_shows_the_house_defaults_as_such_and_makes_a_character(as_user, player, table):
    """spec §004.12: every missing number is a house default, shown as one where it appears."""
    client = as_user(player)
    url = reverse("characters:create")
    page = client.get(url, {"system": "grit-flesh", "campaign": table.pk})
    assert field_text(page, "data-setting", "start_st").startswith("14") and HOUSE in field_text(
        page, "data-setting", "start_st"
    )
    fields = form_fields(page, url, name="Tamsin", cls="Magic-User", skills="herb lore", tools="")
    response = client.post(url, fields)
    assert response.status_code == 302, text_of(response)
    tamsin = Character.objects.get(owner=player, system="grit-flesh")
    assert tamsin.state["cls"] == "Magic-User" and tamsin.state["st"] == 14 and len(tamsin.state["spellbook"]) == 1
    assert tamsin.state["skills"] == ["herb lore"] and tamsin.items.filter(name="Light armour", worn=True).exists()
    sheet = client.get(tamsin.get_absolute_url())
    assert HOUSE in text_of(sheet)
    assert field_text(sheet, "data-house", "start_av").startswith("12")


def test_a_class_the_table_does_not_play_is_refused(as_user, player, table):
    client = as_user(player)
    url = reverse("characters:create")
    fields = form_fields(
        client.get(url, {"system": "grit-flesh", "campaign": table.pk}), url, cls="other", other_class="Bard"
    )
    response = client.post(url, fields)
    assert response.status_code == 400 and "Bard is not one of them" in text_of(response)
    assert not Character.objects.filter(system="grit-flesh").exists()


def test_the_sheet_shows_grit_flesh_bubbles_and_the_spellbook(as_user, player, hero):
    hero.state = known_state(bubbles=2, spellbook=[{"name": "Ward", "level": 1, "corrupted": True}])
    hero.save(update_fields=["state"])
    page = as_user(player).get(hero.get_absolute_url())
    assert field_text(page, "data-gf", "grit").replace(" ", "") == "2/6"
    assert field_text(page, "data-gf", "bubbles") == "2 of 5 filled"
    assert page.content.decode().count('data-bubble="filled"') == 2
    assert "Ward (1) · Corrupted" in text_of(page)


# --- rolls ------------------------------------------------------------------------------------------------


def test_check_odds_show_cannot_succeed_and_automatic(as_user, player, hero):
    """seed 004 (Attribute Checks): exact odds, including the two cases with no roll."""
    client = as_user(player)
    url = reverse("characters:odds", args=[hero.pk, "check"])
    # None unticks what the form ticks by default
    neither = client.get(url, roll_form(client, hero, "check", attribute="DEX", skill=None, tools=None)[1])
    neither = neither.content.decode()
    assert "cannot succeed" in neither
    both = client.get(url, roll_form(client, hero, "check", attribute="DEX", skill="on", tools="on")[1])
    assert "automatic success" in both.content.decode()
    one = client.get(url, roll_form(client, hero, "check", attribute="DEX", skill="on", tools=None)[1]).content.decode()
    assert 'data-odds="3/5"' in one


@pytest.mark.parametrize(
    ("skills", "tools", "posted", "outcomes"),
    [
        (["climbing"], [], {"check-skill": ["on"]}, {"pass", "fail"}),  # its skill: d20 ≤ DEX
        ([], ["rope and hooks"], {"check-tools": ["on"]}, {"pass", "fail"}),  # its tools: d20 ≤ DEX
        (["climbing"], ["rope and hooks"], {"check-skill": ["on"]}, {"pass", "fail"}),  # a roll, never automatic
        ([], [], {"check-skill": ["on"]}, {"pass", "fail"}),  # neither listed: the skill toggle starts ticked
    ],
)
def test_seed_004_attribute_checks_a_quick_check_claims_only_what_the_sheet_has(
    as_user, player, hero, skills, tools, posted, outcomes
):
    """Seed 004 (Attribute Checks) through the sheet's quick "Check DEX" button, posting exactly what it posts:
    it once sent tools=False, read as ticked, so every quick check succeeded without a roll while the panel
    showed 3/5 for the same check."""
    hero.state = known_state(skills=skills, tools=tools)
    hero.save(update_fields=["state"])
    client = as_user(player)
    url, fields = quick_roll_fields(client.get(hero.get_absolute_url()), "DEX")
    assert url == reverse("characters:roll", args=[hero.pk, "check"])
    assert {k: v for k, v in fields.items() if k not in ("csrfmiddlewaretoken", "panel")} == {
        "check-attribute": ["DEX"],
        **posted,
    }
    shown = client.get(reverse("characters:odds", args=[hero.pk, "check"]), fields).content.decode()
    assert ('data-odds="3/5"' in shown) == (outcomes == {"pass", "fail"})
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200, text_of(response)
    roll = Roll.objects.filter(character=hero).latest("pk")
    assert roll.outcome in outcomes and "without a roll" not in roll.summary


@pytest.mark.parametrize(
    ("ticked", "shown", "outcome"),
    [
        ({"check-skill": "on"}, "3/5", {"pass", "fail"}),  # the skill: d20 at or under DEX 12
        ({"check-tools": "on"}, "3/5", {"pass", "fail"}),  # the tools: the same roll
        ({"check-skill": "on", "check-tools": "on"}, "1/1", {"automatic"}),  # both: no roll
        ({}, "0/1", {"cannot_succeed"}),  # neither: it cannot succeed
    ],
)
def test_seed_004_attribute_checks_the_quick_checks_ask_skill_and_tools_and_their_odds_follow(
    as_user, player, hero, ticked, shown, outcome
):
    """Issue 36, item 3 (seed 004, Attribute Checks: neither skill nor tools cannot succeed, one of them rolls
    d20 under the attribute, both succeed outright): a sheet listing no skill or tools once had six quick Check
    buttons that all answered "cannot succeed". The quick checks now ask "the skill?" and "the tools?" with a
    toggle each; the buttons' odds follow the toggles (characters:quick draws the form again), and the roll
    takes what the toggles say."""
    hero.state = known_state(skills=[], tools=[])
    hero.save(update_fields=["state"])
    client = as_user(player)
    page = client.get(hero.get_absolute_url()).content.decode()
    assert page.count('data-ask="check-') == 2 and 'data-quick-group="check"' in page
    redrawn = client.get(reverse("characters:quick", args=[hero.pk, "check"]), {"panel": "check", **ticked}, **HTMX)
    assert redrawn.status_code == 200
    button = re.search(r'<button[^>]*data-quick="DEX"[^>]*>.*?</button>', redrawn.content.decode(), re.S).group(0)
    assert f'data-odds="{shown}"' in button
    for name in ("check-skill", "check-tools"):
        assert (f'name="{name}" data-ask="{name}" checked' in redrawn.content.decode()) == (name in ticked)
    url, fields = quick_roll_fields(client.get(hero.get_absolute_url()), "DEX")
    fields = {k: v for k, v in fields.items() if k not in ("check-skill", "check-tools")}
    response = client.post(url, {**fields, **ticked}, **HTMX)
    assert response.status_code == 200, text_of(response)
    assert Roll.objects.filter(character=hero).latest("pk").outcome in outcome


@BOTH
@pytest.mark.parametrize("value", ["False", "false", "0", "True", "yes", "maybe", ""])
def test_a_check_box_takes_only_what_a_ticked_box_sends(as_user, player, hero, htmx, value):
    """A yes/no input is ticked ("on") or absent; any other text is refused with a sentence and changes nothing."""
    client = as_user(player)
    url = reverse("characters:roll", args=[hero.pk, "check"])
    before = unchanged(hero)
    response = post(client, url, {"panel": "check", "check-attribute": "DEX", "check-tools": value}, htmx)
    refused(response, htmx, "You have the proper tools: tick the box or leave it unticked.")
    assert unchanged(hero) == before
    odds = client.get(reverse("characters:odds", args=[hero.pk, "check"]), {"check-tools": value})
    assert odds.status_code == 400 and "tick the box or leave it unticked" in text_of(odds)


def test_a_hit_spills_from_grit_into_flesh_and_calls_the_save_vs_death(as_user, player, hero, monkeypatch):
    """seed 004 (Melee Attacks, Grit and Flesh): spec §004.13's damage vector through the app."""
    faces = iter([9, 6, 10, 3])  # attack 9 vs AV 12, damage 6, save vs death 10 ≤ ST 12, out 3 rounds
    monkeypatch.setattr("rules.dice.system_random", lambda: type("R", (), {"randint": lambda s, a, b: next(faces)})())
    response = _roll(as_user(player), hero, "incoming", attacker_av="12")
    assert response.status_code == 200, text_of(response)
    hero.refresh_from_db()
    assert (hero.state["grit"], hero.state["flesh"], hero.state["out_rounds"]) == (0, 0, 3)
    assert "Out cold" in text_of(as_user(player).get(hero.get_absolute_url()))


def test_gear_bubble_through_the_track_and_the_procedure(as_user, player, hero):
    """seed 004 (Gear Bubbles)."""
    client = as_user(player)
    client.post(reverse("characters:adjust", args=[hero.pk]), {"key": "bubbles", "delta": "1"}, **HTMX)
    response = _roll(client, hero, "fill_bubble", item="Rope")
    assert response.status_code == 200
    hero.refresh_from_db()
    assert hero.state["bubbles"] == 2 and hero.items.filter(name="Rope", slots=0).exists()


@pytest.mark.parametrize("key", list(SYSTEM.procedures()))
def test_every_procedure_answers_odds_and_rolls_without_a_server_error(as_user, gm, hero, key):
    client = as_user(gm)
    hero.state = known_state(
        spellbook=[{"name": "Ward", "level": 1, "corrupted": False}], scrolls=[{"name": "Glow", "level": 1}]
    )
    hero.save(update_fields=["state"])
    odds = client.get(reverse("characters:odds", args=[hero.pk, key]))
    assert odds.status_code in (200, 400, 422)  # 400: refused with a sentence, as level-up is without the XP
    response = client.post(reverse("characters:roll", args=[hero.pk, key]), {"visibility": "public"}, **HTMX)
    assert response.status_code in (200, 422), text_of(response)


def test_the_gm_rolls_initiative_from_the_table(as_user, gm, table, hero):
    """seed 004 (Combat Rounds): the GM's d6 each round, a table roll on no character's sheet."""
    client = as_user(gm)
    page = client.get(table.get_absolute_url())
    assert "Roll initiative" in text_of(page) and HOUSE in text_of(page)
    url = reverse("campaigns:table_roll", args=[table.pk, "initiative"])
    response = client.post(url, form_fields(page, url, visibility="public"), **HTMX)
    assert response.status_code == 200
    assert "go first this round" in text_of(client.get(table.get_absolute_url()))


# --- bad input: a readable message, nothing changed ---------------------------------------------------------


@BOTH
def test_an_eleventh_slot_is_refused(as_user, player, hero, htmx):
    """seed 004 (Carrying Things): no more than 10 slots."""
    Item.objects.bulk_create(
        Item(
            character=hero,
            name=f"Great axe {n}",
            kind="weapon",
            slots=2,
            data={"size": "large", "hands": 2},
            position=50 + n,
        )
        for n in range(3)
    )
    assert SYSTEM.slots(hero.checked_sheet()).used == 9  # the kit's 2, the axes' 6, the gold's 1
    before = unchanged(hero)
    entry = CatalogueItem.objects.get(system="grit-flesh", name="Large melee weapon")
    response = post(
        as_user(player), reverse("characters:item_add", args=[hero.pk]), {"entry": entry.pk, "quantity": "1"}, htmx
    )
    assert 400 <= response.status_code < 500 and "10" in text_of(response)
    assert unchanged(hero) == before


@BOTH
def test_a_sixth_bubble_is_refused(as_user, player, hero, htmx):
    hero.state = known_state(bubbles=5)
    hero.save(update_fields=["state"])
    before = unchanged(hero)
    response = post(
        as_user(player), reverse("characters:adjust", args=[hero.pk]), {"key": "bubbles", "delta": "1"}, htmx
    )
    refused(response, htmx, "All 5 gear bubbles are filled")
    assert unchanged(hero) == before


@BOTH
def test_a_fifth_helper_is_refused(as_user, player, hero, htmx):
    """seed 004 (Hiring Helpers): up to 4 at once."""
    for n in range(4):
        services.hireling_hire(character_id=hero.pk, choices={"role": "Torchbearer", "name": f"T{n}"}, by=player)
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", role="Torchbearer", name="Fifth"), htmx)
    refused(response, htmx, "4 helpers")
    assert unchanged(hero) == before
    assert Hireling.objects.filter(character=hero).count() == 4


@BOTH
def test_casting_a_spell_not_in_the_book_is_refused(as_user, player, hero, htmx):
    hero.state = known_state(spellbook=[{"name": "Ward", "level": 1, "corrupted": False}])
    hero.save(update_fields=["state"])
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "cast", spell="book:3", visibility="public"), htmx)
    assert response.status_code == (422 if htmx else 400)
    assert "Spell: choose one of" in text_of(response)
    assert unchanged(hero) == before


@BOTH
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"helper_grit": "-1"}, "Helpers' Grit must be at least 0."),
        ({"attributes": ""}, "Attributes needs at least 1 entry."),
        ({"spell_list": "Slumber (1)\nFireball"}, "needs its level in brackets"),
        ({"xp_table": "0\n500\n100"}, "each level needs more XP"),
    ],
)
def test_a_house_default_out_of_range_is_refused(as_user, gm, table, change, message, htmx):
    client = as_user(gm)
    url = reverse("campaigns:settings", args=[table.pk])
    fields = form_fields(client.get(url), url, start_st="16", **change)
    response = post(client, url, fields, htmx)
    assert response.status_code == (200 if htmx else 400)
    assert message in text_of(response)
    table.refresh_from_db()
    assert table.rule_settings == {}


def test_changed_house_defaults_shape_new_characters_and_apply_to_old_ones(as_user, gm, player, table, hero):
    """spec §004.12: a change reaches characters made afterwards; an old one when the GM applies it."""
    campaign_services.campaign_change_settings(campaign_id=table.pk, values={"start_st": 17, "start_av": 10}, by=gm)
    hero.refresh_from_db()
    table.refresh_from_db()
    assert hero.state["st"] == 12
    newer, _ = services.character_create(
        owner=player, system="grit-flesh", choices={"name": "Wynn"}, campaign=table, rng=random.Random(3)
    )
    assert (newer.state["st"], newer.state["av"]) == (17, 10)
    response = as_user(gm).post(reverse("campaigns:apply_settings", args=[table.pk, hero.pk]), follow=True)
    assert "now follows the table" in text_of(response)
    hero.refresh_from_db()
    assert (hero.state["st"], hero.state["av"]) == (17, 10)
    page = as_user(player).get(hero.get_absolute_url())
    assert field_text(page, "data-house", "start_st").startswith("17")


def test_the_demo_seats_alice_s_character_at_the_grit_and_flesh_table(as_user):
    from django.core.management import call_command

    call_command("demo", force=True)
    tamsin = Character.objects.get(system="grit-flesh", owner__username="alice")
    assert tamsin.name == "Tamsin" and tamsin.campaign.system == "grit-flesh"
    response = as_user(tamsin.owner).get(tamsin.get_absolute_url())
    assert response.status_code == 200 and HOUSE in text_of(response)
