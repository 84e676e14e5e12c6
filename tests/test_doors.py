"""Every door of a command gives the same result and the same refusal for the same inputs (issue 38): the sheet's
page, the API, the offline replay (where it has the command) and the command called as it is (a later door, a chat
bot, is a few lines around that call). And a write validates the sheet's state at most twice."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

import pytest
from django.urls import reverse

from campaigns import commands as table_commands
from campaigns import session
from campaigns.models import Campaign
from characters import commands
from characters.locking import Gone
from characters.models import Character, Roll
from characters.selectors import character_for
from rules import SYSTEMS
from rules import base as rules_base
from rules.errors import Refusal
from tests.api.conftest import bearer
from tests.conftest import client_for, make_character, make_table
from tests.pages import HTMX, text_of

pytestmark = pytest.mark.django_db

Door = Callable[..., tuple[int, str]]  # (status, the sentence or the text the person reads)


# --- the doors of a roll -----------------------------------------------------------------------


def page_roll(user, character: Character, procedure: str, inputs: dict, **how) -> tuple[int, str]:
    fields = {f"{procedure}-{name}": value for name, value in inputs.items()}
    url = reverse("characters:roll", args=[character.pk, procedure])
    answer = client_for(user).post(url, {**fields, **how}, **HTMX)
    return answer.status_code, text_of(answer)


def api_roll(user, character: Character, procedure: str, inputs: dict, **how) -> tuple[int, str]:
    body = {"params": inputs, **how}
    answer = bearer(user).send(f"/api/characters/{character.pk}/rolls/{procedure}", body)
    return answer.status_code, answer.json().get("detail", "")


def command_roll(user, character: Character, procedure: str, inputs: dict, **how) -> tuple[int, str]:
    try:
        commands.roll(commands.editable(user, character.pk), procedure=procedure, inputs=inputs, by=user, **how)
    except Refusal as refusal:
        return refusal.status, str(refusal)
    return 200, ""


def offline_roll(user, character: Character, procedure: str, inputs: dict, **how) -> tuple[int, str]:
    """A hand roll kept offline: the roll panel's fields as [name, value] pairs, the faces typed."""
    fields = [[f"{procedure}-{name}", str(value)] for name, value in inputs.items()]
    body = {"key": f"door-{Roll.objects.count():04d}", "version": character.version, "kind": "roll"}
    body |= {"procedure": procedure, "fields": fields, "hand": how.get("hand", "3")}
    url = reverse("characters:offline_sync", args=[character.pk])
    answer = client_for(user).post(url, json.dumps(body), content_type="application/json")
    return answer.status_code, answer.json()["message"]


ROLL_DOORS = {"page": page_roll, "api": api_roll, "command": command_roll}


@pytest.fixture
def hand_table(campaign):
    campaign.hand_dice = Campaign.HandDice.PLAYERS
    campaign.save(update_fields=["hand_dice"])
    return campaign


@pytest.mark.parametrize("door", [*ROLL_DOORS, "offline"])
def test_a_roll_reads_the_same_inputs_by_every_door(door, player, hand_table):
    hero = make_character(player, hand_table)
    roll = offline_roll if door == "offline" else ROLL_DOORS[door]
    status, said = roll(player, hero, "test", {"ability": "WIL"}, hand="3")
    assert status == 200
    [made] = Roll.objects.filter(character=hero, procedure="test")
    assert made.inputs["ability"] == "WIL" and made.by_hand and made.dice[0]["face"] == 3


@pytest.mark.parametrize("door", ROLL_DOORS)
def test_a_roll_that_harms_changes_the_sheet_the_same_by_every_door(door, player, campaign):
    hero = make_character(player, campaign)
    hp = hero.state["hp"]
    assert ROLL_DOORS[door](player, hero, "take_harm", {"amount": 2})[0] == 200
    hero.refresh_from_db()
    assert (hero.state["hp"], hero.version) == (hp - 2, 2)


REFUSED_ROLLS = {
    "an unknown roll": ("fly", {}, {}),
    "a GM's roll by a player": (next(k for k, p in SYSTEMS["fell-draft"].procedures().items() if p.gm_only), {}, {}),
    "an input out of bounds": ("take_harm", {"amount": 999}, {}),
    "an input the roll lacks": ("test", {"face": 4}, {}),
    "a GM's input by a player": ("test", {"ability": "BOD", "dn": 2}, {}),
    "who sees it, unreadable": ("test", {"ability": "BOD"}, {"visibility": "everyone-ish"}),
    "a stale version": ("test", {"ability": "BOD"}, {"version": 1}),
}


@pytest.mark.parametrize("case", REFUSED_ROLLS)
def test_a_refused_roll_says_the_same_sentence_by_every_door(case, player, hand_table):
    procedure, inputs, how = REFUSED_ROLLS[case]
    hero = make_character(player, hand_table)
    if case == "a stale version":
        commands.adjust(commands.editable(player, hero.pk), key="hp", delta=-1, by=player)
    answers = {door: roll(player, hero, procedure, inputs, **how) for door, roll in ROLL_DOORS.items()}
    status, sentence = answers["command"]
    assert status == 422 and sentence
    assert answers["page"] == (422, answers["page"][1]) and sentence in answers["page"][1]
    assert answers["api"] == (422, sentence)
    if not how:  # a kept hand roll is made against the sheet as it was: its version is the replay's own check
        offline_status, offline_said = offline_roll(player, hero, procedure, inputs)
        assert offline_status in (400, 422) and offline_said == sentence
    assert not Roll.objects.filter(character=hero).exclude(procedure="creation").exists()


def test_a_stranger_finds_no_character_by_any_door(player, stranger, campaign):
    hero = make_character(player, campaign)
    assert page_roll(stranger, hero, "test", {"ability": "BOD"})[0] == 404
    assert api_roll(stranger, hero, "test", {"ability": "BOD"}) == (404, "No character here.")
    assert command_roll(stranger, hero, "test", {"ability": "BOD"}) == (404, "No character here.")
    assert offline_roll(stranger, hero, "test", {"ability": "BOD"}) == (404, "No character here.")
    assert page_adjust(stranger, hero, "hp", -1)[0] == 404
    assert api_adjust(stranger, hero, "hp", -1) == (404, "No character here.")
    assert offline_adjust(stranger, hero, "hp", -1) == (404, "No character here.")
    assert not Roll.objects.filter(character=hero).exclude(procedure="creation").exists()
    assert Character.objects.get(pk=hero.pk).version == 1


# --- the doors of a change to a track ----------------------------------------------------------


def page_adjust(user, character: Character, key: str, delta: int) -> tuple[int, str]:
    url = reverse("characters:adjust", args=[character.pk])
    answer = client_for(user).post(url, {"key": key, "delta": str(delta), "how": "plain"}, **HTMX)
    return answer.status_code, text_of(answer)


def api_adjust(user, character: Character, key: str, delta: int) -> tuple[int, str]:
    answer = bearer(user).send(f"/api/characters/{character.pk}/tracks", {"key": key, "delta": delta})
    return answer.status_code, answer.json().get("detail", "")


def offline_adjust(user, character: Character, key: str, delta: int) -> tuple[int, str]:
    body = {"key": f"track-{Character.objects.get(pk=character.pk).version:04d}", "version": 1, "kind": "track"}
    url = reverse("characters:offline_sync", args=[character.pk])
    answer = client_for(user).post(
        url, json.dumps(body | {"track": key, "delta": delta}), content_type="application/json"
    )
    return answer.status_code, answer.json()["message"]


def command_adjust(user, character: Character, key: str, delta: int) -> tuple[int, str]:
    try:
        commands.adjust(commands.editable(user, character.pk), key=key, delta=delta, by=user)
    except Refusal as refusal:
        return refusal.status, str(refusal)
    return 200, ""


ADJUST_DOORS = {"page": page_adjust, "api": api_adjust, "command": command_adjust, "offline": offline_adjust}


@pytest.mark.parametrize("door", ADJUST_DOORS)
def test_a_track_changes_the_same_by_every_door(door, player, campaign):
    hero = make_character(player, campaign)
    hp = hero.state["hp"]
    status, _said = ADJUST_DOORS[door](player, hero, "hp", -1)
    assert status == 200
    hero.refresh_from_db()
    assert (hero.state["hp"], hero.version) == (hp - 1, 2)


@pytest.mark.parametrize(("key", "delta"), [("wings", -1), ("hp", 5000)])
def test_a_refused_track_change_says_the_same_sentence_by_every_door(key, delta, player, campaign):
    hero = make_character(player, campaign)
    answers = {door: adjust(player, hero, key, delta) for door, adjust in ADJUST_DOORS.items()}
    sentence = answers["command"][1]
    assert sentence in answers["page"][1] and answers["api"][1] == sentence and answers["offline"][1] == sentence
    assert {answers[door][0] for door in ("page", "api", "command")} == {422}
    assert Character.objects.get(pk=hero.pk).version == 1


# --- an item, an offer, a void: the page's door and the command ------------------------------


def test_an_item_added_by_the_page_and_by_the_command_is_the_same_row(player, campaign):
    hero, twin = make_character(player, campaign), make_character(player, campaign, name="Twin")
    item = {"name": "Rope", "kind": "gear", "slots": "1", "quantity": "2"}
    page = client_for(player).post(reverse("characters:item_add", args=[hero.pk]), item, **HTMX)
    assert page.status_code == 200
    commands.add_item(commands.editable(player, twin.pk), by=player, name="Rope", kind="gear", slots=1, quantity=2)
    rows = [list(c.items.filter(name="Rope").values_list("kind", "slots", "quantity")) for c in (hero, twin)]
    assert rows[0] == rows[1] == [("gear", 1, 2)]


def test_an_item_the_rules_refuse_says_the_same_sentence_by_both_doors(player, campaign):
    hero = make_character(player, campaign)
    big = {"name": "Boulder", "kind": "gear", "slots": "20", "quantity": "10000"}
    page = client_for(player).post(reverse("characters:item_add", args=[hero.pk]), big, **HTMX)
    with pytest.raises(Refusal) as refused:
        commands.add_item(
            commands.editable(player, hero.pk), by=player, name="Boulder", kind="gear", slots=20, quantity=10000
        )
    assert page.status_code == 422 and str(refused.value) in text_of(page)


def test_a_void_by_the_page_and_by_the_command(player, gm, other_player, campaign):
    hero = make_character(player, campaign)
    first, second = (
        commands.roll(commands.editable(player, hero.pk), procedure="test", inputs={"ability": "BOD"}, by=player).row
        for _ in range(2)
    )
    page = client_for(gm).post(reverse("characters:roll_fix", args=[first.pk]), {"reason": "wrong ability"})
    assert page.status_code == 302
    commands.void_roll(gm, roll_id=second.pk, reason="wrong ability")
    assert [r.void_reason for r in Roll.objects.filter(pk__in=[first.pk, second.pk])] == ["wrong ability"] * 2
    stranger_page = client_for(other_player).post(reverse("characters:roll_fix", args=[first.pk]), {"reason": "x"})
    with pytest.raises(Refusal) as refused:
        commands.void_roll(other_player, roll_id=first.pk, reason="x")
    assert "void" in str(refused.value).lower() or refused.value.status == 404
    assert stranger_page.status_code in (404, 422)


# --- the doors of a request's answer -----------------------------------------------------------


def _asked(gm, campaign, hero):
    return session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={"ability": "BOD"}, character_ids=[hero.pk], minutes=5, by=gm
    ).row


def page_answer(user, hero: Character, request_id: int, inputs: dict) -> tuple[int, str]:
    url = reverse("campaigns:request_answer", args=[hero.campaign_id, request_id, hero.pk])
    answer = client_for(user).post(url, inputs, **HTMX)
    return answer.status_code, text_of(answer)


def api_answer(user, hero: Character, request_id: int, inputs: dict) -> tuple[int, str]:
    answer = bearer(user).send(f"/api/characters/{hero.pk}/requests/{request_id}/answer", {"params": inputs})
    return answer.status_code, answer.json().get("detail", "")


def command_answer(user, hero: Character, request_id: int, inputs: dict) -> tuple[int, str]:
    try:
        seat = character_for(user, hero.pk)
        if seat is None:
            raise commands.NotHere("No character here.")
        table_commands.answer_request(seat, request_id=request_id, inputs=inputs, by=user)
    except Refusal as refusal:
        return refusal.status, str(refusal)
    return 200, ""


ANSWER_DOORS = {"page": page_answer, "api": api_answer, "command": command_answer}


@pytest.mark.parametrize("door", ANSWER_DOORS)
def test_a_request_is_answered_the_same_by_every_door(door, player, gm, campaign):
    hero = make_character(player, campaign)
    asked = _asked(gm, campaign, hero)
    assert ANSWER_DOORS[door](player, hero, asked.pk, {})[0] == 200
    [made] = Roll.objects.filter(character=hero, procedure="test")
    assert made.procedure == "test" and made.inputs["ability"] == "BOD"


@pytest.mark.parametrize("case", ["the GM's input changed", "an input the roll lacks", "not this character's"])
def test_a_refused_answer_says_the_same_sentence_by_every_door(case, player, gm, campaign):
    hero, other = make_character(player, campaign), make_character(player, campaign, name="Other")
    asked = _asked(gm, campaign, other if case == "not this character's" else hero)
    inputs = {"the GM's input changed": {"ability": "WIL"}, "an input the roll lacks": {"face": "4"}}.get(case, {})
    answers = {door: answer(player, hero, asked.pk, inputs) for door, answer in ANSWER_DOORS.items()}
    sentence = answers["command"][1]
    assert sentence and sentence in answers["page"][1] and answers["api"][1] == sentence
    assert not Roll.objects.filter(character=hero).exclude(procedure="creation").exists()


# --- what a write costs ------------------------------------------------------------------------


@contextmanager
def validations() -> Iterator[Counter]:
    """Every system's validate_state calls, counted (the systems are frozen dataclasses: set past the guard)."""
    counts: Counter = Counter()
    for system in SYSTEMS.values():
        original = system.validate_state

        def counted(state, _original=original):
            counts["validate_state"] += 1
            return _original(state)

        object.__setattr__(system, "validate_state", counted)
    try:
        yield counts
    finally:
        for system in SYSTEMS.values():
            object.__delattr__(system, "validate_state")


# The whole request for a roll (its answer draws no sheet), for a track's change and an item added (their answers
# draw the sheet as the write checked it); tools/trace_writes.py shows the same figures.
WRITES = {
    "page roll": lambda user, hero: page_roll(user, hero, "test", {"ability": "BOD"}),
    "page roll that harms": lambda user, hero: page_roll(user, hero, "take_harm", {"amount": 1}),
    "API roll that harms": lambda user, hero: api_roll(user, hero, "take_harm", {"amount": 1}),
    "HP change": lambda user, hero: command_adjust(user, hero, "hp", -1),
    # The whole request, its answer drawn from the sheet as the write checked it (Written.sheet).
    "page HP change": lambda user, hero: page_adjust(user, hero, "hp", -1),
    "API HP change": lambda user, hero: api_adjust(user, hero, "hp", -1),
    "offline HP change": lambda user, hero: offline_adjust(user, hero, "hp", -1),
    "page item added": lambda user, hero: page_sheet(
        user, hero, ("item_add",), {"name": "Rope", "kind": "gear", "slots": 1, "quantity": 1}
    ),
    "command item added": lambda user, hero: (
        commands.add_item(commands.editable(user, hero.pk), by=user, name="Rope", kind="gear", slots=1, quantity=1)
        and (200, "")
    ),
}


@pytest.mark.parametrize("write", WRITES)
def test_a_write_validates_the_sheet_s_state_at_most_twice(write, player, gm, campaign):
    hero = make_character(player, campaign)
    with validations() as counts:
        assert WRITES[write](player, hero)[0] == 200
    assert 1 <= counts["validate_state"] <= 2, counts


def test_a_request_s_answer_validates_the_sheet_s_state_at_most_twice(player, gm, campaign):
    hero = make_character(player, campaign)
    asked = _asked(gm, campaign, hero)
    with validations() as counts:
        assert api_answer(player, hero, asked.pk, {})[0] == 200
    assert 1 <= counts["validate_state"] <= 2, counts


def test_a_roll_checks_the_sheet_again_when_it_moved_on_under_the_lock(player, campaign, monkeypatch):
    """The sheet the command read goes to the service only while it is the row the service locks."""
    hero = make_character(player, campaign)
    seat = commands.editable(player, hero.pk)
    commands.adjust(commands.editable(player, hero.pk), key="hp", delta=-1, by=player)  # meanwhile: version 2
    with validations() as counts:
        commands.roll(seat, procedure="take_harm", inputs={"amount": 1}, by=player)
    assert counts["validate_state"] == 3  # the command's read, the service's again (moved on), the save's
    hero.refresh_from_db()
    assert hero.version == 3


def test_a_character_gone_meanwhile_is_no_character(player, campaign):
    hero = make_character(player, campaign)
    seat = commands.editable(player, hero.pk)
    Character.objects.filter(pk=hero.pk).delete()
    with pytest.raises(Gone):
        commands.roll(seat, procedure="test", inputs={"ability": "BOD"}, by=player)


# --- the doors of the GM's table actions -------------------------------------------------------
# Each GM's command (campaigns.commands) by the table page (its form's fields), the API (a table token, the same
# names as JSON) and the command itself: the same change on three tables alike, the same sentence when refused.


def page_gm(user, campaign: Campaign, route: tuple, inputs: dict) -> tuple[int, str]:
    name, *ids = route
    fields = {k: ("on" if v is True else v) for k, v in inputs.items() if v is not False}
    answer = client_for(user).post(reverse(f"campaigns:{name}", args=[campaign.pk, *ids]), fields, **HTMX)
    return answer.status_code, text_of(answer)


def api_gm(user, campaign: Campaign, route: tuple, inputs: dict) -> tuple[int, str]:
    name, *ids = route
    path = "/".join(str(part) for part in [*API_PATHS[name], *ids])
    scope = "table" if campaign.memberships.filter(user=user, role="gm").exists() else "play"
    answer = bearer(user, scope, campaign if scope == "table" else None).send(
        f"/api/campaigns/{campaign.pk}/{path}", inputs
    )
    return answer.status_code, answer.json().get("detail", "")


def command_gm(user, campaign: Campaign, route: tuple, inputs: dict) -> tuple[int, str]:
    name, *ids = route
    try:
        GM_COMMANDS[name](*ids)(campaign.pk, inputs=inputs, by=user)
    except Refusal as refusal:
        return refusal.status, str(refusal)
    return 200, ""


# The page's route name → the API's path under /api/campaigns/<id>/ and the command (given the route's ids).
API_PATHS = {
    "time_advance": ("time", "advance"),
    "time_daylight": ("time", "daylight"),
    "clock": ("clock",),
    "encounter_action": ("encounter",),
    "npc_action": ("npcs",),
    "request_new": ("requests",),
}
GM_COMMANDS = {
    "time_advance": lambda: table_commands.advance_time,
    "time_daylight": lambda: table_commands.set_daylight,
    "clock": lambda: table_commands.move_clock,
    "encounter_action": lambda action: table_commands.ENCOUNTER_COMMANDS[action],
    "npc_action": lambda npc_id, action: lambda pk, **how: table_commands.NPC_COMMANDS[action](pk, npc_id, **how),
    "request_new": lambda: table_commands.ask_roll,
}
GM_DOORS = {"page": page_gm, "api": api_gm, "command": command_gm}


def _fighting(gm, campaign: Campaign) -> int:
    """A fight with one goblin in it: the goblin's id."""
    session.encounter_start(campaign_id=campaign.pk, name="Ambush", by=gm)
    stats = {"hp": 6, "protection": 1, "steel_die": "6", "wil_die": "6"}
    return session.npc_add(campaign_id=campaign.pk, name="Goblin", stats=stats).row.pk


def _what_the_table_holds(campaign: Campaign) -> tuple:
    """What a GM's write leaves at the table, ids left out (each door writes to a table of its own)."""
    campaign.refresh_from_db()
    npcs = sorted(
        (n.name, sorted(n.stats.items()), n.defeated, n.encounter_id is not None) for n in campaign.npcs.all()
    )
    fights = sorted((e.name, e.active, e.round) for e in campaign.encounters.all())
    asked = campaign.roll_requests.all()
    requests = sorted((r.procedure, sorted(r.inputs.items()), r.answers.count()) for r in asked)
    return campaign.game_minutes, campaign.daylight, npcs, fights, requests


# name → (the page's route given the goblin's id, the inputs, whether a fight runs first)
GM_WRITES = {
    "time passes": (lambda npc: ("time_advance",), {"unit": "exploration", "count": 2}, False),
    "daylight": (lambda npc: ("time_daylight",), {"daylight": "0"}, False),
    "minutes on the strip": (lambda npc: ("clock",), {"action": "advance", "minutes": 30}, False),
    "a fight starts": (lambda npc: ("encounter_action", "start"), {"name": "Ambush"}, False),
    "its next round": (lambda npc: ("encounter_action", "next"), {}, True),
    "it ends": (lambda npc: ("encounter_action", "end"), {}, True),
    "an NPC added": (
        lambda npc: ("encounter_action", "add"),
        {"name": "Wolf", "hp": 5, "protection": 0, "steel_die": "8", "wil_die": "6", "keep": True},
        True,
    ),
    "an NPC damaged": (lambda npc: ("npc_action", npc, "damage"), {"amount": 2}, True),
    "an NPC's status": (lambda npc: ("npc_action", npc, "status"), {"name": "Stunned", "rounds": 2}, True),
    "an NPC removed": (lambda npc: ("npc_action", npc, "remove"), {}, True),
}


@pytest.mark.parametrize("write", GM_WRITES)
def test_a_gm_s_table_write_is_the_same_by_every_door(write, gm, player, other_player):
    route, inputs, fight = GM_WRITES[write]
    held = {}
    for door, send in GM_DOORS.items():
        table = make_table("fell-draft", gm, player, other_player)
        npc = _fighting(gm, table) if fight else 0
        status, said = send(gm, table, route(npc), inputs)
        assert status == 200, (door, said)
        held[door] = _what_the_table_holds(table)
    assert held["page"] == held["api"] == held["command"], held


def test_a_roll_request_is_asked_the_same_by_every_door(gm, player, other_player):
    held = {}
    for door, send in GM_DOORS.items():
        table = make_table("fell-draft", gm, player, other_player)
        hero = make_character(player, table)
        inputs = {"procedure": "test", "fix-ability": "WIL", "characters": [str(hero.pk)], "minutes": 5}
        assert send(gm, table, ("request_new",), inputs)[0] == 200, door
        held[door] = _what_the_table_holds(table)
    assert held["page"] == held["api"] == held["command"]
    assert held["page"][4] == [("test", [("ability", "WIL")], 1)]


# name → (route given the goblin's id, inputs, whether a fight runs first)
GM_REFUSALS = {
    "too much time at once": (lambda npc: ("time_advance",), {"unit": "exploration", "count": 99}, False),
    "a unit the system lacks": (lambda npc: ("time_advance",), {"unit": "eon", "count": 1}, False),
    "daylight, unsaid": (lambda npc: ("time_daylight",), {"daylight": "maybe"}, False),
    "daylight already": (lambda npc: ("time_daylight",), {"daylight": "1"}, False),
    "a round off the strip": (lambda npc: ("clock",), {"action": "next_round"}, False),
    "minutes unsaid": (lambda npc: ("clock",), {"action": "advance"}, False),
    "a round without a fight": (lambda npc: ("encounter_action", "next"), {}, False),
    "an NPC without a name": (lambda npc: ("encounter_action", "add"), {"hp": 5}, True),
    "an attack by nobody": (lambda npc: ("encounter_action", "attack"), {"npcs": ["1"]}, True),
    "negative damage": (lambda npc: ("npc_action", npc, "damage"), {"amount": -1}, True),
    "damage seen by whom": (lambda npc: ("npc_action", npc, "damage"), {"amount": 1, "visibility": "all"}, True),
    "an NPC roll it lacks": (lambda npc: ("npc_action", npc, "roll"), {"key": "dance"}, True),
    "an NPC elsewhere": (lambda npc: ("npc_action", npc + 1000, "remove"), {}, True),
    "a request for a roll it lacks": (lambda npc: ("request_new",), {"procedure": "fly", "minutes": 5}, False),
}


@pytest.mark.parametrize("case", GM_REFUSALS)
def test_a_refused_gm_s_write_says_the_same_sentence_by_every_door(case, gm, player, campaign):
    route, inputs, fight = GM_REFUSALS[case]
    make_character(player, campaign)
    npc = _fighting(gm, campaign) if fight else 0
    before = _what_the_table_holds(campaign)
    answers = {door: send(gm, campaign, route(npc), inputs) for door, send in GM_DOORS.items()}
    status, sentence = answers["command"]
    assert status == 422 and sentence, answers
    assert answers["api"] == (422, sentence)
    assert answers["page"][0] == 422 and sentence in answers["page"][1], (sentence, answers["page"])
    assert _what_the_table_holds(campaign) == before


def test_a_player_or_a_stranger_finds_no_gm_s_table_by_any_door(gm, player, stranger, campaign):
    for who in (player, stranger):
        route, inputs = ("time_advance",), {"unit": "exploration", "count": 1}
        assert page_gm(who, campaign, route, inputs)[0] == 404
        assert command_gm(who, campaign, route, inputs) == (404, "No campaign here.")
    assert api_gm(stranger, campaign, ("time_advance",), {"unit": "exploration", "count": 1}) == (
        404,
        "No campaign here.",
    )
    assert api_gm(player, campaign, ("time_advance",), {"unit": "exploration", "count": 1})[0] == 403
    assert Campaign.objects.get(pk=campaign.pk).game_minutes == 0


# --- an item changed or removed, a hireling hired or dismissed, a rename: the page's door and the command --------


def page_sheet(user, hero: Character, route: tuple, inputs: dict) -> tuple[int, str]:
    name, *ids = route
    fields = {k: ("on" if v is True else v) for k, v in inputs.items() if v is not False}
    answer = client_for(user).post(reverse(f"characters:{name}", args=[hero.pk, *ids]), fields, **HTMX)
    return answer.status_code, text_of(answer)


SHEET_COMMANDS = {
    "item_update": lambda item_id: lambda seat, **how: commands.update_item(seat, item_id=item_id, **how),
    "item_remove": lambda item_id: lambda seat, inputs, by: commands.remove_item(seat, item_id=item_id, by=by),
    "hire": lambda: commands.hire,
    "dismiss": lambda hireling_id: lambda seat, inputs, by: commands.dismiss(seat, hireling_id=hireling_id, by=by),
    "rename": lambda: commands.rename,
}


def command_sheet(user, hero: Character, route: tuple, inputs: dict) -> tuple[int, str]:
    name, *ids = route
    try:
        SHEET_COMMANDS[name](*ids)(commands.editable(user, hero.pk), inputs=inputs, by=user)
    except Refusal as refusal:
        return refusal.status, str(refusal)
    return 200, ""


SHEET_DOORS = {"page": page_sheet, "command": command_sheet}


def _held(hero: Character) -> tuple:
    """The sheet as a write leaves it, ids left out (each door writes to a character of its own)."""
    hero.refresh_from_db()
    items = sorted((i.name, i.quantity, i.worn) for i in hero.items.all())
    hirelings = sorted(h.name for h in hero.hirelings.all())
    return hero.name, hero.version, items, hirelings


def _rope_and_hand(player, hero: Character) -> tuple[int, int]:
    """A rope on the sheet and a hireling at its side (coin enough to pay a few): their ids."""
    Character.objects.filter(pk=hero.pk).update(state={**hero.state, "coins": 100})
    seat = commands.editable(player, hero.pk)
    rope = commands.add_item(seat, by=player, name="Rope", kind="gear", slots=1, quantity=2).row
    hand = commands.hire(commands.editable(player, hero.pk), inputs={"name": "Pim"}, by=player).row
    return rope.pk, hand.pk


# name → (route given the rope's and the hireling's ids, inputs)
SHEET_WRITES = {
    "an item's quantity": (lambda rope, hand: ("item_update", rope), {"quantity": 5, "worn": False}),
    "an item worn": (lambda rope, hand: ("item_update", rope), {"worn": True}),
    "an item removed": (lambda rope, hand: ("item_remove", rope), {}),
    "a hireling hired": (lambda rope, hand: ("hire",), {"name": "Tam"}),
    "a hireling dismissed": (lambda rope, hand: ("dismiss", hand), {}),
    "a rename": (lambda rope, hand: ("rename",), {"name": "Wren the Bold", "version": 3}),
}


@pytest.mark.parametrize("write", SHEET_WRITES)
def test_a_sheet_write_is_the_same_by_the_page_and_the_command(write, player, campaign):
    route, inputs = SHEET_WRITES[write]
    held = {}
    for door, send in SHEET_DOORS.items():
        hero = make_character(player, campaign, name="Wren")
        ids = _rope_and_hand(player, hero)
        status, said = send(player, hero, route(*ids), inputs)
        assert status == 200, (door, said)
        held[door] = _held(hero)
    assert held["page"] == held["command"], held


SHEET_REFUSALS = {
    "a quantity of none": (lambda rope, hand: ("item_update", rope), {"quantity": 0}),
    "an item elsewhere": (lambda rope, hand: ("item_remove", rope + 1000), {}),
    "a hire's option it lacks": (lambda rope, hand: ("hire",), {"wings": "2"}),
    "a hireling elsewhere": (lambda rope, hand: ("dismiss", hand + 1000), {}),
    "a rename without a name": (lambda rope, hand: ("rename",), {"name": " ", "version": 3}),
    "a rename of a sheet moved on": (lambda rope, hand: ("rename",), {"name": "Wren II", "version": 1}),
}


@pytest.mark.parametrize("case", SHEET_REFUSALS)
def test_a_refused_sheet_write_says_the_same_sentence_by_the_page_and_the_command(case, player, campaign):
    route, inputs = SHEET_REFUSALS[case]
    hero = make_character(player, campaign)
    ids = _rope_and_hand(player, hero)
    before = _held(hero)
    answers = {door: send(player, hero, route(*ids), inputs) for door, send in SHEET_DOORS.items()}
    status, sentence = answers["command"]
    assert status in (404, 409, 422) and sentence, answers
    if status == 404:
        assert answers["page"][0] == 404
    else:
        assert sentence in answers["page"][1] and answers["page"][0] in (409, 422), (sentence, answers["page"])
    assert _held(hero) == before


def test_the_sheet_a_write_checked_stands_in_only_for_the_same_sheet(player, campaign):
    """Written.sheet spares the answer a check only while it is the sheet drawn (rules.base.checked_as)."""
    hero = make_character(player, campaign)
    checked = rules_base.check_sheet(SYSTEMS[hero.system], hero.to_sheet())
    same = rules_base.checked_as(checked, hero.to_sheet())
    assert same is not None and same.state == hero.state
    moved_on = replace(hero.to_sheet(), state={**hero.state, "hp": hero.state["hp"] - 1})
    assert rules_base.checked_as(checked, moved_on) is None
    assert rules_base.checked_as(hero.to_sheet(), hero.to_sheet()) is None  # never checked: no stand-in
