"""Whose turn (issue 36, item 6), in Chromium on a phone and at a desk: the GM starts a fight, the strip at the top of
the table shows the round's order and whose turn it is, and the player's open sheet says "Your turn" when it is the
party's, following each Next turn without a reload (seed 000, Combat: the party acts first, then the enemies)."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"


@pytest.mark.parametrize(("width", "height"), [(375, 812), (1280, 800)])
def test_the_strip_and_the_players_sheet_follow_the_turn(new_page, django_user_model, width, height):
    django_user_model.objects.create_user("gm_turns", password=PASSWORD)
    player = django_user_model.objects.create_user("player_turns", password=PASSWORD)
    campaign = Campaign.objects.create(name="Turns", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="gm_turns"), role="gm")
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )

    sheet = new_page(width=width, height=height)
    log_in(sheet, "player_turns", PASSWORD)
    sheet.goto(f"/characters/{hero.pk}/")
    gm = new_page(width=width, height=height)
    log_in(gm, "gm_turns", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")

    show_part(gm, "fight")
    gm.locator("#encounter").get_by_role("button", name="Start a fight").click()
    strip = gm.locator("#clock")
    expect(strip.locator("[data-whose-turn]")).to_contain_text("The party's turn")
    expect(strip.locator("[data-whose-turn]")).to_be_visible()  # on a phone too: the strip heads the fight part
    expect(strip.locator("[data-whose-turn]")).to_contain_text("(1 of 2)")
    expect(strip.locator("[data-turn-now]")).to_have_text("The party acts, as a group")
    expect(strip.locator("[data-turn-next]")).to_have_text("The enemies act")

    turn = sheet.locator("#sheet-fight [data-your-turn]")
    expect(turn).to_contain_text("Your turn")  # the fight reached the open sheet: no reload
    expect(turn).to_be_visible()

    strip.get_by_role("button", name="Next turn").click()
    expect(strip.locator("[data-turn-now]")).to_have_text("The enemies act")
    expect(strip.locator("[data-whose-turn]")).to_contain_text("Not the party's turn (2 of 2)")
    expect(turn).to_contain_text("Not your turn yet")

    strip.get_by_role("button", name="Next turn").click()  # past the enemies: round 2, the party's turn again
    expect(strip).to_contain_text("Combat: round 2")
    expect(turn).to_contain_text("Your turn")
    expect(turn).not_to_contain_text("Not your turn")
    expect(sheet.locator("#sheet-fight [data-fight-round]")).to_have_attribute("data-fight-round", "2")
    for page in (gm, sheet):
        assert page.evaluate("document.documentElement.scrollWidth") <= width  # nothing runs off the screen
