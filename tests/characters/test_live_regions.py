"""Issue 10, then issue 25: a write answers with just the regions it changed, and announces just those.

A write records one journal entry whose events name the character and its changed regions (``sheet.changed``);
each process draws them for the open pages (campaigns/push.py, tested in tests/campaigns/test_push.py). These
tests hold the server side: what a write announces, what its answer carries, what one region request builds.
bench/live_requests.py counts the browser's side.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import services as campaign_services
from live.events import MembersChanged, RolesChanged
from tests.pages import form_fields
from tests.recorded import Since

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def announced(campaign):
    """What the writes recorded in the table's journal since the test (or its last ``clear``), read as topics:
    ``character-<id>-<region>`` for each region of a sheet, ``roll`` for a roll's line (tests/recorded.py)."""
    return Since(campaign.pk)


def _regions_in(response) -> list[str]:
    return re.findall(r'<section class="card" id="(\w+)"', response.content.decode())


def test_one_hp_change_names_two_sheet_regions_and_the_card(hero, player, as_user, announced):
    """Vitals and details (which moves the roll panel's odds): drawn and pushed, the card with them."""
    client = as_user(player)
    url = reverse("characters:adjust", args=[hero.pk])
    fields = form_fields(client.get(hero.get_absolute_url()), url, key="hp", delta="-1")
    announced.clear()
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200
    assert announced.topics() == [f"{hero.topic}-vitals", f"{hero.topic}-details"]
    assert len(announced.entries()) == 1
    # The answer: the region the form targets, and the other one that changed (out of band), nothing else.
    assert _regions_in(response) == ["vitals", "details"]
    assert response.content.decode().count('hx-swap-oob="outerHTML"') == 1


def test_a_plain_roll_publishes_each_topic_once(hero, player, as_user, announced):
    client = as_user(player)
    url = reverse("characters:roll", args=[hero.pk, "test"])
    announced.clear()
    response = client.post(url, form_fields(client.get(hero.get_absolute_url()), url), **HTMX)
    assert response.status_code == 200
    (entry,) = announced.entries()  # one write, one entry
    assert [event.kind for event in entry.events].count("roll.made") == 1
    assert len(entry.events) == len(set(entry.events))


def test_adding_an_item_answers_with_inventory_vitals_and_details(hero, player, as_user, announced):
    client = as_user(player)
    url = reverse("characters:item_add", args=[hero.pk])
    page = client.get(hero.get_absolute_url())
    fields = form_fields(page, url, name="Rope", kind="gear", slots="1", quantity="1")
    fields.pop("entry", None)
    announced.clear()
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200
    assert sorted(_regions_in(response)) == ["details", "inventory", "vitals"]
    assert set(announced.topics()) == {f"{hero.topic}-{r}" for r in ("inventory", "vitals", "details")}


@pytest.mark.parametrize("region", ["vitals", "details", "inventory", "hirelings", "log"])
def test_a_region_request_builds_only_that_region(hero, player, as_user, region, django_assert_max_num_queries):
    client = as_user(player)
    with django_assert_max_num_queries(7):
        response = client.get(reverse("characters:region", args=[hero.pk, region]), **HTMX)
    assert response.status_code == 200
    assert _regions_in(response) == [region]
    assert 'id="roll-panel"' not in response.content.decode()


def test_the_log_region_reads_no_items_and_no_sheet(hero, player, as_user):
    client = as_user(player)
    with CaptureQueriesContext(connection) as queries:
        client.get(reverse("characters:region", args=[hero.pk, "log"]), **HTMX)
    assert not [q for q in queries if "characters_item" in q["sql"] or "characters_hireling" in q["sql"]]


def test_the_roll_panel_odds_come_in_one_request_for_every_open_form(hero, player, as_user):
    """The details region (and the "odds" refresher) answer with the odds of each form the page sent,
    swapped out of band by id: one request however many boxes are open."""
    client = as_user(player)
    page = client.get(hero.get_absolute_url())
    test_url = reverse("characters:roll", args=[hero.pk, "test"])
    query = form_fields(page, test_url)
    response = client.get(reverse("characters:region", args=[hero.pk, "details"]), query, **HTMX)
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="odds-test" hx-swap-oob="innerHTML"' in body
    assert "data-odds=" in body
    odds_only = client.get(reverse("characters:region", args=[hero.pk, "odds"]), query, **HTMX)
    assert 'id="odds-test" hx-swap-oob="innerHTML"' in odds_only.content.decode()
    assert 'id="details"' not in odds_only.content.decode()


def test_the_panel_names_each_procedures_inputs_apart(hero, player, as_user):
    """Two open forms in one request must not mix their inputs: the panel's inputs carry their procedure."""
    body = as_user(player).get(hero.get_absolute_url()).content.decode()
    assert 'name="test-ability"' in body
    assert 'id="odds-refresh"' in body
    assert 'sse-swap="push"' in body and 'id="default-odds"' in body


# --- membership changes are announced ---------------------------------------------------------------


def test_joining_leaving_and_a_new_gm_are_announced(campaign, gm, player, other_player, hero, announced):
    announced.clear()
    campaign_services.campaign_transfer_gm(campaign=campaign, to_user_id=player.pk)
    assert "members" in announced.topics() and "roles" in announced.topics()
    (roles,) = announced.of(RolesChanged)
    assert set(roles.users) == {gm.pk, player.pk} and set(roles.seen.to) == {gm.pk, player.pk}
    campaign_services.campaign_transfer_gm(campaign=campaign, to_user_id=gm.pk)
    announced.clear()
    campaign_services.campaign_regenerate_invite(campaign=campaign)
    assert announced.topics() == ["members"]
    (link,) = announced.of(MembersChanged)
    assert link.seen.who == "gm"  # only the GM's member list shows the invite link
    announced.clear()
    campaign_services.campaign_leave(campaign=campaign, user=player)
    # and the leaver's streams are revoked (test_stream_permissions)
    assert {"party", "members", "revoke"} <= set(announced.topics())
    assert [event.users for event in announced.of(MembersChanged)] == [(player.pk,)]
    hero.refresh_from_db()
    assert hero.campaign_id is None
    assert hero.changes.filter(what="Left the campaign").exists()  # logged and versioned, not .update()


def test_leaving_bumps_each_characters_version(campaign, player, hero):
    before = hero.version
    campaign_services.campaign_leave(campaign=campaign, user=player)
    hero.refresh_from_db()
    assert hero.version == before + 1
