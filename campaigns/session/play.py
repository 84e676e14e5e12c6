"""Play sessions (issue 40): the GM starts one and ends it; what the journal holds between is its chronicle.

``current_session(campaign)`` is the one way other features ask whether a session is going (the journal's
``session.started`` / ``session.ended`` events say when that changes). A player's own line on the chronicle is
theirs alone to change or remove.
"""

from __future__ import annotations

from collections.abc import Collection

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from campaigns.chronicle.build import Reader
from campaigns.chronicle.read import records
from campaigns.models import GM_ROLES, Campaign, ChronicleLine, PlaySession
from campaigns.services import CampaignError, TableWritten, written
from campaigns.session.common import lock_campaign
from live import journal
from live.events import SessionChanged, SessionEnded, SessionStarted

SUMMARY_MAX = 5000
LINE_MAX = 500
LINES_PER_SESSION_MAX = 200  # one player's lines on one session: a bound on what a chronicle draws


def current_session(campaign: Campaign | int) -> PlaySession | None:
    """The campaign's session under way, if one is (at most one is: a constraint says so)."""
    campaign_id = campaign if isinstance(campaign, int) else campaign.pk
    return PlaySession.objects.filter(campaign_id=campaign_id, ended_at__isnull=True).first()


def _words(text: str, most: int, what: str) -> str:
    text = str(text or "").replace("\x00", "").strip()
    if len(text) > most:
        raise CampaignError(f"{what} holds {most} characters at most; this one has {len(text)}.")
    return text


@transaction.atomic
def session_start(
    *, campaign_id: int, by: User, present: Collection[int] | None = None, gm_id: int | None = None
) -> TableWritten:
    """Start a session: the journal's head and the game clock now are where it begins. Who is there is formed from
    the table's roster (every character at the table; issue 42): ``present``, the ids of those who came (None: the
    whole roster). ``gm_id``: which of the table's GMs runs it (None: whoever starts it). The clock, the journal
    and the stash are the table's, the same in every session."""
    campaign = lock_campaign(campaign_id)
    going = current_session(campaign)
    if going is not None:
        raise CampaignError(f"Session {going.number} is still going: end it before starting another.")
    gm = by if gm_id is None or gm_id == by.pk else _table_gm(campaign, gm_id)
    number = (campaign.play_sessions.aggregate(top=Max("number"))["top"] or 0) + 1
    roster = campaign.characters.select_related("owner").order_by("name", "pk")
    if present is not None:
        chosen = set(present)
        if not chosen <= {c.pk for c in roster}:
            raise CampaignError("Pick who is here from the characters at this table.")
        roster = roster.filter(pk__in=chosen)
    came = [{"character": c.pk, "name": c.name, "user": c.owner_id, "player": c.owner.username} for c in roster]
    session = PlaySession.objects.create(
        campaign=campaign,
        number=number,
        started_at=timezone.now(),
        started_by=by,
        gm=gm,
        start_cursor=journal.head(campaign.pk),
        start_minutes=campaign.game_minutes,
        present=came,
    )
    journal.record(campaign.pk, SessionStarted(session=number), by=by)
    return written(campaign, ("sessions",), session)


def _table_gm(campaign: Campaign, user_id: int) -> User:
    """One of the table's GMs (the owner or a co-GM), to run a session."""
    seat = campaign.memberships.filter(user_id=user_id, role__in=GM_ROLES).select_related("user").first()
    if seat is None:
        raise CampaignError("A session is run by one of the table's GMs.")
    return seat.user


@transaction.atomic
def session_end(*, campaign_id: int, by: User, summary: str = "") -> TableWritten:
    """End the session under way, with the GM's summary (kept if none is given)."""
    campaign = lock_campaign(campaign_id)
    session = current_session(campaign)
    if session is None:
        raise CampaignError("No session is going: start one first.")
    text = _words(summary, SUMMARY_MAX, "A summary")
    session.ended_at = timezone.now()
    session.end_minutes = campaign.game_minutes
    session.summary = text or session.summary
    session.end_cursor = journal.record(campaign.pk, SessionEnded(session=session.number), by=by)
    session.save(update_fields=["ended_at", "end_minutes", "summary", "end_cursor"])
    return written(campaign, ("sessions",), session)


@transaction.atomic
def session_summary(*, campaign_id: int, number: int, text: str, by: User) -> TableWritten:
    """The GM's summary of one session (under way or ended), which every member reads on its chronicle."""
    campaign = lock_campaign(campaign_id)
    session = campaign.play_sessions.filter(number=number).first()
    if session is None:
        raise CampaignError("That session does not exist.")
    session.summary = _words(text, SUMMARY_MAX, "A summary")
    session.save(update_fields=["summary"])
    journal.record(campaign.pk, SessionChanged(session=number), by=by)
    return written(campaign, ("sessions",), session)


@transaction.atomic
def line_add(*, campaign_id: int, number: int, entry: str, text: str, by: User, is_gm: bool = False) -> ChronicleLine:
    """A member's own line on an entry of the chronicle: only on an entry they may see."""
    campaign = lock_campaign(campaign_id)
    session = campaign.play_sessions.filter(number=number).first()
    if session is None:
        raise CampaignError("That session does not exist.")
    words = _words(text, LINE_MAX, "A line")
    if not words:
        raise CampaignError("Write something to add.")
    if session.lines.filter(author=by).count() >= LINES_PER_SESSION_MAX:
        raise CampaignError(f"You have {LINES_PER_SESSION_MAX} lines on this session already.")
    if entry not in records(session, campaign).for_reader(Reader(by.pk, is_gm)).entry_keys():
        raise CampaignError("That entry is not in the chronicle you can read.")
    line = ChronicleLine.objects.create(session=session, entry=entry, author=by, text=words)
    journal.record(campaign.pk, SessionChanged(session=number), by=by)
    return line


def _own_line(campaign_id: int, line_id: int, by: User) -> ChronicleLine:
    line = (
        ChronicleLine.objects.select_for_update()
        .select_related("session")
        .filter(pk=line_id, session__campaign_id=campaign_id, author=by)
        .first()
    )
    if line is None:
        raise CampaignError("That line is not yours to change.")
    return line


@transaction.atomic
def line_edit(*, campaign_id: int, line_id: int, text: str, by: User) -> ChronicleLine:
    lock_campaign(campaign_id)
    line = _own_line(campaign_id, line_id, by)
    words = _words(text, LINE_MAX, "A line")
    if not words:
        raise CampaignError("Write something, or remove the line.")
    line.text = words
    line.save(update_fields=["text", "updated_at"])
    journal.record(campaign_id, SessionChanged(session=line.session.number), by=by)
    return line


@transaction.atomic
def line_remove(*, campaign_id: int, line_id: int, by: User) -> int:
    """Remove one's own line; the session's number."""
    lock_campaign(campaign_id)
    line = _own_line(campaign_id, line_id, by)
    number = line.session.number
    line.delete()
    journal.record(campaign_id, SessionChanged(session=number), by=by)
    return number
