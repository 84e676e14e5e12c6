"""Where two features cross (issue 36): a void or a history Undo of a PC's attack on an NPC puts the NPC back
(item 1); the service side of the browser flows in tests/browser/test_crossings.py."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns import session
from campaigns.models import FightHit, Npc
from characters.models import Change, Character, Roll
from rules import SYSTEMS
from tests.campaigns.test_pc_attacks import _attack_until_it_hits, _fight
from tests.conftest import make_character, make_table
from tests.pages import HTMX, text_of

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_item_1_voiding_a_pcs_attack_gives_the_npc_back_what_it_took(system, gm, player, as_user, monkeypatch):
    """Issue 36, item 1: the void page promised "whatever it changed is put back", yet Goblin 1 stayed at 1 of 4.
    The page now says the NPC gets its hit back, and the void gives it back: the NPC's track, its "down", the
    hit off the table's Undo list and the attacker's fight line."""
    campaign, wren, goblin = _fight(system, gm, player)
    before = dict(goblin.stats)
    _response, hit = _attack_until_it_hits(as_user(player), wren, goblin, monkeypatch)
    goblin.refresh_from_db()
    assert goblin.stats != before
    roll = Roll.objects.get(pk=hit.roll_id)
    gm_client = as_user(gm)
    page = gm_client.get(reverse("characters:roll_fix", args=[roll.pk])).content.decode()
    assert "Goblin 1 gets back what the hit took" in page
    response = gm_client.post(reverse("characters:roll_fix", args=[roll.pk]), {"reason": "wrong target"}, follow=True)
    assert response.status_code == 200, text_of(response)
    track = SYSTEMS[system].npc_fields()[0]
    goblin.refresh_from_db()
    assert goblin.stats == before and not goblin.defeated
    assert f"Goblin 1 has {before[track.name]} {track.label} again." in text_of(response)
    hit.refresh_from_db()
    assert hit.undone_at is not None and not session.undoable_hits(campaign, hit.encounter_id)
    roll.refresh_from_db()
    assert roll.voided_at is not None
    assert "You hit Goblin 1" not in text_of(as_user(player).get(wren.get_absolute_url()))
    # The table's Undo of the same hit now says it is done already; nothing moves.
    response = gm_client.post(reverse("campaigns:hit_undo", args=[campaign.pk, hit.pk]), **HTMX)
    goblin.refresh_from_db()
    assert goblin.stats == before


def test_item_1_a_hit_undone_at_the_table_first_stays_and_the_void_page_says_why(gm, player, as_user, monkeypatch):
    campaign, wren, goblin = _fight("chaos-conquest", gm, player)
    before = dict(goblin.stats)
    _response, hit = _attack_until_it_hits(as_user(player), wren, goblin, monkeypatch)
    session.hit_undo(campaign_id=campaign.pk, hit_id=hit.pk, by=gm)
    # Another hit since: the void takes back nothing twice.
    Npc.objects.filter(pk=goblin.pk).update(stats={**before, "stamina": before["stamina"] - 5})
    gm_client = as_user(gm)
    url = reverse("characters:roll_fix", args=[hit.roll_id])
    assert "undone at the table already, so it stays as it is now" in text_of(gm_client.get(url))
    response = gm_client.post(url, {"reason": "a mistake"}, follow=True)
    assert response.status_code == 200
    goblin.refresh_from_db()
    assert goblin.stats["stamina"] == before["stamina"] - 5


def test_item_1_a_player_voids_their_own_attack_within_the_minute_and_the_npc_is_whole(
    gm, player, as_user, monkeypatch
):
    _campaign, wren, goblin = _fight("fell-draft", gm, player)
    before = dict(goblin.stats)
    client = as_user(player)
    _response, hit = _attack_until_it_hits(client, wren, goblin, monkeypatch)
    response = client.post(reverse("characters:roll_fix", args=[hit.roll_id]), {"reason": "misclick"})
    assert response.status_code == 302
    goblin.refresh_from_db()
    assert goblin.stats == before


def test_item_1_undo_from_the_history_gives_the_npc_back_too(gm, player, as_user, monkeypatch):
    """The history page's Undo of a change an attack made (here: what it cost the attacker's sheet) gives the
    NPC back what that attack took, as the roll's void and the table's Undo do."""
    campaign, wren, goblin = _fight("chaos-conquest", gm, player)
    before = dict(goblin.stats)
    _response, hit = _attack_until_it_hits(as_user(player), wren, goblin, monkeypatch)
    wren.refresh_from_db()
    change = Change.objects.create(
        character=wren,
        by=player,
        what="Attack: spent a coin",
        version=wren.version,
        before={"state": {"coins": wren.state["coins"] + 1}},
        after={"state": {"coins": wren.state["coins"]}},
        roll_id=hit.roll_id,
    )
    response = as_user(player).post(
        reverse("characters:revert", args=[wren.pk, change.pk]), {"reason": "wrong goblin"}, follow=True
    )
    assert response.status_code == 200, text_of(response)
    assert "Goblin 1 has" in text_of(response)
    goblin.refresh_from_db()
    assert goblin.stats == before
    assert FightHit.objects.get(pk=hit.pk).undone_at is not None


# --- item 2: the Change box across a line the rules act on ------------------------------------------------

# Each system's track taken past its line by hand, the state to start from, and the rules' procedure it offers.
CROSSINGS = {
    "fell-draft": ("hp", -20, {"hp": 4, "hp_max": 4}, "take_harm"),
    "fell-late": ("hp", -20, {"hp": 4, "hp_max": 4}, "take_harm"),
    "chaos-conquest": ("stamina", -6, {"stamina": 4, "stamina_max": 6}, "take_damage"),
    "grit-flesh": ("flesh", -9, {"grit": 0}, "damage"),
    "fortunes-favor": ("health", -30, {}, "take_damage"),
}


def _adjust(client, character, key, delta, how=""):
    data = {"key": key, "delta": str(delta), **({"how": how} if how else {})}
    return client.post(reverse("characters:adjust", args=[character.pk]), data, **HTMX)


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_item_2_the_change_box_offers_the_rules_own_harm_across_0_and_the_plain_change_says_what_it_skipped(
    system, gm, player, as_user
):
    """Issue 36, item 2: Fell (draft) HP -20 by the Change box once read "HP 0/4" with no critical harm and no
    Dying. A change across a line the rules act on now asks first, in place, and changes nothing until asked;
    "Apply as harm" rolls the rules' own procedure (asked of the system through the registry); "Change the
    number only" stays for corrections and its history line says what it left out."""
    key, delta, start, procedure = CROSSINGS[system]
    campaign = make_table(system, gm, player)
    hero = make_character(player, campaign, system=system)
    Character.objects.filter(pk=hero.pk).update(state=SYSTEMS[system].validate_state({**hero.state, **start}))
    hero.refresh_from_db()
    client = as_user(player)
    before = (dict(hero.state), hero.version)
    asked = _adjust(client, hero, key, delta)
    assert asked.status_code == 200, text_of(asked)
    assert f'data-harm-offer="{procedure}"' in asked.content.decode()
    assert "Apply as harm" in text_of(asked) and "Change the number only" in text_of(asked)
    hero.refresh_from_db()
    assert (hero.state, hero.version) == before  # asked, nothing changed yet
    done = _adjust(client, hero, key, delta, "rules")
    assert done.status_code == 200, text_of(done)
    roll = Roll.objects.filter(character=hero).latest("pk")
    assert roll.procedure == procedure and "By the rules:" in text_of(done)
    hero.refresh_from_db()
    assert hero.state != before[0]


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_item_2_the_plain_change_stays_and_its_history_says_what_it_skipped(system, gm, player, as_user):
    key, delta, start, _procedure = CROSSINGS[system]
    campaign = make_table(system, gm, player)
    hero = make_character(player, campaign, system=system)
    Character.objects.filter(pk=hero.pk).update(state=SYSTEMS[system].validate_state({**hero.state, **start}))
    response = _adjust(as_user(player), hero, key, delta, "plain")
    assert response.status_code == 200, text_of(response)
    change = Change.objects.filter(character=hero).latest("pk")
    assert "by hand, without" in change.what
    assert not Roll.objects.filter(character=hero).exclude(procedure="creation").exists()


def test_item_2_a_change_crossing_nothing_is_applied_at_once(gm, player, as_user):
    campaign = make_table("fell-draft", gm, player)
    hero = make_character(player, campaign, system="fell-draft")
    Character.objects.filter(pk=hero.pk).update(state={**hero.state, "hp": 4, "hp_max": 4})
    response = _adjust(as_user(player), hero, "hp", -2)
    assert response.status_code == 200 and "data-harm-offer" not in response.content.decode()
    hero.refresh_from_db()
    assert hero.state["hp"] == 2 and Change.objects.filter(character=hero).latest("pk").what == "HP -2"
    refused = _adjust(as_user(player), hero, "hp", -2, "rules")
    assert refused.status_code == 422 and "crosses nothing the rules act on" in text_of(refused)
