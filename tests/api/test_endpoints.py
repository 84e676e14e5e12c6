"""Every API endpoint, through real HTTP with a Bearer token, for every role (issue 28): the owner, another player
at the table, the GM (a table token), an outsider, a revoked token, and tokens of the wrong scope. Each answers
what the pages would show that person, or refuses with the pages' sentence as ``{"detail": …}``."""

from __future__ import annotations

import json

import pytest

from accounts.models import ApiToken
from campaigns import session
from campaigns.models import Campaign, RollRequest
from campaigns.table import roll_log
from characters import services
from characters.models import Change, Roll
from characters.selectors import character_for, rolls_visible_to
from characters.sheet_view import sheet_view
from live.events import RollMade, SheetChanged
from rules import base as rules_base
from tests.api.conftest import bearer
from tests.conftest import make_character, make_table

pytestmark = pytest.mark.django_db


@pytest.fixture
def elsewhere(gm, stranger):
    """Another table the GM runs, where none of the players sit."""
    return make_table("fell-draft", gm, stranger, name="Elsewhere")


def _client(role, *, gm, player, other_player, stranger, campaign, elsewhere):
    """The client each role calls with: who it is, and which token."""
    if role == "owner":
        return bearer(player)
    if role == "owner-read":
        return bearer(player, "read")
    if role == "other-player":
        return bearer(other_player)
    if role == "gm":
        return bearer(gm, "table", campaign)
    if role == "gm-play":  # the GM's own play token: their own characters only
        return bearer(gm)
    if role == "gm-other-table":
        return bearer(gm, "table", elsewhere)
    if role == "outsider":
        return bearer(stranger)
    if role == "revoked":
        client = bearer(player)
        ApiToken.objects.filter(user=player).delete()
        return client
    raise AssertionError(role)


@pytest.fixture
def as_role(gm, player, other_player, stranger, campaign, elsewhere):
    def make(role):
        return _client(
            role,
            gm=gm,
            player=player,
            other_player=other_player,
            stranger=stranger,
            campaign=campaign,
            elsewhere=elsewhere,
        )

    return make


# --- reading a sheet -------------------------------------------------------------------------

SHEET_ANSWERS = {
    "owner": 200,
    "owner-read": 200,
    "gm": 200,
    "other-player": 403,  # they see it on the table's page, but a token reaches only its owner's characters
    "gm-play": 403,
    "gm-other-table": 403,
    "outsider": 404,
    "revoked": 401,
}


@pytest.mark.parametrize(("role", "status"), SHEET_ANSWERS.items())
def test_a_sheet_is_read_by_those_the_token_reaches(role, status, as_role, hero):
    response = as_role(role).get(f"/api/characters/{hero.pk}")
    assert response.status_code == status, response.content
    body = response.json()
    if status != 200:
        assert set(body) == {"detail"} and body["detail"]
        return
    assert body["id"] == hero.pk and body["name"] == "Wren" and body["version"] == hero.version
    assert body["viewer"]["kind"] == ("gm" if role == "gm" else "owner")
    assert [t["key"] for t in body["tracks"]][:1] == ["hp"]


@pytest.mark.parametrize("who", ["owner", "gm"])
def test_a_sheet_holds_exactly_what_its_page_shows_that_viewer(who, gm, player, other_player, as_user):
    """Chaos & Conquest keeps the faction private to the owner and the GM: both read it; the fields are the sheet
    read model's own (sheet_view), not a second serialiser's."""
    cc = make_table("chaos-conquest", gm, player, other_player, name="Keep")
    wren = make_character(player, cc, system="chaos-conquest", name="Wren")
    wren.state = {**wren.state, "faction": "The Grey Hand"}
    wren.save()
    user = player if who == "owner" else gm
    api = bearer(player) if who == "owner" else bearer(gm, "table", cc)
    body = api.get(f"/api/characters/{wren.pk}").json()
    view = sheet_view(user, character_for(user, wren.pk), personal=False)
    assert body["state"] == view.state and body["state"]["faction"] == "The Grey Hand"
    assert [t["current"] for t in body["tracks"]] == [t.current for t in view.tracks]
    assert [i["name"] for i in body["items"]] == [r.item.name for r in view.items]
    assert body["coins"] == view.coins
    # A player beside them sees no faction on the page; no token of theirs reaches the sheet at all.
    peer = sheet_view(other_player, character_for(other_player, wren.pk), personal=False)
    assert "faction" not in peer.state
    assert bearer(other_player).get(f"/api/characters/{wren.pk}").status_code == 403


def test_the_character_list_is_the_token_s_reach(campaign, gm, player, hero, rival):
    own = make_character(player, None, name="Solo")
    assert {c["id"] for c in bearer(player).get("/api/characters").json()} == {hero.pk, own.pk}
    assert {c["id"] for c in bearer(gm, "table", campaign).get("/api/characters").json()} == {hero.pk, rival.pk}


# --- the roll log ----------------------------------------------------------------------------


@pytest.fixture
def logged(campaign, gm, player, other_player, hero, rival):
    """One roll of each visibility at the table, by the player, the other player and the GM."""

    def roll(character, by, visibility, **changes):
        row = {
            "campaign": campaign,
            "character": character,
            "roller": by,
            "label": f"{visibility} by {by.username}",
            "procedure": "test",
            "outcome": "pass",
            "summary": "It worked.",
            "total": 5,
            "dice": [{"sides": 8, "face": 5, "kept": True}],
            "odds": {"pass": "5/8", "fail": "3/8"},
            "visibility": visibility,
        }
        return Roll.objects.create(**{**row, **changes})

    return {
        "public": roll(hero, player, "public"),
        "private": roll(hero, player, "private"),
        "gm": roll(hero, player, "gm"),
        "blind": roll(hero, player, "blind"),
        "other-private": roll(rival, other_player, "private"),
        "gm-secret": roll(None, gm, "gm"),
    }


LOG_SEEN = {
    "owner": {"public", "private", "gm", "blind"},
    "owner-read": {"public", "private", "gm", "blind"},
    "other-player": {"public", "other-private"},
    "gm": {"public", "gm", "blind", "gm-secret"},
}


@pytest.mark.parametrize(("role", "seen"), LOG_SEEN.items())
def test_the_log_shows_each_role_the_rolls_the_table_page_shows_them(role, seen, as_role, logged, campaign):
    body = as_role(role).get(f"/api/campaigns/{campaign.pk}/log").json()
    ids = {r["id"] for r in body["rolls"]}
    assert {name for name, roll in logged.items() if roll.pk in ids} == seen
    user = {"owner": "player", "owner-read": "player", "other-player": "other_player", "gm": "gm"}[role]
    page_rows, _ = roll_log(campaign.memberships.get(user__username=user).user, campaign)
    assert ids == {r.pk for r in page_rows}  # the page's own query, the same rows (the creation rolls besides)
    blind = next((r for r in body["rolls"] if r["id"] == logged["blind"].pk), None)
    if blind is not None and role != "gm":
        assert blind["result"] == "rolled blind: the GM has the result"
        assert blind["outcome"] is None and blind["dice"] is None and blind["odds"] is None
    if blind is not None and role == "gm":
        assert blind["outcome"] == "pass" and blind["odds"] == {"pass": "5/8", "fail": "3/8"}


@pytest.mark.parametrize(
    ("role", "status"), [("outsider", 404), ("revoked", 401), ("gm-other-table", 403), ("gm-play", 200)]
)
def test_the_log_is_refused_to_those_who_do_not_sit_there(role, status, as_role, campaign, logged):
    response = as_role(role).get(f"/api/campaigns/{campaign.pk}/log")
    assert response.status_code == status


def test_the_log_pages_back_fifty_at_a_time(campaign, player, hero, logged):
    Roll.objects.bulk_create(
        Roll(campaign=campaign, character=hero, roller=player, label=f"r{n}", procedure="test", outcome="pass")
        for n in range(60)
    )
    api = bearer(player)
    first = api.get(f"/api/campaigns/{campaign.pk}/log").json()
    assert len(first["rolls"]) == 50 and first["older"] is True
    rest = api.get(f"/api/campaigns/{campaign.pk}/log", {"before": first["rolls"][-1]["id"]}).json()
    seen = rolls_visible_to(player).filter(campaign=campaign).count()
    assert len(rest["rolls"]) == seen - 50 and rest["older"] is False
    assert api.get(f"/api/campaigns/{campaign.pk}/log", {"before": "x"}).status_code == 422


# --- the party's vitals ------------------------------------------------------------------------

PARTY_ANSWERS = {
    "gm": 200,
    "owner": 403,
    "owner-read": 403,
    "other-player": 403,
    "gm-play": 403,
    "gm-other-table": 403,
    "outsider": 404,
    "revoked": 401,
}


@pytest.mark.parametrize(("role", "status"), PARTY_ANSWERS.items())
def test_the_party_s_vitals_are_the_gm_s(role, status, as_role, campaign, hero, rival):
    response = as_role(role).get(f"/api/campaigns/{campaign.pk}/party")
    assert response.status_code == status
    if status == 200:
        cards = response.json()
        assert {c["name"]: c["owner"] for c in cards} == {"Wren": "player", "Ash": "other_player"}
        assert all(c["tracks"][0]["key"] == "hp" for c in cards)


# --- rolling ---------------------------------------------------------------------------------

ROLL_ANSWERS = {
    "owner": 200,
    "gm": 200,
    "owner-read": 403,
    "other-player": 404,  # not theirs to change: as on the pages (character_for(edit=True))
    "gm-play": 403,
    "gm-other-table": 403,
    "outsider": 404,
    "revoked": 401,
}


@pytest.mark.parametrize(("role", "status"), ROLL_ANSWERS.items())
def test_a_roll_is_made_by_those_who_may_and_comes_with_its_odds(role, status, as_role, hero, pushed):
    before = Roll.objects.count()
    response = as_role(role).send(f"/api/characters/{hero.pk}/rolls/test", {"params": {"ability": "BOD"}})
    assert response.status_code == status, response.content
    if status != 200:
        assert Roll.objects.count() == before and not pushed.of(RollMade)
        return
    body = response.json()
    roll = Roll.objects.get(pk=body["roll"]["id"])
    assert roll.character == hero and roll.procedure == "test" and roll.inputs["ability"] == "BOD"
    assert body["odds"] == roll.odds and sum(_fractions(body["odds"])) == 1
    assert body["roll"]["outcome"] == roll.outcome and body["roll"]["dice"] == roll.dice
    assert roll.pk in [made.roll for made in pushed.of(RollMade)]  # recorded as the page's roll is


def _fractions(odds):
    from fractions import Fraction

    return [Fraction(v) for v in odds.values()]


def test_a_roll_goes_through_the_page_s_checks_with_the_page_s_sentences(player, gm, campaign, hero, settings):
    api = bearer(player)
    url = f"/api/characters/{hero.pk}/rolls"

    def refused(path, body, status=422):
        response = api.send(f"{url}/{path}", body)
        assert response.status_code == status, response.content
        return response.json()["detail"]

    assert refused("fly", {}) == "Fell (draft, ability points) has no roll called 'fly'."
    assert refused("dying", {}) == "Only the GM makes the Treat the dying roll."
    assert refused("test", {"params": {"wings": 2}}) == "Test has no option wings."
    assert refused("test", {"params": {"dn": 2}}) == "Only the GM sets difficulty number."
    assert refused("test", {"params": {"advantage": "lots"}}) == "Advantages must be a whole number."
    assert refused("test", {"visibility": "everyone"}) == "Pick who may see this roll."
    assert refused("test", {"visibility": "blind"}) == "Only the GM rolls blind, or asks a player for a blind roll."
    assert refused("test", {"version": 0}) == "Pick who may see this roll."
    assert refused("test", {"params": {"ability": {"a": 1}}}) == (
        "ability: give a number, a word, true or false, or a list of words."
    )
    assert refused("test", {"params": ["BOD"]}) == 'Send the roll\'s inputs as an object: {"name": value}.'
    assert refused("test", "not json", 400) == "Send the body as a JSON object."
    assert refused("test", [], 400) == "Send the body as a JSON object."
    assert Roll.objects.filter(procedure="test").count() == 0
    settings.ROLLS_PER_MINUTE = 2  # the creation roll counts too
    assert api.send(f"{url}/test", {}).status_code == 200
    assert refused("test", {}) == "That is 2 rolls in a minute, faster than a table can follow: wait a moment."


def test_a_roll_against_an_old_version_is_refused_as_on_the_page(player, hero):
    api = bearer(player)
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    response = api.send(f"/api/characters/{hero.pk}/rolls/test", {"version": 1})
    assert response.status_code == 422 and "changed" in response.json()["detail"]


def test_the_gm_rolls_blind_and_sets_the_dn_through_a_table_token(gm, campaign, hero, player):
    api = bearer(gm, "table", campaign)
    body = api.send(f"/api/characters/{hero.pk}/rolls/test", {"params": {"dn": 6}, "visibility": "blind"}).json()
    roll = Roll.objects.get(pk=body["roll"]["id"])
    assert roll.visibility == "blind" and roll.inputs["dn"] == 6 and body["roll"]["outcome"] == roll.outcome
    seen = bearer(player).get(f"/api/campaigns/{campaign.pk}/log").json()["rolls"]
    assert [r for r in seen if r["id"] == roll.pk] == []  # a GM's blind roll is the GM's alone


# --- changing a track --------------------------------------------------------------------------

TRACK_ANSWERS = ROLL_ANSWERS


@pytest.mark.parametrize(("role", "status"), TRACK_ANSWERS.items())
def test_a_track_is_changed_by_those_who_may(role, status, as_role, hero, pushed):
    hp = hero.state["hp"]
    response = as_role(role).send(f"/api/characters/{hero.pk}/tracks", {"key": "hp", "delta": -1})
    assert response.status_code == status, response.content
    hero.refresh_from_db()
    if status != 200:
        assert hero.state["hp"] == hp and not pushed.events()
        return
    assert hero.state["hp"] == hp - 1 and response.json()["state"]["hp"] == hp - 1
    assert response.json()["version"] == hero.version
    change = Change.objects.filter(character=hero).first()
    assert change.what == "HP -1"
    assert any(each.character == hero.pk and "vitals" in each.regions for each in pushed.of(SheetChanged))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"key": "hp", "delta": 1001}, "Change a track by a whole number between -1000 and 1000."),
        ({"key": "hp", "delta": "x"}, "Change a track by a whole number between -1000 and 1000."),
        ({"key": "hp"}, "Change a track by a whole number between -1000 and 1000."),
        ({"key": "x" * 41, "delta": 1}, "Change a track by a whole number between -1000 and 1000."),
        ({"key": "wings", "delta": 1}, "Fell (draft, ability points) sheets have no wings to change."),
        ({"key": "protection", "delta": 1}, "Fell (draft, ability points) sheets have no protection to change."),
    ],
)
def test_a_track_change_is_checked_as_on_the_page(body, message, player, hero):
    response = bearer(player).send(f"/api/characters/{hero.pk}/tracks", body)
    assert response.status_code == 422 and response.json() == {"detail": message}


# --- roll requests -----------------------------------------------------------------------------


@pytest.fixture
def asked(campaign, gm, hero, rival):
    return session.request_create(
        campaign_id=campaign.pk,
        procedure="test",
        fixed={"ability": "BOD", "dn": 5},
        character_ids=[hero.pk, rival.pk],
        minutes=10,
        by=gm,
    ).row


REQUEST_LIST_ANSWERS = {
    "owner": 200,
    "owner-read": 200,
    "gm": 200,
    "other-player": 403,
    "gm-play": 403,
    "gm-other-table": 403,
    "outsider": 404,
    "revoked": 401,
}


@pytest.mark.parametrize(("role", "status"), REQUEST_LIST_ANSWERS.items())
def test_a_character_s_waiting_requests_are_listed(role, status, as_role, hero, asked):
    response = as_role(role).get(f"/api/characters/{hero.pk}/requests")
    assert response.status_code == status
    if status == 200:
        [row] = response.json()
        assert row["id"] == asked.pk and row["fixed"] == {"ability": "BOD", "dn": 5} and row["open"] is True


@pytest.mark.parametrize(("role", "status"), ROLL_ANSWERS.items())
def test_a_request_is_answered_by_those_who_may(role, status, as_role, hero, asked, pushed):
    response = as_role(role).send(f"/api/characters/{hero.pk}/requests/{asked.pk}/answer", {})
    assert response.status_code == status, response.content
    answer = asked.answers.get(character=hero)
    if status != 200:
        assert answer.answered_at is None
        return
    body = response.json()
    assert answer.roll_id == body["roll"]["id"] and answer.outcome == body["roll"]["outcome"]
    assert body["roll"]["odds"] and Roll.objects.get(pk=answer.roll_id).inputs["dn"] == 5
    assert answer.roll_id in [made.roll for made in pushed.of(RollMade)]


def test_a_request_answer_is_checked_as_on_the_sheet(player, gm, campaign, hero, rival, asked):
    api = bearer(player)
    url = f"/api/characters/{hero.pk}/requests/{asked.pk}/answer"
    changed = api.send(url, {"params": {"ability": "WIL"}})
    assert changed.status_code == 422
    assert changed.json() == {"detail": "The GM set Ability for this roll; it cannot be changed."}
    assert api.send(url, {"params": {"ability": "BOD"}}).status_code == 200  # the GM's own value is fine
    assert api.send(url, {}).json() == {"detail": "This character has answered that request already."}
    wrong = api.send(f"/api/characters/{hero.pk}/requests/999999/answer", {})
    assert wrong.status_code == 404 and wrong.json() == {"detail": "That request is not for this character."}
    cancelled = session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=5, by=gm
    ).row
    session.request_cancel(request_id=cancelled.pk, campaign_id=campaign.pk)
    late = api.send(f"/api/characters/{hero.pk}/requests/{cancelled.pk}/answer", {})
    assert late.json() == {"detail": "The GM cancelled that request."}


def test_a_blind_request_s_answer_hides_its_result_from_the_player(player, gm, campaign, hero):
    asked = session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=5, by=gm, blind=True
    ).row
    body = bearer(player).send(f"/api/characters/{hero.pk}/requests/{asked.pk}/answer", {}).json()
    assert body["roll"]["visibility"] == "blind" and body["roll"]["outcome"] is None
    assert body["roll"]["result"] == "rolled blind: the GM has the result"
    [row] = bearer(gm, "table", campaign).get(f"/api/campaigns/{campaign.pk}/requests").json()
    assert (
        row["blind"] is True
        and row["answers"][0]["outcome"] == Roll.objects.get(character=hero, procedure="test").outcome
    )


def test_a_blind_request_is_not_answered_with_dice_typed_in(player, gm, campaign, hero):
    """Issue 35, item 17: the player would know a blind result from the faces they rolled themselves."""
    campaign.hand_dice = Campaign.HandDice.PLAYERS
    campaign.save(update_fields=["hand_dice"])
    asked = session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=5, by=gm, blind=True
    ).row
    api = bearer(player)
    refused = api.send(f"/api/characters/{hero.pk}/requests/{asked.pk}/answer", {"hand": "3"})
    assert refused.status_code == 422
    assert refused.json() == {
        "detail": "A blind roll is made with Lantern's dice: dice you roll yourself would show you the result."
    }
    assert not Roll.objects.filter(character=hero, procedure="test").exists()
    answered = api.send(f"/api/characters/{hero.pk}/requests/{asked.pk}/answer", {})
    assert answered.status_code == 200 and answered.json()["roll"]["rolled_by_hand"] is False


@pytest.mark.parametrize("debug", [True, False])
def test_a_body_over_the_size_limit_is_a_json_413(debug, player, hero, settings):
    """Issue 35, item 17: it was Django's HTML 400, or with DEBUG on a 500 from the body's parser."""
    settings.DEBUG = debug
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    version = hero.version
    body = json.dumps({"key": "hp", "delta": -1, "padding": "x" * 1000})
    response = bearer(player).send(f"/api/characters/{hero.pk}/tracks", body)
    assert response.status_code == 413 and response["Content-Type"] == "application/json; charset=utf-8"
    assert response.json() == {"detail": "The body is over the limit of 1,000 bytes: send less."}
    hero.refresh_from_db()
    assert hero.version == version


def test_answering_a_request_that_is_not_there_is_a_404(player, gm, campaign, hero, other_player):
    """docs/api.md: nothing there the token's owner may see is a 404, a request included."""
    api = bearer(player)
    missing = api.send(f"/api/characters/{hero.pk}/requests/999999/answer", {})
    assert missing.status_code == 404
    assert missing.json() == {"detail": "That request is not for this character."}
    rival = make_character(other_player, campaign, name="Brannoc", seed=11)
    elsewhere = session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[rival.pk], minutes=5, by=gm
    ).row
    assert api.send(f"/api/characters/{hero.pk}/requests/{elsewhere.pk}/answer", {}).status_code == 404
    assert not Roll.objects.filter(procedure="test").exists()


@pytest.mark.parametrize(("role", "status"), PARTY_ANSWERS.items())
def test_the_table_s_requests_are_listed_for_its_gm(role, status, as_role, campaign, asked):
    response = as_role(role).get(f"/api/campaigns/{campaign.pk}/requests")
    assert response.status_code == status
    if status == 200:
        [row] = response.json()
        assert row["id"] == asked.pk and len(row["answers"]) == 2
        assert RollRequest.objects.get(pk=row["id"]).campaign == campaign


def test_reading_a_sheet_takes_a_fixed_number_of_queries(player, hero, django_assert_max_num_queries):
    api = bearer(player)
    for n in range(10):
        services.item_add(character_id=hero.pk, item=rules_base.Item(name=f"Rope {n}", kind="gear"), by=player)
    with django_assert_max_num_queries(12):
        assert api.get(f"/api/characters/{hero.pk}").status_code == 200


def test_the_log_takes_a_fixed_number_of_queries(player, campaign, logged, django_assert_max_num_queries):
    api = bearer(player)
    with django_assert_max_num_queries(8):
        assert api.get(f"/api/campaigns/{campaign.pk}/log").status_code == 200


def test_unknown_addresses_under_api_answer_json(player):
    for path in ("/api/nothing", "/api/characters/99999999999999999999", "/api/characters/abc"):
        response = bearer(player).get(path)
        assert response.status_code == 404 and "detail" in response.json()


# --- what a sheet offers to roll, and the odds before rolling ------------------------------------


def test_the_procedures_are_those_the_roll_panel_offers_each_viewer(gm, player, campaign, hero, rival):
    mine = {p["key"]: p for p in bearer(player).get(f"/api/characters/{hero.pk}/procedures").json()}
    assert "test" in mine and not {"dying", "npc_attack", "advance"} & set(mine)
    assert "dn" not in {param["name"] for param in mine["test"]["params"]}  # the GM's input
    ability = next(param for param in mine["test"]["params"] if param["name"] == "ability")
    assert ability["kind"] == "choice" and "BOD" in [value for value, _ in ability["choices"]]
    helper = next(param for param in mine["test"]["params"] if param["name"] == "helper")
    assert helper["choices"] == [[str(rival.pk), "Ash"]]
    theirs = {p["key"]: p for p in bearer(gm, "table", campaign).get(f"/api/characters/{hero.pk}/procedures").json()}
    assert {"dying", "npc_attack"} <= set(theirs)
    assert "dn" in {param["name"] for param in theirs["test"]["params"]}


ODDS_ANSWERS = {**SHEET_ANSWERS}


@pytest.mark.parametrize(("role", "status"), ODDS_ANSWERS.items())
def test_the_odds_before_a_roll_are_the_roll_s_own(role, status, as_role, hero):
    response = as_role(role).send(f"/api/characters/{hero.pk}/odds/test", {"params": {"ability": "BOD"}})
    assert response.status_code == status, response.content
    if status == 200:
        assert response.json() == {"odds": {"pass": "5/8", "fail": "3/8"}, "settled": ""}
        assert not Roll.objects.filter(procedure="test").exists()


def test_odds_are_checked_as_on_the_page(player, hero):
    api = bearer(player)
    stepped = api.send(f"/api/characters/{hero.pk}/odds/test", {"params": {"ability": "BOD", "advantage": 1}})
    assert stepped.json()["odds"] == {"pass": "7/10", "fail": "3/10"}
    assert api.send(f"/api/characters/{hero.pk}/odds/test", {"params": {"dn": 3}}).json() == {
        "detail": "Only the GM sets difficulty number."
    }
    assert api.send(f"/api/characters/{hero.pk}/odds/dying", {}).status_code == 404


def test_an_api_write_pushes_what_the_same_write_on_the_page_pushes(player, hero, as_user, pushed):
    """Same service, same journal entry: a track change from the sheet's +/- and from the API."""
    page = as_user(player).post(f"/characters/{hero.pk}/adjust/", {"key": "hp", "delta": "-1"})
    assert page.status_code == 302
    from_page = [(entry.by_id, entry.write, entry.events) for entry in pushed.entries()]
    pushed.clear()
    assert bearer(player).send(f"/api/characters/{hero.pk}/tracks", {"key": "hp", "delta": -1}).status_code == 200
    assert [(entry.by_id, entry.write, entry.events) for entry in pushed.entries()] == from_page and from_page
