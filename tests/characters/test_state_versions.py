"""A sheet saved before a rule change reshaped its system's state loads in today's shape (issue 38): a character row,
a character file, a campaign backup. Old states are the ones an earlier commit's rules wrote (tests/data/states):
Fortune's Favor's feats.last_target, kept from 6d85edb until 52adb3c dropped it."""

from __future__ import annotations

import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from campaigns.backup import export_campaign, import_campaign
from campaigns.models import Campaign
from characters.models import Character
from characters.services import character_adjust
from characters.transfer import export_character
from rules import SYSTEMS, RulesError
from tests.conftest import make_character, make_table
from tests.pages import form_fields
from tests.rules.test_state_versions import captured

pytestmark = pytest.mark.django_db

FF = "fortunes-favor"
UNREADABLE = "numbers the rules can&#x27;t read"


def _old_state() -> dict:
    """A fresh Fortune's Favor character as 6d85edb's rules saved it: with the feats.last_target of its day."""
    row = next(r for r in captured(FF) if r["commit"].startswith("6d85edb") and r["how"].startswith("create({}"))
    assert "last_target" in row["state"]["feats"]
    return row["state"]


def _stored_as_before(character: Character, state: dict, version: int = 1) -> Character:
    """The row as a Lantern before the reshape left it: written past save(), as the database holds it."""
    character.items.all().delete()  # the old state's own class: no armour this creation chose for another
    Character.objects.filter(pk=character.pk).update(state=state, state_version=version)
    return Character.objects.get(pk=character.pk)


def test_a_row_saved_before_the_reshape_renders_its_sheet(player, gm, as_user):
    campaign = make_table(FF, gm, player)
    old = _old_state()
    character = _stored_as_before(make_character(player, campaign, system=FF), old)
    assert character.state_version == SYSTEMS[FF].state_version and "last_target" not in character.state["feats"]
    page = as_user(player).get(reverse("characters:sheet", args=[character.pk]))
    assert page.status_code == 200
    text = page.content.decode()
    assert UNREADABLE not in text and "can't read" not in text
    assert f"{old['health']}" in text and "Health" in text
    table = as_user(gm).get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert UNREADABLE not in table and "can't read" not in table


def test_the_first_write_after_loading_stores_todays_shape_and_version(player):
    character = _stored_as_before(make_character(player, None, system=FF), _old_state())
    character_adjust(character_id=character.pk, key="coins", delta=-1, by=player)
    stored = Character.objects.filter(pk=character.pk).values("state", "state_version").get()
    assert stored["state_version"] == 2 and "last_target" not in stored["state"]["feats"]


def test_a_save_of_other_fields_leaves_the_stored_version_alone(player):
    character = _stored_as_before(make_character(player, None, system=FF), _old_state())
    character.name = "Renamed"
    character.save(update_fields=["name"])
    assert Character.objects.filter(pk=character.pk).values_list("state_version", flat=True).get() == 1


def test_a_row_from_a_newer_lantern_is_refused_with_a_sentence_not_an_error_page(player, as_user):
    character = _stored_as_before(make_character(player, None, system=FF), {"feats": {"new_thing": 1}}, version=9)
    page = as_user(player).get(reverse("characters:sheet", args=[character.pk]))
    assert page.status_code == 200
    assert "saved by a newer Lantern (sheet version 9; this one reads up to 2)" in page.content.decode()
    with pytest.raises(RulesError, match="newer Lantern"):
        character.checked_sheet()
    character.name = "Touched"
    character.save()  # a save never lowers it: the state stays what a newer Lantern can read
    assert Character.objects.get(pk=character.pk).state_version == 9


def _old_file(player) -> dict:
    """A character file as an export before the reshape wrote it: its day's state and no state_version."""
    document = export_character(make_character(player, None, system=FF, name="Old file"))
    document.update(state=_old_state(), items=[])
    del document["state_version"]
    return document


def test_an_export_saved_before_the_reshape_imports(player, as_user):
    upload = SimpleUploadedFile("old.json", json.dumps(_old_file(player)).encode(), content_type="application/json")
    response = as_user(player).post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 302
    copy = Character.objects.filter(name="Old file").order_by("-pk").first()
    stored = Character.objects.filter(pk=copy.pk).values("state", "state_version").get()
    assert stored["state_version"] == 2 and "last_target" not in stored["state"]["feats"]
    assert export_character(copy)["state_version"] == 2


def test_an_export_from_a_newer_lantern_is_refused_with_a_sentence(player, as_user):
    document = {**_old_file(player), "state_version": 3}
    upload = SimpleUploadedFile("new.json", json.dumps(document).encode(), content_type="application/json")
    response = as_user(player).post(reverse("characters:import"), {"file": upload})
    assert response.status_code == 400
    assert "saved by a newer Lantern" in response.content.decode()
    assert Character.objects.filter(name="Old file").count() == 1  # only the one the file was made from


def test_a_backup_saved_before_the_reshape_restores(gm, player, stranger, as_user):
    campaign = make_table(FF, gm, player)
    make_character(player, campaign, system=FF, name="Wren")
    document = export_campaign(campaign, gm)
    for row in document["characters"]:
        row.update(state=_old_state(), items=[])
        del row["state_version"]
    page = as_user(stranger).get(reverse("campaigns:list"))
    fields = {k: v for k, v in form_fields(page, reverse("campaigns:backup_import")).items() if k != "file"}
    upload = SimpleUploadedFile("vault.json", json.dumps(document).encode(), content_type="application/json")
    response = as_user(stranger).post(reverse("campaigns:backup_import"), {**fields, "file": upload})
    restored = Campaign.objects.exclude(pk=campaign.pk).get()
    assert response.status_code == 302
    wren = restored.characters.values("state", "state_version").get()
    assert wren["state_version"] == 2 and "last_target" not in wren["state"]["feats"]


def test_a_backup_from_a_newer_lantern_creates_nothing(gm, player):
    campaign = make_table(FF, gm, player)
    make_character(player, campaign, system=FF, name="Wren")
    document = export_campaign(campaign, gm)
    document["characters"][0]["state_version"] = 7
    with pytest.raises(RulesError, match="newer Lantern"):
        import_campaign(gm=gm, document=document)
    assert Campaign.objects.count() == 1


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_every_systems_oldest_captured_state_renders_as_a_row(system, player, as_user):
    oldest = captured(system)[0]
    character = _stored_as_before(make_character(player, None, system=system), oldest["state"], oldest["version"])
    text = as_user(player).get(reverse("characters:sheet", args=[character.pk])).content.decode()
    assert UNREADABLE not in text and "can't read" not in text
