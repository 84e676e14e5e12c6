"""Exploration clock views: time advanced, daylight set (campaigns.commands does each)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands
from campaigns.selectors import campaigns_of
from campaigns.session_views.common import gm_write, region_answer
from core.htmx import HtmxHttpRequest


@require_GET
def time_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return region_answer(request, campaign, "time")


@require_POST
def time_advance(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM moves the clock by the system's units: lights burn and food is eaten on every sheet, live."""
    campaign, _done, error = gm_write(request, pk, commands.advance_time)
    return region_answer(request, campaign, "time", error=error)


@require_POST
def time_daylight(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM says the party is in daylight, or in the dark where only its own lights shine."""
    campaign, _done, error = gm_write(request, pk, commands.set_daylight)
    return region_answer(request, campaign, "time", error=error)
