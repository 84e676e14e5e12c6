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


def _url(character) -> str:
    return reverse("characters:print", args=[character.pk])


@pytest.mark.parametrize(
    ("who", "status", "chances"),
    [("owner", 200, True), ("gm", 200, True), ("peer", 200, False), ("stranger", 404, False)],
)
def test_whoever_sees_the_sheet_prints_it_and_the_odds_print_for_its_editors(
    as_user, gm, player, other_player, stranger, who, status, chances
):
    """The sheet's own permission: its owner and the table's GM read the chances, a peer at the table the numbers
    alone (the sheet shows them no odds) without the secret faction, a stranger nothing."""
    campaign = make_table("chaos-conquest", gm, player, other_player)
    hero = make_character(player, campaign, system="chaos-conquest", name="Brannoc")
    hero.state = {**hero.state, "faction": "Chaos"}
    hero.save(update_fields=["state"])
    viewer = {"owner": player, "gm": gm, "peer": other_player, "stranger": stranger}[who]
    page = as_user(viewer).get(_url(hero))
    assert page.status_code == status
    if status != 200:
        return
    html = page.content.decode()
    assert bool(printed_odds(html)) is chances
    assert ("data-no-chances" in html) is not chances
    assert ('data-cc="faction"' in html) is (who != "peer")
    assert "Brannoc" in text_of(page)


def test_an_anonymous_visitor_is_sent_to_log_in(as_user, hero):
    page = as_user(None).get(_url(hero))
    assert page.status_code == 302 and "/accounts/login/" in page["Location"]


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_the_printed_page_lists_every_roll_with_dice_and_why_the_others_have_none(as_user, player, system):
    """Each roll the sheet's Roll part offers a player: one with odds at its defaults is printed with them (and by
    stat), one refused at its defaults is named with the reason; the GM's rolls are not on a player's page."""
    hero = make_character(player, system=system)
    seat = character_for(player, hero.pk)
    printed = character_print(seat)
    rules = SYSTEMS[system]
    sheet = hero.checked_sheet()
    named = {check.key for check in printed.checks}
    refused = {roll.label for roll in printed.unrollable}
    for procedure in rules.procedures().values():
        shown = odds_shown(hero, procedure, sheet, {})
        if procedure.gm_only or procedure.key == "buy":
            assert procedure.key not in named
        elif shown.error:
            assert procedure.label in refused
        elif shown.odds is not None and sum(1 for _, p in shown.odds.outcomes if p > 0) > 1:
            assert procedure.key in named
            check = next(c for c in printed.checks if c.key == procedure.key)
            assert check.default.shown.odds == shown.odds
    stats = {q.label for q in rules.quick_rolls(sheet)}
    printed_by = {chance.by for check in printed.checks for chance in (check.default, *check.variants)}
    assert stats <= printed_by | {""}, f"{system}: a stat's roll is missing"
    page = as_user(player).get(_url(hero))
    for check in printed.checks:
        assert f'data-check="{check.key}"' in page.content.decode()


def test_the_printed_page_is_drawn_from_the_sheet_as_it_stands(as_user, gm, player, other_player):
    """Never stale: the table's darkness (C&C saves at disadvantage) and a lowered STR change the printed odds
    on the next print, with the darkness said at the top."""
    campaign = make_table("chaos-conquest", gm, player, other_player)
    hero = make_character(player, campaign, system="chaos-conquest", name="Brannoc")
    client = as_user(player)
    before = printed_odds(client.get(_url(hero)).content.decode())
    campaign.conditions = {"light": "darkness"}
    campaign.save(update_fields=["conditions"])
    dark = client.get(_url(hero))
    after = printed_odds(dark.content.decode())
    assert "at the table: Dark" in text_of(dark)
    save = next(k for k in before if k[0] == "save")
    assert Fraction(after[save]) < Fraction(before[save])
    assert 'data-condition="table-light"' in dark.content.decode()


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_a_print_costs_a_fixed_number_of_queries_however_much_is_carried(
    as_user, player, system, django_assert_max_num_queries
):
    hero = make_character(player, system=system)
    client = as_user(player)
    client.get(_url(hero))  # the session and the catalogue's first reads aside
    with django_assert_max_num_queries(8):
        client.get(_url(hero))
    for n in range(6):
        Item.objects.create(character=hero, name=f"Pebble {n}", kind="gear", slots=0)
    with django_assert_max_num_queries(8):
        assert client.get(_url(hero)).status_code == 200


# --- pregens ---------------------------------------------------------------------------------------


def _printed_part(page) -> str:
    """The page's printed part, without the moment it was printed."""
    main = page.content.decode().split('<main id="main">', 1)[1]
    return re.sub(r"printed [^<]*", "", main)


@pytest.mark.parametrize("system", SYSTEM_IDS)
def test_a_pregen_prints_from_its_seed_and_saves_nothing(as_user, player, system, django_assert_max_num_queries):
    client = as_user(player)
    url = reverse("characters:pregen", args=[system])
    counts = (Character.objects.count(), Item.objects.count(), Roll.objects.count(), Change.objects.count())
    client.get(url + "?seed=40")
    with django_assert_max_num_queries(3):  # the session and its user: the rules make the rest
        first = client.get(url + "?seed=40")
    again = client.get(url + "?seed=40")
    other = client.get(url + "?seed=41")
    assert first.status_code == 200
    assert printed_odds(first.content.decode()), f"{system}: a pregen prints no chances"
    body = _printed_part(first)
    assert body == _printed_part(again)  # the seed makes the same character
    assert body != _printed_part(other)
    assert (Character.objects.count(), Item.objects.count(), Roll.objects.count(), Change.objects.count()) == counts
    made = pregen_print(system, 40)
    assert made.character.pk is None and made.character.name in text_of(first)


def test_a_pregen_without_a_seed_says_the_one_it_used_so_it_prints_again(as_user, player):
    client = as_user(player)
    page = client.get(reverse("characters:pregen", args=["fell-draft"]))
    seed = re.search(r"<strong data-seed>(\d+)</strong>", page.content.decode()).group(1)
    again = client.get(reverse("characters:pregen", args=["fell-draft"]) + f"?seed={seed}")
    name = pregen_print("fell-draft", int(seed)).character.name
    assert name in text_of(page) and name in text_of(again)


@pytest.mark.parametrize("seed", ["-1", "x", "99999999999", "1.5"])
def test_a_seed_that_is_no_whole_number_is_refused_in_a_sentence(as_user, player, seed):
    page = as_user(player).get(reverse("characters:pregen", args=["fell-draft"]) + f"?seed={seed}")
    assert page.status_code == 400
    assert "A seed is a whole number" in text_of(page)


def test_the_pregen_list_names_every_system_and_an_unknown_one_is_not_found(as_user, player):
    client = as_user(player)
    page = client.get(reverse("characters:pregens"))
    for system in SYSTEM_IDS:
        assert f'data-pregen="{system}"' in page.content.decode()
    assert client.get(reverse("characters:pregen", args=["no-such-game"])).status_code == 404


def test_the_sheet_and_the_table_lead_to_their_printed_pages(as_user, gm, campaign, hero):
    sheet = as_user(hero.owner).get(reverse("characters:sheet", args=[hero.pk])).content.decode()
    assert f'href="{_url(hero)}"' in sheet
    table = as_user(gm).get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert reverse("campaigns:party_print", args=[campaign.pk]) in table
    player_table = as_user(hero.owner).get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert reverse("campaigns:party_print", args=[campaign.pk]) not in player_table
