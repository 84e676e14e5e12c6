"""A Fortune's Favor player on a phone makes a character, fails a test and gains Fortune's Favor (the GM's table
shows it live), spends it on the next roll with the exact three-outcome odds in view, then an exchange Clashes."""

from __future__ import annotations

import time
from fractions import Fraction

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Character, Roll
from rules.systems.fortunes_favor import SYSTEM
from tests.browser.conftest import show_part, sign_up

TRIES = 8  # each try fails (or Clashes) with probability at least 9/10: eight misses in a row is ~1e-8


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _open(control) -> None:
    if control.get_attribute("open") is None:
        control.locator("summary").click()


def _latest(character, procedure):
    return Roll.objects.filter(character=character, procedure=procedure).order_by("-pk").first()


def _roll_until(control, character, procedure: str, outcome: str) -> None:
    """Press Roll until the stored roll has ``outcome`` (the live server rolls real dice), waiting for each."""
    rolls = Roll.objects.filter(character=character, procedure=procedure)
    for _ in range(TRIES):
        count = rolls.count()
        control.get_by_role("button", name="Roll", exact=True).click()
        deadline = time.monotonic() + 10
        while rolls.count() == count and time.monotonic() < deadline:
            time.sleep(0.05)
        if _latest(character, procedure).outcome == outcome:
            break
    assert _latest(character, procedure).outcome == outcome
    expect(control.locator(".roll-result")).to_be_visible()


def test_a_fortunes_favor_character_fails_spends_favor_and_clashes_while_the_gm_watches(new_page, django_user_model):
    gm_page = new_page()
    sign_up(gm_page, "lanna")
    player_page = new_page(width=375, height=812)  # a phone
    sign_up(player_page, "bob")
    campaign = Campaign.objects.create(name="The Gilded Road", system="fortunes-favor")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="lanna"), role="gm")
    Membership.objects.create(campaign=campaign, user=django_user_model.objects.get(username="bob"))

    # Creation: a Knight, Dwarf of the Deep Mining, the array as given, +1 Mettle and +1 Heart, heavy armour.
    player_page.goto(f"/characters/new/?system=fortunes-favor&campaign={campaign.pk}")
    player_page.locator("#id_new_name").fill("Sable")
    player_page.locator("#id_new_class").select_option("KNIGHT")
    player_page.locator("#id_new_lineage").select_option("DWARF")
    player_page.locator("#id_new_culture").select_option("DEEP-MINING")
    for stat, value in (("mettle", "3"), ("agility", "2"), ("intellect", "0"), ("heart", "-2")):
        player_page.locator(f"#id_new_{stat}").select_option(value)
    player_page.locator("#id_new_lineage_bonus").select_option("mettle")
    player_page.locator("#id_new_culture_bonus").select_option("heart")
    player_page.locator("#id_new_novice").select_option("Athletic")
    player_page.locator("#id_new_armour").select_option("heavy")
    player_page.get_by_role("button", name="Create").click()
    expect(player_page.get_by_role("heading", name="Sable", exact=True)).to_be_visible()
    sable = Character.objects.get(name="Sable")
    assert sable.state["stats"] == {"mettle": 4, "agility": 2, "intellect": 0, "heart": -1}
    show_part(player_page, "sheet")
    expect(player_page.locator('[data-ff="armor"] strong').first).to_have_text("17")

    # The GM opens the table and waits until the stream is open.
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    card = gm_page.locator(f"#card-{sable.pk}")
    expect(card.locator('[data-track="fortunes_favor"] [data-value]')).to_have_text("0")
    expect(gm_page.locator('[data-username="lanna"][data-present]')).to_be_visible()

    # A Heart test against 30/25 fails on anything but a natural 20: Fortune's Favor is gained.
    show_part(player_page, "roll")
    test = player_page.locator('.roll-control[data-procedure="test"]')
    _open(test)
    test.locator("#id_test-stat").select_option("heart")
    test.locator("#id_test-success").fill("30")
    test.locator("#id_test-failure").fill("25")
    expect(test.locator(".odds-line")).to_have_attribute("data-odds-fail", "19/20")
    _roll_until(test, sable, "test", "fail")
    expect(test.locator(".roll-result")).to_contain_text("Fortune's Favor gained.")
    expect(card.locator('[data-track="fortunes_favor"] [data-value]')).to_have_text("1")

    # Spend it on the next roll, declared before rolling: the odds shown are the exact three outcomes.
    test.locator("#id_test-success").fill("15")
    test.locator("#id_test-failure").fill("10")
    test.get_by_label("Spend Fortune's Favor").check()
    sable.refresh_from_db()
    sheet = sable.to_sheet()
    expected = SYSTEM.procedures()["test"].odds(
        sheet, {"stat": "heart", "success": 15, "failure": 10, "spend_favor": True}
    )
    assert expected.of("fail") == Fraction(10, 20) ** 2  # Heart −1: a d20 of 10 or less, twice
    line = test.locator(".odds-line")
    for key in ("pass", "mixed", "fail"):
        expect(line).to_have_attribute(f"data-odds-{key}", _fraction(expected.of(key)))
    before = Roll.objects.filter(character=sable, procedure="test").count()
    test.get_by_role("button", name="Roll", exact=True).click()
    expect(test.get_by_label("Spend Fortune's Favor")).not_to_be_checked()  # it cost the Favor: it unticks
    spent = _latest(sable, "test")
    assert Roll.objects.filter(character=sable, procedure="test").count() == before + 1
    assert spent.inputs["spend_favor"] is True and len(spent.dice) == 2
    assert spent.odds == {k: _fraction(expected.of(k)) for k in ("pass", "mixed", "fail")}
    favor_now = "1" if spent.outcome == "fail" else "0"
    expect(card.locator('[data-track="fortunes_favor"] [data-value]')).to_have_text(favor_now)

    # An exchange against Armor 24 / Counter 0: anything but a natural 1 or 20 is a Clash.
    attack = player_page.locator('.roll-control[data-procedure="attack"]')
    _open(attack)
    attack.locator("#id_attack-armor").fill("24")
    attack.locator("#id_attack-counter").fill("0")
    expect(attack.locator(".odds-line")).to_have_attribute("data-odds-clash", "9/10")
    _roll_until(attack, sable, "attack", "clash")
    expect(attack.locator(".roll-result")).to_contain_text("Clash")

    # Bad input: two deflect dice at level 1 is refused with a sentence, and nothing changes.
    sable.refresh_from_db()
    before_state = dict(sable.state)
    damage = player_page.locator('.roll-control[data-procedure="take_damage"]')
    _open(damage)
    damage.locator("#id_take_damage-damage").fill("5")
    damage.locator("#id_take_damage-deflect").fill("2")
    expect(damage.locator(".odds-box")).to_contain_text("At level 1 you may roll at most 1 deflect die.")
    sable.refresh_from_db()
    assert sable.state == before_state
