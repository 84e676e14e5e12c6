"""Counts one account could grow without end, each held to a cap with a sentence (issue 23).

Characters per account (the character list draws them all), characters per table (the table page draws a card
for each), campaigns one account runs (the campaign list draws them all). Past a cap the page says why and
nothing is created.
"""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns.models import Campaign, Membership
from campaigns.services import MAX_CAMPAIGNS_RUN
from characters.models import Character
from characters.services import MAX_CHARACTERS, MAX_SEATS, character_set_campaign
from characters.transfer import export_character
from rules import SYSTEMS, RulesError
from tests.conftest import make_character, make_user
from tests.pages import text_of

pytestmark = pytest.mark.django_db


def _creation_form(system_id: str, campaign=None) -> dict:
    empty = {p.name: "" for p in SYSTEMS[system_id].creation_params()}
    return {"system": system_id, **({"campaign": campaign.pk} if campaign else {}), **empty}


def _fill(owner, count: int, campaign=None) -> None:
    """Rows enough to reach a cap (their sheets do not matter to it)."""
    system = campaign.system if campaign else "fell-draft"
    Character.objects.bulk_create(
        Character(owner=owner, campaign=campaign, system=system, name=f"Extra {n}") for n in range(count)
    )


def test_an_account_at_its_character_cap_makes_no_more(player, as_user):
    _fill(player, MAX_CHARACTERS - 1)
    client = as_user(player)
    assert client.post(reverse("characters:create"), _creation_form("fell-draft")).status_code == 302
    response = client.post(reverse("characters:create"), _creation_form("fell-draft"))
    assert response.status_code == 400
    assert f"You have {MAX_CHARACTERS} characters" in text_of(response)
    assert Character.objects.filter(owner=player).count() == MAX_CHARACTERS


def test_an_account_at_its_character_cap_imports_no_more(player, as_user):
    hero = make_character(player)
    _fill(player, MAX_CHARACTERS - 1)
    upload = SimpleUploadedFile("hero.json", json.dumps(export_character(hero)).encode())
    response = as_user(player).post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 400 and f"You have {MAX_CHARACTERS} characters" in text_of(response)
    assert Character.objects.filter(owner=player).count() == MAX_CHARACTERS


def test_a_full_table_seats_no_more_characters(campaign, gm, player, as_user):
    _fill(gm, MAX_SEATS, campaign)
    response = as_user(player).post(reverse("characters:create"), _creation_form("fell-draft", campaign))
    assert response.status_code == 400
    assert f"{campaign.name} has {MAX_SEATS} characters already" in text_of(response)
    assert not Character.objects.filter(owner=player).exists()


def test_a_full_table_takes_no_character_brought_from_elsewhere(campaign, gm, player):
    """The seat cap holds on every way to the table: a character brought over, not only one made there."""
    _fill(gm, MAX_SEATS, campaign)
    wanderer = make_character(player)
    with pytest.raises(RulesError, match=f"{MAX_SEATS} characters already"):
        character_set_campaign(character_id=wanderer.pk, campaign=campaign, by=player)
    wanderer.refresh_from_db()
    assert wanderer.campaign_id is None


def test_an_account_at_its_campaign_cap_starts_no_more(player, as_user):
    for n in range(MAX_CAMPAIGNS_RUN):
        Membership.objects.create(
            campaign=Campaign.objects.create(name=f"Table {n}", system="fell-draft"), user=player, role="gm"
        )
    others = make_user("someone")
    Membership.objects.create(campaign=Campaign.objects.create(name="Seat", system="fell-draft"), user=others)
    response = as_user(player).post(reverse("campaigns:create"), {"name": "One more", "system": "fell-draft"})
    assert response.status_code == 400
    assert f"You run {MAX_CAMPAIGNS_RUN} campaigns" in text_of(response)
    assert not Campaign.objects.filter(name="One more").exists()
    # Someone else's cap is their own.
    assert (
        as_user(others).post(reverse("campaigns:create"), {"name": "Mine", "system": "fell-draft"}).status_code == 302
    )
