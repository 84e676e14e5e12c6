"""Issue 29: changes a device kept offline, sent later to characters/<id>/offline/ (characters/offline_views.py).

Each is applied through the same services as online (rules, history, live push) in the order sent, once per key,
and refused with a sentence when someone else changed the same field since the version it was made against."""

from __future__ import annotations

import json
import uuid

import pytest
from django.db import transaction
from django.urls import reverse

from campaigns.models import Campaign
from campaigns.services import campaign_set_hand_dice
from characters import services
from characters.models import Change, Character, OfflineChange, Roll
from live import journal
from tests.conftest import make_character
from tests.pages import roll_form

pytestmark = pytest.mark.django_db


def _send(client, character, *, key=None, version=None, kind="track", **fields):
    body = {"key": key or str(uuid.uuid4()), "version": version or character.version, "kind": kind, **fields}
    return client.post(
        reverse("characters:offline_sync", args=[character.pk]), json.dumps(body), content_type="application/json"
    )


def _hp(character) -> int:
    return Character.objects.get(pk=character.pk).state["hp"]


def test_three_hp_changes_made_offline_apply_in_order_each_once(as_user, player, hero):
    client = as_user(player)
    start, version = _hp(hero), hero.version
    answers = [_send(client, hero, version=version, track="hp", delta=-1) for _ in range(3)]
    assert [a.status_code for a in answers] == [200, 200, 200]
    assert [a.json()["version"] for a in answers] == [version + 1, version + 2, version + 3]
    assert _hp(hero) == start - 3
    made = Change.objects.filter(character=hero, version__gt=version).order_by("version")
    assert [(c.what, c.by_id) for c in made] == [("HP -1", player.pk)] * 3  # the history, as for the +/- buttons
    assert answers[0].json() == {"outcome": "applied", "message": "HP -1", "version": version + 1, "replayed": False}


def test_a_change_sent_twice_is_applied_once_and_answered_the_same(as_user, player, hero):
    client = as_user(player)
    start, key = _hp(hero), str(uuid.uuid4())
    first = _send(client, hero, key=key, track="hp", delta=-2)
    again = _send(client, hero, key=key, version=hero.version, track="hp", delta=-2)  # its answer was lost
    assert first.status_code == again.status_code == 200
    assert again.json()["replayed"] is True and again.json()["outcome"] == "applied"
    assert _hp(hero) == start - 2
    assert OfflineChange.objects.filter(user=player, key=key).count() == 1
    # A conflict is kept too: sent again, it is the same conflict, never applied.


def test_a_key_is_one_change_to_one_character_not_one_per_account(as_user, player, hero, campaign):
    """Issue 35, item 17: the same key sent for two characters is two changes, each applied once (the key was
    unique per account, so the second character got the first one's answer and was never changed)."""
    second = make_character(player, campaign, name="Brannoc", seed=11)
    client, key = as_user(player), str(uuid.uuid4())
    hp_hero, hp_second = _hp(hero), _hp(second)
    first = _send(client, hero, key=key, track="hp", delta=-1)
    other = _send(client, second, key=key, track="hp", delta=-1)
    assert first.status_code == other.status_code == 200
    assert other.json()["replayed"] is False
    assert (_hp(hero), _hp(second)) == (hp_hero - 1, hp_second - 1)
    again = _send(client, second, key=key, version=second.version, track="hp", delta=-1)
    assert again.json()["replayed"] is True and _hp(second) == hp_second - 1
    assert OfflineChange.objects.filter(user=player, key=key).count() == 2


def test_a_field_the_gm_changed_since_is_a_conflict_not_applied(as_user, player, gm, hero):
    client = as_user(player)
    seen = hero.version  # the sheet as the player's phone last saw it
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=gm)  # the GM's hit, meanwhile
    after_gm = _hp(hero)
    key = str(uuid.uuid4())
    answer = _send(client, hero, key=key, version=seen, track="hp", delta=-1)
    assert answer.status_code == 409
    assert answer.json()["outcome"] == "conflict"
    assert "gm changed HP since you made this change (HP -1)" in answer.json()["message"]
    assert _hp(hero) == after_gm  # not applied blindly
    assert _send(client, hero, key=key, version=seen, track="hp", delta=-1).status_code == 409  # kept: same answer
    # Another field the GM did not touch applies, against the same old version; so does a redo made against now.
    assert _send(client, hero, version=seen, track="fatigue", delta=1).status_code == 200
    assert (
        _send(client, hero, version=Character.objects.get(pk=hero.pk).version, track="hp", delta=-1).status_code == 200
    )
    assert _hp(hero) == after_gm - 1


@pytest.mark.django_db(transaction=True)  # each write commits its own journal entry, as a request's does
def test_a_conflict_says_what_happened_at_the_table_since_the_page_s_journal_cursor(
    as_user, player, gm, hero, campaign
):
    """Issue 37: the device sends the journal cursor its page had seen with the change; the conflict then says
    what happened meanwhile, as the player may know it (the GM's secret roll for Wren stays unsaid)."""
    client = as_user(player)
    seen, cursor = hero.version, journal.head(campaign.pk)
    services.character_roll(character_id=hero.pk, procedure="test", params={}, by=gm, visibility="gm")
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=gm)
    with transaction.atomic():  # as the settings page's view calls it
        campaign_set_hand_dice(campaign_id=campaign.pk, value=Campaign.HandDice.PLAYERS, by=gm)
    key = str(uuid.uuid4())
    answer = _send(client, hero, key=key, version=seen, track="hp", delta=-1, cursor=cursor)
    assert answer.status_code == 409
    version_rule, told = answer.json()["message"].split(" Meanwhile at the table: ")
    assert "gm changed HP since you made this change (HP -1)" in version_rule
    assert told == "Wren's sheet changed, the table's settings changed."
    assert _send(client, hero, key=key, version=seen, track="hp", delta=-1, cursor=cursor).json() == {
        **answer.json(),
        "replayed": True,
    }
    # The GM sees their own changes as no news; without a cursor (an older page) the version's sentence alone.
    plain = _send(client, hero, version=seen, track="hp", delta=-1)
    assert plain.status_code == 409 and "Meanwhile" not in plain.json()["message"]
    # What the player did themself is no news to them either; the version rule still decides.
    services.character_adjust(character_id=hero.pk, key="fatigue", delta=1, by=player)
    mine = _send(client, hero, version=seen, track="fatigue", delta=1, cursor=journal.head(campaign.pk) - 1)
    assert mine.status_code == 200


def test_the_players_own_earlier_changes_are_no_conflict(as_user, player, hero):
    client = as_user(player)
    seen = hero.version
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)  # from their other tab
    assert _send(client, hero, version=seen, track="hp", delta=-1).status_code == 200


def test_notes_kept_offline_and_a_notes_conflict(as_user, player, gm, hero):
    client = as_user(player)
    seen = hero.version
    answer = _send(client, hero, version=seen, kind="notes", notes="Owes Brannoc 3 coins.")
    assert answer.status_code == 200 and Character.objects.get(pk=hero.pk).notes == "Owes Brannoc 3 coins."
    services.character_edit_details(character_id=hero.pk, by=gm, name="Wren", notes="GM's note.")
    clash = _send(client, hero, version=seen + 1, kind="notes", notes="Mine.")
    assert clash.status_code == 409 and Character.objects.get(pk=hero.pk).notes == "GM's note."


def test_a_hand_roll_kept_offline_where_the_table_allows_hand_dice(as_user, player, hero, campaign):
    client = as_user(player)
    campaign.hand_dice = Campaign.HandDice.PLAYERS
    campaign.save(update_fields=["hand_dice"])
    url, fields = roll_form(client, hero, "test", hand="3")
    pairs = [[name, value] for name, values in fields.items() for value in values if name != "csrfmiddlewaretoken"]
    answer = _send(client, hero, kind="roll", procedure="test", fields=pairs, hand="3")
    assert answer.status_code == 200, answer.json()
    roll = Roll.objects.exclude(procedure="creation").get()
    assert roll.by_hand and roll.dice[0]["face"] == 3
    # The table goes back to the server's dice: a hand roll kept meanwhile is refused with a sentence.
    campaign.hand_dice = Campaign.HandDice.SERVER
    campaign.save(update_fields=["hand_dice"])
    refused = _send(
        client,
        hero,
        version=Character.objects.get(pk=hero.pk).version,
        kind="roll",
        procedure="test",
        fields=pairs,
        hand="4",
    )
    assert refused.status_code == 422 and refused.json()["outcome"] == "refused" and refused.json()["message"]
    # Server dice are never kept: the page says they need a connection, and the endpoint says so too.
    no_faces = _send(client, hero, kind="roll", procedure="test", fields=pairs, hand="")
    assert no_faces.status_code == 400 and "need a connection" in no_faces.json()["message"]
    assert Roll.objects.exclude(procedure="creation").count() == 1


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 200), ("other_player", 404), ("stranger", 404)])
def test_who_may_send_a_kept_change(request, as_user, hero, who, status):
    user = request.getfixturevalue(who)
    start = _hp(hero)
    answer = _send(as_user(user), hero, track="hp", delta=-1)
    assert answer.status_code == status
    assert _hp(hero) == start - (1 if status == 200 else 0)


def test_anonymous_and_get_are_turned_away(as_user, hero):
    assert _send(as_user(None), hero, track="hp", delta=-1).status_code == 302  # to the login page
    assert as_user(hero.owner).get(reverse("characters:offline_sync", args=[hero.pk])).status_code == 405


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ("not json", 400, "JSON"),
        ("[1, 2]", 400, "JSON object"),
        ('{"version": 1, "kind": "track", "track": "hp", "delta": -1}', 400, "key"),
        ('{"key": "short", "version": 1, "kind": "track", "track": "hp", "delta": -1}', 400, "key"),
        ('{"key": "abcdefgh-1", "version": "1", "kind": "track", "track": "hp", "delta": -1}', 400, "version"),
        ('{"key": "abcdefgh-1", "version": 1, "kind": "drop", "track": "hp", "delta": -1}', 400, "one of"),
        ('{"key": "abcdefgh-1", "version": 1, "kind": "track", "track": "hp", "delta": 5000}', 400, "between"),
        ('{"key": "abcdefgh-1", "version": 1, "kind": "track", "track": "hp", "delta": true}', 400, "between"),
        ('{"key": "abcdefgh-1", "version": 1, "kind": "notes", "notes": 7}', 400, "Notes"),
        (
            '{"key": "abcdefgh-1", "version": 1, "kind": "roll", "procedure": "fly", "hand": "3", "fields": []}',
            400,
            "roll",
        ),
        ('{"key": "abcdefgh-1", "version": 1, "kind": "track", "track": "wings", "delta": -1}', 422, "no wings"),
        (
            '{"key": "abcdefgh-1", "version": 1, "kind": "track", "track": "hp", "delta": -1, "cursor": "9"}',
            400,
            "cursor",
        ),
        (
            '{"key": "abcdefgh-1", "version": 1, "kind": "track", "track": "hp", "delta": -1, "cursor": -1}',
            400,
            "cursor",
        ),
        ('{"key": "abcdefgh-2", "version": 999, "kind": "track", "track": "hp", "delta": -1}', 422, "never existed"),
    ],
)
def test_bad_input_is_a_4xx_with_a_sentence_and_changes_nothing(as_user, player, hero, body, status, says):
    before = Character.objects.get(pk=hero.pk)
    answer = as_user(player).post(
        reverse("characters:offline_sync", args=[hero.pk]), body, content_type="application/json"
    )
    assert answer.status_code == status
    assert says in answer.json()["message"]
    after = Character.objects.get(pk=hero.pk)
    assert (after.version, after.state) == (before.version, before.state)


def test_the_app_is_installable_and_its_worker_served_from_the_root(as_user, player, hero):
    client = as_user(player)
    manifest = client.get("/manifest.webmanifest")
    assert manifest["Content-Type"] == "application/manifest+json"
    data = manifest.json()
    assert data["start_url"] == reverse("characters:list") and data["display"] == "standalone"
    assert {icon["sizes"] for icon in data["icons"]} >= {"192x192", "512x512"}
    for icon in data["icons"]:
        assert client.get(icon["src"]).status_code == 200
    worker = client.get("/sw.js")
    assert worker["Content-Type"].startswith("text/javascript") and worker["Service-Worker-Allowed"] == "/"
    assert "script-src 'self'" in worker["Content-Security-Policy"]
    assert b'addEventListener("fetch"' in worker.content
    page = client.get(hero.get_absolute_url())
    assert page["X-Lantern-User"] == str(player.pk)  # the worker keeps it in this person's cache
    html = page.content.decode()
    assert 'rel="manifest"' in html and 'name="theme-color"' in html and f'data-user="{player.pk}"' in html
    assert as_user(None).get("/manifest.webmanifest").status_code == 200  # installable before logging in


def test_logout_clears_the_device(as_user, player):
    client = as_user(player)
    answer = client.post(reverse("logout"))
    assert answer["Clear-Site-Data"] == '"cache", "storage"'
    assert "X-Lantern-User" not in client.get(reverse("login"))


def test_the_worker_s_signed_in_cookie_lives_and_ends_with_the_session(player, hero, settings):
    """Issue 35, item 16: the service worker serves kept sheets only from the cache of whoever the
    ``lantern_user`` cookie names (accounts/pwa.py): set with the session's lifetime at login, removed by the
    first answer after the session ended (logged out, or a password changed on another device), never set by an
    API call."""
    from django.test import Client

    from tests.api.conftest import bearer
    from tests.conftest import PASSWORD

    client = Client()
    logged_in = client.post(reverse("login"), {"username": "player", "password": PASSWORD})
    cookie = logged_in.cookies["lantern_user"]
    assert cookie.value == str(player.pk) and cookie["max-age"] == settings.SESSION_COOKIE_AGE
    assert not cookie["httponly"] and cookie["samesite"] == "Lax"
    assert "lantern_user" not in client.get(hero.get_absolute_url()).cookies  # set once, not on every page
    player.set_password("another-lantern-77")  # on another device: this session is no longer valid
    player.save()
    ended = client.get(hero.get_absolute_url())
    assert ended.status_code == 302 and ended.cookies["lantern_user"]["max-age"] == 0
    again = Client()
    again.post(reverse("login"), {"username": "player", "password": "another-lantern-77"})
    assert again.post(reverse("logout")).cookies["lantern_user"]["max-age"] == 0
    assert "lantern_user" not in bearer(player).get("/api/me").cookies
