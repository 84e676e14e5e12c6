"""The GM's table as a command centre (issue 26): at 1280×800 the party, the encounter, the requests and the log
are within one screen of scrolling and no tool is more than two screens down; on a phone the table comes in parts
of at most two screens each; the GM roll's odds follow typing; a request reaches a player on another part."""

from __future__ import annotations

import json
import os
import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.session.encounters import encounter_start, npc_add
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
REGIONS = (
    "party",
    "clock",
    "encounter",
    "requests",
    "request-form",
    "log",
    "gm-roll",
    "time",
    "notes",
    "summary",
    "table-rolls",
    "members",
    "invite",
)
MEASURE = """(ids) => { const out = {page: document.documentElement.scrollHeight};
  for (const id of ids) { const el = document.getElementById(id); if (!el) continue;
    const box = el.getBoundingClientRect(); out[id] = [Math.round(box.top + window.scrollY), Math.round(box.height)]; }
  return out; }"""


def _table(django_user_model, players: int = 4, npcs: int = 3):
    gm = django_user_model.objects.create_user("gm_c", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    heroes = []
    for n, name in enumerate(("Wren", "Ash", "Moss", "Flint")[:players]):
        player = django_user_model.objects.create_user(f"player_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=campaign, user=player)
        hero, _ = character_create(
            owner=player, system="chaos-conquest", choices={"name": name}, campaign=campaign, rng=random.Random(n)
        )
        heroes.append(hero)
    if npcs:
        encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm, rng=random.Random(1))
        for n in range(npcs):
            npc_add(campaign_id=campaign.pk, name=f"Goblin {n + 1}", stats={"stamina": 5, "av": 1})
    return campaign, heroes


def _measure(page) -> dict:
    figures = page.evaluate(MEASURE, list(REGIONS))
    if os.environ.get("LANTERN_MEASURE"):  # the figures for the note
        with open(os.environ["LANTERN_MEASURE"], "a") as out:
            out.write(json.dumps({"viewport": page.viewport_size, **figures}) + "\n")
    return figures


def test_the_gm_finds_party_encounter_requests_and_log_within_a_screen_at_1280(new_page, django_user_model):
    campaign, _ = _table(django_user_model)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    figures = _measure(gm)
    if os.environ.get("LANTERN_SHOT"):
        gm.screenshot(path=os.environ["LANTERN_SHOT"])
    for region in ("party", "encounter", "requests", "log"):
        assert figures[region][0] < 800, (region, figures)  # starts within one screen of scrolling
    for region in ("gm-roll", "time", "notes", "request-form", "table-rolls"):
        assert figures[region][0] < 1600, (region, figures)
    # The party's vitals stay in view as the GM scrolls down to the notes.
    gm.evaluate("(y) => window.scrollTo(0, y)", figures["notes"][0])
    strip = gm.evaluate("document.querySelector('.table-strip').getBoundingClientRect().top")
    party = gm.evaluate("document.getElementById('party').getBoundingClientRect().top")
    assert gm.evaluate("window.scrollY") > 800 and 0 <= strip < 10 and party < 100, (strip, party)


def test_on_a_phone_the_table_comes_in_parts_of_at_most_two_screens(new_page, django_user_model):
    campaign, _ = _table(django_user_model)
    gm = new_page(width=375, height=812)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    tabs = gm.locator(".table-tabs")
    expect(tabs).to_be_in_viewport()
    heights = {}
    for part in ("party", "fight", "ask", "roll", "time", "log", "notes"):
        show_part(gm, part)
        expect(tabs.locator(f'a[data-part="{part}"]')).to_have_attribute("aria-current", "true")
        heights[part] = _measure(gm)["page"]
        assert heights[part] <= 2 * 812, (part, heights)
    show_part(gm, "fight")
    expect(gm.locator("#encounter")).to_be_visible()
    expect(gm.locator("#log")).to_be_hidden()
    expect(tabs).to_be_in_viewport()  # the bar stays in reach


def test_a_new_gm_sees_the_invite_link_at_the_top_until_a_player_joins(new_page, django_user_model):
    campaign, _ = _table(django_user_model, players=0, npcs=0)
    gm = new_page(width=375, height=812)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    expect(gm.get_by_role("textbox", name="Invite link")).to_be_in_viewport()


def test_the_gm_rolls_odds_follow_typing(new_page, django_user_model):
    campaign, _ = _table(django_user_model, players=1, npcs=0)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    roll = gm.locator("#gm-roll")
    target = roll.get_by_label("Target (reach or beat it)")
    target.fill("")
    target.press_sequentially("4")  # no Tab, no change event
    odds = roll.locator(".odds-box")
    expect(odds).to_contain_text("%")
    before = odds.inner_text()
    roll.get_by_label("Modifier").fill("")
    roll.get_by_label("Modifier").press_sequentially("2")
    expect(odds).not_to_have_text(before)


def test_a_request_reaches_a_player_on_the_gear_part_within_two_seconds(new_page, django_user_model):
    campaign, heroes = _table(django_user_model, players=1, npcs=0)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_c", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    player = new_page(width=375, height=812)
    log_in(player, "player_wren", PASSWORD)
    player.goto(f"/characters/{heroes[0].pk}/")
    show_part(player, "gear")
    player.mouse.wheel(0, 2000)
    expect(gm.locator('[data-username="player_wren"][data-present]')).to_be_visible()

    gm.locator("#request-form").get_by_role("button", name="Ask").click()
    toast = player.locator("#request-toast")
    expect(toast).to_be_in_viewport()
    expect(toast).to_contain_text("The GM asks for a roll")
    expect(player.locator('.section-tabs a[data-part="roll"] .tab-badge')).to_have_text("1")
    toast.get_by_role("button", name="Roll it").click()
    expect(player.locator("#sheet-requests button[data-answer]")).to_be_in_viewport()
    expect(player.locator("#sheet-requests button[data-answer]")).to_be_focused()
