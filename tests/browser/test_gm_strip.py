"""The GM's strip (issue 36 item 5): one compact line per PC at 1280 (name, each track as a bar, conditions as
chips) with the table's light beside the party; a table of 6 fits with no scroll of its own and no card cut; a
dying PC and the dark are in view on the strip; on a phone the Party part shows the same chips."""

from __future__ import annotations

import os
import random

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from campaigns.session.clock import set_daylight
from characters.models import Character
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

pytestmark = pytest.mark.browser
PASSWORD = "lantern-light-42"
NAMES = ("Wren", "Ash", "Moss", "Flint", "Sorrel", "Bramble")
STRIP = """() => { const strip = document.querySelector('.table-strip');
  const bottom = strip.getBoundingClientRect().bottom;
  const cards = [...strip.querySelectorAll('.character-card')].map((card) => {
    const box = card.getBoundingClientRect();
    const line = card.querySelector('.card-line').getBoundingClientRect();
    return {height: Math.round(box.height), line: Math.round(line.height), cut: box.bottom > bottom + 1}; });
  const height = Math.round(strip.getBoundingClientRect().height);
  return {scrolls: strip.scrollHeight > strip.clientHeight + 1, height, cards}; }"""


def _table(django_user_model, players: int) -> tuple[Campaign, list[Character]]:
    gm = django_user_model.objects.create_user("gm_s", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    heroes = []
    for n, name in enumerate(NAMES[:players]):
        player = django_user_model.objects.create_user(f"p_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=campaign, user=player)
        hero, _ = character_create(
            owner=player, system="chaos-conquest", choices={"name": name}, campaign=campaign, rng=random.Random(n)
        )
        heroes.append(hero)
    dying = heroes[0]
    dying.state = {**dying.state, "status": "dying"}
    dying.save(update_fields=["state"])
    set_daylight(campaign_id=campaign.pk, daylight=False)  # no lit light at the table: darkness
    return campaign, heroes


@pytest.mark.parametrize("players", [4, 6])
def test_every_pc_is_one_line_on_the_strip_with_its_conditions_and_the_dark_in_view(
    new_page, django_user_model, players
):
    campaign, heroes = _table(django_user_model, players)
    page = new_page(1280, 800)
    log_in(page, "gm_s", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    strip = page.locator(".table-strip")
    expect(strip.locator(f"#card-{heroes[0].pk} [data-condition]", has_text="dying")).to_be_in_viewport()
    expect(strip.locator("[data-party-light='darkness']")).to_be_in_viewport()
    figures = page.evaluate(STRIP)
    if os.environ.get("LANTERN_SCREENSHOTS"):
        page.screenshot(path=os.path.join(os.environ["LANTERN_SCREENSHOTS"], f"strip-{players}-1280.png"))
    if os.environ.get("LANTERN_SCREENSHOTS"):
        page.screenshot(path=os.path.join(os.environ["LANTERN_SCREENSHOTS"], f"strip-{players}-1280.png"))
    assert not figures["scrolls"], figures
    assert all(not card["cut"] and card["height"] <= 48 for card in figures["cards"]), figures
    assert figures["height"] <= 110 + 40 * players, figures  # the clock, the light, a line per PC
    # Details on tap: "More" opens the rest of the card under its line.
    card = strip.locator(f"#card-{heroes[1].pk}")
    card.locator(".card-more > summary").click()
    expect(card.locator(".card-more")).to_have_attribute("open", "")
    expect(card.locator(".track").nth(0)).to_be_visible()


def test_a_change_keeps_the_line_and_the_daylight_chip_comes_live(new_page, django_user_model):
    campaign, heroes = _table(django_user_model, 4)
    page = new_page(1280, 800)
    log_in(page, "gm_s", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    card = page.locator(f"#card-{heroes[2].pk}")
    before = card.locator("[data-track] [data-value]").first.inner_text()
    card.locator("[data-track] button[value='-1']").first.click()
    expect(card.locator("[data-track] [data-value]").first).not_to_have_text(before)
    expect(card.locator("[data-track] meter").first).to_have_attribute("value", str(max(0, int(before) - 1)))
    page.locator("#time").get_by_role("button", name="Back in daylight").click()
    expect(page.locator(".table-strip [data-party-light='daylight']")).to_be_visible()


def test_on_a_phone_the_party_part_shows_the_chips(new_page, django_user_model):
    campaign, heroes = _table(django_user_model, 4)
    page = new_page(375, 812)
    log_in(page, "gm_s", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    show_part(page, "party")
    expect(page.locator(f"#card-{heroes[0].pk} [data-condition]", has_text="dying")).to_be_visible()
    expect(page.locator(".table-strip [data-party-light='darkness']")).to_be_visible()
