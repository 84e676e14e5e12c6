"""Requests with odds before sending (issue 26), in Chromium at 1280×800: the GM picks a roll and its fixed input and
sees each character's exact odds and the party's as they change it; sends; the player's open sheet shows the
prompt with their own odds, one tap from rolling. In the dark, the chip says what the darkness does."""

from __future__ import annotations

import os
import re
from fractions import Fraction

from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.test_command_centre import PASSWORD, _table


def _save(hero, attribute: str) -> str:
    """Seed 002, Saves: a d20 at or under the attribute (a 1 always passes, a 20 always fails)."""
    p = Fraction(min(max(hero.to_sheet().state["attributes"][attribute]["current"], 1), 19), 20)
    return f"{p.numerator}/{p.denominator}"


def test_the_gm_sees_each_characters_odds_sends_and_the_player_sees_theirs(new_page, django_user_model):
    campaign, heroes = _table(django_user_model, players=2, npcs=0)
    player = new_page(width=1280, height=800)
    log_in(player, "player_wren", PASSWORD)
    player.goto(f"/characters/{heroes[0].pk}/")
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    form = gm.locator("#request-form")
    # Save is the first roll the form offers: picking it again would redraw the form under the next clicks.
    expect(form.locator("#id_request_procedure")).to_have_value("save")
    odds = form.locator("#request-odds")
    expect(odds.locator('[data-odds-for="Wren"] .odds')).to_contain_text("%")
    expect(odds.locator('[data-odds-for="Ash"] .odds')).to_contain_text("%")
    expect(odds.locator('[data-party-odds="group"]')).to_contain_text("%")
    form.get_by_text("Inputs you set for everyone").click()  # folded: most requests leave them to the players
    # Each fixed attribute: Wren's exact odds on it, as it is picked (DEX, the default, last: each pick must be
    # answered before the next, or the next fires on a box about to be swapped).
    for attribute in ("STR", "WIL", "DEX"):
        form.locator("#id_request_fix-attribute").select_option(attribute)
        expect(odds.locator('[data-odds-for="Wren"] .odds-line')).to_have_attribute(
            "data-odds", _save(heroes[0], attribute)
        )
    wren_odds = odds.locator('[data-odds-for="Wren"] .odds').inner_text()
    # Ash unticked: only Wren's odds, and no party line.
    form.get_by_label("Ash").uncheck()
    expect(odds.locator('[data-odds-for="Ash"]')).to_have_count(0)
    expect(odds.locator("[data-party-odds]")).to_have_count(0)
    if os.environ.get("LANTERN_SHOT"):
        form.screenshot(path=os.environ["LANTERN_SHOT"])
    form.get_by_role("button", name="Ask").click()

    prompt = player.locator("#sheet-requests form.roll-request")
    expect(prompt).to_be_visible()
    expect(prompt.locator(".odds-box .odds")).to_have_text(wren_odds)
    prompt.get_by_role("button", name=re.compile("^Roll Save")).click()
    expect(gm.locator('#requests [data-answer="Wren"]')).to_have_attribute("data-state", "rolled")


def test_the_darkness_chip_reaches_the_players_open_save_live(new_page, django_user_model):
    """Equipment.md, Light: in darkness saves are at disadvantage; the GM's "in the dark" shows on the player's open
    Save as a chip saying so, without a reload, and leaves with the daylight."""
    campaign, heroes = _table(django_user_model, players=1, npcs=0)
    player = new_page(width=1280, height=800)
    log_in(player, "player_wren", PASSWORD)
    player.goto(f"/characters/{heroes[0].pk}/")
    save = player.locator('details.roll-control[data-procedure="save"]')
    expect(save).to_have_attribute("open", "")
    expect(save.locator(".odds-box .odds")).to_contain_text("%")
    expect(save.locator(".chip")).to_have_count(0)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    expect(gm.locator('[data-username="player_wren"][data-present]')).to_be_visible()
    gm.get_by_role("button", name="The party is in the dark").click()
    chip = save.locator('.chip[data-condition="table-light"]')
    expect(chip).to_contain_text("Dark: ")
    expect(chip).to_contain_text("to succeed")
    if os.environ.get("LANTERN_SHOT"):
        save.screenshot(path=os.environ["LANTERN_SHOT"].replace(".png", "-chip.png"))
    gm.get_by_role("button", name="Back in daylight").click()
    expect(save.locator(".chip")).to_have_count(0)
