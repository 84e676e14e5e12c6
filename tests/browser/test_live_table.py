"""Two people, one campaign: the GM's table page follows a player's sheet live, without reloading."""

from __future__ import annotations

import random

from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"


def _table(django_user_model):
    gm = django_user_model.objects.create_user("gm_live", password=PASSWORD)
    player = django_user_model.objects.create_user("player_live", password=PASSWORD)
    campaign = Campaign.objects.create(name="Live Table", system="fell-draft")
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    hero, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    return campaign, hero


def test_the_gm_sees_a_players_hp_change_and_roll_within_a_second(new_page, django_user_model):
    campaign, hero = _table(django_user_model)
    gm_page = new_page()
    log_in(gm_page, "gm_live", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    card_hp = gm_page.locator(f"#card-{hero.pk} [data-track=hp] [data-value]")
    expect(card_hp).to_have_text(str(hero.state["hp"]))

    player_page = new_page(width=375, height=800)
    log_in(player_page, "player_live", PASSWORD)
    player_page.goto(f"/characters/{hero.pk}/")
    # the player's arrival shows on the GM's page (presence)
    expect(gm_page.locator('[data-username="player_live"][data-present]')).to_be_visible()

    player_page.get_by_role("button", name="HP minus one").click()
    expect(player_page.locator("#vitals [data-track=hp] [data-value]")).to_have_text(str(hero.state["hp"] - 1))
    expect(card_hp).to_have_text(str(hero.state["hp"] - 1))

    show_part(player_page, "roll")
    player_page.locator("details[data-procedure=test] button", has_text="Roll").click()
    expect(player_page.locator("#result-test .roll-result")).to_be_visible()
    roll_id = player_page.locator("#result-test [data-roll]").get_attribute("data-roll")
    expect(gm_page.locator(f'#log [data-roll="{roll_id}"]')).to_be_visible()

    # the player's connection drops; meanwhile the GM changes their HP; on return the page is current
    player_page.close()
    gm_page.get_by_role("button", name="Wren: HP plus one").click()
    expect(card_hp).to_have_text(str(hero.state["hp"]))
    back = new_page(width=375, height=800)
    log_in(back, "player_live", PASSWORD)
    back.goto(f"/characters/{hero.pk}/")
    expect(back.locator("#vitals [data-track=hp] [data-value]")).to_have_text(str(hero.state["hp"]))


def test_a_gm_only_roll_never_reaches_another_players_page(new_page, django_user_model):
    campaign, hero = _table(django_user_model)
    other = django_user_model.objects.create_user("other_live", password=PASSWORD)
    Membership.objects.create(campaign=campaign, user=other)
    other_page = new_page()
    log_in(other_page, "other_live", PASSWORD)
    other_page.goto(f"/campaigns/{campaign.pk}/")
    gm_page = new_page()
    log_in(gm_page, "gm_live", PASSWORD)
    gm_page.goto(f"/campaigns/{campaign.pk}/")
    gm_page.locator("#gm-roll").get_by_label("What is it for?").fill("secret luck")
    gm_page.locator("#gm-visibility").select_option("gm")
    gm_page.locator("#gm-roll").get_by_role("button", name="Roll").click()
    expect(gm_page.locator("#log")).to_contain_text("secret luck")
    gm_page.locator("#gm-roll").get_by_label("What is it for?").fill("open luck")
    gm_page.locator("#gm-visibility").select_option("public")
    gm_page.locator("#gm-roll").get_by_role("button", name="Roll").click()
    expect(other_page.locator("#log")).to_contain_text("open luck")
    expect(other_page.locator("#log")).not_to_contain_text("secret luck")


def test_other_open_pages_follow_a_change_without_a_single_request(new_page, django_user_model):
    """Issue 25: a change is pushed drawn; every other open page swaps it in and asks for nothing, and the page
    that made it sends its POST only. Six pages: the GM's table and sheet, another player's table and view of
    the sheet, and a second copy of the owner's sheet."""
    campaign, hero = _table(django_user_model)
    other = django_user_model.objects.create_user("other_live", password=PASSWORD)
    Membership.objects.create(campaign=campaign, user=other)
    sheet, table = f"/characters/{hero.pk}/", f"/campaigns/{campaign.pk}/"
    watchers = {}
    for name, user, path in [
        ("GM table", "gm_live", table),
        ("GM sheet", "gm_live", sheet),
        ("other's table", "other_live", table),
        ("other's view of the sheet", "other_live", sheet),
        ("owner's second sheet", "player_live", sheet),
    ]:
        page = new_page()
        log_in(page, user, PASSWORD)
        page.goto(path)
        watchers[name] = page
    player = new_page()
    log_in(player, "player_live", PASSWORD)
    player.goto(sheet)
    player.wait_for_timeout(1000)  # every stream open and its first push landed

    asked: dict[str, list[str]] = {name: [] for name in [*watchers, "player"]}
    for name, page in [*watchers.items(), ("player", player)]:
        page.on("request", lambda request, name=name: asked[name].append(f"{request.method} {request.url}"))

    hp = hero.state["hp"]
    player.get_by_role("button", name="HP minus one").click()
    show_part(player, "roll")
    player.locator("details[data-procedure=test] button", has_text="Roll").click()
    expect(player.locator("#result-test .roll-result")).to_be_visible()
    roll_id = player.locator("#result-test [data-roll]").get_attribute("data-roll")
    for name, page in watchers.items():
        where = f"#card-{hero.pk}" if name.endswith("table") else "#vitals"
        expect(page.locator(f"{where} [data-track=hp] [data-value]")).to_have_text(str(hp - 1))
        expect(page.locator(f'#log [data-roll="{roll_id}"]')).to_have_count(1)
    player.wait_for_timeout(500)  # anything a page would ask for late
    assert {name: urls for name, urls in asked.items() if name != "player" and urls} == {}
    assert [url.split(" ")[0] for url in asked["player"]] == ["POST", "POST"]
