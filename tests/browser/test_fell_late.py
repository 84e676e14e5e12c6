"""A Fell (late) player on a phone makes a character, rolls a test with two skills and a helper with the exact odds
in view, takes critical harm; the GM's table (another browser context) shows it live."""

from __future__ import annotations

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Character, Hireling, Roll
from rules.systems.fell_late import SYSTEM
from tests.browser.conftest import show_part, sign_up


def test_a_fell_late_character_rolls_with_help_and_takes_critical_harm_while_the_gm_watches(
    new_page, django_user_model
):
    gm_page = new_page()
    sign_up(gm_page, "moira")
    player_page = new_page(width=375, height=812)  # a phone
    sign_up(player_page, "robin")
    campaign = Campaign.objects.create(name="The Barrow Road", system="fell-late")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="moira"), role="gm")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="robin"))

    # Creation on the phone: d6 in each attribute, fixed HP (3), a Scholar (lore); the rest rolled on the server.
    player_page.goto(f"/characters/new/?system=fell-late&campaign={campaign.pk}")
    player_page.locator("#id_new_name").fill("Hollis")
    player_page.locator("#id_new_attributes").select_option("assign")
    player_page.locator("#id_new_hp").select_option("fixed")
    player_page.locator("#id_new_background").select_option("Scholar")
    player_page.locator("#id_new_traits").select_option("none")
    player_page.get_by_role("button", name="Create").click()
    expect(player_page.get_by_role("heading", name="Hollis", exact=True)).to_be_visible()
    hollis = Character.objects.get(name="Hollis")
    expect(player_page.locator('[data-attribute="STR"] [data-die]')).to_have_text("d6")
    expect(player_page.locator('[data-fell="skills-count"]')).to_contain_text("1 of 6")

    # A second skill and a skilled hireling to help (their own forms are tested elsewhere).
    hollis.state = SYSTEM.validate_state({**hollis.state, "skills": ["lore", "survival"]})
    helper_state = {**hollis.state, "skills": ["lore"], "hireling": True, "hire_rank": "novice", "paid_up": True}
    Hireling.objects.create(character=hollis, name="Bo", state=helper_state, wage=15)
    hollis.version += 1  # as every write through the app does: the sheet is kept by its version
    hollis.save(update_fields=["state", "version"])
    player_page.reload()

    # The GM opens the table and waits until the stream is open.
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    card = gm_page.locator(f"#card-{hollis.pk}")
    expect(card.locator('[data-track="hp"] [data-value]')).to_have_text("3")
    expect(gm_page.locator('[data-username="moira"][data-present]')).to_be_visible()

    # STR d6 with lore and survival: two steps up to d10; Bo's help adds ADV: 1 - (3/10)^2 = 91/100.
    show_part(player_page, "roll")
    test = player_page.locator('.roll-control[data-procedure="test"]')
    test.locator("#id_test-attribute").select_option("STR")
    test.get_by_label("lore", exact=True).check()
    test.get_by_label("survival", exact=True).check()
    test.get_by_label("Bo", exact=True).check()
    sheet = hollis.to_sheet()
    helper = str(sheet.hirelings[0].id)
    expected = SYSTEM.procedures()["test"].odds(
        sheet, {"attribute": "STR", "skills": ("lore", "survival"), "helpers": (helper,)}
    )
    assert expected.success.numerator == 91 and expected.success.denominator == 100
    expect(test.locator(".odds-line")).to_have_attribute("data-odds", "91/100")
    expect(test.locator(".odds")).to_have_text("91.0%")
    test.get_by_role("button", name="Roll", exact=True).click()
    expect(test.locator(".roll-result")).to_contain_text("Test")
    roll = Roll.objects.get(character=hollis, procedure="test")
    assert roll.odds["pass"] == "91/100" and [d["sides"] for d in roll.dice] == [10, 10]

    # Six harm against 3 HP and no armour: 3 HP gone, 3 critical harm, a STR test on the d6.
    harm = player_page.locator('.roll-control[data-procedure="take_harm"]')
    harm.locator("summary").click()
    harm.locator("#id_take_harm-amount").fill("6")
    expect(harm.locator(".odds-line")).to_have_attribute("data-odds-critical_fail", "1/2")
    harm.get_by_role("button", name="Roll", exact=True).click()  # "Apply" at 1 harm; 6 harm brings a STR test
    show_part(player_page, "sheet")
    expect(player_page.locator('[data-fell="hp"] strong')).to_have_text("0")
    hollis.refresh_from_db()
    assert hollis.state["hp"] == 0
    lowered = hollis.state["out"]
    assert hollis.state["attributes"]["STR"]["die"] == (4 if lowered else 6)

    # The GM's card follows without a reload.
    expect(card.locator('[data-track="hp"] [data-value]')).to_have_text("0")
    if lowered:
        expect(card).to_contain_text("Taken out, dying")
        expect(card.locator('[data-track="STR"] [data-value]')).to_have_text("4")
