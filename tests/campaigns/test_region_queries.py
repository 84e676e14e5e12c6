"""Each live region of the table page is built alone (issue 24): a fixed, small number of queries however big
the party, and the same markup, for the GM and for a player, as the region drawn inside the whole page."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from characters import services
from characters.models import Roll
from rules.base import Item
from tests.conftest import make_character, make_table, make_user

pytestmark = pytest.mark.django_db
HX = {"HTTP_HX_REQUEST": "true"}

# Session and user (the login), the seat with its campaign in one query, then the region's own reads. The
# party: characters with their owners, items, hirelings and pending offers. PostgreSQL asks the database who
# has the table open (SQLite keeps that in the process).
PRESENCE = 1 if connection.vendor == "postgresql" else 0
BOUNDS = {"clock": 3, "log": 4, "members": 4 + PRESENCE, "party": 7}


def _table(players: int):
    gm = make_user("gm")
    seated = [make_user(f"player-{n}") for n in range(players)]
    campaign = make_table("fell-draft", gm, *seated)
    for n, owner in enumerate(seated):
        _grow(campaign, owner, n)
    return campaign, gm, seated


def _grow(campaign, owner, n: int) -> None:
    """A character with items, and its rolls: one for everyone, one for the GM only, one for its owner."""
    character = make_character(owner, campaign, name=f"PC {n}", seed=n)
    for i in range(3):
        services.item_add(character_id=character.pk, item=Item(name=f"Trinket {i}", slots=0), by=owner)
    for visibility in Roll.Visibility.values:
        Roll.objects.create(
            campaign=campaign,
            character=character,
            roller=owner,
            label=f"{visibility} roll of PC {n}",
            procedure="free",
            dice=[{"sides": 6, "face": 4, "kept": True}],
            outcome="pass",
            visibility=visibility,
        )


def _seat_four_more(campaign) -> None:
    """Players 2 to 5 join, each with a character: the table grows from 2 characters to 6."""
    for n in range(2, 6):
        owner = make_user(f"player-{n}")
        campaign.memberships.create(user=owner)
        _grow(campaign, owner, n)


def _region(client, campaign, name: str):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("campaigns:region", args=[campaign.pk, name]), **HX)
    assert response.status_code == 200
    return response.content.decode(), len(captured)


@pytest.mark.parametrize("name", sorted(BOUNDS))
@pytest.mark.parametrize("who", ["gm", "player"])
def test_a_region_costs_the_same_few_queries_with_2_or_6_characters(name, who, as_user):
    campaign, gm, seated = _table(2)
    client = as_user(gm if who == "gm" else seated[0])
    client.get(campaign.get_absolute_url())  # logged in and warm before counting
    _, small = _region(client, campaign, name)
    _seat_four_more(campaign)
    assert campaign.characters.count() == 6 and campaign.memberships.count() == 7
    _, big = _region(client, campaign, name)
    assert big == small <= BOUNDS[name]


def _section(page: str, name: str) -> str:
    """The region's <section> out of a page (the regions hold no nested sections); CSRF tokens are masked
    afresh on every render, so they are left out."""
    start = page.index(f'id="{name}" aria-labelledby="{name}-title"' if name != "clock" else 'id="clock"')
    start = page.rindex("<section", 0, start)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", page[start : page.index("</section>", start)])


@pytest.mark.parametrize("name", sorted(BOUNDS))
@pytest.mark.parametrize("who", ["gm", "player"])
def test_a_region_built_alone_is_the_region_of_the_whole_page(name, who, as_user):
    campaign, gm, seated = _table(3)
    client = as_user(gm if who == "gm" else seated[0])
    page = client.get(campaign.get_absolute_url()).content.decode()
    alone, _ = _region(client, campaign, name)
    assert _section(alone, name) == _section(page, name)


def test_a_players_regions_keep_the_gms_things_out(as_user):
    campaign, gm, seated = _table(2)
    gm_log, _ = _region(as_user(gm), campaign, "log")
    log, _ = _region(as_user(seated[0]), campaign, "log")
    # The GM sees every public and GM-only roll, and no one's private roll but their own (none here).
    assert "gm roll of PC 1" in gm_log and "private roll of PC 1" not in gm_log
    # A player: public rolls, their own of any kind; nobody else's GM-only or private roll.
    assert "public roll of PC 1" in log and "private roll of PC 0" in log and "gm roll of PC 0" in log
    assert "gm roll of PC 1" not in log and "private roll of PC 1" not in log
    members, _ = _region(as_user(seated[0]), campaign, "members")
    assert campaign.invite_code not in members and "Remove…" not in members
    # The invite link is the GM's page's own (not the live member list): only a new link changes it.
    assert campaign.invite_code in as_user(gm).get(campaign.get_absolute_url()).content.decode()
    assert campaign.invite_code not in as_user(seated[0]).get(campaign.get_absolute_url()).content.decode()
    clock, _ = _region(as_user(seated[0]), campaign, "clock")
    assert "Let time pass" not in clock


# The GM's writes answer with the one region they change, built alone (it was the whole table: 19 queries):
# the write's own statements (in a savepoint under the test's transaction), its journal entry, and that region's
# reads. Nothing is notified inside a write (issue 37): the relay announces after the commit.
JOURNAL = 2  # a head bump and the entry's insert; or, joining the transaction's open entry, its read and update
LOCK = 1 if connection.vendor == "postgresql" else 0  # on PostgreSQL a roll takes its roller's advisory lock
WRITES = {
    # No webhook query: the webhook worker reads the journal after the commit (webhooks.services).
    "log": ("campaigns:gm_roll", {"count": 1, "sides": "20", "label": "luck"}, 9 + JOURNAL + LOCK),
    "clock": ("campaigns:clock", {"action": "advance", "minutes": "10"}, 8 + JOURNAL),
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_a_gm_write_answers_with_its_region_alone(name, as_user):
    campaign, gm, seated = _table(2)
    client = as_user(gm)
    view, data, bound = WRITES[name]
    url = reverse(view, args=[campaign.pk])
    client.get(campaign.get_absolute_url())

    def post() -> int:
        with CaptureQueriesContext(connection) as captured:
            response = client.post(url, data, **HX)
        assert response.status_code == 200
        assert response.content.decode().count("<section") == 1
        assert len(captured) <= bound
        assert not [q for q in captured if "notify" in q["sql"].lower()]
        return len(captured)

    post()  # the transaction's first write does its once-a-transaction work (the table's conditions)
    small = post()
    _seat_four_more(campaign)
    assert post() == small
