"""Encounter tracker views: the fight and its NPCs."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands
from campaigns.models import Campaign
from campaigns.selectors import campaigns_of, membership_of
from campaigns.session_view import encounter_context, npc_forms
from campaigns.session_views.common import gm_campaign, gm_write
from characters.forms import plain_inputs
from core.htmx import HtmxHttpRequest
from rules.errors import Refusal

ENCOUNTER_ACTIONS = tuple(commands.ENCOUNTER_COMMANDS)
NPC_ACTIONS = tuple(commands.NPC_COMMANDS)


def _encounter_answer(request, campaign: Campaign, error: str = "", form=None) -> HttpResponse:
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # gm_campaign() let only the GM in
    context = {**encounter_context(request, campaign, membership), "error": error, "error_region": "encounter"}
    if form is not None:
        context["npc_forms"] = npc_forms(campaign, form)
    return render(request, "campaigns/_session.html#encounter", context, status=422 if error else 200)


@require_GET
def encounter_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = gm_campaign(request, pk)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # gm_campaign() let only the GM in
    return render(request, "campaigns/_session.html#encounter", encounter_context(request, campaign, membership))


@require_POST
def encounter_action(request: HtmxHttpRequest, pk: int, action: str) -> HttpResponse:
    """Start a fight, run its next round, end it, add an NPC to it (or to the saved list), or a character's attack
    on NPCs the GM ticks (campaigns.commands does each)."""
    command = commands.ENCOUNTER_COMMANDS.get(action)
    if command is None:
        raise Http404
    form = None
    try:
        done = command(pk, inputs=plain_inputs(request.POST), by=request.user)
    except commands.NotHere:
        raise
    except Refusal as problem:
        form = problem.form if isinstance(problem, commands.FormRefused) else None
        return _encounter_answer(request, gm_campaign(request, pk), str(problem), form)
    if action == "end" and not request.htmx:
        ended = done.row
        words = f" and each player is asked for {ended.asked.label}" if ended.asked else ""
        messages.success(request, f"The fight is over: {ended.minutes} minutes pass{words}.")
    return _encounter_answer(request, done.campaign)


@require_POST
def npc_action(request: HtmxHttpRequest, pk: int, npc_id: int, action: str) -> HttpResponse:
    """Damage an NPC, give it a status, roll for it (as the GM), bring a saved one in, or remove it."""
    command = commands.NPC_COMMANDS.get(action)
    if command is None:
        raise Http404
    campaign, _done, error = gm_write(request, pk, command, npc_id)
    return _encounter_answer(request, campaign, error)


@require_POST
def hit_undo(request: HtmxHttpRequest, pk: int, hit_id: int) -> HttpResponse:
    """Undo one hit of a fight (campaigns.session.hits): the GM from the table's encounter, a player a hit on
    their own character. Nobody outside the table learns the campaign is there."""
    error, words = "", ""
    try:
        done = commands.undo_hit(pk, hit_id, by=request.user)
        campaign, words = done.campaign, done.row.words
    except commands.NotHere:
        raise
    except Refusal as problem:
        campaign, error = get_object_or_404(campaigns_of(request.user), pk=pk), str(problem)
    membership = membership_of(request.user, campaign)
    if membership is not None and membership.is_gm:
        return _encounter_answer(request, campaign, error)
    if request.htmx:
        return HttpResponse(escape(error or f"Undone: {words}."), status=422 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, f"Undone: {words}.")
    return redirect(campaign)
