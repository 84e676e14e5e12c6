"""Issue 25: a change is drawn once per kind of viewer and pushed; no page of a kind that may not see it gets it.

``campaigns.push.render_push`` is what each process's hub calls for the pages open there; these tests call it
as the hub does, with the events a journal entry holds (those a real write recorded, where there is one) and the
(user, page) pairs open, and read what each page would be sent.
"""

from __future__ import annotations

import random
import re

import pytest
from django.core.cache import cache

from campaigns import card_cache, push
from characters import region_cache, services
from characters.models import Character, Roll
from live import events as ev
from live.events import Event, MalformedEvent, from_json_list
from live.hub import CSRF_SLOT, Arrivals, WholePage
from tests.conftest import make_character, make_table
from tests.recorded import Since

pytestmark = pytest.mark.django_db


@pytest.fixture
def drawn(monkeypatch):
    """The templates drawn by the renderer, in order."""
    names: list[str] = []
    real = push.render_to_string

    def counting(name, context=None, *args, **kwargs):
        names.append(name)
        return real(name, context, *args, **kwargs)

    monkeypatch.setattr(push, "render_to_string", counting)
    monkeypatch.setattr(region_cache, "render_to_string", counting)
    monkeypatch.setattr(card_cache, "render_to_string", counting)
    return names


def _pages(gm, player, other_player, hero) -> list[tuple[int, str]]:
    sheet = f"sheet-{hero.pk}"
    return [
        (player.pk, sheet),  # the owner
        (other_player.pk, sheet),  # a player beside them
        (gm.pk, sheet),
        (gm.pk, "table"),
        (player.pk, "table"),
        (other_player.pk, "table"),
    ]


def test_an_hp_change_is_drawn_once_per_kind_of_viewer_for_every_page(campaign, gm, player, other_player, hero, drawn):
    since = Since(campaign.pk)
    written = services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    recorded = since.events()
    assert recorded == [ev.SheetChanged(character=hero.pk, regions=("vitals", "details"))]
    assert set(recorded[0].regions) == written.regions
    pages = _pages(gm, player, other_player, hero)
    out = push.render_push(campaign.pk, recorded, pages)

    # 2 regions x 3 kinds (owner, peer, GM) for the sheets; a card x 3 kinds for the tables: 9 draws for 6 pages
    assert sorted(drawn).count("characters/sheet.html#vitals") == 3
    assert sorted(drawn).count("characters/sheet.html#details") == 3
    assert drawn.count("campaigns/detail.html#card") == 3
    assert set(out) == set(pages)
    for page, html in out.items():
        regions = re.findall(r'id="(vitals|details|card-\d+)"[^>]*hx-swap-oob="outerHTML"', html)
        expected = ["vitals", "details"] if page[1].startswith("sheet-") else [f"card-{hero.pk}"]
        assert sorted(regions) == sorted(expected), page
        assert f'data-version="{written.character.version}"' in html
    owner, peer, gm_sheet = (out[page] for page in pages[:3])
    # The owner and the GM get the forms (each stream puts its own CSRF token in the slot); the peer none.
    assert 'action="/characters/' in owner and CSRF_SLOT in owner
    assert 'action="/characters/' in gm_sheet
    assert "<form" not in peer and CSRF_SLOT not in peer
    # Nobody's Undo travels: only the page that made the change offers it, from its own answer.
    assert all("Undo" not in html for html in out.values())


def test_a_copy_of_a_page_costs_nothing_more(campaign, gm, player, hero, drawn):
    """And a region drawn once is kept: a second push of the same version, a resync or a page load draws nothing."""
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    parts = [ev.SheetChanged(character=hero.pk, regions=("vitals",))]
    push.render_push(campaign.pk, parts, [(player.pk, f"sheet-{hero.pk}")])
    once = len(drawn)
    drawn.clear()
    cache.clear()  # drawn afresh, as by a process that has kept nothing
    # what the hub asks for is one (user, page) per distinct page, however many tabs show it
    push.render_push(campaign.pk, parts, [(player.pk, f"sheet-{hero.pk}")] * 5)
    assert len(drawn) == once == 1
    drawn.clear()
    push.render_push(campaign.pk, parts, [(player.pk, f"sheet-{hero.pk}")])
    assert drawn == []


def test_a_gm_only_roll_reaches_its_roller_and_the_gm_and_nobody_else(campaign, gm, player, other_player, hero):
    since = Since(campaign.pk)
    written = services.character_roll(
        character_id=hero.pk,
        procedure="test",
        params={},
        by=player,
        visibility=Roll.Visibility.GM,
        rng=random.Random(3),
    )
    roll = written.row
    recorded = since.events()
    assert ev.RollMade(roll=roll.pk, character=hero.pk, seen=ev.gm_only(player.pk)) in recorded
    pages = _pages(gm, player, other_player, hero)
    out = push.render_push(campaign.pk, recorded, pages)
    seen = {page for page, html in out.items() if f'id="roll-{roll.pk}"' in html}
    assert seen == {
        (player.pk, f"sheet-{hero.pk}"),
        (player.pk, "table"),
        (gm.pk, f"sheet-{hero.pk}"),
        (gm.pk, "table"),
    }
    assert all(other_player.pk != user for user, _ in out)


def test_a_public_rolls_line_lands_in_every_log_that_lists_it(campaign, gm, player, other_player, hero):
    since = Since(campaign.pk)
    written = services.character_roll(
        character_id=hero.pk, procedure="test", params={}, by=player, rng=random.Random(3)
    )
    assert ev.RollMade(roll=written.row.pk, character=hero.pk) in since.events()
    out = push.render_push(campaign.pk, since.events(), _pages(gm, player, other_player, hero))
    assert len(out) == 6
    line = out[(other_player.pk, "table")]
    # the table's log, the sheet's "everyone" log and this character's own log; not the GM's rolls
    assert f"[data-log~=c{hero.pk}]" in line and "[data-log~=all]" in line and "=gm]" not in line


def test_a_secret_field_never_reaches_a_player_beside_the_owner(gm, player, other_player):
    table = make_table("chaos-conquest", gm, player, other_player)
    character = make_character(player, table, system="chaos-conquest", name="Vex")
    Character.objects.filter(pk=character.pk).update(state={**character.state, "faction": "Chaos"})
    pages = [(player.pk, f"sheet-{character.pk}"), (other_player.pk, f"sheet-{character.pk}"), (gm.pk, "table")]
    out = push.render_push(table.pk, [ev.SheetChanged(character=character.pk, regions=("details",))], pages)
    assert 'data-cc="faction"' in out[(player.pk, f"sheet-{character.pk}")]
    assert 'data-cc="faction"' not in out[(other_player.pk, f"sheet-{character.pk}")]


def test_another_tables_sheet_and_strangers_get_nothing(campaign, gm, player, stranger, hero):
    elsewhere = make_table("fell-draft", stranger, name="Elsewhere")
    theirs = make_character(stranger, elsewhere, name="Other")
    parts = [
        ev.SheetChanged(character=theirs.pk, regions=("vitals",)),
        ev.SheetChanged(character=hero.pk, regions=("vitals",)),
    ]
    out = push.render_push(campaign.pk, parts, [(player.pk, f"sheet-{theirs.pk}"), (stranger.pk, "table")])
    assert out == {}


def test_a_page_that_opens_gets_everything_it_shows(campaign, gm, player, hero, rival):
    out = push.render_push(campaign.pk, [WholePage()], [(player.pk, f"sheet-{hero.pk}"), (gm.pk, "table")])
    sheet, table = out[(player.pk, f"sheet-{hero.pk}")], out[(gm.pk, "table")]
    for region in ("vitals", "details", "inventory", "hirelings", "log"):
        assert f'id="{region}"' in sheet
    assert f'id="card-{hero.pk}"' in table and f'id="card-{rival.pk}"' in table and 'id="log"' in table


MALFORMED = [
    [],
    {"kind": "nonsense"},
    {"regions": ["vitals"]},  # no kind
    {"kind": "sheet.changed", "character": "1", "regions": ["vitals"]},
    {"kind": "sheet.changed", "character": 1, "regions": "vitals"},
    {"kind": "sheet.changed", "character": 1},  # without its regions
    {"kind": "sheet.changed", "character": 1, "regions": ["vitals"], "html": "<script>"},
    {"kind": "roll.made", "roll": None},
    {"kind": "roll.made", "roll": True},
    {"kind": "roll.made", "roll": -1},
    {"kind": "roll.made", "roll": 1, "seen": {"who": "everyone"}},
    "x",
    None,
]


@pytest.mark.parametrize("data", MALFORMED)
def test_malformed_event_json_is_refused_and_draws_nothing(campaign, player, hero, data):
    """A journal row that is no event of a known kind (an old or forged one) is refused by its reader, left out of
    its entry, and so draws nothing."""
    with pytest.raises(MalformedEvent):
        Event.from_json(data)
    assert from_json_list([data]) == []
    assert push.render_push(campaign.pk, from_json_list([data]), [(player.pk, f"sheet-{hero.pk}")]) == {}


def test_an_entry_keeps_its_well_formed_events_and_nothing_that_is_not_a_list(campaign, player, hero):
    good = ev.SheetChanged(character=hero.pk, regions=("vitals",))
    assert from_json_list([*MALFORMED, good.to_json()]) == [good]
    assert from_json_list({"kind": "sheet.changed"}) == [] and from_json_list(None) == []
    assert push.render_push(campaign.pk, [], [(player.pk, f"sheet-{hero.pk}")]) == {}


def test_a_change_that_moves_the_odds_brings_each_forms_default_odds_to_the_editors_only(
    campaign, gm, player, other_player, hero
):
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    sheet = f"sheet-{hero.pk}"
    pages = [(player.pk, sheet), (other_player.pk, sheet), (gm.pk, sheet)]
    out = push.render_push(campaign.pk, [ev.SheetChanged(character=hero.pk, regions=("vitals", "details"))], pages)
    owner, peer, gm_sheet = (out[page] for page in pages)
    assert 'id="default-odds"' not in peer
    owners = set(re.findall(r'<template data-procedure="([\w-]+)"', owner))
    gms = set(re.findall(r'<template data-procedure="([\w-]+)"', gm_sheet))
    assert "test" in owners and owners < gms  # the GM's panel has the GM-only rolls too
    # a change that moves nothing the forms read brings no odds
    out = push.render_push(campaign.pk, [ev.SheetChanged(character=hero.pk, regions=("inventory",))], pages)
    assert all('id="default-odds"' not in html for html in out.values())


def test_a_change_to_the_tables_settings_reaches_every_sheet_and_card_at_it(
    campaign, gm, player, other_player, hero, rival
):
    """A ``sheets.changed`` event: the table's rule settings or conditions changed, so every character's regions are
    drawn again (same version, another table stamp: data-table tells the page to take them)."""
    before = hero.table_stamp()
    campaign.conditions = {"light": "darkness"}  # as campaigns.conditions.refresh_conditions stores them
    campaign.save(update_fields=["conditions"])
    pages = [(player.pk, f"sheet-{hero.pk}"), (other_player.pk, f"sheet-{rival.pk}"), (gm.pk, "table")]
    out = push.render_push(campaign.pk, [ev.SheetsChanged(regions=("details",))], pages)
    assert (
        'id="details"' in out[(player.pk, f"sheet-{hero.pk}")]
        and 'id="details"' in out[(other_player.pk, f"sheet-{rival.pk}")]
    )
    assert f'id="card-{hero.pk}"' in out[(gm.pk, "table")] and f'id="card-{rival.pk}"' in out[(gm.pk, "table")]
    stamp = Character.objects.get(pk=hero.pk).table_stamp()
    assert stamp != before and f'data-table="{stamp}"' in out[(player.pk, f"sheet-{hero.pk}")]


def test_a_roll_request_is_pushed_to_the_sheet_with_its_one_tap_form_for_those_who_answer(
    campaign, gm, player, other_player, hero
):
    from campaigns.session import requests as roll_requests

    since = Since(campaign.pk)
    asked = roll_requests.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=10, by=gm
    )
    assert since.events() == [ev.RequestAsked(request=asked.row.pk, characters=(hero.pk,))]
    sheet = f"sheet-{hero.pk}"
    pages = [(player.pk, sheet), (other_player.pk, sheet), (gm.pk, sheet)]
    out = push.render_push(campaign.pk, since.events(), pages)
    owner, peer, gm_sheet = (out[page] for page in pages)
    for html in (owner, peer, gm_sheet):
        assert 'id="sheet-requests"' in html and 'hx-swap-oob="outerHTML"' in html
    assert "data-answer" in owner and "data-answer" in gm_sheet and CSRF_SLOT in owner
    assert "data-answer" not in peer and "Waiting for Wren's player" in peer


def test_table_topics_are_drawn_once_for_the_gm_and_once_for_the_players_and_gm_panels_only_for_the_gm(
    campaign, gm, player, other_player, hero, drawn
):
    pages = [(gm.pk, "table"), (player.pk, "table"), (other_player.pk, "table")]
    out = push.render_push(campaign.pk, [ev.ClockMoved(), ev.FightChanged(), ev.MembersChanged(users=())], pages)
    for region in ("clock", "time", "members"):
        assert all(f'id="{region}"' in html for html in out.values()), region
        assert drawn.count(f"campaigns/detail.html#{region}") + drawn.count(f"campaigns/_session.html#{region}") == 2
    assert 'id="encounter"' in out[(gm.pk, "table")]
    assert 'id="encounter"' not in out[(player.pk, "table")] and 'id="encounter"' not in out[(other_player.pk, "table")]
    # a kind no region of the table page shows draws nothing there
    assert push.render_push(campaign.pk, [ev.SettingsChanged()], pages) == {}


def test_a_table_page_that_opens_gets_every_region_it_shows(campaign, gm, player, hero):
    out = push.render_push(campaign.pk, [WholePage()], [(gm.pk, "table"), (player.pk, "table")])
    for region in ("clock", "party", "members", "requests", "time", "summary", "encounter", "notes", "log"):
        assert f'id="{region}"' in out[(gm.pk, "table")], region
    assert 'id="notes"' not in out[(player.pk, "table")] and 'id="party"' in out[(player.pk, "table")]


def test_an_arrival_pushes_that_members_row_alone(campaign, gm, player, other_player):
    """Arrivals name who arrived or left: their rows of the member list, as the GM and as a player see
    them (the GM's with the forms to remove them), not the whole list."""
    pages = [(gm.pk, "table"), (other_player.pk, "table")]
    out = push.render_push(campaign.pk, [Arrivals((player.pk,))], pages)
    for html in out.values():
        assert html.count('class="member"') == 1 and f'id="member-{player.pk}"' in html
        assert 'hx-swap-oob="outerHTML"' in html and 'id="members"' not in html
    assert "Remove…" in out[(gm.pk, "table")] and "Remove…" not in out[(other_player.pk, "table")]
