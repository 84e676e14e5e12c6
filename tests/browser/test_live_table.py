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
    expect(gm_page.locator('[data-username="player_live"][data-present]')).to_be_visible(timeout=3000)

    player_page.get_by_role("button", name="HP minus one").click()
    expect(player_page.locator("#vitals [data-track=hp] [data-value]")).to_have_text(str(hero.state["hp"] - 1))
    expect(card_hp).to_have_text(str(hero.state["hp"] - 1), timeout=1000)

    show_part(player_page, "roll")
    player_page.locator("details[data-procedure=test] button", has_text="Roll").click()
    expect(player_page.locator("#result-test .roll-result")).to_be_visible()
    roll_id = player_page.locator("#result-test [data-roll]").get_attribute("data-roll")
    expect(gm_page.locator(f'#log [data-roll="{roll_id}"]')).to_be_visible(timeout=1000)

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
    expect(other_page.locator("#log")).to_contain_text("open luck", timeout=1000)
    expect(other_page.locator("#log")).not_to_contain_text("secret luck")
