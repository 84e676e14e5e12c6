"""A roll request at a mixed table (issue 42), in Chromium at 1280×800: the GM picks a shared check, sees what each
system rolls for it and each PC's own odds, asks as a group check; each player's sheet asks its own system's roll,
they answer, and the group's line arrives in the log."""

from __future__ import annotations

import random
import re

from playwright.sync_api import expect

from campaigns.models import Membership
from campaigns.services import campaign_create
from characters.services import character_create
from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"
SYSTEMS = ("fell-draft", "chaos-conquest", "grit-flesh")


def _mixed(django_user_model):
    gm = django_user_model.objects.create_user("gm_m", password=PASSWORD)
    table = campaign_create(name="Crossroads", system=SYSTEMS[0], gm=gm, also=list(SYSTEMS[1:]))
    heroes = []
    for n, (system, name) in enumerate(zip(SYSTEMS, ("Wren", "Ash", "Moss"), strict=True)):
        player = django_user_model.objects.create_user(f"player_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=table, user=player)
        hero, _ = character_create(
            owner=player, system=system, choices={"name": name}, campaign=table, rng=random.Random(n)
        )
        heroes.append(hero)
    return table, heroes


def test_the_gm_asks_a_mixed_table_one_check_and_each_answers_with_its_own_roll(new_page, django_user_model):
    table, heroes = _mixed(django_user_model)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_m", PASSWORD)
    gm.goto(f"/campaigns/{table.pk}/")
    form = gm.locator("#request-form")
    form.locator("#id_request_check").select_option("agility")
    check_map = gm.locator("#request-form [data-check-map]")
    expect(check_map.locator('[data-check-system="chaos-conquest"]')).to_contain_text("Save (Attribute DEX)")
    expect(check_map.locator('[data-check-system="grit-flesh"]')).to_contain_text("Attribute check")
    for hero in heroes:
        expect(gm.locator(f'#request-odds [data-odds-for="{hero.name}"]')).to_contain_text("%")
    gm.locator("#id_request_rule").select_option("any")
    expect(gm.locator('#request-odds [data-party-odds="rule"]')).to_have_attribute("data-rule", "any")
    gm.locator("#request-form").get_by_role("button", name=re.compile("^Ask")).click()
    expect(gm.locator("#requests")).to_contain_text("Check with agility or dexterity")

    for hero, own_roll in zip(heroes, ("Test", "Save", "Attribute check"), strict=True):
        player = new_page(width=1280, height=800)
        log_in(player, f"player_{hero.name.lower()}", PASSWORD)
        player.goto(f"/characters/{hero.pk}/")
        prompt = player.locator("#sheet-requests form.roll-request")
        expect(prompt).to_contain_text(own_roll)
        prompt.get_by_role("button", name=re.compile(f"^Roll {own_roll}")).click()
        expect(gm.locator(f'#requests [data-answer="{hero.name}"]')).to_have_attribute("data-state", "rolled")
        player.close()
    expect(gm.locator("#log")).to_contain_text("Group check: Check with agility or dexterity")
