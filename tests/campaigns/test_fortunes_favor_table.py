"""Fortune's Favor at the GM's table (issue 16), through the real pages: a Test asked of the party comes back as a
Group Test, a fight runs in three phases with the NPC's attacks as the GM's rolls, and the clock keeps hours awake
and rolls treacherous terrain. Seed 003 (../shared/seeds/003_eeb4db86843669ac.txt), spec §003.4-§003.8."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Encounter, Npc, RollRequest
from characters.models import Character, Roll
from rules.systems.fortunes_favor.checks import group_result
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def ff(gm, player, other_player):
    return make_table("fortunes-favor", gm, player, other_player, name="The Thistle Road")


@pytest.fixture
def party(ff, player, other_player):
    return make_character(player, ff, system="fortunes-favor", name="Wren"), make_character(
        other_player, ff, system="fortunes-favor", name="Ash", seed=11
    )


def _post(client, campaign, url, **changes):
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    response = client.post(url, form_fields(page, url, **changes), **HTMX)
    assert response.status_code == 200, text_of(response)
    return response


def test_a_test_asked_of_the_party_is_a_group_test(ff, party, gm, player, other_player, as_user):
    """Seed 003, Group Tests: each answers the GM's Mettle test 13/8; the table shows the net result."""
    _post(
        as_user(gm),
        ff,
        reverse("campaigns:request_new", args=[ff.pk]),
        **{"fix-stat": "mettle", "fix-success": "13", "fix-failure": "8"},
    )
    request = RollRequest.objects.get()
    assert request.procedure == "test" and request.inputs == {"stat": "mettle", "success": 13, "failure": 8}
    for who, character in zip((player, other_player), party, strict=True):
        client = as_user(who)
        page = client.get(reverse("campaigns:sheet_requests", args=[ff.pk, character.pk]))
        action = reverse("campaigns:request_answer", args=[ff.pk, request.pk, character.pk])
        assert "success" not in form_fields(page, action)  # the GM's points are not the player's to change
        response = client.post(action, form_fields(page, action), **HTMX)
        assert response.status_code == 200, text_of(response)
    request.refresh_from_db()
    outcomes = list(request.answers.values_list("outcome", flat=True))
    expected = group_result(*(outcomes.count(key) for key in ("pass", "mixed", "fail")))
    assert request.group_outcome == expected and request.group_summary.startswith("Group test:")
    assert "Group:" in text_of(as_user(gm).get(reverse("campaigns:requests", args=[ff.pk])))


def test_a_fight_in_three_phases_with_an_npc_that_attacks_and_falls(ff, party, gm, as_user):
    """Seed 003, Combat: three phases, no dice, 30-second rounds; Exchanges: the NPC's d20 attack is the GM's
    roll; Taking Damage: Health to 0 defeats it; nothing is asked of the players when the fight ends."""
    client = as_user(gm)
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "start"]), name="Bandits")
    encounter = Encounter.objects.get(active=True)
    assert len(encounter.order) == 3 and encounter.order[0].startswith("The surroundings")
    assert not Roll.objects.filter(procedure="combat_order").exists()  # no dice to log
    add = reverse("campaigns:encounter_action", args=[ff.pk, "add"])
    fields = {"health": "9", "stamina": "3", "armor": "13", "counter": "8", "attack": "2", "damage": "1d8"}
    _post(client, ff, add, name="Bandit", damage_bonus="1", **fields)
    bandit = Npc.objects.get(encounter=encounter)
    assert bandit.stats == {
        **{k: int(v) for k, v in fields.items() if k != "damage"},
        "damage": "1d8",
        "damage_bonus": 1,
    }
    roll_url = reverse("campaigns:npc_action", args=[ff.pk, bandit.pk, "roll"])
    _post(client, ff, roll_url, key="engaged_attack", visibility="gm")
    attack = Roll.objects.get(procedure="engaged_attack")
    assert attack.character is None and attack.roller == gm and attack.label == "Bandit: Attack while Engaged"
    assert [d["sides"] for d in attack.dice] == [20, 6] and attack.odds  # 1d8 a step down: 1d6
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "next"]))
    _post(client, ff, reverse("campaigns:npc_action", args=[ff.pk, bandit.pk, "damage"]), amount="12")
    bandit.refresh_from_db()
    assert bandit.defeated and bandit.stats["health"] == 0 and "Bandit is defeated" in bandit.prompt
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "end"]))
    ff.refresh_from_db()
    assert ff.game_minutes == 1 and not RollRequest.objects.exists()  # two 30-second rounds


def test_the_clock_keeps_hours_awake_and_rolls_treacherous_terrain(ff, party, gm, as_user):
    """Seed 003, A Night's Rest: past 24 hours awake, a Mettle test each hour; Treacherous Terrain: Mettle
    13/8 each hour; both on each sheet, in its history."""
    wren, ash = party
    Character.objects.filter(pk=wren.pk).update(state={**wren.state, "hours_awake": 23})
    client = as_user(gm)
    url = reverse("campaigns:time_advance", args=[ff.pk])
    response = _post(client, ff, url, unit="hour", count="2")
    wren.refresh_from_db()
    ash.refresh_from_db()
    ff.refresh_from_db()
    assert ff.game_minutes == 120 and wren.state["hours_awake"] == 25 and ash.state["hours_awake"] == 2
    assert "25 hours awake, Mettle" in ff.clock_note and "Ash: 2 hours awake." in text_of(response)
    _post(client, ff, url, unit="terrain", count="1")
    ash.refresh_from_db()
    assert ash.state["hours_awake"] == 3
    assert wren.changes.filter(what__startswith="Time passes").count() == 2
    ff.refresh_from_db()
    assert "Treacherous terrain" in ff.clock_note


def test_the_clock_counts_30_second_rounds_in_seconds(ff, party, gm, as_user):
    """Seed 003, Combat: a round is 30 seconds; the clock keeps the half minute, and two rounds make a minute."""
    wren, _ = party
    Character.objects.filter(pk=wren.pk).update(state={**wren.state, "statuses": {"Rattled": 1}})
    client = as_user(gm)
    url = reverse("campaigns:time_advance", args=[ff.pk])
    response = _post(client, ff, url, unit="round", count="1")
    ff.refresh_from_db()
    wren.refresh_from_db()
    assert (ff.game_minutes, ff.game_seconds) == (0, 30) and "day 1, 00:00:30" in text_of(response)
    assert wren.state["statuses"] == {}
    _post(client, ff, url, unit="round", count="3")
    ff.refresh_from_db()
    assert (ff.game_minutes, ff.game_seconds) == (2, 0) and "day 1, 00:02" in text_of(
        client.get(reverse("campaigns:time", args=[ff.pk]))
    )
    # A fight from the half minute: its three rounds (90 s) end on the next whole minute after 2:30 + 90 s.
    _post(client, ff, url, unit="round", count="1")
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "start"]), name="Wolves")
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "next"]))
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "next"]))
    _post(client, ff, reverse("campaigns:encounter_action", args=[ff.pk, "end"]))
    ff.refresh_from_db()
    assert (ff.game_minutes, ff.game_seconds) == (4, 0)
