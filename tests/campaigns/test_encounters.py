"""The encounter tracker (issue 16): NPCs with the system's stat block, rounds in the system's order, damage,
morale and statuses from the table, and the end of a fight (time passes, end-of-combat rolls asked)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import session
from campaigns.models import Encounter, Npc, RollRequest
from characters.models import Roll
from tests.pages import HTMX, form_fields, roll_form, text_of

pytestmark = pytest.mark.django_db


def _post(client, campaign, url, **changes):
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    return client.post(url, form_fields(page, url, **changes), **HTMX)


def _start(client, campaign):
    return _post(client, campaign, reverse("campaigns:encounter_action", args=[campaign.pk, "start"]), name="Ghouls")


def _add(client, campaign, **changes):
    return _post(client, campaign, reverse("campaigns:encounter_action", args=[campaign.pk, "add"]), **changes)


def test_a_chaos_and_conquest_fight_from_start_to_end(cc, wren, gm, player, as_user):
    """Seed 002: the combat-order d6s each round, damage − AV, morale 2d6 vs ML (the GM's roll), wear and
    ammunition asked of each PC when it ends; 20-second rounds become game time."""
    client = as_user(gm)
    assert _start(client, cc).status_code == 200
    encounter = Encounter.objects.get(active=True)
    assert encounter.name == "Ghouls" and encounter.round == 1 and encounter.order
    order_roll = Roll.objects.get(procedure="combat_order")
    assert order_roll.character is None and order_roll.roller == gm and len(order_roll.dice) == 2
    response = _add(client, cc, name="Ghoul", stamina="8", av="1", damage="6", ml="9", keep="on")
    assert response.status_code == 200, text_of(response)
    ghoul = Npc.objects.get(encounter=encounter)
    assert ghoul.stats == {"stamina": 8, "av": 1, "damage": "6", "ml": 9}
    assert Npc.objects.filter(encounter__isnull=True, name="Ghoul").exists()  # kept on the saved list
    damage = reverse("campaigns:npc_action", args=[cc.pk, ghoul.pk, "damage"])
    response = _post(client, cc, damage, amount="5")
    ghoul.refresh_from_db()
    assert ghoul.stats["stamina"] == 4 and "morale" in ghoul.prompt  # 5 − AV 1 = 4: down to half
    assert "morale check" in text_of(response)
    response = _post(
        client, cc, reverse("campaigns:npc_action", args=[cc.pk, ghoul.pk, "roll"]), key="morale", visibility="gm"
    )
    assert response.status_code == 200
    morale = Roll.objects.get(procedure="morale")
    assert morale.character is None and morale.roller == gm and morale.label == "Ghoul: Morale"
    assert morale.visibility == "gm"  # hidden from the players' logs
    assert morale.outcome in ("hold", "flee") and morale.odds
    status = reverse("campaigns:npc_action", args=[cc.pk, ghoul.pk, "status"])
    _post(client, cc, status, name="Stunned", rounds="1")
    _post(client, cc, reverse("campaigns:encounter_action", args=[cc.pk, "next"]))
    ghoul.refresh_from_db()
    cc.refresh_from_db()
    assert ghoul.statuses == [] and "No longer Stunned" in ghoul.prompt
    assert cc.round == 2 and Roll.objects.filter(procedure="combat_order").count() == 2
    _post(client, cc, reverse("campaigns:encounter_action", args=[cc.pk, "end"]))
    cc.refresh_from_db()
    assert cc.round == 0 and cc.game_minutes == 1  # two rounds of 20 seconds, counted up to a minute
    asked = RollRequest.objects.get()
    assert asked.procedure == "end_combat" and list(asked.answers.values_list("character", flat=True)) == [wren.pk]
    sheet = as_user(player).get(reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk]))
    assert "End of combat" in text_of(sheet)


def test_fell_rounds_put_the_party_first_and_roll_no_dice(campaign, hero, gm, as_user):
    """Seed 000, Combat: PCs act first, as a group; Fell has no end-of-combat roll."""
    client = as_user(gm)
    _start(client, campaign)
    assert Encounter.objects.get().order[0].startswith("The party acts")
    assert not Roll.objects.filter(procedure="combat_order").exists()
    _add(client, campaign, name="Wolf", hp="6", protection="1", steel_die="6", wil_die="6")
    wolf = Npc.objects.get()
    _post(client, campaign, reverse("campaigns:npc_action", args=[campaign.pk, wolf.pk, "damage"]), amount="9")
    wolf.refresh_from_db()
    assert wolf.defeated and wolf.stats["hp"] == 0 and "Morale roll" in wolf.prompt
    _post(client, campaign, reverse("campaigns:npc_action", args=[campaign.pk, wolf.pk, "roll"]), key="attack")
    attack = Roll.objects.get(procedure="attack")
    assert attack.character is None and attack.label == "Wolf: Attack" and len(attack.dice) == 1
    _post(client, campaign, reverse("campaigns:encounter_action", args=[campaign.pk, "end"]))
    campaign.refresh_from_db()
    assert campaign.game_minutes == 1 and not RollRequest.objects.exists()


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"stamina": str(10**9)}, "Stamina: Ensure this value is less than or equal to 200."),
        ({"name": ""}, "Name: Give the NPC a name."),
        ({"name": "   "}, "Name: Give the NPC a name."),
        ({"av": "-1"}, "AV: Ensure this value is greater than or equal to 0."),
        ({"damage": "7"}, "Attack die: Select a valid choice."),
    ],
)
def test_bad_npcs_are_refused_readably(changes, message, cc, gm, as_user):
    client = as_user(gm)
    _start(client, cc)
    response = _add(client, cc, **{"name": "Ghoul", **changes})
    assert response.status_code == 422 and message in text_of(response)
    assert not Npc.objects.exists()


def test_the_service_refuses_a_billion_hp_too(cc, gm):
    with pytest.raises(session.CampaignError, match="Stamina must be at most 200"):
        session.npc_add(campaign_id=cc.pk, name="Titan", stats={"stamina": 10**9}, keep=True, to_encounter=False)


@pytest.mark.parametrize(
    ("who", "expected"), [("gm", 200), ("player", 404), ("other_player", 404), ("stranger", 404), (None, 302)]
)
def test_encounter_urls_are_the_gms(who, expected, cc, gm, as_user, request):
    client = as_user(request.getfixturevalue(who) if who else None)
    session.encounter_start(campaign_id=cc.pk, name="Ghouls", by=gm)
    ghoul = session.npc_add(campaign_id=cc.pk, name="Ghoul", stats={"stamina": 5}).row
    assert client.get(reverse("campaigns:encounter", args=[cc.pk])).status_code == expected
    for action in ("next", "add"):
        url = reverse("campaigns:encounter_action", args=[cc.pk, action])
        assert (
            client.post(url, {"name": "X", "stamina": 1, "av": 0, "damage": 6, "ml": 7}, **HTMX).status_code == expected
        )
    for action, data in (
        ("damage", {"amount": 1}),
        ("status", {"name": "Prone", "rounds": 1}),
        ("roll", {"key": "attack"}),
    ):
        url = reverse("campaigns:npc_action", args=[cc.pk, ghoul.pk, action])
        assert client.post(url, data, **HTMX).status_code == expected
    ghoul.refresh_from_db()
    assert (ghoul.stats["stamina"] == 5) == (expected != 200)
    end = client.post(reverse("campaigns:encounter_action", args=[cc.pk, "end"]), **HTMX)
    assert end.status_code == expected
    assert Encounter.objects.get().active == (expected != 200)


def test_unknown_actions_are_404(cc, gm, as_user):
    assert as_user(gm).post(reverse("campaigns:encounter_action", args=[cc.pk, "explode"])).status_code == 404


def _action(client, campaign, action):
    response = _post(client, campaign, reverse("campaigns:encounter_action", args=[campaign.pk, action]))
    assert response.status_code == 200, text_of(response)
    return response


def test_a_fights_minutes_burn_the_lit_torch_like_the_clocks(cc, wren, gm, player, as_user):
    """Equipment.md, Light: a torch burns 6 turns; seed 002, Time: a round is 20 seconds. Three rounds are a
    minute of game time, and the torch lit through them has burned that minute when the fight ends."""
    torch = wren.items.get(kind="light")
    torch.data = {**torch.data, "lit": True}
    torch.save(update_fields=["data"])
    client = as_user(gm)
    _start(client, cc)
    _action(client, cc, "next")
    _action(client, cc, "next")
    _action(client, cc, "end")
    cc.refresh_from_db()
    torch.refresh_from_db()
    assert cc.game_minutes == 1 and cc.round == 0
    assert torch.data["burned"] == 1 and "59 min of light left" in cc.clock_note
    assert wren.changes.filter(what__startswith="The fight is over").exists()  # in the sheet's history


def test_fortunes_favor_statuses_set_in_a_fight_tick_with_its_rounds_and_end_with_it(gm, player, as_user):
    """Seed 003, Statuses and Rounds: a status lasting 2 rounds ends at the second new round; one still counting
    when the fight ends ends with it; the player's own "Start of my next turn" waits for the tracker."""
    from tests.conftest import make_character, make_table

    ff = make_table("fortunes-favor", gm, player, name="The Thistle Road")
    wren = make_character(player, ff, system="fortunes-favor", name="Wren")
    client = as_user(gm)
    _start(client, ff)
    mine = as_user(player)
    wren.refresh_from_db()
    # "version" is no field of the roll controls (a roll acts on the sheet as it is); sent here as a check
    version = {"version": wren.version}
    set_it = mine.post(*roll_form(mine, wren, "status", version, status="Prone", rounds="2"), **HTMX)
    assert set_it.status_code == 200, text_of(set_it)
    _action(client, ff, "next")
    wren.refresh_from_db()
    assert wren.state["statuses"] == {"Prone": 1}
    wren.refresh_from_db()
    refused = mine.post(*roll_form(mine, wren, "new_round", {"version": wren.version}), **HTMX)
    assert "encounter tracker starts each round" in text_of(refused)
    wren.refresh_from_db()
    assert wren.state["statuses"] == {"Prone": 1}
    _action(client, ff, "next")
    wren.refresh_from_db()
    assert wren.state["statuses"] == {}
    wren.refresh_from_db()
    mine.post(*roll_form(mine, wren, "status", {"version": wren.version}, status="Rattled", rounds="3"), **HTMX)
    _action(client, ff, "end")
    wren.refresh_from_db()
    ff.refresh_from_db()
    assert wren.state["statuses"] == {} and "Rattled ends" in ff.clock_note
    assert ff.game_minutes == 2  # three 30-second rounds, rounded up
    alone = mine.post(*roll_form(mine, wren, "new_round", {"version": wren.version}), **HTMX)
    assert alone.status_code == 200  # no fight: the player's button works again


def test_npcs_of_one_kind_are_numbered_and_names_stay_unique(cc, gm, as_user):
    """Issue 26: a second Goblin makes the first "Goblin 1" and itself "Goblin 2"; a third is "Goblin 3"; a
    different kind keeps its own name; a removed one's number is not reused (the log still names it)."""
    client = as_user(gm)
    _start(client, cc)
    for name in ("Goblin", "Ogre", "Goblin", "Goblin"):
        assert _add(client, cc, name=name, stamina="4", av="0", damage="6", ml="7").status_code == 200
    names = list(Npc.objects.filter(encounter__active=True).values_list("name", flat=True))
    assert names == ["Goblin 1", "Ogre", "Goblin 2", "Goblin 3"]
    Npc.objects.get(name="Goblin 2").delete()
    _add(client, cc, name="Goblin", stamina="4", av="0", damage="6", ml="7")
    names = list(Npc.objects.filter(encounter__active=True).values_list("name", flat=True))
    assert names == ["Goblin 1", "Ogre", "Goblin 3", "Goblin 4"] and len(set(names)) == len(names)
    page = text_of(client.get(reverse("campaigns:detail", args=[cc.pk])))
    assert "Goblin 1" in page and "Goblin 3" in page


def test_an_npc_holds_ten_statuses_and_the_eleventh_is_refused(cc, gm):
    """Issue 35 item 8 (a mutant of the cap, 10 → 11, passed the suite): ten statuses on one NPC are kept, the
    eleventh is refused with a sentence and changes nothing."""
    session.encounter_start(campaign_id=cc.pk, name="Ambush", by=gm)
    ghoul = session.npc_add(campaign_id=cc.pk, name="Ghoul", stats={}).row
    for n in range(10):
        session.npc_status(campaign_id=cc.pk, npc_id=ghoul.pk, name=f"Hex {n}", rounds=2)
    ghoul.refresh_from_db()
    assert len(ghoul.statuses) == 10
    with pytest.raises(session.CampaignError, match="ten statuses already"):
        session.npc_status(campaign_id=cc.pk, npc_id=ghoul.pk, name="One too many", rounds=2)
    ghoul.refresh_from_db()
    assert [s["name"] for s in ghoul.statuses] == [f"Hex {n}" for n in range(10)]
