"""Issue 39: the sheet page's per-viewer parts are kept, and a kept part is never stale.

The viewer's log is kept by the table's journal head (characters.region_cache.viewer_log), the latest change
(the Undo) by the row's stamp, the party's names by the head. Writes commit here (``transaction=True``): the
journal's head moves once per committed write, and a kept log is used only outside a transaction. Each test makes
the sheet keep what it shows, changes the thing, and checks the page shows the change and equals a drawing by a
process that keeps nothing.
"""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns import services as campaign_services
from characters import services
from characters.models import Roll
from characters.templatetags.lantern import TIMES_LATER, fill_times, roll_line
from tests.conftest import client_for, make_character, make_table, make_user
from tests.contract.test_region_cache import _nothing_kept, _tokenless

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def table():
    gm, player, other = make_user("gm"), make_user("player"), make_user("other_player")
    campaign = make_table("fell-draft", gm, player, other)
    hero = make_character(player, campaign, name="Wren")
    rival = make_character(other, campaign, name="Ash", seed=11)
    return campaign, gm, player, other, hero, rival


def _page(user, character) -> str:
    return client_for(user).get(reverse("characters:sheet", args=[character.pk])).content.decode()


def _log(html: str) -> str:
    return html[html.index('id="log"') : html.index("</section>", html.index('id="log"'))]


def _as_kept_and_fresh(user, character) -> str:
    """The page twice: as this process keeps it (twice, so the second is served from what the first kept) and as
    one that keeps nothing; the same but for tokens and times."""
    _page(user, character)
    kept = _page(user, character)
    with _nothing_kept():
        fresh = _page(user, character)
    assert _tokenless(kept) == _tokenless(fresh)
    return kept


def _roll(character, by, visibility="public") -> Roll:
    return services.character_roll(
        character_id=character.pk, procedure="test", params={}, by=by, visibility=visibility
    ).row


def test_a_roll_by_another_player_and_a_void_show_on_a_kept_log(table):
    campaign, gm, player, other, hero, rival = table
    before = _as_kept_and_fresh(player, hero)
    roll = _roll(rival, other)
    page = _as_kept_and_fresh(player, hero)
    assert f'data-roll="{roll.pk}"' in _log(page) and f'data-roll="{roll.pk}"' not in _log(before)
    services.roll_void(roll_id=roll.pk, by=gm, reason="Wrong die")
    page = _as_kept_and_fresh(player, hero)
    assert "Voided by gm: Wrong die" in _log(page)


def test_gm_only_rolls_show_to_the_gm_and_their_roller_only_and_follow_a_seat_change(table):
    campaign, gm, player, other, hero, rival = table
    for user in (gm, player, other):
        _as_kept_and_fresh(user, hero)
    secret = _roll(rival, other, visibility="gm")
    mark = f'data-roll="{secret.pk}"'
    assert mark in _log(_as_kept_and_fresh(gm, hero))
    assert mark not in _log(_as_kept_and_fresh(player, hero))
    assert mark in _log(_as_kept_and_fresh(other, rival))  # its roller
    # The table passes to the player: now they see the GM's rolls, and the former GM sees them no more.
    campaign_services.campaign_transfer_gm(campaign=campaign, to_user_id=player.pk)
    assert mark in _log(_as_kept_and_fresh(player, hero))
    assert mark not in _log(_as_kept_and_fresh(gm, hero))


def test_the_undo_follows_the_latest_change_on_a_kept_page(table):
    campaign, gm, player, other, hero, rival = table
    assert 'class="undo"' not in _as_kept_and_fresh(player, hero)
    made = services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player).change
    page = _as_kept_and_fresh(player, hero)
    assert reverse("characters:revert", args=[hero.pk, made.pk]) in page
    # Undone from the history: the Undo offered is now the revert's own, not the change put back.
    revert = services.change_revert(character_id=hero.pk, change_id=made.pk, by=player, reason="Oops").change
    page = _as_kept_and_fresh(player, hero)
    assert reverse("characters:revert", args=[hero.pk, made.pk]) not in page
    assert reverse("characters:revert", args=[hero.pk, revert.pk]) in page
    # The GM's change: the player is offered no Undo of it; the GM is.
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=gm)
    assert 'class="undo"' not in _as_kept_and_fresh(player, hero)
    assert 'class="undo"' in _as_kept_and_fresh(gm, hero)


def test_a_kept_log_writes_its_times_when_served(table):
    """The roller's Void link lasts a minute and "just now" turns into minutes: a kept log holds marks for them,
    written at each serving from the roll's own moment."""
    campaign, gm, player, other, hero, rival = table
    roll = _roll(hero, player)
    void = reverse("characters:roll_fix", args=[roll.pk])
    for user in (gm, gm):  # twice: drawn, then served from what was kept
        log = _log(_page(user, hero))
        assert void in log and "just now" in log and "<!--" not in log
    # The same marks, served two minutes on: the roller's link is gone, the GM's stays, the time says so.
    roll.created_at = timezone.now() - timedelta(minutes=2, seconds=5)
    for view, link in (("roller", False), ("gm", True)):
        marked = roll_line({TIMES_LATER: True, "roll_view": view}, roll)
        assert "<!--" in marked and (f'href="{void}"' in marked) is (view == "gm")  # the GM's link lasts
        served = fill_times(marked)
        assert (f'href="{void}"' in served) is link and "2\xa0minutes ago" in served and "<!--" not in served


def test_a_rename_at_the_table_shows_in_a_kept_log_and_roll_forms(table):
    campaign, gm, player, other, hero, rival = table
    _roll(rival, other)
    _as_kept_and_fresh(player, hero)
    services.character_rename(character_id=rival.pk, name="Ashen", by=other, expected_version=None)
    page = _as_kept_and_fresh(player, hero)
    assert re.search(r"<strong>Ashen</strong>", _log(page))


def test_the_sheet_reads_three_rows_once_kept(table, django_assert_max_num_queries):
    campaign, gm, player, other, hero, rival = table
    client = client_for(player)
    url = reverse("characters:sheet", args=[hero.pk])
    client.get(url)
    with django_assert_max_num_queries(3):  # the session, the user, the character with its seat and the head
        assert client.get(url).status_code == 200
