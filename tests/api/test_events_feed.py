"""The table's journal through the API (issue 37): ``GET /api/campaigns/<id>/events?after=<cursor>`` gives each
token's owner exactly the events the pages would push them, every entry once across pages, and says plainly when
a cursor is too old (410), unknown (422) or not theirs to follow (404)."""

from __future__ import annotations

import pytest
from django.test import Client
from openapi_schema_validator import OAS31Validator

from api.journal import MAX_LIMIT
from campaigns import services as campaign_services
from campaigns import session
from characters import services
from live import journal
from live.events import ClockMoved, NotesChanged, gm_only
from tests.api.conftest import bearer

# Each write commits, as a request's does: one write, one entry (inside one test transaction every write would
# join the first one's entry, and PostgreSQL's announcement refuses to run inside a transaction).
pytestmark = pytest.mark.django_db(transaction=True)


def feed(client, campaign, **query):
    return client.get(f"/api/campaigns/{campaign.pk}/events", query)


def kinds_and_ids(body):
    """(kind, roll) of every event the answer shows, in order."""
    return [(event["kind"], event.get("roll")) for entry in body["entries"] for event in entry["events"]]


def roll_by_api(user, character, visibility="public"):
    body = bearer(user).send(
        f"/api/characters/{character.pk}/rolls/test", {"params": {"ability": "BOD"}, "visibility": visibility}
    )
    assert body.status_code == 200, body.content
    return body.json()["roll"]["id"]


@pytest.fixture
def rolled(campaign, gm, player, other_player, hero):
    """A public roll, a GM-only roll and a blind request's roll, all the player's, after the cursor ``start``."""
    start = journal.head(campaign.pk)
    public = roll_by_api(player, hero)
    secret = roll_by_api(player, hero, "gm")
    asked = session.request_create(
        campaign_id=campaign.pk, procedure="test", fixed={}, character_ids=[hero.pk], minutes=5, by=gm, blind=True
    ).row
    answered = bearer(player).send(f"/api/characters/{hero.pk}/requests/{asked.pk}/answer", {})
    blind = answered.json()["roll"]["id"]
    return {"start": start, "public": public, "gm": secret, "blind": blind}


def test_a_peer_never_sees_a_gm_only_or_a_blind_roll_of_another_player(campaign, other_player, rolled):
    body = feed(bearer(other_player), campaign, after=rolled["start"]).json()
    shown = kinds_and_ids(body)
    assert ("roll.made", rolled["public"]) in shown
    assert not {rolled["gm"], rolled["blind"]} & {roll for _, roll in shown}
    # The entries it left out are still read past: the next call starts after all of them.
    assert body["cursor"] == body["head"] == journal.head(campaign.pk) and body["more"] is False
    for entry in body["entries"]:
        assert all(event["visibility"] == "public" for event in entry["events"])
        assert entry["write"] != "roll.made" or any(event["kind"] == "roll.made" for event in entry["events"])


def test_the_roller_sees_their_gm_only_and_blind_rolls_happen_and_never_their_result(campaign, player, rolled):
    body = feed(bearer(player), campaign, after=rolled["start"]).json()
    shown = kinds_and_ids(body)
    assert {("roll.made", rolled["public"]), ("roll.made", rolled["gm"]), ("roll.made", rolled["blind"])} <= set(shown)
    [blind] = [e for entry in body["entries"] for e in entry["events"] if e.get("roll") == rolled["blind"]]
    assert blind == {
        "kind": "roll.made",
        "roll": rolled["blind"],
        "character": blind["character"],
        "visibility": "blind",
    }
    assert "seen" not in str(body) and "outcome" not in str(body)  # ids and a visibility word, never the internals


def test_the_gm_sees_every_roll_through_any_of_their_tokens(campaign, gm, rolled):
    for client in (bearer(gm, "table", campaign), bearer(gm, "read")):
        shown = {roll for _, roll in kinds_and_ids(feed(client, campaign, after=rolled["start"]).json())}
        assert {rolled["public"], rolled["gm"], rolled["blind"]} <= shown


def test_a_private_event_reaches_only_those_it_names_and_a_gm_only_one_the_gm(campaign, gm, player, other_player):
    start = journal.head(campaign.pk)
    journal.record(campaign.pk, NotesChanged(seen=gm_only()), by=gm)
    journal.record(campaign.pk, ClockMoved(seen=gm_only(player.pk)), by=gm)
    seen = {
        who.username: [
            e["kind"] for entry in feed(bearer(who), campaign, after=start).json()["entries"] for e in entry["events"]
        ]
        for who in (gm, player, other_player)
    }
    assert seen == {
        gm.username: ["notes.changed", "clock.moved"],
        player.username: ["clock.moved"],
        other_player.username: [],
    }


def test_paging_after_the_cursor_gives_every_visible_entry_once_while_writes_go_on(
    campaign, gm, player, other_player, hero, rival
):
    client = bearer(other_player)
    start = journal.head(campaign.pk)
    cursor, got, pages = start, [], 0
    for round_ in range(6):
        roll_by_api(player, hero)  # public: seen
        roll_by_api(player, hero, "gm")  # the GM's and its roller's
        roll_by_api(other_player, rival, "private")  # the reader's own
        journal.record(campaign.pk, NotesChanged(seen=gm_only()), by=gm)  # nothing the reader may see
        if round_ % 2:
            continue  # writes pile up between reads
        while True:
            body = feed(client, campaign, after=cursor, limit=4).json()
            pages += 1
            got += [entry["cursor"] for entry in body["entries"]]
            assert body["cursor"] >= cursor and len(body["entries"]) <= 4
            cursor = body["cursor"]
            if not body["more"]:
                break
    body = feed(client, campaign, after=cursor, limit=4).json()
    got += [entry["cursor"] for entry in body["entries"]]
    expected = [
        entry.cursor
        for entry in journal.entries_after(campaign.pk, start, limit=10_000)
        if any(event.seen.lets(other_player.pk, is_gm=False) for event in entry.events)
    ]
    assert got == expected and len(set(got)) == len(got) and pages > 3  # the limit cut some reads
    assert body["cursor"] == journal.head(campaign.pk)


def test_without_a_cursor_the_feed_starts_at_the_head(campaign, player, hero):
    roll_by_api(player, hero)
    body = feed(bearer(player), campaign).json()
    assert body == {
        "entries": [],
        "cursor": journal.head(campaign.pk),
        "head": journal.head(campaign.pk),
        "more": False,
    }


def test_a_removed_member_and_an_outsider_get_a_404(campaign, gm, player, stranger):
    client = bearer(player)
    assert feed(client, campaign, after=0).status_code == 200
    campaign_services.campaign_remove_player(campaign=campaign, user_id=player.pk)
    gone = feed(client, campaign, after=0)
    assert gone.status_code == 404 and gone.json() == {"detail": "No campaign here."}
    assert feed(bearer(stranger), campaign, after=0).status_code == 404
    # A table token reaches its own table only.
    other = bearer(gm, "table", campaign_services.campaign_create(name="Elsewhere", system="fell-draft", gm=gm))
    assert feed(other, campaign, after=0).status_code == 403


def test_a_cursor_older_than_the_journal_keeps_is_a_410_with_the_head(campaign, player, hero):
    start = journal.head(campaign.pk)
    for _ in range(5):
        roll_by_api(player, hero)
    assert journal.prune(keep_days=0, keep_last=2) > 0
    head = journal.head(campaign.pk)
    answer = feed(bearer(player), campaign, after=start)
    assert answer.status_code == 410
    assert answer.json()["head"] == head and f"after={head}" in answer.json()["detail"]
    # The oldest kept cursor's predecessor still reads on, without a gap.
    kept = journal.oldest(campaign.pk)
    assert kept is not None and feed(bearer(player), campaign, after=kept - 1).status_code == 200
    assert feed(bearer(player), campaign, after=head).json()["entries"] == []


@pytest.mark.parametrize(
    ("query", "detail"),
    [
        ({"limit": 0}, "limit: Input should be greater than or equal to 1."),
        ({"limit": MAX_LIMIT + 1}, f"limit: Input should be less than or equal to {MAX_LIMIT}."),
        ({"after": "yesterday"}, "after: Input should be a valid integer, unable to parse string as an integer."),
        ({"after": -1}, "after: Input should be greater than or equal to 0."),
    ],
)
def test_a_bad_limit_or_cursor_is_refused_with_a_sentence(campaign, player, query, detail):
    answer = feed(bearer(player), campaign, **query)
    assert answer.status_code == 422 and answer.json() == {"detail": detail}


def test_a_cursor_past_the_head_is_refused(campaign, player):
    head = journal.head(campaign.pk)
    answer = feed(bearer(player), campaign, after=head + 5)
    assert answer.status_code == 422 and str(head) in answer.json()["detail"]


def test_the_limit_bounds_the_entries_read(campaign, player, hero):
    start = journal.head(campaign.pk)
    for _ in range(3):
        roll_by_api(player, hero)
    body = feed(bearer(player), campaign, after=start, limit=1).json()
    assert len(body["entries"]) == 1 and body["more"] is True and body["cursor"] == start + 1
    body = feed(bearer(player), campaign, after=start, limit=MAX_LIMIT).json()
    assert len(body["entries"]) == 3 and body["more"] is False


def test_the_answers_validate_against_the_published_schema(campaign, gm, player, hero, rolled):
    schema = Client().get("/api/openapi.json").json()
    operation = schema["paths"]["/api/campaigns/{campaign_id}/events"]["get"]

    def check(response):
        described = operation["responses"][str(response.status_code)]["content"]["application/json"]["schema"]
        OAS31Validator({**described, "components": schema["components"]}).validate(response.json())

    check(feed(bearer(player), campaign, after=rolled["start"]))
    check(feed(bearer(gm, "table", campaign), campaign, after=0))
    check(feed(bearer(player), campaign, limit=0))
    check(feed(bearer(player), campaign, after=10**9))
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    journal.prune(keep_days=0, keep_last=1)
    check(feed(bearer(player), campaign, after=0))


def test_the_guide_names_every_kind_of_event():
    from pathlib import Path

    from live.events import KINDS

    guide = (Path(__file__).resolve().parents[2] / "docs" / "api.md").read_text()
    assert [kind for kind in KINDS if f"`{kind}`" not in guide] == []


def test_a_page_of_the_feed_takes_the_same_queries_however_many_entries_it_holds(campaign, gm, player, hero):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    client, start = bearer(player), journal.head(campaign.pk)
    for _ in range(2):
        journal.record(campaign.pk, ClockMoved(), by=gm)
    feed(client, campaign, after=start)  # the token's first call of the minute writes its row (count_call)
    with CaptureQueriesContext(connection) as few:
        assert len(feed(client, campaign, after=start).json()["entries"]) == 2
    for _ in range(40):
        journal.record(campaign.pk, ClockMoved(), NotesChanged(seen=gm_only()), by=gm)
    with CaptureQueriesContext(connection) as many:
        assert len(feed(client, campaign, after=start).json()["entries"]) == 42
    assert len(many) == len(few) <= 8
