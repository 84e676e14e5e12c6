"""A mixed table's pages (issue 42): making and joining with a character of each system it plays, the character
list's tables, each system's settings reaching its own sheets only (byte-equal odds elsewhere), the systems form,
and the party and each sheet on paper by its own system. Real HTTP, the pages' own forms."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

import rules
from campaigns.models import Campaign, Membership, RuleSettingChange
from campaigns.services import campaign_create, campaign_set_co_gm
from characters.models import Character
from rules.base import RulesError, check_params
from tests.conftest import make_character, make_user, seat_one_per_system
from tests.pages import form_fields, text_of

pytestmark = pytest.mark.django_db

HOME = "fell-draft"
ALSO = ["chaos-conquest", "fortunes-favor", "grit-flesh", "fell-late"]


@pytest.fixture
def table(gm):
    return campaign_create(name="The crossroads", system=HOME, gm=gm, also=ALSO)


@pytest.fixture
def party(table):
    return seat_one_per_system(table)


def _odds_bytes(character: Character) -> bytes:
    """Every procedure's odds at its defaults, as the character's own sheet computes them now: its exact repr."""
    character = Character.objects.select_related("campaign").get(pk=character.pk)
    system = rules.system_for(character.system)
    sheet = character.checked_sheet()
    found = []
    for key, procedure in sorted(system.procedures().items()):
        try:
            found.append((key, procedure.odds(sheet, check_params(procedure, sheet, {}))))
        except RulesError as problem:
            found.append((key, ("refused", str(problem))))
    return repr(found).encode()


def test_every_system_the_table_plays_can_join_and_make_a_character(table, gm, as_user):
    detail = text_of(as_user(gm).get(reverse("campaigns:detail", args=[table.pk])))
    for system_id in table.systems:
        assert rules.SYSTEM_NAMES[system_id] in detail
    for n, system_id in enumerate(table.systems):
        newcomer = make_user(f"newcomer{n}")
        client = as_user(newcomer)
        join = reverse("campaigns:join", args=[table.invite_code])
        assert "A mixed table" in text_of(client.get(join))
        assert client.post(join).status_code == 302
        page = client.get(reverse("characters:create") + f"?system={system_id}&campaign={table.pk}")
        assert page.status_code == 200
        url = reverse("characters:create")
        made = client.post(url, form_fields(page, url, name=f"Newcomer {n}"))
        assert made.status_code == 302, text_of(made)
        character = Character.objects.get(owner=newcomer)
        assert (character.system, character.campaign_id) == (system_id, table.pk)


def test_the_table_page_links_a_new_character_of_each_system(table, party, gm, as_user):
    html = as_user(party[HOME].owner).get(reverse("campaigns:detail", args=[table.pk])).content.decode()
    for system_id in table.systems:
        assert f'data-make-system="{system_id}"' in html


def test_a_character_of_a_system_the_table_does_not_play_is_refused_before_the_form(gm, as_user):
    alone = campaign_create(name="Only C&C", system="chaos-conquest", gm=gm, also=["grit-flesh"])
    player = make_user("p")
    Membership.objects.create(campaign=alone, user=player)
    client = as_user(player)
    response = client.get(reverse("characters:create") + f"?system={HOME}&campaign={alone.pk}")
    assert response.status_code == 302
    said = [str(m) for m in get_messages(response.wsgi_request)]
    assert said == [f"Only C&C plays {alone.system_name}, not {rules.SYSTEM_NAMES[HOME]}."]
    assert not Character.objects.exists()
    listing = client.get(reverse("characters:list")).content.decode()
    assert 'data-systems="chaos-conquest grit-flesh"' in listing


def test_a_setting_of_one_system_leaves_every_other_sheets_odds_byte_equal(table, party, gm, as_user):
    client = as_user(gm)
    for system_id in table.systems:
        declared = [s for s in rules.system_for(system_id).rule_settings() if s.kind in ("choice", "int", "bool")]
        if not declared:
            continue
        setting = declared[0]
        current = table.settings_in_force(system_id)[setting.key]
        if setting.kind == "bool":
            value = None if current else "yes"
        elif setting.kind == "choice":
            value = next(str(v) for v, _ in setting.choices if v != current)
        else:
            value = str(current + 1 if setting.maximum is None or current < setting.maximum else current - 1)
        before = {key: _odds_bytes(c) for key, c in party.items() if key != system_id}
        page = client.get(reverse("campaigns:settings", args=[table.pk]) + f"?system={system_id}")
        url = reverse("campaigns:settings", args=[table.pk])
        response = client.post(url, form_fields(page, url, **{setting.key: value}))
        assert response.status_code == 302, text_of(response)
        table.refresh_from_db()
        assert table.settings_in_force(system_id)[setting.key] != current, system_id
        assert {key: _odds_bytes(c) for key, c in party.items() if key != system_id} == before, system_id


def test_the_systems_form_adds_and_removes_and_refuses_to_strand_a_sheet(gm, as_user):
    home = campaign_create(name="Growing", system=HOME, gm=gm)
    client = as_user(gm)
    page = client.get(reverse("campaigns:settings", args=[home.pk]))
    url = reverse("campaigns:table_systems", args=[home.pk])
    added = client.post(url, form_fields(page, url, also=["chaos-conquest", "grit-flesh"]))
    assert added.status_code == 302
    home.refresh_from_db()
    assert home.systems == (HOME, "chaos-conquest", "grit-flesh")
    player = make_user("p")
    Membership.objects.create(campaign=home, user=player)
    make_character(player, home, system="grit-flesh", name="Tam")
    page = client.get(reverse("campaigns:settings", args=[home.pk]))
    removed = client.post(url, form_fields(page, url, also=["grit-flesh"]))
    assert removed.status_code == 302
    home.refresh_from_db()
    assert home.systems == (HOME, "grit-flesh")
    logged = RuleSettingChange.objects.filter(campaign=home).count()
    page = client.get(reverse("campaigns:settings", args=[home.pk]))
    refused = client.post(url, form_fields(page, url, also=[]))
    assert refused.status_code == 400
    assert "Characters of Grit & Flesh sit at this table" in text_of(refused)
    assert Campaign.objects.get(pk=home.pk).systems == (HOME, "grit-flesh")
    assert RuleSettingChange.objects.filter(campaign=home).count() == logged


def test_the_party_on_paper_reads_each_character_by_its_own_system(table, party, gm, as_user):
    response = as_user(gm).get(reverse("campaigns:party_print", args=[table.pk]))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'data-track="system"' in html
    for key, character in party.items():
        assert character.name in text_of(response) and rules.system_for(key).name in text_of(response)
    for key, character in party.items():  # and each sheet on its own
        own = as_user(character.owner).get(reverse("characters:print", args=[character.pk]))
        assert own.status_code == 200 and character.name in text_of(own), key


def test_a_co_gm_changes_one_systems_settings_and_the_log_names_them_a_player_cannot(table, party, gm, as_user):
    """Open tables meet mixed ones: the owner's co-GM keeps any system's settings, logged with their name and the
    system's; a player's post changes nothing."""
    co_gm = party["chaos-conquest"].owner
    campaign_set_co_gm(campaign=table, user_id=co_gm.pk, co_gm=True, by=gm)
    system_id = next(s for s in ALSO if any(d.kind == "int" for d in rules.system_for(s).rule_settings()))
    setting = next(d for d in rules.system_for(system_id).rule_settings() if d.kind == "int")
    current = table.settings_in_force(system_id)[setting.key]
    value = str(current + 1 if setting.maximum is None or current < setting.maximum else current - 1)
    url = reverse("campaigns:settings", args=[table.pk])
    player = as_user(party["fell-late"].owner)
    page = as_user(co_gm).get(f"{url}?system={system_id}")
    fields = form_fields(page, url, **{setting.key: value})
    assert player.post(url, fields).status_code == 404
    assert not RuleSettingChange.objects.filter(campaign=table).exists()
    assert as_user(co_gm).post(url, fields).status_code == 302
    change = RuleSettingChange.objects.get(campaign=table)
    assert change.by == co_gm and change.label.startswith(rules.system_for(system_id).name)
    table.refresh_from_db()
    assert str(table.settings_in_force(system_id)[setting.key]) == value
    assert table.settings_in_force(HOME) == rules.system_for(HOME).settings_in_force(None)
