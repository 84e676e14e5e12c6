"""Campaign pages through real HTTP: create, invite, join, remove, transfer, leave, and who may do what."""

from __future__ import annotations

import html

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from tests.pages import form_fields

pytestmark = pytest.mark.django_db

GM_ACTIONS = ["campaigns:regenerate_invite", "campaigns:remove_player", "campaigns:transfer_gm"]


# --- the permission matrix -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "expected"),
    [("anonymous", 302), ("stranger", 404), ("player", 200), ("gm", 200)],
)
def test_campaign_page_is_for_members_only(who, expected, campaign, as_user, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = as_user(user).get(reverse("campaigns:detail", args=[campaign.pk]))
    assert response.status_code == expected
    if who == "anonymous":
        assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("action", GM_ACTIONS)
@pytest.mark.parametrize(("who", "expected"), [("anonymous", 302), ("stranger", 404), ("player", 404)])
def test_gm_actions_are_404_for_everyone_but_the_gm(action, who, expected, campaign, other_player, as_user, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    code_before = campaign.invite_code
    response = as_user(user).post(reverse(action, args=[campaign.pk]), {"user_id": other_player.pk})
    assert response.status_code == expected
    campaign.refresh_from_db()
    assert campaign.invite_code == code_before
    assert campaign.memberships.count() == 3
    assert campaign.memberships.get(role="gm").user.username == "gm"


@pytest.mark.parametrize(("who", "expected"), [("anonymous", 302), ("stranger", 404)])
def test_leave_is_404_for_non_members(who, expected, campaign, as_user, request):
    user = None if who == "anonymous" else request.getfixturevalue(who)
    response = as_user(user).post(reverse("campaigns:leave", args=[campaign.pk]))
    assert response.status_code == expected
    assert campaign.memberships.count() == 3


@pytest.mark.parametrize("url_name", ["campaigns:list", "characters:list", "password_change"])
def test_every_page_but_the_account_pages_requires_login(url_name, as_user, db):
    response = as_user(None).get(reverse(url_name))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


@pytest.mark.parametrize("url_name", ["login", "signup"])
def test_account_pages_are_open(url_name, as_user, db):
    assert as_user(None).get(reverse(url_name)).status_code == 200


def test_gm_actions_refuse_get(campaign, gm, as_user):
    for action in GM_ACTIONS:
        assert as_user(gm).get(reverse(action, args=[campaign.pk])).status_code == 405


# --- creating and listing --------------------------------------------------------------------


def test_creating_a_campaign_makes_you_its_gm(player, as_user):
    client, url = as_user(player), reverse("campaigns:create")
    response = client.post(
        url, form_fields(client.get(reverse("campaigns:list")), url, name="Ash Road", system="chaos-conquest")
    )
    campaign = Campaign.objects.get(name="Ash Road")
    assert response.status_code == 302
    assert response["Location"] == campaign.get_absolute_url()
    assert campaign.memberships.get().role == Membership.Role.GM
    assert campaign.system == "chaos-conquest"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "", "system": "fell-draft"}, "This field is required"),
        ({"name": "   ", "system": "fell-draft"}, "This field is required"),
        ({"name": "x" * 300, "system": "fell-draft"}, "at most 100 characters"),
        ({"name": "Fine", "system": "dnd5e"}, "Select a valid choice"),
    ],
)
def test_bad_campaign_forms_show_errors_and_create_nothing(data, message, player, as_user):
    response = as_user(player).post(reverse("campaigns:create"), data)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Campaign.objects.exists()


def test_my_campaigns_lists_each_campaign_with_my_role(campaign, gm, player, as_user):
    Campaign.objects.create(name="Not mine", system="fell-late")
    page = as_user(player).get(reverse("campaigns:list")).content.decode()
    assert "The Sunken Vault" in page
    assert "Player" in page
    assert "Not mine" not in page
    assert "GM" in as_user(gm).get(reverse("campaigns:list")).content.decode()


def test_the_campaign_form_offers_all_five_systems(player, as_user):
    page = html.unescape(as_user(player).get(reverse("campaigns:list")).content.decode())
    for name in ["Fell (draft", "Fell (late", "Chaos & Conquest", "Fortune's Favor", "Grit & Flesh"]:
        assert name in page


# --- invites --------------------------------------------------------------------------------


def test_invite_link_is_shown_to_the_gm_only(campaign, gm, player, as_user):
    link = reverse("campaigns:join", args=[campaign.invite_code])
    assert link in as_user(gm).get(campaign.get_absolute_url()).content.decode()
    assert link not in as_user(player).get(campaign.get_absolute_url()).content.decode()


def test_joining_by_link_makes_you_a_player(campaign, stranger, as_user):
    client = as_user(stranger)
    url = reverse("campaigns:join", args=[campaign.invite_code])
    assert "Join the table" in client.get(url).content.decode()
    response = client.post(url)
    assert response.status_code == 302
    assert campaign.memberships.get(user=stranger).role == Membership.Role.PLAYER
    client.post(url)  # joining twice changes nothing
    assert campaign.memberships.filter(user=stranger).count() == 1


def test_the_join_form_accepts_a_pasted_link_or_a_code(campaign, stranger, as_user):
    pasted = f"http://testserver/campaigns/join/{campaign.invite_code}/"
    client, url = as_user(stranger), reverse("campaigns:join_form")
    response = client.post(url, form_fields(client.get(reverse("campaigns:list")), url, code=pasted))
    assert response["Location"] == reverse("campaigns:join", args=[campaign.invite_code])


def test_a_bad_code_says_so_and_joins_nothing(campaign, stranger, as_user):
    response = as_user(stranger).post(reverse("campaigns:join", args=["not-a-code"]))
    assert response.status_code == 404
    assert "does not work" in response.content.decode()
    assert not campaign.memberships.filter(user=stranger).exists()


def test_anonymous_visitor_of_an_invite_is_sent_to_log_in_and_back(campaign, as_user):
    url = reverse("campaigns:join", args=[campaign.invite_code])
    response = as_user(None).get(url)
    assert response.status_code == 302
    assert "next=" in response["Location"]


def _confirm(client, name: str, campaign, data=None, **kwargs):
    """Post a hard-to-reverse table action: it asks first; then post the confirmation page's own form."""
    url = reverse(name, args=[campaign.pk])
    question = client.post(url, data or {})
    assert question.status_code == 200 and 'name="confirm" value="yes"' in question.content.decode()
    return client.post(url, form_fields(question, url), **kwargs)


@pytest.mark.parametrize(
    ("name", "data"),
    [("campaigns:regenerate_invite", {}), ("campaigns:remove_player", "p"), ("campaigns:transfer_gm", "p")],
)
def test_hard_to_reverse_table_actions_ask_first_and_change_nothing_until_confirmed(
    campaign, gm, player, as_user, name, data
):
    before = (campaign.invite_code, sorted(campaign.memberships.values_list("user_id", "role")))
    response = as_user(gm).post(reverse(name, args=[campaign.pk]), {"user_id": player.pk} if data else {})
    assert response.status_code == 200 and "Keep things as they are" in response.content.decode()
    campaign.refresh_from_db()
    assert (campaign.invite_code, sorted(campaign.memberships.values_list("user_id", "role"))) == before


def test_regenerating_the_invite_kills_the_old_link(campaign, gm, stranger, as_user):
    old = campaign.invite_code
    _confirm(as_user(gm), "campaigns:regenerate_invite", campaign)
    campaign.refresh_from_db()
    assert campaign.invite_code != old
    response = as_user(stranger).post(reverse("campaigns:join", args=[old]))
    assert response.status_code == 404
    assert not campaign.memberships.filter(user=stranger).exists()


# --- membership changes -----------------------------------------------------------------------


def test_gm_removes_a_player_who_then_cannot_see_the_campaign(campaign, gm, player, as_user):
    _confirm(as_user(gm), "campaigns:remove_player", campaign, {"user_id": player.pk})
    assert not campaign.memberships.filter(user=player).exists()
    assert as_user(player).get(campaign.get_absolute_url()).status_code == 404


def test_gm_cannot_remove_themselves_or_strangers(campaign, gm, stranger, as_user):
    client = as_user(gm)
    response = _confirm(client, "campaigns:remove_player", campaign, {"user_id": gm.pk}, follow=True)
    assert "cannot be removed" in response.content.decode()
    response = client.post(
        reverse("campaigns:remove_player", args=[campaign.pk]), {"user_id": stranger.pk}, follow=True
    )
    assert "not at this table" in response.content.decode()
    response = client.post(reverse("campaigns:remove_player", args=[campaign.pk]), {"user_id": "abc"}, follow=True)
    assert response.status_code == 200
    assert campaign.memberships.count() == 3


def test_handing_the_table_over_keeps_the_old_owner_as_a_co_gm_by_default(campaign, gm, player, as_user):
    _confirm(as_user(gm), "campaigns:transfer_gm", campaign, {"user_id": player.pk})
    roles = dict(campaign.memberships.values_list("user__username", "role"))
    assert roles == {"gm": "cogm", "player": "gm", "other_player": "player"}
    # the old owner still runs the table, but no longer owns it
    assert as_user(gm).post(reverse("campaigns:regenerate_invite", args=[campaign.pk])).status_code == 200
    response = as_user(gm).post(reverse("campaigns:transfer_gm", args=[campaign.pk]), {"user_id": gm.pk})
    assert response.status_code == 404


def test_handing_the_table_over_as_a_player_swaps_roles(campaign, gm, player, as_user):
    url = reverse("campaigns:transfer_gm", args=[campaign.pk])
    as_user(gm).post(url, {"user_id": player.pk, "stay": "player", "confirm": "yes"})
    roles = dict(campaign.memberships.values_list("user__username", "role"))
    assert roles == {"gm": "player", "player": "gm", "other_player": "player"}
    # the old GM has lost the GM's powers
    response = as_user(gm).post(reverse("campaigns:regenerate_invite", args=[campaign.pk]))
    assert response.status_code == 404


def test_the_owner_names_a_co_gm_who_runs_the_table_but_cannot_name_others(campaign, gm, player, other_player, as_user):
    page = as_user(gm).get(campaign.get_absolute_url()).content.decode()
    assert 'data-co-gm="player"' in page
    as_user(gm).post(reverse("campaigns:set_co_gm", args=[campaign.pk]), {"user_id": player.pk, "co_gm": "on"})
    assert campaign.memberships.get(user=player).role == "cogm"
    co_gm = as_user(player)
    page = co_gm.get(campaign.get_absolute_url()).content.decode()
    assert "you are a co-GM" in page and 'data-co-gm="' not in page
    url = reverse("campaigns:set_co_gm", args=[campaign.pk])
    assert co_gm.post(url, {"user_id": other_player.pk, "co_gm": "on"}).status_code == 404
    # a co-GM is no player to remove; the owner makes them a player again first
    response = as_user(gm).post(
        reverse("campaigns:remove_player", args=[campaign.pk]), {"user_id": player.pk, "confirm": "yes"}, follow=True
    )
    assert "makes them a player first" in response.content.decode()
    as_user(gm).post(url, {"user_id": player.pk})
    assert campaign.memberships.get(user=player).role == "player"


def test_a_player_can_leave_but_the_gm_must_hand_over_first(campaign, gm, player, as_user):
    response = as_user(player).post(reverse("campaigns:leave", args=[campaign.pk]))
    assert response["Location"] == reverse("campaigns:list")
    assert not campaign.memberships.filter(user=player).exists()
    response = as_user(gm).post(reverse("campaigns:leave", args=[campaign.pk]), follow=True)
    assert "hand the GM role" in response.content.decode()
    assert campaign.memberships.filter(user=gm, role="gm").exists()


def test_both_players_see_each_other_on_the_campaign_page(campaign, player, other_player, as_user):
    page = as_user(player).get(campaign.get_absolute_url()).content.decode()
    assert 'data-username="other_player"' in page
    assert 'data-username="gm"' in page
