"""Issue 26, the player's sheet in Chromium on every system, on a phone (375×812) and a desktop (1280×800): a tap
on a stat or a weapon opens its roll with its inputs filled, in view; the sheet prints on at most 2 A4 pages."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Item
from characters.services import character_create
from rules import SYSTEMS
from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"
SIZES = {"phone": (375, 812), "desktop": (1280, 800)}


def _hero(django_user_model, system: str):
    gm = django_user_model.objects.create_user("gm_words", password=PASSWORD)
    player = django_user_model.objects.create_user("player_words", password=PASSWORD)
    campaign = Campaign.objects.create(name="The Lantern Road", system=system)
    Membership.objects.create(campaign=campaign, user=gm, role="gm")
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system=system, choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    return hero


def _in_view(page, locator) -> bool:
    box = locator.bounding_box()
    height = page.viewport_size["height"]
    return box is not None and box["y"] < height and box["y"] + min(box["height"], 40) > 0


@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("system", list(SYSTEMS))
def test_tapping_a_stat_or_a_weapon_opens_its_roll_filled_in_and_in_view(new_page, django_user_model, system, size):
    hero = _hero(django_user_model, system)
    page = new_page(*SIZES[size])
    log_in(page, "player_words", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")

    # The last stat, so its input is not the form's default.
    stat = page.locator(".stat-grid a.roll-here").last
    expect(stat).to_be_visible()
    procedure = stat.get_attribute("data-roll-to")
    name, value = next(
        (a.removeprefix("data-set-"), v)
        for a, v in stat.evaluate("b => [...b.attributes].map(a => [a.name, a.value])")
        if a.startswith("data-set-") and v not in ("", "on")
    )
    stat.click()
    control = page.locator(f'.roll-panel .roll-control[data-procedure="{procedure}"]')
    expect(control).to_have_attribute("open", "")
    field = control.locator(f'[name="{procedure}-{name}"]')
    expect(field).to_have_value(value)
    expect(control.locator(".odds-line").first).to_be_visible()
    assert _in_view(page, control.locator("form")), "the roll opened out of view"
    if size == "phone":
        expect(page.locator("#part-roll")).to_be_visible()
        expect(page.locator("#part-sheet")).to_be_hidden()

    # A weapon in the inventory opens the attack with that weapon picked.
    weapon = page.locator("#inventory a.roll-here")
    if weapon.count():
        if size == "phone":
            page.locator('.section-tabs a[data-part="gear"]').click()
        first = weapon.first
        item = first.get_attribute("data-set-weapon") or first.get_attribute("data-set-weapons")
        first.click()
        attack = page.locator('.roll-panel .roll-control[data-procedure="attack"]')
        expect(attack).to_have_attribute("open", "")
        picked = attack.locator(f'select[name^="attack-weapon"], input[name="attack-weapons"][value="{item}"]').first
        if picked.evaluate("e => e.tagName") == "SELECT":
            expect(picked).to_have_value(item)
        else:
            expect(picked).to_be_checked()
        expect(attack.locator(".odds-line").first).to_be_visible()
        assert _in_view(page, attack.locator("form"))


def _pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page[^s]", pdf))


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_the_sheet_prints_on_at_most_two_a4_pages_without_controls(new_page, django_user_model, system):
    """A sheet well filled: its starting kit and a dozen more things carried."""
    hero = _hero(django_user_model, system)
    start = hero.items.count()
    Item.objects.bulk_create(
        Item(character=hero, name=f"Keepsake {n}", kind="gear", slots=0, position=start + n) for n in range(12)
    )
    page = new_page(*SIZES["desktop"])
    log_in(page, "player_words", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    expect(page.locator("#vitals")).to_be_visible()
    expect(page.locator("[data-sheet-problem]")).to_have_count(0)
    page.emulate_media(media="print")
    controls = ("form", "button", "select", ".section-tabs", "#roll-panel", ".sheet-files", ".roll-requests")
    for hidden in (*controls, ".site-header", ".sheet-links"):
        visible = page.locator(hidden).evaluate_all(
            "els => els.filter(e => e.offsetParent !== null && getComputedStyle(e).visibility !== 'hidden').length"
        )
        assert visible == 0, f"{hidden} prints"
    assert "· · ·" not in page.locator("body").inner_text()
    pdf = page.pdf(format="A4", print_background=False)
    count = _pages(pdf)
    print(f"{system}: {count} A4 pages")
    assert 1 <= count <= 2, f"{system} prints on {count} pages"
    # the first page is not empty: the sheet's name and vitals start at its top
    assert page.locator("h1").bounding_box()["y"] < 200
