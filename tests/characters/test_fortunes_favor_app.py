"""Fortune's Favor (1b) played through the app: the creation form, the sheet, tests with Fortune's Favor,
the exchange, deflect, the table settings, the GM's tools, and the refusals of issue 14 that change nothing.

"seed 003" is ../shared/seeds/003_eeb4db86843669ac.txt; the class data is rules/data/fortunes_favor.py.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.core.management import call_command
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character, Roll
from rules import dice
from rules.dice import ScriptedRandom
from rules.systems.fortunes_favor import SYSTEM
from tests.conftest import make_character
from tests.pages import BOTH, HTMX, field_text, form_fields, post, refused, roll_form, text_of, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _catalogue(db):
    load_catalogue(CatalogueItem, "fortunes-favor")


@pytest.fixture
def table(gm, player, other_player):
    campaign = Campaign.objects.create(name="The Gilded Road", system="fortunes-favor")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


def ff_state(**changes) -> dict:
    """A level 1 Knight: Mettle 3, Agility 2, Intellect 0, Heart −2, unarmoured, 18 Health, 9 Stamina."""
    state = SYSTEM.default_state()
    state.update(armour="none", health=18, stamina=9, coins=5)
    state.update(changes)
    return SYSTEM.validate_state(state)


def set_state(character: Character, **changes) -> Character:
    character.state = ff_state(**changes)
    character.save(update_fields=["state"])
    return character


@pytest.fixture
def hero(player, table):
    return set_state(make_character(player, table, system="fortunes-favor", name="Sable"))


@pytest.fixture
def rival(other_player, table):
    return set_state(make_character(other_player, table, system="fortunes-favor", name="Orrin", seed=11))


def roll_url(character: Character, key: str) -> str:
    return reverse("characters:roll", args=[character.pk, key])


def odds_url(character: Character, key: str) -> str:
    return reverse("characters:odds", args=[character.pk, key])


def script(monkeypatch, faces) -> None:
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom(faces))


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _ff(response, name: str) -> str:
    return field_text(response, "data-ff", name)


# --- creation ------------------------------------------------------------------------------------


def test_the_creation_form_makes_the_chosen_character(as_user, player, table):
    """seed 003, Building a Character: array, lineage +1 and culture +1 on different stats, trained armour."""
    client = as_user(player)
    url = reverse("characters:create")
    page = client.get(url, {"system": "fortunes-favor", "campaign": table.pk})
    fields = form_fields(
        page,
        url,
        name="Sable",
        **{"class": "KNIGHT"},
        lineage="DWARF",
        culture="DEEP-MINING",
        mettle="3",
        agility="2",
        intellect="0",
        heart="-2",
        lineage_bonus="mettle",
        culture_bonus="heart",
        novice="Athletic",
        armour="heavy",
        shield="heavy",
    )
    response = client.post(url, fields)
    assert response.status_code == 302, text_of(response)
    sable = Character.objects.get(owner=player, name="Sable")
    assert sable.state["stats"] == {"mettle": 4, "agility": 2, "intellect": 0, "heart": -1}
    assert sable.state["coins"] == 5 and sable.campaign == table
    sheet = client.get(sable.get_absolute_url())
    assert _ff(sheet, "armor").startswith("19 / 14")  # heavy 17 + heavy shield 2 (Mettle 4 ≥ 3)
    assert _ff(sheet, "damage") == "1d8+4"  # 1d10 a step down for the shield
    assert _ff(sheet, "health").startswith("18 / 18")
    assert _ff(sheet, "stamina").startswith("10 / 10")  # 6 + 1 × Mettle 4
    assert _ff(sheet, "deflect").startswith("d6+3")  # heavy shield: +3 flat
    assert _ff(sheet, "languages") == "Allspeak, Dwarvish"


@BOTH
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"lineage": "HUMAN", "culture": "NOMADS", "lineage_bonus": "heart", "culture_bonus": "heart"},
            "cannot both go to Heart",
        ),
        ({"mettle": "6"}, "Mettle: choose one of"),
        ({"class": "ELEMENTALIST", "armour": "light"}, "not trained in light armour"),
        ({"mettle": "3", "agility": "3"}, "used twice"),
    ],
)
def test_a_bad_creation_form_says_why_and_makes_nothing(as_user, player, table, fields, message, htmx):
    """Issue 14, bad input: a stat off the array (above 5), both bonuses on one stat, untrained armour."""
    empty = {p.name: "" for p in SYSTEM.creation_params()}
    data = {"system": "fortunes-favor", "campaign": table.pk, **empty, **fields}
    response = post(as_user(player), reverse("characters:create"), data, htmx)
    assert response.status_code == (422 if htmx else 400)
    assert message in text_of(response)
    assert not Character.objects.filter(system="fortunes-favor").exists()


# --- tests and Fortune's Favor ----------------------------------------------------------------------


@BOTH
def test_a_failed_test_gains_fortunes_favor_shown_on_the_table_and_spent_next(
    as_user, player, gm, hero, monkeypatch, htmx
):
    """seed 003, Tests and Fortune's Favor: a Fail gains it; spent, the next roll keeps the higher of 2d20."""
    client = as_user(player)
    inputs = {"stat": "agility", "success": "15", "failure": ""}
    url, fields = roll_form(client, hero, "test", **inputs)
    odds = client.get(odds_url(hero, "test"), fields, **HTMX).content.decode()
    assert 'data-odds-pass="2/5"' in odds and 'data-odds-mixed="1/4"' in odds and 'data-odds-fail="7/20"' in odds
    script(monkeypatch, [4])
    response = post(client, url, fields, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["fortunes_favor"] == 1
    roll = Roll.objects.get(character=hero, procedure="test")
    assert roll.outcome == "fail" and roll.odds == {"pass": "2/5", "mixed": "1/4", "fail": "7/20"}
    card = re.search(
        rf'id="card-{hero.pk}".*?</article>', as_user(gm).get(hero.campaign.get_absolute_url()).content.decode(), re.S
    )
    assert re.search(r'data-track="fortunes_favor".*?<span data-value>1</span>', card.group(0), re.S)

    spend = roll_form(client, hero, "test", **inputs, spend_favor="on")[1]
    odds = client.get(odds_url(hero, "test"), spend, **HTMX).content.decode()
    assert f'data-odds-pass="{_fraction(1 - Fraction(12, 20) ** 2)}"' in odds  # 16/25
    assert f'data-odds-fail="{_fraction(Fraction(7, 20) ** 2)}"' in odds
    script(monkeypatch, [3, 16])
    post(client, url, spend, htmx)
    hero.refresh_from_db()
    assert hero.state["fortunes_favor"] == 0
    second = Roll.objects.filter(character=hero, procedure="test").order_by("-pk").first()
    assert second.outcome == "pass" and second.total == 18


@BOTH
def test_pushing_in_combat_is_refused_and_changes_nothing(as_user, player, hero, htmx):
    """Issue 14, bad input (seed 003, Pushing Your Limits): non-combat tests only."""
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "test", stat="mettle", push="on", in_combat="on"), htmx)
    refused(response, htmx, "Pushing your limits is for tests outside combat.")
    assert unchanged(hero) == before


# --- combat ------------------------------------------------------------------------------------------


@BOTH
def test_an_exchange_resolves_to_a_clash(as_user, player, hero, monkeypatch, htmx):
    """seed 003, the Exchange: +3 and a 10 against Armor 14 / Counter 9 is a Clash, with no damage."""
    client = as_user(player)
    url, fields = roll_form(client, hero, "attack", armor="14", counter="9")
    odds = client.get(odds_url(hero, "attack"), fields, **HTMX).content.decode()
    assert 'data-odds-hit="1/2"' in odds and 'data-odds-clash="1/4"' in odds and 'data-odds-countered="1/4"' in odds
    script(monkeypatch, [10])
    post(client, url, fields, htmx)
    roll = Roll.objects.get(character=hero, procedure="attack")
    assert roll.outcome == "clash" and "Counter Action" in roll.summary and "damage" not in roll.summary


def test_a_clash_deals_damage_when_the_campaign_says_so(as_user, player, hero, monkeypatch):
    """rules-spec §5.1 ff.clash_deals_damage, set on the campaign, is in force for the roll."""
    hero.campaign.rule_settings = {"clash_deals_damage": True}
    hero.campaign.save(update_fields=["rule_settings"])
    script(monkeypatch, [10, 6])
    client = as_user(player)
    client.post(*roll_form(client, hero, "attack", armor="14", counter="9"), **HTMX)
    roll = Roll.objects.get(character=hero, procedure="attack")
    assert roll.outcome == "clash" and "9 damage" in roll.summary


@BOTH
@pytest.mark.parametrize(
    ("state", "fields", "message"),
    [
        ({}, {"damage": "5", "deflect": "2"}, "At level 1 you may roll at most 1 deflect die."),
        ({"level": 2, "health": 20, "stamina": 3}, {"damage": "5", "deflect": "2"}, "costs 4 Stamina; you have 3"),
    ],
)
def test_deflecting_past_the_rules_is_refused(as_user, player, hero, state, fields, message, htmx):
    """Issue 14, bad input (seed 003, Deflect): more dice than 1 + level/2, or more Stamina than held."""
    set_state(hero, **state)
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "take_damage", **fields), htmx)
    refused(response, htmx, message)
    assert unchanged(hero) == before


@BOTH
def test_deflect_spends_stamina_and_takes_the_rest_off_health(as_user, player, hero, monkeypatch, htmx):
    """seed 003, Deflect (spec §003.12): a level 4 Knight, 9 damage, 2d6 for 4 Stamina rolling 3 and 5."""
    set_state(hero, level=4, health=24, stamina=20)
    script(monkeypatch, [3, 5])
    client = as_user(player)
    post(client, *roll_form(client, hero, "take_damage", damage="9", deflect="2"), htmx)
    hero.refresh_from_db()
    assert (hero.state["health"], hero.state["stamina"]) == (23, 16)


@BOTH
def test_armour_the_class_is_not_trained_in_is_refused(as_user, player, hero, htmx):
    """Issue 14, bad input (seed 003, Armor): a Ranger cannot put on heavy armour."""
    set_state(hero, **{"class": "RANGER", "attack_stat": "agility", "health": 16, "stamina": 8})
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "equip", armour="heavy", shield="none"), htmx)
    refused(response, htmx, "A Ranger is not trained in heavy armour.")
    assert unchanged(hero) == before


@BOTH
def test_a_stat_up_past_5_is_refused(as_user, player, hero, htmx):
    """Issue 14, bad input (Stat Up, class data): no stat goes above 5."""
    set_state(hero, level=3, level_ready=True, stats={"mettle": 5, "agility": 2, "intellect": 0, "heart": -2})
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "level_up", stat="mettle", novice="Swift"), htmx)
    refused(response, htmx, "Mettle is already 5, the most a stat can be.")
    assert unchanged(hero) == before


def test_the_sheet_shows_the_numbers(as_user, player, hero):
    """seed 003 and spec §003.2: every derived number on the sheet."""
    response = as_user(player).get(hero.get_absolute_url())
    assert response.status_code == 200
    assert _ff(response, "armor").startswith("12 / 7")
    assert _ff(response, "attack").startswith("+3")
    assert _ff(response, "damage") == "1d10+3"
    assert _ff(response, "slots").startswith("1 / 8")
    assert _ff(response, "speeds").startswith("ground 30 ft")
    assert "Driving Attack" in _ff(response, "class-features")


@pytest.mark.parametrize("key", list(SYSTEM.procedures()))
def test_every_procedure_answers_odds_and_rolls_without_a_server_error(as_user, gm, hero, rival, key):
    """Every Fortune's Favor procedure, with its defaults, through the odds and roll endpoints (as the GM)."""
    client = as_user(gm)
    assert client.get(odds_url(hero, key), **HTMX).status_code in (200, 422)
    response = client.post(roll_url(hero, key), {}, **HTMX)
    assert response.status_code in (200, 422)
    if response.status_code == 422:
        assert 'role="alert"' in response.content.decode()


@BOTH
def test_a_counter_action_rattles_another_character(as_user, gm, hero, rival, htmx):
    """seed 003, Counter Actions: Rattle puts Rattled on the target until the end of its next turn."""
    client = as_user(gm)
    post(client, *roll_form(client, hero, "act", action="rattle", counter="on", target=rival.pk), htmx)
    rival.refresh_from_db()
    assert rival.state["statuses"] == {"Rattled": 1}


def test_the_gm_settles_a_group_test_at_the_table(as_user, gm, hero):
    """seed 003, Group Tests: 3 passes and 1 mixed pass (net 3 > 1)."""
    client = as_user(gm)
    url = reverse("campaigns:table_roll", args=[hero.campaign_id, "group_test"])
    fields = form_fields(client.get(hero.campaign.get_absolute_url()), url, passes="3", mixed="1", fails="0")
    client.post(url, fields, **HTMX)
    roll = Roll.objects.get(procedure="group_test")
    assert roll.outcome == "pass" and roll.roller == gm


def test_the_demo_seats_a_fortunes_favor_character_for_bob():
    """Issue 14: the demo adds a Fortune's Favor character for bob in its campaign."""
    call_command("demo", force=True)
    sable = Character.objects.get(system="fortunes-favor")
    assert sable.owner.username == "bob" and sable.name == "Sable"
    assert sable.campaign.system == "fortunes-favor"
    SYSTEM.validate_state(sable.state)
