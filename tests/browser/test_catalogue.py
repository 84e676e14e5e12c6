"""Buying through the equipment picker on a phone (375 × 812): open Gear, type, buy two, see the stack and the
purse change without a page load (issue 11, point 5)."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem
from characters.services import character_create
from tests.browser.conftest import log_in, show_part
from tests.browser.test_play_surface import _shot

PASSWORD = "lantern-light-42"


def test_a_player_finds_and_buys_supplies_through_the_picker_on_a_phone(new_page, django_user_model):
    load_catalogue(CatalogueItem, "chaos-conquest")
    player = django_user_model.objects.create_user("player_shop", password=PASSWORD)
    gm = django_user_model.objects.create_user("gm_shop", password=PASSWORD)
    campaign = Campaign.objects.create(name="Market Day", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="chaos-conquest", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    hero.items.all().delete()
    hero.state = {**hero.state, "coins": 720, "stress": 0}  # 3m, nothing carried
    hero.save()

    page = new_page(375, 812)
    log_in(page, "player_shop", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    expect(page.locator("[data-coins]")).to_have_text("3m")
    show_part(page, "gear")
    picker = page.locator("#catalogue-picker")
    expect(picker).to_contain_text("12 pennies (p) make a shilling (s)")
    assert picker.locator("[data-entry]").count() == 0  # the sheet brought no catalogue rows

    picker.get_by_label("Find equipment").press_sequentially("supp", delay=40)
    row = picker.locator('[data-entry="Supply"]')
    expect(row).to_contain_text("7s · 1 slot")
    expect(picker.locator("[data-entry]")).to_have_count(1)  # filtered on the server as you type

    row.get_by_label("How many Supply").fill("2")
    row.get_by_role("button", name="Buy Supply for 7s").click()
    expect(page.locator("#catalogue-status")).to_contain_text("Bought Supply ×2.")
    expect(page.locator('#inventory [data-item="Supply"]')).to_contain_text("Supply ×2")
    expect(page.locator('#inventory [data-item="Supply"]')).to_contain_text("2 slots")
    expect(page.locator("[data-coins]")).to_have_text("2m 6s")  # 3m less 2 × 7s
    expect(picker.locator("[data-purse]")).to_have_text("2m 6s")
    expect(picker.get_by_label("Find equipment")).to_have_value("supp")  # what was typed stays

    # Once more: the stack grows, no second row.
    row = picker.locator('[data-entry="Supply"]')
    row.get_by_role("button", name="Take Supply free").click()
    expect(page.locator('#inventory [data-item="Supply"]')).to_contain_text("Supply ×3")
    expect(page.locator('#inventory [data-item="Supply"]')).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth") <= 375  # nothing wider than the phone
    _shot(page, "picker-phone")
