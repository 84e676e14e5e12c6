"""The contract at a mixed table (issue 42): every registered system and Coin Flip seated at one table.

Each character plays by its own system: its settings, its conditions, its odds are those its own sheet shows at a
table of its system alone; a setting of one system never reaches another's sheets; every table action the GM takes
leaves every sheet valid by its own rules. Real database, real HTTP (the pages' own forms), no mocks.
"""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

import rules
from campaigns.models import Campaign, Membership
from campaigns.services import campaign_create, campaign_set_systems
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character
from characters.services import character_set_campaign
from rules.base import RulesError, check_sheet
from tests.conftest import make_character, seat_one_per_system
from tests.contract.coin_flip import SYSTEM as COIN_FLIP
from tests.contract.test_contract import MAX_QUERIES
from tests.pages import form_fields, text_of

REAL_SYSTEMS = list(rules.SYSTEMS)
HOME = REAL_SYSTEMS[0]
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def every_system(db):
    """The registered systems and Coin Flip, the test-only one, registered for the test."""
    with rules.registered(COIN_FLIP):
        load_catalogue(CatalogueItem, "coin-flip")
        yield [*REAL_SYSTEMS, "coin-flip"]


@pytest.fixture
def mixed(every_system, gm):
    """A table of every system: the first registered is its home; one player per system, one character each."""
    table = campaign_create(name="The crossroads", system=HOME, gm=gm, also=every_system[1:])
    party = list(seat_one_per_system(table).values())  # in the table's order: home first
    return table, party


def _odds_by_procedure(character: Character) -> dict[str, object]:
    """Every procedure's odds at its default inputs, as the character's own sheet computes them now."""
    character = Character.objects.select_related("campaign").get(pk=character.pk)
    system = rules.system_for(character.system)
    sheet = character.checked_sheet()
    found: dict[str, object] = {}
    for key, procedure in system.procedures().items():
        try:
            params = rules.base.check_params(procedure, sheet, {})
            found[key] = procedure.odds(sheet, params)
        except RulesError as problem:
            found[key] = ("refused", str(problem))
    return found


def test_a_mixed_table_seats_every_system_and_each_sheet_reads_its_own_rules(mixed):
    table, party = mixed
    assert table.is_mixed and set(table.systems) == {c.system for c in party}
    for character in party:
        character = Character.objects.select_related("campaign").get(pk=character.pk)
        own = rules.system_for(character.system)
        assert character.rule_settings() == own.settings_in_force(None)
        assert character.table_conditions() == table.conditions_for(character.system)
        check_sheet(own, character.checked_sheet())


@pytest.mark.parametrize("daylight", [True, False])
def test_every_pcs_odds_at_a_mixed_table_equal_its_sheets_own_at_a_table_of_its_system(mixed, gm, as_user, daylight):
    """The same character, moved from the mixed table to a table of its own system alone (same daylight): every
    procedure's odds are the same, to the fraction."""
    table, party = mixed
    client = as_user(gm)
    assert (
        client.post(
            reverse("campaigns:time_daylight", args=[table.pk]), {"daylight": "1" if daylight else "0"}
        ).status_code
        < 400
    )
    for character in party:
        at_mixed = _odds_by_procedure(character)
        alone = campaign_create(name=f"Only {character.system}", system=character.system, gm=gm)
        if not daylight:
            client.post(reverse("campaigns:time_daylight", args=[alone.pk]), {"daylight": "0"})
        Membership.objects.create(campaign=alone, user=character.owner)
        # Its party of one judges the light alone: give the mixed table's light for its system to compare like for like.
        character_set_campaign(character_id=character.pk, campaign=alone, by=character.owner)
        alone.refresh_from_db()
        Campaign.objects.filter(pk=alone.pk).update(
            conditions=table.__class__.objects.get(pk=table.pk).conditions_for(character.system)
        )
        assert _odds_by_procedure(character) == at_mixed, character.system
        character_set_campaign(character_id=character.pk, campaign=table, by=character.owner)


def _changed_value(table, system_id, setting) -> str | None:
    """A value of ``setting`` other than the one in force, as the settings form sends it (None: no simple one)."""
    current = table.settings_in_force(system_id)[setting.key]
    if setting.kind == "bool":
        return None if current else "yes"
    if setting.kind == "choice":
        return next(str(value) for value, _ in setting.choices if value != current)
    if setting.kind == "int":
        return str(current + 1 if setting.maximum is None or current < setting.maximum else current - 1)
    return None


def test_a_setting_of_one_system_never_changes_another_systems_sheets(mixed, gm, as_user):
    table, party = mixed
    client = as_user(gm)
    settings_url = reverse("campaigns:settings", args=[table.pk])
    tried = 0
    for system_id in table.systems:
        declared = [s for s in rules.system_for(system_id).rule_settings() if s.kind in ("choice", "int", "bool")]
        if not declared:
            continue
        fresh = {c.pk: Character.objects.select_related("campaign").get(pk=c.pk) for c in party}
        before = {pk: (c.table_stamp(), _odds_by_procedure(c)) for pk, c in fresh.items()}
        page = client.get(f"{settings_url}?system={system_id}")
        assert page.status_code == 200
        setting = declared[0]
        was = table.settings_in_force(system_id)[setting.key]
        value = _changed_value(table, system_id, setting)
        fields = form_fields(page, settings_url, **{setting.key: value})
        assert fields["system"] == [system_id]
        response = client.post(settings_url, fields)
        assert response.status_code == 302, text_of(response)
        table.refresh_from_db()
        assert table.settings_in_force(system_id)[setting.key] != was, system_id
        tried += 1
        for character in party:
            stamp_before, odds_before = before[character.pk]
            now = Character.objects.select_related("campaign").get(pk=character.pk)
            if character.system == system_id:
                assert now.table_stamp() != stamp_before, system_id
            else:
                assert now.table_stamp() == stamp_before, (system_id, character.system)
                assert _odds_by_procedure(character) == odds_before, (system_id, character.system)
        # the change is back to the default: the next system starts from a table as it was
        client.post(
            settings_url,
            form_fields(
                client.get(f"{settings_url}?system={system_id}"),
                settings_url,
                **{setting.key: _changed_value(table, system_id, setting)},
            ),
        )
        table.refresh_from_db()
    assert tried >= 2, "fewer than two systems with settings to try"


def _table_queries(client, table) -> int:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(table.get_absolute_url())
    assert response.status_code == 200
    return len(queries)


def test_the_table_page_draws_every_system_in_a_fixed_number_of_queries(mixed, gm, as_user):
    table, party = mixed
    for user in (gm, party[1].owner):
        client = as_user(user)
        page = text_of(client.get(table.get_absolute_url()))
        for character in party:
            assert character.name in page
        assert _table_queries(client, table) <= MAX_QUERIES["table"] + 1  # +1: the mixed table's other conditions


def test_the_gms_table_actions_leave_every_sheet_valid_by_its_own_rules(mixed, gm, as_user):
    """Daylight, dark, the clock in each of the home system's units, a fight started, run and ended: each through
    the page's own form; every sheet stays valid by its own system and nothing answers with a server error."""
    table, party = mixed
    client = as_user(gm)
    page = client.get(table.get_absolute_url())
    url = reverse("campaigns:time_daylight", args=[table.pk])
    assert client.post(url, {"daylight": "0"}, **HTMX).status_code == 200
    advance = reverse("campaigns:time_advance", args=[table.pk])
    for unit in rules.system_for(HOME).time_units():
        fields = form_fields(page, advance, unit=unit.key, count="1")
        response = client.post(advance, fields, **HTMX)
        assert response.status_code == 200, text_of(response)
    start = reverse("campaigns:encounter_action", args=[table.pk, "start"])
    assert client.post(start, {"name": "Crossroads brawl"}, **HTMX).status_code == 200
    for action in ("next", "end"):
        response = client.post(reverse("campaigns:encounter_action", args=[table.pk, action]), {}, **HTMX)
        assert response.status_code in (200, 400), text_of(response)
    for character in party:
        character = Character.objects.select_related("campaign").get(pk=character.pk)
        check_sheet(rules.system_for(character.system), character.checked_sheet())


def test_a_system_with_characters_at_the_table_cannot_leave_it(mixed, gm, as_user):
    table, party = mixed
    client = as_user(gm)
    response = client.post(reverse("campaigns:table_systems", args=[table.pk]), {"also": [REAL_SYSTEMS[1]]})
    assert response.status_code == 400
    assert "sit at this table" in text_of(response)
    table.refresh_from_db()
    assert set(table.systems) == {c.system for c in party}


def test_a_character_of_a_system_the_table_does_not_play_is_refused(gm, player, as_user, db):
    table = campaign_create(name="Fell only", system=HOME, gm=gm)
    Membership.objects.create(campaign=table, user=player)
    other = REAL_SYSTEMS[1]
    stray = make_character(player, None, system=other, name="Stray")
    with pytest.raises(RulesError, match="plays"):
        character_set_campaign(character_id=stray.pk, campaign=table, by=player)
    campaign_set_systems(campaign_id=table.pk, also=[other], by=gm)
    table.refresh_from_db()
    character_set_campaign(character_id=stray.pk, campaign=table, by=player)
    assert Character.objects.get(pk=stray.pk).campaign_id == table.pk


@pytest.mark.parametrize("index", range(len(REAL_SYSTEMS)))
def test_the_create_page_of_a_mixed_table_makes_a_character_of_each_system(mixed, as_user, index):
    table, party = mixed
    player = party[0].owner
    system_id = table.systems[index]
    client = as_user(player)
    url = reverse("characters:create") + f"?system={system_id}&campaign={table.pk}"
    page = client.get(url)
    assert page.status_code == 200
    fields = form_fields(page, reverse("characters:create"))
    fields.setdefault("name", ["Newcomer"])
    if not fields["name"] or not fields["name"][0]:
        fields["name"] = ["Newcomer"]  # a system with no name tables asks for one
    response = client.post(reverse("characters:create"), fields)
    assert response.status_code == 302, text_of(response)
    made = Character.objects.filter(owner=player).order_by("-pk").first()
    assert made.system == system_id and made.campaign_id == table.pk


def test_random_seed_does_not_matter_for_the_mixed_table(mixed):
    """Every system's creation at this table, with other dice, still gives a valid sheet of its own system."""
    table, party = mixed
    for character in party:
        system = rules.system_for(character.system)
        made = system.create({}, random.Random(99), settings=table.settings_in_force(character.system))
        system.validate_state(made.state)
