"""Issue 27: the table's dice setting, blind GM rolls, and corrections (voids), through the pages a person uses.

The faces themselves (every system, every procedure) are the contract's: tests/contract/test_hand_dice.py.
"""

from __future__ import annotations

import json
import random
from datetime import timedelta
from urllib.parse import urlencode

import pytest
from django.http import QueryDict
from django.urls import reverse
from django.utils import timezone

from campaigns import push
from campaigns.models import Campaign, RollRequest
from characters import services
from characters.forms import raw_params
from characters.models import Change, Character, Roll
from live.events import RollMade, RollVoided, Seen
from rules import RulesError, dice, system_for
from rules.base import check_params
from tests.conftest import make_table
from tests.pages import HTMX, form_fields, roll_form, text_of
from tests.recorded import roll_events

pytestmark = pytest.mark.django_db


def _rolls():
    """The rolls a test made (making a character logs its creation's dice as a roll too)."""
    return Roll.objects.exclude(procedure="creation")


def _hand(campaign, value: str) -> None:
    campaign.hand_dice = value
    campaign.save(update_fields=["hand_dice"])


def _snapshot(character: Character):
    character.refresh_from_db()
    return character.version, character.state, Roll.objects.count(), Change.objects.count()


def _gm_attack(client, hero, visibility: str = "public", **changes):
    """The GM's NPC attack on the player's character (Fell: harm on a d6): a roll that changes the sheet."""
    url, fields = roll_form(client, hero, "npc_attack", visibility=visibility, **changes)
    return client.post(url, fields, **HTMX)


# --- the table's dice setting ----------------------------------------------------------------------------


def test_hand_dice_follow_the_tables_setting_and_a_change_leaves_past_rolls(campaign, hero, gm, player, as_user):
    client = as_user(player)
    page = client.get(hero.get_absolute_url())
    assert 'name="hand"' not in page.content.decode()  # server dice only: the form offers no faces field
    before = _snapshot(hero)
    with pytest.raises(RulesError, match="the server rolls the dice"):
        services.character_roll(character_id=hero.pk, procedure="test", params={}, by=player, hand="3")
    assert _snapshot(hero) == before

    _hand(campaign, Campaign.HandDice.PLAYERS)
    url, fields = roll_form(client, hero, "test", hand="3")
    response = client.post(url, fields, **HTMX)
    assert response.status_code == 200, text_of(response)
    roll = _rolls().get()
    assert roll.by_hand and roll.dice[0]["face"] == 3 and "rolled by hand" in text_of(response)
    assert '<span class="badge hand" data-hand>rolled by hand</span>' in response.content.decode()
    # The GM may not while only players may; everyone may when everyone rolls by hand.
    with pytest.raises(RulesError, match="the GM may not"):
        services.character_roll(character_id=hero.pk, procedure="test", params={}, by=gm, hand="3")
    _hand(campaign, Campaign.HandDice.EVERYONE)
    services.character_roll(character_id=hero.pk, procedure="test", params={}, by=gm, hand="3")
    # A hand roll that changes the sheet says so in the history too (the GM's NPC attack: a d6 and a d8).
    harm = services.character_roll(character_id=hero.pk, procedure="npc_attack", params={}, by=gm, hand="6 8")
    assert harm.change is not None and harm.change.what.endswith("(rolled by hand)")

    # The GM sets it back on the settings page; the hand roll stays marked everywhere it shows.
    settings_url = reverse("campaigns:settings", args=[campaign.pk])
    action = settings_url  # the dice setting is one form with the rule settings (issue 36, item 12)
    gm_client = as_user(gm)
    fields = form_fields(gm_client.get(settings_url), action, hand_dice="server")
    assert gm_client.post(action, fields).status_code in (200, 302)
    campaign.refresh_from_db()
    assert campaign.hand_dice == "server"
    assert campaign.setting_changes.filter(key="hand_dice").exists()
    assert _rolls().filter(by_hand=True).count() == 3
    sheet = client.get(hero.get_absolute_url())
    assert text_of(sheet).count("rolled by hand") >= 2
    history = client.get(reverse("characters:history", args=[hero.pk]))
    table = client.get(campaign.get_absolute_url())
    assert "rolled by hand" in text_of(table)
    exported = json.loads(client.get(reverse("characters:export", args=[hero.pk])).content)
    made = [row for row in exported["rolls"] if row["label"] != "Character creation"]
    assert [row["rolled_by_hand"] for row in made] == [True, True, True]
    assert "(rolled by hand)" in text_of(history)


def test_only_the_gm_changes_the_dice_setting(campaign, player, as_user):
    action = reverse("campaigns:hand_dice", args=[campaign.pk])
    assert as_user(player).post(action, {"hand_dice": "everyone"}).status_code == 404
    page = as_user(player).get(reverse("campaigns:settings", args=[campaign.pk]))
    assert "Server dice only" in text_of(page) and action not in page.content.decode()
    campaign.refresh_from_db()
    assert campaign.hand_dice == "server"


def test_a_bad_dice_setting_is_refused_with_a_sentence(campaign, gm, as_user):
    response = as_user(gm).post(reverse("campaigns:hand_dice", args=[campaign.pk]), {"hand_dice": "dragons"})
    assert response.status_code == 400 and "Choose who rolls the dice" in text_of(response)


# --- blind rolls -----------------------------------------------------------------------------------------


def _sees_result(text: str, roll: Roll) -> bool:
    """Whether this HTML shows the roll's result: its outcome or its dice, as a log line draws them."""
    faces = [f">d{die['sides']}:{die['face']}<" for die in roll.dice]
    for line in text.split('data-roll="')[1:]:  # each roll's line, up to the next one
        if line.startswith(f'{roll.pk}"') and (" data-outcome=" in line.split(">")[0] or all(f in line for f in faces)):
            return True
    return False


def test_a_blind_gm_roll_reaches_only_the_gm_and_changes_nothing_until_applied(
    campaign, hero, gm, player, other_player, as_user
):
    before = _snapshot(hero)[:2]
    response = _gm_attack(as_user(gm), hero, "blind")
    assert response.status_code == 200, text_of(response)
    roll = _rolls().get()
    assert roll.visibility == "blind" and roll.held  # a hit's harm waits for the GM
    assert _snapshot(hero)[:2] == before and not Change.objects.filter(roll__isnull=False).exists()
    assert _sees_result(response.content.decode(), roll)  # the GM's own answer shows it

    gm_sheet = as_user(gm).get(hero.get_absolute_url()).content.decode()
    assert _sees_result(gm_sheet, roll)
    for who in (player, other_player):
        page = as_user(who).get(hero.get_absolute_url()).content.decode()
        assert f'data-roll="{roll.pk}"' not in page  # the GM rolled it: no line at all
        table = as_user(who).get(campaign.get_absolute_url()).content.decode()
        assert f'data-roll="{roll.pk}"' not in table
    sheet = f"sheet-{hero.pk}"
    pages = [(gm.pk, sheet), (player.pk, sheet), (other_player.pk, sheet), (player.pk, "table")]
    (made,) = roll_events(campaign.pk, roll.pk)  # what the journal tells its readers of the roll: ids only
    assert made == RollMade(roll=roll.pk, character=hero.pk, seen=Seen("blind", (gm.pk,)))
    out = push.render_push(campaign.pk, [made], pages)
    assert _sees_result(out[(gm.pk, sheet)], roll)
    assert set(out) == {(gm.pk, sheet)}

    # The GM applies the harm from the roll's page; then, and only then, the sheet moves.
    fix = reverse("characters:roll_fix", args=[roll.pk])
    page = as_user(gm).get(fix)
    response = as_user(gm).post(fix, form_fields(page, fix, extra={"action": "apply"}))
    assert response.status_code == 302
    hero.refresh_from_db()
    assert hero.state != before[1]
    change = Change.objects.get(roll__isnull=False)
    assert change.roll == roll and "blind" in change.what
    roll.refresh_from_db()
    assert roll.held_applied and roll.revision == 1
    again = as_user(gm).post(fix, {"action": "apply"})
    assert again.status_code == 422 and "applied already" in text_of(again)


def test_a_blind_request_hides_the_result_from_the_player_everywhere(campaign, hero, gm, player, other_player, as_user):
    ask = reverse("campaigns:request_new", args=[campaign.pk])
    table = as_user(gm).get(campaign.get_absolute_url())
    fields = form_fields(table, ask, procedure="test", blind="on", characters=[str(hero.pk)])
    assert as_user(gm).post(ask, fields, **HTMX).status_code == 200
    request = RollRequest.objects.get()
    assert request.blind
    client = as_user(player)
    region = client.get(reverse("campaigns:sheet_requests", args=[campaign.pk, hero.pk]))
    action = reverse("campaigns:request_answer", args=[campaign.pk, request.pk, hero.pk])
    assert "only the GM sees the result" in text_of(region)
    response = client.post(action, form_fields(region, action), **HTMX)
    assert response.status_code == 200, text_of(response)
    roll = _rolls().get()
    assert roll.visibility == "blind" and roll.roller == player

    for n, html in enumerate(
        (
            response.content.decode(),
            client.get(hero.get_absolute_url()).content.decode(),
            client.get(campaign.get_absolute_url()).content.decode(),
            client.get(reverse("campaigns:requests", args=[campaign.pk])).content.decode(),
            client.get(reverse("characters:history", args=[hero.pk])).content.decode(),
        )
    ):
        for line in html.splitlines():
            assert not _sees_result(line, roll), (n, line)
        assert roll.summary not in html
    assert "rolled blind: the GM has the result" in text_of(client.get(hero.get_absolute_url()))
    exported = json.loads(client.get(reverse("characters:export", args=[hero.pk])).content)
    blind = [row for row in exported["rolls"] if row["visibility"] == "blind"]
    assert len(blind) == 1 and not {"outcome", "dice", "total", "summary"} & set(blind[0])
    assert blind[0]["result"] == "rolled blind: the GM has the result"
    sheet = f"sheet-{hero.pk}"
    pages = [(gm.pk, sheet), (player.pk, sheet), (other_player.pk, sheet), (other_player.pk, "table")]
    made = roll_events(campaign.pk, roll.pk)[0]
    assert made == RollMade(roll=roll.pk, character=hero.pk, seen=Seen("blind", (player.pk,)))
    out = push.render_push(campaign.pk, [made], pages)
    assert "rolled blind" in out[(player.pk, sheet)] and not _sees_result(out[(player.pk, sheet)], roll)
    assert _sees_result(out[(gm.pk, sheet)], roll)
    assert set(out) == {(gm.pk, sheet), (player.pk, sheet)}
    gm_export = json.loads(as_user(gm).get(reverse("characters:export", args=[hero.pk])).content)
    assert gm_export["rolls"][0]["outcome"] == roll.outcome
    gm_requests = as_user(gm).get(reverse("campaigns:requests", args=[campaign.pk])).content.decode()
    assert f'data-outcome="{roll.outcome}"' in gm_requests


def test_a_blind_request_offers_no_hand_dice_and_refuses_them(campaign, hero, gm, player, as_user):
    """Issue 35, item 17: faces the player rolled would tell them the blind result: the answer form offers no
    "I rolled these", and faces sent anyway are refused with a sentence, nothing rolled."""
    _hand(campaign, Campaign.HandDice.PLAYERS)
    ask = reverse("campaigns:request_new", args=[campaign.pk])
    table = as_user(gm).get(campaign.get_absolute_url())
    fields = form_fields(table, ask, procedure="test", blind="on", characters=[str(hero.pk)])
    assert as_user(gm).post(ask, fields, **HTMX).status_code == 200
    request = RollRequest.objects.get()
    client = as_user(player)
    region = client.get(reverse("campaigns:sheet_requests", args=[campaign.pk, hero.pk]))
    action = reverse("campaigns:request_answer", args=[campaign.pk, request.pk, hero.pk])
    assert "I rolled these" not in text_of(region) and 'name="hand"' not in region.content.decode()
    response = client.post(action, {**form_fields(region, action), "hand": "3"}, **HTMX)
    assert response.status_code == 422
    assert "A blind roll is made with Lantern's dice: dice you roll yourself would show you the result." in text_of(
        response
    )
    assert not _rolls().exists()


def test_only_the_gm_chooses_a_blind_roll(campaign, hero, player, as_user):
    before = _snapshot(hero)
    url, fields = roll_form(as_user(player), hero, "test", extra={"visibility": "blind"})
    response = as_user(player).post(url, fields, **HTMX)
    assert response.status_code == 422 and "Only the GM rolls blind" in text_of(response)
    assert _snapshot(hero) == before


# --- corrections -----------------------------------------------------------------------------------------


def _void(client, roll: Roll, reason: str = "wrong NPC"):
    url = reverse("characters:roll_fix", args=[roll.pk])
    return client.post(url, form_fields(client.get(url), url, reason=reason))


def test_the_gm_voids_a_roll_its_change_is_reverted_and_every_log_strikes_it(
    campaign, hero, gm, player, other_player, as_user, monkeypatch
):
    monkeypatch.setattr(dice, "system_random", lambda: random.Random(3))
    start = _snapshot(hero)[1]
    assert _gm_attack(as_user(gm), hero).status_code == 200
    roll = _rolls().get()
    assert _snapshot(hero)[1] != start
    assert _void(as_user(gm), roll).status_code == 302
    roll.refresh_from_db()
    assert roll.voided_at and roll.voided_by == gm and roll.void_reason == "wrong NPC" and roll.revision == 1
    assert not roll.undone  # the void strikes it; "undone" is for a change reverted from the history
    assert _snapshot(hero)[1] == start
    assert Change.objects.filter(reverts__roll=roll).exists()
    for who in (gm, player, other_player):
        for url in (hero.get_absolute_url(), campaign.get_absolute_url()):
            text = as_user(who).get(url).content.decode()
            assert 'class="roll voided"' in text and "Voided by gm: wrong NPC" in text
    sheet = f"sheet-{hero.pk}"
    voided = roll_events(campaign.pk, roll.pk)[-1]
    assert voided == RollVoided(roll=roll.pk, character=hero.pk)
    out = push.render_push(campaign.pk, [voided], [(player.pk, sheet), (other_player.pk, "table")])
    for html in out.values():
        assert f'<li id="roll-{roll.pk}" data-version="1" data-pushed hx-swap-oob="outerHTML">' in html
        assert "Voided by gm" in html
    again = as_user(gm).post(reverse("characters:roll_fix", args=[roll.pk]), {"reason": "twice"})  # no form now
    assert again.status_code == 422 and "voided already" in text_of(again)


def test_a_void_is_refused_when_the_sheet_moved_on_since(campaign, hero, gm, as_user, monkeypatch):
    monkeypatch.setattr(dice, "system_random", lambda: random.Random(3))
    assert _gm_attack(as_user(gm), hero).status_code == 200
    roll = _rolls().get()
    services.character_adjust(character_id=hero.pk, key="hp", delta=1, by=gm)
    before = _snapshot(hero)
    response = _void(as_user(gm), roll)
    assert response.status_code == 422 and "changed again" in text_of(response)
    assert _snapshot(hero) == before
    roll.refresh_from_db()
    assert roll.voided_at is None


def test_a_player_voids_their_own_roll_only_within_a_minute_and_while_nothing_changed(
    campaign, hero, rival, gm, player, other_player, as_user
):
    first = services.character_roll(character_id=hero.pk, procedure="test", params={}, by=player).row
    not_theirs = as_user(other_player).post(reverse("characters:roll_fix", args=[first.pk]), {"reason": "mine"})
    assert not_theirs.status_code == 422 and "Only the GM voids another" in text_of(not_theirs)  # and no form
    assert _void(as_user(player), first, "misclick").status_code == 302
    second = services.character_roll(character_id=hero.pk, procedure="test", params={}, by=player).row
    Roll.objects.filter(pk=second.pk).update(created_at=timezone.now() - timedelta(minutes=2))
    late = _void(as_user(player), second)
    assert late.status_code == 422 and "within a minute" in text_of(late)
    third = services.character_roll(character_id=hero.pk, procedure="test", params={}, by=player).row
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    moved = _void(as_user(player), third)
    assert moved.status_code == 422 and "changed since" in text_of(moved)
    assert list(_rolls().filter(voided_at__isnull=False)) == [first]


def test_reverting_a_rolls_change_from_the_history_marks_the_roll_undone(campaign, hero, gm, as_user, monkeypatch):
    monkeypatch.setattr(dice, "system_random", lambda: random.Random(3))
    assert _gm_attack(as_user(gm), hero).status_code == 200
    roll = _rolls().get()
    change = Change.objects.get(roll=roll)
    services.change_revert(character_id=hero.pk, change_id=change.pk, by=gm, reason="misread")
    roll.refresh_from_db()
    assert roll.undone and roll.revision == 1
    assert (
        '<span class="badge undone" data-undone>undone</span>'
        in as_user(gm).get(hero.get_absolute_url()).content.decode()
    )


def test_a_request_takes_hand_rolled_dice_where_the_table_allows(campaign, hero, gm, player, as_user):
    cc, wren = campaign, hero
    ask = reverse("campaigns:request_new", args=[cc.pk])
    fields = form_fields(as_user(gm).get(cc.get_absolute_url()), ask, procedure="test", characters=[str(hero.pk)])
    assert as_user(gm).post(ask, fields, **HTMX).status_code == 200
    request = RollRequest.objects.get()
    region_url = reverse("campaigns:sheet_requests", args=[cc.pk, wren.pk])
    action = reverse("campaigns:request_answer", args=[cc.pk, request.pk, wren.pk])
    assert 'name="hand"' not in as_user(player).get(region_url).content.decode()
    refused = as_user(player).post(action, form_fields(as_user(player).get(region_url), action, extra={"hand": "4"}))
    assert refused.status_code == 302 and not _rolls().exists()
    _hand(cc, Campaign.HandDice.PLAYERS)
    region = as_user(player).get(region_url)
    wrong = as_user(player).post(action, form_fields(region, action, hand="4 4"), **HTMX)
    assert wrong.status_code == 422 and "This roll needs 1 die: a d" in text_of(wrong)
    assert not _rolls().exists()
    answered = as_user(player).post(action, form_fields(region, action, hand="4"), **HTMX)
    assert answered.status_code == 200, text_of(answered)
    roll = _rolls().get()
    assert roll.by_hand and roll.dice[0]["face"] == 4


def test_the_gms_roll_for_the_table_takes_typed_faces_when_everyone_rolls_by_hand(campaign, gm, as_user):
    client = as_user(gm)
    action = reverse("campaigns:gm_roll", args=[campaign.pk])
    page = client.get(campaign.get_absolute_url())
    assert 'name="hand"' not in page.content.decode()
    refused = client.post(action, form_fields(page, action, extra={"hand": "4"}), **HTMX)
    assert "the GM rolls with the server" in text_of(refused) and not _rolls().exists()
    _hand(campaign, Campaign.HandDice.EVERYONE)
    page = client.get(campaign.get_absolute_url())
    short = client.post(action, form_fields(page, action, count="2", hand="4"), **HTMX)
    assert "This roll needs 2 dice: a d6 and a d6. You typed 1 face." in text_of(short) and not _rolls().exists()
    client.post(action, form_fields(page, action, count="2", hand="4 6"), **HTMX)
    roll = _rolls().get()
    assert roll.by_hand and [d["face"] for d in roll.dice] == [4, 6] and roll.total == 10


def test_the_odds_answer_tells_the_faces_field_which_dice_the_inputs_need(campaign, hero, player, as_user):
    url = reverse("characters:odds", args=[hero.pk, "test"])
    assert 'id="needs-test"' not in as_user(player).get(url, **HTMX).content.decode()  # server dice: no field
    _hand(campaign, Campaign.HandDice.PLAYERS)
    answer = as_user(player).get(url, **HTMX).content.decode()
    assert 'id="needs-test" hx-swap-oob="true">This roll asks for a d' in answer


# The systems' own GM tools that roll dice (Fortune's Favor's group test only counts the members' results).
TOOLS = [("chaos-conquest", "morale"), ("fell-late", "luck"), ("grit-flesh", "initiative")]


@pytest.mark.parametrize(("system_id", "key"), TOOLS)
def test_each_systems_table_roll_form_takes_typed_faces(system_id, key, gm, player, as_user):
    """The systems' own GM tools post to the table roll with the faces field where everyone rolls by hand."""
    table = make_table(system_id, gm, player)
    _hand(table, Campaign.HandDice.EVERYONE)
    client = as_user(gm)
    action = reverse("campaigns:table_roll", args=[table.pk, key])
    page = client.get(table.get_absolute_url())
    fields = form_fields(page, action)
    procedure = system_for(system_id).table_procedures()[key]
    faces: list[int] = []

    class Recording(random.Random):
        def randint(self, a: int, b: int) -> int:
            faces.append(super().randint(a, b))
            return faces[-1]

    params = check_params(procedure, None, raw_params(procedure, None, QueryDict(urlencode(fields, True))))
    procedure.roll(None, params, Recording(5))
    response = client.post(action, form_fields(page, action, hand=" ".join(map(str, faces))), **HTMX)
    assert response.status_code == 200, text_of(response)
    roll = _rolls().get()
    assert faces and roll.by_hand and [d["face"] for d in roll.dice] == faces
