"""A Grit & Flesh player makes a character with the table's house defaults in view, fills a gear bubble and
takes a hit that runs through Grit into Flesh and calls for the save vs death; the GM's table follows live."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Character, Roll
from characters.services import character_create
from tests.browser.conftest import log_in, show_part, sign_up

HOUSE = "house default, not from the rules"


def test_a_grit_and_flesh_character_fills_a_bubble_and_faces_the_save_vs_death(new_page, django_user_model):
    gm_page = new_page()
    sign_up(gm_page, "moira")
    player_page = new_page(width=375, height=740)  # a phone
    sign_up(player_page, "alice")
    campaign = Campaign.objects.create(name="The Mire", system="grit-flesh")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="moira"), role="gm")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="alice"))

    # Creation: the numbers the rules leave out are shown with their values, each marked as a house default.
    player_page.goto(f"/characters/new/?system=grit-flesh&campaign={campaign.pk}")
    starting_st = player_page.locator('[data-creation-settings] [data-setting="start_st"]')
    expect(starting_st).to_contain_text("14")
    expect(starting_st).to_contain_text(HOUSE)
    expect(player_page.locator('[data-creation-settings] [data-setting="xp_table"]')).to_contain_text(HOUSE)
    player_page.locator("#id_new_name").fill("Tamsin")
    player_page.locator("#id_new_cls").select_option("Fighter")
    player_page.locator("#id_new_skills").fill("climbing")
    player_page.get_by_role("button", name="Create").click()
    expect(player_page.get_by_role("heading", name="Tamsin", exact=True)).to_be_visible()
    tamsin = Character.objects.get(name="Tamsin")
    assert re.search(rf"/characters/{tamsin.pk}/$", player_page.url)
    grit, flesh = tamsin.state["grit"], tamsin.state["flesh"]
    expect(player_page.locator('[data-gf="st"] strong')).to_have_text("14")

    # The GM opens the table and waits until the stream is open.
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    card = gm_page.locator(f"#card-{tamsin.pk}")
    expect(card.locator('[data-track="bubbles"] [data-value]')).to_have_text("0")
    expect(card.locator('[data-track="flesh"] [data-value]')).to_have_text(str(flesh))
    expect(gm_page.locator('[data-username="moira"][data-present]')).to_be_visible()

    # A gear bubble filled with the + of its track.
    player_page.get_by_role("button", name="Gear bubbles filled plus one").click()
    expect(player_page.locator('[data-track="bubbles"] [data-value]')).to_have_text("1")
    show_part(player_page, "sheet")
    expect(player_page.locator('[data-gf="bubbles"]')).to_have_text("1 of 5 filled")
    expect(card.locator('[data-track="bubbles"] [data-value]')).to_have_text("1")

    # Four more fill them all; a sixth is refused in words and changes nothing.
    show_part(player_page, "sheet")
    plus = player_page.get_by_role("button", name="Gear bubbles filled plus one")
    for filled in range(2, 6):
        plus.click()
        expect(player_page.locator('[data-track="bubbles"] [data-value]')).to_have_text(str(filled))
    plus.click()
    expect(player_page.get_by_role("alert")).to_contain_text("All 5 gear bubbles are filled")
    expect(player_page.locator('[data-track="bubbles"] [data-value]')).to_have_text("5")
    tamsin.refresh_from_db()
    assert tamsin.state["bubbles"] == 5
    expect(card.locator('[data-track="bubbles"] [data-value]')).to_have_text("5")

    # A hit of Grit + Flesh: Grit empties, the rest spills into Flesh, and at 0 Flesh the save vs death is rolled.
    show_part(player_page, "roll")
    damage = player_page.locator('.roll-control[data-procedure="damage"]')
    damage.locator("summary").click()
    damage.locator("#id_damage-amount").fill(str(grit + flesh))
    expect(damage.locator(".odds-line").first).to_be_visible()
    expect(damage.locator(".odds-box")).to_contain_text("dead:")  # what is at stake, not "to succeed"
    damage.get_by_role("button", name="Roll", exact=True).click()  # "Apply" at 1 damage; the save is a roll
    expect(damage.locator(".roll-result")).to_contain_text("save vs death")
    tamsin.refresh_from_db()
    assert (tamsin.state["grit"], tamsin.state["flesh"]) == (0, 0)
    roll = Roll.objects.get(character=tamsin, procedure="damage")
    assert roll.outcome in ("out", "dead")
    show_part(player_page, "sheet")
    banner = "dead" if roll.outcome == "dead" else "out"
    expect(player_page.locator(f'[data-banner="{banner}"]')).to_be_visible()

    # The GM's card follows without a reload.
    expect(card.locator('[data-track="flesh"] [data-value]')).to_have_text("0")
    expect(card.locator('[data-track="grit"] [data-value]')).to_have_text("0")
    expect(card).to_contain_text("Dead" if roll.outcome == "dead" else "Out cold")


def test_seed_004_a_quick_check_rolls_the_d20_the_panel_shows(new_page, django_user_model):
    """Issue 23, item 4, in the browser: the quick "Check DEX" button beside a sheet that lists a skill rolls a d20
    against DEX (seed 004, Attribute Checks: skill or tools, roll under the attribute), as the panel's odds say;
    it once claimed tools too and "succeeded without a roll" every time."""
    gm = django_user_model.objects.create_user("gm_quick", password="lantern-light-42")
    player = django_user_model.objects.create_user("player_quick", password="lantern-light-42")
    campaign = Campaign.objects.create(name="Quick Table", system="grit-flesh")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero = character_create(owner=player, system="grit-flesh", choices={"name": "Ash"}, campaign=campaign)[0]
    Character.objects.filter(pk=hero.pk).update(state={**hero.state, "skills": ["Climbing"], "tools": []})
    page = new_page(375, 812)
    log_in(page, "player_quick", "lantern-light-42")
    page.goto(f"/characters/{hero.pk}/")
    page.get_by_role("button", name="Check DEX").click()
    result = page.locator("#quick-result .roll-result")
    expect(result).to_contain_text("against DEX")
    expect(result).not_to_contain_text("without a roll")
    roll = Roll.objects.get(character=hero, procedure="check")
    assert roll.outcome in {"pass", "fail"} and len(roll.dice) == 1
