"""Notes views: the GM's notes and the session summary."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands
from campaigns.selectors import campaigns_of
from campaigns.session_views.common import gm_campaign, gm_write, region_answer
from core.htmx import HtmxHttpRequest


@require_GET
def notes_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return region_answer(request, gm_campaign(request, pk), "notes")


@require_POST
def note_save(request: HtmxHttpRequest, pk: int, character_id: int | None = None) -> HttpResponse:
    """The GM writes a private note: on the campaign, or on one character at the table."""
    ids = () if character_id is None else (character_id,)
    campaign, _done, error = gm_write(request, pk, commands.save_note, *ids)
    return region_answer(request, campaign, "notes", error=error)


@require_GET
def summary_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return region_answer(request, get_object_or_404(campaigns_of(request.user), pk=pk), "summary")


@require_POST
def summary_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign, _done, error = gm_write(request, pk, commands.save_summary)
    return region_answer(request, campaign, "summary", error=error)
