"""Real-time play in a real browser (issue 41): the GM starts game time running with the clock; the player's sheet
shows its torch's time left and the time of play ticking by itself; when the server's ticker applies a step (the
test runs the ticker command, with the clock's row moved back: no waiting), the player's page shows the torch
running low without reloading."""

from __future__ import annotations

import random
from datetime import timedelta

from django.core.management import call_command
from django.db.models import F
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"


def test_the_gm_starts_real_time_and_the_players_torch_burns_down_on_their_page(new_page, django_user_model):
    gm = django_user_model.objects.create_user("gm_clock", password=PASSWORD)
    player = django_user_model.objects.create_user("player_clock", password=PASSWORD)
    campaign = Campaign.objects.create(name="Clockwork Vault", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    torch = hero.items.get(kind="light")  # the starting kit's torch (1 hour): 15 minutes of it left, alight
    torch.data = {**torch.data, "lit": True, "burned": 45}
    torch.save(update_fields=["data"])

    player_page = new_page(width=375, height=800)
    log_in(player_page, "player_clock", PASSWORD)
    player_page.goto(f"/characters/{hero.pk}/")
    show_part(player_page, "gear")
    left = player_page.locator(f'#inventory [data-item="{torch.name}"] [data-light-left]')
    expect(left).to_have_attribute("data-light-left", "15")
    expect(left).to_contain_text("15 min of light left")

    gm_page = new_page()
    log_in(gm_page, "gm_clock", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    gm_page.locator("#time details.realtime-start > summary").click()
    gm_page.get_by_role("button", name="Run game time with the clock").click()
    expect(gm_page.locator("[data-realtime-badge]")).to_be_visible()

    # The player's page learns it runs (pushed once) and ticks the time of play by itself.
    clock = player_page.locator("#sheet-fight [data-clock][data-since]")
    expect(clock).to_have_count(1)
    first = clock.text_content()
    expect(clock).not_to_have_text(first or "")  # a second later it moved, with no request made for it

    # Eleven minutes of wall time pass (the row moved back), and the server's ticker applies the step due.
    Campaign.objects.filter(pk=campaign.pk).update(realtime_since=F("realtime_since") - timedelta(minutes=11))
    call_command("clock_ticker", "--once")
    torch.refresh_from_db()
    assert torch.data["burned"] == 55
    expect(left).to_have_attribute("data-light-left", "5")  # pushed: the server read its journal
    expect(left).to_contain_text("Running low")
    expect(left.locator("[data-light-minutes]")).to_have_text("4")  # 15 minutes less the 11 that ran

    gm_page.get_by_role("button", name="Pause game time").click()
    expect(gm_page.locator("[data-realtime-badge]")).to_have_count(0)
    expect(player_page.locator("#sheet-fight [data-clock][data-since]")).to_have_count(0)
