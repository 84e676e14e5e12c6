"""An NPC's attack on a PC (issue 26, "Targets and damage that land"): the GM picks the target, the log names
it, and what lands goes to the target's sheet through that system's own harm procedure, named as the NPC's
and undone from the sheet's history like any change."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns import session
from characters.models import Change, Character, Roll
from characters.services import change_revert
from live.events import SheetChanged
from rules import SYSTEMS, dice
from rules import base as rules_base
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db


def _sure_hitter(system: str) -> dict:
    """An NPC that hits as often as its stat block allows (the attack bonus or AV at its top)."""
    fields = SYSTEMS[system].npc_fields()
    return {p.name: p.maximum if p.name in ("attack", "av") else p.default for p in fields}


def _fight(system: str, gm, player):
    campaign = make_table(system, gm, player)
    wren = make_character(player, campaign, system=system)
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)
    goblin = session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=_sure_hitter(system)).row
    return campaign, wren, goblin


def _attack_until_it_lands(campaign, goblin, wren, gm, monkeypatch):
    """Attacks with seeded dice until one lands (a miss changes nothing); the last attack's row."""
    for seed in range(20):
        monkeypatch.setattr(dice, "system_random", lambda seed=seed: random.Random(seed))
        done = session.npc_roll(
            campaign_id=campaign.pk, npc_id=goblin.pk, key="attack", visibility="public", by=gm, target_id=wren.pk
        ).row
        if done.harm_roll is not None:
            return done
        assert done.harm is not None and not done.harm.lands
    raise AssertionError("no attack landed in 20 tries")


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_an_npc_hit_lands_on_the_targets_sheet_by_its_rules_and_undoes(system, gm, player, monkeypatch):
    campaign, wren, goblin = _fight(system, gm, player)
    before = Character.objects.get(pk=wren.pk)
    done = _attack_until_it_lands(campaign, goblin, wren, gm, monkeypatch)
    assert done.roll.label.startswith("Goblin attacks Wren: ") and done.harm.words in done.roll.label
    assert done.roll.character is None and done.roll.roller == gm  # the NPC's roll is the GM's
    harm = done.harm_roll
    assert harm.character_id == wren.pk and harm.roller == gm
    assert harm.label.startswith("Goblin hits Wren: ")
    procedures = SYSTEMS[system].procedures()
    assert harm.procedure == next(k for k in rules_base.HARM_PROCEDURES if k in procedures)
    assert done.harm.amount in harm.inputs.values()  # the attack's damage is the harm procedure's input
    after = Character.objects.get(pk=wren.pk)
    change = Change.objects.get(character=wren, roll=harm)
    assert change.what.startswith("Goblin hits Wren: ") and after.version > before.version
    if done.harm.amount:
        assert after.state != before.state
    change_revert(character_id=wren.pk, change_id=change.pk, by=player, reason="Undo the goblin's hit")
    assert Character.objects.get(pk=wren.pk).state == before.state


def test_the_gm_picks_the_target_on_the_table_page_and_the_log_names_it(gm, player, as_user, monkeypatch):
    campaign, wren, goblin = _fight("chaos-conquest", gm, player)
    monkeypatch.setattr(dice, "system_random", lambda: random.Random(3))
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    url = reverse("campaigns:npc_action", args=[campaign.pk, goblin.pk, "roll"])
    response = client.post(url, form_fields(page, url, key="attack", target=str(wren.pk)), **HTMX)
    assert response.status_code == 200, text_of(response)
    attack = Roll.objects.get(procedure="attack")
    assert attack.label.startswith("Goblin attacks Wren: ")
    assert Roll.objects.filter(character=wren, procedure="take_damage", label__startswith="Goblin hits Wren").exists()
    log = text_of(as_user(player).get(reverse("campaigns:detail", args=[campaign.pk])))
    assert "Goblin attacks Wren" in log


def test_a_target_from_another_table_is_refused(gm, player, other_player, as_user):
    campaign, wren, goblin = _fight("fell-draft", gm, player)
    stranger = make_character(other_player, make_table("fell-draft", gm, other_player), name="Mott")
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[campaign.pk]))
    url = reverse("campaigns:npc_action", args=[campaign.pk, goblin.pk, "roll"])
    for target in (str(stranger.pk), "x1"):
        fields = form_fields(page, url, key="attack")
        fields["target"] = target
        response = client.post(url, fields, **HTMX)
        assert response.status_code == 422 and "Pick a character at this table" in text_of(response)
    assert not Roll.objects.filter(procedure="attack").exists()


def test_a_sheet_with_no_harm_procedure_gets_the_number_to_apply_by_hand(gm, player, monkeypatch):
    campaign, wren, goblin = _fight("fell-draft", gm, player)
    monkeypatch.setattr(rules_base, "HARM_PROCEDURES", ())
    done = _attack_once(campaign, goblin, wren, gm)
    goblin.refresh_from_db()
    assert done.harm_roll is None and f"take {done.harm.amount} off their sheet by hand" in goblin.prompt
    assert Character.objects.get(pk=wren.pk).state == wren.state


def _attack_once(campaign, goblin, wren, gm):
    return session.npc_roll(
        campaign_id=campaign.pk, npc_id=goblin.pk, key="attack", visibility="public", by=gm, target_id=wren.pk
    ).row


def test_the_players_sheet_shows_the_fight_and_what_hit_them_pushed_with_each_fight_write(
    gm, player, as_user, monkeypatch
):
    """Issue 26: while a fight runs the sheet reads "Fight: round N" and "Goblin hit you for 5"; a fight write
    pushes that region to every sheet open at the table (and redraws no party card on the table page)."""
    from campaigns import push

    campaign, wren, goblin = _fight("chaos-conquest", gm, player)
    client = as_user(player)
    url = reverse("campaigns:sheet_fight", args=[campaign.pk, wren.pk])
    assert "Fight: round 1" in text_of(client.get(url)) and "hit you" not in text_of(client.get(url))
    assert 'id="sheet-fight"' in client.get(wren.get_absolute_url()).content.decode()
    since = Since(campaign.pk)
    done = _attack_until_it_lands(campaign, goblin, wren, gm, monkeypatch)
    shown = text_of(client.get(url))
    assert f"Goblin hit you for {done.harm.amount}" in shown
    assert {"encounter", "table", "fight"} <= set(since.topics())  # campaigns.session.FIGHT
    fight = [event for event in since.events() if not isinstance(event, SheetChanged)]  # the fight's own
    pages = [(player.pk, f"sheet-{wren.pk}"), (gm.pk, "table")]
    out = push.render_push(campaign.pk, fight, pages)
    sheet = out[player.pk, f"sheet-{wren.pk}"]
    assert 'id="sheet-fight"' in sheet and 'hx-swap-oob="outerHTML"' in sheet and "hit you for" in sheet
    assert 'id="card-' not in out[gm.pk, "table"]
    session.encounter_end(campaign_id=campaign.pk, by=gm)
    assert "Fight" not in text_of(client.get(url))
    assert as_user(None).get(url).status_code in (302, 404)  # nobody outside the table sees it
