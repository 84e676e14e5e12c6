"""Issue 37: the journal (live.journal). A write and its entry commit or roll back together; one write, one entry;
each campaign's cursors are gapless and never visible out of order; pruning keeps what readers may still need;
and an entry reaches only those who may see it (live.events.Seen), a GM-only or blind roll never a player's page.

Real transactions (``transaction=True``) where a commit or a rollback is the point.
"""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.utils import timezone

from campaigns import push
from characters import services
from characters.services import writes
from live import journal, relay
from live.events import ClockMoved, LightChanged, RollMade, Seen, SheetChanged, gm_only
from live.models import Entry, Head
from rules import RulesError
from tests.conftest import make_character
from tests.races import postgresql_only, together
from tests.recorded import commit_pending


class _Undo(Exception):
    pass


@pytest.fixture
def announced(monkeypatch):
    """The signals the relay is handed, each with whether a transaction was open then (it must never be)."""
    heard: list[tuple[dict, bool]] = []
    monkeypatch.setattr(relay, "announce", lambda signal: heard.append((signal, connection.in_atomic_block)))
    return heard


# --- a write and its entry ------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_refused_write_leaves_no_entry_and_no_head_bump(player, campaign, announced, monkeypatch):
    hero = make_character(player, campaign)
    top, count = journal.head(campaign.pk), Entry.objects.count()
    announced.clear()

    def refuse(*records, **kwargs):  # after the write recorded its sheet.changed, inside the service
        raise RulesError("refused after recording")

    monkeypatch.setattr(writes.table, "sheet_written", refuse)
    with pytest.raises(RulesError, match="refused after recording"):
        services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    assert journal.head(campaign.pk) == top and Entry.objects.count() == count and announced == []
    monkeypatch.undo()
    monkeypatch.setattr(relay, "announce", lambda signal: announced.append((signal, connection.in_atomic_block)))
    services.character_adjust(character_id=hero.pk, key="hp", delta=-1, by=player)
    assert journal.head(campaign.pk) == top + 1  # the refused write took no cursor: none is skipped
    assert announced == [({"campaign": campaign.pk, "cursor": top + 1}, False)]


@pytest.mark.django_db(transaction=True)
def test_a_savepoint_rolled_back_takes_its_events_with_it(announced):
    with transaction.atomic():
        journal.record(7, ClockMoved())
        with pytest.raises(_Undo), transaction.atomic():
            journal.record(7, RollMade(roll=1))
            raise _Undo
        journal.record(7, LightChanged())
    (entry,) = journal.entries_after(7, 0)
    assert entry.events == (ClockMoved(), LightChanged())
    assert announced == [({"campaign": 7, "cursor": 1}, False)]


@pytest.mark.django_db(transaction=True)
def test_an_entry_made_in_a_savepoint_rolled_back_is_gone_and_its_cursor_reused(announced):
    with transaction.atomic():
        with pytest.raises(_Undo), transaction.atomic():
            journal.record(7, RollMade(roll=1))
            raise _Undo
        journal.record(7, LightChanged())
    assert [(entry.cursor, entry.events) for entry in journal.entries_after(7, 0)] == [(1, (LightChanged(),))]
    assert journal.head(7) == 1 and announced == [({"campaign": 7, "cursor": 1}, False)]


@pytest.mark.django_db(transaction=True)
def test_a_roll_that_changes_the_sheet_is_one_entry_with_both_events(gm, player, campaign, announced):
    hero = make_character(player, campaign)
    top = journal.head(campaign.pk)
    announced.clear()
    written = services.character_roll(
        character_id=hero.pk, procedure="npc_attack", params={}, by=gm, rng=random.Random(3)
    )
    (entry,) = journal.entries_after(campaign.pk, top)
    kinds = [event.kind for event in entry.events]
    assert RollMade(roll=written.row.pk, character=hero.pk) in entry.events
    if written.change is not None:  # it hit: the sheet moved in the same write, the same entry
        assert "sheet.changed" in kinds
    assert kinds.count("roll.made") == 1 and entry.by_id == gm.pk and entry.cursor == top + 1
    assert [signal for signal, _ in announced] == [{"campaign": campaign.pk, "cursor": top + 1}]


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_a_record_is_its_own_entry(announced):
    assert journal.record(9, ClockMoved()) == 1
    assert journal.record(9, ClockMoved()) == 2
    assert journal.record(None, ClockMoved()) is None and journal.record(9) is None
    assert [signal for signal, _ in announced] == [{"campaign": 9, "cursor": 1}, {"campaign": 9, "cursor": 2}]


@postgresql_only
@pytest.mark.django_db(transaction=True)
def test_cursors_are_gapless_and_never_visible_out_of_commit_order_under_concurrent_writers(announced):
    """Writers of two campaigns at once; a reader polling meanwhile never sees a cursor before a smaller one."""
    writers, each = 8, 5
    seen_gaps: list[list[int]] = []

    def write(n: int):
        def run():
            for i in range(each):
                with transaction.atomic():
                    journal.record(1, RollMade(roll=n * 100 + i))
                    journal.record(2, ClockMoved())
                    journal.record(1, LightChanged())

        return run

    def read():
        for _ in range(100_000):  # a bound on the polling, never a clock
            cursors = [entry.cursor for entry in journal.entries_after(1, 0, limit=1000)]
            if cursors != list(range(1, len(cursors) + 1)):
                seen_gaps.append(cursors)
            if len(cursors) == writers * each:
                return

    errors = together(read, *(write(n) for n in range(writers)))
    assert errors == [] and seen_gaps == []
    for campaign_id in (1, 2):
        entries = journal.entries_after(campaign_id, 0, limit=1000)
        assert [entry.cursor for entry in entries] == list(range(1, writers * each + 1))
        assert journal.head(campaign_id) == writers * each
    rolls = sorted(event.roll for entry in journal.entries_after(1, 0, limit=1000) for event in entry.events[:1])
    assert rolls == sorted(n * 100 + i for n in range(writers) for i in range(each))  # one entry per write
    assert all(len(entry.events) == 2 for entry in journal.entries_after(1, 0, limit=1000))
    assert all(not in_transaction for _, in_transaction in announced)


# --- pruning --------------------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_prune_keeps_each_campaigns_last_entries_and_everything_recent(settings):
    settings.LIVE_JOURNAL_KEEP_DAYS, settings.LIVE_JOURNAL_KEEP_LAST = 30, 3
    _record_apart(1, 10, days=40)  # old: all but the last 3 go
    _record_apart(2, 2, days=40)  # old, but fewer than 3: kept
    _record_apart(3, 10, days=1)  # recent: kept
    assert journal.prune() == 7
    assert [e.cursor for e in journal.entries_after(1, 0)] == [8, 9, 10] and journal.oldest(1) == 8
    assert len(journal.entries_after(2, 0)) == 2 and len(journal.entries_after(3, 0)) == 10
    assert journal.heads([1, 2, 3, 4]) == {1: 10, 2: 2, 3: 10, 4: 0}  # cursors keep counting up
    assert journal.prune(keep_days=0, keep_last=0) == 15 and journal.oldest(1) is None
    journal.record(1, ClockMoved())
    assert [e.cursor for e in journal.entries_after(1, 0)] == [11]


def _record_apart(campaign_id: int, count: int, *, days: int) -> None:
    """``count`` writes, each its own committed entry, all written ``days`` ago."""
    for _ in range(count):
        journal.record(campaign_id, ClockMoved())  # outside a transaction: its own entry
    Entry.objects.filter(campaign_id=campaign_id).update(at=timezone.now() - timedelta(days=days))


@pytest.mark.django_db(transaction=True)
def test_the_prune_journal_command_says_how_many_went(capsys, settings):
    settings.LIVE_JOURNAL_KEEP_DAYS, settings.LIVE_JOURNAL_KEEP_LAST = 30, 1000
    _record_apart(1, 4, days=10)
    call_command("prune_journal")
    assert capsys.readouterr().out == "Pruned 0 journal entries.\n"
    call_command("prune_journal", "--keep-days", "5", "--keep-last", "1")
    assert capsys.readouterr().out == "Pruned 3 journal entries.\n"
    assert [e.cursor for e in journal.entries_after(1, 0)] == [4] and Head.objects.get(campaign_id=1).cursor == 4
    with pytest.raises(SystemExit):
        call_command("prune_journal", "--keep-days", "-1")


# --- who sees an entry ----------------------------------------------------------------------------------------

GM, ROLLER, PEER, STRANGER = 1, 2, 3, 4


@pytest.mark.parametrize(
    ("seen", "expected"),
    [
        (Seen(), {GM: True, ROLLER: True, PEER: True, STRANGER: True}),  # the hub serves members only
        (gm_only(ROLLER), {GM: True, ROLLER: True, PEER: False, STRANGER: False}),
        (gm_only(), {GM: True, ROLLER: False, PEER: False, STRANGER: False}),
        (Seen("private", (ROLLER,)), {GM: False, ROLLER: True, PEER: False, STRANGER: False}),
        (Seen("blind", (ROLLER,)), {GM: True, ROLLER: True, PEER: False, STRANGER: False}),
    ],
)
def test_who_may_know_an_event_happened(seen, expected):
    assert {user: seen.lets(user, is_gm=user == GM) for user in expected} == expected
    assert seen.lets(None, is_gm=False) == (seen.who == "public")  # nobody signed in: public only
    assert Seen.from_json(seen.to_json()) == seen


@pytest.mark.django_db
@pytest.mark.parametrize("visibility", ["gm", "blind", "private"])
def test_a_hidden_rolls_entry_never_reaches_a_peers_page(visibility, campaign, gm, player, other_player, hero):
    """Real rolls through the service: a player's GM-only or private roll, the GM's blind one (only the GM rolls
    blind). Players beside the roller get nothing of its entry, on their sheets or their table pages."""
    roller = gm if visibility == "blind" else player
    commit_pending()  # the fixtures' writes have committed: the roll's entry is its own
    since = journal.head(campaign.pk)
    written = services.character_roll(
        character_id=hero.pk, procedure="test", params={}, by=roller, visibility=visibility, rng=random.Random(3)
    )
    roll = written.row
    assert roll.visibility == visibility
    (entry,) = journal.entries_after(campaign.pk, since)
    (made,) = [event for event in entry.events if isinstance(event, RollMade)]
    assert made.seen.who == visibility and made.seen.to == (roller.pk,)
    sheet = f"sheet-{hero.pk}"
    peers = [user for user in (player, other_player) if user != roller]
    peer_pages = [(user.pk, page) for user in peers for page in (sheet, "table")]
    assert push.render_push(campaign.pk, entry.events, peer_pages) == {}
    assert not any(made.seen.lets(user.pk, is_gm=False) for user in peers)
    mine = push.render_push(campaign.pk, entry.events, [(roller.pk, sheet)])
    assert f'id="roll-{roll.pk}"' in mine[(roller.pk, sheet)]
    if roller != gm:
        theirs = push.render_push(campaign.pk, entry.events, [(gm.pk, "table")])
        assert (f'id="roll-{roll.pk}"' in theirs.get((gm.pk, "table"), "")) == (visibility == "gm")


@pytest.mark.django_db
def test_a_peer_still_gets_the_public_part_of_an_entry(campaign, gm, player, other_player, hero):
    """An entry with a hidden roll and a public sheet change: the peer's page gets the sheet, not the roll."""
    hidden = RollMade(roll=10_000, character=hero.pk, seen=gm_only(player.pk))
    public = SheetChanged(character=hero.pk, regions=("vitals",))
    out = push.render_push(campaign.pk, (hidden, public), [(other_player.pk, f"sheet-{hero.pk}")])
    html = out[(other_player.pk, f"sheet-{hero.pk}")]
    assert 'id="vitals"' in html and "roll-10000" not in html
