"""What the session views share: the GM's campaign, a GM's command run from a page, and one region answered (or a
redirect without htmx)."""

from __future__ import annotations

from functools import partial

from django.contrib import messages
from django.shortcuts import get_object_or_404, redirect, render

from campaigns.commands import NotHere, TableCommand, valid_form
from campaigns.models import Campaign
from campaigns.selectors import campaigns_run_by, membership_of
from campaigns.services import TableWritten
from campaigns.session_view import REGIONS
from characters.forms import plain_inputs
from rules.errors import Refusal

__all__ = ["gm_campaign", "gm_write", "region_answer", "valid_form"]


def gm_campaign(request, pk: int) -> Campaign:
    return get_object_or_404(campaigns_run_by(request.user), pk=pk)


def gm_write(request, pk: int, command: TableCommand, *ids: int) -> tuple[Campaign, TableWritten | None, str]:
    """A GM's table command (campaigns.commands) with the page's fields: the campaign as the write left it and what
    it wrote, or the campaign and the refusal's sentence. One it does not know of escapes: a 404."""
    try:
        done = command(pk, *ids, inputs=plain_inputs(request.POST), by=request.user)
    except NotHere:
        raise
    except Refusal as problem:
        return gm_campaign(request, pk), None, str(problem)
    return done.campaign, done, ""


def region_answer(
    request,
    campaign: Campaign,
    name: str,
    *,
    error: str = "",
    procedure: str = "",
    form=None,
    party_odds=None,
    picks=None,
):
    if request.method == "POST" and not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # campaigns_of() and campaigns_run_by() let only members in
    # Only the region asked for is built (campaigns.session_view), from only what it draws.
    build = partial(REGIONS[name], procedure=procedure, picks=picks) if name == "request-form" else REGIONS[name]
    context = {**build(request, campaign, membership), "error": error, "error_region": name}
    if form is not None:  # the GM's refused request form, as they filled it, with its odds
        context["request_form"], context["party_odds"] = form, party_odds
    return render(request, f"campaigns/_session.html#{name}", context, status=422 if error else 200)
