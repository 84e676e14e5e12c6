"""An hour of a mixed table's clock in four browsers (issue 42): the GM lets time pass in the home system's units and
each player's torch burns live on their sheet by their own system's rules."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.models import Item
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
SYSTEMS = ("fell-draft", "chaos-conquest", "grit-flesh")  # the home system first
TORCHES = {"fell-draft": {"lit": True}, "chaos-conquest": {"turns": 6, "lit": True}, "grit-flesh": {"lit": True}}


def test_an_hour_of_a_mixed_tables_clock_burns_each_torch_by_its_own_rules(new_page, django_user_model):
    gm_user = django_user_model.objects.create_user("gm_m", password=PASSWORD)
    table = campaign_create(name="The crossroads", system=SYSTEMS[0], gm=gm_user, also=list(SYSTEMS[1:]))
    heroes = []
    for n, system in enumerate(SYSTEMS):
        player = django_user_model.objects.create_user(f"player_m{n}", password=PASSWORD)
        Membership.objects.create(campaign=table, user=player)
        hero, _ = character_create(
            owner=player, system=system, choices={"name": f"Hero {n}"}, campaign=table, rng=random.Random(7)
        )
        Item.objects.create(
            character=hero, name="Torch of the crossing", kind="light", quantity=1, data=TORCHES[system], position=99
        )
        heroes.append(hero)
    gm = new_page(width=1280, height=900)
    log_in(gm, "gm_m", PASSWORD)
    gm.goto(f"/campaigns/{table.pk}/")
    sheets = []
    for n, hero in enumerate(heroes):
        page = new_page(width=1280, height=900)
        log_in(page, f"player_m{n}", PASSWORD)
        page.goto(f"/characters/{hero.pk}/")
        show_part(page, "gear")
        expect(page.locator('[data-item="Torch of the crossing"] [data-light-minutes]')).to_have_text("60")
        sheets.append(page)
    time = gm.locator("#time")
    time.get_by_label("Unit").select_option("exploration")
    time.get_by_label("How many").fill("3")
    time.get_by_role("button", name="Let time pass").click()
    for page in sheets:  # half an hour off each torch, live, whatever its system counts time in
        expect(page.locator('[data-item="Torch of the crossing"] [data-light-minutes]')).to_have_text("30")
    time.get_by_label("How many").fill("3")
    time.get_by_role("button", name="Let time pass").click()
    for page in sheets:  # the hour is up: every torch burned out by its own rules
        expect(page.locator('[data-item="Torch of the crossing"]')).to_have_count(0)
