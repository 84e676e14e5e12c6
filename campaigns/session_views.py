"""The GM's table for a whole session: roll requests, encounters, the clock, notes. HTTP only.

A write shows any service's refusal (``Refusal``: the rules', the campaign's, the roll cap's) in the region it
was made from; one that escapes still gets its sentence and a 4xx (config.refusals).
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db.models import Q
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from campaigns import session
from campaigns.forms import (
    DamageForm,
    EncounterForm,
    NoteForm,
    StatusForm,
    fixed_from,
    npc_form,
    request_form,
    time_form,
)
from campaigns.models import Campaign, Npc, RollRequest, RollRequestAnswer
from campaigns.selectors import campaigns_of, campaigns_run_by, membership_of
from campaigns.services import CampaignError
from campaigns.table import party_cards
from characters.forms import procedure_form, raw_params
from characters.models import Character
from characters.selectors import characters_editable_by, characters_visible_to
from config.htmx import HtmxHttpRequest
from rules import SYSTEMS, RulesError
from rules.errors import Refusal

REQUESTS_SHOWN = 60  # the table lists the newest requests; older ones are in the roll log


def session_context(request, campaign: Campaign, membership, cards, *, procedure: str = "") -> dict[str, Any]:
    """What the session parts of the table page show, in a fixed number of queries."""
    context: dict[str, Any] = {"requests": table_requests(campaign), "now": timezone.now()}
    system = SYSTEMS.get(campaign.system)
    if system is not None:
        level = system.light_level([card.sheet for card in cards if card.sheet is not None])
        context["tracks_light"] = level is not None  # the system tracks light and a party sits here
        context["light"] = None if campaign.daylight else level
    if membership.is_gm and system is not None:
        context["request_form"] = _request_form(system, cards, procedure)
        context["time_form"] = time_form(system.time_units())
        context["table_rolls"] = [
            {"procedure": proc, "form": procedure_form(proc, None, id_prefix=f"table-{key}")}
            for key, proc in system.table_procedures().items()
        ]
        context.update(encounter_context(campaign))
        context.update(notes_context(campaign))
    return context


def table_requests(campaign: Campaign) -> list[RollRequest]:
    rows = campaign.roll_requests.prefetch_related("answers__character")[:REQUESTS_SHOWN]
    return list(rows)


def _request_form(system, cards, procedure: str, data=None):
    procedures = session.requestable(system)
    if not procedures:
        return None
    chosen = procedures.get(procedure) or next(iter(procedures.values()))
    sheet = next((card.sheet for card in cards if card.sheet is not None), None)
    if sheet is None:
        return None
    characters = [card.character for card in cards]
    return request_form(procedures, chosen, sheet, characters, data=data)


def _gm_campaign(request, pk: int) -> Campaign:
    return get_object_or_404(campaigns_run_by(request.user), pk=pk)


def _region(request, campaign: Campaign, name: str, *, error: str = "", procedure: str = "", form=None):
    if request.method == "POST" and not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    membership = membership_of(request.user, campaign)
    assert membership is not None  # campaigns_of() and campaigns_run_by() let only members in
    cards = party_cards(campaign) if name == "time" or membership.is_gm and name == "request-form" else []
    context = {
        "campaign": campaign,
        "membership": membership,
        **session_context(request, campaign, membership, cards, procedure=procedure),
        "error": error,
        "error_region": name,
    }
    if form is not None:
        context["request_form"] = form
    return render(request, f"campaigns/_session.html#{name}", context, status=422 if error else 200)


@require_GET
def requests_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return _region(request, campaign, "requests")


@require_GET
def request_fields(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM's request form for the roll picked: its inputs change with it."""
    campaign = _gm_campaign(request, pk)
    return _region(request, campaign, "request-form", procedure=request.GET.get("procedure", ""))


@require_POST
def request_new(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = _gm_campaign(request, pk)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise Http404
    procedure = request.POST.get("procedure", "")
    form = _request_form(system, party_cards(campaign), procedure, data=request.POST)
    error = ""
    if form is None:
        error = "Nobody at this table can be asked for a roll yet."
    elif procedure not in session.requestable(system):
        error = f"{system.name} has no roll a player makes called {procedure!r}."
    elif not form.is_valid():
        error = next(iter(form.errors.values()))[0]
    else:
        try:
            session.request_create(
                campaign_id=campaign.pk,
                procedure=procedure,
                fixed=fixed_from(form),
                character_ids=[int(c) for c in form.cleaned_data["characters"]],
                minutes=form.cleaned_data["minutes"],
                by=request.user,
            )
        except Refusal as problem:
            error = str(problem)
    return _region(request, campaign, "request-form", error=error, procedure=procedure, form=form if error else None)


@require_POST
def request_cancel(request: HtmxHttpRequest, pk: int, request_id: int) -> HttpResponse:
    campaign = _gm_campaign(request, pk)
    error = ""
    try:
        session.request_cancel(request_id=request_id, campaign_id=campaign.pk)
    except Refusal as problem:
        error = str(problem)
    return _region(request, campaign, "requests", error=error)


def _sheet_character(request, pk: int, character_id: int) -> Character:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return get_object_or_404(characters_visible_to(request.user).filter(campaign=campaign), pk=character_id)


def sheet_requests_context(request, character: Character, error: str = "") -> dict[str, Any]:
    """The requests waiting for one character, each with the form its player answers in one tap."""
    now = timezone.now()
    can_edit = characters_editable_by(request.user).filter(pk=character.pk).exists()
    waiting = (
        RollRequestAnswer.objects.filter(
            character=character,
            answered_at__isnull=True,
            request__status=RollRequest.Status.OPEN,
            request__expires_at__gt=now,
        )
        .select_related("request")
        .order_by("request__created_at", "pk")
    )
    answered = (
        RollRequestAnswer.objects.filter(character=character, answered_at__gte=now - session.RECENT)
        .select_related("request", "roll__character", "roll__roller")
        .order_by("-answered_at")[:3]
    )
    rows = []
    system = SYSTEMS.get(character.system)
    sheet = None
    for answer in waiting:
        proc = system.procedures().get(answer.request.procedure) if system else None
        form = None
        if proc is not None and can_edit:
            if sheet is None:
                try:
                    sheet = character.checked_sheet()
                except RulesError:
                    break
            form = procedure_form(proc, sheet, id_prefix=f"rq{answer.pk}", gm=False, table_characters=_table(character))
            for name in answer.request.inputs:
                form.fields.pop(name, None)
        rows.append({"answer": answer, "form": form})
    return {
        "character": character,
        "loaded": True,  # the sheet's placeholder fetches this once; the region itself only listens
        "waiting": rows,
        "answered": list(answered),
        "can_edit": can_edit,
        "error": error,
        "system_id": character.system,
    }


def _table(character: Character):
    return list(Character.objects.filter(campaign_id=character.campaign_id).exclude(pk=character.pk).only("pk", "name"))


@require_GET
def sheet_requests(request: HtmxHttpRequest, pk: int, character_id: int) -> HttpResponse:
    """The sheet's live region of roll requests (its own template, included from the sheet)."""
    character = _sheet_character(request, pk, character_id)
    return render(request, "campaigns/_sheet_requests.html#sheet-requests", sheet_requests_context(request, character))


@require_POST
def request_answer(request: HtmxHttpRequest, pk: int, request_id: int, character_id: int) -> HttpResponse:
    """A player answers the GM's request from their sheet: one tap, the GM's inputs forced."""
    character = _sheet_character(request, pk, character_id)
    error = ""
    answer = RollRequestAnswer.objects.filter(request_id=request_id, character=character).select_related("request")
    found = answer.first()
    try:
        if found is None:
            raise RulesError("That request is not for this character.")
        system = SYSTEMS.get(character.system)
        proc = system.procedures().get(found.request.procedure) if system is not None else None
        if proc is None:
            raise RulesError("That roll no longer exists.")
        gm = campaigns_run_by(request.user).filter(pk=pk).exists()
        sheet = character.checked_sheet()
        given = raw_params(proc, sheet, request.POST, gm=gm)
        # An unticked box sends nothing: only inputs the form really sent can disagree with the GM's.
        given = {k: v for k, v in given.items() if k not in found.request.inputs or k in request.POST}
        session.request_answer(request_id=request_id, character_id=character.pk, params=given, by=request.user)
    except RulesError as problem:
        error = str(problem)
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(character)
    context = sheet_requests_context(request, character, error=error)
    return render(request, "campaigns/_sheet_requests.html#sheet-requests", context, status=422 if error else 200)


# --- the encounter tracker -------------------------------------------------------------------------------

ENCOUNTER_ACTIONS = ("start", "next", "end", "add")
NPC_ACTIONS = ("damage", "status", "remove", "bring", "roll")


def encounter_context(campaign: Campaign) -> dict[str, Any]:
    """The running fight and the saved NPC list, in a fixed number of queries however many NPCs."""
    system = SYSTEMS.get(campaign.system)
    if system is None:
        return {}
    fields = system.npc_fields()
    npcs = list(campaign.npcs.select_related("encounter").filter(Q(encounter__isnull=True) | Q(encounter__active=True)))
    encounter = next((n.encounter for n in npcs if n.encounter is not None), None)
    if encounter is None:
        encounter = campaign.encounters.filter(active=True).first()

    def shown(npc: Npc) -> list[tuple[str, Any]]:
        return [(p.label, dict(p.choices).get(str(npc.stats.get(p.name)), npc.stats.get(p.name))) for p in fields]

    return {
        "encounter": encounter,
        "fighting": [{"npc": n, "stats": shown(n)} for n in npcs if n.encounter is not None],
        "saved_npcs": [{"npc": n, "stats": shown(n)} for n in npcs if n.encounter is None],
        "npc_form": npc_form(fields),
        "npc_rolls": system.npc_rolls(),
        "damage_form": DamageForm(auto_id=False),
        "status_form": StatusForm(auto_id=False),
        "encounter_form": EncounterForm(auto_id="id_encounter_%s"),
    }


def _encounter_answer(request, campaign: Campaign, error: str = "", form=None) -> HttpResponse:
    if not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(campaign)
    context = {
        "campaign": campaign,
        "membership": membership_of(request.user, campaign),
        **encounter_context(campaign),
        "error": error,
        "error_region": "encounter",
    }
    if form is not None:
        context["npc_form"] = form
    return render(request, "campaigns/_session.html#encounter", context, status=422 if error else 200)


@require_GET
def encounter_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = _gm_campaign(request, pk)
    context = {"campaign": campaign, "membership": membership_of(request.user, campaign), **encounter_context(campaign)}
    return render(request, "campaigns/_session.html#encounter", context)


@require_POST
def encounter_action(request: HtmxHttpRequest, pk: int, action: str) -> HttpResponse:
    """Start a fight, run its next round, end it, or add an NPC to it (or to the saved list)."""
    campaign = _gm_campaign(request, pk)
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
        elif action == "end":
            _, minutes, asked = session.encounter_end(campaign_id=campaign.pk, by=request.user)
            if not request.htmx:
                words = f" and each player is asked for {asked.label}" if asked else ""
                messages.success(request, f"The fight is over: {minutes} minutes pass{words}.")
        else:
            form = npc_form(system.npc_fields(), data=request.POST)
            if not form.is_valid():
                raise CampaignError(_first(form))
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


def _visibility(request) -> str:
    """Who sees a roll the GM makes for an NPC: everyone (the default) or the GM alone."""
    visibility = request.POST.get("visibility") or "public"
    if visibility not in ("public", "gm"):
        raise CampaignError("Pick who may see this roll.")
    return visibility


def _valid(form) -> dict[str, Any]:
    if not form.is_valid():
        raise CampaignError(_first(form))
    return form.cleaned_data


def _first(form) -> str:
    field, errors = next(iter(form.errors.items()))
    label = form.fields[field].label if field in form.fields else ""
    return f"{label}: {errors[0]}" if label else errors[0]


@require_POST
def npc_action(request: HtmxHttpRequest, pk: int, npc_id: int, action: str) -> HttpResponse:
    """Damage an NPC, give it a status, roll for it (as the GM), bring a saved one in, or remove it."""
    campaign = _gm_campaign(request, pk)
    if action not in NPC_ACTIONS:
        raise Http404
    error = ""
    try:
        if action == "damage":
            data = _valid(DamageForm(request.POST))
            session.npc_damage(
                campaign_id=campaign.pk,
                npc_id=npc_id,
                amount=data["amount"],
                ignore_armour=data["ignore_armour"],
                by=request.user,
                visibility=_visibility(request),
            )
        elif action == "status":
            data = _valid(StatusForm(request.POST))
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
                visibility=_visibility(request),
                by=request.user,
            )
    except Refusal as problem:
        error = str(problem)
    return _encounter_answer(request, campaign, error)


# --- the exploration clock -------------------------------------------------------------------------------


@require_GET
def time_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = get_object_or_404(campaigns_of(request.user), pk=pk)
    return _region(request, campaign, "time")


@require_POST
def time_advance(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM moves the clock by the system's units: lights burn and food is eaten on every sheet, live."""
    campaign = _gm_campaign(request, pk)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        raise Http404
    error = ""
    try:
        data = _valid(time_form(system.time_units(), data=request.POST))
        session.clock_advance(campaign_id=campaign.pk, unit=data["unit"], count=data["count"], by=request.user)
        campaign.refresh_from_db()
    except Refusal as problem:
        error = str(problem)
    return _region(request, campaign, "time", error=error)


@require_POST
def time_daylight(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The GM says the party is in daylight, or in the dark where only its own lights shine."""
    campaign = _gm_campaign(request, pk)
    error = ""
    choice = request.POST.get("daylight", "")
    try:
        if choice not in ("0", "1"):
            raise CampaignError("Say whether the party is in daylight or in the dark.")
        campaign = session.set_daylight(campaign_id=campaign.pk, daylight=choice == "1")
    except Refusal as problem:
        error = str(problem)
    return _region(request, campaign, "time", error=error)


# --- notes ---------------------------------------------------------------------------------------------------


def notes_context(campaign: Campaign) -> dict[str, Any]:
    """The GM's private notes: on the campaign and on each character at the table. Only for the GM's pages."""
    notes = {note.character_id: note.text for note in campaign.gm_notes.all()}
    characters = list(campaign.characters.order_by("name", "pk"))
    return {
        "campaign_note": notes.get(None, ""),
        "character_notes": [{"character": c, "text": notes.get(c.pk, "")} for c in characters],
    }


@require_GET
def notes_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _region(request, _gm_campaign(request, pk), "notes")


@require_POST
def note_save(request: HtmxHttpRequest, pk: int, character_id: int | None = None) -> HttpResponse:
    """The GM writes a private note: on the campaign, or on one character at the table."""
    campaign = _gm_campaign(request, pk)
    error = ""
    try:
        data = _valid(NoteForm(request.POST))
        session.note_save(campaign_id=campaign.pk, character_id=character_id, text=data["text"])
    except Refusal as problem:
        error = str(problem)
    return _region(request, campaign, "notes", error=error)


@require_GET
def summary_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return _region(request, get_object_or_404(campaigns_of(request.user), pk=pk), "summary")


@require_POST
def summary_save(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    campaign = _gm_campaign(request, pk)
    error = ""
    try:
        data = _valid(NoteForm(request.POST))
        campaign = session.summary_save(campaign_id=campaign.pk, text=data["text"])
    except Refusal as problem:
        error = str(problem)
    return _region(request, campaign, "summary", error=error)
