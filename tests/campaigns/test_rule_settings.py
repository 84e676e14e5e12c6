"""The table's rule settings page: who sees and changes them, bad input, the log, and odds that follow them."""

from __future__ import annotations

import pytest
from django.urls import reverse

import rules
from campaigns import services as campaign_services
from campaigns.models import Campaign, Membership, RuleSettingChange
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem
from tests.conftest import make_character
from tests.contract.coin_flip import SYSTEM as COIN_FLIP
from tests.pages import BOTH, form_fields, post, roll_form, text_of
from tests.recorded import Since


@pytest.fixture
def coin_table(db, gm, player, other_player):
    with rules.registered(COIN_FLIP):
        load_catalogue(CatalogueItem, "coin-flip")
        campaign = Campaign.objects.create(name="Heads or tails", system="coin-flip")
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=player)
        yield campaign


@pytest.fixture
def topics(coin_table):
    """What the writes record in the table's journal from now on (tests/recorded.py)."""
    return Since(coin_table.pk)


def _url(campaign):
    return reverse("campaigns:settings", args=[campaign.pk])


def test_the_gm_sees_a_form_with_every_setting_and_its_help(coin_table, gm, as_user):
    response = as_user(gm).get(_url(coin_table))
    assert response.status_code == 200
    fields = form_fields(response, _url(coin_table))
    assert fields["coin"] == ["fair"] and fields["start_luck"] == ["3"] and fields["calls"] == ["heads\ntails"]
    page = text_of(response)
    assert "A two-headed coin always lands heads." in page
    assert "house default, not from the rules" in page  # Starting luck is a placeholder, and says so
    assert "for characters made from now on" in page


def test_a_player_reads_the_settings_but_gets_no_form(coin_table, player, as_user):
    response = as_user(player).get(_url(coin_table))
    assert response.status_code == 200
    assert "<form" not in response.content.decode().split('id="rule-settings"')[1].split("</section>")[0]
    assert "Fair" in text_of(response)


@pytest.mark.parametrize("who", ["player", "other_player", "stranger"])
def test_only_the_gm_changes_settings(coin_table, who, request, as_user):
    user = request.getfixturevalue(who)
    response = as_user(user).post(_url(coin_table), {"coin": "two-headed"})
    assert response.status_code == 404
    coin_table.refresh_from_db()
    assert coin_table.rule_settings == {}


def test_strangers_and_the_logged_out_never_see_a_table_s_settings(coin_table, stranger, as_user, client):
    assert as_user(stranger).get(_url(coin_table)).status_code == 404
    assert client.get(_url(coin_table)).status_code == 302


@BOTH
def test_the_gm_changes_a_setting_logged_and_live(coin_table, gm, as_user, topics, htmx):
    client = as_user(gm)
    fields = form_fields(client.get(_url(coin_table)), _url(coin_table), coin="two-headed")
    response = post(client, _url(coin_table), fields, htmx)
    assert response.status_code == (200 if htmx else 302)
    coin_table.refresh_from_db()
    assert coin_table.rule_settings == {"coin": "two-headed"}  # only what differs from the defaults
    change = RuleSettingChange.objects.get(campaign=coin_table)
    assert (change.label, change.before, change.after, change.by) == ("The coin", "Fair", "Two-headed", gm)
    assert [kind for kind in topics.kinds() if kind == "settings.changed"] == ["settings.changed"]
    assert len(topics.entries()) == 1
    page = text_of(client.get(_url(coin_table)))
    assert "The coin: Fair → Two-headed" in page.replace(" :", ":")


def test_saving_unchanged_settings_logs_nothing(coin_table, gm, as_user, topics):
    client = as_user(gm)
    client.post(_url(coin_table), form_fields(client.get(_url(coin_table)), _url(coin_table)))
    assert not RuleSettingChange.objects.exists()
    assert topics.entries() == []


@BOTH
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"coin": "weighted"}, "The coin: choose one of Fair, Two-headed."),
        ({"start_luck": "-1"}, "Starting luck must be at least 0."),
        ({"start_luck": "7"}, "Starting luck must be at most 6."),
        ({"start_luck": "9" * 30}, "Starting luck must be a whole number."),
        ({"calls": ""}, "Calls needs at least 1 entry."),
        ({"calls": "heads\nheads"}, "Calls lists an entry twice."),
    ],
)
def test_a_value_out_of_range_is_refused_readably_and_nothing_changes(coin_table, gm, as_user, change, message, htmx):
    client = as_user(gm)
    fields = form_fields(client.get(_url(coin_table)), _url(coin_table), **{"coin": "two-headed", **change})
    response = post(client, _url(coin_table), fields, htmx)
    assert response.status_code == (200 if htmx else 400)
    assert message in text_of(response)
    coin_table.refresh_from_db()
    assert coin_table.rule_settings == {}  # the valid part of the post was not saved either
    assert not RuleSettingChange.objects.exists()


def test_odds_and_rolls_follow_the_settings_in_force(coin_table, gm, player, as_user):
    hero = make_character(player, coin_table, system="coin-flip", name="Flipper")
    odds_url = reverse("characters:odds", args=[hero.pk, "flip"])
    client = as_user(player)
    fields = roll_form(client, hero, "flip", call="heads")[1]
    assert 'data-odds="1/2"' in client.get(odds_url, fields).content.decode()
    campaign_services.campaign_change_settings(campaign_id=coin_table.pk, values={"coin": "two-headed"}, by=gm)
    assert 'data-odds="1/1"' in client.get(odds_url, fields).content.decode()


def test_the_table_page_links_to_the_settings(coin_table, player, as_user):
    page = as_user(player).get(coin_table.get_absolute_url()).content.decode()
    assert _url(coin_table) in page


def test_apply_settings_is_refused_readably_when_the_system_has_nothing_to_apply(coin_table, gm, player, as_user):
    hero = make_character(player, coin_table, system="coin-flip", name="Flipper")
    version = hero.version
    response = as_user(gm).post(reverse("campaigns:apply_settings", args=[coin_table.pk, hero.pk]), follow=True)
    assert "Coin Flip has nothing to apply" in text_of(response)
    hero.refresh_from_db()
    assert hero.version == version


@pytest.mark.parametrize("who", ["player", "other_player", "stranger"])
def test_only_the_gm_applies_settings_to_a_character(coin_table, player, who, request, as_user):
    hero = make_character(player, coin_table, system="coin-flip", name="Flipper")
    user = request.getfixturevalue(who)
    response = as_user(user).post(reverse("campaigns:apply_settings", args=[coin_table.pk, hero.pk]))
    assert response.status_code == 404
