"""Encounter tracker views: the fight and its NPCs."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.html import escape
from django.views.decorators.http import require_GET, require_POST

from campaigns import session
from campaigns.forms import DamageForm, EncounterForm, StatusForm, npc_form
from campaigns.models import Campaign
from campaigns.selectors import campaigns_of, membership_of
from campaigns.services import CampaignError
from campaigns.session import hits
from campaigns.session_view import encounter_context
from campaigns.session_views.common import first_error_of, gm_campaign, valid_form, visibility_of
from core.htmx import HtmxHttpRequest
from rules import SYSTEMS
from rules.errors import Refusal

ENCOUNTER_ACTIONS = ("start", "next", "end", "add", "attack")
NPC_ACTIONS = ("damage", "status", "remove", "bring", "roll")


def _encounter_answer(request, campaign: Campaign, error: str = "", form=None) -> HttpResponse:
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # gm_campaign() let only the GM in
    context = {**encounter_context(request, campaign, membership), "error": error, "error_region": "encounter"}
    if form is not None:
        context["npc_form"] = form
    return render(request, "campaigns/_session.html#encounter", context, status=422 if error else 200)


@require_GET
def encounter_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = gm_campaign(request, pk)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # gm_campaign() let only the GM in
    return render(request, "campaigns/_session.html#encounter", encounter_context(request, campaign, membership))


@require_POST
def encounter_action(request: HtmxHttpRequest, pk: int, action: str) -> HttpResponse:
    """Start a fight, run its next round, end it, or add an NPC to it (or to the saved list)."""
    campaign = gm_campaign(request, pk)
    if action not in ENCOUNTER_ACTIONS:
        raise Http404
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise Http404
    error, form = "", None
    try:
        if action == "start":
            start = EncounterForm(request.POST)
            name = start.cleaned_data["name"] if start.is_valid() else ""
            session.encounter_start(campaign_id=campaign.pk, name=name, by=request.user)
        elif action == "next":
            session.encounter_next_round(campaign_id=campaign.pk, by=request.user)
        elif action == "attack":
            _pc_attack(request, campaign)
        elif action == "end":
            ended = session.encounter_end(campaign_id=campaign.pk, by=request.user).row
            if not request.htmx:
                words = f" and each player is asked for {ended.asked.label}" if ended.asked else ""
                messages.success(request, f"The fight is over: {ended.minutes} minutes pass{words}.")
        else:
            form = npc_form(system.npc_fields(), data=request.POST)
            if not form.is_valid():
                raise CampaignError(first_error_of(form))
            data = form.cleaned_data
            stats = {p.name: data[p.name] for p in system.npc_fields()}
            fighting = campaign.encounters.filter(active=True).exists()
            session.npc_add(
                campaign_id=campaign.pk,
                name=data["name"],
                stats=stats,
                to_encounter=fighting,
                keep=data["keep"] or not fighting,
            )
            form = None
    except Refusal as problem:
        error = str(problem)
    return _encounter_answer(request, campaign, error, form)


def _pc_attack(request: HtmxHttpRequest, campaign: Campaign) -> None:
    """A character's attack on NPCs the GM ticks in the tracker (one, or several as an area attack)."""
    raw_character = request.POST.get("character") or ""
    raw_npcs = request.POST.getlist("npcs")
    if not raw_character.isdigit():
        raise CampaignError("Pick the character who attacks.")
    if not raw_npcs or not all(n.isdigit() for n in raw_npcs):
        raise CampaignError("Tick the NPCs the character attacks.")
    feature = (request.POST.get("feature") or "").strip()[:60]
    session.pc_attack_npcs(
        campaign_id=campaign.pk,
        character_id=int(raw_character),
        npc_ids=[int(n) for n in raw_npcs][:50],
        choices={"feature": feature, "ranged": request.POST.get("ranged") == "on"},
        by=request.user,
        visibility=visibility_of(request),
    )


def _target(request) -> int | None:
    """The PC an NPC's attack is aimed at (the roll form's select), or None: nobody picked."""
    raw = request.POST.get("target") or ""
    if not raw:
        return None
    if not raw.isdigit():
        raise CampaignError("Pick a character at this table as the target.")
    return int(raw)


@require_POST
def npc_action(request: HtmxHttpRequest, pk: int, npc_id: int, action: str) -> HttpResponse:
    """Damage an NPC, give it a status, roll for it (as the GM), bring a saved one in, or remove it."""
    campaign = gm_campaign(request, pk)
    if action not in NPC_ACTIONS:
        raise Http404
    error = ""
    try:
        if action == "damage":
            data = valid_form(DamageForm(request.POST))
            session.npc_damage(
                campaign_id=campaign.pk,
                npc_id=npc_id,
                amount=data["amount"],
                ignore_armour=data["ignore_armour"],
                by=request.user,
                visibility=visibility_of(request),
            )
        elif action == "status":
            data = valid_form(StatusForm(request.POST))
            session.npc_status(campaign_id=campaign.pk, npc_id=npc_id, name=data["name"], rounds=data["rounds"])
        elif action == "remove":
            session.npc_remove(campaign_id=campaign.pk, npc_id=npc_id)
        elif action == "bring":
            session.npc_bring(campaign_id=campaign.pk, saved_id=npc_id)
        else:
            session.npc_roll(
                campaign_id=campaign.pk,
                npc_id=npc_id,
                key=request.POST.get("key", ""),
                visibility=visibility_of(request),
                by=request.user,
                target_id=_target(request),
            )
    except Refusal as problem:
        error = str(problem)
    return _encounter_answer(request, campaign, error)


@require_POST
def hit_undo(request: HtmxHttpRequest, pk: int, hit_id: int) -> HttpResponse:
    """Undo one hit of a fight (campaigns.session.hits): the GM from the table's encounter, a player a hit on
    their own character. Nobody outside the table learns the campaign is there."""
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    membership = membership_of(request.user, campaign)
    error = ""
    try:
        done = hits.hit_undo(campaign_id=campaign.pk, hit_id=hit_id, by=request.user).row
    except Refusal as problem:
        error = str(problem)
    if membership is not None and membership.is_gm:
        return _encounter_answer(request, campaign, error)
    if request.htmx:
        return HttpResponse(escape(error or f"Undone: {done.words}."), status=422 if error else 200)
    if error:
        messages.error(request, error)
    else:
        messages.success(request, f"Undone: {done.words}.")
    return redirect(campaign)
