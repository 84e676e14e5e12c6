"""The GM's notes: on the table, on each character, and the session's summary."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction

from campaigns.models import GmNote
from campaigns.services import CampaignError, TableWritten, written
from campaigns.session.common import lock_campaign
from live.events import NotesChanged, SummaryChanged, gm_only
from live.journal import record

NOTE_MAX = 5000


def _note_text(text: str) -> str:
    text = str(text or "").replace("\x00", "").strip()
    if len(text) > NOTE_MAX:
        raise CampaignError(f"A note holds {NOTE_MAX} characters at most; this one has {len(text)}.")
    return text


@transaction.atomic
def note_save(*, campaign_id: int, character_id: int | None, text: str, by: User | None = None) -> TableWritten:
    """The GM's private note on the campaign or one of its characters. Announced to the GM's pages only."""
    campaign = lock_campaign(campaign_id)
    if character_id is not None and not campaign.characters.filter(pk=character_id).exists():
        raise CampaignError("That character is not at this table.")
    note, _ = GmNote.objects.update_or_create(
        campaign=campaign, character_id=character_id, defaults={"text": _note_text(text)}
    )
    record(campaign.pk, NotesChanged(seen=gm_only()), by=by)
    return written(campaign, ("notes",), note)


@transaction.atomic
def summary_save(*, campaign_id: int, text: str, by: User | None = None) -> TableWritten:
    """The session summary every player at the table reads."""
    campaign = lock_campaign(campaign_id)
    campaign.summary = _note_text(text)
    campaign.save(update_fields=["summary"])
    record(campaign.pk, SummaryChanged(), by=by)
    return written(campaign, ("summary",))
