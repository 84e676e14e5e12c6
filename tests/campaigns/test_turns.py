"""Whose turn (issue 36, item 6): the round's order on the GM's strip (the clock) and on each sheet, "your turn" when
it is the party's, the GM's Next turn, and how the fight's rounds count as game time.

Each system's order comes from its seed through the registry (rules.base ``combat_order`` and its ``sides``): the
rules tests name the seed rule (tests/rules/test_*_table.py, ``test_whose_turn_*``); these run it through the app.
"""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns import push, session
from campaigns.models import Encounter
from rules import dice
from tests.pages import HTMX, form_fields, text_of
from tests.recorded import Since, topics

pytestmark = pytest.mark.django_db


def _clock(client, campaign) -> str:
    return text_of(client.get(campaign.get_absolute_url()))


def _sheet_fight(client, campaign, character) -> str:
    return text_of(client.get(reverse("campaigns:sheet_fight", args=[campaign.pk, character.pk])))


def _next_turn(client, campaign):
    url = reverse("campaigns:clock", args=[campaign.pk])
    return client.post(url, form_fields(client.get(campaign.get_absolute_url()), url, action="next_turn"), **HTMX)


def test_the_gm_moves_the_turn_from_the_strip_and_the_players_sheet_says_when_it_is_theirs(
    campaign, hero, gm, player, as_user
):
    """Seed 000, Combat: the party's turn first, then the enemies'; after them a new round, the party's again."""
    gm_client, player_client = as_user(gm), as_user(player)
    session.encounter_start(campaign_id=campaign.pk, name="Wolves", by=gm)
    strip = _clock(gm_client, campaign)
    assert "The party's turn (1 of 2): The party acts, as a group · next: The enemies act" in strip
    assert "Next turn" in strip
    assert "Your turn" in _sheet_fight(player_client, campaign, hero)

    response = _next_turn(gm_client, campaign)
    assert response.status_code == 200, text_of(response)
    # the strip's answer is the clock itself
    assert "Not the party's turn (2 of 2): The enemies act" in text_of(response)
    assert (Encounter.objects.get().round, Encounter.objects.get().turn) == (1, 1)
    shown = _sheet_fight(player_client, campaign, hero)
    assert "Not your turn yet" in shown and "The enemies act" in shown and "Your turn" not in shown

    response = _next_turn(gm_client, campaign)  # past the last step: the next round, the party's turn again
    fight = Encounter.objects.get()
    assert (fight.round, fight.turn) == (2, 0) and "Combat: round 2" in text_of(response)
    assert "Your turn" in _sheet_fight(player_client, campaign, hero)
    assert "Next turn" not in _clock(player_client, campaign)  # only the GM moves it


@pytest.mark.parametrize(("faces", "shown"), [([3, 3], "Both sides act at once"), ([1, 6], "Not the party's turn")])
def test_a_tie_says_both_sides_act_at_once_and_each_player_acts_then(cc, wren, gm, player, as_user, faces, shown):
    """Seed 002, Combat, "Establish combat order": a d6 each side; a tie is one step of both sides at once."""
    session.encounter_start(campaign_id=cc.pk, name="Ghouls", by=gm, rng=dice.ScriptedRandom(faces))
    assert shown in _clock(as_user(gm), cc)
    sheet = _sheet_fight(as_user(player), cc, wren)
    if faces[0] == faces[1]:
        assert "Your turn, both sides at once: Both sides act at once" in sheet
    else:
        assert "Not your turn yet" in sheet and "The enemies act" in sheet


def test_the_strip_says_how_the_rounds_count_as_game_time(cc, wren, gm, as_user):
    """Seed 002, Time: a round is 20 seconds; the fight's rounds go on the clock when it ends, and the strip says
    so while it runs."""
    session.encounter_start(campaign_id=cc.pk, name="Ghouls", by=gm, rng=random.Random(1))
    session.encounter_next_round(campaign_id=cc.pk, by=gm, rng=random.Random(2))
    strip = _clock(as_user(gm), cc)
    assert "(+40 seconds for 2 rounds, when the fight ends)" in strip
    session.encounter_next_round(campaign_id=cc.pk, by=gm, rng=random.Random(3))
    assert "(+1 minute for 3 rounds, when the fight ends)" in _clock(as_user(gm), cc)


def test_next_turn_with_no_fight_or_from_a_player_changes_nothing(campaign, hero, gm, player, as_user):
    """Bad input gets a sentence and changes nothing; a player cannot move the turn."""
    url = reverse("campaigns:clock", args=[campaign.pk])
    response = as_user(gm).post(url, {"action": "next_turn"}, **HTMX)
    assert response.status_code == 422 and "No fight is running" in text_of(response)
    session.encounter_start(campaign_id=campaign.pk, name="Wolves", by=gm)
    assert as_user(player).post(url, {"action": "next_turn"}, **HTMX).status_code == 404
    assert Encounter.objects.get().turn == 0


def test_moving_the_turn_pushes_the_strip_and_every_sheet(campaign, hero, gm, player, as_user):
    """Live: a turn moved redraws the clock on every table page and the fight on every sheet, with no reload."""
    session.encounter_start(campaign_id=campaign.pk, name="Wolves", by=gm)
    since = Since(campaign.pk)
    written = session.encounter_next_turn(campaign_id=campaign.pk, by=gm)
    assert set(topics(since.events())) == written.regions
    pages = [(player.pk, f"sheet-{hero.pk}"), (gm.pk, "table"), (player.pk, "table")]
    out = push.render_push(campaign.pk, since.events(), pages)
    sheet = out[player.pk, f"sheet-{hero.pk}"]
    assert 'id="sheet-fight"' in sheet and "Not your turn yet" in sheet
    for user in (gm, player):
        table = out[user.pk, "table"]
        assert 'id="clock"' in table and "data-whose-turn" in table and "The enemies act" in table
