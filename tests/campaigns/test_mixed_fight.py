"""A fight at a mixed table (issue 42): each NPC carries the stat block of a system the GM picks; a blow between
systems is rolled by the attacker's rules and lands by the target's own (GameSystem.npc_stand_in,
npc_attack_outside, harm_from_outside); the Undo puts back what it did; the GM's table page shows each PC and
each roll in its own system's shape and words."""

from __future__ import annotations

import contextlib
import random
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import session
from campaigns.backup import export_campaign, import_campaign
from campaigns.models import Campaign, FightHit, Membership, Npc
from campaigns.services import CampaignError, campaign_create
from campaigns.session import encounters as encounters_module
from campaigns.session import hits
from characters.models import Character, Roll
from characters.services import character_roll
from rules import SYSTEMS, dice
from rules import base as rules_base
from rules.errors import Refusal
from tests.api.conftest import bearer
from tests.conftest import make_character, make_user
from tests.pages import HTMX, form_fields, text_of

pytestmark = pytest.mark.django_db

HOME = "fell-draft"
EVERY = sorted(SYSTEMS)


def _mixed(gm, systems=EVERY, home=HOME) -> tuple[Campaign, dict[str, Character]]:
    """A table whose home is Fell (draft), playing ``systems``: one player and one PC of each."""
    table = campaign_create(name="The crossroads", system=home, gm=gm, also=[s for s in systems if s != home])
    party = {}
    for n, system in enumerate(systems):
        player = make_user(f"mixed{n}")
        Membership.objects.create(campaign=table, user=player)
        party[system] = make_character(player, table, system=system, name=f"Hero {n}", seed=5 + n)
    return Campaign.objects.get(pk=table.pk), party


def _npc(table, gm, system: str, name: str = "Brute", **stats) -> Npc:
    block = {**{p.name: p.default for p in SYSTEMS[system].npc_fields()}, **stats}
    return session.npc_add(campaign_id=table.pk, name=name, stats=block, system=system).row


def _harm_key(system: str) -> str:
    procedures = SYSTEMS[system].procedures()
    return next(k for k in rules_base.HARM_PROCEDURES if k in procedures)


@pytest.mark.parametrize("target_system", EVERY)
def test_a_chaos_conquest_npc_hits_each_pc_by_the_pcs_own_harm_and_the_undo_puts_it_back(
    gm, target_system, monkeypatch
):
    """C&C's NPC attacks always land for its damage die: whatever the target's system, the damage goes through
    that system's own harm procedure (its armour may stop a small blow: seeded dice, until one gets through), and
    the GM's Undo from the table gives the sheet back."""
    table, party = _mixed(gm)
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    brute = _npc(table, gm, "chaos-conquest", damage="8")
    assert brute.system == "chaos-conquest" and brute.system_of(table) == "chaos-conquest"
    target = party[target_system]
    before = Character.objects.get(pk=target.pk)
    for seed in range(20):
        monkeypatch.setattr(dice, "system_random", lambda seed=seed: random.Random(seed))
        done = session.npc_roll(
            campaign_id=table.pk, npc_id=brute.pk, key="attack", visibility="public", by=gm, target_id=target.pk
        ).row
        assert done.harm is not None and done.harm.lands and done.harm.amount >= 1
        assert done.roll.label.startswith(f"Brute attacks {target.name}: ")
        harm = done.harm_roll
        assert harm is not None, Npc.objects.get(pk=brute.pk).prompt
        assert harm.character_id == target.pk and harm.procedure == _harm_key(target_system)
        assert done.harm.amount in harm.inputs.values()
        after = Character.objects.get(pk=target.pk)
        if after.state != before.state:
            break
        before = after
    assert after.state != before.state and after.version > before.version
    SYSTEMS[target_system].validate_state(after.state)
    hit = FightHit.objects.get(roll=harm)
    hits.hit_undo(campaign_id=table.pk, hit_id=hit.pk, by=gm)
    assert Character.objects.get(pk=target.pk).state == before.state


def test_a_fell_pc_and_a_fortunes_favor_pc_each_take_their_own_systems_harm_from_one_npc(gm):
    """The issue's case: one NPC of C&C, two PCs of other systems; each sheet's own harm procedure takes it
    (Fell: take_harm with its armour; Fortune's Favor: take_damage), and neither sees C&C's inputs."""
    table, party = _mixed(gm, ["fell-draft", "chaos-conquest", "fortunes-favor"])
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    brute = _npc(table, gm, "chaos-conquest", damage="6")
    for system in ("fell-draft", "fortunes-favor"):
        target = party[system]
        done = session.npc_roll(
            campaign_id=table.pk, npc_id=brute.pk, key="attack", visibility="public", by=gm, target_id=target.pk
        ).row
        assert done.harm_roll.procedure == _harm_key(system)
        assert set(done.harm_roll.inputs) <= {
            p.name for p in SYSTEMS[system].procedures()[_harm_key(system)].params(None)
        }
        assert "critical" not in done.harm_roll.inputs  # C&C's own input stays C&C's


def _attack_until_a_hit(character: Character, npc: Npc, gm, monkeypatch):
    for seed in range(40):
        monkeypatch.setattr(dice, "system_random", lambda seed=seed: random.Random(seed))
        done = hits.pc_attack(
            character_id=character.pk, procedure="attack", params={}, npc_id=npc.pk, by=gm, rng=random.Random(seed)
        ).row
        if done.hit is not None:
            return done
    raise AssertionError(f"{character.system}: no hit on {npc.system_of(character.campaign)} in 40 attacks")


@pytest.mark.parametrize("attacker", EVERY)
def test_a_pc_of_each_system_attacks_an_npc_of_another_and_the_undo_gives_it_back(gm, attacker, monkeypatch):
    """The PC's own system's attack, against its stand-in of the NPC; the NPC takes the damage by its own
    rules (its armour off there); the Undo gives the NPC back what it took."""
    table, party = _mixed(gm)
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    other = EVERY[(EVERY.index(attacker) + 1) % len(EVERY)]
    fields = SYSTEMS[other].npc_fields()
    track = fields[0].name
    target = _npc(table, gm, other, name="Ogre", **{track: fields[0].maximum or 100})
    character = Character.objects.select_related("campaign").get(pk=party[attacker].pk)
    done = _attack_until_a_hit(character, target, gm, monkeypatch)
    hurt = Npc.objects.get(pk=target.pk)
    assert hurt.stats != target.stats and done.dealt >= 0
    rules_base.check_params(rules_base.ParamSpec("NPC", fields, "npc"), None, hurt.stats)  # still its own block
    assert done.written.row.character_id == character.pk  # the sheet's own roll
    hits.hit_undo(campaign_id=table.pk, hit_id=done.hit.pk, by=gm)
    assert Npc.objects.get(pk=target.pk).stats == target.stats


def test_a_fortunes_favor_pc_attacks_npcs_of_two_other_systems_from_the_tracker(gm, monkeypatch):
    """The tracker's attack (GameSystem.attacks_npcs) is the attacker's own system's: an area attack on NPCs
    of other systems reads each as its stand-in, and each takes what lands by its own rules."""
    table, party = _mixed(gm, ["fell-draft", "chaos-conquest", "fortunes-favor"])
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    ogre = _npc(table, gm, "fell-draft", name="Ogre", hp=100)
    troll = _npc(table, gm, "chaos-conquest", name="Troll", stamina=100)
    for seed in range(40):
        done = session.pc_attack_npcs(
            campaign_id=table.pk,
            character_id=party["fortunes-favor"].pk,
            npc_ids=[ogre.pk],
            choices={},
            by=gm,
            rng=random.Random(seed),
        ).row
        if done.dealt[0][1] > 0:
            break
    assert Npc.objects.get(pk=ogre.pk).stats["hp"] < 100
    assert done.roll.character_id == party["fortunes-favor"].pk
    assert Npc.objects.get(pk=troll.pk).stats == troll.stats


def test_the_home_systems_order_drives_the_round_and_every_pc_passes_it_by_its_own_rules(gm, monkeypatch):
    table, party = _mixed(gm)
    started = session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm, rng=random.Random(4)).row
    assert started.order == list(SYSTEMS[HOME].combat_order(1, random.Random(4)).steps)
    seen = []
    real = encounters_module.on_every_sheet

    def spying(campaign, effect, by):
        def effect_seen(system, sheet):
            seen.append(system.id)
            return effect(system, sheet)

        return real(campaign, effect_seen, by)

    monkeypatch.setattr(encounters_module, "on_every_sheet", spying)
    moved = session.encounter_next_round(campaign_id=table.pk, by=gm, rng=random.Random(6)).row
    assert moved.order == list(SYSTEMS[HOME].combat_order(2, random.Random(6)).steps)
    assert sorted(seen) == sorted(c.system for c in party.values())  # each sheet's round by its own rules
    for character in party.values():
        fresh = Character.objects.get(pk=character.pk)
        SYSTEMS[fresh.system].validate_state(fresh.state)


def test_an_npc_of_a_system_the_table_does_not_play_is_refused_and_nothing_is_made(gm, as_user):
    table, _party = _mixed(gm, ["fell-draft", "chaos-conquest"])
    block = {p.name: p.default for p in SYSTEMS["grit-flesh"].npc_fields()}
    with pytest.raises(CampaignError, match="does not play Grit"):
        session.npc_add(campaign_id=table.pk, name="Stray", stats=block, system="grit-flesh", keep=True)
    url = reverse("campaigns:encounter_action", args=[table.pk, "add"])
    response = as_user(gm).post(url, {"system": "grit-flesh", "name": "Stray", **block}, **HTMX)
    assert response.status_code == 422 and "does not play Grit" in text_of(response)
    api = bearer(gm, "table", table)
    answer = api.send(reverse("api:table_encounter", args=[table.pk, "add"]), {"system": "grit-flesh", "name": "Stray"})
    assert answer.status_code == 400 and "does not play Grit" in answer.json()["detail"]
    answer = api.send(reverse("api:table_encounter", args=[table.pk, "add"]), {"system": "nonsense", "name": "Stray"})
    assert answer.status_code == 400 and "does not play" in answer.json()["detail"]
    assert not Npc.objects.filter(campaign=table).exists()


def _form_of(page, system: str) -> SimpleNamespace:
    """The page cut to one system's NPC form (several post to the same address)."""
    markup = page.content.decode()
    start = markup.index(f'data-npc-form="{system}"')
    return SimpleNamespace(content=markup[start : markup.index("</details>", start)].encode())


@pytest.mark.parametrize("system", ["chaos-conquest", "grit-flesh", "fell-draft"])
def test_the_gm_adds_an_npc_of_each_system_with_its_own_form_and_brings_a_saved_one(gm, as_user, system):
    table, _party = _mixed(gm, ["fell-draft", "chaos-conquest", "grit-flesh"])
    client = as_user(gm)
    url = reverse("campaigns:encounter_action", args=[table.pk, "add"])
    page = client.get(table.get_absolute_url())
    response = client.post(url, form_fields(_form_of(page, system), url, name="Cave bear"), **HTMX)
    assert response.status_code == 200, text_of(response)
    saved = Npc.objects.get(campaign=table, name="Cave bear")
    assert saved.system_of(table) == system and saved.encounter_id is None
    assert set(saved.stats) == {p.name for p in SYSTEMS[system].npc_fields()}
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    bring = reverse("campaigns:npc_action", args=[table.pk, saved.pk, "bring"])
    page = client.get(table.get_absolute_url())
    assert client.post(bring, form_fields(page, bring), **HTMX).status_code == 200
    brought = Npc.objects.get(campaign=table, encounter__active=True)
    assert brought.system_of(table) == system and brought.stats == saved.stats
    page = text_of(client.get(table.get_absolute_url()))
    assert SYSTEMS[system].npc_fields()[0].label in page and SYSTEMS[system].name in page


def test_a_refused_npc_form_comes_back_in_its_own_systems_place(gm, as_user):
    table, _party = _mixed(gm, ["fell-draft", "chaos-conquest"])
    client = as_user(gm)
    url = reverse("campaigns:encounter_action", args=[table.pk, "add"])
    page = client.get(table.get_absolute_url())
    response = client.post(url, form_fields(_form_of(page, "chaos-conquest"), url, name="Wolf", av="99"), **HTMX)
    assert response.status_code == 422
    again = response.content.decode()
    assert 'data-npc-form="chaos-conquest" open' in again.replace("\n", " ") or "open data-npc-form" in again
    assert 'value="Wolf"' in again and not Npc.objects.filter(campaign=table).exists()


def test_the_npc_rolls_shown_are_each_npcs_own_systems(gm, as_user):
    table, _party = _mixed(gm, ["fell-draft", "chaos-conquest"])
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    troll = _npc(table, gm, "chaos-conquest", name="Troll")
    goblin = _npc(table, gm, "fell-draft", name="Goblin")
    page = as_user(gm).get(table.get_absolute_url()).content.decode()
    troll_row = page[page.index(f'id="npc-{troll.pk}"') : page.index(f'id="npc-{goblin.pk}"')]
    assert 'data-npc-roll="morale"' in troll_row  # C&C's morale: its own roll, though Fell is home
    assert "AV" in troll_row and "Stamina" in troll_row
    session.npc_roll(campaign_id=table.pk, npc_id=troll.pk, key="morale", visibility="public", by=gm)


def _page_queries(client, table) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(table.get_absolute_url())
    assert response.status_code == 200
    return len(queries)


def test_the_table_page_of_a_mixed_fight_draws_each_pc_and_roll_by_its_own_system_in_fixed_queries(gm, as_user):
    table, party = _mixed(gm, ["fell-draft", "chaos-conquest", "fortunes-favor"])
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    _npc(table, gm, "chaos-conquest", name="Troll")
    _npc(table, gm, "fortunes-favor", name="Bandit")
    for character in party.values():  # a roll of each PC, in its own system's words in the log
        system = SYSTEMS[character.system]
        key = next(k for k, p in system.procedures().items() if k not in rules_base.HARM_PROCEDURES and not p.gm_only)
        with contextlib.suppress(Refusal):  # a roll its fresh sheet cannot make is not this test's business
            character_roll(character_id=character.pk, procedure=key, params={}, by=character.owner)
    gm_client, player_client = as_user(gm), as_user(party["chaos-conquest"].owner)
    page = gm_client.get(table.get_absolute_url()).content.decode()
    for system, character in party.items():
        assert f'data-card-system="{system}"' in page
        roll = Roll.objects.filter(character=character).order_by("-pk").first()
        if roll is not None:
            line = page[page.index(f'data-roll="{roll.pk}"') :][:3000]
            assert SYSTEMS[system].outcome_label(roll.outcome) in line
    # Each system with a PC here brings its GM tools; the home system's always.
    assert 'id="cc-gm-tools"' in page and 'id="ff-gm-tools"' in page
    assert player_client.get(table.get_absolute_url()).status_code == 200
    few = {who: _page_queries(c, table) for who, c in (("gm", gm_client), ("player", player_client))}
    for n in range(3):  # three more PCs of three systems: the page reads no more
        player = make_user(f"late{n}")
        Membership.objects.create(campaign=table, user=player)
        make_character(player, table, system=["fell-draft", "chaos-conquest", "fortunes-favor"][n], name=f"Late {n}")
    assert _page_queries(gm_client, table) <= few["gm"]
    assert _page_queries(player_client, table) <= few["player"]


def test_a_backup_keeps_each_npcs_system_and_checks_its_block_by_it(gm, stranger):
    table, _party = _mixed(gm, ["fell-draft", "chaos-conquest"])
    session.encounter_start(campaign_id=table.pk, name="Ambush", by=gm)
    _npc(table, gm, "chaos-conquest", name="Troll")
    _npc(table, gm, "fell-draft", name="Goblin")
    document = export_campaign(table, gm)
    assert {npc["name"]: npc["system"] for npc in document["npcs"]} == {"Troll": "chaos-conquest", "Goblin": HOME}
    restored = import_campaign(gm=stranger, document=document)
    assert {n.name: n.system_of(restored) for n in restored.npcs.all()} == {"Troll": "chaos-conquest", "Goblin": HOME}
    document["npcs"][0]["system"] = "grit-flesh"
    with pytest.raises(rules_base.RulesError, match="not of a system the campaign plays"):
        import_campaign(gm=stranger, document=document)
