"""Chaos & Conquest played through the app: creation, the sheet, saves, Death's door, magic, the shop,
retainers, the secret faction, the GM's table tools, and refusals that change nothing.

Every write is tried with and without htmx; "seed 002" is ../shared/seeds/002_882aafdbf41b7f4b.txt and
the companion rules are those of rules/data/chaos_conquest.py (spec §002).
"""

from __future__ import annotations

import json
import re
from fractions import Fraction

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import services
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character, Hireling, Item, Roll
from rules import dice
from rules.data import chaos_conquest as data
from rules.dice import ScriptedRandom
from rules.systems.chaos_conquest import SYSTEM
from tests.conftest import make_character
from tests.pages import (
    BOTH,
    HTMX,
    field_text,
    form_fields,
    post,
    refused,
    roll_form,
    sheet_form,
    text_of,
    track_text,
    unchanged,
)

pytestmark = pytest.mark.django_db

SPELL = data.SPELLS[12][0]  # Arcane Eye


@pytest.fixture(autouse=True)
def _catalogue(db):
    # The data migration loads it; a transactional test elsewhere may have flushed it since.
    load_catalogue(CatalogueItem, "chaos-conquest")


@pytest.fixture
def table(gm, player, other_player):
    campaign = Campaign.objects.create(name="The Barrow Road", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other_player)
    return campaign


def cc_state(**changes) -> dict:
    """A known sheet: STR 12, DEX 10, WIL 13 (loyalty 8), stamina 6/6, 600 p (2m 10s), Law, a Ranger."""
    state = SYSTEM.default_state()
    state.update(
        attributes={
            "STR": {"current": 12, "base": 12},
            "DEX": {"current": 10, "base": 10},
            "WIL": {"current": 13, "base": 13},
        },
        stamina=6,
        stamina_max=6,
        coins=600,
        talents=["Survival", "Herbalism", "Stealth"],
        background="Ranger",
        archetype="Pathfinder",
        faction="Law",
        age=30,
    )
    state.update(changes)
    return SYSTEM.validate_state(state)


def set_state(character: Character, **changes) -> Character:
    character.state = cc_state(**changes)
    character.save(update_fields=["state"])
    return character


def give(character: Character, name: str, kind: str = "gear", slots: int = 1, quantity: int = 1, **data) -> Item:
    worn = data.pop("worn", False)
    position = character.items.count() + 1
    return Item.objects.create(
        character=character,
        name=name,
        kind=kind,
        slots=slots,
        quantity=quantity,
        data=data,
        worn=worn,
        position=position,
    )


def kit(character: Character) -> Character:
    """Two Supplies and a dagger: 3 of 12 slots."""
    character.items.all().delete()
    give(character, "Supply", quantity=2, supply=True)
    give(character, "Dagger", "weapon", damage=6)
    return character


@pytest.fixture
def hero(player, table):
    return kit(set_state(make_character(player, table, system="chaos-conquest", name="Brannoc")))


@pytest.fixture
def rival(other_player, table):
    return kit(set_state(make_character(other_player, table, system="chaos-conquest", name="Ysolde", seed=11)))


def slot_kinds(response) -> list[str]:
    return re.findall(r'class="slot [^"]*" data-slot="(\w+)"', response.content.decode())


def roll_url(character: Character, key: str) -> str:
    return reverse("characters:roll", args=[character.pk, key])


def odds_url(character: Character, key: str) -> str:
    return reverse("characters:odds", args=[character.pk, key])


def script(monkeypatch, faces) -> None:
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom(faces))


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


# --- creation ------------------------------------------------------------------------------------


def _creation_form(campaign, **fields) -> dict:
    empty = {p.name: "" for p in SYSTEM.creation_params()}
    return {"system": "chaos-conquest", "campaign": campaign.pk, **empty, "name": "Brannoc", **fields}


@BOTH
def test_a_creation_form_with_only_a_name_rolls_a_whole_character(as_user, player, table, htmx):
    """character-creation.md: 3d6 in order, 1d8 stamina, a d20 background, 4d10 shillings, 2d10+16 years."""
    response = post(as_user(player), reverse("characters:create"), _creation_form(table, name="Tamsin"), htmx)
    character = Character.objects.get(owner=player)
    assert response.status_code == 302 and response.url == character.get_absolute_url()
    assert character.name == "Tamsin"
    state = character.state
    assert character.system == "chaos-conquest" and character.campaign == table
    assert all(3 <= state["attributes"][a]["base"] <= 18 for a in ("STR", "DEX", "WIL"))
    assert 1 <= state["stamina"] == state["stamina_max"] <= 8
    assert state["coins"] % 12 == 0 and 4 * 12 <= state["coins"] <= 40 * 12
    assert 18 <= state["age"] <= 36 and state["background"] and len(state["talents"]) == 3
    assert state["faction"] == "" and state["status"] == "fine" and not state["swapped"]
    (creation_roll,) = Roll.objects.filter(character=character)  # one line in the log: every roll inside
    labels = set(creation_roll.inputs["rolls"])
    assert {"STR", "DEX", "WIL", "Stamina", "Background", "Coins", "Age"} <= labels
    assert character.items.filter(name="Supply", quantity=2, data={"supply": True}).exists()
    assert character.items.filter(name="Dagger", kind="weapon", data__damage=6).exists()


@BOTH
@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_name_is_refused_beside_the_field_and_makes_nothing(as_user, player, table, htmx, name):
    """The seed has no name tables to roll one on: no "Nameless" character for good, a form error instead."""
    client = as_user(player)
    page = client.get(reverse("characters:create"), {"system": "chaos-conquest", "campaign": table.pk})
    fields = form_fields(page, reverse("characters:create"), name=name)
    response = post(client, reverse("characters:create"), fields, htmx)
    assert response.status_code == (422 if htmx else 400)
    assert not Character.objects.exists()
    text = text_of(response)
    assert "Name can't be left empty." in text and "no name tables" in text
    body = response.content.decode()
    assert re.search(r'<div class="field has-error">\s*<label for="id_new_name"', body)
    assert re.search(r'<input[^>]*id="id_new_name"[^>]*required|<input[^>]*required[^>]*id="id_new_name"', body)


@BOTH
def test_a_chosen_background_with_a_swap_makes_exactly_that_character(as_user, player, table, monkeypatch, htmx):
    """character-creation.md: STR 18, DEX 6, WIL 9 rolled in order, then STR and WIL swapped."""
    script(monkeypatch, [6, 6, 6, 1, 2, 3, 3, 3, 3, 5, 10, 10, 10, 10])  # 3d6 x3, d8, 4d10 shillings
    form = _creation_form(table, name="Brannoc", background="2", swap="STR-WIL", faction="Chaos", age="41")
    response = post(as_user(player), reverse("characters:create"), form, htmx)
    assert response.status_code == 302
    character = Character.objects.get(owner=player)
    state = character.state
    assert character.name == "Brannoc"
    assert {a: v["base"] for a, v in state["attributes"].items()} == {"STR": 9, "DEX": 6, "WIL": 18}
    assert (state["stamina"], state["coins"], state["age"], state["faction"]) == (5, 480, 41, "Chaos")
    assert (state["background"], state["archetype"], state["swapped"]) == ("Ranger", "Pathfinder", True)
    assert state["talents"] == ["Survival", "Herbalism", "Stealth"]
    assert character.items.filter(name="Longbow", data__ranged=True).exists()
    creation = Roll.objects.get(character=character)  # creation's rolls fold into one line of the log
    assert "Swap" in creation.inputs["rolls"] and "Swap: STR 9 and WIL 18." in creation.summary


@BOTH
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"swap": "STR-STR"}, "Swap two scores after rolling 3d6 in order: choose one of"),
        ({"age": "12"}, "Age must be at least 18."),
        ({"faction": "Neutral"}, "Faction (kept secret): choose one of"),
    ],
)
def test_a_bad_creation_form_says_why_and_makes_nothing(as_user, player, table, fields, message, htmx):
    response = post(as_user(player), reverse("characters:create"), _creation_form(table, **fields), htmx)
    assert response.status_code == (422 if htmx else 400)
    assert message in text_of(response)
    assert not Character.objects.exists()


# --- the sheet ---------------------------------------------------------------------------------------


def test_the_sheet_shows_every_number(as_user, player, hero):
    """seed 002: attributes now/rested, level, XP and the next threshold, stamina, stress, AV, shield..."""
    set_state(
        hero,
        attributes={
            "STR": {"current": 10, "base": 12},
            "DEX": {"current": 10, "base": 10},
            "WIL": {"current": 13, "base": 13},
        },
        stamina=4,
        xp=1500,
        xp_ledger=[{"kind": "treasure", "amount": 1500, "note": "Barrow silver"}],
        stress=2,
        coins=2 * 240 + 5 * 12 + 3,
        scars=[{"roll": 6, "name": "Doomed", "text": "Death follows you."}],
        doomed=True,
    )
    for name in ("Helmet", "Light armour (padded)", "Shield"):
        entry = CatalogueItem.objects.get(system="chaos-conquest", name=name)
        row = services.item_add_from_catalogue(character_id=hero.pk, entry_id=entry.pk, by=player).row
        services.item_update(character_id=hero.pk, item_id=row.pk, by=player, worn=True)
    give(hero, "Sword", "weapon", slots=2, damage=8, worn_out=True)
    response = as_user(player).get(hero.get_absolute_url())
    assert response.status_code == 200
    page = response.content.decode()
    for attribute, now, rested in (("STR", 10, 12), ("DEX", 10, 10), ("WIL", 13, 13)):
        block = re.search(rf'data-attribute="{attribute}">(.*?)</li>', page, re.S).group(1)
        assert f">{now}</span>" in block and f'data-base aria-label="rested {rested}">{rested}<' in block
    assert "lowered: 12 after a full rest" in page
    # The numbers are the Vitals region's; the Character block says only what they do not (nothing twice).
    assert (track_text(response, "level"), track_text(response, "xp")) == ("1", "1500/2000")
    assert _cc_field(response, "next-level") == "level 2 at 2000 XP (500 to go)"
    assert track_text(response, "stamina") == "4/6"
    assert track_text(response, "stress").startswith("2/")
    assert "Stress fills 2 slot(s)" in text_of(response)
    assert track_text(response, "av") == "2/2"
    assert _cc_field(response, "armour").endswith("AV at most 4")
    assert "Helmet 1" in _cc_field(response, "armour") and "Light armour (padded) 1" in _cc_field(response, "armour")
    assert _cc_field(response, "shield").startswith("Shield in hand")
    assert track_text(response, "supplies") == "2"
    assert track_text(response, "coins") == "543" and "Money: 2m 5s 3p" in text_of(response)
    details = page[page.index('id="details"') : page.index('id="part-roll"')]
    assert not any(f'data-cc="{gone}"' in details for gone in ("stamina", "stress", "av", "money", "xp", "level"))
    assert _cc_field(response, "faction").startswith("Law")
    assert _cc_field(response, "talents") == "Survival Herbalism Stealth"
    picker = as_user(player).get(reverse("characters:catalogue", args=[hero.pk]), {"q": "sword"}, **HTMX)
    assert "Sword 1m · 2 slots" in text_of(picker)  # prices the rules' way (equipment.md, Currency), as the purse
    assert "worn out: 1 damage, no criticals" in text_of(response)
    assert 'data-cc-status="fine"' in page and 'data-banner="doomed"' in page
    assert "Doomed (6) Death follows you." in _cc_field(response, "scars")
    assert "Barrow silver +1500 XP 6m 5s" in _cc_field(response, "ledger")
    # Two Supplies, dagger, helmet, padded armour, sword (2), shield = 8 items, then 2 stress: all 10 slots
    # (STR or 10, whichever is higher, and STR is lowered to 10 now).
    assert slot_kinds(response) == ["item"] * 8 + ["stress"] * 2
    assert _cc_field(response, "slots") == "10 of 10 used"


@pytest.mark.parametrize(
    ("status", "words"),
    [
        ("deaths_door", "On Death's door. Stamina is gone: roll the Death's door d6 now. It kills on 1–3."),
        ("dying", "Unconscious and dying."),
        ("dead", "Dead. Nothing more can be rolled"),
    ],
)
def test_the_status_banner_says_where_they_stand(as_user, gm, hero, status, words):
    set_state(hero, status=status, stamina=0)
    response = as_user(gm).get(reverse("characters:region", args=[hero.pk, "details"]), **HTMX)
    assert f'data-cc-status="{status}"' in response.content.decode()
    assert words in text_of(response)


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
    services.hireling_hire(character_id=hero.pk, choices={"kind": "retainer"}, by=player)
    services.hireling_hire(character_id=hero.pk, choices={"kind": "porter"}, by=player)
    assert count() == few
    with django_assert_max_num_queries(12):
        client.get(hero.get_absolute_url())


# --- saves, stress, Death's door, magic -----------------------------------------------------------------


@BOTH
def test_a_pushed_save_puts_a_stress_in_a_slot(as_user, player, hero, monkeypatch, htmx):
    """seed 002, Pushing a Character: take a stress (into an empty slot) for advantage: best of 2d20."""
    client = as_user(player)
    url, fields = roll_form(client, hero, "save", attribute="STR", push="on")
    odds = client.get(odds_url(hero, "save"), fields, **HTMX)
    assert f'data-odds="{_fraction(1 - Fraction(8, 20) ** 2)}"' in odds.content.decode()  # 21/25
    script(monkeypatch, [15, 4])
    response = post(client, url, fields | {"version": hero.version}, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["stress"] == 1
    roll = Roll.objects.get(character=hero, procedure="save")
    assert roll.outcome == "pass" and roll.odds == {"pass": "21/25", "fail": "4/25"}
    assert [d["face"] for d in roll.dice] == [15, 4] and "Pushed: 1 stress." in roll.summary
    sheet = client.get(hero.get_absolute_url())
    assert slot_kinds(sheet) == ["item"] * 3 + ["stress"] + ["empty"] * 8
    assert re.search(r'data-track="stress".*?<span data-value>1</span>', sheet.content.decode(), re.S)


@BOTH
def test_damage_to_deaths_door_then_the_dying_are_treated(as_user, player, gm, hero, monkeypatch, htmx):
    """seed 002, Stamina & Death: 10 damage takes 6 stamina to -4; the d6 shows 5 (dying, not dead);
    a healer's WIL 12 save of 3 saves them: 1 stamina and a scar (d10 1, a mark on the d6 2nd place)."""
    client = as_user(player)
    url, fields = roll_form(client, hero, "take_damage", amount="10", armour=None)
    odds = client.get(odds_url(hero, "take_damage"), fields, **HTMX)
    assert 'data-odds-dying="1/2"' in odds.content.decode() and 'data-odds-dies="1/2"' in odds.content.decode()
    script(monkeypatch, [5])
    response = post(client, url, fields, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert (hero.state["stamina"], hero.state["status"]) == (-4, "dying")
    assert Roll.objects.get(character=hero, procedure="take_damage").outcome == "dying"
    sheet = client.get(hero.get_absolute_url())
    assert 'data-cc-status="dying"' in sheet.content.decode()
    table = as_user(gm).get(hero.campaign.get_absolute_url())
    card = re.search(rf'id="card-{hero.pk}".*?</article>', table.content.decode(), re.S).group(0)
    assert "Unconscious and dying" in card

    url, fields = roll_form(client, hero, "treat", healer_wil="12", in_time="on")
    treat_odds = client.get(odds_url(hero, "treat"), fields, **HTMX)
    assert 'data-odds="3/5"' in treat_odds.content.decode()  # d20 <= 12
    script(monkeypatch, [3, 1, 2])
    response = post(client, url, fields, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert (hero.state["stamina"], hero.state["status"]) == (1, "fine")
    assert hero.state["scars"][0]["name"] == data.SCARS[1]["name"]
    sheet = client.get(hero.get_absolute_url())
    assert 'data-cc-status="fine"' in sheet.content.decode()
    assert data.SCARS[1]["name"] in _cc_field(sheet, "scars")


@BOTH
def test_stamina_lowered_by_hand_to_zero_puts_them_on_deaths_door_and_the_d6_decides(
    as_user, player, hero, monkeypatch, htmx
):
    """seed 002, Stamina & Death: at 0 stamina roll a d6; 1-3 dies. The Change box asks first whether to take it
    as damage by the rules (issue 36, item 2); "Change the number only" is this plain change."""
    client = as_user(player)
    url = reverse("characters:adjust", args=[hero.pk])
    asked = post(client, url, {"key": "stamina", "delta": "-6"}, htmx)
    assert asked.status_code == 200 and 'data-harm-offer="take_damage"' in asked.content.decode()
    hero.refresh_from_db()
    assert hero.state["status"] == "fine"
    response = post(client, url, {"key": "stamina", "delta": "-6", "how": "plain"}, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert (hero.state["stamina"], hero.state["status"]) == (0, "deaths_door")
    assert "It kills on 1–3." in text_of(client.get(hero.get_absolute_url()))
    blocked = post(client, *roll_form(client, hero, "save", attribute="STR"), htmx)
    refused(blocked, htmx, "You are on Death's door: roll the d6 first.")
    script(monkeypatch, [2])
    post(client, *roll_form(client, hero, "deaths_door"), htmx)
    hero.refresh_from_db()
    assert hero.state["status"] == "dead"
    assert 'data-cc-status="dead"' in client.get(hero.get_absolute_url()).content.decode()


@pytest.mark.parametrize("power", [1, 2, 3, 4, 5])
def test_casting_shows_the_exact_odds_at_every_power(as_user, player, hero, power):
    """magic-spellcasting.md: 1/2/4/8/16 stamina, a WIL save, Power d6s; matching dice mishap."""
    set_state(hero, stamina=40, stamina_max=40)
    book = give(hero, "Grimoire", "spellbook", slots=2, grimoire=True, spells=[SPELL])
    spell = f"{book.pk}|{SPELL}"
    expected = SYSTEM.procedures()["cast"].odds(hero.to_sheet(), {"spell": spell, "power": power})
    client = as_user(player)
    fields = roll_form(client, hero, "cast", spell=spell, power=power)[1]
    response = client.get(odds_url(hero, "cast"), fields, **HTMX)
    assert response.status_code == 200
    page = response.content.decode()
    for key, p in expected.outcomes:
        assert f'data-odds-{key}="{_fraction(p)}"' in page
    assert f'data-odds="{_fraction(expected.success)}"' in page


@BOTH
def test_casting_at_power_two_costs_two_stamina_and_logs_the_spell(as_user, player, hero, monkeypatch, htmx):
    book = give(hero, "Grimoire", "spellbook", slots=2, grimoire=True, spells=[SPELL])
    script(monkeypatch, [5, 3, 4])  # WIL save 5 (of 13), power dice 3 and 4: no match
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "cast", spell=f"{book.pk}|{SPELL}", power="2"), htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert (hero.state["stamina"], hero.state["stress"]) == (4, 0)
    roll = Roll.objects.get(character=hero, procedure="cast")
    assert roll.outcome == "cast" and roll.total == 7
    assert f"{SPELL} at Power 2: 2 stamina (now 4)." in roll.summary


# --- the shop, armour, hired help, tracks --------------------------------------------------------------


@BOTH
def test_buying_from_the_catalogue_takes_pennies(as_user, player, hero, htmx):
    """equipment.md: a sword costs 1 m = 240 p and brings its d8."""
    entry = CatalogueItem.objects.get(system="chaos-conquest", name="Sword")
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "quantity": "1", "buy": "on"},
        htmx,
    )
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["coins"] == 360
    sword = hero.items.get(name="Sword")
    assert (sword.kind, sword.slots, sword.data, sword.catalogue_item) == ("weapon", 2, {"damage": 8}, entry)
    assert "Money: 1m 10s" in text_of(as_user(player).get(hero.get_absolute_url()))


@BOTH
def test_adding_free_and_wearing_armour_a_helmet_and_a_shield(as_user, player, hero, htmx):
    """seed 002, Damage & Armor: padded armour 1 + helmet 1 = AV 2; a shield is held, not worn for AV."""
    client = as_user(player)
    for name in ("Light armour (padded)", "Helmet", "Shield"):
        entry = CatalogueItem.objects.get(system="chaos-conquest", name=name)
        post(client, reverse("characters:item_add", args=[hero.pk]), {"entry": entry.pk, "quantity": "1"}, htmx)
    hero.refresh_from_db()
    assert hero.state["coins"] == 600
    for item in hero.items.filter(kind__in=["armour", "helmet", "shield"]):
        post(client, *sheet_form(client, hero, "item_update", item.pk, worn="on"), htmx)
    assert SYSTEM.armour_value(hero.to_sheet()) == 2
    response = client.get(reverse("characters:region", args=[hero.pk, "vitals"]), **HTMX)
    assert re.search(r'data-track="av".*?<span data-value>2</span>', response.content.decode(), re.S)
    sheet = client.get(hero.get_absolute_url())
    assert _cc_field(sheet, "shield").startswith("Shield in hand")


@BOTH
def test_hiring_a_retainer_takes_the_fee_up_front(as_user, player, hero, htmx):
    """hired-help.md: 5 s a level up front, loyalty from WIL 13 (8), no day wage."""
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", kind="retainer", name="Tam"), htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["coins"] == 600 - 60
    tam = Hireling.objects.get(character=hero)
    assert (tam.name, tam.kind, tam.wage, tam.state["loyalty"], tam.state["role"]) == (
        "Tam",
        "retainer",
        0,
        8,
        "retainer",
    )
    assert "upfront" not in tam.state
    sheet = as_user(player).get(hero.get_absolute_url())
    line = re.search(r'data-hireling="Tam">(.*?)</li>', sheet.content.decode(), re.S).group(1)
    assert 'data-cc="loyalty">8<' in line and "half a share of treasure" in line


def test_hiring_a_porter_is_paid_by_the_day(as_user, player, hero):
    client = as_user(player)
    client.post(*sheet_form(client, hero, "hire", kind="porter", name="Pip"), **HTMX)
    hero.refresh_from_db()
    pip = Hireling.objects.get(character=hero)
    assert (pip.wage, pip.state["slots"], hero.state["coins"]) == (12, 15, 600)
    line = re.search(
        r'data-hireling="Pip">(.*?)</li>', as_user(player).get(hero.get_absolute_url()).content.decode(), re.S
    )
    assert "1s a day" in line.group(1)


@BOTH
def test_adjusting_a_track(as_user, player, hero, htmx):
    response = post(
        as_user(player), reverse("characters:adjust", args=[hero.pk]), {"key": "stress", "delta": "2"}, htmx
    )
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    assert hero.state["stress"] == 2


@pytest.mark.parametrize("key", list(SYSTEM.procedures()))
def test_every_procedure_answers_odds_and_rolls_without_a_server_error(as_user, gm, hero, rival, key):
    """Every C&C procedure, with its defaults, through the app's odds and roll endpoints (as the GM)."""
    client = as_user(gm)
    give(hero, "Grimoire", "spellbook", slots=2, grimoire=True, spells=[SPELL])
    services.hireling_hire(character_id=hero.pk, choices={"kind": "retainer"}, by=gm)
    odds = client.get(odds_url(hero, key), **HTMX)
    assert odds.status_code == 200
    response = client.post(roll_url(hero, key), {}, **HTMX)
    assert response.status_code in (200, 422)
    if response.status_code == 422:  # refused by the rules with defaults (e.g. nobody is dying): a message
        assert 'role="alert"' in response.content.decode()


# --- the secret faction -------------------------------------------------------------------------------------


def test_the_faction_is_shown_to_the_owner_and_the_gm_only(as_user, player, gm, other_player, hero):
    """character-creation.md: the faction is secret (spec §002.2)."""
    for who in (player, gm):
        client = as_user(who)
        assert _cc_field(client.get(hero.get_absolute_url()), "faction").startswith("Law")
        details = client.get(reverse("characters:region", args=[hero.pk, "details"]), **HTMX)
        assert _cc_field(details, "faction").startswith("Law")
        exported = json.loads(client.get(reverse("characters:export", args=[hero.pk])).content)
        assert exported["state"]["faction"] == "Law"
    client = as_user(other_player)
    sheet = client.get(hero.get_absolute_url())
    assert sheet.status_code == 200 and "Brannoc" in text_of(sheet)
    assert 'data-cc="faction"' not in sheet.content.decode() and "Law" not in text_of(sheet)
    for region in ("vitals", "details", "inventory", "hirelings", "log"):
        fragment = client.get(reverse("characters:region", args=[hero.pk, region]), **HTMX)
        assert fragment.status_code == 200 and "Law" not in text_of(fragment) and "faction" not in text_of(fragment)
    assert client.get(reverse("characters:export", args=[hero.pk])).status_code == 404
    for who in (other_player, gm):
        page = as_user(who).get(hero.campaign.get_absolute_url())
        card = re.search(rf'id="card-{hero.pk}".*?</article>', page.content.decode(), re.S).group(0)
        assert "Law" not in card and "faction" not in card.lower()
    assert "Law" not in text_of(as_user(other_player).get(hero.campaign.get_absolute_url()))


# --- the GM's table tools ----------------------------------------------------------------------------------


def test_the_gm_tools_show_party_saves_and_morale_with_odds_to_the_gm_only(as_user, gm, player, hero, rival):
    page = as_user(gm).get(hero.campaign.get_absolute_url())
    body = page.content.decode()
    assert 'id="cc-gm-tools"' in body
    for leader, member in ((hero, rival), (rival, hero)):
        assert f'action="{roll_url(leader, "party_save")}"' in body
        assert f'name="party_save-member1" value="{member.pk}" checked' in body
    expected = SYSTEM.procedures()["party_save"].odds(hero.to_sheet(), {"member1": rival.to_sheet()})
    assert f'data-odds-fail="{_fraction(expected.of("fail"))}"' in body
    assert f'action="{reverse("campaigns:table_roll", args=[hero.campaign_id, "morale"])}"' in body
    assert 'data-odds="7/12"' in body  # 2d6 <= 7 holds: 21/36
    assert 'id="cc-gm-tools"' not in as_user(player).get(hero.campaign.get_absolute_url()).content.decode()


@BOTH
def test_the_gm_runs_a_party_save_from_the_table_and_the_leader_covers_a_failure(
    as_user, gm, hero, rival, monkeypatch, htmx
):
    """seed 002, Party Saves: the best result counts; the leader takes a stress per member who failed."""
    client = as_user(gm)
    table = client.get(hero.campaign.get_absolute_url())
    inputs = form_fields(table, roll_url(hero, "party_save"), attribute="DEX", member1=rival.pk, visibility="public")
    odds = client.get(odds_url(hero, "party_save"), inputs, **HTMX)
    p_leader, p_member = Fraction(10, 20), Fraction(10, 20)
    assert f'data-odds-fail="{_fraction((1 - p_leader) * (1 - p_member))}"' in odds.content.decode()
    script(monkeypatch, [5, 19])  # leader 5 of DEX 10 passes, Ysolde 19 fails
    response = post(client, roll_url(hero, "party_save"), inputs, htmx)
    assert response.status_code == (200 if htmx else 302)
    hero.refresh_from_db()
    rival.refresh_from_db()
    assert (hero.state["stress"], rival.state["stress"]) == (1, 0)
    roll = Roll.objects.get(procedure="party_save")
    assert roll.character == hero and roll.outcome == "pass_stress_1" and roll.roller == gm
    assert roll.odds["fail"] == "1/4"
    if htmx:  # the table's GM tool swaps in the sheet log's latest roll
        assert re.search(r'<div class="roll-result"[^>]*>.*?Party save', response.content.decode(), re.S)
    log = as_user(gm).get(reverse("campaigns:region", args=[hero.campaign_id, "log"]), **HTMX)
    assert "Party save (leader)" in text_of(log) and "pass stress 1" in text_of(log).replace("_", " ")


@BOTH
def test_the_gm_rolls_an_npcs_morale_at_the_table_as_the_gm(as_user, gm, hero, monkeypatch, htmx):
    """seed 002, Morale: 2d6 above ML 7 (11) and they flee or parley. Posted from the table's own form;
    logged as the GM's roll on no character (issue 10: it used to land on a player character's sheet)."""
    client = as_user(gm)
    url = reverse("campaigns:table_roll", args=[hero.campaign_id, "morale"])
    fields = form_fields(client.get(hero.campaign.get_absolute_url()), url)
    assert fields["morale"] == ["7"] and fields["visibility"] == ["public"]
    script(monkeypatch, [6, 5])
    response = post(client, url, fields, htmx)
    assert response.status_code == (200 if htmx else 302)
    if not htmx:  # a plain post goes back to the table
        assert response["Location"] == hero.campaign.get_absolute_url()
    roll = Roll.objects.get(procedure="morale")
    assert (roll.outcome, roll.total, roll.odds) == ("flee", 11, {"hold": "7/12", "flee": "5/12"})
    assert (roll.character_id, roll.roller_id, roll.campaign_id) == (None, gm.pk, hero.campaign_id)
    hero.refresh_from_db()
    assert hero.state == cc_state()


# --- refusals change nothing ----------------------------------------------------------------------------


@BOTH
def test_pushing_with_no_empty_slot_is_refused(as_user, player, hero, htmx):
    """seed 002, Pushing a Character: the stress needs an empty slot."""
    set_state(hero, stress=9)  # 3 items + 9 stress = 12 of 12
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "save", attribute="STR", push="on"), htmx)
    refused(response, htmx, "Pushing needs an empty inventory slot for the stress, and every slot is full.")
    assert unchanged(hero) == before


@BOTH
def test_stress_by_hand_when_every_slot_is_full_is_refused(as_user, player, hero, htmx):
    """Seed 002, Inventory & Stress: the Change box offers Take stress (issue 36, item 2); the plain change is
    refused with the sentence saying why."""
    set_state(hero, stress=9)
    before = unchanged(hero)
    url = reverse("characters:adjust", args=[hero.pk])
    asked = post(as_user(player), url, {"key": "stress", "delta": "1"}, htmx)
    assert asked.status_code == 200 and 'data-harm-offer="stress"' in asked.content.decode()
    response = post(as_user(player), url, {"key": "stress", "delta": "1", "how": "plain"}, htmx)
    refused(response, htmx, "Only 0 empty slot(s) for 1 stress. Drop an item first, or use Take stress")
    assert unchanged(hero) == before


@BOTH
def test_casting_at_power_six_is_refused(as_user, player, hero, htmx):
    """magic-spellcasting.md: Power runs from 1 to 5."""
    book = give(hero, "Grimoire", "spellbook", slots=2, grimoire=True, spells=[SPELL])
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "cast", spell=f"{book.pk}|{SPELL}", power="6"), htmx)
    refused(response, htmx, "Power must be at most 5.")
    assert unchanged(hero) == before


@BOTH
def test_a_nineteenth_attribute_point_is_refused(as_user, player, hero, htmx):
    """seed 002, Advancement: +1 to an attribute on levelling up, never past 18."""
    set_state(hero, xp=2000, attributes={**cc_state()["attributes"], "STR": {"current": 18, "base": 18}})
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *roll_form(client, hero, "level_up", attribute="STR"), htmx)
    refused(response, htmx, "STR is already 18, the most a score can be; raise another attribute.")
    assert unchanged(hero) == before


@BOTH
def test_more_retainers_than_wil_allows_is_refused(as_user, player, hero, htmx):
    """hired-help.md: WIL 3 keeps one retainer."""
    set_state(hero, attributes={**cc_state()["attributes"], "WIL": {"current": 3, "base": 3}})
    services.hireling_hire(character_id=hero.pk, choices={"kind": "retainer"}, by=player)
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", kind="retainer"), htmx)
    refused(response, htmx, "With WIL 3 you can keep 1 retainer(s), and you have 1.")
    assert unchanged(hero) == before


@BOTH
def test_a_retainer_nobody_can_pay_is_refused(as_user, player, hero, htmx):
    set_state(hero, coins=59)
    before = unchanged(hero)
    client = as_user(player)
    response = post(client, *sheet_form(client, hero, "hire", kind="retainer"), htmx)
    refused(response, htmx, "A level 1 retainer wants 5s up front; you have 4s 11p.")
    assert unchanged(hero) == before


@BOTH
def test_buying_without_the_pennies_is_refused(as_user, player, hero, htmx):
    set_state(hero, coins=100)
    entry = CatalogueItem.objects.get(system="chaos-conquest", name="Sword")
    before = unchanged(hero)
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "quantity": "1", "buy": "on"},
        htmx,
    )
    refused(response, htmx, "Sword costs 1m; you have 8s 4p.")
    assert unchanged(hero) == before


@BOTH
def test_buying_what_cannot_be_carried_keeps_the_pennies(as_user, player, hero, htmx):
    """seed 002, Inventory & Stress: no more than your slots (12 with STR 12; 3 used)."""
    entry = CatalogueItem.objects.get(system="chaos-conquest", name="Sword")
    set_state(hero, coins=5000)
    before = unchanged(hero)
    response = post(
        as_user(player),
        reverse("characters:item_add", args=[hero.pk]),
        {"entry": entry.pk, "quantity": "5", "buy": "on"},
        htmx,
    )
    refused(response, htmx, "No room for Sword")
    assert unchanged(hero) == before


def test_the_catalogue_is_loaded_and_staff_see_it_in_the_admin(client, django_user_model):
    """The data migration loads equipment.md's tables in pennies; staff edit them in the admin."""
    assert CatalogueItem.objects.filter(system="chaos-conquest").count() == len(SYSTEM.catalogue())
    assert CatalogueItem.objects.get(system="chaos-conquest", name="Silver sword").cost == 2400
    client.force_login(django_user_model.objects.create_superuser("staff", password="x-staff-password-1"))
    response = client.get(reverse("admin:characters_catalogueitem_changelist"), {"system__exact": "chaos-conquest"})
    assert response.status_code == 200
    assert "Medium armour (mail)" in text_of(response) and "Silver sword" in text_of(response)


def _cc_field(response, name: str) -> str:
    return field_text(response, "data-cc", name)


def test_only_retainers_count_against_the_wil_limit(as_user, player, hero):
    """hired-help.md: WIL caps retainers; porters and other paid help do not count."""
    Hireling.objects.create(character=hero, name="Porter", kind="hireling", state={}, wage=8)
    Hireling.objects.create(character=hero, name="Squire", kind="retainer", state={}, wage=0)
    page = as_user(player).get(reverse("characters:region", args=[hero.pk, "hirelings"])).content.decode()
    limit = SYSTEM.hireling_limit(hero.to_sheet())
    assert f"(1/{limit} retainers)" in page


def test_a_plain_party_save_from_the_table_goes_back_to_the_table(as_user, gm, hero, rival):
    """The GM tools' own form (not a hand-built dict): its hidden "next" really sits inside the form."""
    client = as_user(gm)
    action = reverse("characters:roll", args=[hero.pk, "party_save"])
    fields = form_fields(client.get(hero.campaign.get_absolute_url()), action, attribute="STR")
    assert fields["next"] == [hero.campaign.get_absolute_url()] and fields["party_save-member1"] == [str(rival.pk)]
    response = client.post(action, fields)
    assert response.status_code == 302
    assert response["Location"] == hero.campaign.get_absolute_url()
    response = client.post(action, fields | {"next": "https://evil.example/"})  # a tampered "next" goes nowhere
    assert response["Location"] == hero.get_absolute_url()
