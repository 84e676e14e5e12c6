"""Fortune's Favor, issue 30: the GM's tracker rolls a character's area attack (Elementalist 1, Elemental Burst)
on two NPCs in Chromium; the tracker swaps in place with what each NPC took, and the log shows the roll."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns import session
from campaigns.models import Campaign, Membership, Npc
from characters.services import character_create
from tests.browser.conftest import log_in

PASSWORD = "lantern-light-42"
NPC = {"health": 30, "stamina": 0, "armor": 1, "counter": 0, "attack": 2, "damage": "1d6", "damage_bonus": 0}


def test_the_gm_rolls_an_elemental_burst_on_two_npcs(new_page, django_user_model):
    gm = django_user_model.objects.create_user("gm_burst", password=PASSWORD)
    player = django_user_model.objects.create_user("player_burst", password=PASSWORD)
    campaign = Campaign.objects.create(name="Thistle Road", system="fortunes-favor")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    character_create(
        owner=player,
        system="fortunes-favor",
        choices={"name": "Wren", "class": "ELEMENTALIST"},
        campaign=campaign,
        rng=random.Random(7),
    )
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)
    for _ in range(2):
        session.npc_add(campaign_id=campaign.pk, name="Bandit", stats=NPC)
    page = new_page(width=1280, height=800)
    log_in(page, "gm_burst", PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    page.locator("#encounter details.pc-attack summary").click()  # folded: the fight's rows come first
    form = page.locator("#encounter [data-pc-attack]")
    form.get_by_label("Who attacks").select_option(label="Wren")
    form.get_by_label("Bandit 1").check()
    form.get_by_label("Bandit 2").check()
    form.get_by_label("Class feature (optional)").fill("Elemental Burst")
    form.get_by_role("button", name="Attack").click()
    expect(page.locator("#log")).to_contain_text("Area attack")
    hit = Npc.objects.filter(encounter__campaign=campaign, stats__health__lt=30).count()
    natural_one = hit == 0  # Armor 1: only a natural 1 misses both
    if not natural_one:
        expect(page.locator('#encounter [data-npc="Bandit 1"] [data-prompt]')).to_contain_text("Wren:")
