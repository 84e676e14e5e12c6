"""Issue 40: the GM's party page, each character's defences and chances side by side: the GM's alone, drawn from
the sheets as they stand, in a fixed number of queries however big the party."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters.print_view import character_print
from characters.selectors import character_for
from rules import SYSTEMS
from tests.conftest import make_character, make_table, make_user
from tests.pages import text_of


def _url(campaign) -> str:
    return reverse("campaigns:party_print", args=[campaign.pk])


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 404), ("other_player", 404), ("stranger", 404)])
def test_only_the_gm_reads_the_party_page(as_user, gm, player, other_player, stranger, who, status):
    """As the table's other GM pages: anyone else is told nothing is there."""
    campaign = make_table("fell-draft", gm, player, other_player)
    make_character(player, campaign, name="Wren")
    viewer = {"gm": gm, "player": player, "other_player": other_player, "stranger": stranger}[who]
    assert as_user(viewer).get(_url(campaign)).status_code == status


@pytest.mark.parametrize("system", list(SYSTEMS))
def test_each_characters_tracks_and_chances_stand_in_its_own_column(as_user, gm, player, other_player, system):
    campaign = make_table(system, gm, player, other_player)
    wren = make_character(player, campaign, system=system, name="Wren")
    ash = make_character(other_player, campaign, system=system, name="Ash", seed=11)
    page = as_user(gm).get(_url(campaign))
    assert page.status_code == 200
    html = page.content.decode()
    chances = html.split('data-party="chances"', 1)[1]
    for hero in (ash, wren):  # in name order, as the columns
        assert hero.name in text_of(page)
        printed = character_print(character_for(hero.owner, hero.pk))
        for check in printed.checks:  # the player's rolls as that player's own page prints them
            assert f'data-odds="{check.default.shown.odds.success.numerator}/' in chances
    rows = re.findall(r"<tr[^>]*>(.*?)</tr>", chances, re.S)
    for row in rows[1:]:
        assert row.count("<td") == 2, "every line has a cell per character"
    for track in SYSTEMS[system].tracks(wren.checked_sheet()):
        assert f'data-track="{track.key}"' in html


def test_the_party_page_shows_the_gms_rolls_after_the_players(as_user, gm, player, other_player):
    campaign = make_table("chaos-conquest", gm, player, other_player)
    make_character(player, campaign, system="chaos-conquest", name="Brannoc")
    html = as_user(gm).get(_url(campaign)).content.decode()
    chances = html.split('data-party="chances"', 1)[1]
    assert "Party save (leader)" in chances and 'class="badge gm"' in chances
    assert chances.index("Save") < chances.index('class="badge gm"')


def test_an_empty_table_says_so(as_user, gm, player, other_player):
    campaign = make_table("fell-late", gm, player, other_player)
    assert "No characters at this table yet." in text_of(as_user(gm).get(_url(campaign)))


def test_the_party_page_costs_the_same_queries_for_two_characters_or_six(
    as_user, gm, player, other_player, django_assert_max_num_queries
):
    campaign = make_table("grit-flesh", gm, player, other_player)
    make_character(player, campaign, system="grit-flesh", name="Tamsin")
    make_character(other_player, campaign, system="grit-flesh", name="Oswin", seed=3)
    client = as_user(gm)
    client.get(_url(campaign))
    with django_assert_max_num_queries(7):
        client.get(_url(campaign))
    for n in range(4):
        seated = make_user(f"extra{n}")
        campaign.memberships.create(user=seated)
        make_character(seated, campaign, system="grit-flesh", name=f"Extra {n}", seed=20 + n)
    with django_assert_max_num_queries(7):
        page = client.get(_url(campaign))
    assert text_of(page).count("Extra ") >= 4
