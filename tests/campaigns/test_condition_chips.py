"""Condition chips beside the roll controls (issue 26): a condition the character is under (the table's darkness, a
status set on them) shows beside the rolls whose exact odds it changes, saying what it does, and nowhere else; the
chips follow the odds as inputs change and as the GM toggles the darkness (the push carries them)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns import push, session
from campaigns.models import Campaign, Membership
from live.events import SheetsChanged
from tests.campaigns.test_table_conditions import _dark
from tests.characters.test_fortunes_favor_app import set_state
from tests.conftest import make_character
from tests.pages import HTMX, roll_form, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db

CHIP = re.compile(r'<span class="chip[^"]*" data-condition="([^"]+)" title="([^"]*)">([^<]*)</span>')


def _chips(response) -> list[tuple[str, str, str]]:
    return CHIP.findall(response.content.decode())


def _control(client, character, procedure: str):
    response = client.get(reverse("characters:control", args=[character.pk, procedure]), **HTMX)
    assert response.status_code == 200, text_of(response)
    return response


def _fraction(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _save(character, attribute: str) -> Fraction:
    character.refresh_from_db()
    current = character.to_sheet().state["attributes"][attribute]["current"]
    return Fraction(min(max(current, 1), 19), 20)


def test_darkness_shows_beside_the_save_with_its_exact_odds_and_not_beside_a_rest(cc, wren, gm, player, as_user):
    """Equipment.md, Light (seed 002's source): in darkness saves are at disadvantage; a rest rolls no dice it
    changes."""
    client = as_user(player)
    assert _chips(_control(client, wren, "save")) == []  # in daylight: nothing
    _dark(as_user(gm), cc)
    plain = _save(wren, "STR")  # the save's default attribute
    [(key, title, words)] = _chips(_control(client, wren, "save"))
    assert key == "table-light" and words.startswith("Dark: ") and words.endswith(" to succeed")
    assert title == f"exactly {_fraction(plain)} without it, {_fraction(plain**2)} now"
    assert _chips(_control(client, wren, "rest")) == []
    # As the player changes the inputs, the chip follows the odds.
    url, fields = roll_form(client, wren, "save", attribute="WIL")
    typed = client.get(reverse("characters:odds", args=[wren.pk, "save"]), fields, **HTMX)
    wil = _save(wren, "WIL")
    assert typed.status_code == 200 and f'data-odds="{_fraction(wil**2)}"' in typed.text
    assert [key for key, _, _ in _chips(typed)] == ["table-light"]


def test_the_gms_party_save_tool_shows_the_darkness(cc, wren, gm, player, other_player, as_user):
    make_character(other_player, cc, system="chaos-conquest", name="Ash", seed=11)
    _dark(as_user(gm), cc)
    table = as_user(gm).get(reverse("campaigns:detail", args=[cc.pk]))
    assert any(key == "table-light" for key, _, _ in _chips(table)), "no chip on the party save"


def test_a_status_shows_beside_the_tests_it_changes(gm, player, as_user):
    """Seed 003, Statuses: Rattled takes 2 off tests; it changes no rest."""
    table = Campaign.objects.create(name="The Gilded Road", system="fortunes-favor")
    Membership.objects.create(campaign=table, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=table, user=player)
    sable = set_state(make_character(player, table, system="fortunes-favor", name="Sable"))
    client = as_user(player)
    assert _chips(_control(client, sable, "test")) == []
    set_state(sable, statuses={"Rattled": 0})
    sable.version += 1
    sable.save(update_fields=["version"])
    [(key, _, words)] = _chips(_control(client, sable, "test"))
    assert key == "status-Rattled" and words.startswith("Rattled: ")
    assert _chips(_control(client, sable, "rest")) == []


def test_darkness_in_a_system_whose_rolls_it_does_not_change_shows_no_chip(campaign, hero, gm, player, as_user):
    """Fell (draft) tracks light for its banner, but no roll of its reads the table's light."""
    _dark(as_user(gm), campaign)
    hero.refresh_from_db()
    assert hero.table_conditions().get("light")
    assert _chips(as_user(player).get(hero.get_absolute_url())) == []
    assert _chips(_control(as_user(player), hero, "test")) == []


def test_toggling_darkness_pushes_the_chips_to_every_open_sheet(cc, wren, gm, player, as_user, monkeypatch):
    """The push a condition change sends (every sheet's vitals, details and requests) carries each roll form's
    default odds with their chips, and the chip on the odds of a request waiting for the player; back in daylight
    it carries none."""
    session.request_create(
        campaign_id=cc.pk, procedure="save", fixed={"attribute": "DEX"}, character_ids=[wren.pk], minutes=10, by=gm
    )
    sent = Since(cc.pk)
    page = [(player.pk, f"sheet-{wren.pk}")]
    _dark(as_user(gm), cc)
    assert sent.of(SheetsChanged) == [SheetsChanged(regions=("vitals", "details", "requests"))]
    out = push.render_push(cc.pk, sent.events(), page)[page[0]]
    odds = re.search(r'<div id="default-odds".*?</div>', out, re.S).group(0)
    save = re.search(r'<template data-procedure="save">(.*?)</template>', odds, re.S).group(1)
    assert 'data-condition="table-light"' in save and "Dark: " in save
    rest = re.search(r'<template data-procedure="rest">(.*?)</template>', odds, re.S).group(1)
    assert "data-condition" not in rest
    prompt = re.search(r'<div id="sheet-requests".*?id="rq-odds-\d+"[^>]*>(.*?)</p>', out, re.S)
    assert prompt and 'data-condition="table-light"' in prompt.group(1)
    sent.clear()
    _dark(as_user(gm), cc, daylight="1")
    assert sent.of(SheetsChanged) == [SheetsChanged(regions=("vitals", "details", "requests"))]
    out = push.render_push(cc.pk, sent.events(), page)[page[0]]
    assert "data-condition" not in out
