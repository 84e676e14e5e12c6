"""A whole-campaign backup (issue 28): the GM exports the campaign as one file and restores it as a new campaign
on any Lantern; the file holds only what the GM's table shows, and a bad file creates nothing."""

from __future__ import annotations

import json
import random

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns import session
from campaigns.backup import FORMAT, export_campaign, import_campaign, parse_backup
from campaigns.models import Campaign, GmNote, Membership, Npc
from campaigns.services import campaign_change_settings
from characters.models import Character, Roll
from characters.services import character_roll, store_free_roll
from rules import SYSTEMS, RulesError
from rules.base import check_params
from rules.free import FREE_ROLL
from tests.conftest import make_character, make_table
from tests.pages import form_fields

pytestmark = pytest.mark.django_db


def _any_roll(character, by, visibility: str) -> Roll:
    """The character's first procedure that rolls with its default inputs."""
    for key in SYSTEMS[character.system].procedures():
        try:
            return character_roll(
                character_id=character.pk, procedure=key, params={}, by=by, visibility=visibility, rng=random.Random(3)
            ).row
        except RulesError:
            continue
    raise AssertionError("no procedure rolls with its defaults")


def _table_in_play(system: str, gm, player, other_player) -> Campaign:
    campaign = make_table(system, gm, player, other_player)
    wren = make_character(player, campaign, system=system, name="Wren")
    ash = make_character(other_player, campaign, system=system, name="Ash", seed=11)
    Character.objects.filter(pk=wren.pk).update(notes="Owes the ferryman.")
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm, rng=random.Random(1))
    defaults = {p.name: p.default for p in SYSTEMS[system].npc_fields()}
    session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=defaults)
    session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=defaults)
    session.npc_add(campaign_id=campaign.pk, name="Ogre", stats=defaults, to_encounter=False, keep=True)
    session.note_save(campaign_id=campaign.pk, character_id=None, text="The vault floods at midnight.")
    session.note_save(campaign_id=campaign.pk, character_id=ash.pk, text="Ash is the traitor.")
    session.summary_save(campaign_id=campaign.pk, text="We reached the vault.")
    _any_roll(wren, player, "public")
    _any_roll(ash, other_player, "private")  # the GM never sees it: the backup must not hold it
    _any_roll(wren, player, "gm")
    store_free_roll(campaign=campaign, params=check_params(FREE_ROLL, None, {}), by=gm, visibility="gm")
    store_free_roll(campaign=campaign, params=check_params(FREE_ROLL, None, {}), by=gm, visibility="public")
    setting = next(iter(SYSTEMS[system].rule_settings()), None)
    if setting is not None and setting.kind == "bool":
        campaign_change_settings(campaign_id=campaign.pk, values={setting.key: not setting.default}, by=gm)
    return Campaign.objects.get(pk=campaign.pk)


def _comparable(document: dict) -> dict:
    """The document without who played and rolled: after a restore, the importer holds every character."""
    document = json.loads(json.dumps(document))
    for character in document["characters"]:
        character.pop("player")
    for roll in document["rolls"]:
        roll.pop("by")
    return document


@pytest.mark.parametrize("system", sorted(SYSTEMS))
def test_a_backup_round_trips_to_an_equal_campaign(
    system, gm, player, other_player, stranger, as_user, django_assert_max_num_queries
):
    campaign = _table_in_play(system, gm, player, other_player)
    with django_assert_max_num_queries(8):  # characters, items, hirelings, notes, fight, NPCs, log
        exported = export_campaign(campaign, gm)
    assert exported["format"] == FORMAT and len(exported["characters"]) == 2
    assert {npc["name"] for npc in exported["npcs"]} == {"Goblin 1", "Goblin 2", "Ogre"}
    assert all(roll["visibility"] != "private" for roll in exported["rolls"])
    assert {roll["visibility"] for roll in exported["rolls"]} == {"public", "gm"}

    restored = import_campaign(gm=stranger, document=parse_backup(json.dumps(exported).encode()))
    assert restored.pk != campaign.pk and restored.name == campaign.name and restored.system == system
    assert Membership.objects.get(campaign=restored).user == stranger  # the importer runs it, alone
    assert set(restored.characters.values_list("owner", flat=True)) == {stranger.pk}
    assert _comparable(export_campaign(restored, stranger)) == _comparable(exported)
    assert as_user(stranger).get(restored.get_absolute_url()).status_code == 200  # its table draws


def test_the_backup_keeps_the_fight_the_notes_and_the_log_order(gm, player, other_player, stranger):
    campaign = _table_in_play("chaos-conquest", gm, player, other_player)
    restored = import_campaign(gm=stranger, document=export_campaign(campaign, gm))
    fight = restored.encounters.get(active=True)
    assert fight.name == "Ambush" and list(fight.npcs.values_list("name", flat=True)) == ["Goblin 1", "Goblin 2"]
    assert list(Npc.objects.filter(campaign=restored, encounter=None).values_list("name", flat=True)) == ["Ogre"]
    assert GmNote.objects.get(campaign=restored, character=None).text == "The vault floods at midnight."
    assert GmNote.objects.get(campaign=restored, character__name="Ash").text == "Ash is the traitor."
    assert restored.characters.get(name="Wren").notes == "Owes the ferryman."
    old = list(campaign.rolls.exclude(visibility="private").values_list("label", "created_at"))
    assert list(restored.rolls.values_list("label", "created_at")) == old
    history = restored.characters.get(name="Wren").changes.get()
    assert history.what == "Imported with a campaign backup"


def test_only_the_gm_downloads_the_backup(as_user, gm, player, stranger, campaign):
    url = reverse("campaigns:backup_export", args=[campaign.pk])
    assert as_user(player).get(url).status_code == 404
    assert as_user(stranger).get(url).status_code == 404
    response = as_user(gm).get(url)
    assert response.status_code == 200 and response["Content-Type"] == "application/json"
    assert "attachment" in response["Content-Disposition"]
    assert json.loads(response.content)["name"] == campaign.name
    settings_page = as_user(gm).get(reverse("campaigns:settings", args=[campaign.pk])).content.decode()
    assert url in settings_page
    assert url not in as_user(player).get(reverse("campaigns:settings", args=[campaign.pk])).content.decode()


def test_restoring_through_the_campaigns_page(as_user, gm, player, other_player, stranger):
    campaign = _table_in_play("fell-late", gm, player, other_player)
    raw = as_user(gm).get(reverse("campaigns:backup_export", args=[campaign.pk])).content
    page = as_user(stranger).get(reverse("campaigns:list"))
    fields = form_fields(page, reverse("campaigns:backup_import"))
    assert "file" in fields
    del fields["file"]
    upload = SimpleUploadedFile("vault.lantern-campaign.json", raw, content_type="application/json")
    response = as_user(stranger).post(reverse("campaigns:backup_import"), {**fields, "file": upload})
    restored = Campaign.objects.exclude(pk=campaign.pk).get()
    assert response.status_code == 302 and response["Location"] == restored.get_absolute_url()
    assert restored.characters.count() == 2


def _broken(document: dict, how) -> bytes:
    document = json.loads(json.dumps(document))
    how(document)
    return json.dumps(document).encode()


BROKEN = {
    "not json": (lambda d: None, b"{nope", "not JSON"),
    "a character file": (lambda d: d.update(format="lantern-character"), None, "not a Lantern campaign"),
    "a later format": (lambda d: d.update(format_version=9), None, "format 9"),
    "unknown system": (lambda d: d.update(system="gurps"), None, "know a game system called"),
    "a sheet the rules refuse": (lambda d: d["characters"][0].update(state="x"), None, "damaged"),
    "a character of another system": (lambda d: d["characters"][0].update(system="fell-draft"), None, "not a"),
    "an NPC the rules refuse": (lambda d: d["npcs"][0].update(stats={"hp": "many"}), None, "Goblin 1: NPC has no"),
    "a log line naming no character": (lambda d: d["rolls"][0].update(character=99), None, "does not hold"),
    "a log line with no time": (lambda d: d["rolls"][0].update(at="yesterday"), None, "no readable time"),
    "a clock out of range": (lambda d: d["table"].update(round=-1), None, "whole number"),
    "a hit on nobody": (lambda d: d["fight"]["hits"].update({"7": "ouch"}), None, "does not hold"),
    "a summary too long": (lambda d: d["table"].update(summary="x" * 5001), None, "at most 5,000"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_a_bad_backup_is_refused_with_a_sentence_and_creates_nothing(case, as_user, gm, player, other_player, stranger):
    campaign = _table_in_play("chaos-conquest", gm, player, other_player)
    how, raw, words = BROKEN[case]
    raw = raw or _broken(export_campaign(campaign, gm), how)
    campaigns, characters, rolls = Campaign.objects.count(), Character.objects.count(), Roll.objects.count()
    upload = SimpleUploadedFile("bad.json", raw, content_type="application/json")
    response = as_user(stranger).post(reverse("campaigns:backup_import"), {"file": upload})
    assert response.status_code == 400
    assert words in response.content.decode()
    assert (Campaign.objects.count(), Character.objects.count(), Roll.objects.count()) == (campaigns, characters, rolls)


def test_a_backup_past_the_account_cap_creates_nothing(gm, player, other_player, stranger, monkeypatch):
    campaign = _table_in_play("fell-draft", gm, player, other_player)
    monkeypatch.setattr("campaigns.backup.MAX_CHARACTERS", 1)
    with pytest.raises(RulesError, match="at most 1"):
        import_campaign(gm=stranger, document=export_campaign(campaign, gm))
    assert not Campaign.objects.filter(memberships__user=stranger).exists()


def test_the_restore_form_refuses_a_file_past_its_size(as_user, stranger, monkeypatch):
    monkeypatch.setattr("campaigns.backup.MAX_FILE_BYTES", 10)
    upload = SimpleUploadedFile("big.json", b"{" + b" " * 20 + b"}", content_type="application/json")
    response = as_user(stranger).post(reverse("campaigns:backup_import"), {"file": upload})
    assert response.status_code == 400 and "too large" in response.content.decode()


def test_a_character_file_now_carries_its_notes(player, stranger):
    from characters.transfer import export_character, import_character

    wren = make_character(player, system="grit-flesh")
    Character.objects.filter(pk=wren.pk).update(notes="Scar over the left eye.")
    document = export_character(Character.objects.get(pk=wren.pk))
    assert import_character(owner=stranger, document=document).notes == "Scar over the left eye."
    with pytest.raises(RulesError, match="notes"):
        import_character(owner=stranger, document={**document, "notes": "x" * 2001})
