"""What writes recorded in the journal (live.journal): the contract a write keeps with every reader of the table.

A test marks the campaign's head before the write (``Since(campaign_id)``: what was written before has committed)
and reads the entries after it: their
events, their kinds, or the topics they name for the table's pages (``topics``, in the vocabulary the old untyped
signals used, so a test says what a page would redraw).
"""

from __future__ import annotations

from unittest import mock

from django.db import DEFAULT_DB_ALIAS, connections

from campaigns.announce import SHEET_FIGHT
from live import events as ev
from live import journal, relay


def commit_pending(using: str = DEFAULT_DB_ALIAS) -> None:
    """Run what the writes so far left for their commit, as if they had committed (a test's own transaction never
    does): the journal then closes their entry, and the next write starts a new one, as it would in production.

    The callbacks are taken off the connection's list first, so nothing runs twice; those they leave (a commit's
    own follow-up write) run too. Outside a transaction (``transaction=True`` tests) nothing is pending."""
    connection = connections[using]
    # Nobody listens to a test that never commits, and on PostgreSQL the relay refuses to run inside a transaction.
    with mock.patch.object(relay, "announce", lambda signal: None):
        for _ in range(10):  # follow-ups of follow-ups: a bound, never a loop without end
            pending = list(connection.run_on_commit)
            if not pending:
                return
            del connection.run_on_commit[: len(pending)]
            for _sids, callback, _robust in pending:
                callback()


class Since:
    """The campaign's journal from the head it had when made."""

    def __init__(self, campaign_id: int | None) -> None:
        self.campaign_id = campaign_id
        self.clear()

    def clear(self) -> None:
        """From now on: the writes before this point have committed, and their entries are not counted."""
        commit_pending()
        self.mark = journal.head(self.campaign_id)

    def entries(self) -> list[journal.Read]:
        if self.campaign_id is None:
            return []
        return journal.entries_after(self.campaign_id, self.mark)

    def events(self) -> list[ev.Event]:
        return [event for entry in self.entries() for event in entry.events]

    def kinds(self) -> list[str]:
        return [event.kind for event in self.events()]

    def of(self, kind: type[ev.Event]) -> list:
        return [event for event in self.events() if isinstance(event, kind)]

    def topics(self) -> list[str]:
        return topics(self.events())


# The words a write's ``TableWritten.regions`` uses for what it changed, by kind of event (campaigns/services.py).
TOPIC_OF: dict[type[ev.Event], str] = {
    ev.ClockMoved: "table",
    ev.LightChanged: "light",
    ev.PartyChanged: "party",
    ev.MembersChanged: "members",
    ev.RolesChanged: "roles",
    ev.SettingsChanged: "settings",
    ev.SheetsChanged: "conditions",  # every sheet at the table: its settings or conditions moved
    ev.ConditionsChanged: "conditions",
    ev.FightChanged: "encounter",
    ev.NotesChanged: "notes",
    ev.SummaryChanged: "summary",
    **dict.fromkeys(ev.ASKED_KINDS, "requests"),
    ev.StashChanged: "stash",
    **dict.fromkeys(ev.ROLL_KINDS, "roll"),
}


def topics(events: list[ev.Event]) -> list[str]:
    """What these events change, in the words the old untyped signals and ``TableWritten.regions`` use, each once:
    ``character-<id>-<region>`` for a sheet's regions (a request's characters: their ``requests``), the table's
    topics by name (``revoke`` for members who left: their pages close; ``fight`` for every sheet's fight)."""
    out: list[str] = []
    for event in events:
        named = [TOPIC_OF[type(event)]] if type(event) in TOPIC_OF else []
        if isinstance(event, ev.SheetChanged):
            named += [f"character-{event.character}-{region}" for region in event.regions]
        elif isinstance(event, ev.ASKED_KINDS):
            named += [f"character-{character}-requests" for character in event.characters]
        elif isinstance(event, ev.MembersChanged) and event.left:
            named.append("revoke")
        elif isinstance(event, ev.FightChanged) and event.sheets:
            named.append(SHEET_FIGHT)
        out += [topic for topic in named if topic not in out]
    return out


def roll_events(campaign_id: int, roll_id: int) -> list[ev.Event]:
    """Every event the campaign's journal holds about one roll, oldest first (made, voided, undone…)."""
    return [
        event
        for entry in journal.entries_after(campaign_id, 0)
        for event in entry.events
        if isinstance(event, ev.ROLL_KINDS) and event.roll == roll_id
    ]
