"""A session's chronicle read from the database for one reader: the journal's entries between the session's start
and end name the rolls and sheets; their rows become campaigns.chronicle.build's plain records.

Six queries whatever the session's size (a seventh when countdowns moved): the journal's entries, the rolls, the
sheets' changes, the reverts of those changes, the fights, the players' lines. The journal is pruned after a month
(live.journal.prune): the rolls and changes made in the session's time at the table are read too, so an old
session's chronicle keeps them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Q
from django.utils import timezone

from campaigns.chronicle.build import (
    ChangeRecord,
    Chronicle,
    CountdownRecord,
    FightRecord,
    LineRecord,
    Present,
    Reader,
    RollRecord,
    SessionRecord,
    build,
)
from campaigns.models import Campaign, Countdown, Encounter, Membership, PlaySession
from characters.models import Change, Roll
from live import events as ev
from live import journal
from rules import SYSTEMS

ENTRIES_READ_MAX = 20_000  # entries one chronicle reads: a long evening writes a few hundred


@dataclass(frozen=True)
class Records:
    """Everything a session's chronicle is built from, read once and shared by every reader of one request."""

    session: SessionRecord
    rolls: tuple[RollRecord, ...]
    changes: tuple[ChangeRecord, ...]
    fights: tuple[FightRecord, ...]
    lines: tuple[LineRecord, ...]
    countdowns: tuple[CountdownRecord, ...] = ()

    def for_reader(self, reader: Reader) -> Chronicle:
        return build(self.session, self.rolls, self.changes, self.fights, self.lines, reader, self.countdowns)


def _gm_named(roll: Roll, session: PlaySession) -> str:
    """Who made a roll of no character's: "GM" for the session's own GM; another of the table's GMs (issue 42)
    by name, so the chronicle says which GM did it."""
    if roll.roller is None or session.gm_id in (None, roll.roller_id):
        return "GM"
    return f"GM {roll.roller.username}"


def reader_of(user, membership: Membership | None) -> Reader:
    """The reader a member is: the GM, or a player (the owner of some characters, a peer of the rest)."""
    return Reader(getattr(user, "pk", None), membership is not None and membership.is_gm)


def records(session: PlaySession, campaign: Campaign | None = None) -> Records:
    """The session's records (``campaign``: its campaign row, when the caller has it)."""
    campaign = campaign or session.campaign
    system = SYSTEMS.get(campaign.system)
    until: datetime = session.ended_at or timezone.now()
    entries = journal.entries_after(campaign.pk, session.start_cursor, upto=session.end_cursor, limit=ENTRIES_READ_MAX)
    roll_ids = {event.roll for entry in entries for event in entry.events if isinstance(event, ev.ROLL_KINDS)}
    sheets = ev.characters_named(event for entry in entries for event in entry.events)
    in_time = Q(at__gte=session.started_at, at__lte=until)
    change_rows = list(
        Change.objects.filter(in_time, Q(character__campaign=campaign) | Q(character_id__in=sheets))
        .select_related("character")
        .order_by("pk")
    )
    reverted = set(
        Change.objects.filter(reverts__in=[row.pk for row in change_rows]).values_list("reverts_id", flat=True)
    )
    roll_ids |= {row.roll_id for row in change_rows if row.roll_id is not None}
    roll_rows = (
        Roll.objects.filter(Q(pk__in=roll_ids) | Q(created_at__gte=session.started_at, created_at__lte=until))
        .filter(campaign=campaign)
        .select_related("character", "roller")
        .order_by("pk")
    )

    def label(row: Roll) -> str:
        """An outcome in the words of its roll's own character's system (a mixed table, issue 42), the home
        system's for the GM's own rolls."""
        own = SYSTEMS.get(row.character.system) if row.character is not None else system
        return own.outcome_label(row.outcome) if own is not None else row.outcome.replace("_", " ")

    rolls = tuple(
        RollRecord(
            id=row.pk,
            character=row.character_id,
            who=row.character.name if row.character is not None else _gm_named(row, session),
            roller=row.roller_id,
            label=row.label,
            procedure=row.procedure,
            outcome=row.outcome,
            outcome_words=label(row),
            summary=row.summary,
            visibility=row.visibility,
            voided=row.voided_at is not None,
            void_reason=row.void_reason,
            undone=row.undone,
        )
        for row in roll_rows
    )

    def private(system_id: str) -> tuple[str, ...]:
        own = SYSTEMS.get(system_id) or system  # each sheet's own system's private fields and money (issue 42)
        return tuple(own.private_fields) if own is not None else ()

    def money(system_id: str):
        own = SYSTEMS.get(system_id) or system
        return own.format_money if own is not None else (lambda amount: f"{amount} coin")

    changes = tuple(
        ChangeRecord(
            id=row.pk,
            character=row.character_id,
            who=row.character.name,
            owner=row.character.owner_id,
            what=row.what,
            before=row.before or {},
            after=row.after or {},
            roll=row.roll_id,
            reverts=row.reverts_id,
            reverted=row.pk in reverted,
            private=private(row.character.system),
            money=money(row.character.system),
        )
        for row in change_rows
    )
    fight_rows = Encounter.objects.filter(
        campaign=campaign, started_at__gte=session.started_at, started_at__lte=until
    ).annotate(foes=Count("npcs"), beaten=Count("npcs", filter=Q(npcs__defeated=True)))
    fights = tuple(
        FightRecord(row.pk, row.name, row.round, row.active, row.foes, row.beaten) for row in fight_rows.order_by("pk")
    )
    lines = tuple(
        LineRecord(line.pk, line.entry, line.author_id, line.author.username, line.text)
        for line in session.lines.select_related("author")
    )
    minutes_now = session.end_minutes if session.end_minutes is not None else campaign.game_minutes
    present = tuple(
        Present(int(p.get("character", 0)), str(p.get("name", "")), p.get("user"), str(p.get("player", "")))
        for p in session.present or []
        if isinstance(p, dict)
    )
    record = SessionRecord(
        number=session.number,
        campaign=campaign.name,
        started_at=session.started_at,
        ended_at=session.ended_at,
        minutes=max(0, minutes_now - session.start_minutes),
        present=present,
        summary=session.summary,
    )
    ticks: dict[int, list[ev.Seen]] = {}
    for entry in entries:
        for event in entry.events:
            if isinstance(event, ev.CountdownTicked):
                ticks.setdefault(event.countdown, []).append(event.seen)
    moved = Countdown.objects.filter(campaign=campaign, pk__in=list(ticks)) if ticks else Countdown.objects.none()
    countdowns = tuple(
        CountdownRecord(row.pk, row.name, row.segments, row.filled, row.shown, tuple(ticks[row.pk])) for row in moved
    )
    return Records(record, rolls, changes, fights, lines, countdowns)


def chronicle_for(session: PlaySession, user, membership: Membership | None) -> Chronicle:
    """The session's chronicle as this member may read it."""
    return records(session).for_reader(reader_of(user, membership))
