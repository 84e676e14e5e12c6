"""Grit & Flesh at the GM's table (issue 16): the encounter tracker, the clock and roll requests, through the
pages. Seed 004 (../shared/seeds/004_ebd0e2535c17253c.txt): Combat Rounds, Melee Attacks, Grit and Flesh,
Rest and Healing; rules-spec §004.4, §004.5."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import session
from campaigns.models import Encounter, Npc, RollRequest
from characters.models import Roll
from characters.services import item_add
from rules import base as rules_base
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(gm, player, other_player):
    return make_table("grit-flesh", gm, player, other_player, name="Saltmarsh")


@pytest.fixture
def mara(player, table):
    return make_character(player, table, system="grit-flesh", name="Mara")


def _post(client, campaign, url, page_url=None, **changes):
    page = client.get(page_url or reverse("campaigns:detail", args=[campaign.pk]))
    return client.post(url, form_fields(page, url, **changes), **HTMX)


def test_a_fight_runs_on_the_gms_initiative_die_and_monsters_from_the_house_line(table, mara, gm, as_user):
    """Seed 004, Combat Rounds: the GM's d6 each round; Grit and Flesh: a monster loses Grit, then Flesh, and
    falls at 0 Flesh; its attack is the GM's roll."""
    client = as_user(gm)
    start = reverse("campaigns:encounter_action", args=[table.pk, "start"])
    assert _post(client, table, start, name="Reavers").status_code == 200
    order = Roll.objects.get(procedure="combat_order")
    assert order.character is None and order.roller == gm and len(order.dice) == 1
    assert Encounter.objects.get(active=True).order[0] in ("The players act", "The enemies act")
    house = reverse("campaigns:encounter_action", args=[table.pk, "add"]) + "?hd=2"
    response = _post(client, table, house)
    assert response.status_code == 200, text_of(response)
    monster = Npc.objects.get(encounter__active=True)
    assert monster.stats == {"grit": 6, "flesh": 2, "hd": 2, "ac": 0, "av": 12, "damage": "0"}  # house defaults
    damage = reverse("campaigns:npc_action", args=[table.pk, monster.pk, "damage"])
    _post(client, table, damage, amount="7")
    monster.refresh_from_db()
    assert (monster.stats["grit"], monster.stats["flesh"], monster.defeated) == (0, 1, False)
    _post(client, table, damage, amount="1", ignore_armour="on")  # a critical: straight to Flesh
    monster.refresh_from_db()
    assert monster.defeated and "100 XP" in monster.prompt and "morale" not in monster.prompt
    attack = reverse("campaigns:npc_action", args=[table.pk, monster.pk, "roll"])
    assert _post(client, table, attack, key="attack", visibility="public").status_code == 200
    roll = Roll.objects.get(procedure="attack")
    assert roll.character is None and roll.roller == gm and roll.odds and "2 this round" in roll.summary
    _post(client, table, reverse("campaigns:encounter_action", args=[table.pk, "next"]))
    assert Roll.objects.filter(procedure="combat_order").count() == 2
    _post(client, table, reverse("campaigns:encounter_action", args=[table.pk, "end"]))
    table.refresh_from_db()
    assert table.game_minutes == 2  # two rounds, a minute each
    asked = RollRequest.objects.get()
    assert asked.procedure == "after_fight" and list(asked.answers.values_list("character", flat=True)) == [mara.pk]


def test_the_clock_burns_a_torch_and_rest_heals_only_when_asked(table, mara, gm, player, as_user):
    """House reading: a torch burns six turns; seed 004, Rest and Healing: Grit heals on a Rest roll only."""
    torch = item_add(character_id=mara.pk, item=rules_base.Item("Torch", "light", 0, 1, {"lit": True}), by=player).row
    mara.state = {**mara.state, "grit": 0, "flesh": mara.state["flesh_max"]}
    mara.save()
    advance = reverse("campaigns:time_advance", args=[table.pk])
    response = _post(as_user(gm), table, advance, unit="turn", count="3")
    assert response.status_code == 200, text_of(response)
    torch.refresh_from_db()
    mara.refresh_from_db()
    assert torch.data["burned"] == 30 and mara.state["grit"] == 0  # time alone heals nothing
    fields_url = reverse("campaigns:request_fields", args=[table.pk])
    ask = reverse("campaigns:request_new", args=[table.pk])
    page = as_user(gm).get(fields_url, {"procedure": "rest"})
    response = as_user(gm).post(ask, form_fields(page, ask, procedure="rest"), **HTMX)
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get(procedure="rest")
    answer = reverse("campaigns:request_answer", args=[table.pk, request.pk, mara.pk])
    sheet_url = reverse("campaigns:sheet_requests", args=[table.pk, mara.pk])
    assert _post(as_user(player), table, answer, page_url=sheet_url).status_code == 200
    mara.refresh_from_db()
    assert mara.state["grit"] >= 1 and Roll.objects.get(procedure="rest").character == mara


def test_a_monster_past_the_bounds_or_nameless_is_refused_and_nothing_changes(table, mara, gm, as_user):
    """Bad input: 10⁹ Grit, an AV over 20 or an empty name is a sentence, not a row."""
    client = as_user(gm)
    _post(client, table, reverse("campaigns:encounter_action", args=[table.pk, "start"]))
    add = reverse("campaigns:encounter_action", args=[table.pk, "add"])
    refusals = (
        ({"name": "Giant", "grit": "1000000000"}, "Grit"),
        ({"name": "Giant", "av": "21"}, "AV"),
        ({"name": ""}, "Give the NPC a name"),
    )
    for changes, words in refusals:
        response = _post(client, table, add, **changes)
        assert response.status_code == 422 and words in text_of(response)
    assert not Npc.objects.exists()
    advance = reverse("campaigns:time_advance", args=[table.pk])
    response = _post(client, table, advance, unit="turn", count="-1")
    assert response.status_code == 422 and text_of(response)
    table.refresh_from_db()
    assert table.game_minutes == 0


def test_the_grit_and_flesh_table_page_costs_the_same_with_6_characters_and_10_monsters(table, gm, player, as_user):
    """The GM's tools (the house monster lines) add no query per character or monster."""
    client = as_user(gm)

    def grow(characters: int, npcs: int) -> int:
        for i in range(table.characters.count(), characters):
            make_character(player, table, system="grit-flesh", name=f"PC {i}", seed=i)
        if not table.encounters.filter(active=True).exists():
            session.encounter_start(campaign_id=table.pk, name="Reavers", by=gm)
        for i in range(table.npcs.count(), npcs):
            session.npc_add(campaign_id=table.pk, name=f"Reaver {i}", stats={}, keep=i % 2 == 0)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(reverse("campaigns:detail", args=[table.pk])).status_code == 200
        return len(captured)

    assert grow(1, 1) == grow(6, 10)
