"""Where two features cross (issue 36, items 1, 2, 3 and 9), each flow as a person does it, on a phone
(375x812) and a desktop (1280x800), asserting what the page shows as well as the database."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
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
