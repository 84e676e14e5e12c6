"""Group checks (issue 40): the GM asks the party for one check under a group rule, sees each character's exact chance
and the group's before sending (and what a table condition would make of them), the answers come in, the GM rolls
for an absent player or skips them or closes the check, and the group's outcome is one line of the roll log, seen
as the GM chose."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import RollRequest
from characters.models import Roll
from live import journal
from live.events import GroupChecked
from rules import SYSTEMS
from rules.base import Odds
from rules.group import check_odds
from tests.campaigns.test_request_odds import _save
from tests.conftest import make_character, make_table
from tests.pages import HTMX, form_fields, text_of
from tests.recorded import Since

pytestmark = pytest.mark.django_db

WHAT_IF_QUERIES = 7  # however many characters are ticked
PANEL_QUERIES = 7  # the requests panel, however many characters a group check asked


@pytest.fixture
def ash(other_player, cc):
    return make_character(other_player, cc, system="chaos-conquest", name="Ash", seed=11)


def _page(client, campaign):
    return client.get(reverse("campaigns:detail", args=[campaign.pk]))


def _form(client, campaign, **changes) -> dict:
    return form_fields(_page(client, campaign), reverse("campaigns:request_new", args=[campaign.pk]), **changes)


def _ask(client, campaign, **changes):
    action = reverse("campaigns:request_new", args=[campaign.pk])
    return client.post(action, _form(client, campaign, **changes), **HTMX)


def _answer(client, character, request):
    page = client.get(reverse("campaigns:sheet_requests", args=[character.campaign_id, character.pk]))
    action = reverse("campaigns:request_answer", args=[character.campaign_id, request.pk, character.pk])
    return client.post(action, form_fields(page, action), **HTMX)


def _gm_button(client, campaign, name: str, *args):
    """Post the GM's button in the requests panel as the page draws it (its form's action)."""
    url = reverse(f"campaigns:{name}", args=[campaign.pk, *args])
    panel = client.get(reverse("campaigns:requests", args=[campaign.pk]), **HTMX)
    assert f'action="{url}"' in panel.content.decode(), f"no {name} button on the panel"
    return client.post(url, form_fields(panel, url), **HTMX)


def _pf(p: Fraction) -> Odds:
    return Odds((("pass", p), ("fail", 1 - p)))


# --- before sending: each character's chance, the group's, and the what-if --------------------------------------


def test_the_gm_picks_a_rule_and_sees_the_groups_exact_chance_before_asking(cc, wren, ash, gm, as_user):
    """Seed 002 (002_882aafdbf41b7f4b.txt), Saves: a d20 under the attribute; the GM's rule "at least half"."""
    client = as_user(gm)
    page = _page(client, cc).content.decode()
    assert 'name="rule"' in page and "Chaos &amp; Conquest&#39;s own group roll" in page
    fields = _form(client, cc, **{"fix-attribute": "DEX", "rule": "half"})
    response = client.get(reverse("campaigns:request_odds", args=[cc.pk]), fields, **HTMX)
    assert response.status_code == 200, text_of(response)
    w, a = _save(wren, "DEX"), _save(ash, "DEX")
    expected = check_odds("half", [_pf(w), _pf(a)]).success
    assert expected == 1 - (1 - w) * (1 - a)  # one of two is half
    shown = re.search(r'data-party-odds="rule" data-rule="half" data-group-odds="([0-9/]+)"', response.content.decode())
    assert shown and Fraction(shown.group(1)) == expected
    everyone = client.get(reverse("campaigns:request_odds", args=[cc.pk]), {**fields, "rule": "all"}, **HTMX)
    assert f'data-group-odds="{w * a}"' in everyone.content.decode()


def test_what_if_dark_shows_every_chance_before_and_after_and_changes_nothing(cc, wren, ash, gm, as_user):
    """Seed 002 (002_882aafdbf41b7f4b.txt), Light: in darkness saves are at disadvantage (2d20, the worse)."""
    client = as_user(gm)
    fields = _form(client, cc, **{"fix-attribute": "WIL", "rule": "system"})
    page = _page(client, cc).content.decode()
    assert 'data-what-if="dark"' in page and 'data-what-if="boon"' in page and 'data-what-if="harder"' not in page
    head, rolls, requests, state = journal.head(cc.pk), Roll.objects.count(), RollRequest.objects.count(), wren.state
    url = reverse("campaigns:request_what_if", args=[cc.pk])
    response = client.get(url, {**fields, "what_if": "dark"}, **HTMX)
    assert response.status_code == 200, text_of(response)
    body = response.content.decode()
    w, a = _save(wren, "WIL"), _save(ash, "WIL")
    for name, p in (("Wren", w), ("Ash", a)):
        assert f'data-what-if-for="{name}" data-before="{p}" data-after="{p * p}"' in body
    party = re.search(r'data-what-if-group data-before="([0-9/]+)" data-after="([0-9/]+)"', body)
    assert Fraction(party.group(1)) == 1 - (1 - w) * (1 - a)
    assert Fraction(party.group(2)) == 1 - (1 - w * w) * (1 - a * a)
    assert "In the dark" in text_of(response) and "→" in text_of(response)
    wren.refresh_from_db()
    assert (journal.head(cc.pk), Roll.objects.count(), RollRequest.objects.count()) == (head, rolls, requests)
    assert wren.state == state


def test_what_if_fortunes_favor_for_all_in_the_systems_own_words(gm, player, other_player, as_user):
    """Seed 003 (003_eeb4db86843669ac.txt), Tests: Fortune's Favor rolls a second d20 and keeps the higher."""
    table = make_table("fortunes-favor", gm, player, other_player)
    make_character(player, table, system="fortunes-favor", name="Ivo")
    make_character(other_player, table, system="fortunes-favor", name="Mae", seed=11)
    client = as_user(gm)
    page = _page(client, table)
    assert "Fortune&#x27;s Favor for all" in page.content.decode()
    fields = _form(client, table, rule="system")
    response = client.get(reverse("campaigns:request_what_if", args=[table.pk]), {**fields, "what_if": "boon"}, **HTMX)
    assert response.status_code == 200, text_of(response)
    for before, after in re.findall(
        r'data-what-if-for="\w+" data-before="([0-9/]+)" data-after="([0-9/]+)"', response.content.decode()
    ):
        assert Fraction(after) >= Fraction(before)
    assert "data-what-if-group" in response.content.decode()


@pytest.mark.parametrize(("what_if", "message"), [("sunrise", "Try one of"), ("harder", "Try one of")])
def test_a_what_if_the_system_has_not_is_a_422_with_a_sentence(what_if, message, cc, wren, gm, as_user):
    client = as_user(gm)
    fields = _form(client, cc)
    response = client.get(reverse("campaigns:request_what_if", args=[cc.pk]), {**fields, "what_if": what_if}, **HTMX)
    assert response.status_code == 422 and message in text_of(response)


def test_the_what_if_takes_the_same_queries_however_many_are_ticked(
    cc, wren, ash, gm, player, as_user, django_assert_max_num_queries
):
    for n in range(3):
        make_character(player, cc, system="chaos-conquest", name=f"Extra{n}", seed=20 + n)
    client = as_user(gm)
    fields = _form(client, cc, rule="all")
    with django_assert_max_num_queries(WHAT_IF_QUERIES):
        response = client.get(reverse("campaigns:request_what_if", args=[cc.pk]), {**fields, "what_if": "dark"})
    assert (
        response.status_code == 200 and text_of(response).count("→") == 7
    )  # five characters, the group (and its exact fractions)


# --- asking, answering, deciding -------------------------------------------------------------------------------------


def test_a_party_save_decided_in_one_log_line_naming_each_result(cc, wren, ash, gm, player, as_user):
    """Seed 002 (002_882aafdbf41b7f4b.txt), Party Saves: the party passes when anyone passes."""
    response = _ask(as_user(gm), cc, **{"fix-attribute": "DEX", "rule": "system"})
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    w, a = _save(wren, "DEX"), _save(ash, "DEX")
    assert request.rule == "system" and request.group_seen == "public"
    assert dict(request.group_odds) == {"pass": str(1 - (1 - w) * (1 - a)), "fail": str((1 - w) * (1 - a))}
    since = Since(cc.pk)
    assert _answer(as_user(player), wren, request).status_code == 200
    request.refresh_from_db()
    assert request.group_roll is None  # Ash has not rolled
    assert _gm_button(as_user(gm), cc, "request_roll_for", request.pk, ash.pk).status_code == 200
    request.refresh_from_db()
    line = request.group_roll
    outcomes = dict(request.answers.values_list("character__name", "outcome"))
    assert line is not None and line.character is None and line.roller == gm and line.visibility == "public"
    assert line.outcome == ("pass" if "pass" in outcomes.values() else "fail")
    assert f"Wren {SYSTEMS['chaos-conquest'].outcome_label(outcomes['Wren'])}" in line.summary
    assert "Ash" in line.summary and "(rolled by the GM)" in line.summary
    assert line.odds == dict(request.group_odds)  # the exact odds shown when asked
    ash_roll = Roll.objects.get(character=ash, procedure="save")
    assert ash_roll.roller == gm and "Rolled by the GM for Ash's player." in ash_roll.summary
    assert request.answers.get(character=ash).for_player
    [event] = since.of(GroupChecked)
    assert event.roll == line.pk and set(event.characters) == {wren.pk, ash.pk} and event.seen.who == "public"
    panel = as_user(player).get(reverse("campaigns:requests", args=[cc.pk]))
    assert "Group:" in text_of(panel) and "rolled by the GM" in text_of(panel)
    log = as_user(player).get(reverse("campaigns:detail", args=[cc.pk]))
    assert "Group check: Save" in text_of(log)


def test_a_skipped_player_is_left_out_and_the_rest_decide(campaign, hero, rival, gm, player, as_user):
    response = _ask(as_user(gm), campaign, **{"fix-ability": "BOD", "fix-dn": "1", "rule": "all"})
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    assert _answer(as_user(player), hero, request).status_code == 200
    assert _gm_button(as_user(gm), campaign, "request_skip", request.pk, rival.pk).status_code == 200
    request.refresh_from_db()
    assert request.group_roll is not None and request.group_outcome == "pass"  # DN 1: every test passes
    assert "Ash skipped" in request.group_roll.summary
    sheet = as_user(rival.owner).get(reverse("campaigns:sheet_requests", args=[campaign.pk, rival.pk]))
    assert "Roll Test" not in text_of(sheet)  # nobody waits for Ash any more


def test_closing_a_check_decides_it_from_those_who_rolled(campaign, hero, rival, gm, player, as_user):
    _ask(as_user(gm), campaign, **{"fix-ability": "BOD", "fix-dn": "30", "rule": "any"})
    request = RollRequest.objects.get()
    assert _answer(as_user(player), hero, request).status_code == 200
    assert _gm_button(as_user(gm), campaign, "request_close", request.pk).status_code == 200
    request.refresh_from_db()
    assert request.status == "closed" and request.group_outcome == "fail"  # DN 30: no die meets it
    assert "Ash did not roll" in request.group_roll.summary
    again = as_user(gm).post(reverse("campaigns:request_close", args=[campaign.pk, request.pk]), **HTMX)
    assert "over already" in text_of(again)
    assert Roll.objects.filter(procedure="group_check").count() == 1


# --- who may do what ---------------------------------------------------------------------------------------------


def test_only_the_gm_asks_previews_rolls_for_skips_or_closes(cc, wren, ash, gm, player, other_player, as_user):
    _ask(as_user(gm), cc, **{"fix-attribute": "DEX", "rule": "any"})
    request = RollRequest.objects.get()
    fields = _form(as_user(gm), cc, rule="any")
    for url in (
        reverse("campaigns:request_roll_for", args=[cc.pk, request.pk, ash.pk]),
        reverse("campaigns:request_skip", args=[cc.pk, request.pk, ash.pk]),
        reverse("campaigns:request_close", args=[cc.pk, request.pk]),
        reverse("campaigns:request_new", args=[cc.pk]),
    ):
        assert as_user(player).post(url, fields, **HTMX).status_code == 404, url
    assert as_user(player).get(reverse("campaigns:request_what_if", args=[cc.pk]), fields).status_code == 404
    # a player answers only their own character
    action = reverse("campaigns:request_answer", args=[cc.pk, request.pk, ash.pk])
    refused = as_user(player).post(action, {}, **HTMX)
    assert refused.status_code in (404, 422)
    request.refresh_from_db()
    assert request.status == "open" and not request.answers.filter(answered_at__isnull=False).exists()
    assert not request.answers.filter(skipped=True).exists() and RollRequest.objects.count() == 1


def test_a_rule_the_roll_does_not_offer_is_refused_with_a_sentence(campaign, hero, gm, as_user):
    fields = _form(as_user(gm), campaign)
    fields["rule"] = ["system"]  # Fell has no group roll of its own
    response = as_user(gm).post(reverse("campaigns:request_new", args=[campaign.pk]), fields, **HTMX)
    assert "Select a valid choice" in text_of(response) and not RollRequest.objects.exists()


# --- visibility over the pages --------------------------------------------------------------------------------------


@pytest.mark.parametrize("seen", ["gm", "blind"])
def test_a_gm_only_or_blind_groups_outcome_is_the_gms_alone_on_the_pages(seen, cc, wren, ash, gm, player, as_user):
    _ask(as_user(gm), cc, **{"fix-attribute": "DEX", "rule": "system", "group_seen": seen})
    request = RollRequest.objects.get()
    assert request.blind == (seen == "blind")
    since = Since(cc.pk)
    _answer(as_user(player), wren, request)
    _gm_button(as_user(gm), cc, "request_roll_for", request.pk, ash.pk)
    request.refresh_from_db()
    line = request.group_roll
    assert line.visibility == seen
    [event] = since.of(GroupChecked)
    assert event.seen.who == "gm" and player.pk not in event.seen.to
    page, panel = reverse("campaigns:detail", args=[cc.pk]), reverse("campaigns:requests", args=[cc.pk])
    for url in (page, panel):
        assert request.group_summary not in text_of(as_user(player).get(url))
        assert request.group_summary in text_of(as_user(gm).get(url))
    assert "Group check: Save" not in text_of(as_user(player).get(page))
    assert "The group's outcome is the GM's." in text_of(as_user(player).get(panel))


# --- visibility over the stream (what each open page is pushed) ---------------------------------------------------


@pytest.mark.parametrize(("seen", "players_see"), [("public", True), ("gm", False), ("blind", False)])
def test_the_group_line_is_pushed_to_the_pages_that_may_see_it(
    seen, players_see, campaign, gm, player, other_player, hero, rival, as_user
):
    from campaigns import commands, push, session

    asked = session.request_create(
        campaign_id=campaign.pk,
        procedure="test",
        fixed={"ability": "BOD", "dn": 1},
        character_ids=[hero.pk, rival.pk],
        minutes=5,
        by=gm,
        rule="half",
        group_seen=seen,
    ).row
    commands.roll_for(campaign.pk, request_id=asked.pk, character_id=hero.pk, by=gm)
    since = Since(campaign.pk)
    commands.roll_for(campaign.pk, request_id=asked.pk, character_id=rival.pk, by=gm)
    asked.refresh_from_db()
    line = asked.group_roll
    assert line is not None and line.outcome == "pass"
    pages = [(player.pk, "table"), (other_player.pk, "table"), (gm.pk, "table"), (player.pk, f"sheet-{hero.pk}")]
    out = push.render_push(campaign.pk, since.events(), pages)
    got = {page for page, html in out.items() if f'id="roll-{line.pk}"' in html}
    assert (gm.pk, "table") in got
    assert ((player.pk, "table") in got) == players_see and ((other_player.pk, "table") in got) == players_see
    for page, html in out.items():
        if page[0] != gm.pk:
            assert (asked.group_summary in html) == players_see, page


@pytest.mark.parametrize("extra", [0, 3])
def test_the_requests_panel_takes_the_same_queries_however_many_a_group_check_asked(
    extra, campaign, hero, rival, gm, player, as_user, django_assert_max_num_queries
):
    for n in range(extra):
        make_character(player, campaign, name=f"Extra{n}", seed=20 + n)
    _ask(as_user(gm), campaign, **{"fix-ability": "BOD", "fix-dn": "1", "rule": "best"})
    request = RollRequest.objects.get()
    _gm_button(as_user(gm), campaign, "request_roll_for", request.pk, hero.pk)
    _gm_button(as_user(gm), campaign, "request_skip", request.pk, rival.pk)
    client = as_user(gm)
    with django_assert_max_num_queries(PANEL_QUERIES):
        panel = client.get(reverse("campaigns:requests", args=[campaign.pk]))
    assert text_of(panel).count("Roll for them") == extra and "skipped" in text_of(panel)


def test_a_made_up_audience_for_the_groups_outcome_is_a_form_error_and_nothing_is_asked(cc, wren, ash, gm, as_user):
    fields = _form(as_user(gm), cc, rule="system")
    fields["group_seen"] = ["everyone-and-their-dog"]
    rolls = Roll.objects.count()
    response = as_user(gm).post(reverse("campaigns:request_new", args=[cc.pk]), fields, **HTMX)
    assert response.status_code == 422 and "Select a valid choice" in text_of(response)
    assert not RollRequest.objects.exists() and Roll.objects.count() == rolls
