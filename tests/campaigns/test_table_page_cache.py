"""Issue 39: the table page's body is kept per viewer and table state (campaigns.page_cache), and never stale.

Writes commit here (``transaction=True``): the journal's head moves once per committed write, and a kept body is
used only outside a transaction. Each test makes the page keep what it shows, changes one thing, and checks the
next GET shows the change and equals a drawing by a process that keeps nothing; the kept page's queries stay flat
however big the party; what a player is not to see never reaches their kept page.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import F
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns import commands, page_cache, session, stash
from campaigns import services as campaign_services
from campaigns.models import Countdown, StashEntry
from characters import services
from characters.models import Roll
from rules.base import Item
from tests.conftest import client_for, make_character, make_table, make_user
from tests.contract.test_region_cache import _nothing_kept, _tokenless

pytestmark = pytest.mark.django_db(transaction=True)

# The session with its user (one statement), then the seat with its campaign, the head and the party's stamps.
# PostgreSQL asks the database who has the table open (SQLite keeps that in the process).
PRESENCE = 1 if connection.vendor == "postgresql" else 0
KEPT_QUERIES = 2 + PRESENCE
GOBLIN = {"hp": 6, "protection": 0}


@pytest.fixture
def table():
    gm, player, other = make_user("gm"), make_user("player"), make_user("other_player")
    campaign = make_table("fell-draft", gm, player, other)
    hero = make_character(player, campaign, name="Wren")
    rival = make_character(other, campaign, name="Ash", seed=11)
    return campaign, gm, player, other, hero, rival


def _url(campaign) -> str:
    return reverse("campaigns:detail", args=[campaign.pk])


_clients: dict[int, Client] = {}


@pytest.fixture(autouse=True)
def _one_client_each():
    _clients.clear()
    yield
    _clients.clear()


def _page(user, campaign) -> str:
    """The page as the user's one browser gets it (logged in once)."""
    if user.pk not in _clients:
        _clients[user.pk] = client_for(user)
    response = _clients[user.pk].get(_url(campaign))
    assert response.status_code == 200
    return response.content.decode()


def _as_kept_and_fresh(user, campaign) -> str:
    """The page twice, the second served from what the first kept, and as a process that keeps nothing would draw
    it: the same but for tokens and times."""
    _page(user, campaign)
    kept = _page(user, campaign)
    with _nothing_kept():
        fresh = _page(user, campaign)
    assert _tokenless(kept) == _tokenless(fresh), "the kept table page is stale"
    return kept


def _everyone(table) -> dict:
    campaign, gm, player, other, *_ = table
    return {who: _as_kept_and_fresh(who, campaign) for who in (gm, player, other)}


def _roll(character, by, visibility="public") -> Roll:
    return services.character_roll(
        character_id=character.pk, procedure="test", params={}, by=by, visibility=visibility
    ).row


def _latest_roll(character) -> Roll:
    return Roll.objects.filter(character=character).latest("created_at")


def _changes(table):
    """Every kind of write the table page shows, each as (name, write, what the GM's page then holds)."""
    campaign, gm, player, other, hero, rival = table
    shown = Countdown.Shown.values[0]

    def fight():
        session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)
        return session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=GOBLIN).row

    def npc_damage():
        npc = campaign.npcs.get(name="Goblin")
        session.npc_damage(campaign_id=campaign.pk, npc_id=npc.pk, amount=2, by=gm)

    return [
        ("HP change", lambda: services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player), None),
        ("roll", lambda: _roll(rival, other), None),
        # Void and Undo: the log's line struck through, the HP change put back (each appends to the journal).
        ("void", lambda: services.roll_void(roll_id=_latest_roll(rival).pk, by=gm, reason="Wrong die"), None),
        (
            "undo",
            lambda: services.change_revert(
                character_id=hero.pk, change_id=hero.changes.latest("at").pk, by=player, reason="Oops"
            ),
            None,
        ),
        ("fight and NPC", fight, "Goblin"),
        ("NPC damage", npc_damage, None),
        (
            "clock",
            lambda: campaign_services.campaign_move_clock(campaign_id=campaign.pk, action="advance", minutes=90, by=gm),
            None,
        ),
        (
            "note",
            lambda: session.note_save(campaign_id=campaign.pk, character_id=None, text="The vault hums", by=gm),
            "The vault hums",
        ),
        ("rename", lambda: services.character_rename(character_id=rival.pk, name="Ashen", by=other), "Ashen"),
        (
            "settings",
            lambda: campaign_services.campaign_change_settings(
                campaign_id=campaign.pk, values={"light_warning": 5}, by=gm
            ),
            None,
        ),
        (
            "request",
            lambda: session.request_create(
                campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=30, by=gm
            ),
            None,
        ),
        ("stash", lambda: stash.stash_add_coins(campaign_id=campaign.pk, amount=7, by=gm), None),
        (
            "countdown",
            lambda: session.countdown_create(
                campaign_id=campaign.pk, name="Flood", segments=4, shown=shown, every_minutes=None, by=gm
            ),
            "Flood",
        ),
        ("daylight", lambda: session.set_daylight(campaign_id=campaign.pk, daylight=False, by=gm), None),
        ("session start", lambda: session.session_start(campaign_id=campaign.pk, by=gm), None),
        (
            "summary",
            lambda: session.summary_save(campaign_id=campaign.pk, text="We met a goblin", by=gm),
            "We met a goblin",
        ),
        ("session end", lambda: session.session_end(campaign_id=campaign.pk, by=gm), None),
        (
            "member role",
            lambda: commands.set_co_gm(campaign.pk, inputs={"user_id": other.pk, "co_gm": True}, by=gm),
            None,
        ),
        ("new PC", lambda: make_character(player, campaign, name="Bryn", seed=3), "Bryn"),
        (
            "join",
            lambda: campaign_services.campaign_join(invite_code=campaign.invite_code, user=make_user("newcomer")),
            "newcomer",
        ),
        (
            "leave",
            lambda: campaign_services.campaign_leave(
                campaign=campaign, user=get_user_model().objects.get(username="newcomer")
            ),
            None,
        ),
        (
            "item",
            lambda: services.item_add(character_id=hero.pk, item=Item(name="Lantern oil", slots=1), by=player),
            "Lantern oil",
        ),
    ]


def test_each_kind_of_change_shows_on_the_next_get_of_a_kept_page(table):
    campaign, gm, *_ = table
    before = _everyone(table)
    for name, write, words in _changes(table):
        write()
        after = _everyone(table)  # each viewer's kept page equals a fresh drawing (checked inside)
        assert _tokenless(after[gm]) != _tokenless(before[gm]), f"{name}: the GM's page did not move"
        if words:
            assert words in after[gm], name
        before = after


def test_a_kept_page_serves_what_it_kept_until_something_changes(table):
    campaign, gm, player, *_ = table
    first = _page(gm, campaign)
    with CaptureQueriesContext(connection) as kept:
        second = _page(gm, campaign)
    assert _tokenless(first) == _tokenless(second)
    assert len(kept) == KEPT_QUERIES, [q["sql"] for q in kept]


def _seat_more(campaign, count: int, start: int) -> None:
    for n in range(start, start + count):
        owner = make_user(f"extra-{n}")
        campaign.memberships.create(user=owner)
        make_character(owner, campaign, name=f"PC {n}", seed=n)


@pytest.mark.parametrize("viewer", ["gm", "player"])
def test_the_kept_page_costs_the_same_few_queries_however_big_the_party(table, viewer):
    campaign, gm, player, *_ = table
    user = gm if viewer == "gm" else player
    counts, drawn = [], []
    _page(user, campaign)  # logged in
    for grow in (1, 4):
        _seat_more(campaign, grow, 10 + len(drawn) * 10)  # the table moves: the page is drawn again
        with CaptureQueriesContext(connection) as first:
            _page(user, campaign)
        with CaptureQueriesContext(connection) as second:
            _page(user, campaign)
        drawn.append(len(first))
        counts.append(len(second))
    assert counts == [KEPT_QUERIES, KEPT_QUERIES]
    assert drawn[0] == drawn[1], "drawing the page grew with the party"


def _log(html: str) -> str:
    return html[html.index('id="log"') : html.index("</section>", html.index('id="log"'))]


def test_gm_only_and_blind_rolls_never_reach_a_players_kept_page(table):
    campaign, gm, player, other, hero, rival = table
    _everyone(table)
    secret = _roll(rival, other, visibility="gm")
    blind = _roll(rival, gm, visibility="blind")  # the GM rolls it for the player's character
    pages = _everyone(table)  # the GM's page first: kept for the GM, then each player's
    assert f'data-roll="{secret.pk}"' in _log(pages[gm])
    assert f'data-roll="{secret.pk}"' not in _log(pages[player])
    assert f'data-roll="{secret.pk}"' in _log(pages[other])  # its roller's own
    gm_blind = re.search(rf'data-roll="{blind.pk}"[^>]*>', _log(pages[gm]))
    assert gm_blind is not None and "data-outcome" in gm_blind[0]
    for who in (player, other):  # a blind roll's result is the GM's alone
        assert f'data-roll="{blind.pk}" data-outcome' not in pages[who]


def test_a_players_kept_page_never_shows_the_gms_tools(table):
    campaign, gm, player, other, *_ = table
    session.note_save(campaign_id=campaign.pk, character_id=None, text="Secret plans", by=gm)
    gm_page = _as_kept_and_fresh(gm, campaign)
    for marker in ('id="gm-roll"', "Secret plans", "Make co-GM", "Invite link"):
        assert marker in gm_page
    page = _as_kept_and_fresh(player, campaign)
    for marker in ('id="gm-roll"', "Secret plans", "Make co-GM", "Invite link", "Catalogue updates"):
        assert marker not in page, marker
    # Made a co-GM: their next page has the GM's tools; a player again: gone.
    commands.set_co_gm(campaign.pk, inputs={"user_id": player.pk, "co_gm": True}, by=gm)
    assert 'id="gm-roll"' in _as_kept_and_fresh(player, campaign)
    commands.set_co_gm(campaign.pk, inputs={"user_id": player.pk, "co_gm": False}, by=gm)
    assert 'id="gm-roll"' not in _as_kept_and_fresh(player, campaign)


def test_each_viewer_has_their_own_kept_page(table):
    campaign, gm, player, other, hero, rival = table
    pages = _everyone(table)
    own = f'data-own-characters="{hero.pk} "'
    assert own in pages[player] and own not in pages[other]
    assert "data-own-characters" not in pages[gm]


def test_an_open_request_expires_on_a_kept_page(table, monkeypatch):
    """Its time runs out with nothing written: the kept page holds only until then."""
    campaign, gm, player, other, hero, rival = table
    session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=30, by=gm
    )
    page = _as_kept_and_fresh(player, campaign)
    assert "waiting…" in page
    later = timezone.now() + timedelta(minutes=31)
    monkeypatch.setattr(timezone, "now", lambda: later)
    monkeypatch.setattr(page_cache.time, "time", later.timestamp)
    page = _page(player, campaign)
    assert "did not roll" in page and "waiting…" not in page


def test_a_stash_entrys_age_moves_on_a_kept_page(table, monkeypatch):
    campaign, gm, *_ = table
    stash.stash_add_coins(campaign_id=campaign.pk, amount=7, by=gm)
    assert re.search(r"0\W+minutes ago", _as_kept_and_fresh(gm, campaign))
    # Five minutes on (the entry's moment moved back, as the renderer reads the wall clock; it moves no head).
    StashEntry.objects.filter(campaign=campaign).update(at=F("at") - timedelta(minutes=5))
    later = timezone.now() + timedelta(minutes=5)
    monkeypatch.setattr(page_cache.time, "time", later.timestamp)
    assert re.search(r"5\W+minutes ago", _page(gm, campaign)), "a kept page kept an old age"


def test_game_time_running_with_the_clock_is_never_kept(table):
    campaign, gm, *_ = table
    _page(gm, campaign)
    assert any(key.startswith(":1:lantern:table-body") for key in _cache_keys())  # kept while it stands still
    cache.clear()
    session.realtime_start(campaign_id=campaign.pk, by=gm)
    _page(gm, campaign)
    assert not any(key.startswith(":1:lantern:table-body") for key in _cache_keys())


def _cache_keys() -> list[str]:
    return list(getattr(cache, "_cache", {}).keys())


def test_another_systems_settings_at_a_mixed_table_show_on_a_kept_page():
    from tests.conftest import seat_one_per_system

    gm = make_user("gm")
    campaign = make_table("fell-draft", gm)
    campaign_services.campaign_set_systems(campaign_id=campaign.pk, also=["chaos-conquest"], by=gm)
    campaign.refresh_from_db()
    party = seat_one_per_system(campaign)
    before = _as_kept_and_fresh(gm, campaign)
    campaign_services.campaign_change_settings(
        campaign_id=campaign.pk, values={"scar_losses_permanent": "no"}, by=gm, system="chaos-conquest"
    )
    after = _as_kept_and_fresh(gm, campaign)
    assert _tokenless(after) != _tokenless(before)  # and equal to a fresh drawing (checked inside)
    assert party["chaos-conquest"].name in after
