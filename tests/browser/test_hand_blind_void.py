"""Issue 27 on phones: a roll typed in by hand, a blind roll and a void, each seen live on the GM's page and on
another player's, without reloading."""

from __future__ import annotations

import random
from datetime import timedelta

from django.utils import timezone
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership, RollRequest, RollRequestAnswer
from characters.models import Roll
from characters.services import character_create
from tests.browser.conftest import log_in, show_part

PASSWORD = "lantern-light-42"
PHONE = {"width": 375, "height": 812}


def _table(django_user_model, hand_dice: str = Campaign.HandDice.SERVER):
    gm = django_user_model.objects.create_user("gm_hand", password=PASSWORD)
    player = django_user_model.objects.create_user("player_hand", password=PASSWORD)
    other = django_user_model.objects.create_user("other_hand", password=PASSWORD)
    campaign = Campaign.objects.create(name="Dice Table", system="fell-draft", hand_dice=hand_dice)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player)
    Membership.objects.create(campaign=campaign, user=other)
    hero, _ = character_create(
        owner=player, system="fell-draft", choices={"name": "Wren"}, campaign=campaign, rng=random.Random(7)
    )
    return campaign, hero


def _watchers(new_page, campaign):
    """The GM's table page and another player's, open on phones."""
    pages = []
    for user in ("gm_hand", "other_hand"):
        page = new_page(**PHONE)
        log_in(page, user, PASSWORD)
        page.goto(f"/campaigns/{campaign.pk}/")
        show_part(page, "log")  # on a phone the table shows one part at a time
        pages.append(page)
    return pages


def _player(new_page, hero):
    page = new_page(**PHONE)
    log_in(page, "player_hand", PASSWORD)
    page.goto(f"/characters/{hero.pk}/")
    page.wait_for_timeout(500)  # the streams open
    return page


def test_a_roll_typed_in_by_hand_shows_marked_on_the_gms_page_and_another_players(new_page, django_user_model):
    campaign, hero = _table(django_user_model, Campaign.HandDice.PLAYERS)
    gm_page, other_page = _watchers(new_page, campaign)
    player = _player(new_page, hero)
    show_part(player, "roll")
    control = player.locator("details[data-procedure=test]")
    control.locator("details.hand-dice summary").click()
    expect(control.locator(".hand-needs")).to_contain_text("This roll asks for a d")
    expect(control.locator(".odds-box")).to_contain_text("%")  # the exact odds, before the dice, as always
    control.get_by_label("The faces, in order").fill("99")
    control.locator("button", has_text="Roll").click()
    expect(player.locator("#result-test .error")).to_contain_text("is not one of its faces")
    control.get_by_label("The faces, in order").fill("3")
    control.locator("button", has_text="Roll").click()
    expect(player.locator("#result-test .roll-result")).to_contain_text("rolled by hand")
    roll = Roll.objects.get(by_hand=True)
    assert roll.dice[0]["face"] == 3
    for page in (gm_page, other_page):
        line = page.locator(f'#log [data-roll="{roll.pk}"]')
        expect(line.locator("[data-hand]")).to_have_text("rolled by hand")


def test_a_blind_roll_shows_its_result_live_to_the_gm_alone(new_page, django_user_model):
    campaign, hero = _table(django_user_model)
    request = RollRequest.objects.create(
        campaign=campaign,
        procedure="test",
        label="Test",
        created_by=campaign.memberships.get(role="gm").user,
        expires_at=timezone.now() + timedelta(minutes=10),
        blind=True,
    )
    RollRequestAnswer.objects.create(request=request, character=hero)
    gm_page, other_page = _watchers(new_page, campaign)
    player = _player(new_page, hero)
    expect(player.locator("#sheet-requests")).to_contain_text("only the GM sees the result")
    player.locator("#sheet-requests [data-answer]").click()
    expect(player.locator("#sheet-requests")).to_contain_text("rolled blind")
    roll = Roll.objects.get(visibility="blind")
    expect(gm_page.locator(f'#log [data-roll="{roll.pk}"][data-outcome="{roll.outcome}"]')).to_be_visible()
    own = player.locator(f'#log [data-roll="{roll.pk}"]')
    expect(own).to_contain_text("rolled blind: the GM has the result")
    expect(own.locator(".dice")).to_have_count(0)
    expect(player.locator(f'[data-roll="{roll.pk}"][data-outcome]')).to_have_count(0)
    other_page.wait_for_timeout(500)
    expect(other_page.locator(f'[data-roll="{roll.pk}"]')).to_have_count(0)


def test_a_void_strikes_the_line_live_on_the_gms_page_and_another_players(new_page, django_user_model):
    campaign, hero = _table(django_user_model)
    gm_page, other_page = _watchers(new_page, campaign)
    player = _player(new_page, hero)
    show_part(player, "roll")
    player.locator("details[data-procedure=test] button", has_text="Roll").click()
    expect(player.locator("#result-test .roll-result")).to_be_visible()
    roll = Roll.objects.exclude(procedure="creation").get()
    for page in (gm_page, other_page):
        expect(page.locator(f'#log [data-roll="{roll.pk}"]')).to_be_visible()

    fixer = new_page(**PHONE)  # the GM corrects it from a second phone tab, through the line's link
    log_in(fixer, "gm_hand", PASSWORD)
    fixer.goto(f"/campaigns/{campaign.pk}/")
    show_part(fixer, "log")
    fixer.locator(f'#log [data-roll="{roll.pk}"] a.roll-fix').click()
    fixer.get_by_label("Why").fill("wrong attribute")
    fixer.get_by_role("button", name="Void this roll").click()
    expect(fixer.locator("[data-voided]")).to_contain_text("Voided by gm_hand: wrong attribute")
    for page in (gm_page, other_page, player):
        line = page.locator(f'#log [data-roll="{roll.pk}"].voided')
        expect(line).to_contain_text("Voided by gm_hand: wrong attribute")
        expect(page.locator(f'#log [data-roll="{roll.pk}"]')).to_have_count(1)
