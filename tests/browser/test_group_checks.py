"""Group checks (issue 40), in Chromium at 1280×800: the GM picks a party save as a group check, sees the group's
exact chance and what the dark would make of it, asks; a player's answer arrives live on the GM's panel; the GM
rolls for the other player, and the group's one line appears in the log without a reload."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.browser.conftest import log_in
from tests.browser.test_command_centre import PASSWORD, _table


def test_the_gm_asks_a_group_check_and_the_answers_and_the_groups_line_arrive_live(new_page, django_user_model):
    campaign, heroes = _table(django_user_model, players=2, npcs=0)
    player = new_page(width=1280, height=800)
    log_in(player, "player_wren", PASSWORD)
    player.goto(f"/characters/{heroes[0].pk}/")
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    form = gm.locator("#request-form")
    expect(form.locator("#id_request_procedure")).to_have_value("save")
    form.locator("#id_request_rule").select_option("system")
    group = form.locator('#request-odds [data-party-odds="rule"]')
    expect(group).to_have_attribute("data-rule", "system")
    expect(group).to_contain_text("%")
    form.locator('[data-what-if="dark"]').click()
    what_if = form.locator("#what-if [data-what-if-group]")
    expect(what_if).to_contain_text("→")
    assert what_if.get_attribute("data-before") == group.get_attribute("data-group-odds")
    form.get_by_role("button", name=re.compile("^Ask")).click()

    prompt = player.locator("#sheet-requests form.roll-request")
    expect(prompt).to_be_visible()
    prompt.get_by_role("button", name=re.compile("^Roll Save")).click()
    expect(gm.locator('#requests [data-answer="Wren"]')).to_have_attribute("data-state", "rolled")  # live, no reload
    gm.get_by_role("button", name="Roll for Ash").click()
    expect(gm.locator('#requests [data-answer="Ash"] [data-for-player]')).to_be_visible()
    expect(gm.locator("#requests .group-result")).to_contain_text("Wren")
    expect(gm.locator("#log")).to_contain_text("Group check: Save")
    expect(player.locator("body")).to_contain_text("Group check: Save")  # the player's open sheet, live
