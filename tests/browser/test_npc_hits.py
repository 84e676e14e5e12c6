"""An NPC's hit lands live (issue 26, "Targets and damage that land"): the GM's ghoul attacks Wren from the
encounter tracker; Wren's open sheet shows the new Stamina and the fight within 2 s without a reload, and a
revert from the sheet's history puts it back."""

from __future__ import annotations

import random
import time

from playwright.sync_api import expect

from campaigns import session
from campaigns.models import Campaign, Membership
from characters.models import Character, Roll
from characters.services import character_create
from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_h", password=PASSWORD)
    player = django_user_model.objects.create_user("player_h", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    wren, _ = character_create(
        owner=player, system="chaos-conquest", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)
    session.npc_add(campaign_id=campaign.pk, name="Ghoul", stats={"stamina": 8, "av": 0, "damage": "12", "ml": 9})
    session.npc_add(campaign_id=campaign.pk, name="Ghoul", stats={"stamina": 8, "av": 0, "damage": "12", "ml": 9})
    return campaign, wren


def _harm_rolls(wren) -> int:
    return Roll.objects.filter(character=wren, label__startswith="Ghoul 1 hits Wren").count()


def test_an_npc_hit_reaches_the_players_open_sheet_live_and_undoes(new_page, django_user_model):
    campaign, wren = _table(django_user_model)
    gm = new_page(width=1280, height=800)
    log_in(gm, "gm_h", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    sheet = new_page(width=1280, height=800)
    log_in(sheet, "player_h", PASSWORD)
    sheet.goto(f"/characters/{wren.pk}/")
    expect(gm.locator('[data-username="player_h"][data-present]')).to_be_visible()
    stamina = sheet.locator("[data-track=stamina] [data-value]").first
    before = stamina.inner_text()
    fight = sheet.locator("#sheet-fight")
    expect(fight).to_contain_text("Fight: round 1")

    ghoul = gm.locator('#encounter [data-npc="Ghoul 1"]')  # the second ghoul numbered both
    expect(gm.locator('#encounter [data-npc="Ghoul 2"]')).to_be_visible()
    for _ in range(6):  # a d12 against Wren's AV: it may all be stopped; attack again until some gets through
        ghoul.get_by_label("Ghoul 1's target").select_option(label="Wren")
        count = _harm_rolls(wren)
        ghoul.get_by_role("button", name="Ghoul 1: Attack").click()
        deadline = time.monotonic() + 5
        while _harm_rolls(wren) == count and time.monotonic() < deadline:
            time.sleep(0.05)
        if Character.objects.get(pk=wren.pk).state["stamina"] != wren.state["stamina"]:
            break
    else:
        raise AssertionError("six ghoul attacks and no damage got through")
    after = Character.objects.get(pk=wren.pk)
    shown = str(max(after.state["stamina"], 0)) if before.isdigit() else None
    expect(stamina).not_to_have_text(before)  # pushed: no reload
    if shown is not None and after.state["stamina"] >= 0:
        expect(stamina).to_have_text(shown)
    expect(fight).to_contain_text("Ghoul 1 hit you for")
    expect(gm.locator("#log")).to_contain_text("Ghoul 1 attacks Wren")

    # Undo from the sheet: its history reverts the ghoul's hit, and the sheet reads as before.
    sheet.get_by_role("link", name="History", exact=True).click()
    entry = sheet.locator("li[data-change]", has_text="Ghoul 1 hits Wren").first
    entry.locator("summary").click()
    entry.get_by_label("Why").fill("The ghoul missed after all")
    entry.get_by_role("button", name="Revert").click()
    sheet.goto(f"/characters/{wren.pk}/")
    expect(sheet.locator("[data-track=stamina] [data-value]").first).to_have_text(before)
    assert Character.objects.get(pk=wren.pk).state["stamina"] == wren.state["stamina"]
