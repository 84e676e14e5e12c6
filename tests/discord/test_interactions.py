"""Discord's interactions endpoint against the stand-in (tests/discord/standin.py): signed posts only, no replays,
each command's answer in Discord's documented shape (4 a message, 7 an updated message, 8 autocomplete choices),
visibility per roll kind, and permissions as on the pages (issue 43)."""

from __future__ import annotations

import json
import re
import time

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import call_command

from campaigns.models import RollRequest, RollRequestAnswer
from characters.models import Roll
from discord import linking
from discord.interactions import roll_words
from discord.models import ChannelLink, LinkCode, SeenInteraction, UserLink
from tests.discord import standin
from tests.discord.conftest import link
from tests.recorded import Since

MESSAGE, UPDATE_MESSAGE, CHOICES, EPHEMERAL = 4, 7, 8, 64
SHEET_PASS = re.compile(r'data-odds-pass="([0-9/]+)"')


# --- the door: signatures, replays, PING ------------------------------------------------------------------------


def test_a_ping_is_answered_with_a_pong(discord):
    answer = discord.ping()
    assert (answer.status, answer.json) == (200, {"type": 1})


def test_a_post_without_a_signature_is_refused_with_401(client, db):
    response = client.post(standin.PATH, data=b'{"type": 1}', content_type="application/json")
    assert response.status_code == 401
    assert "Missing X-Signature-Ed25519" in response.json()["detail"]


def test_a_post_signed_with_another_key_is_refused_with_401(discord):
    ping = {"id": "1", "type": 1, "application_id": standin.APPLICATION_ID}
    answer = discord.send(ping, key=Ed25519PrivateKey.generate())
    assert answer.status == 401 and answer.json["detail"] == "The signature is not Discord's."


def test_a_body_changed_after_signing_is_refused_with_401(client, db):
    body = json.dumps({"id": "5", "type": 1, "application_id": standin.APPLICATION_ID}).encode()
    headers = standin.signed(body)
    del headers["Content-Type"]
    tampered = body.replace(b'"type": 1', b'"type": 2')
    response = client.post(standin.PATH, data=tampered, content_type="application/json", headers=headers)
    assert response.status_code == 401


def test_a_signature_that_is_not_hex_is_refused_with_401(client, db):
    response = client.post(
        standin.PATH,
        data=b"{}",
        content_type="application/json",
        headers={"X-Signature-Ed25519": "zz", "X-Signature-Timestamp": str(int(time.time()))},
    )
    assert response.status_code == 401


@pytest.mark.parametrize("offset", [-301, 301, -100_000])
def test_a_timestamp_outside_five_minutes_is_refused_as_a_replay(discord, offset):
    answer = discord.send(
        {"id": "7", "type": 1, "application_id": standin.APPLICATION_ID}, timestamp=str(int(time.time()) + offset)
    )
    assert answer.status == 401 and "replays are refused" in answer.json["detail"]


def test_the_same_signed_interaction_sent_again_is_refused(discord):
    first = discord.ping()
    assert first.status == 200
    status, again = discord.post(standin.PATH, discord.last_body, discord.last_headers)
    assert status == 401 and again["detail"] == "That interaction was answered already: replays are refused."
    assert SeenInteraction.objects.count() == 1


def test_an_interaction_for_another_application_is_refused(discord):
    answer = discord.send({"id": "8", "type": 1, "application_id": "42"})
    assert answer.status == 400


def test_without_a_public_key_the_endpoint_says_it_is_not_set_up(discord, settings):
    settings.DISCORD_PUBLIC_KEY = ""
    answer = discord.ping()
    assert answer.status == 404 and "Discord is not set up on this Lantern" in answer.json["detail"]


def test_the_endpoint_takes_only_posts(client, db):
    assert client.get(standin.PATH).status_code == 405


def test_an_unknown_interaction_type_is_a_400_with_a_sentence(discord):
    answer = discord.send({"id": "9", "type": 99, "application_id": standin.APPLICATION_ID})
    assert answer.status == 400 and "type 99" in answer.json["detail"]


# --- linking ----------------------------------------------------------------------------------------------------


def test_a_code_from_the_account_page_links_once_and_is_kept_only_as_a_hash(discord, player, as_user):
    page = as_user(player).post("/discord/account/", {"action": "code"})
    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    code = re.search(r"data-code>/lantern link ([A-Z0-9-]+)", page.content.decode()).group(1)
    row = LinkCode.objects.get()
    assert code.replace("-", "") not in row.code_hash and row.code_hash == linking.code_hash(code)
    answer = discord.command("player", "lantern", "link", code=code)
    assert answer.json["type"] == MESSAGE and answer.ephemeral
    assert answer.content == "Linked: you play as player on Lantern."
    assert UserLink.objects.get().user == player
    again = discord.command("someone", "lantern", "link", code=code)
    assert again.content == linking.BAD_CODE and UserLink.objects.count() == 1
    assert "Linked to" in as_user(player).get("/discord/account/").content.decode()


def test_an_expired_code_links_nothing(discord, player):
    code = linking.code_make(user=player, kind=LinkCode.Kind.USER)
    LinkCode.objects.update(expires_at=LinkCode.objects.get().expires_at.replace(year=2000))
    assert discord.command("player", "lantern", "link", code=code).content == linking.BAD_CODE
    assert not UserLink.objects.exists()


def test_a_player_unlinks_from_discord_and_from_the_page(discord, player, as_user):
    link(discord, player)
    assert discord.command("player", "lantern", "unlink").content.startswith("Unlinked")
    assert not UserLink.objects.exists()
    link(discord, player)
    response = as_user(player).post("/discord/account/", {"action": "unlink"})
    assert response.status_code == 302 and not UserLink.objects.exists()


def test_the_gm_links_a_channel_with_the_campaigns_code_and_unlinks_it(discord, gm, player, campaign, as_user):
    link(discord, gm)
    link(discord, player)
    page = as_user(gm).post(f"/discord/campaign/{campaign.pk}/")
    code = re.search(r"data-code>/lantern channel ([A-Z0-9-]+)", page.content.decode()).group(1)
    stolen = discord.command("player", "lantern", "channel", code=code)  # a player who read the GM's screen
    assert stolen.content == "That code is another Lantern account's: the GM who made it types it."
    code = linking.code_make(user=gm, kind=LinkCode.Kind.CHANNEL, campaign_id=campaign.pk)
    answer = discord.command("gm", "lantern", "channel", code=code)
    assert answer.json["type"] == MESSAGE and not answer.ephemeral
    assert ChannelLink.objects.get().campaign == campaign
    assert discord.command("player", "lantern", "unchannel").content == "Only the campaign's GM unlinks its channel."
    channel = ChannelLink.objects.get()
    page = as_user(gm).get(f"/discord/campaign/{campaign.pk}/").content.decode()
    assert f'data-channel="{channel.channel_id}"' in page
    as_user(gm).post(f"/discord/campaign/{campaign.pk}/unlink/{channel.pk}/")
    assert not ChannelLink.objects.exists()


def test_only_the_gm_reaches_the_campaigns_discord_page(player, campaign, as_user):
    assert as_user(player).get(f"/discord/campaign/{campaign.pk}/").status_code == 404
    assert as_user(player).post(f"/discord/campaign/{campaign.pk}/").status_code == 404
    assert not LinkCode.objects.exists()


def test_the_discord_pages_cost_a_bounded_number_of_queries(gm, campaign, as_user, django_assert_max_num_queries):
    client = as_user(gm)
    with django_assert_max_num_queries(8):
        assert client.get("/discord/account/").status_code == 200
    with django_assert_max_num_queries(8):
        assert client.get(f"/discord/campaign/{campaign.pk}/").status_code == 200


# --- permissions ----------------------------------------------------------------------------------------------


def test_an_unlinked_discord_user_is_told_to_link(discord, table, hero):
    answer = discord.command("newcomer", "roll", procedure="test", inputs="ability=BOD")
    assert answer.status == 200 and answer.json["type"] == MESSAGE and answer.ephemeral
    assert answer.content.startswith("Link your Discord user to Lantern first")
    assert not Roll.objects.filter(procedure="test").exists()


def test_a_player_cannot_roll_another_players_character(discord, table, hero, rival):
    answer = discord.command("player", "roll", procedure="test", inputs="ability=BOD", character=str(rival.pk))
    assert answer.ephemeral and answer.content == "No character of yours here by that name."
    answer = discord.command("player", "roll", procedure="test", character="Ash")
    assert answer.content == "No character of yours here by that name."
    assert not Roll.objects.filter(procedure="test").exists()


def test_a_command_in_an_unlinked_channel_says_how_to_link_it(discord, player, hero):
    link(discord, player)
    answer = discord.command("player", "odds", procedure="test")
    assert answer.ephemeral and answer.content.startswith("This channel plays no campaign")


def test_a_player_with_two_characters_is_asked_which(discord, table, player, hero):
    from tests.conftest import make_character

    make_character(player, table, name="Moss", seed=3)
    answer = discord.command("player", "sheet")
    assert answer.ephemeral and "2 characters" in answer.content and "character option" in answer.content
    assert "**Moss**" in discord.command("player", "sheet", character="moss").content


def test_only_the_gm_asks_for_a_roll(discord, table, hero):
    answer = discord.command("player", "request", procedure="test")
    assert answer.ephemeral and answer.content == "No campaign here."
    assert not RollRequest.objects.exists()


def test_a_refusal_of_the_rules_is_the_pages_sentence(discord, table, hero):
    answer = discord.command("player", "roll", procedure="test", inputs="colour=red")
    assert answer.ephemeral and answer.content == "Test has no option colour."
    answer = discord.command("player", "roll", procedure="fly")
    assert answer.content == "Fell (draft, ability points) has no roll called 'fly'."


def test_commands_past_the_minutes_limit_are_refused_per_user_and_per_channel(discord, table, hero, settings):
    settings.DISCORD_CALLS_PER_MINUTE = 2
    assert "Odds" in discord.command("player", "odds", procedure="test").content
    assert "Odds" in discord.command("player", "odds", procedure="test").content
    assert discord.command("player", "odds", procedure="test").content.startswith("That is 2 commands in a minute")
    settings.DISCORD_CALLS_PER_MINUTE, settings.DISCORD_CHANNEL_CALLS_PER_MINUTE = 100, 3
    assert discord.command("gm", "sheet", character=str(hero.pk)).content.startswith("**Wren**")
    said = discord.command("other_player", "odds", procedure="test").content
    assert said.startswith("That is 3 commands in a minute in this channel")


# --- the commands -----------------------------------------------------------------------------------------------


def test_odds_answer_the_sheets_exact_odds_to_the_player_alone(discord, table, hero, as_user):
    answer = discord.command("player", "odds", procedure="test", inputs="ability=BOD")
    assert answer.json["type"] == MESSAGE and answer.ephemeral
    box = as_user(hero.owner).get(f"/characters/{hero.pk}/odds/test/?test-ability=BOD").content.decode()
    sheet_pass = SHEET_PASS.search(box).group(1)
    assert f"pass {sheet_pass} " in answer.content and sheet_pass == "5/8"
    assert not Roll.objects.filter(procedure="test").exists()


def test_a_public_roll_posts_the_odds_then_the_result_in_the_channel_and_reaches_every_page(discord, table, hero):
    seen = Since(table.pk)
    version = hero.version
    answer = discord.command("player", "roll", procedure="test", inputs="ability=BOD")
    assert answer.json["type"] == MESSAGE and not answer.ephemeral
    assert answer.json["data"]["allowed_mentions"] == {"parse": []}
    roll = Roll.objects.get(procedure="test")
    assert (roll.character, roll.roller, roll.visibility) == (hero, hero.owner, "public")
    assert answer.content.index("Odds: pass 5/8 (62.5%)") < answer.content.index("Result: **")
    assert f"Result: **{roll.outcome}**" in answer.content
    assert "roll.made" in seen.kinds()
    hero.refresh_from_db()
    assert hero.version >= version


@pytest.mark.parametrize("visibility", ["gm", "private"])
def test_a_gm_only_or_private_roll_answers_its_roller_alone(discord, table, hero, visibility):
    answer = discord.command("player", "roll", procedure="test", inputs="ability=BOD", visibility=visibility)
    assert answer.json["type"] == MESSAGE and answer.ephemeral
    roll = Roll.objects.get(procedure="test")
    assert roll.visibility == visibility and f"Result: **{roll.outcome}**" in answer.content


def test_a_player_may_not_roll_blind_on_their_own(discord, table, hero):
    answer = discord.command("player", "roll", procedure="test", visibility="blind")
    assert answer.ephemeral and answer.content == "Only the GM rolls blind, or asks a player for a blind roll."
    assert not Roll.objects.filter(procedure="test").exists()


def test_a_blind_roll_tells_its_roller_only_that_it_was_rolled(discord, table, hero, gm):
    discord.command("gm", "roll", procedure="test", visibility="blind", character=str(hero.pk))
    roll = Roll.objects.get(visibility="blind")
    assert roll_words(roll, gm=False) == "**Wren** rolls Test: rolled blind. The GM has the result on Lantern."
    assert f"**{roll.outcome}**" in roll_words(roll, gm=True)


def test_the_gms_blind_roll_answers_the_gm_alone(discord, table, hero):
    answer = discord.command("gm", "roll", procedure="test", visibility="blind", character="Wren")
    assert answer.ephemeral and "(blind)" in answer.content and "Result: **" in answer.content


def test_sheet_shows_the_vitals_to_the_player_alone(discord, table, hero):
    answer = discord.command("player", "sheet")
    assert answer.json["type"] == MESSAGE and answer.ephemeral
    assert answer.content.splitlines()[:2] == ["**Wren**", "HP: 3"]


def test_a_request_is_posted_with_a_button_each_player_presses_to_roll(discord, table, hero, rival):
    asked = discord.command("gm", "request", procedure="test", inputs="ability=BOD")
    assert asked.json["type"] == MESSAGE and not asked.ephemeral
    request = RollRequest.objects.get()
    (row,) = asked.json["data"]["components"]
    assert row["type"] == 1 and row["components"][0]["custom_id"] == f"request:{request.pk}"
    assert "· Wren: not rolled yet" in asked.content and "0 of 2 rolled." in asked.content
    pressed = discord.press("player", f"request:{request.pk}")
    assert pressed.json["type"] == UPDATE_MESSAGE and "flags" not in pressed.json["data"]
    answer = RollRequestAnswer.objects.get(character=hero)
    assert answer.answered_at is not None
    assert f"✓ Wren: **{answer.outcome}** (odds " in pressed.content and "pass 5/8 (62.5%)" in pressed.content
    assert "1 of 2 rolled." in pressed.content
    again = discord.press("player", f"request:{request.pk}")
    assert again.json["type"] == MESSAGE and again.ephemeral
    assert again.content == "That request waits for no character of yours."
    last = discord.press("other_player", f"request:{request.pk}")
    assert "2 of 2 rolled." in last.content and last.json["data"]["components"] == []


def test_a_blind_requests_results_never_reach_the_channel(discord, table, hero):
    discord.command("gm", "request", procedure="test", blind=True)
    request = RollRequest.objects.get()
    pressed = discord.press("player", f"request:{request.pk}")
    assert pressed.json["type"] == UPDATE_MESSAGE
    roll = Roll.objects.get(procedure="test")
    assert roll.visibility == "blind"
    assert "✓ Wren: rolled\n" in pressed.content and roll.outcome in ("pass", "fail")
    assert "pass" not in pressed.content and "fail" not in pressed.content and "odds" not in pressed.content


def test_a_button_of_a_request_of_another_table_is_gone(discord, table, hero, gm):
    from tests.conftest import make_table

    elsewhere = make_table("fell-draft", gm, name="Elsewhere")
    request = RollRequest.objects.create(
        campaign=elsewhere, procedure="test", label="Test", expires_at=hero.created_at.replace(year=2100)
    )
    assert discord.press("player", f"request:{request.pk}").content == "That request is gone."
    assert discord.press("player", "explode").status == 400


# --- autocomplete -----------------------------------------------------------------------------------------------


def test_autocomplete_lists_the_procedures_of_the_characters_system(discord, table, hero):
    from rules import SYSTEMS

    answer = discord.complete("player", "roll", "procedure")
    assert answer.json["type"] == CHOICES
    offered = [choice["value"] for choice in answer.json["data"]["choices"]]
    mine = [key for key, proc in SYSTEMS["fell-draft"].procedures().items() if not proc.gm_only]
    assert offered == mine[:25]
    narrowed = discord.complete("player", "roll", "procedure", "tes").json["data"]["choices"]
    assert {"name": "Test", "value": "test"} in narrowed and len(narrowed) < len(offered)


def test_autocomplete_of_a_character_lists_the_players_own(discord, table, hero, rival):
    choices = discord.complete("player", "roll", "character").json["data"]["choices"]
    assert choices == [{"name": "Wren", "value": str(hero.pk)}]


def test_autocomplete_for_an_unlinked_user_offers_nothing(discord, table, hero):
    answer = discord.complete("newcomer", "roll", "procedure")
    assert answer.json == {"type": CHOICES, "data": {"choices": []}}


# --- registering ------------------------------------------------------------------------------------------------


def test_discord_commands_prints_the_definitions_discord_registers(capsys):
    call_command("discord_commands")
    commands = json.loads(capsys.readouterr().out)
    assert [c["name"] for c in commands] == ["lantern", "odds", "roll", "sheet", "request"]
    for command in commands:
        assert 1 <= len(command["description"]) <= 100
        for option in command.get("options", []):
            assert re.fullmatch(r"[a-z_-]{1,32}", option["name"]) and len(option["description"]) <= 100


# --- a session, as the stand-in records it ------------------------------------------------------------------------


def test_a_session_transcript(discord, table, hero, rival, as_user, capsys):
    """The report's transcript: each command and its answer, and the sheet's own odds beside Discord's."""
    discord.command("player", "odds", procedure="test", inputs="ability=BOD")
    discord.command("player", "odds", procedure="test", inputs="ability=INT")
    discord.command("other_player", "odds", procedure="test", inputs="ability=WIL")
    discord.command("player", "roll", procedure="test", inputs="ability=BOD")
    discord.command("player", "roll", procedure="test", inputs="ability=INT", visibility="gm")
    discord.command("player", "sheet")
    discord.command("gm", "request", procedure="test", inputs="ability=BOD")
    request = RollRequest.objects.get()
    discord.press("player", f"request:{request.pk}")
    discord.press("other_player", f"request:{request.pk}")
    beside = []
    for character, ability in ((hero, "BOD"), (hero, "INT"), (rival, "WIL")):
        box = as_user(character.owner).get(f"/characters/{character.pk}/odds/test/?test-ability={ability}")
        fraction = SHEET_PASS.search(box.content.decode()).group(1)
        beside.append(f"{character.name} {ability}: the sheet's odds box says pass {fraction}")
    with capsys.disabled():
        print("\n" + "\n".join(discord.transcript) + "\n" + "\n".join(beside))
    assert len(discord.transcript) == 9


def test_inputs_are_read_as_the_roll_panel_sends_them():
    from discord.interactions import parse_inputs

    assert parse_inputs("ability=BOD advantage=1 careful picks=a,b") == {
        "ability": "BOD",
        "advantage": "1",
        "careful": True,
        "picks": ["a", "b"],
    }
    assert parse_inputs(None) == {}
