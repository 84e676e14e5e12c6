"""Requests as a player meets them (issue 36 item 8), on a phone and at 1280: three requests make one card with
"1 of 3", answering it brings the next and folds the answered away; a player on the table page is prompted too,
and "Roll it" opens the sheet at the request with its button focused; the GM's Ask button names the roll."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

pytestmark = pytest.mark.browser
PASSWORD = "lantern-light-42"
SIZES = {"phone": (375, 812), "desktop": (1280, 800)}


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_r", password=PASSWORD)
    player = django_user_model.objects.create_user("player_r", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="chaos-conquest", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(3)
    )
    return campaign, hero


def _ask(gm, attribute: str) -> None:
    form = gm.locator("#request-form")
    form.locator("#request-inputs > summary").click()
    form.get_by_label("Attribute").select_option(attribute)
    form.get_by_role("button", name="Ask for Save").click()
    expect(gm.locator("#requests")).to_contain_text(f"Attribute {attribute}")


@pytest.mark.parametrize("size", SIZES)
def test_three_requests_come_one_card_at_a_time(new_page, django_user_model, size):
    campaign, hero = _table(django_user_model)
    gm = new_page(*SIZES["desktop"])
    log_in(gm, "gm_r", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    player = new_page(*SIZES[size])
    log_in(player, "player_r", PASSWORD)
    player.goto(f"/characters/{hero.pk}/")
    show_part(player, "roll")
    for attribute in ("DEX", "STR", "WIL"):
        _ask(gm, attribute)
    region = player.locator("#sheet-requests")
    expect(region.locator("[data-request-position]")).to_have_text("1 of 3")
    expect(region.locator("form.roll-request")).to_have_count(1)
    expect(region).to_contain_text("Attribute WIL")  # the newest, which the prompt named
    region.get_by_role("button", name="Older ›").click()
    expect(region.locator("[data-request-position]")).to_have_text("2 of 3")
    expect(region).to_contain_text("Attribute STR")
    region.get_by_role("button", name="Roll Save").click()
    expect(region.locator("[data-request-position]")).to_have_text("1 of 2")
    expect(region.locator(".answered-fold")).to_contain_text("Answered (1)")
    expect(region.locator(".answered-fold .answered")).to_be_hidden()  # folded away under the one waiting
    # Measured in the page in one step: a push landing that moment swaps the region in place (no detached read).
    height = region.evaluate("region => region.getBoundingClientRect().height")
    assert height < SIZES[size][1]  # one card, not a pile of them


@pytest.mark.parametrize("size", SIZES)
def test_a_player_on_the_table_page_is_prompted_and_roll_it_opens_the_sheet_at_the_request(
    new_page, django_user_model, size
):
    campaign, hero = _table(django_user_model)
    gm = new_page(*SIZES["desktop"])
    log_in(gm, "gm_r", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    player = new_page(*SIZES[size])
    log_in(player, "player_r", PASSWORD)
    player.goto(f"/campaigns/{campaign.pk}/")
    expect(gm.locator('[data-username="player_r"][data-present]')).to_be_visible()
    _ask(gm, "DEX")
    toast = player.locator("#request-toast")
    expect(toast).to_be_in_viewport()
    expect(toast).to_contain_text("The GM asks Wren for a roll: Save")
    toast.get_by_role("link", name="Roll it").click()
    player.wait_for_url(f"**/characters/{hero.pk}/#sheet-requests")
    answer = player.locator("#sheet-requests button[data-answer]")
    expect(answer).to_be_focused()
    expect(answer).to_be_in_viewport()
    answer.click()
    expect(player.locator("#sheet-requests .answered-fold")).to_contain_text("Answered (1)")
    expect(gm.locator('#requests [data-answer="Wren"]')).to_have_attribute("data-state", "rolled")
