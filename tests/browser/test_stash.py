"""The party's stash in a real browser (issue 41): a player takes an item from the stash on the table page, and the
GM's open table page shows it gone, live, on a phone and on a desktop."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from campaigns import stash
from campaigns.models import Campaign, Membership, StashItem
from characters.services import character_create
from rules import base as rules_base
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"


@pytest.mark.parametrize(("width", "height"), [(375, 800), (1280, 900)], ids=["phone", "desktop"])
def test_a_player_takes_from_the_stash_and_the_gms_page_shows_it_gone(new_page, django_user_model, width, height):
    gm = django_user_model.objects.create_user("gm_stash", password=PASSWORD)
    player = django_user_model.objects.create_user("player_stash", password=PASSWORD)
    campaign = Campaign.objects.create(name="Hoard", system="fell-late")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="fell-late", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    idol = rules_base.Item(name="Jade idol", kind="treasure", slots=1, quantity=1)
    stash.stash_add_item(campaign_id=campaign.pk, item=idol, by=gm)
    row = StashItem.objects.get(name="Jade idol")

    gm_page = new_page(width=width, height=height)
    log_in(gm_page, "gm_stash", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    show_part(gm_page, "log")
    expect(gm_page.locator(f"#stash-item-{row.pk}")).to_be_visible()

    player_page = new_page(width=width, height=height)
    log_in(player_page, "player_stash", PASSWORD)
    player_page.goto(f"/campaigns/{campaign.pk}/")
    show_part(player_page, "log")
    player_page.locator(f"#stash-item-{row.pk}").get_by_role("button", name="Take").click()
    expect(player_page.locator("#stash")).to_contain_text("Wren took Jade idol from the stash")

    # the GM's page, untouched, shows it gone and the move in the stash's history
    expect(gm_page.locator(f"#stash-item-{row.pk}")).to_have_count(0)
    expect(gm_page.locator("#stash [data-stash-history]")).to_contain_text("Wren took Jade idol from the stash")
    assert hero.items.filter(name="Jade idol").exists()
