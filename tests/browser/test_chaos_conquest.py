"""A Chaos & Conquest player on a phone pushes a save and goes to Death's door; the GM's table follows live."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Item
from characters.services import character_create
from rules.systems.chaos_conquest import SYSTEM
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_cc", password=PASSWORD)
    player = django_user_model.objects.create_user("player_cc", password=PASSWORD)
    campaign = Campaign.objects.create(name="The Barrow Road", system="chaos-conquest")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="chaos-conquest", choices={"name": "Brannoc"}, campaign=campaign, rng=random.Random(7)
    )
    # A known sheet: STR 12 (12 slots), stamina 4, a dagger and two Supplies (3 slots), no armour.
    state = SYSTEM.validate_state(
        {
            **hero.state,
            "attributes": {a: {"current": s, "base": s} for a, s in (("STR", 12), ("DEX", 10), ("WIL", 13))},
            "stamina": 4,
            "stamina_max": 4,
            "faction": "Law",
        }
    )
    hero.state = state
    hero.save(update_fields=["state"])
    hero.items.all().delete()
    Item.objects.create(character=hero, name="Supply", quantity=2, data={"supply": True}, position=1)
    Item.objects.create(character=hero, name="Dagger", kind="weapon", data={"damage": 6}, position=2)
    return campaign, hero


def test_a_pushed_save_and_deaths_door_reach_the_gms_table_live(new_page, django_user_model):
    campaign, hero = _table(django_user_model)
    gm_page = new_page()
    log_in(gm_page, "gm_cc", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    card = gm_page.locator(f"#card-{hero.pk}")
    expect(card.locator("[data-track=stress] [data-value]")).to_have_text("0")
    expect(gm_page.locator("#cc-gm-tools")).to_be_visible()

    player_page = new_page(width=375, height=800)  # a phone
    log_in(player_page, "player_cc", PASSWORD)
    player_page.goto(f"/characters/{hero.pk}/")
    expect(gm_page.locator('[data-username="player_cc"][data-present]')).to_be_visible()
    expect(player_page.locator("[data-cc=faction]")).to_contain_text("Law")
    expect(player_page.locator("#details [data-slot=stress]")).to_have_count(0)

    # Push a STR save: advantage for a stress, which takes an empty slot (seed 002, Pushing a Character).
    show_part(player_page, "roll")
    save = player_page.locator('.roll-control[data-procedure="save"]')
    save.locator("#id_save-attribute").select_option("STR")
    save.get_by_label("Push: take a stress for advantage").check()
    expect(save.locator(".odds-line")).to_have_attribute("data-odds", "21/25")  # 1 - (8/20)^2
    save.get_by_role("button", name="Roll", exact=True).click()
    # The result shows where the roll was made, and the push unticks itself (it cost a stress).
    expect(save.locator(".roll-result")).to_contain_text("Pushed: 1 stress.")
    expect(save.get_by_label("Push: take a stress for advantage")).not_to_be_checked()
    expect(player_page.locator("#log")).to_contain_text("Pushed: 1 stress.")
    expect(player_page.locator("#details [data-slot=stress]")).to_have_count(1)
    expect(player_page.locator("#details [data-slot=empty]")).to_have_count(8)

    # The GM's card follows without a reload, within about a second.
    expect(card.locator("[data-track=stress] [data-value]")).to_have_text("1")
    expect(card).to_contain_text("Stress fills 1 slot(s)")
    expect(gm_page.locator("#log")).to_contain_text("Pushed: 1 stress.")

    # Seven damage against 4 stamina: Death's door, where the d6 decides (seed 002, Stamina & Death).
    damage = player_page.locator('.roll-control[data-procedure="take_damage"]')
    damage.locator("summary").click()
    damage.locator("#id_take_damage-amount").fill("7")
    expect(damage.locator(".odds-line")).to_have_attribute("data-odds-dies", "1/2")
    damage.get_by_role("button", name="Roll", exact=True).click()  # 1 damage applies; at 7 the d6 decides
    expect(damage.locator(".roll-result")).to_contain_text("Death's door:")
    hero.refresh_from_db()
    assert hero.state["stamina"] == -3 and hero.state["status"] in ("dying", "dead")
    banner = player_page.locator("[data-cc-status]")
    expect(banner).to_have_attribute("data-cc-status", hero.state["status"])
    # The card reads 0, as the sheet does: nobody has -3 stamina (issue 26, Track.shown).
    expect(card.locator("[data-track=stamina] [data-value]")).to_have_text("0")
    if hero.state["status"] == "dead":
        expect(card).to_contain_text("Dead")
        return
    expect(card).to_contain_text("Unconscious and dying")

    # Resolve it: magic closes the wounds; they wake with 1 stamina and a scar.
    treat = player_page.locator('.roll-control[data-procedure="treat"]')
    treat.locator("summary").click()
    treat.locator("#id_treat-method").select_option("magic")
    expect(treat.locator(".odds-line")).to_have_attribute("data-odds", "1/1")
    treat.get_by_role("button", name="Apply", exact=True).click()  # magic saves for certain: no dice decide it
    expect(banner).to_have_attribute("data-cc-status", "fine")
    show_part(player_page, "sheet")
    expect(player_page.locator("[data-cc=scars]")).to_be_visible()
    expect(card.locator("[data-track=stamina] [data-value]")).to_have_text("1")
    expect(card).not_to_contain_text("dying")
    hero.refresh_from_db()
    assert (hero.state["status"], hero.state["stamina"], len(hero.state["scars"])) == ("fine", 1, 1)
