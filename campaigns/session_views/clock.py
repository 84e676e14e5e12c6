"""Exploration clock views: time advanced, daylight set."""

from __future__ import annotations

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.http import require_GET, require_POST

from campaigns import session
from campaigns.forms import time_form
from campaigns.selectors import campaigns_of
from campaigns.services import CampaignError
from campaigns.session_views.common import gm_campaign, region_answer, valid_form
from core.htmx import HtmxHttpRequest
from rules import SYSTEMS
from rules.errors import Refusal


@require_GET
def time_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return region_answer(request, campaign, "time")


@require_POST
def time_advance(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM moves the clock by the system's units: lights burn and food is eaten on every sheet, live."""
    campaign = gm_campaign(request, pk)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise Http404
    error = ""
    try:
        data = valid_form(time_form(system.time_units(), data=request.POST))
        campaign = session.clock_advance(
            campaign_id=campaign.pk, unit=data["unit"], count=data["count"], by=request.user
        ).campaign
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, "time", error=error)


@require_POST
def time_daylight(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM says the party is in daylight, or in the dark where only its own lights shine."""
    campaign = gm_campaign(request, pk)
    error = ""
    choice = request.POST.get("daylight", "")
    try:
        if choice not in ("0", "1"):
            raise CampaignError("Say whether the party is in daylight or in the dark.")
        campaign = session.set_daylight(campaign_id=campaign.pk, daylight=choice == "1").campaign
    except Refusal as problem:
        error = str(problem)
    return region_answer(request, campaign, "time", error=error)
