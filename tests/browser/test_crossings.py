"""Where two features cross (issue 36, items 1, 2, 3 and 9), each flow as a person does it, on a phone
(375x812) and a desktop (1280x800), asserting what the page shows as well as the database."""

from __future__ import annotations

import random

import pytest
from django.db.models import F
from django.utils import timezone
from playwright.sync_api import expect

from campaigns import session
from campaigns.models import Campaign, Membership, Npc
from characters.models import Character, Roll
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
VIEWPORTS = pytest.mark.parametrize("viewport", [(375, 812), (1280, 800)], ids=["phone", "desktop"])


def _seat(django_user_model, system: str, name: str, viewport) -> tuple[Campaign, Character, str]:
    """A table of ``system`` with its GM and one player's character; the player's username."""
    tag = f"{system[:4]}{viewport[0]}"
    gm = django_user_model.objects.create_user(f"gm_{tag}", password=PASSWORD)
    player = django_user_model.objects.create_user(f"pl_{tag}", password=PASSWORD)
    campaign = Campaign.objects.create(name=f"{name}'s table", system=system)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system=system, choices={"name": name}, campaign=campaign, rng=random.Random(7)
    )
    return campaign, hero, player.username


@VIEWPORTS
def test_item_3_grit_and_flesh_quick_checks_ask_skill_and_tools_and_the_odds_follow(
    new_page, django_user_model, viewport
):
    """Seed 004 (Attribute Checks): neither skill nor tools cannot succeed; one of them rolls d20 at or under the
    attribute; both succeed outright. A sheet listing neither once showed six quick Checks all answering "cannot
    succeed"; now the quick checks ask with two toggles and each button's odds follow them."""
    _campaign, hero, username = _seat(django_user_model, "grit-flesh", "Ash", viewport)
    attributes = {**hero.state["attributes"], "DEX": 12}
    Character.objects.filter(pk=hero.pk).update(
        state={**hero.state, "attributes": attributes, "skills": [], "tools": []}
    )
    page = new_page(*viewport)
    log_in(page, username, PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    group = page.locator('[data-quick-group="check"]')
    skill, tools = group.get_by_label("You have the skill for it"), group.get_by_label("You have the proper tools")
    dex = group.locator('button[data-quick="DEX"]')
    expect(skill).to_be_checked()
    expect(tools).not_to_be_checked()
    expect(dex.locator("[data-odds]")).to_have_attribute("data-odds", "3/5")  # d20 at or under 12
    expect(dex).to_contain_text("60")
    skill.uncheck()
    expect(group.locator('button[data-quick="DEX"] [data-odds]')).to_have_attribute("data-odds", "0/1")
    expect(group.locator('button[data-quick="DEX"]')).to_contain_text("can't succeed")
    group.get_by_label("You have the proper tools").check()
    expect(group.locator('button[data-quick="DEX"] [data-odds]')).to_have_attribute("data-odds", "3/5")
    group.locator('button[data-quick="DEX"]').click()
    result = page.locator("#quick-result .roll-result")
    expect(result).to_contain_text("against DEX 12")
    roll = Roll.objects.get(character=hero, procedure="check")
    assert roll.outcome in {"pass", "fail"} and roll.inputs.get("tools") and not roll.inputs.get("skill")
    group.get_by_label("You have the skill for it").check()  # both: no roll
    expect(group.locator('button[data-quick="DEX"]')).to_contain_text("sure")
    group.locator('button[data-quick="DEX"]').click()
    expect(result).to_contain_text("without a roll")


@VIEWPORTS
def test_item_9_the_log_says_the_stamina_the_sheet_shows(new_page, django_user_model, viewport):
    """Seed 002 (Stamina & Death): 4 damage on 2 of 6 stamina sends the PC to Death's door; the state counts -2,
    the sheet shows 0, and the log's line now says "stamina 0/6" where it said "stamina -2/6"."""
    _campaign, hero, username = _seat(django_user_model, "chaos-conquest", "Brannoc", viewport)
    Character.objects.filter(pk=hero.pk).update(state={**hero.state, "stamina": 2, "stamina_max": 6})
    hero.items.filter(kind__in=("armour", "helmet", "shield")).delete()
    page = new_page(*viewport)
    log_in(page, username, PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    show_part(page, "roll")
    damage = page.locator('.roll-control[data-procedure="take_damage"]')
    if damage.get_attribute("open") is None:
        damage.locator("summary").click()
    damage.locator("#id_take_damage-amount").fill("4")
    damage.get_by_label("Your AV reduces it").uncheck()
    damage.get_by_role("button", name="Roll", exact=True).click()
    expect(damage.locator(".roll-result")).to_contain_text("4 damage: stamina 0/6.")
    hero.refresh_from_db()
    assert hero.state["stamina"] == -2
    show_part(page, "log")
    expect(page.locator("#log")).to_contain_text("stamina 0/6")
    expect(page.locator("#log")).not_to_contain_text("-2/6")
    show_part(page, "sheet")
    expect(page.locator('#vitals [data-track="stamina"] [data-value]')).to_have_text("0")


GOBLIN = {"stamina": 4, "av": 0, "damage": "6", "ml": 7}


@VIEWPORTS
def test_item_1_the_gm_voids_a_pcs_attack_and_goblin_1_is_whole_again(new_page, django_user_model, viewport):
    """The newcomer's session: Wren's attack left Goblin 1 at 1 of 4; the GM voided it from the log's "Void…"
    and Goblin 1 stayed at 1 while the page promised "whatever it changed is put back". The void page now says
    Goblin 1 gets its hit back, the void gives it back, and the table shows 4 of 4 again."""
    campaign, wren, username = _seat(django_user_model, "chaos-conquest", "Wren", viewport)
    gm = django_user_model.objects.get(username=f"gm_{username[3:]}")
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)
    session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=GOBLIN)
    session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=GOBLIN)
    goblin = Npc.objects.get(campaign=campaign, name="Goblin 1")
    player = django_user_model.objects.get(username=username)
    attack = session.pc_attack(
        character_id=wren.pk, procedure="attack", params={}, npc_id=goblin.pk, by=player, rng=random.Random(3)
    ).row
    goblin.refresh_from_db()
    assert attack.hit is not None and goblin.stats["stamina"] < 4
    page = new_page(*viewport)
    log_in(page, gm.username, PASSWORD)
    page.goto(f"/campaigns/{campaign.pk}/")
    show_part(page, "fight")
    stamina = page.locator('#encounter [data-npc="Goblin 1"] [data-stat="Stamina"] strong')
    expect(stamina).to_have_text(str(goblin.stats["stamina"]))
    show_part(page, "log")
    page.locator(f'#log [data-roll="{attack.written.row.pk}"] a.roll-fix').click()
    expect(page.locator("[data-void-also]")).to_contain_text("Goblin 1 gets back what the hit took")
    page.get_by_label("Why").fill("wrong target")
    page.get_by_role("button", name="Void this roll").click()
    expect(page.locator(".messages")).to_contain_text("Goblin 1 has 4 Stamina again.")
    expect(page.locator("[data-voided]")).to_contain_text("wrong target")
    goblin.refresh_from_db()
    assert goblin.stats["stamina"] == 4 and not goblin.defeated
    page.goto(f"/campaigns/{campaign.pk}/")
    show_part(page, "fight")
    expect(page.locator('#encounter [data-npc="Goblin 1"] [data-stat="Stamina"] strong')).to_have_text("4")
    expect(page.locator(f'#encounter [data-hit="{attack.hit.pk}"]')).to_have_count(0)


def _change_box(page, hero, label: str, delta: int) -> None:
    """The sheet's Change box, as a person uses it: the track picked, the amount typed, Apply."""
    page.goto(f"/characters/{hero.pk}/")
    show_part(page, "sheet")
    box = page.locator("form.adjust-by")
    box.locator("#adjust-key").select_option(label=label)
    box.get_by_label("by how much (negative to lower)").fill(str(delta))
    box.get_by_role("button", name="Apply", exact=True).click()


@VIEWPORTS
def test_item_2_the_change_box_offers_harm_by_the_rules_past_0_hp(new_page, django_user_model, viewport):
    """The newcomer's session: Fell (draft) HP -20 in the Change box read "HP 0/4", no harm past 0, no Dying.
    Now the box asks in place; "Apply as harm" takes it by the rules (the sheet shows their result and Dying
    or Dead), and "Change the number only" stays for corrections, its history line saying what it skipped."""
    _campaign, hero, username = _seat(django_user_model, "fell-draft", "Mira", viewport)
    # As a write would: a new version (the pages and the kept regions tell sheets apart by it).
    Character.objects.filter(pk=hero.pk).update(
        state={**hero.state, "hp": 4, "hp_max": 4}, version=F("version") + 1, updated_at=timezone.now()
    )
    page = new_page(*viewport)
    log_in(page, username, PASSWORD)
    _change_box(page, hero, "HP", -20)
    offer = page.locator("#vitals [data-harm-offer]")
    expect(offer).to_contain_text("HP −20 crosses a line the rules act on")
    expect(page.locator('#vitals [data-track="hp"] [data-value]')).to_have_text("4")  # nothing changed yet
    offer.get_by_role("button", name="Change the number only").click()
    expect(page.locator('#vitals [data-track="hp"] [data-value]')).to_have_text("0")
    expect(page.locator("#vitals [data-harm-offer]")).to_have_count(0)
    change = hero.changes.latest("pk")
    assert change.what.startswith("HP -20 by hand, without ")
    # Put back, then taken the rules' way.
    # As a write would: a new version (the pages and the kept regions tell sheets apart by it).
    Character.objects.filter(pk=hero.pk).update(
        state={**hero.state, "hp": 4, "hp_max": 4}, version=F("version") + 1, updated_at=timezone.now()
    )
    _change_box(page, hero, "HP", -20)
    page.locator("#vitals [data-harm-offer]").get_by_role("button", name="Apply as harm: −20 HP by the rules").click()
    expect(page.locator("#vitals [data-harm-done]")).to_contain_text("By the rules:")
    roll = Roll.objects.filter(character=hero, procedure="take_harm").get()
    hero.refresh_from_db()
    assert hero.state["hp"] == 0
    expect(page.locator("#vitals .conditions")).to_be_visible()  # Dying, or Dead: the rules' harm past 0
    show_part(page, "log")
    expect(page.locator(f'#log [data-roll="{roll.pk}"]')).to_be_visible()
