"""Roll requests at a mixed table (issue 42): a shared check each system answers with its own roll, or a roll picked
per system; each PC's odds from its own sheet, the group's combined exactly; answers, log lines and the chronicle in
each roll's own system's words; the API and Discord ask through the same command; refusals change nothing.

The table seats every registered system and Coin Flip, the test-only one. Real database, the pages' own forms.
"""

from __future__ import annotations

import itertools
import json
import random
from fractions import Fraction

import pytest
from django.urls import reverse

import rules
from campaigns import session
from campaigns.chronicle import read as chronicle_read
from campaigns.models import RollRequest, RollRequestAnswer
from campaigns.services import campaign_create
from characters.catalogue import load_catalogue
from characters.models import CatalogueItem, Character, Roll
from characters.sheet_view import odds_shown
from rules.base import check_params
from rules.group import ALL, ANY, HALF, PASSES
from tests.conftest import seat_one_per_system
from tests.contract.coin_flip import SYSTEM as COIN_FLIP
from tests.pages import form_fields, text_of

REAL_SYSTEMS = list(rules.SYSTEMS)
HOME = REAL_SYSTEMS[0]
HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def mixed(db, gm):
    """A table of every system and Coin Flip: the first registered is home; one player and character each."""
    with rules.registered(COIN_FLIP):
        load_catalogue(CatalogueItem, "coin-flip")
        systems = [*REAL_SYSTEMS, "coin-flip"]
        table = campaign_create(name="The crossroads", system=HOME, gm=gm, also=systems[1:])
        party = list(seat_one_per_system(table).values())  # in the table's order: home first
        yield table, party


def _fresh(character: Character) -> Character:
    return Character.objects.select_related("campaign").get(pk=character.pk)


def _own_odds(character: Character, check: str):
    """The odds the character's own sheet shows for its system's roll of ``check`` (the check's inputs set, the
    rest at the sheet's defaults), and that roll's key."""
    character = _fresh(character)
    system = rules.system_for(character.system)
    mapped = system.shared_checks()[check]
    proc = system.procedures()[mapped.procedure]
    sheet = character.checked_sheet()
    clean = check_params(proc, sheet, dict(mapped.inputs))
    return odds_shown(character, proc, sheet, {k: clean[k] for k in mapped.inputs}).odds, proc.key


def _ask_on_page(client, table, **changes):
    """The GM's request form as the table page draws it, sent with ``changes``; the answer."""
    page = client.get(table.get_absolute_url())
    url = reverse("campaigns:request_new", args=[table.pk])
    return client.post(url, form_fields(page, url, **changes), **HTMX)


def _enumerated(each: list, rule: str) -> Fraction:
    """The group's chance of success by listing every way the party's outcomes can fall (no Poisson-binomial)."""
    total = Fraction(0)
    for way in itertools.product(*[[(key, p, key in odds.success_keys) for key, p in odds.outcomes] for odds in each]):
        chance = Fraction(1)
        for _, p, _ in way:
            chance *= p
        passed = sum(1 for *_, ok in way if ok)
        need = {ALL: len(each), ANY: 1, HALF: (len(each) + 1) // 2}[rule]
        if passed >= need:
            total += chance
    return total


def test_a_shared_check_asks_every_pc_its_own_systems_roll_with_its_own_sheets_odds(mixed, gm, as_user):
    table, party = mixed
    client = as_user(gm)
    form_page = client.get(
        reverse("campaigns:request_fields", args=[table.pk]), {"check": "might", "procedure": ""}, **HTMX
    )
    shown = text_of(form_page)
    assert '<option value="might" selected>' in form_page.content.decode()  # drawn again, the check stays picked
    for system_id in table.systems:  # the form says what each system rolls for the check
        system = rules.system_for(system_id)
        assert f"{system.name}:" in shown
        assert system.procedures()[system.shared_checks()["might"].procedure].label in shown
    response = _ask_on_page(client, table, check="might", rule=ALL)
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    assert request.shared_check == "might" and request.label == "Check with strength or might"
    assert set(request.per_system) == set(table.systems)
    for character in party:
        asked = request.asked_of(character.system)
        mapped = rules.system_for(character.system).shared_checks()["might"]
        assert asked.procedure == mapped.procedure
        assert {k: asked.inputs[k] for k in mapped.inputs} == dict(mapped.inputs)
    # Each PC's odds on the GM's form are those its own sheet shows for that roll.
    odds_url = reverse("campaigns:request_odds", args=[table.pk])
    page = client.get(table.get_absolute_url())
    odds_page = client.get(
        odds_url, form_fields(page, reverse("campaigns:request_new", args=[table.pk]), check="might")
    )
    assert odds_page.status_code == 200, text_of(odds_page)
    each = []
    for character in party:
        own, _ = _own_odds(character, "might")
        each.append(own)
        assert f'data-odds-for="{character.name}"' in odds_page.content.decode()
    rows = session.plan_odds(
        session.plan_asks(table.systems, check="might"),
        [(c, _fresh(c).checked_sheet()) for c in party],
    ).rows
    assert [row.odds for row in rows] == each
    for character, odds in zip(party, each, strict=True):  # and as the rules read the sheet, the check's inputs set
        character = _fresh(character)
        system = rules.system_for(character.system)
        mapped = system.shared_checks()["might"]
        proc = system.procedures()[mapped.procedure]
        sheet = character.checked_sheet()
        assert odds == proc.odds(sheet, check_params(proc, sheet, dict(mapped.inputs))), character.system
    assert [row.system_id for row in rows] == [c.system for c in party]
    # The group's odds, kept on the request as the GM saw them, equal an enumeration of every way the party rolls.
    kept = {k: Fraction(v) for k, v in request.group_odds}
    assert kept[PASSES] == _enumerated(each, ALL)


@pytest.mark.parametrize("rule", [ANY, HALF])
def test_the_groups_odds_at_a_mixed_table_equal_an_enumeration(mixed, rule):
    table, party = mixed
    plan = session.plan_asks(table.systems, check="agility")
    asked = [(c, _fresh(c).checked_sheet()) for c in party]
    party_odds = session.plan_odds(plan, asked, rule=rule)
    each = [row.odds for row in party_odds.rows]
    assert all(odds is not None for odds in each)
    assert party_odds.rule_odds.of(PASSES) == _enumerated(each, rule)
    assert party_odds.system_id == ""  # several systems: no one system's words for the group


def test_the_system_rule_is_offered_only_where_every_pc_shares_the_system(mixed, gm):
    table, party = mixed
    with pytest.raises(session.CampaignError, match="Pick a group rule"):
        session.request_create(
            campaign_id=table.pk,
            procedure="test",
            fixed={},
            check="danger",
            character_ids=[c.pk for c in party],
            minutes=10,
            by=gm,
            rule="system",
        )
    assert not RollRequest.objects.exists()
    same = [c for c in party if c.system == "chaos-conquest"]
    asked = session.request_create(
        campaign_id=table.pk,
        procedure="test",
        fixed={},
        check="danger",
        character_ids=[c.pk for c in same],
        minutes=10,
        by=gm,
        rule="system",
    )
    assert asked.row.rule == "system" and asked.row.group_odds


def test_each_pc_answers_with_its_own_roll_and_the_log_speaks_its_own_system(mixed, gm, as_user):
    table, party = mixed
    client = as_user(gm)
    assert _ask_on_page(client, table, check="wits", rule=ANY).status_code == 200
    request = RollRequest.objects.get()
    panel = client.get(reverse("campaigns:requests", args=[table.pk])).content.decode()
    for character in party:  # the GM's panel names the roll each one's own system is asked
        row = panel.split(f'data-answer="{character.name}"', 1)[1].split("</li>", 1)[0]
        assert f"({request.asked_of(character.system).label})".replace("'", "&#x27;") in row
    for character in party:
        player_client = as_user(character.owner)
        region = reverse("campaigns:sheet_requests", args=[table.pk, character.pk])
        card = player_client.get(region)
        asked = request.asked_of(character.system)
        assert asked.label in text_of(card)
        own, _ = _own_odds(character, "wits")
        assert "data-request-odds" in card.content.decode() or own is None
        url = reverse("campaigns:request_answer", args=[table.pk, request.pk, character.pk])
        response = player_client.post(url, form_fields(card, url), **HTMX)
        assert response.status_code == 200, text_of(response)
    answers = list(RollRequestAnswer.objects.filter(request=request).select_related("roll", "character"))
    assert all(a.answered_at is not None for a in answers)
    for answer in answers:
        assert answer.roll.procedure == request.asked_of(answer.character.system).procedure
    request.refresh_from_db()
    assert request.group_roll is not None
    for answer in answers:  # the group line names each outcome in its own system's words
        words = rules.system_for(answer.character.system).outcome_label(answer.outcome)
        assert f"{answer.character.name} {words}" in request.group_summary or len(request.group_summary) == 300
    # The table's log and the requests panel: each roll's outcome in its own character's system's words.
    log = client.get(table.get_absolute_url()).content.decode()
    for answer in answers:
        words = rules.system_for(answer.character.system).outcome_label(answer.roll.outcome)
        assert f'data-roll="{answer.roll.pk}"' in log
        line = log.split(f'data-roll="{answer.roll.pk}"', 1)[1].split("</div>", 1)[0]
        assert words.replace("'", "&#x27;") in line, (answer.character.system, words)


@pytest.mark.parametrize("seen", ["gm", "blind"])
def test_a_gm_only_or_blind_group_check_of_several_systems_is_the_gms_alone(mixed, gm, as_user, seen):
    """Visibility meets the mixed table: each player answers their own system's roll; a blind check's rolls and a
    GM-only or blind group outcome reach no player's page, only the GM's."""
    table, party = mixed
    assert _ask_on_page(as_user(gm), table, check="wits", rule=ANY, group_seen=seen).status_code == 200
    request = RollRequest.objects.get()
    assert request.blind == (seen == "blind")
    for character in party:
        player_client = as_user(character.owner)
        region = reverse("campaigns:sheet_requests", args=[table.pk, character.pk])
        card = player_client.get(region)
        url = reverse("campaigns:request_answer", args=[table.pk, request.pk, character.pk])
        assert player_client.post(url, form_fields(card, url), **HTMX).status_code == 200
    request.refresh_from_db()
    assert request.group_roll is not None and request.group_roll.visibility == seen
    answers = RollRequestAnswer.objects.filter(request=request).select_related("roll")
    if seen == "blind":
        assert all(answer.roll.visibility == Roll.Visibility.BLIND for answer in answers)
    page = table.get_absolute_url()
    assert request.group_summary in text_of(as_user(gm).get(page))
    for character in party:
        assert request.group_summary not in text_of(as_user(character.owner).get(page)), character.system


def test_the_roll_line_speaks_its_characters_system_not_the_tables(mixed):
    """A roll of a character of another system than the page's: its outcome in its own system's words; a roll of
    no character (the GM's), the home system's."""
    from django.template import Context

    from characters.templatetags.lantern import roll_line

    table, party = mixed
    for system_id, key in (("chaos-conquest", "new_max"), ("grit-flesh", "crit")):
        character = next(c for c in party if c.system == system_id)
        own = rules.system_for(system_id).outcome_label(key)
        assert own != rules.system_for(HOME).outcome_label(key)  # words the home system does not use
        made = Roll.objects.create(
            campaign=table, character=character, roller=character.owner, label="A roll", procedure="x", outcome=key
        )
        roll = Roll.objects.select_related("character", "roller").get(pk=made.pk)
        assert own in roll_line(Context({"system_id": HOME, "roll_view": "gm"}), roll)
    gms = Roll.objects.create(campaign=table, roller=party[0].owner, label="Table", procedure="x", outcome="crit")
    gms = Roll.objects.select_related("character", "roller").get(pk=gms.pk)
    line = roll_line(Context({"system_id": HOME, "roll_view": "gm"}), gms)
    assert rules.system_for(HOME).outcome_label("crit") in line and "critical hit" not in line  # home words


def test_a_mixed_sessions_chronicle_names_each_outcome_in_its_own_systems_words(mixed, gm, as_user):
    table, party = mixed
    started = session.session_start(campaign_id=table.pk, by=gm)
    session.request_create(
        campaign_id=table.pk,
        procedure="",
        fixed={},
        check="presence",
        character_ids=[c.pk for c in party],
        minutes=10,
        by=gm,
    )
    request = RollRequest.objects.get()
    for n, character in enumerate(party):
        session.request_answer(
            request_id=request.pk, character_id=character.pk, params={}, by=character.owner, rng=random.Random(n)
        )
    played = started.row
    records = chronicle_read.records(played, table)
    by_character = {record.character: record for record in records.rolls if record.character}
    for character in party:
        record = by_character[character.pk]
        assert record.outcome_words == rules.system_for(character.system).outcome_label(record.outcome)
    page = as_user(gm).get(reverse("campaigns:chronicle", args=[table.pk, played.number]))
    assert page.status_code == 200


def test_picking_each_systems_roll_by_hand_on_the_page(mixed, gm, as_user):
    table, party = mixed
    client = as_user(gm)
    picks = {"procedure": "contest", "procedure@chaos-conquest": "opposed_save", "procedure@grit-flesh": "save"}
    # the page draws each system's inputs for the roll picked: fetch the form for these picks, then send it
    fields_url = reverse("campaigns:request_fields", args=[table.pk])
    page = client.get(fields_url, picks, **HTMX)
    assert page.status_code == 200
    url = reverse("campaigns:request_new", args=[table.pk])
    response = client.post(url, form_fields(page, url, **picks), **HTMX)
    assert response.status_code == 200, text_of(response)
    request = RollRequest.objects.get()
    assert request.shared_check == ""
    assert request.asked_of("chaos-conquest").procedure == "opposed_save"
    assert request.asked_of("grit-flesh").procedure == "save"
    assert request.asked_of(HOME).procedure == "contest"


def test_what_if_at_a_mixed_table_moves_each_pc_by_its_own_system(mixed, gm, as_user):
    table, party = mixed
    plan = session.plan_asks(table.systems, check="might")
    asked = [(c, _fresh(c).checked_sheet()) for c in party]
    result = session.plan_what_if(plan, asked, "harder", ALL)
    rows = {row.character.system: row for row in result.rows}
    assert rows["grit-flesh"].unknown and rows["grit-flesh"].before == rows["grit-flesh"].after
    assert rows["coin-flip"].unknown
    assert not rows["fell-draft"].unknown and rows["fell-draft"].moved
    assert result.group_before is not None and result.group_after.of(PASSES) <= result.group_before.of(PASSES)
    client = as_user(gm)
    page = client.get(table.get_absolute_url())
    fields = form_fields(page, reverse("campaigns:request_new", args=[table.pk]), check="might")
    response = client.get(reverse("campaigns:request_what_if", args=[table.pk]), {**fields, "what_if": "harder"})
    assert response.status_code == 200, text_of(response)
    assert "knows no such condition" in text_of(response)


# --- the API and Discord ask through the same command ------------------------------------------------------------


def test_the_api_asks_a_mixed_table_a_shared_check_or_a_roll_per_system(mixed, gm):
    from tests.api.conftest import bearer

    table, party = mixed
    api = bearer(gm, "table", table)
    url = f"/api/campaigns/{table.pk}/requests"
    ids = [c.pk for c in party]
    response = api.send(url, {"check": "luck", "characters": ids, "minutes": 5})
    assert response.status_code == 422, response.content  # a system with no luck roll: the GM picks its roll
    assert "has no roll for luck: pick its roll yourself" in json.loads(response.content)["detail"]
    assert not RollRequest.objects.exists()
    done = api.send(url, {"check": "might", "characters": ids, "minutes": 5})
    assert done.status_code == 200, done.content
    request = RollRequest.objects.get()
    assert set(request.per_system) == set(table.systems)
    listed = json.loads(api.get(url).content)[0]
    assert listed["shared_check"] == "might"
    assert listed["per_system"]["chaos-conquest"]["procedure"] == "save"
    assert listed["per_system"]["chaos-conquest"]["fixed"]["attribute"] == "STR"
    per_system = api.send(
        url,
        {
            "procedure": "test",
            "procedure@chaos-conquest": "save",
            "characters": [party[0].pk, party[2].pk],
            "minutes": 5,
        },
    )
    assert per_system.status_code == 200, per_system.content
    assert RollRequest.objects.count() == 2


@pytest.mark.parametrize(
    ("inputs", "sentence"),
    [
        ({"procedure": "test", "procedure@chaos-conquest": "test"}, "Chaos & Conquest has no roll a player makes"),
        ({"check": "luck", "minutes": 5}, "has no roll for luck: pick its roll yourself"),
        ({"check": "juggling"}, "Pick a shared check"),
        ({"procedure": "test", "procedure@nowhere": "test"}, "This table does not play 'nowhere'"),
        ({"procedure": "save"}, "has no roll a player makes called 'save'"),
    ],
)
def test_a_roll_a_system_lacks_is_refused_readably_and_nothing_changes(mixed, gm, inputs, sentence):
    from tests.api.conftest import bearer

    table, party = mixed
    api = bearer(gm, "table", table)
    sent = {"minutes": 5, **inputs, "characters": [c.pk for c in party]}
    response = api.send(f"/api/campaigns/{table.pk}/requests", sent)
    assert response.status_code == 422, response.content  # the API's refusal of a form, as for any table
    assert sentence in json.loads(response.content)["detail"]
    assert not RollRequest.objects.exists() and not RollRequestAnswer.objects.exists()


def test_discord_asks_a_mixed_table_a_shared_check(mixed, gm, settings):
    from discord import linking
    from discord.models import LinkCode
    from tests.discord import standin
    from tests.discord.conftest import link

    settings.DISCORD_PUBLIC_KEY = standin.PUBLIC_KEY
    settings.DISCORD_APPLICATION_ID = standin.APPLICATION_ID
    from django.test import Client

    table, party = mixed
    discord = standin.Discord(standin.through_client(Client()))
    for user in (gm, party[2].owner):
        link(discord, user)
    code = linking.code_make(user=gm, kind=LinkCode.Kind.CHANNEL, campaign_id=table.pk)
    assert discord.command("gm", "lantern", "channel", code=code).content.startswith("This channel now plays")
    asked = discord.command("gm", "request", check="agility")
    assert not asked.ephemeral, asked.content
    request = RollRequest.objects.get()
    assert request.shared_check == "agility" and set(request.per_system) == set(table.systems)
    assert "Hero 2 (Save: Attribute DEX)" in asked.content
    pressed = discord.press(party[2].owner.username, f"request:{request.pk}")
    answer = RollRequestAnswer.objects.get(character=party[2])
    assert answer.roll.procedure == "save" and answer.roll.inputs["attribute"] == "DEX"
    assert "1 of" in pressed.content
    refused = discord.command("gm", "request", inputs="procedure@chaos-conquest=test")
    assert refused.ephemeral and "Chaos & Conquest has no roll a player makes" in refused.content
    assert RollRequest.objects.count() == 1


def test_the_requests_panel_of_a_mixed_table_reads_a_fixed_number_of_queries(mixed, gm, as_user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    table, party = mixed
    client = as_user(gm)
    url = reverse("campaigns:requests", args=[table.pk])
    counts = []
    for check in ("might", "wits"):
        session.request_create(
            campaign_id=table.pk,
            procedure="",
            fixed={},
            check=check,
            character_ids=[c.pk for c in party],
            minutes=10,
            by=gm,
        )
        with CaptureQueriesContext(connection) as queries:
            assert client.get(url).status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]
