"""Issue 40, sheets on paper: a character's printed page with every roll's exact chance, the GM's party page and
the convention's pregens: who may read each, what they print, in how many queries, and that nothing is saved."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse

from characters.models import Change, Character, Item, Roll
from characters.print_view import character_print, pregen_print
from characters.selectors import character_for
from characters.sheet_view import odds_shown
from rules import SYSTEMS
from tests.conftest import make_character, make_table
from tests.pages import text_of

SYSTEM_IDS = list(SYSTEMS)


def printed_odds(html: str) -> dict[tuple[str, str], str]:
    """Each printed chance's exact success fraction, by (roll, inputs as the odds box asks for them)."""
    found = re.findall(r'class="print-odds" data-procedure="([^"]+)" data-inputs="([^"]*)" data-odds="([^"]+)"', html)
    return {(key, inputs.replace("&amp;", "&")): odds for key, inputs, odds in found}


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_the_printed_page_shows_each_rolls_odds_as_the_sheets_odds_box(as_user, gm, player, other_player, system):
    campaign = make_table(system, gm, player, other_player)
    hero = make_character(player, campaign, system=system)
    page = as_user(player).get(reverse("characters:print", args=[hero.pk]))
    assert page.status_code == 200
    html = page.content.decode()
    printed = printed_odds(html)
    assert printed, f"{system}: no chances printed"
    client = as_user(player)
    for (key, inputs), odds in printed.items():
        box = client.get(reverse("characters:odds", args=[hero.pk, key]) + f"?{inputs}")
        assert box.status_code == 200
        assert f'data-odds="{odds}"' in box.content.decode(), (system, key, inputs)

