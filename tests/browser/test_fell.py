"""A Fell player on a phone makes a character, rolls with the odds in view, takes a blow; the GM sees it live."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Character, Roll
from rules.systems.fell_draft import SYSTEM
from tests.browser.conftest import show_part, sign_up


def _fraction(p) -> str:
    return f"{p.numerator}/{p.denominator}"


def test_a_fell_character_is_made_rolls_and_takes_harm_while_the_gm_watches(new_page, django_user_model):
    gm_page = new_page()
    sign_up(gm_page, "moira")
    player_page = new_page(width=375, height=740)  # a phone
    sign_up(player_page, "robin")
    campaign = Campaign.objects.create(name="The Salt Barrow", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="moira"), role="gm")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="robin"))

    # Creation: d6 in each ability, 4 HP, a Hunter (survival, sling, knife); the rest rolled on the server.
    player_page.goto(f"/characters/new/?system=fell-draft&campaign={campaign.pk}")
    player_page.locator("#id_new_name").fill("Wren")
    player_page.locator("#id_new_abilities").select_option("assign")
    player_page.locator("#id_new_hp").select_option("four")
    player_page.locator("#id_new_background").select_option("Hunter")
    player_page.locator("#id_new_traits").select_option("none")
    player_page.get_by_role("button", name="Create").click()
    expect(player_page.get_by_role("heading", name="Wren", exact=True)).to_be_visible()
    wren = Character.objects.get(name="Wren")
    assert re.search(rf"/characters/{wren.pk}/$", player_page.url)
    expect(player_page.locator('[data-ability="INT"] .stat-value')).to_have_text("d6")
    expect(player_page.locator('[data-fell="skills-count"]')).to_have_text("1 of 6")

    # The GM opens the table and waits until the stream is open (they show as present).
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    card = gm_page.locator(f"#card-{wren.pk}")
    expect(card.locator('[data-track="hp"] [data-value]')).to_have_text("4")
    expect(gm_page.locator('[data-username="moira"][data-present]')).to_be_visible()

    # A test of INT with the survival skill die and one advantage: d6 + d6 stepped up to d8 + d8.
    show_part(player_page, "roll")
    test = player_page.locator('.roll-control[data-procedure="test"]')
    test.locator("#id_test-ability").select_option("INT")
    test.get_by_label("survival").check()
    test.locator("#id_test-advantage").fill("1")
    expected = SYSTEM.procedures()["test"].odds(
        wren.to_sheet(), {"ability": "INT", "skills": ["survival"]} | {"advantage": 1}
    )
    assert _fraction(expected.success) == "55/64"
    expect(test.locator(".odds-line")).to_have_attribute("data-odds", "55/64")
    expect(test.locator(".odds")).to_have_text("85.9%")
    test.get_by_role("button", name="Roll", exact=True).click()
    expect(test.locator(".roll-result")).to_contain_text("Test")
    roll = Roll.objects.get(character=wren, procedure="test")
    assert roll.odds["pass"] == "55/64" and [d["sides"] for d in roll.dice] == [8, 8]

    # Nine harm: 4 takes the HP to 0, 5 is critical harm to BOD (6 points, 1 left), then a BOD test at DN 5.
    harm = player_page.locator('.roll-control[data-procedure="take_harm"]')
    harm.locator("summary").click()
    harm.locator("#id_take_harm-amount").fill("9")
    expect(harm.get_by_role("button", name="Apply", exact=True)).to_have_count(0)  # 9 harm brings a BOD test
    harm.get_by_role("button", name="Roll", exact=True).click()
    expect(player_page.locator("#vitals [data-track=hp] [data-value]")).to_have_text("0")
    wren.refresh_from_db()
    assert wren.state["hp"] == 0 and wren.state["abilities"]["BOD"]["points"] == 1
    if wren.state["dying"]:
        show_part(player_page, "sheet")
        expect(player_page.locator('[data-banner="dying"]')).to_be_visible()

    # The GM's card follows without a reload, within about a second.
    expect(card.locator('[data-track="hp"] [data-value]')).to_have_text("0")
    expect(card.locator('[data-track="BOD"] [data-value]')).to_have_text("1")
    if wren.state["dying"]:
        expect(card).to_contain_text("Unconscious and dying")
