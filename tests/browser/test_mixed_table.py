"""Issue 42's "Done when", in Chromium: a mixed table of three systems (Chaos & Conquest at home, Fell and Fortune's
Favor beside it) through a fight, a request and an hour of the clock, each player's open sheet changing live by its
own system's rules."""

from __future__ import annotations

import random
import time

import pytest
from playwright.sync_api import expect

from campaigns import session
from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Character, Item, Roll
from characters.services import character_create
from rules import SYSTEMS
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
HOME, OTHERS = "chaos-conquest", ("fell-draft", "fortunes-favor")
GOBLIN = {"stamina": 8, "av": 0, "damage": "4", "ml": 9}  # a C&C goblin: it hurts, it does not kill


def _mixed_table(django_user_model):
    gm = django_user_model.objects.create_user("gm_mixed", password=PASSWORD)
    campaign = campaign_create(name="The crossroads", system=HOME, gm=gm, also=OTHERS)
    heroes = {}
    for n, system in enumerate((HOME, *OTHERS)):
        name = ("Bryn", "Wren", "Ash")[n]
        player = django_user_model.objects.create_user(f"player_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=campaign, user=player)
        heroes[system], _ = character_create(
            owner=player, system=system, choices={"name": name}, campaign=campaign, rng=random.Random(7 + n)
        )
    return gm, campaign, heroes


def _words(locator) -> str:
    return " ".join(locator.inner_text().split())


def _until(test, seconds: float = 15.0) -> None:
    """Wait until ``test()`` holds (the limit only stops a hang: no test bounds wall-clock time)."""
    deadline = time.monotonic() + seconds
    while not test():
        if time.monotonic() > deadline:
            pytest.fail(f"not within {seconds} s")
        time.sleep(0.05)


def _hit_until_it_lands(gm_page, hero: Character) -> None:
    goblin = gm_page.locator('#encounter [data-npc="Goblin"]')
    for _ in range(10):  # armour or a miss may stop a blow: attack again until one gets through
        state = Character.objects.get(pk=hero.pk).state
        count = Roll.objects.filter(character=hero, label__startswith="Goblin hits").count()
        goblin.get_by_label("Goblin's target").select_option(label=hero.name)
        goblin.get_by_role("button", name="Goblin: Attack", exact=True).click()
        deadline = time.monotonic() + 5
        while Roll.objects.filter(character=hero, label__startswith="Goblin hits").count() == count:
            if time.monotonic() > deadline:
                break
            time.sleep(0.05)
        if Character.objects.get(pk=hero.pk).state != state:
            return
    raise AssertionError(f"ten goblin attacks and nothing landed on {hero.name}")


def test_a_mixed_table_of_three_systems_through_a_fight_a_request_and_an_hour(new_page, django_user_model):
    gm_user, campaign, heroes = _mixed_table(django_user_model)
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm_user, rng=random.Random(1))
    session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=GOBLIN)
    gm = new_page(1280, 800)
    log_in(gm, "gm_mixed", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    for hero in heroes.values():  # every PC's card, each in its own system's shape
        expect(gm.locator("#party")).to_contain_text(hero.name)
    players = {}
    for system in OTHERS:
        hero = heroes[system]
        page = new_page(375, 812)
        log_in(page, f"player_{hero.name.lower()}", PASSWORD)
        page.goto(f"/characters/{hero.pk}/")
        show_part(page, "sheet")
        players[system] = page

    # The fight: the C&C goblin's blows land as each target's own system's harm, live on their open sheets.
    for system in OTHERS:
        vitals = players[system].locator("#vitals")
        shown = _words(vitals)
        _hit_until_it_lands(gm, heroes[system])
        _until(lambda vitals=vitals, shown=shown: _words(vitals) != shown)

    # A request: each player is asked for their own system's roll, with their own odds.
    gm.locator("#request-form").get_by_role("button", name="Ask").click()
    for system in OTHERS:
        toast = players[system].locator("#request-toast")
        expect(toast).to_contain_text("The GM asks for a roll")
        expect(toast).to_contain_text("%")

    # An hour of the clock: each lit light burns by its own system's rules.
    lights = {}
    for system, hero in heroes.items():
        item = Item.objects.filter(character=hero, kind="light").order_by("pk").first()
        if item is not None:
            Item.objects.filter(pk=item.pk).update(data={**item.data, "lit": True})
            lights[system] = item.pk
    assert set(lights) >= {HOME, "fell-draft"}, lights
    time_region = gm.locator("#time")
    minutes = {"turn": 6, "exploration": 6}
    unit = time_region.get_by_label("Unit")
    key = unit.evaluate("s => s.value")
    time_region.get_by_label("How many", exact=False).fill(str(minutes.get(key, 1)))
    time_region.get_by_role("button", name="Let time pass").click()
    _until(lambda: campaign.__class__.objects.get(pk=campaign.pk).game_minutes >= 60)
    for system, item_pk in lights.items():
        item = Item.objects.filter(pk=item_pk).first()  # the last torch of a stack burnt out is gone
        if SYSTEMS[system].light_sources() is None:  # a system that burns no lights leaves its light as it was
            assert item is not None and item.data == {"lit": True}, system
            continue
        assert item is None or (item.data or {}).get("burned", 0) > 0 or not (item.data or {}).get("lit"), system
