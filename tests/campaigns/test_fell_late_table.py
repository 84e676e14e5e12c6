"""Fell (late revision) at the GM's table (issue 16): an encounter, the clock and a roll request, through the pages.

Seed 001 (../shared/seeds/001_9a541ab1b0476299.txt): Turns and Rounds, Attacks, Morale, Harm and Death, Luck,
Deprivation and Fatigue, Spells; spec §001.2 (the starting kit: a day's rations, three one-hour torches).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Encounter, Npc, RollRequest
from characters.models import Item, Roll
from rules import dice
from rules.dice import ScriptedRandom
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def fell(gm, player, other_player):
    return make_table("fell-late", gm, player, other_player, name="The Barrow")


@pytest.fixture
def wren(player, fell):
    return make_character(player, fell, system="fell-late", name="Wren")


def _post(client, campaign, url, page_url=None, **changes):
    page = client.get(page_url or reverse("campaigns:detail", args=[campaign.pk]))
    response = client.post(url, form_fields(page, url, **changes), **HTMX)
    assert response.status_code == 200, text_of(response)
    return response


def test_a_fell_late_fight_from_the_table(fell, wren, gm, as_user, monkeypatch):
    """The party first as a group; harm − armour to HP, a lone enemy at 0 HP calls for morale, harm past HP
    for its STR test; the NPC's rolls are the GM's; two 10-second rounds become a minute of game time."""
    client = as_user(gm)
    _post(client, fell, reverse("campaigns:encounter_action", args=[fell.pk, "start"]), name="Barrow goblins")
    encounter = Encounter.objects.get(active=True)
    assert encounter.order[0] == "The party acts, as a group" and "DEX contest" in encounter.order_summary
    assert not Roll.objects.filter(procedure="combat_order").exists()  # no dice decide the order
    add = reverse("campaigns:encounter_action", args=[fell.pk, "add"])
    _post(client, fell, add, name="Goblin", hp="2", armour="1", str_die="4", attack_die="4", wil_die="4", role="lone")
    goblin = Npc.objects.get(encounter=encounter)
    damage = reverse("campaigns:npc_action", args=[fell.pk, goblin.pk, "damage"])
    response = _post(client, fell, damage, amount="3")
    goblin.refresh_from_db()
    assert goblin.stats["hp"] == 0 and not goblin.defeated and "Enemy morale" in goblin.prompt
    assert "morale check" in text_of(response)
    # Seed 001, Harm and Death: harm past HP is critical: the table rolls its STR test then and there.
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([4]))
    _post(client, fell, damage, amount="3", visibility="gm")
    goblin.refresh_from_db()
    assert "2 critical harm" in goblin.prompt and "STR d4 = 4" in goblin.prompt and not goblin.defeated
    test = Roll.objects.get(procedure="critical")
    assert test.character is None and test.roller == gm and test.visibility == "gm"
    assert test.label == "Goblin: Critical harm test" and test.outcome == "holds"
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([2]))
    _post(client, fell, damage, amount="2")
    goblin.refresh_from_db()
    assert goblin.defeated and "It is dead" in goblin.prompt  # STR d4 failed: below d4
    assert Roll.objects.filter(procedure="critical", outcome="dead", visibility="public").count() == 1
    roll = reverse("campaigns:npc_action", args=[fell.pk, goblin.pk, "roll"])
    _post(client, fell, roll, key="attack", visibility="public")
    assert Roll.objects.get(procedure="attack").character is None
    _post(client, fell, reverse("campaigns:encounter_action", args=[fell.pk, "next"]))
    _post(client, fell, reverse("campaigns:encounter_action", args=[fell.pk, "end"]))
    fell.refresh_from_db()
    assert fell.game_minutes == 1 and not RollRequest.objects.exists()  # no end-of-combat roll in Fell


def _advance(client, campaign, unit, count):
    url = reverse("campaigns:time_advance", args=[campaign.pk])
    return _post(client, campaign, url, unit=unit, count=str(count))


def test_the_clock_burns_torches_eats_rations_ends_drawbacks_at_dawn_and_rolls_luck(fell, wren, gm, player, as_user):
    """Seed 001, Luck: a hidden d6 at the start of each exploration and travel round; the kit's torch burns an
    hour and its day of rations feeds one day; a day unfed deprives; dawn ends a hurried casting's drawbacks."""
    torch = wren.items.get(kind="light")
    sheet_url = wren.get_absolute_url()
    light = reverse("characters:roll", args=[wren.pk, "light"])
    _post(as_user(gm), fell, reverse("campaigns:time_daylight", args=[fell.pk]), daylight="0")  # underground
    _post(as_user(player), fell, light, page_url=sheet_url, source=str(torch.pk), lit="on")
    wren.state = {**wren.state, "wil_impaired": True}
    wren.save(update_fields=["state"])
    response = _advance(as_user(gm), fell, "exploration", 3)
    torch.refresh_from_db()
    assert torch.data["burned"] == 30 and torch.quantity == 3
    luck = Roll.objects.filter(procedure="luck")
    assert luck.count() == 3 and {r.visibility for r in luck} == {"gm"} and {r.character for r in luck} == {None}
    assert "Light: torch (1 hour)" in text_of(response)
    _advance(as_user(gm), fell, "travel", 1)
    torch.refresh_from_db()
    assert torch.quantity == 2 and torch.data["lit"] is False and Roll.objects.filter(procedure="luck").count() == 4
    _advance(as_user(gm), fell, "day", 1)  # past midnight and dawn: the day's rations eaten
    wren.refresh_from_db()
    assert not wren.items.filter(kind="ration").exists() and wren.state["wil_impaired"] is False
    assert Roll.objects.filter(procedure="luck").count() == 4  # a whole day rolls no luck die
    _advance(as_user(gm), fell, "day", 2)
    wren.refresh_from_db()
    assert wren.state["deprived"] is True and wren.state["days_deprived"] == 2 and wren.state["fatigue"] == 1
    assert not Item.objects.filter(character=wren, kind="ration").exists()


def test_the_gm_asks_for_a_wil_test_and_the_player_answers(fell, wren, gm, player, as_user):
    """Seed 001, Tests: the GM fixes the attribute; the roll is the player's, with the GM's input kept."""
    ask = reverse("campaigns:request_new", args=[fell.pk])
    _post(as_user(gm), fell, ask, **{"fix-attribute": "WIL", "characters": [wren.pk]})
    request = RollRequest.objects.get()
    assert request.inputs["attribute"] == "WIL"
    page_url = reverse("campaigns:sheet_requests", args=[fell.pk, wren.pk])
    answer = reverse("campaigns:request_answer", args=[fell.pk, request.pk, wren.pk])
    _post(as_user(player), fell, answer, page_url=page_url)
    roll = Roll.objects.get(character=wren, procedure=request.procedure)
    assert roll.inputs["attribute"] == "WIL" and roll.roller == player
    request.refresh_from_db()
    assert request.answers.get().outcome == roll.outcome and request.group_summary == ""


def test_the_morale_prompt_becomes_a_request_for_the_player_s_wil_contest(fell, wren, gm, player, as_user):
    """Seed 001, Morale: the character who set it off rolls a WIL contest against the enemy's die; the GM fixes
    the trigger and the NPC's WIL die (the tracker's prompt names both)."""
    fields = as_user(gm).get(reverse("campaigns:request_fields", args=[fell.pk]), {"procedure": "morale"})
    ask = reverse("campaigns:request_new", args=[fell.pk])
    response = as_user(gm).post(
        ask, form_fields(fields, ask, **{"fix-trigger": "lone", "fix-npc_die": "4", "characters": [wren.pk]}), **HTMX
    )
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    assert request.procedure == "morale" and request.inputs == {"trigger": "lone", "npc_die": "4"}
    page_url = reverse("campaigns:sheet_requests", args=[fell.pk, wren.pk])
    _post(as_user(player), fell, reverse("campaigns:request_answer", args=[fell.pk, request.pk, wren.pk]), page_url)
    roll = Roll.objects.get(character=wren, procedure="morale")
    assert roll.inputs["npc_die"] == "4" and roll.summary.startswith("A lone enemy's HP reached zero")
