"""Issue 40, the session chronicle: a scripted evening (tests/campaigns/chronicle_script.py) read by each viewer
class (the owner of Wren, the peer who plays Ash, the GM) equals the expected text; what only the GM saw, a blind
roll's result and another player's private roll never reach a player by any path (page, API, webhook), and a
deliberately flipped filter is caught by that very check."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from accounts.tokens import token_create
from campaigns import commands, session
from campaigns.chronicle import build as chronicle_build
from campaigns.chronicle.build import PUBLIC_READER, Reader
from campaigns.chronicle.read import records
from campaigns.models import Campaign, ChronicleLine, PlaySession
from live import journal
from live.events import SessionEnded, SessionStarted
from rules.errors import Refusal
from tests.api.conftest import ApiClient, bearer
from tests.campaigns.chronicle_script import BLIND, GM_ONLY, PRIVATE, play
from webhooks.models import Delivery, Webhook
from webhooks.services import fan_out

HTMX = {"HTTP_HX_REQUEST": "true"}

SHARED_TOP = """\
- Wren: Attack — critical (A perfect swing.) [critical]"""
SHARED_REST = """\
- Ash: Save — critical (Too good to be true.); voided: wrong die [critical] — VOIDED
- Wren: Search — +1 maximum stamina (A purse in the mud.); Wren gained 10s — REVERTED
- Wren: Save — +1 maximum stamina (Coins in the altar.); Wren gained 5s
- Wren: Level up — +2 maximum stamina (Stronger for it.) [level-up, scar]
- Ash: Take damage — dies (The bandit's blade.) [death]"""
SHARED_TAIL = """\
Fights
- Bandits at the ford: 3 rounds, 0 of 1 foe defeated; ended

Loot gained and spent
- Wren gained Silver idol

Hirelings
- Wren hired Hob

Lights burnt
- Wren's Torch burnt out

Summary
The ford is ours, at a price."""

EXPECTED = {
    "owner": f"""\
Present: Ash (other_player), Wren (player)
Time passed: 1 hour, 1 minute
Rolls: 11

What mattered
{SHARED_TOP}
- Wren: Save — critical (A secret prayer ({PRIVATE}).) [critical] (private)
{SHARED_REST}

Rolled blind
- Wren: Notice — rolled blind; the GM has the result (blind)

{SHARED_TAIL}""",
    "peer": f"""\
Present: Ash (other_player), Wren (player)
Time passed: 1 hour, 1 minute
Rolls: 9

What mattered
{SHARED_TOP}
{SHARED_REST}

{SHARED_TAIL}""",
    "gm": f"""\
Present: Ash (other_player), Wren (player)
Time passed: 1 hour, 1 minute
Rolls: 14

What mattered
{SHARED_TOP}
- Wren: Save — critical (The door is trapped ({GM_ONLY}).) [critical] (GM only)
- Wren: Notice — critical (Wren spots the ambush ({BLIND}).) [critical] (blind)
{SHARED_REST}

{SHARED_TAIL}""",
}


@pytest.fixture
def api_as():
    return bearer


@pytest.fixture
def evening(gm, player, other_player):
    return play(gm, player, other_player)


def readers(gm, player, other_player) -> dict[str, Reader]:
    return {"owner": Reader(player.pk), "peer": Reader(other_player.pk), "gm": Reader(gm.pk, is_gm=True)}


def _body(text: str) -> str:
    """The chronicle without its first two lines (its title and the evening's wall-clock times)."""
    first, span, *rest = text.split("\n")
    assert first == "Session 1 of Barrowmoor" and " UTC to " in span
    return "\n".join(rest)


def test_the_scripted_evening_reads_as_expected_for_each_viewer_class(evening, gm, player, other_player):
    told = records(evening.session)
    for viewer, reader in readers(gm, player, other_player).items():
        assert _body(told.for_reader(reader).text()) == EXPECTED[viewer], viewer


def test_the_public_version_is_the_peers_without_anyone_in_particular(evening, gm, player, other_player):
    told = records(evening.session)
    assert _body(told.for_reader(PUBLIC_READER).text()) == EXPECTED["peer"]


def leaks(texts: dict[str, str], player_id_of: dict[str, str]) -> list[str]:
    """Every (path, secret) where a player's text holds what they may not read: the GM-only roll, a blind roll's
    result, another player's private roll. ``player_id_of``: path -> "owner" / "peer" / "public"."""
    found = []
    for path, text in texts.items():
        who = player_id_of[path]
        forbidden = [GM_ONLY, BLIND] + ([] if who == "owner" else [PRIVATE])
        found += [f"{path}: {secret}" for secret in forbidden if secret in text]
    return found


def every_players_text(evening, client_for, player, other_player, gm) -> tuple[dict[str, str], dict[str, str]]:
    """What each player gets of the chronicle by each path: the page (and its htmx region), the API, the webhook."""
    page = reverse("campaigns:chronicle", args=[evening.campaign.pk, 1])
    api = f"/api/campaigns/{evening.campaign.pk}/sessions/1/chronicle"
    texts, whose = {}, {}
    for who, user in (("owner", player), ("peer", other_player)):
        client = client_for(user)
        texts[f"page {who}"] = client.get(page).content.decode()
        texts[f"region {who}"] = client.get(page, **HTMX).content.decode()
        secret = token_create(user=user, name="t", scope="read", campaign_id=None).secret
        texts[f"api {who}"] = ApiClient(secret).get(api).content.decode()
        whose.update({f"page {who}": who, f"region {who}": who, f"api {who}": who})
    for delivery in Delivery.objects.filter(webhook__campaign=evening.campaign):
        texts[f"webhook {delivery.pk}"] = delivery.body
        whose[f"webhook {delivery.pk}"] = "public"
    return texts, whose


def _hooked(gm, player, other_player):
    """The evening, with the table's webhook (rolls and session chronicles) added before it."""

    def hook(campaign):
        Webhook.objects.create(
            campaign=campaign, owner=gm, name="Table", url="https://example.com/hook", sessions=True, rolls=True
        )

    evening = play(gm, player, other_player, before=hook)
    fan_out(evening.campaign.pk)
    return evening


@pytest.mark.django_db(transaction=True)  # each write its own journal entry, as in production
def test_no_path_shows_a_player_what_only_the_gm_saw(as_user, gm, player, other_player):
    evening = _hooked(gm, player, other_player)
    texts, whose = every_players_text(evening, as_user, player, other_player, gm)
    assert any(key.startswith("webhook") for key in texts)
    assert leaks(texts, whose) == []
    # ...and the check has teeth: each path does carry what its reader may see.
    assert PRIVATE in texts["page owner"] and PRIVATE in texts["api owner"]
    assert "Rolled blind" in texts["page owner"] and "A perfect swing." in texts["page peer"]
    gm_page = as_user(gm).get(reverse("campaigns:chronicle", args=[evening.campaign.pk, 1])).content.decode()
    assert GM_ONLY in gm_page and BLIND in gm_page and PRIVATE not in gm_page


@pytest.mark.django_db(transaction=True)  # each write its own journal entry, as in production
def test_a_flipped_visibility_filter_is_caught_on_every_path(as_user, gm, player, other_player, monkeypatch):
    """The mutation: the filter that keeps GM-only results from players is flipped; the leak check above fails on
    the page, the API and the webhook alike."""
    monkeypatch.setattr(chronicle_build, "roll_view", lambda roll, reader: "full")
    evening = _hooked(gm, player, other_player)
    texts, whose = every_players_text(evening, as_user, player, other_player, gm)
    found = leaks(texts, whose)
    for path in ("page peer", "region peer", "api peer", "page owner", "api owner"):
        assert f"{path}: {GM_ONLY}" in found
    assert any(each.startswith("webhook") and GM_ONLY in each for each in found)


@pytest.mark.django_db(transaction=True)  # each write its own journal entry, as in production
def test_the_webhook_gets_the_public_chronicle_when_the_session_ends(gm, player, other_player):
    evening = _hooked(gm, player, other_player)
    chronicles = [
        item["chronicle"]
        for delivery in Delivery.objects.filter(webhook__campaign=evening.campaign)
        for item in json.loads(delivery.body)["items"]
        if item["kind"] == "chronicle"
    ]
    assert len(chronicles) == 1
    assert chronicles[0]["text"] == records(evening.session).for_reader(PUBLIC_READER).text()


def test_a_discord_webhook_gets_the_chronicle_as_one_embed():
    from webhooks.payloads import discord

    hook = Webhook(name="x", url="https://discord.com/api/webhooks/1/x", campaign=Campaign(name="Barrowmoor"))
    item = {"kind": "chronicle", "chronicle": {"number": 1, "title": "Session 1", "text": "**Wren** @everyone"}}
    embeds = discord(hook, [item])["embeds"]
    assert embeds == [{"title": "Session 1", "description": "\\*\\*Wren\\*\\* \\@everyone"}]


# --- starting and ending ------------------------------------------------------------------------------------------


def test_one_session_at_a_time_and_the_journal_says_when(gm, player, other_player, campaign):
    assert session.current_session(campaign) is None
    before = journal.head(campaign.pk)
    started = commands.start_session(gm, campaign.pk)
    assert session.current_session(campaign) == started and started.number == 1
    assert started.start_cursor == before
    with pytest.raises(Refusal, match="Session 1 is still going"):
        commands.start_session(gm, campaign.pk)
    ended = commands.end_session(gm, campaign.pk, summary="Short.")
    assert session.current_session(campaign.pk) is None and ended.summary == "Short."
    events = [e for entry in journal.entries_after(campaign.pk, before) for e in entry.events]
    assert events == [SessionStarted(session=1), SessionEnded(session=1)]
    assert ended.end_cursor == journal.head(campaign.pk)
    with pytest.raises(Refusal, match="No session is going"):
        commands.end_session(gm, campaign.pk)
    assert commands.start_session(gm, campaign.pk).number == 2


def test_players_neither_start_nor_end_a_session(as_user, gm, player, stranger, campaign):
    for user, status in ((player, 404), (stranger, 404)):
        client = as_user(user)
        assert client.post(reverse("campaigns:session_start", args=[campaign.pk])).status_code == status
        assert client.post(reverse("campaigns:session_end", args=[campaign.pk])).status_code == status
    assert not PlaySession.objects.exists()
    with pytest.raises(commands.NotTheGm):
        commands.start_session(player, campaign.pk)
    with pytest.raises(commands.NotHere):
        commands.start_session(stranger, campaign.pk)
    commands.start_session(gm, campaign.pk)
    with pytest.raises(commands.NotTheGm):
        commands.end_session(player, campaign.pk)
    assert session.current_session(campaign) is not None


def test_the_gm_starts_and_ends_from_the_table_page(as_user, gm, player, campaign):
    client = as_user(gm)
    page = client.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()
    assert "data-session-start" in page
    assert "data-session-start" not in as_user(player).get(campaign.get_absolute_url()).content.decode()
    answer = client.post(reverse("campaigns:session_start", args=[campaign.pk]), **HTMX)
    assert answer.status_code == 200 and 'data-session-going="1"' in answer.content.decode()
    answer = client.post(reverse("campaigns:session_end", args=[campaign.pk]), {"summary": "We met."}, **HTMX)
    body = answer.content.decode()
    assert "data-session-start" in body and 'data-chronicle-link="1"' in body
    assert PlaySession.objects.get().summary == "We met."
    # Without htmx: back to the table page.
    assert client.post(reverse("campaigns:session_start", args=[campaign.pk])).status_code == 302
    # A summary too long is a sentence, not a 500, and nothing is saved.
    answer = client.post(reverse("campaigns:session_end", args=[campaign.pk]), {"summary": "x" * 5001}, **HTMX)
    assert answer.status_code == 422 and "5000" in answer.content.decode()
    assert session.current_session(campaign) is not None


def test_strangers_see_no_session_anywhere(as_user, api_as, gm, stranger, campaign):
    commands.start_session(gm, campaign.pk)
    commands.end_session(gm, campaign.pk, summary="Secret plans.")
    line = reverse("campaigns:chronicle_line_add", args=[campaign.pk, 1])
    client = as_user(stranger)
    for url in (
        reverse("campaigns:chronicle", args=[campaign.pk, 1]),
        reverse("campaigns:sessions", args=[campaign.pk]),
        reverse("campaigns:sessions_region", args=[campaign.pk]),
    ):
        assert client.get(url).status_code == 404
    assert client.post(line, {"entry": "summary", "text": "hi"}).status_code == 404
    assert client.post(reverse("campaigns:chronicle_summary", args=[campaign.pk, 1]), {"text": "x"}).status_code == 404
    api = api_as(stranger, "read")
    assert api.get(f"/api/campaigns/{campaign.pk}/sessions").status_code == 404
    assert api.get(f"/api/campaigns/{campaign.pk}/sessions/1/chronicle").status_code == 404
    assert as_user(None).get(reverse("campaigns:chronicle", args=[campaign.pk, 1])).status_code in (302, 404)
    assert not ChronicleLine.objects.exists()


def test_the_api_lists_sessions_and_the_gm_starts_and_ends_them(api_as, gm, player, campaign):
    table = api_as(gm, "table", campaign)
    assert table.post(f"/api/campaigns/{campaign.pk}/sessions/start").json()["number"] == 1
    ended = table.send(f"/api/campaigns/{campaign.pk}/sessions/end", {"summary": "Done."})
    assert ended.status_code == 200 and ended.json()["under_way"] is False
    listed = api_as(player, "read").get(f"/api/campaigns/{campaign.pk}/sessions").json()
    assert [row["number"] for row in listed] == [1]
    answer = api_as(player, "read").get(f"/api/campaigns/{campaign.pk}/sessions/1/chronicle")
    assert answer.status_code == 200 and answer.json()["summary"] == "Done."
    assert api_as(player, "play").post(f"/api/campaigns/{campaign.pk}/sessions/start").status_code == 403
    assert api_as(gm, "table", campaign).get(f"/api/campaigns/{campaign.pk}/sessions/9/chronicle").status_code == 404


# --- players' lines -------------------------------------------------------------------------------------------


def test_a_player_adds_edits_and_removes_their_own_line(as_user, evening, gm, player, other_player):
    url = reverse("campaigns:chronicle", args=[evening.campaign.pk, 1])
    owner = as_user(player)
    page = owner.get(url).content.decode()
    key = f"roll-{evening.rolls['crit']}"
    assert f'data-entry="{key}"' in page and 'name="entry"' in page
    answer = owner.post(
        reverse("campaigns:chronicle_line_add", args=[evening.campaign.pk, 1]),
        {"entry": key, "text": "Right through the visor!"},
        **HTMX,
    )
    assert answer.status_code == 200 and "Right through the visor!" in answer.content.decode()
    line = ChronicleLine.objects.get()
    assert '> player: "Right through the visor!"' in records(evening.session).for_reader(Reader(gm.pk, True)).text()
    # Ash's player reads it on the entry, but neither changes nor removes it.
    peer = as_user(other_player)
    assert "Right through the visor!" in peer.get(url).content.decode()
    edit = reverse("campaigns:chronicle_line_edit", args=[evening.campaign.pk, 1, line.pk])
    remove = reverse("campaigns:chronicle_line_remove", args=[evening.campaign.pk, 1, line.pk])
    assert "not yours" in peer.post(edit, {"text": "Mine now"}, **HTMX).content.decode()
    assert "not yours" in peer.post(remove, **HTMX).content.decode()
    assert ChronicleLine.objects.get().text == "Right through the visor!"
    # Its author edits it, then removes it (without htmx: back to the chronicle).
    assert owner.post(edit, {"text": "Through the visor."}).status_code == 302
    assert ChronicleLine.objects.get().text == "Through the visor."
    assert owner.post(remove).status_code == 302
    assert not ChronicleLine.objects.exists()


def test_a_line_goes_only_where_its_entry_is_seen(as_user, evening, gm, player, other_player):
    add = reverse("campaigns:chronicle_line_add", args=[evening.campaign.pk, 1])
    # The owner's line on their private roll: the peer never reads it.
    private = f"roll-{evening.rolls['private']}"
    assert as_user(player).post(add, {"entry": private, "text": "Only I know."}, **HTMX).status_code == 200
    assert (
        "Only I know."
        not in as_user(other_player).get(reverse("campaigns:chronicle", args=[evening.campaign.pk, 1])).content.decode()
    )
    # A player cannot attach a line to the GM-only roll (or anything they do not see), nor send a malformed key.
    for entry in (f"roll-{evening.rolls['gm']}", private, "roll-x", ""):
        answer = as_user(other_player).post(add, {"entry": entry, "text": "Sneaky"}, **HTMX)
        assert answer.status_code == 200 and 'role="alert"' in answer.content.decode()
    assert ChronicleLine.objects.count() == 1
    # Without htmx a refusal is the page again with the sentence, status 400.
    answer = as_user(other_player).post(add, {"entry": "summary", "text": ""})
    assert answer.status_code == 400


# --- the pages ----------------------------------------------------------------------------------------------------


def test_the_chronicle_page_costs_the_same_queries_however_long_the_evening(
    as_user, evening, gm, player, django_assert_max_num_queries
):
    url = reverse("campaigns:chronicle", args=[evening.campaign.pk, 1])
    for user in (gm, player):
        client = as_user(user)
        client.get(url)
        with django_assert_max_num_queries(12):
            assert client.get(url).status_code == 200


def test_the_sessions_page_and_the_summary_edit(as_user, evening, gm, player, django_assert_max_num_queries):
    client = as_user(player)
    with django_assert_max_num_queries(6):
        page = client.get(reverse("campaigns:sessions", args=[evening.campaign.pk])).content.decode()
    assert 'data-chronicle-link="1"' in page
    summary = reverse("campaigns:chronicle_summary", args=[evening.campaign.pk, 1])
    assert client.post(summary, {"text": "Hijacked"}).status_code == 404
    answer = as_user(gm).post(summary, {"text": "The ford, and Ash's end."}, **HTMX)
    assert answer.status_code == 200 and "Ash&#x27;s end." in answer.content.decode()
    assert PlaySession.objects.get().summary == "The ford, and Ash's end."


def test_only_the_tables_webhooks_offer_session_chronicles(as_user, gm, player, hero, campaign):
    table = as_user(gm).get(reverse("webhooks:campaign", args=[campaign.pk])).content.decode()
    own = as_user(player).get(reverse("webhooks:character", args=[hero.pk])).content.decode()
    assert 'name="sessions"' in table and 'name="sessions"' not in own


def test_a_short_session_and_a_long_one_cost_the_chronicle_page_the_same_queries(
    as_user, evening, gm, player, other_player
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    commands.start_session(gm, evening.campaign.pk)
    commands.end_session(gm, evening.campaign.pk)
    counts = {}
    for number in (1, 2):
        client = as_user(player)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(reverse("campaigns:chronicle", args=[evening.campaign.pk, number])).status_code == 200
        counts[number] = len(queries)
    # The same reads (an evening with no sheet change skips looking for reverts of none): 10 for the evening.
    assert counts[1] - counts[2] in (0, 1) and counts[1] <= 10, counts


def test_a_session_started_or_ended_is_pushed_to_every_open_table_page(gm, player, campaign):
    from campaigns import push
    from live import events as ev

    pages = [(gm.pk, "table"), (player.pk, "table")]
    commands.start_session(gm, campaign.pk)
    out = push.render_push(campaign.pk, [ev.SessionStarted(session=1)], pages)
    assert 'data-session-going="1"' in out[(player.pk, "table")] and "data-session-end" in out[(gm.pk, "table")]
    assert "data-session-end" not in out[(player.pk, "table")]
    commands.end_session(gm, campaign.pk, summary="Done.")
    out = push.render_push(campaign.pk, [ev.SessionEnded(session=1)], pages)
    assert all('data-chronicle-link="1"' in html and 'hx-swap-oob="outerHTML"' in html for html in out.values())
