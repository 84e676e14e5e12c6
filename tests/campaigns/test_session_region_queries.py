"""Each session panel of the table page (templates/campaigns/_session.html) is built alone (issue 24): a fixed,
small number of queries however big the party and the session, and the same markup as inside the whole page."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns import session
from rules import SYSTEMS
from tests.campaigns.test_region_queries import HX, _seat_four_more, _section, _table

pytestmark = pytest.mark.django_db

# Session and user (the login), the campaign the viewer may see, their seat, then the region's own reads:
# requests with their answers and characters; the party's characters, items and hirelings for the light;
# the NPCs with their encounter, and the encounter when none is in it, and the party (an NPC attack's targets);
# the GM's notes and the characters.
BOUNDS = {"requests": 7, "time": 8, "summary": 4, "encounter": 7, "notes": 6, "countdowns": 5}
# The time: 8 since issue 41 (the GM's list of the table's lights, one query); the countdowns: their rows.
# The encounter: 7 since issue 26 (the fight's hits the GM may undo, one query).
GM_ONLY = ("encounter", "notes")


def _session(campaign, gm, npcs: int, requests: int) -> None:
    """A fight with NPCs in it and on the saved list, and requests to every character."""
    if not campaign.encounters.filter(active=True).exists():
        session.encounter_start(campaign_id=campaign.pk, name="Ghouls", by=gm)
    for i in range(campaign.npcs.count(), npcs):
        session.npc_add(campaign_id=campaign.pk, name=f"Ghoul {i}", stats={}, keep=i % 2 == 0)
    ids = list(campaign.characters.values_list("pk", flat=True))
    procedure = next(iter(session.requestable(SYSTEMS[campaign.system])))
    for _ in range(campaign.roll_requests.count(), requests):
        session.request_create(
            campaign_id=campaign.pk, procedure=procedure, fixed={}, character_ids=ids, minutes=30, by=gm
        )


def _region(client, campaign, name: str):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse(f"campaigns:{name}", args=[campaign.pk]), **HX)
    assert response.status_code == 200
    return response.content.decode(), len(captured)


def _cases():
    return [(name, who) for name in sorted(BOUNDS) for who in ("gm", "player") if who == "gm" or name not in GM_ONLY]


@pytest.mark.parametrize(("name", "who"), _cases())
def test_a_session_region_costs_the_same_few_queries_however_big_the_session(name, who, as_user):
    campaign, gm, seated = _table(2)
    _session(campaign, gm, npcs=2, requests=1)
    client = as_user(gm if who == "gm" else seated[0])
    client.get(campaign.get_absolute_url())  # logged in and warm before counting
    _, small = _region(client, campaign, name)
    _seat_four_more(campaign)
    _session(campaign, gm, npcs=10, requests=8)
    _, big = _region(client, campaign, name)
    assert big == small <= BOUNDS[name]


@pytest.mark.parametrize(("name", "who"), _cases())
def test_a_session_region_built_alone_is_the_region_of_the_whole_page(name, who, as_user):
    campaign, gm, seated = _table(3)
    _session(campaign, gm, npcs=3, requests=2)
    client = as_user(gm if who == "gm" else seated[0])
    page = client.get(campaign.get_absolute_url()).content.decode()
    alone, _ = _region(client, campaign, name)
    assert _section(alone, name) == _section(page, name)
