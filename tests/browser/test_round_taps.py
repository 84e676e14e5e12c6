"""What a round costs a person (issue 36's figures), on a phone and at 1280: the GM runs one round of a fight with
4 PCs and 3 NPCs (each NPC attacks a PC from its row, then Next turn to the next round) and a player answers a
request from the table page. Taps are counted as the person makes them; scrolling is what the page moved to bring
each control into reach (Playwright scrolls as a person would). LANTERN_MEASURE=<file> writes the figures."""

from __future__ import annotations

import json
import os
import random

import pytest
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect

from campaigns import session
from campaigns.models import Campaign, Membership
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

pytestmark = pytest.mark.browser
PASSWORD = "lantern-light-42"
SIZES = {"phone": (375, 812), "desktop": (1280, 800)}
NAMES = ("Wren", "Ash", "Moss", "Flint")


class Person:
    """A page with a tally of the taps made on it and the pixels it scrolled to reach them."""

    def __init__(self, page):
        self.page, self.taps, self.scrolled = page, 0, 0

    def tap(self, locator, *, option: str | None = None) -> None:
        before = self.page.evaluate("window.scrollY")
        try:
            locator.scroll_into_view_if_needed()
        except PlaywrightError:  # the region was redrawn by a push meanwhile: its new copy is the one to reach
            locator.scroll_into_view_if_needed()
        self.scrolled += abs(self.page.evaluate("window.scrollY") - before)
        if option is None:
            locator.click()
        else:
            locator.select_option(label=option)
        self.taps += 1


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_round", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    heroes = []
    for n, name in enumerate(NAMES):
        player = django_user_model.objects.create_user(f"p_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=campaign, user=player)
        hero, _ = character_create(
            owner=player, system="chaos-conquest", choices={"name": name}, campaign=campaign, rng=random.Random(n)
        )
        heroes.append(hero)
    return gm, campaign, heroes


def _measured(what: str, size: str, person: Person) -> None:
    if os.environ.get("LANTERN_MEASURE"):
        with open(os.environ["LANTERN_MEASURE"], "a") as out:
            out.write(json.dumps({"what": what, "size": size, "taps": person.taps, "scrolled": person.scrolled}) + "\n")


@pytest.mark.parametrize("size", SIZES)
def test_the_gm_runs_a_round_of_four_pcs_and_three_npcs(new_page, django_user_model, size):
    gm_user, campaign, heroes = _table(django_user_model)
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm_user, rng=random.Random(2))
    for _ in range(3):
        session.npc_add(campaign_id=campaign.pk, name="Goblin", stats={"stamina": 4, "av": 0, "damage": "6"})
    page = new_page(*SIZES[size])
    log_in(page, "gm_round", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    gm = Person(page)
    if page.locator('.table-tabs a[data-part="fight"]').is_visible():
        gm.tap(page.locator('.table-tabs a[data-part="fight"]'))
    for n in range(3):
        row = page.locator(f'#encounter [data-npc="Goblin {n + 1}"]')
        gm.tap(row.get_by_label(f"Goblin {n + 1}'s target"), option=NAMES[n])
        gm.tap(row.get_by_role("button", name=f"Goblin {n + 1}: Attack"))
        expect(page.locator("#log")).to_contain_text(f"Goblin {n + 1} attacks {NAMES[n]}")
    strip = page.locator("#clock")
    steps = int(strip.locator("[data-whose-turn]").inner_text().split(" of ")[1].split(")")[0])
    for _ in range(steps):  # each step of the system's order, then the next round
        gm.tap(strip.get_by_role("button", name="Next turn"))
    expect(strip).to_contain_text("Combat: round 2")
    _measured("GM: one round, 4 PCs and 3 NPCs", size, gm)
    assert gm.taps <= 3 * 2 + 3 + (1 if size == "phone" else 0)
    # After an NPC's attack the page is found scrolled to its foot, and the next row is scrolled back to (about
    # 650 px at 1280): a fault for a later issue, bounded here so it grows no worse (1,402 px at 1280 once the
    # header gained the party's print link and issues 40-41's regions, from 1,400: the bound allows that much).
    assert gm.scrolled <= (2400 if size == "phone" else 1450)


@pytest.mark.parametrize("size", SIZES)
def test_a_player_answers_a_request_from_the_table_page(new_page, django_user_model, size):
    gm_user, campaign, heroes = _table(django_user_model)
    gm_page = new_page(*SIZES["desktop"])
    log_in(gm_page, "gm_round", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    page = new_page(*SIZES[size])
    log_in(page, "p_wren", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    show_part(page, "log")  # the player is reading the log when the GM asks
    expect(gm_page.locator('[data-username="p_wren"][data-present]')).to_be_visible()
    form = gm_page.locator("#request-form")
    form.get_by_role("checkbox", name="Ash").uncheck()
    form.get_by_role("checkbox", name="Moss").uncheck()
    form.get_by_role("checkbox", name="Flint").uncheck()
    form.get_by_role("button", name="Ask for Save").click()
    player = Person(page)
    player.tap(page.locator("#request-toast").get_by_role("link", name="Roll it"))
    page.wait_for_url(f"**/characters/{heroes[0].pk}/#sheet-requests")
    expect(page.locator("#sheet-requests button[data-answer]")).to_be_focused()
    player.tap(page.locator("#sheet-requests button[data-answer]"))
    expect(page.locator("#sheet-requests .answered-fold")).to_contain_text("Answered (1)")
    expect(gm_page.locator('#requests [data-answer="Wren"]')).to_have_attribute("data-state", "rolled")
    _measured("player: a request answered from the table page", size, player)
    assert player.taps == 2 and player.scrolled == 0
