"""A roll made from Discord (the stand-in signs and posts it to the running server, as Discord would) shows on the
player's open sheet and the GM's table without a reload, and the sheet's odds are the ones Discord answered (issue
43)."""

from __future__ import annotations

import random

import httpx
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Roll
from characters.services import character_create
from discord.models import ChannelLink, UserLink
from tests.browser.conftest import log_in, show_part
from tests.browser.test_accessibility import check
from tests.discord import standin

PASSWORD = "lantern-light-42"


def test_a_roll_from_discord_shows_live_on_the_sheet_and_the_table(new_page, live_url, django_user_model):
    gm = django_user_model.objects.create_user("gm_discord", password=PASSWORD)
    player = django_user_model.objects.create_user("player_discord", password=PASSWORD)
    campaign = Campaign.objects.create(name="Discord Table", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )

    def post(path: str, body: bytes, headers: dict[str, str]) -> tuple[int, dict]:
        answer = httpx.post(live_url + path, content=body, headers=headers, timeout=30)
        return answer.status_code, answer.json()

    discord = standin.Discord(post)
    ChannelLink.objects.create(campaign=campaign, channel_id=discord.channel_id, linked_by=gm)

    sheet = new_page()
    log_in(sheet, "player_discord", PASSWORD)
    # The player links their Discord user with the code their account's Discord page shows once
    sheet.locator(".account-menu summary").click()
    sheet.get_by_role("link", name="Discord", exact=True).click()
    sheet.get_by_role("button", name="Make a link code").click()
    code = sheet.locator("[data-code]").inner_text().removeprefix("/lantern link ")
    check(sheet, "Discord account page with a code")
    linked = discord.command("player_discord", "lantern", "link", code=code)
    assert linked.content == "Linked: you play as player\\_discord on Lantern." and linked.ephemeral
    assert UserLink.objects.get().user == player
    sheet.goto(f"/characters/{hero.pk}/")
    table = new_page()
    log_in(table, "gm_discord", PASSWORD)
    table.goto(f"/campaigns/{campaign.pk}/")
    sheet.wait_for_timeout(1000)  # both streams open

    odds = discord.command("player_discord", "odds", procedure="test", inputs="ability=BOD")
    show_part(sheet, "roll")
    shown = sheet.locator("details[data-procedure=test] .odds-line").first.get_attribute("data-odds-pass")
    assert f"pass {shown} " in odds.content

    answer = discord.command("player_discord", "roll", procedure="test", inputs="ability=BOD")
    assert answer.status == 200 and answer.json["type"] == 4 and not answer.ephemeral
    roll = Roll.objects.filter(character=hero, procedure="test").latest("pk")
    for page in (sheet, table):
        expect(page.locator(f'#log [data-roll="{roll.pk}"]')).to_have_count(1)
    expect(sheet.locator(f'#log [data-roll="{roll.pk}"]')).to_contain_text(roll.outcome)
