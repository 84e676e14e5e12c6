"""Issue 26, the player's side: outcomes in plain words, a log people read, a kit that lets the first night happen.

Every request posts what the page renders (tests.pages.form_fields)."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters.models import Character, Roll
from rules import SYSTEMS
from tests.conftest import make_character, make_table
from tests.pages import form_fields, text_of, track_text


@pytest.fixture
def table(gm, player):
    return make_table("chaos-conquest", gm, player)


def _sheet(client, character: Character):
    return client.get(character.get_absolute_url())


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_creation_is_one_log_line_in_words_without_a_chip_per_die(as_user, gm, player, system):
    """Creation, made through its own form: one line in the log, its sentences, and no d1/d3/d5 chips."""
    table = make_table(system, gm, player)
    client = as_user(player)
    url = reverse("characters:create")
    page = client.get(url, {"system": system, "campaign": table.pk})
    fields = form_fields(page, url, name="Wren")
    assert client.post(url, fields).status_code == 302
    character = Character.objects.get(owner=player)
    (roll,) = Roll.objects.filter(character=character)
    assert roll.dice == [] and roll.summary
    log = re.search(r'<ul class="plain roll-log".*?</ul>', _sheet(client, character).content.decode(), re.S)
    assert log is not None
    assert log.group(0).count('class="roll"') == 1 and 'class="die' not in log.group(0)
    assert "spec §" not in roll.summary and "_" not in roll.summary


def test_a_new_chaos_conquest_character_can_rest_the_first_night(as_user, player, table):
    """character-creation.md's kit plus three days' rations: the night's rest eats one and happens."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    client = as_user(player)
    action = reverse("characters:roll", args=[hero.pk, "rest"])
    response = client.post(action, form_fields(_sheet(client, hero), action, kind="night"), HTTP_HX_REQUEST="true")
    assert response.status_code == 200, text_of(response)
    assert "Ate from Rations (3 days)" in text_of(response)
    hero.refresh_from_db()
    assert hero.items.get(name="Rations (3 days)").data["days"] == 2


def test_a_track_never_reads_below_zero(as_user, player, table):
    """Stamina stored past zero (the seed counts harm past it) reads 0/2, never -18/2."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    hero.state = {**hero.state, "stamina": -18, "stamina_max": 2, "status": "dead"}
    hero.save(update_fields=["state"])
    response = _sheet(as_user(player), hero)
    assert track_text(response, "stamina") == "0/2"
    assert "−18" not in text_of(response) and "-18" not in text_of(response)


def test_harmful_odds_name_what_is_at_stake(as_user, player, table):
    """Damage that can kill reads "dies: 50 %", never "50 % to succeed"; a test still reads "to succeed"."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    hero.state = {**hero.state, "stamina": 1, "stamina_max": 1, "status": "fine"}
    hero.save(update_fields=["state"])
    client = as_user(player)
    odds = client.get(reverse("characters:odds", args=[hero.pk, "take_damage"]), {"take_damage-amount": "5"})
    words = text_of(odds)
    assert "dies:" in words and "to succeed" not in words
    save = client.get(reverse("characters:odds", args=[hero.pk, "save"]))
    assert "to succeed" in text_of(save)


def test_the_dead_read_as_a_result_not_an_error(as_user, player, table):
    """After death, "The dead take no more damage." is where things stand: no alert, in the odds or the answer."""
    hero = make_character(player, table, system="chaos-conquest", name="Brannoc")
    client = as_user(player)
    page = _sheet(client, hero)
    action = reverse("characters:roll", args=[hero.pk, "take_damage"])
    fields = form_fields(page, action, amount="20", armour=None)
    hero.state = {**hero.state, "stamina": -18, "status": "dead"}
    hero.save(update_fields=["state"])
    odds = client.get(reverse("characters:odds", args=[hero.pk, "take_damage"]), HTTP_HX_REQUEST="true")
    assert "The dead take no more damage." in text_of(odds)
    assert 'role="alert"' not in odds.content.decode() and "data-settled" in odds.content.decode()
    answer = client.post(action, fields, HTTP_HX_REQUEST="true")
    assert answer.status_code == 422  # nothing happened
    assert "The dead take no more damage." in text_of(answer) and 'role="alert"' not in answer.content.decode()
