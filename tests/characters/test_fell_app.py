"""Fell (draft) played through the app: creation form, sheet, rolls with exact odds, harm, shop, refusals.

Every write is tried with and without htmx; "seed 000" is ../shared/seeds/000_72fc736675279766.txt.
"""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters import services
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character, Hireling, Item, Roll
from rules import dice
from rules.dice import ScriptedRandom
from rules.systems.fell_draft import SYSTEM
from tests.conftest import make_character
from tests.pages import BOTH, HTMX, field_text, post, refused, roll_form, sheet_form, text_of, track_text, unchanged

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _catalogue(db):
    # The data migration loads it; a transactional test elsewhere may have flushed it since.
    load_catalogue(CatalogueItem, "fell-draft")


def fell_state(**changes) -> dict:
    """A known sheet: BOD d8, INT d6, WIL d8, 4 HP, survival, 50 coin; ``changes`` on top."""
    state = SYSTEM.default_state()
    state.update(
        abilities={
            "BOD": {"die": 8, "full_die": 8, "points": 8},
            "INT": {"die": 6, "full_die": 6, "points": 6},
            "WIL": {"die": 8, "full_die": 8, "points": 8},
        },
        hp=4,
        hp_max=4,
        skills=["survival"],
        coins=50,
        background="Hunter",
        age=30,
    )
    state.update(changes)
    return SYSTEM.validate_state(state)


def set_state(character: Character, **changes) -> Character:
    character.state = fell_state(**changes)
    character.save(update_fields=["state"])
    return character


@pytest.fixture
def hero(player, campaign):
    return set_state(make_character(player, campaign, name="Wren"))


# --- creation ------------------------------------------------------------------------------------


def _creation_form(campaign, **fields) -> dict:
    empty = {p.name: "" for p in SYSTEM.creation_params()}
    return {"system": "fell-draft", "campaign": campaign.pk, **empty, **fields}


@BOTH
def test_an_empty_creation_form_rolls_a_whole_character(as_user, player, campaign, htmx):
    """creation: every choice left empty is rolled on the server, and every roll goes to the log."""
    response = post(as_user(player), reverse("characters:create"), _creation_form(campaign), htmx)
    character = Character.objects.get(owner=player)
    assert response.status_code == 302 and response.url == character.get_absolute_url()
    state = character.state
    assert character.campaign == campaign and character.system == "fell-draft"
    assert all(state["abilities"][ab]["die"] in (4, 6, 8) for ab in ("BOD", "INT", "WIL"))
    assert 1 <= state["hp"] <= 8 and 12 <= state["age"] <= 50 and 3 <= state["coins"] <= 18
    assert len(state["skills"]) == 1 and state["background"]
    assert (state["spells"] != []) == (state["abilities"]["WIL"]["die"] == 8)
    assert len(state["traits"]) == 10
    (creation_roll,) = Roll.objects.filter(character=character)  # one line in the log: every roll inside
    labels = set(creation_roll.inputs["rolls"])
    assert {"Name", "Age", "Ability dice", "Hit points", "Background", "Coin", "Traits"} <= labels
    assert character.items.filter(name="torch (1 hour)").exists()


@BOTH
def test_a_chosen_creation_form_makes_exactly_that_character(as_user, player, campaign, monkeypatch, htmx):
    """creation: chosen name, age, d6s with INT lowered to raise WIL, 4 HP, background, spell and spell die."""
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([6, 5, 4]))  # 3d6 coin: 15
    form = _creation_form(
        campaign,
        name="Hollis",
        age="41",
        abilities="assign",
        lower="INT",
        hp="four",
        background="Priest",
        spell="Anchor",
        spell_die="10",
        traits="none",
        **{"raise": "WIL"},
    )
    response = post(as_user(player), reverse("characters:create"), form, htmx)
    assert response.status_code == 302
    character = Character.objects.get(owner=player)
    state = character.state
    assert character.name == "Hollis"
    assert {ab: state["abilities"][ab]["die"] for ab in ("BOD", "INT", "WIL")} == {"BOD": 6, "INT": 4, "WIL": 8}
    assert (state["age"], state["hp"], state["hp_max"], state["coins"]) == (41, 4, 4, 15)
    assert (state["background"], state["spells"], state["spell_die"], state["traits"]) == (
        "Priest",
        ["Anchor"],
        10,
        [],
    )
    assert Roll.objects.get(character=character).inputs["rolls"] == ["Coin"]


@BOTH
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"lower": "INT", "raise": "WIL"}, "for assigned dice"),
        ({"abilities": "assign", "lower": "INT"}, "both or neither"),
        ({"age": "-4"}, "Age must be at least 1"),
        ({"background": "Astronaut"}, "Background: choose one of"),
    ],
)
def test_a_bad_creation_form_says_why_and_makes_nothing(as_user, player, campaign, fields, message, htmx):
    response = post(as_user(player), reverse("characters:create"), _creation_form(campaign, **fields), htmx)
    assert response.status_code == (422 if htmx else 400)
    assert message in text_of(response)
    assert not Character.objects.exists()


def test_the_creation_form_offers_the_fell_choices(as_user, player, campaign):
    response = as_user(player).get(reverse("characters:create"), {"system": "fell-draft", "campaign": campaign.pk})
    page = response.content.decode()
    assert response.status_code == 200
    for name in ("name", "age", "abilities", "lower", "raise", "hp", "background", "spell", "spell_die", "traits"):
        assert f'name="{name}"' in page
    assert '<option value="Hunter">Hunter (survival)</option>' in page


# --- the sheet ---------------------------------------------------------------------------------------


def test_the_sheet_shows_every_number(as_user, player, hero):
    """seed 000 and creation: dice and points, HP, protection, skill and spell dice, fatigue, coin..."""
    set_state(
        hero,
        abilities={
            "BOD": {"die": 6, "full_die": 8, "points": 5},
            "INT": {"die": 6, "full_die": 6, "points": 3},
            "WIL": {"die": 10, "full_die": 10, "points": 7},
        },
        hp=2,
        hp_max=5,
        skills=["survival", "lore"],
        spells=["Adhere"],
        spell_die=12,
        coins=37,
        fatigue=1,
        deprived=True,
        days_deprived=2,
        age=33,
        traits=["Physique: Brawny", "Speech: Blunt"],
    )
    hero.items.all().delete()
    for name in ("chainmail", "shield"):
        entry = CatalogueItem.objects.get(system="fell-draft", name=name)
        row = services.item_add_from_catalogue(character_id=hero.pk, entry_id=entry.pk, by=player).row
        services.item_update(character_id=hero.pk, item_id=row.pk, by=player, worn=True)
    response = as_user(player).get(hero.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    for ability, die, points, maximum in (("BOD", 6, 5, 6), ("INT", 6, 3, 6), ("WIL", 10, 7, 10)):
        block = re.search(rf'data-ability="{ability}">(.*?)</li>', page, re.S).group(1)
        assert f">d{die}<" in block
        assert f"<span data-points>{points}</span>" in block and f"<span data-points-max>{maximum}</span>" in block
    assert "hurt: d8 after a week" in page  # BOD was lowered by critical harm
    # The numbers are the Vitals region's; the Character block says only what they do not (nothing twice).
    assert track_text(response, "hp") == "2/5"
    assert track_text(response, "protection").startswith("3/") and "chainmail +2" in _fell_field(response, "worn")
    assert _fell_field(response, "skill-die").startswith("d6")
    assert _fell_field(response, "spell-die").startswith("d12")
    assert track_text(response, "fatigue") == "1"
    assert _fell_field(response, "fatigue-note") == "Fatigue 1: every test rolls 1 step down."
    assert _fell_field(response, "deprived").startswith("Yes , 2 full days")
    assert track_text(response, "coins") == "37"
    assert "data-slots-used>3</strong> / 10" in page  # chainmail 2 + shield 1 of 4 + BOD 6
    assert _fell_field(response, "slot-limit") == "never more than 20"
    details = page[page.index('id="details"') : page.index('id="part-roll"')]
    assert 'data-fell="hp"' not in details and 'data-fell="coins"' not in details
    assert _fell_field(response, "skills-count") == "2 of 6"
    assert _fell_field(response, "spells-count") == "1 of 10"
    assert (_fell_field(response, "background"), _fell_field(response, "age")) == ("Hunter", "33")
    assert _fell_field(response, "traits") == "Physique: Brawny; Speech: Blunt"
    assert "20 maximum HP" in _fell_field(response, "retirement")
    assert "survival" in page and "Adhere" in page


def test_twenty_hp_and_all_d12s_shows_the_retirement_banner(as_user, player, hero):
    d12 = {"die": 12, "full_die": 12, "points": 12}
    set_state(hero, abilities={"BOD": d12, "INT": d12, "WIL": d12}, hp=20, hp_max=20)
    response = as_user(player).get(hero.get_absolute_url())
    assert 'data-banner="retire"' in response.content.decode()
    assert "Ready to retire." in text_of(response)


def test_an_ability_at_zero_points_shows_dead(as_user, gm, hero):
    set_state(hero, hp=0, abilities={**fell_state()["abilities"], "BOD": {"die": 8, "full_die": 8, "points": 0}})
    response = as_user(gm).get(reverse("characters:region", args=[hero.pk, "details"]))
    assert 'data-banner="dead"' in response.content.decode()
    assert "Dead." in text_of(response)


def test_the_sheet_query_count_does_not_grow_with_items(as_user, player, hero, django_assert_max_num_queries):
    client = as_user(player)

    def count() -> int:
        with CaptureQueriesContext(connection) as queries:
            assert client.get(hero.get_absolute_url()).status_code == 200
        return len(queries)

    few = count()
    Item.objects.bulk_create(
        Item(character=hero, name=f"spike {i}", kind="gear", slots=0, position=100 + i) for i in range(40)
    )
    for _ in range(3):
        services.hireling_hire(character_id=hero.pk, choices={"background": "Hunter"}, by=player)
    assert count() == few
    with django_assert_max_num_queries(12):
        client.get(hero.get_absolute_url())


# --- rolls with exact odds ---------------------------------------------------------------------------


def test_a_test_with_a_skill_die_and_advantage_shows_and_stores_the_exact_odds(as_user, player, hero, monkeypatch):
    """seed 000 (Tasks and Tests, Skills, Advantage): INT d6 + skill d6, one step up: d8 + d8 at DN 4."""
    client = as_user(player)
    inputs = {"ability": "INT", "skills": "survival", "advantage": "1"}
    expected = SYSTEM.procedures()["test"].odds(
        hero.to_sheet(), {"ability": "INT", "skills": ["survival"]} | {"advantage": 1}
    )
    assert expected.success == 1 - Fraction(3, 8) ** 2 == Fraction(55, 64)
    url, fields = roll_form(client, hero, "test", **inputs)
    odds = client.get(reverse("characters:odds", args=[hero.pk, "test"]), fields, **HTMX)
    assert odds.status_code == 200
    assert 'data-odds="55/64"' in odds.content.decode() and "85.9%" in odds.content.decode()

    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([2, 5]))
    response = client.post(url, fields | {"version": hero.version}, **HTMX)
    assert response.status_code == 200
    roll = Roll.objects.filter(character=hero, procedure="test").get()
    assert roll.odds == {"pass": "55/64", "fail": "9/64"}
    assert [(d["sides"], d["face"]) for d in roll.dice] == [(8, 2), (8, 5)]
    assert roll.outcome == "pass" and roll.total == 5
    assert f'data-roll="{roll.pk}"' in response.content.decode()


@BOTH
def test_harm_past_zero_hp_goes_to_bod_and_a_failed_test_leaves_them_dying(
    as_user, player, gm, hero, monkeypatch, htmx
):
    """seed 000 (Harm and Death): 4 to HP, 3 critical to BOD (5 left), BOD test at DN 3 fails on a 1."""
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([1]))
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "take_harm", amount="7"), htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["hp"] == 0 and hero.state["abilities"]["BOD"]["points"] == 5 and hero.state["dying"]
    assert Roll.objects.get(character=hero, procedure="take_harm").outcome == "dying"
    sheet = client.get(hero.get_absolute_url())
    assert 'data-banner="dying"' in sheet.content.decode()
    assert "Unconscious and dying." in text_of(sheet)
    assert track_text(sheet, "hp") == "0/4"
    table = as_user(gm).get(hero.campaign.get_absolute_url())
    card = re.search(rf'id="card-{hero.pk}".*?</article>', table.content.decode(), re.S).group(0)
    assert "Unconscious and dying" in card
    assert re.search(r'data-track="BOD".*?<span data-value>5</span>', card, re.S)


# --- the shop, armour, hirelings, tracks -----------------------------------------------------------------


@BOTH
def test_buying_from_the_catalogue_deducts_coin(as_user, player, hero, htmx):
    """seed 000 (Equipment): a longsword costs 30 coin and brings its d6 steel die."""
    entry = CatalogueItem.objects.get(system="fell-draft", name="longsword")
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "quantity": "1", "buy": "on"},
        htmx,
    )
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["coins"] == 20
    sword = hero.items.get(name="longsword")
    assert (sword.kind, sword.slots, sword.data, sword.catalogue_item) == ("weapon", 1, {"steel_die": 6}, entry)
    steel = dict(next(p for p in SYSTEM.procedures()["test"].params(hero.to_sheet()) if p.name == "steel").choices)
    assert steel[str(sword.pk)] == "longsword (d6)"


def test_adding_free_and_wearing_armour_sets_protection(as_user, player, hero):
    client = as_user(player)
    entry = CatalogueItem.objects.get(system="fell-draft", name="chainmail")
    client.post(reverse("characters:item_add", args=[hero.pk]), {"entry": entry.pk, "quantity": "1"}, **HTMX)
    hero.refresh_from_db()
    assert hero.state["coins"] == 50
    mail = hero.items.get(name="chainmail")
    assert not mail.worn and SYSTEM.protection(hero.to_sheet()) == 0
    response = client.post(*sheet_form(client, hero, "item_update", mail.pk, worn="on"), **HTMX)
    assert response.status_code == 200
    assert SYSTEM.protection(hero.to_sheet()) == 2
    assert re.search(r'data-track="protection".*?<span data-value>2</span>', response.content.decode(), re.S)


@BOTH
def test_hiring_through_the_form_makes_a_fell_hireling(as_user, player, hero, htmx):
    """seed 000 (Hirelings): d4s, 3 HP, 5 coin a day plus 5 per raised step."""
    form = {"name": "Bram", "background": "Burglar", "hp": "three", "raise_BOD": "1", "raise_INT": "", "raise_WIL": "0"}
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", **form), htmx)
    assert response.status_code == (200 if htmx else 302)
    bram = Hireling.objects.get(character=hero)
    assert (bram.name, bram.wage, bram.state["hp"], bram.state["abilities"]["BOD"]["die"]) == ("Bram", 10, 3, 6)
    assert bram.state["background"] == "Burglar" and bram.state["skills"] == ["skullduggery"]


@BOTH
def test_adjusting_a_track(as_user, player, hero, htmx):
    response = post(as_user(player), reverse("characters:adjust", args=[hero.pk]), {"key": "WIL", "delta": "-2"}, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["abilities"]["WIL"]["points"] == 6


@pytest.mark.parametrize("key", list(SYSTEM.procedures()))
def test_every_procedure_answers_odds_and_rolls_without_a_server_error(as_user, gm, hero, rival, key):
    """Every Fell procedure, with its defaults, through the app's odds and roll endpoints (as the GM)."""
    client = as_user(gm)
    hero.state["spells"] = ["Adhere"]
    hero.state["spell_die"] = 8
    hero.save(update_fields=["state"])
    services.hireling_hire(character_id=hero.pk, choices={"background": "Hunter"}, by=gm)
    odds = client.get(reverse("characters:odds", args=[hero.pk, key]), **HTMX)
    assert odds.status_code == 200
    response = client.post(reverse("characters:roll", args=[hero.pk, key]), {}, **HTMX)
    assert response.status_code in (200, 422)
    if response.status_code == 422:  # refused by the rules with defaults (e.g. nobody is dying): a message
        assert 'role="alert"' in response.content.decode()


# --- refusals change nothing ----------------------------------------------------------------------------


@BOTH
def test_a_spell_past_wil_is_refused(as_user, player, hero, htmx):
    """seed 000 (Spells): no more spells than WIL; a d4 WIL holds four."""
    set_state(hero, abilities={**fell_state()["abilities"], "WIL": {"die": 4, "full_die": 4, "points": 4}}, spell_die=6)
    hero.state["spells"] = ["Adhere", "Anchor", "Comprehend", "Command"]
    hero.save(update_fields=["state"])
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "learn_spell", spell="Arcane Eye"), htmx)
    refused(response, htmx, "You already know 4 spells, as many as your WIL allows.")
    assert unchanged(hero) == before


@BOTH
@pytest.mark.parametrize(("dn", "message"), [("0", "Difficulty number must be at least 1."), ("99", "at most 30")])
def test_a_difficulty_off_the_scale_is_refused(as_user, gm, hero, dn, message, htmx):
    """The GM sets the DN; one off the scale is refused readably."""
    before = unchanged(hero)
    client = as_user(gm)
    url, fields = roll_form(client, hero, "test", dn=dn)
    response = post(client, url, fields, htmx)
    refused(response, htmx, message)
    assert unchanged(hero) == before
    odds = client.get(reverse("characters:odds", args=[hero.pk, "test"]), fields)
    assert odds.status_code == 400 and message in text_of(odds)


@BOTH
def test_more_hirelings_than_wil_is_refused(as_user, player, hero, htmx):
    """seed 000 (Hirelings): as many as WIL's face; a d4 WIL keeps four."""
    set_state(hero, abilities={**fell_state()["abilities"], "WIL": {"die": 4, "full_die": 4, "points": 4}})
    for _ in range(4):
        services.hireling_hire(character_id=hero.pk, choices={"background": "Hunter"}, by=player)
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", name="One too many"), htmx)
    refused(response, htmx, "Your WIL lets you keep 4 hirelings, and you have them all.")
    assert unchanged(hero) == before


@BOTH
def test_buying_without_the_coin_is_refused(as_user, player, hero, htmx):
    set_state(hero, coins=9)
    entry = CatalogueItem.objects.get(system="fell-draft", name="dagger")
    before = unchanged(hero)
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "quantity": "1", "buy": "on"},
        htmx,
    )
    refused(response, htmx, "dagger costs 10 coin; you have 9 coin.")
    assert unchanged(hero) == before


@BOTH
def test_buying_what_cannot_be_carried_keeps_the_coin(as_user, player, hero, htmx):
    """seed 000 (Equipment): never more than twice the slots; the refused purchase costs nothing."""
    set_state(hero, coins=500)
    entry = CatalogueItem.objects.get(system="fell-draft", name="tent")
    before = unchanged(hero)
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "buy": "on", "quantity": "12"},
        htmx,
    )
    refused(response, htmx, "No room for tent")
    assert unchanged(hero) == before


@BOTH
def test_negative_harm_is_refused(as_user, player, hero, htmx):
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "take_harm", amount="-3"), htmx)
    refused(response, htmx, "Harm must be at least 0.")
    assert unchanged(hero) == before


def test_the_hire_form_refuses_a_raise_off_the_ladder(as_user, player, hero):
    before = unchanged(hero)
    client = as_user(player)
    response = client.post(*sheet_form(client, hero, "hire", raise_WIL="9"), **HTMX)
    refused(response, True, "Raise WIL from d4 by must be at most 4.")
    assert unchanged(hero) == before


# --- the catalogue: data migration and admin ---------------------------------------------------------


def test_the_data_migration_loads_the_price_lists_and_reverses_only_them():
    """seed 000 (Equipment): every price-list row, with the kinds the app knows; staff rows survive reversal."""
    from importlib import import_module

    from django.apps import apps

    operation = import_module("characters.migrations.0002_fell_draft_catalogue").Migration.operations[0]
    staff_row = CatalogueItem.objects.create(system="fell-draft", name="lucky coin", kind="treasure", cost=1)
    operation.reverse_code(apps, None)
    assert list(CatalogueItem.objects.filter(system="fell-draft")) == [staff_row]
    operation.code(apps, None)
    rows = CatalogueItem.objects.filter(system="fell-draft")
    assert rows.count() == len(SYSTEM.catalogue()) + 1
    assert set(rows.values_list("kind", flat=True)) <= set(Item.Kind.values)
    mail = rows.get(name="chainmail")
    assert (mail.kind, mail.cost, mail.slots, mail.group, mail.data) == (
        "armour",
        40,
        2,
        "Armour",
        {"bulky": True, "protection": 2},
    )


def test_the_admin_lists_the_fell_catalogue_by_system_and_kind(client, django_user_model):
    admin = django_user_model.objects.create_superuser("keeper", password="x")
    client.force_login(admin)
    url = reverse("admin:characters_catalogueitem_changelist")
    response = client.get(url, {"system__exact": "fell-draft", "kind__exact": "weapon"})
    assert response.status_code == 200
    page = response.content.decode()
    assert "longsword" in page and "battle axe" in page and "chainmail" not in page
    assert response.context["cl"].result_count == sum(1 for e in SYSTEM.catalogue() if e.kind == "weapon")


def _fell_field(response, name: str) -> str:
    return field_text(response, "data-fell", name)
