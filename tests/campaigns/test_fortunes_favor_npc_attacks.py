"""Fortune's Favor: a PC's attack on the encounter tracker's NPCs (issue 30), through the services on the real
database: one roll on the character's sheet (its costs and history), against each NPC's Armor and Counter and
statuses, damage off each NPC hit. Seed 003 (../shared/seeds/003_eeb4db86843669ac.txt): Exchanges, AOE Exchange,
Statuses (Prone, Blind); Elementalist 1, Elemental Burst (RulesGraph 1b)."""

from __future__ import annotations

import random

import pytest

from campaigns import session
from campaigns.models import FightHit, Npc
from campaigns.services import CampaignError
from characters.models import Character, Roll
from characters.services import character_create
from rules.dice import ScriptedRandom
from tests.conftest import make_character, make_table

pytestmark = pytest.mark.django_db

NPC = {"health": 9, "stamina": 0, "armor": 11, "counter": 6, "attack": 2, "damage": "1d6", "damage_bonus": 0}


@pytest.fixture
def ff(gm, player, other_player):
    return make_table("fortunes-favor", gm, player, other_player, name="The Thistle Road")


def elementalist(player, ff) -> Character:
    character, _ = character_create(
        owner=player,
        system="fortunes-favor",
        choices={
            "name": "Wren",
            "class": "ELEMENTALIST",
            "mettle": "0",
            "agility": "-2",
            "intellect": "3",
            "heart": "2",
            "lineage": "ELF",
            "lineage_bonus": "agility",
            "culture": "NOMADS",
            "culture_bonus": "heart",
        },
        campaign=ff,
        rng=random.Random(3),
    )
    return character


def fight(ff, gm, *blocks):
    session.encounter_start(campaign_id=ff.pk, name="Bandits", by=gm)
    return [session.npc_add(campaign_id=ff.pk, name=name, stats=stats).row for name, stats in blocks]


def test_elementalist_1_elemental_burst_hits_the_npcs_its_roll_beats(ff, gm, player):
    """Elementalist 1, Elemental Burst: 1 Stamina; one roll (d20 13 + Intellect 3 = 16) against each NPC's Armor:
    the Armor 11 bandit is hit for 1d6 4 + 3, the Armor 18 one is not."""
    wren = elementalist(player, ff)
    low, high = fight(ff, gm, ("Bandit", NPC), ("Brute", {**NPC, "armor": 18, "counter": 13}))
    stamina = wren.state["stamina"]
    done = session.pc_attack_npcs(
        campaign_id=ff.pk,
        character_id=wren.pk,
        npc_ids=[low.pk, high.pk],
        choices={"feature": "Elemental Burst"},
        by=gm,
        rng=ScriptedRandom([13, 4]),
    )
    assert dict(done.row.dealt) == {"Bandit": 7, "Brute": 0}
    low.refresh_from_db()
    high.refresh_from_db()
    assert low.stats["health"] == 2 and high.stats["health"] == 9
    wren.refresh_from_db()
    assert wren.state["stamina"] == stamina - 1
    roll = Roll.objects.get(procedure="area_attack")
    assert roll.outcome == "hit 1" and roll.character_id == wren.pk
    assert wren.changes.filter(roll=roll).exists()  # in the sheet's history: revertable
    # Issue 26: the GM undoes the hit from the table: the Bandit gets its Health back, the Brute had none to lose.
    hit = FightHit.objects.get(npc=low)
    assert hit.words == "Wren hit Bandit for 7" and not FightHit.objects.filter(npc=high).exists()
    session.hit_undo(campaign_id=ff.pk, hit_id=hit.pk, by=gm)
    low.refresh_from_db()
    assert low.stats["health"] == 9


def test_a_prone_npc_gives_a_melee_attack_fortunes_favor(ff, gm, player):
    """Seed 003, Statuses (Prone): melee attacks against it have Fortune's Favor: two d20, 3 and 17, keep 17."""
    wren = elementalist(player, ff)
    (bandit,) = fight(ff, gm, ("Bandit", {**NPC, "armor": 19, "counter": 14}))
    session.npc_status(campaign_id=ff.pk, npc_id=bandit.pk, name="Prone", rounds=2)
    done = session.pc_attack_npcs(
        campaign_id=ff.pk, character_id=wren.pk, npc_ids=[bandit.pk], choices={}, by=gm, rng=ScriptedRandom([3, 17, 5])
    )
    assert dict(done.row.dealt) == {"Bandit": 8}
    roll = Roll.objects.get(procedure="attack")
    assert roll.outcome == "hit" and roll.inputs.get("target_statuses") == ["Prone"]
    assert "target Prone, melee: Fortune's Favor" in roll.summary
    bandit.refresh_from_db()
    assert bandit.stats["health"] == 1


def test_a_blind_and_prone_npc_shot_at_range_is_one_d20_as_on_the_sheet(ff, gm, player):
    """Seed 003, Statuses (Blind: attacks on it gain Fortune's Favor; Prone: ranged attacks on it have
    Misfortune) and Misfortune (they cancel one for one, spec §003.4), through the GM tracker's service: a ranged
    attack on a Blind and Prone NPC rolls one d20 (17: a hit), with the odds the sheet shows for a plain roll. The
    tracker gave it Fortune's Favor (two d20s)."""
    from rules.base import check_params
    from rules.systems.fortunes_favor import SYSTEM

    wren = elementalist(player, ff)
    (bandit,) = fight(ff, gm, ("Bandit", {**NPC, "armor": 19, "counter": 14}))
    session.npc_status(campaign_id=ff.pk, npc_id=bandit.pk, name="Blind", rounds=2)
    session.npc_status(campaign_id=ff.pk, npc_id=bandit.pk, name="prone", rounds=2)
    attack, sheet = SYSTEM.procedures()["attack"], wren.to_sheet()
    plain = attack.odds(sheet, check_params(attack, sheet, {"armor": 19, "counter": 14, "ranged": True}))
    done = session.pc_attack_npcs(
        campaign_id=ff.pk,
        character_id=wren.pk,
        npc_ids=[bandit.pk],
        choices={"ranged": True},
        by=gm,
        rng=ScriptedRandom([17, 5]),
    )
    assert dict(done.row.dealt) == {"Bandit": 8}
    roll = Roll.objects.get(procedure="attack")
    assert [d["sides"] for d in roll.dice] == [20, 6]
    assert roll.odds == {key: str(chance) for key, chance in plain.outcomes}  # {"hit": "1/4", ...}: one d20
    assert "target Blind: Fortune's Favor" in roll.summary and "target Prone, ranged: Misfortune" in roll.summary


def test_attacks_on_npcs_refuse_what_is_not_in_the_fight(ff, gm, player, other_player):
    wren = elementalist(player, ff)
    (bandit,) = fight(ff, gm, ("Bandit", NPC))
    with pytest.raises(CampaignError, match="still in this fight"):
        session.pc_attack_npcs(campaign_id=ff.pk, character_id=wren.pk, npc_ids=[bandit.pk + 99], choices={}, by=gm)
    with pytest.raises(CampaignError, match="Everyone or the GM"):
        session.pc_attack_npcs(
            campaign_id=ff.pk, character_id=wren.pk, npc_ids=[bandit.pk], choices={}, by=gm, visibility="blind"
        )
    tired = Character.objects.get(pk=wren.pk)
    tired.state = {**tired.state, "stamina": 0}
    tired.save()
    with pytest.raises(CampaignError, match="Stamina"):
        session.pc_attack_npcs(
            campaign_id=ff.pk,
            character_id=wren.pk,
            npc_ids=[bandit.pk, bandit.pk],  # the same NPC twice is one target
            choices={"feature": "Elemental Burst"},
            by=gm,
        )
    assert Npc.objects.get(pk=bandit.pk).stats["health"] == 9  # nothing half-done


def test_other_systems_leave_npc_damage_to_the_gm(gm, player, other_player):
    table = make_table("fell-draft", gm, player, other_player, name="Fell")
    hero = make_character(player, table)
    session.encounter_start(campaign_id=table.pk, name="Wolves", by=gm)
    npc = Npc.objects.create(campaign=table, encounter=table.encounters.get(), name="Wolf", stats={}, start={})
    with pytest.raises(CampaignError, match="type the damage"):
        session.pc_attack_npcs(campaign_id=table.pk, character_id=hero.pk, npc_ids=[npc.pk], choices={}, by=gm)


def _attack(client, campaign, **changes):
    from django.urls import reverse

    from tests.pages import HTMX, form_fields

    url = reverse("campaigns:encounter_action", args=[campaign.pk, "attack"])
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    return client.post(url, form_fields(page, url, **changes), **HTMX), url


def test_the_gm_rolls_an_area_attack_from_the_tracker(ff, gm, player, other_player, stranger, as_user, monkeypatch):
    """The tracker's "A character attacks" form: the GM ticks two NPCs and names Elemental Burst; the players and
    strangers cannot post it; a bad pick says why and changes nothing."""
    from rules import dice

    wren = elementalist(player, ff)
    low, high = fight(ff, gm, ("Bandit", NPC), ("Brute", {**NPC, "armor": 18, "counter": 13}))
    monkeypatch.setattr(dice, "system_random", lambda: ScriptedRandom([13, 4]))
    response, url = _attack(as_user(gm), ff, character=wren.pk, npcs=[low.pk, high.pk], feature="Elemental Burst")
    assert response.status_code == 200
    low.refresh_from_db()
    assert low.stats["health"] == 2 and "Health 9 → 2" in low.prompt
    fields = {"character": str(wren.pk), "npcs": [str(low.pk)], "visibility": "public"}
    for who in (player, other_player, stranger):
        assert as_user(who).post(url, fields).status_code in (403, 404)
    refused, _ = _attack(as_user(gm), ff, character=wren.pk, npcs=[low.pk], feature="Bolt of Nothing")
    assert (
        refused.status_code == 422
        and "Bolt of Nothing is not a class feature that attacks." in refused.content.decode()
    )
    low.refresh_from_db()
    assert low.stats["health"] == 2
