"""Names: usernames that can't be mistaken for another, and displayed names with nothing invisible in them."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from accounts.names import clean_name, skeleton
from campaigns.models import Campaign
from characters.models import Character
from tests.conftest import make_character, make_user
from tests.pages import form_fields

pytestmark = pytest.mark.django_db

RLO, ZWSP, LRI, PDI = "\u202e", "\u200b", "\u2066", "\u2069"
GOOD_PASSWORD = "lantern-light-42"


def sign_up(client, username: str):
    url = reverse("signup")
    fields = form_fields(client.get(url), url, username=username, password1=GOOD_PASSWORD, password2=GOOD_PASSWORD)
    return client.post(url, fields)


def create_campaign(client, name: str):
    url = reverse("campaigns:create")
    return client.post(url, form_fields(client.get(reverse("campaigns:list")), url, name=name, system="fell-draft"))


@pytest.mark.parametrize(
    ("username", "message"),
    [
        ("\u0430lice", "mixes Cyrillic and Latin"),  # Cyrillic а, Latin lice
        ("\u0441\u043e\u0440\u0435", "looks too much like someone"),  # all Cyrillic: с о р е, like "cope"
        ("C0PE", "looks too much like someone"),
        ("Alice", "already exists"),
        (f"al{RLO}ecila", "text-direction"),
        (ZWSP * 3, "only invisible"),
    ],
)
def test_sign_up_refuses_names_that_could_be_mistaken_or_hide_characters(username, message, as_user):
    make_user("alice")
    make_user("cope")
    response = sign_up(as_user(None), username)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert sorted(get_user_model().objects.values_list("username", flat=True)) == ["alice", "cope"]


def test_sign_up_normalises_the_username_to_nfkc(as_user):
    assert sign_up(as_user(None), "ｍｉｒａ").status_code == 302  # fullwidth letters
    assert get_user_model().objects.filter(username="mira").exists()


def test_a_name_in_one_other_alphabet_is_welcome(as_user):
    make_user("alice")
    assert sign_up(as_user(None), "Анастасия").status_code == 302


def test_the_username_checks_refuse_invisible_and_bidi_characters_readably():
    from accounts.names import username_problem

    assert "only invisible" in username_problem(ZWSP * 2)
    assert "text-direction" in username_problem(f"al{RLO}ice")
    assert username_problem("alice", ["bob"]) is None
    assert skeleton("\u0441\u043e\u0440\u0435") == skeleton("cope") == skeleton("COPE") == skeleton("c0pe")


def test_clean_name_strips_control_zero_width_and_bidi_characters():
    assert clean_name(f"{RLO}Wren{ZWSP} the{LRI}  Bold{PDI}\x00\n") == "Wren the Bold"
    assert clean_name(ZWSP + RLO) == ""
    assert clean_name("Ælfgifu of Þorp") == "Ælfgifu of Þorp"


def test_a_character_named_with_rlo_and_zwsp_is_shown_cleaned_on_the_sheet_and_the_table(campaign, player, gm, as_user):
    character = make_character(player, campaign=campaign, name=f"{RLO}Wr{ZWSP}en")
    character.refresh_from_db()
    assert character.name == "Wren"
    for viewer, url in ((player, character.get_absolute_url()), (gm, campaign.get_absolute_url())):
        body = as_user(viewer).get(url).content.decode()
        assert "Wren" in body
        assert RLO not in body and ZWSP not in body


def test_renaming_through_the_form_cleans_the_name(campaign, player, as_user):
    character = make_character(player, campaign=campaign)
    response = as_user(player).post(
        reverse("characters:rename", args=[character.pk]), {"name": f"Mo{RLO}ss{ZWSP}", "version": character.version}
    )
    assert response.status_code in (200, 302)
    assert Character.objects.get(pk=character.pk).name == "Moss"


def test_a_campaign_created_with_rlo_and_zwsp_is_listed_cleaned(gm, as_user):
    client = as_user(gm)
    response = create_campaign(client, f"{RLO}The Vault{ZWSP}")
    assert response.status_code == 302
    campaign = Campaign.objects.get()
    assert campaign.name == "The Vault"
    body = client.get(campaign.get_absolute_url()).content.decode()
    assert RLO not in body and ZWSP not in body


def test_a_name_of_only_invisible_characters_is_refused_readably(gm, as_user):
    response = create_campaign(as_user(gm), ZWSP * 4)
    assert response.status_code in (200, 400, 422)
    assert "Give the campaign a name" in response.content.decode()
    assert not Campaign.objects.exists()


def test_the_stylesheet_isolates_displayed_names(client):
    from django.contrib.staticfiles import finders

    css = Path(finders.find("css/lantern.css")).read_text(encoding="utf-8")
    assert "unicode-bidi: isolate" in css
    assert ".roll > strong" in css  # the table log's names
