"""A roll changes only what its roller may edit (issue 9, finding 1).

A player's roll that names another player's character (an attack's target, a contest's opponent, a helper
whose spell die backlashes) never writes that sheet: the change is offered to its owner and the GM, who
apply or decline it. Such rolls are seen by the whole table. Every procedure of every system that names
another character is covered, found by walking the registry rather than listed by hand.
"""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import services
from characters.models import OFFERS_PENDING_MAX, Change, Character, OfferedChange, Roll
from rules import SYSTEMS, dice
from rules.base import Sheet
from tests.conftest import make_character
from tests.pages import HTMX, form_fields, text_of


def _named_character_procedures():
    """(system, procedure, param) for every player procedure whose inputs name another character."""
    found = []
    for system_id, system in SYSTEMS.items():
        sheet = Sheet(state=system.default_state())
        for key, procedure in system.procedures().items():
            if procedure.gm_only:
                continue
            for param in procedure.params(sheet):
                if param.kind == "character":
                    found.append(pytest.param(system_id, key, param.name, id=f"{system_id}-{key}-{param.name}"))
    return found


NAMED = _named_character_procedures()


def test_the_registry_has_procedures_that_name_other_characters():
    """Guards the parametrisation below: an empty list would make every test of this module vanish."""
    assert {p.values[0] for p in NAMED} == {"fell-draft", "fell-late", "chaos-conquest", "fortunes-favor"}
    assert any(p.values[1] == "attack" for p in NAMED)


@pytest.fixture
def table(gm, player, other_player):
    """One campaign per system, each with the player's hero and the other player's rival."""

    def make(system_id: str):
        campaign = Campaign.objects.create(name=f"Table of {system_id}", system=system_id)
        Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
        Membership.objects.create(campaign=campaign, user=player)
        Membership.objects.create(campaign=campaign, user=other_player)
        hero = make_character(player, campaign, system=system_id, name="Wren")
        rival = make_character(other_player, campaign, system=system_id, name="Ash", seed=11)
        return hero, rival

    return make


def _roll_fields(client, hero: Character, procedure: str, **changes) -> dict:
    url = reverse("characters:roll", args=[hero.pk, procedure])
    return url, form_fields(client.get(hero.get_absolute_url()), url, **changes)


def _snapshot(character: Character):
    character.refresh_from_db()
    return character.version, character.state


@pytest.mark.parametrize(("system_id", "procedure", "param"), NAMED)
@pytest.mark.parametrize("visibility", ["private", "gm"])
def test_a_hidden_roll_naming_another_players_character_is_refused(
    as_user, player, table, system_id, procedure, param, visibility
):
    hero, rival = table(system_id)
    client = as_user(player)
    url, fields = _roll_fields(client, hero, procedure, **{param: rival.pk, "visibility": visibility})
    before = (_snapshot(hero), _snapshot(rival), Roll.objects.count())
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 422
    assert "seen by the whole table" in text_of(response)
    assert (_snapshot(hero), _snapshot(rival), Roll.objects.count()) == before


@pytest.mark.parametrize(("system_id", "procedure", "param"), NAMED)
def test_a_players_roll_never_writes_another_players_character(
    as_user, player, table, monkeypatch, system_id, procedure, param
):
    """Whatever the dice: the rival's sheet is untouched; what the roll would change waits as an offer."""
    hero, rival = table(system_id)
    client = as_user(player)
    url, fields = _roll_fields(client, hero, procedure, **{param: rival.pk, "visibility": "public"})
    rival_before = _snapshot(rival)
    for seed in range(6):
        monkeypatch.setattr(dice, "system_random", lambda seed=seed: random.Random(seed))
        hero.refresh_from_db()
        response = client.post(url, fields, **HTMX)
        assert response.status_code in (200, 422), text_of(response)
        assert _snapshot(rival) == rival_before
    for offer in OfferedChange.objects.filter(character=rival):
        assert offer.status == OfferedChange.Status.PENDING and offer.offered_by == player
        assert offer.before != offer.after
        assert set(offer.before) | set(offer.after) <= set(rival.state)


@pytest.mark.parametrize(("system_id", "procedure", "param"), NAMED)
def test_the_gms_roll_writes_the_named_character_without_an_offer(
    as_user, gm, table, monkeypatch, system_id, procedure, param
):
    hero, rival = table(system_id)
    client = as_user(gm)
    url, fields = _roll_fields(client, hero, procedure, **{param: rival.pk, "visibility": "gm"})
    for seed in range(3):
        monkeypatch.setattr(dice, "system_random", lambda seed=seed: random.Random(seed))
        assert client.post(url, fields, **HTMX).status_code in (200, 422)
    assert not OfferedChange.objects.exists()


# --- one attack, answered by each member of the table ---------------------------------------------------


def _offered_attack(table, player, monkeypatch) -> tuple[Character, Character, OfferedChange]:
    """The player's Fell hero attacks the other player's rival until a blow lands: one offer waits."""
    hero, rival = table("fell-draft")
    for seed in range(40):
        monkeypatch.setattr(dice, "system_random", lambda seed=seed: random.Random(seed))
        services.character_roll(character_id=hero.pk, procedure="attack", params={"target": rival.pk}, by=player)
        offer = OfferedChange.objects.filter(character=rival).first()
        if offer is not None:
            return hero, rival, offer
    raise AssertionError("no attack in 40 landed")


def _answer_url(offer: OfferedChange, answer: str) -> str:
    return reverse(f"characters:offer_{answer}", args=[offer.character_id, offer.pk])


def test_the_attacked_players_sheet_and_the_gms_card_show_the_offer(
    as_user, player, other_player, gm, table, monkeypatch
):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    roll = offer.roll
    assert "Offered to Ash's player and the GM" in roll.summary and roll.visibility == Roll.Visibility.PUBLIC
    sheet = as_user(other_player).get(reverse("characters:region", args=[rival.pk, "offers"]), **HTMX)
    assert f'action="{_answer_url(offer, "apply")}"' in sheet.content.decode()
    table_page = as_user(gm).get(rival.campaign.get_absolute_url())
    assert f'action="{_answer_url(offer, "apply")}"' in table_page.content.decode()
    # The attacker sees the roll, but has no button to apply it.
    attacker_view = as_user(player).get(rival.get_absolute_url()).content.decode()
    assert _answer_url(offer, "apply") not in attacker_view


@pytest.mark.parametrize("who", ["other_player", "gm"])
def test_the_owner_or_the_gm_applies_the_offer_in_one_tap(as_user, player, table, monkeypatch, request, who):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    answerer = request.getfixturevalue(who)
    page = as_user(answerer).get(rival.get_absolute_url())
    response = as_user(answerer).post(_answer_url(offer, "apply"), form_fields(page, _answer_url(offer, "apply")))
    assert response.status_code == 302
    rival.refresh_from_db()
    offer.refresh_from_db()
    assert offer.status == OfferedChange.Status.APPLIED and offer.resolved_by == answerer
    for key, value in offer.after.items():
        assert rival.state[key] == value
    assert Change.objects.filter(character=rival, what__startswith="Applied Attack").exists()


def test_applying_from_the_table_card_goes_back_to_the_table(as_user, gm, player, table, monkeypatch):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    client = as_user(gm)
    page = client.get(rival.campaign.get_absolute_url())
    response = client.post(_answer_url(offer, "apply"), form_fields(page, _answer_url(offer, "apply")))
    assert response["Location"] == rival.campaign.get_absolute_url()


@pytest.mark.parametrize("who", ["player", "stranger"])
def test_the_attacker_and_strangers_cannot_answer_an_offer(as_user, player, stranger, table, monkeypatch, request, who):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    before = _snapshot(rival)
    for answer in ("apply", "decline"):
        assert as_user(request.getfixturevalue(who)).post(_answer_url(offer, answer)).status_code == 404
    offer.refresh_from_db()
    assert offer.status == OfferedChange.Status.PENDING and _snapshot(rival) == before


def test_an_offer_whose_numbers_moved_on_is_refused_and_can_still_be_declined(
    as_user, other_player, player, table, monkeypatch
):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    key = next(iter(offer.before))
    rival.refresh_from_db()
    Character.objects.filter(pk=rival.pk).update(state={**rival.state, key: offer.after.get(key)})
    before = _snapshot(rival)
    client = as_user(other_player)
    response = client.post(_answer_url(offer, "apply"), **HTMX)
    assert response.status_code == 422 and "changed since that roll" in text_of(response)
    assert _snapshot(rival) == before
    assert client.post(_answer_url(offer, "decline"), **HTMX).status_code == 200
    offer.refresh_from_db()
    assert offer.status == OfferedChange.Status.DECLINED
    assert _snapshot(rival)[1] == before[1]


def test_an_offer_is_answered_once(as_user, other_player, player, table, monkeypatch):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    client = as_user(other_player)
    assert client.post(_answer_url(offer, "decline"), **HTMX).status_code == 200
    before = _snapshot(rival)
    for answer in ("apply", "decline"):
        response = client.post(_answer_url(offer, answer), **HTMX)
        assert response.status_code == 422 and "already declined" in text_of(response)
    assert _snapshot(rival) == before


def test_an_offer_of_another_character_is_not_found_under_this_one(as_user, other_player, player, table, monkeypatch):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    spare = make_character(other_player, rival.campaign, name="Spare", seed=3)
    url = reverse("characters:offer_apply", args=[spare.pk, offer.pk])
    assert as_user(other_player).post(url).status_code == 404


# --- at most OFFERS_PENDING_MAX waiting per character (issue 23) --------------------------------------


def _pile_up(offer: OfferedChange, total: int) -> None:
    """Copies of a real offer until the character holds ``total`` pending ones."""
    copies = total - OfferedChange.objects.filter(character_id=offer.character_id, status="pending").count()
    fields = {f.name: getattr(offer, f.name) for f in OfferedChange._meta.concrete_fields if f.name != "id"}
    OfferedChange.objects.bulk_create(OfferedChange(**fields) for _ in range(copies))


def test_a_roll_that_would_offer_past_the_cap_is_refused_before_its_dice_and_the_sheet_shows_every_offer(
    as_user, player, other_player, table, monkeypatch
):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    _pile_up(offer, OFFERS_PENDING_MAX)
    sheet = as_user(other_player).get(reverse("characters:region", args=[rival.pk, "offers"]), **HTMX)
    assert sheet.content.decode().count('data-offer="') == OFFERS_PENDING_MAX  # all of them, none hidden
    client = as_user(player)
    url, fields = _roll_fields(client, hero, "attack", target=rival.pk, visibility="public")
    before = (_snapshot(hero), _snapshot(rival), Roll.objects.count(), OfferedChange.objects.count())
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 422
    assert f"Ash has {OFFERS_PENDING_MAX} changes waiting for their player or the GM" in text_of(response)
    assert (_snapshot(hero), _snapshot(rival), Roll.objects.count(), OfferedChange.objects.count()) == before
    # Answering one makes room again.
    services.offer_decline(offer_id=offer.pk, by=other_player)
    assert client.post(url, fields, **HTMX).status_code == 200
    assert Roll.objects.count() == before[2] + 1


def test_the_gm_rolls_against_a_character_at_the_cap_as_ever(as_user, gm, player, table, monkeypatch):
    """The GM's rolls write the sheet directly and offer nothing: the cap never stands in their way."""
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    _pile_up(offer, OFFERS_PENDING_MAX)
    client = as_user(gm)
    url, fields = _roll_fields(client, hero, "attack", target=rival.pk, visibility="public")
    assert client.post(url, fields, **HTMX).status_code == 200


def test_offers_held_past_the_cap_before_it_existed_are_counted_on_the_sheet(
    as_user, player, other_player, table, monkeypatch
):
    hero, rival, offer = _offered_attack(table, player, monkeypatch)
    _pile_up(offer, OFFERS_PENDING_MAX + 5)
    sheet = as_user(other_player).get(reverse("characters:region", args=[rival.pk, "offers"]), **HTMX)
    assert sheet.content.decode().count('data-offer="') == OFFERS_PENDING_MAX
    assert "5 more wait behind these" in text_of(sheet)
