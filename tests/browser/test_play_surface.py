"""The sheet as a play surface, in a real browser on a phone (375 × 812) and a desktop (1280 × 800): the result
shows where you roll without scrolling, the GM reverts a death and the player sees it live, the log filters."""

from __future__ import annotations

import os
import random
import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Item
from characters.services import character_adjust, character_create, character_roll
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
SIZES = {"phone": (375, 812), "desktop": (1280, 800)}
SHOTS = os.environ.get("LANTERN_SCREENSHOTS", "")  # a folder: save what each test saw, for the notes


def _table(django_user_model, system="fell-draft", name="Wren"):
    gm = django_user_model.objects.create_user("gm_play", password=PASSWORD)
    player = django_user_model.objects.create_user("player_play", password=PASSWORD)
    campaign = Campaign.objects.create(name="Play Table", system=system)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system=system, choices={"name": name}, campaign=campaign, rng=random.Random(7)
    )
    return campaign, hero, gm, player


def _in_viewport(page, locator) -> None:
    box = locator.bounding_box()
    width, height = page.viewport_size["width"], page.viewport_size["height"]
    assert box is not None, "the result is not on the page"
    assert box["y"] >= 0 and box["y"] + box["height"] <= height, f"the result is outside the viewport: {box}"
    assert box["x"] >= 0 and box["x"] + box["width"] <= width, f"the result is outside the viewport: {box}"
    assert page.evaluate("window.scrollY") == 0, "the page had to scroll"


def _shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=os.path.join(SHOTS, f"{name}.png"), full_page=True)


@pytest.mark.parametrize("size", SIZES)
def test_a_quick_roll_shows_its_result_in_view_without_scrolling(new_page, django_user_model, size):
    campaign, hero, _, _ = _table(django_user_model)
    page = new_page(*SIZES[size])
    log_in(page, "player_play", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    # One line of header on a phone: the name does not wrap.
    title = page.get_by_role("heading", name="Wren", exact=True)
    assert title.bounding_box()["height"] < 48
    page.get_by_role("button", name="Test BOD").click()
    result = page.locator("#quick-result .roll-result")
    expect(result).to_contain_text("BOD test")
    _in_viewport(page, result)
    _shot(page, f"sheet-{size}")
    # The roll also reaches the table's log on the sheet.
    expect(page.locator("#log")).to_contain_text("BOD test")


@pytest.mark.parametrize("size", SIZES)
def test_a_panel_roll_shows_its_result_at_the_roll_button(new_page, django_user_model, size):
    campaign, hero, _, _ = _table(django_user_model)
    page = new_page(*SIZES[size])
    log_in(page, "player_play", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    show_part(page, "roll")
    test = page.locator('.roll-control[data-procedure="test"]')
    test.get_by_role("button", name="Roll", exact=True).click()
    result = test.locator(".roll-result")
    expect(result).to_contain_text("test")
    box = result.bounding_box()
    assert box["y"] + box["height"] <= page.viewport_size["height"] + page.evaluate("window.scrollY")
    assert box["y"] >= 0


def test_every_button_on_a_phone_sheet_is_a_thumb_sized_target(new_page, django_user_model):
    campaign, hero, _, _ = _table(django_user_model)
    page = new_page(*SIZES["phone"])
    log_in(page, "player_play", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    for part in ("sheet", "roll", "gear", "log"):
        show_part(page, part)
        small = page.evaluate(
            """() => [...document.querySelectorAll('main button, main .section-tabs a, main .log-filters a')]
                .filter(el => el.offsetParent !== null)
                .map(el => [el.textContent.trim(), el.getBoundingClientRect()])
                .filter(([, r]) => r.height < 44 || r.width < 44)
                .map(([text, r]) => `${text} ${Math.round(r.width)}x${Math.round(r.height)}`)"""
        )
        assert small == [], f"targets under 44 px in {part}: {small}"


def test_the_gm_reverts_a_death_and_the_players_sheet_follows_live(new_page, django_user_model):
    campaign, hero, gm, player = _table(django_user_model, system="chaos-conquest", name="Ash")
    Item.objects.filter(character=hero).delete()
    hero.state = {**hero.state, "stress": 9}
    hero.save()
    character_adjust(character_id=hero.pk, key="stress", delta=1, by=player)  # the tenth stress kills (seed 002)
    hero.refresh_from_db()
    assert hero.state["status"] == "dead"

    player_page = new_page(*SIZES["phone"])
    log_in(player_page, "player_play", PASSWORD)
    player_page.goto(f"/characters/{hero.pk}/")
    expect(player_page.locator("[data-cc-status]")).to_have_attribute("data-cc-status", "dead")

    gm_page = new_page(*SIZES["desktop"])
    log_in(gm_page, "gm_play", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    expect(gm_page.locator('[data-username="player_play"][data-present]')).to_be_visible()
    gm_page.goto(f"/characters/{hero.pk}/history/")
    death = gm_page.locator("[data-change]").first
    expect(death).to_contain_text("Stress +1")
    death.locator("summary", has_text="Revert").click()
    death.get_by_label("Why").fill("the GM rules the blow missed")
    death.get_by_role("button", name="Revert").click()
    expect(gm_page.locator(".message")).to_contain_text("Reverted")

    # The player's open sheet follows without a reload.
    expect(player_page.locator("[data-cc-status]")).to_have_attribute("data-cc-status", "fine")
    expect(player_page.locator("#vitals [data-track=stress] [data-value]")).to_have_text("9")


def test_the_log_on_the_sheet_filters_the_tables_rolls(new_page, django_user_model):
    campaign, hero, gm, player = _table(django_user_model)
    rival, _ = character_create(
        owner=gm, system="fell-draft", choices={"name": "Moss"}, campaign=campaign, rng=random.Random(3)
    )
    character_roll(character_id=rival.pk, procedure="test", params={}, by=gm, rng=random.Random(1))
    character_roll(character_id=hero.pk, procedure="test", params={}, by=player, rng=random.Random(2))
    page = new_page(*SIZES["phone"])
    log_in(page, "player_play", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    show_part(page, "log")
    log = page.locator("#log")
    expect(log).to_contain_text("Moss")
    log.get_by_role("link", name="This character").click()
    expect(page.locator("#log")).not_to_contain_text("Moss")
    expect(page.locator("#log")).to_contain_text("Wren")
    page.locator("#log").get_by_role("link", name="The GM").click()
    expect(page.locator("#log")).to_contain_text("Moss")
    expect(page.locator("#log .roll-log")).not_to_contain_text("Wren:")
    _shot(page, "log-phone")


@pytest.mark.parametrize("system", ["fell-draft", "chaos-conquest"])
def test_printing_a_sheet_gives_at_most_two_pages_with_no_controls(new_page, django_user_model, system):
    campaign, hero, _, _ = _table(django_user_model, system=system)
    page = new_page(*SIZES["desktop"])
    log_in(page, "player_play", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    page.emulate_media(media="print")
    visible_controls = page.evaluate(
        "() => [...document.querySelectorAll('button, select, input:not([type=hidden])')]"
        ".filter(el => el.offsetParent !== null).length"
    )
    assert visible_controls == 0
    expect(page.locator("#vitals")).to_be_visible()
    expect(page.locator("#inventory")).to_be_visible()
    pdf = page.pdf(format="A4")
    pages = len(re.findall(rb"/Type\s*/Page[^s]", pdf))
    assert 1 <= pages <= 2, f"{pages} printed pages"
    if SHOTS:
        with open(os.path.join(SHOTS, f"print-{system}.pdf"), "wb") as out:
            out.write(pdf)


def test_a_closed_roll_control_loads_once_when_opened_and_its_odds_follow_the_sheet(new_page, django_user_model):
    campaign, hero, gm, player = _table(django_user_model)
    assert hero.state["hp"] == 3
    page = new_page(*SIZES["desktop"])
    log_in(page, "player_play", PASSWORD)
    loads: list[str] = []
    page.on("request", lambda request: loads.append(request.url) if "/control/" in request.url else None)
    page.goto(f"/characters/{hero.pk}/")
    harm = page.locator('.roll-control[data-procedure="take_harm"]')
    expect(harm.locator("form")).to_have_count(0)  # not drawn until opened
    harm.locator("summary").click()
    harm.locator("#id_take_harm-amount").fill("2")
    line = harm.locator(".odds-line")
    expect(line).to_have_attribute("data-odds-hp-only", "1/1")
    harm.locator("summary").click()  # closed and opened again: loaded already
    harm.locator("summary").click()
    expect(harm.locator("#id_take_harm-amount")).to_have_value("2")
    assert len(loads) == 1, loads

    # The GM takes 2 HP on another page: the open, loaded form's odds follow (2 harm at 1 HP reaches BOD).
    gm_page = new_page(*SIZES["desktop"])
    log_in(gm_page, "gm_play", PASSWORD)
    gm_page.goto(f"/characters/{hero.pk}/")
    for left in ("2", "1"):
        gm_page.get_by_role("button", name="HP minus one").click()
        expect(gm_page.locator("#vitals [data-track=hp] [data-value]")).to_have_text(left)
    expect(page.locator("#vitals [data-track=hp] [data-value]")).to_have_text("1")
    expect(line).to_have_attribute("data-odds-standing", "1/1")
    harm.get_by_role("button", name="Apply", exact=True).click()
    expect(harm.locator(".roll-result")).to_contain_text("harm", ignore_case=True)
    assert len(loads) == 1, loads


def test_without_javascript_a_closed_roll_control_is_a_link_to_its_page(
    browser, live_url, transactional_db, django_user_model
):
    campaign, hero, gm, player = _table(django_user_model)
    context = browser.new_context(base_url=live_url, java_script_enabled=False)
    try:
        page = context.new_page()
        log_in(page, "player_play", PASSWORD)
        page.goto(f"/characters/{hero.pk}/")
        harm = page.locator('.roll-control[data-procedure="take_harm"]')
        harm.locator("summary").click()
        expect(harm.get_by_text("Loading…")).to_be_hidden()
        harm.get_by_role("link", name="Open the form for Take harm").click()
        expect(page.get_by_role("heading", name="Wren: Take harm")).to_be_visible()
        page.locator("#id_take_harm-amount").fill("1")
        page.get_by_role("button", name="Apply", exact=True).click()
        page.wait_for_url(f"**/characters/{hero.pk}/")
        expect(page.locator("#vitals [data-track=hp] [data-value]")).to_have_text("2")
    finally:
        context.close()
