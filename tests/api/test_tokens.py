"""API tokens (issue 28): made on the account page and shown once, kept hashed, capped, revoked at once; they open
the API alone (never a page, the admin or the account pages) and never more than their owner may do now."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import ApiToken
from accounts.tokens import TokenError, token_create
from campaigns import services as campaign_services
from campaigns.models import Membership
from tests.api.conftest import ApiClient, bearer
from tests.conftest import PASSWORD
from tests.pages import text_of

pytestmark = pytest.mark.django_db

PAGE = "/accounts/tokens/"


def _made_secret(response) -> str:
    found = re.search(r'value="(lt_[A-Za-z0-9_-]+)"', response.content.decode())
    assert found, text_of(response)
    return found.group(1)


def test_a_token_made_on_the_account_page_is_shown_once_and_kept_only_as_a_hash(player, as_user):
    client = as_user(player)
    assert client.get(PAGE).status_code == 200
    response = client.post(PAGE, {"name": "Discord bot", "scope": "read"})
    assert response.status_code == 200 and response["Cache-Control"] == "no-store"
    secret = _made_secret(response)
    token = ApiToken.objects.get(user=player)
    assert token.name == "Discord bot" and token.scope == "read" and token.campaign is None
    assert token.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    assert secret not in str(list(ApiToken.objects.values()))  # nothing keeps the secret itself
    again = client.get(PAGE)
    assert secret not in again.content.decode() and "Discord bot" in text_of(again)
    assert ApiClient(secret).get("/api/me").json() == {
        "username": "player",
        "token": "Discord bot",
        "scope": "read",
        "campaign_id": None,
    }


def test_the_account_menu_links_the_tokens_page(player, as_user):
    assert 'href="/accounts/tokens/"' in as_user(player).get(reverse("campaigns:list")).content.decode()


def test_a_table_token_is_offered_only_for_a_campaign_its_maker_runs(campaign, gm, player, as_user):
    assert f'value="table:{campaign.pk}"' in as_user(gm).get(PAGE).content.decode()
    assert f'value="table:{campaign.pk}"' not in as_user(player).get(PAGE).content.decode()
    refused = as_user(player).post(PAGE, {"name": "sneaky", "scope": f"table:{campaign.pk}"})
    assert refused.status_code == 400 and not ApiToken.objects.exists()
    with pytest.raises(TokenError, match="a campaign you run"):
        token_create(user=player, name="sneaky", scope="table", campaign_id=campaign.pk)
    made = as_user(gm).post(PAGE, {"name": "GM screen", "scope": f"table:{campaign.pk}"})
    assert made.status_code == 200
    assert ApiToken.objects.get(user=gm).campaign == campaign


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"name": "", "scope": "read"}, "Give it a name with letters you can see."),
        ({"name": "\u200b\u202e", "scope": "read"}, "Give it a name with letters you can see."),
        ({"name": "x" * 61, "scope": "read"}, "at most 60 characters"),
        ({"name": "bot", "scope": "admin"}, "Select a valid choice"),
        ({"name": "bot", "scope": "table:99999"}, "Select a valid choice"),
        ({"name": "bot"}, "This field is required"),
        ({"name": "bot", "scope": "read", "lifetime": "3"}, "Select a valid choice"),
    ],
)
def test_a_token_asked_wrongly_is_refused_with_a_sentence(player, as_user, fields, message):
    response = as_user(player).post(PAGE, fields)
    assert response.status_code == 400 and message in text_of(response)
    assert not ApiToken.objects.exists()


def test_an_account_holds_at_most_its_cap_of_tokens(player, as_user, settings):
    settings.API_TOKENS_PER_USER = 3
    for n in range(3):
        token_create(user=player, name=f"t{n}", scope="read")
    response = as_user(player).post(PAGE, {"name": "one more", "scope": "play"})
    assert response.status_code == 400
    assert "You have 3 API tokens, the most an account may hold: revoke one first." in text_of(response)
    assert ApiToken.objects.filter(user=player).count() == 3


def test_a_revoked_token_is_refused_at_once(player, hero, as_user):
    api = bearer(player)
    assert api.get(f"/api/characters/{hero.pk}").status_code == 200
    token = ApiToken.objects.get(user=player)
    response = as_user(player).post(reverse("api_token_revoke", args=[token.pk]))
    assert response.status_code == 302 and not ApiToken.objects.exists()
    refused = api.get(f"/api/characters/{hero.pk}")
    assert refused.status_code == 401 and refused["WWW-Authenticate"] == "Bearer"
    assert refused.json()["detail"].startswith("Send a live API token")


def test_nobody_revokes_someone_elses_token(player, other_player, as_user):
    token = token_create(user=player, name="mine", scope="read").token
    response = as_user(other_player).post(reverse("api_token_revoke", args=[token.pk]), follow=True)
    assert "That token is gone already." in text_of(response)
    assert ApiToken.objects.filter(pk=token.pk).exists()


@pytest.mark.parametrize(
    "path",
    [
        "/characters/",
        "/campaigns/",
        "/accounts/tokens/",
        "/accounts/password/",
        "/admin/",
        "/admin/accounts/apitoken/",
    ],
)
def test_a_token_opens_no_page_not_the_admin_nor_the_account_pages(path, player, django_user_model):
    player.is_staff = player.is_superuser = True  # even a staff account's token opens no admin page
    player.save()
    api = bearer(player)
    response = api.get(path)
    assert response.status_code == 302 and "/login/" in response["Location"]
    posted = api.post("/accounts/tokens/", {"name": "from a token", "scope": "play"})
    assert posted.status_code in (302, 403) and ApiToken.objects.count() == 1


def test_a_session_opens_no_api_call(player, hero, as_user):
    """The API answers to tokens alone: a page's cookie sent along (a link clicked elsewhere) counts for nothing."""
    response = as_user(player).get(f"/api/characters/{hero.pk}")
    assert response.status_code == 401


@pytest.mark.parametrize(
    "header",
    [
        "Bearer",
        "Bearer ",
        "Bearer lt_",
        "Bearer lt_" + "a" * 43,
        "Basic cGxheWVyOnB3",
        "Token lt_x",
        "Bearer " + "x" * 5000,
    ],
)
def test_anything_but_a_live_token_is_a_401(header, player, hero):
    token_create(user=player, name="real", scope="play")
    response = Client(HTTP_AUTHORIZATION=header).get(f"/api/characters/{hero.pk}")
    assert response.status_code == 401 and "detail" in response.json()


def test_a_deactivated_account_s_tokens_open_nothing(player, hero):
    api = bearer(player)
    player.is_active = False
    player.save()
    assert api.get("/api/me").status_code == 401


def test_calls_are_limited_per_token_and_minute(player, hero, settings):
    settings.API_CALLS_PER_MINUTE = 3
    api, other = bearer(player), bearer(player, name="second")
    for _ in range(3):
        assert api.get("/api/me").status_code == 200
    refused = api.get(f"/api/characters/{hero.pk}")
    assert refused.status_code == 429
    assert refused.json() == {"detail": "That is 3 calls in a minute with this token: wait a moment."}
    assert other.get("/api/me").status_code == 200  # each token its own minute
    token = ApiToken.objects.get(user=player, name="test")
    ApiToken.objects.filter(pk=token.pk).update(window_start=token.window_start.replace(year=2000))
    assert api.get("/api/me").status_code == 200  # a new minute
    assert ApiToken.objects.get(pk=token.pk).last_used_at is not None


def test_a_table_token_dies_with_its_owner_s_gm_seat(campaign, gm, player, hero):
    api = bearer(gm, "table", campaign)
    assert api.get(f"/api/campaigns/{campaign.pk}/party").status_code == 200
    campaign_services.campaign_transfer_gm(campaign=campaign, to_user_id=player.pk)
    refused = api.get(f"/api/campaigns/{campaign.pk}/party")
    assert refused.status_code == 403
    assert refused.json() == {"detail": "This token's owner no longer runs its campaign: it opens nothing."}
    assert api.get(f"/api/characters/{hero.pk}").status_code == 403


def test_a_play_token_dies_with_its_owner_s_seat(campaign, player, other_player, rival):
    """A player who leaves the table no longer reads its log through any token."""
    api = bearer(other_player)
    assert api.get(f"/api/campaigns/{campaign.pk}/log").status_code == 200
    Membership.objects.filter(campaign=campaign, user=other_player).delete()
    assert api.get(f"/api/campaigns/{campaign.pk}/log").status_code == 404


def test_the_tokens_page_takes_a_fixed_number_of_queries(gm, campaign, as_user, django_assert_max_num_queries):
    for n in range(10):
        token_create(user=gm, name=f"t{n}", scope="table", campaign_id=campaign.pk)
    client = as_user(gm)
    with django_assert_max_num_queries(8):
        response = client.get(PAGE)
    assert text_of(response).count("Runs the table of The Sunken Vault") == 10


def test_a_password_change_revokes_every_token_of_the_account_and_the_pages_say_so(player, other_player, as_user):
    """Issue 35, item 17: a token made before the password changed (it may have leaked with it) opens nothing
    after; someone else's tokens are untouched; the tokens page and the password pages say it."""
    api, other = bearer(player), bearer(other_player)
    assert api.get("/api/me").status_code == 200
    client = as_user(player)
    assert "Changing your password revokes all your tokens" in text_of(client.get(PAGE))
    form = client.get("/accounts/password/")
    assert "revokes all your API tokens" in text_of(form)
    changed = client.post(
        "/accounts/password/",
        {"old_password": PASSWORD, "new_password1": "another-lantern-77", "new_password2": "another-lantern-77"},
        follow=True,
    )
    assert "Your API tokens were revoked" in text_of(changed)
    assert not ApiToken.objects.filter(user=player).exists()
    assert api.get("/api/me").status_code == 401
    assert other.get("/api/me").status_code == 200
    player.refresh_from_db()
    player.last_login = None
    player.save(update_fields=["last_login"])  # a save that leaves the password alone revokes nothing
    assert ApiToken.objects.filter(user=other_player).count() == 1


def test_a_token_made_to_last_some_days_is_refused_after_with_a_sentence(player, hero, as_user):
    """Issue 35, item 17: the form offers an end; past it, a call is a 401 that says when it ended."""
    client = as_user(player)
    before = timezone.now()
    response = client.post(PAGE, {"name": "weekend bot", "scope": "read", "lifetime": "7"})
    assert response.status_code == 200
    api = ApiClient(_made_secret(response))
    token = ApiToken.objects.get(user=player)
    assert token.expires_at is not None
    assert before + timedelta(days=7) <= token.expires_at <= timezone.now() + timedelta(days=7)
    assert api.get(f"/api/characters/{hero.pk}").status_code == 200
    assert f"works until {token.expires_at:%-d %b %Y}" in text_of(client.get(PAGE))
    ApiToken.objects.filter(pk=token.pk).update(expires_at=datetime(2026, 3, 4, 5, 6, tzinfo=UTC))
    refused = api.get(f"/api/characters/{hero.pk}")
    assert refused.status_code == 401 and refused["WWW-Authenticate"] == "Bearer"
    assert refused.json() == {
        "detail": "This token expired on 4 Mar 2026 05:06: make a new one on your API tokens page."
    }
    assert "expired 4 Mar 2026" in text_of(client.get(PAGE))
    kept = client.post(PAGE, {"name": "forever", "scope": "read", "lifetime": ""})
    assert kept.status_code == 200 and ApiToken.objects.get(name="forever").expires_at is None
