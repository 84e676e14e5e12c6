"""What the session views share: the GM's campaign, and one region answered (or a redirect without htmx)."""

from __future__ import annotations

from functools import partial
from typing import Any

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render

from campaigns.models import Campaign
from campaigns.selectors import campaigns_run_by, membership_of
from campaigns.services import CampaignError
from campaigns.session_view import REGIONS


def gm_campaign(request, pk: int) -> Campaign:
    return get_object_or_404(campaigns_run_by(request.user), pk=pk)


def region_answer(
    request, campaign: Campaign, name: str, *, error: str = "", procedure: str = "", form=None, party_odds=None
):
    if request.method == "POST" and not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # campaigns_of() and campaigns_run_by() let only members in
    # Only the region asked for is built (campaigns.session_view), from only what it draws.
    build = partial(REGIONS[name], procedure=procedure) if name == "request-form" else REGIONS[name]
    context = {**build(request, campaign, membership), "error": error, "error_region": name}
    if form is not None:  # the GM's refused request form, as they filled it, with its odds
        context["request_form"], context["party_odds"] = form, party_odds
    return render(request, f"campaigns/_session.html#{name}", context, status=422 if error else 200)


def visibility_of(request) -> str:
    """Who sees a roll the GM makes for an NPC: everyone (the default) or the GM alone."""
    visibility = request.POST.get("visibility") or "public"
    if visibility not in ("public", "gm"):
        raise CampaignError("Pick who may see this roll.")
    return visibility


def valid_form(form) -> dict[str, Any]:
    if not form.is_valid():
        raise CampaignError(first_error_of(form))
    return form.cleaned_data


def first_error_of(form) -> str:
    field, errors = next(iter(form.errors.items()))
    label = form.fields[field].label if field in form.fields else ""
    return f"{label}: {errors[0]}" if label else errors[0]
