"""Notes views: the GM's notes and the session summary."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET, require_POST

from campaigns import session
from campaigns.forms import NoteForm
from campaigns.selectors import campaigns_of
from campaigns.session_views.common import gm_campaign, region_answer, valid_form
from core.htmx import HtmxHttpRequest
from rules.errors import Refusal


@require_GET
def notes_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return region_answer(request, gm_campaign(request, pk), "notes")


@require_POST
def note_save(request: HtmxHttpRequest, pk: int, character_id: int | None = None) -> HttpResponse:
    """The GM writes a private note: on the campaign, or on one character at the table."""
    campaign = gm_campaign(request, pk)
    error = ""
    try:
        data = valid_form(NoteForm(request.POST))
        session.note_save(campaign_id=campaign.pk, character_id=character_id, text=data["text"])
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, "notes", error=error)


@require_GET
def summary_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return region_answer(request, get_object_or_404(campaigns_of(request.user), pk=pk), "summary")


@require_POST
def summary_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = gm_campaign(request, pk)
    error = ""
    try:
        data = valid_form(NoteForm(request.POST))
        campaign = session.summary_save(campaign_id=campaign.pk, text=data["text"]).campaign
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, "summary", error=error)
