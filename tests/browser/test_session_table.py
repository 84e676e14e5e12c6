"""A whole session from the GM's table in three browsers (issue 16): a requested save answered from two sheets,
two rounds of a fight with an NPC, the end-of-combat rolls asked of the players, torches burning live, and the
darkness they leave reaching every sheet live."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Item
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_s", password=PASSWORD)
    campaign = Campaign.objects.create(name="Barrowmoor", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    heroes = []
    for name, seed in (("Wren", 7), ("Ash", 11)):
        player = django_user_model.objects.create_user(f"player_{name.lower()}", password=PASSWORD)
        Membership.objects.create(campaign=campaign, user=player)
        hero, _ = character_create(
            owner=player, system="chaos-conquest", choices={"name": name}, campaign=campaign, rng=random.Random(seed)
        )
        heroes.append(hero)
    Item.objects.create(
        character=heroes[0],
        name="Pitch torch",
        kind="light",
        quantity=2,
        data={"lp": 2, "turns": 6, "lit": True},
        position=99,
    )
    return campaign, heroes


def test_a_session_run_from_the_table_reaches_every_sheet_live(new_page, django_user_model):
    campaign, (wren, ash) = _table(django_user_model)
    gm = new_page(width=1280, height=900)
    log_in(gm, "gm_s", PASSWORD)
    gm.goto(f"/campaigns/{campaign.pk}/")
    players = {}
    for hero in (wren, ash):
        page = new_page(width=375, height=812)
        log_in(page, f"player_{hero.name.lower()}", PASSWORD)
        page.goto(f"/characters/{hero.pk}/")
        players[hero.name] = page
    for username in ("player_wren", "player_ash"):
        expect(gm.locator(f'[data-username="{username}"][data-present]')).to_be_visible()

    # The GM asks everyone for a DEX save; each player answers from the sheet in one tap.
    form = gm.locator("#request-form")
    expect(form.get_by_label("Roll")).to_have_value("save")  # the first roll a player makes: no refetch needed
    form.get_by_text("Inputs you set for everyone").click()  # folded: most requests leave them to the players
    form.get_by_label("Attribute").select_option("DEX")
    form.get_by_role("button", name="Ask").click()
    expect(gm.locator("#requests")).to_contain_text("Attribute DEX")
    for name, page in players.items():
        request = page.locator("#sheet-requests form.roll-request")
        expect(request).to_contain_text("Attribute DEX")
        request.get_by_role("button", name="Roll Save").click()
        expect(page.locator("#sheet-requests [data-answered]")).to_be_visible()
        expect(gm.locator(f'#requests [data-answer="{name}"]')).to_have_attribute("data-state", "rolled")
    expect(gm.locator("#requests .group-result")).to_contain_text("The party")

    # Two rounds of a fight with one ghoul: damage, a morale prompt, the GM's morale roll.
    encounter = gm.locator("#encounter")
    encounter.get_by_role("button", name="Start a fight").click()
    expect(encounter.locator("[data-encounter-round]")).to_have_text("1")
    encounter.locator("summary").click()
    encounter.get_by_label("Name").fill("Ghoul")
    encounter.get_by_label("Stamina").fill("8")
    encounter.locator("#id_npc_av").fill("0")
    encounter.get_by_role("button", name="Add to the fight").click()
    ghoul = encounter.locator('[data-npc="Ghoul"]')
    expect(ghoul).to_contain_text("Stamina 8")
    ghoul.get_by_label("Damage to Ghoul").fill("5")
    ghoul.get_by_role("button", name="Damage Ghoul").click()
    expect(ghoul.locator("[data-prompt]")).to_contain_text("morale check")
    expect(ghoul).to_contain_text("Stamina 3")
    ghoul.get_by_role("button", name="Ghoul: Morale").click()
    expect(gm.locator("#log")).to_contain_text("Ghoul: Morale")
    encounter.get_by_role("button", name="Next round").click()
    expect(encounter.locator("[data-encounter-round]")).to_have_text("2")

    # Ending it asks each player for the end-of-combat roll (C&C wear and ammunition).
    encounter.get_by_role("button", name="End the fight").click()
    for page in players.values():
        expect(page.locator("#sheet-requests")).to_contain_text("End of combat")

    # Three turns pass: Wren's lit torch burns down on her sheet without a reload.
    wren_page = players["Wren"]
    show_part(wren_page, "gear")
    time = gm.locator("#time")
    time.get_by_label("Unit").select_option("turn")
    time.get_by_label("How many").fill("3")
    time.get_by_role("button", name="Let time pass").click()
    # The fight's two 20-second rounds burned a minute of it already (a fight's minutes burn light too).
    expect(wren_page.locator('[data-item="Pitch torch"]')).to_contain_text("burned 31")
    expect(time.locator("[data-light]")).to_contain_text("Daylight")

    # Underground, the party's light counts: bright with the torch, then darkness on every sheet, live, once it
    # burns out (equipment.md, Light: saves at disadvantage, which the sheet now applies and says).
    time.get_by_role("button", name="The party is in the dark").click()
    expect(time.locator("[data-light]")).to_contain_text("Bright light")
    show_part(wren_page, "sheet")
    expect(wren_page.locator('[data-banner="light-darkness"]')).to_have_count(0)
    time.get_by_label("How many").fill("3")
    time.get_by_role("button", name="Let time pass").click()
    expect(time.locator("[data-light]")).to_contain_text("Darkness")
    expect(wren_page.locator('[data-banner="light-darkness"]')).to_be_visible()
    expect(players["Ash"].locator('[data-banner="light-darkness"]')).to_have_count(1)
