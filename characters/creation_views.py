"""Making a character: the creation form, import and export (JSON). HTTP only, as ``characters.views``."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_POST

from characters import services, table
from characters.forms import ImportForm, first_error, procedure_form, raw_params
from characters.models import Character
from characters.selectors import characters_editable_by
from characters.transfer import export_character, import_character, parse_document
from core.converters import parse_id
from core.htmx import HtmxHttpRequest
from rules import SYSTEM_NAMES, SYSTEMS, RulesError
from rules import base as rules_base


def create(request: HtmxHttpRequest) -> HttpResponse:
    system_id = request.POST.get("system") or request.GET.get("system") or ""
    if system_id not in SYSTEMS:
        messages.error(request, "Pick a game system that has character sheets.")
        return redirect("characters:list")
    rules = SYSTEMS[system_id]
    campaign = None
    campaign_id = request.POST.get("campaign") or request.GET.get("campaign")
    if campaign_id:
        campaign = table.campaigns_of(request.user).filter(pk=parse_id(campaign_id) or 0).first()
        if campaign is None:
            messages.error(request, "You can only bring a character to a campaign you sit at.")
            return redirect("characters:list")
        if not campaign.plays(system_id):  # said before the form is filled in, not after (issue 42)
            messages.error(request, f"{campaign.name} plays {campaign.system_name}, not {SYSTEM_NAMES[system_id]}.")
            return redirect("characters:list")
    params = rules.creation_params()
    dummy = rules_base.ParamSpec(f"New {rules.name} character", params)
    empty = rules_base.Sheet(state={})
    form = procedure_form(dummy, empty, data=request.POST or None, id_prefix="new")
    context = {
        "rules": rules,
        "form": form,
        "campaign": campaign,
        "system_id": system_id,
        "creation_settings": _creation_settings(rules, campaign, system_id),
    }
    if request.method == "POST":
        try:
            choices = rules_base.check_params(dummy, empty, raw_params(dummy, empty, request.POST))
            choices = {key: value for key, value in choices.items() if value not in (None, "")}
            character, creation = services.character_create(
                owner=request.user, system=system_id, choices=choices, campaign=campaign
            )
        except RulesError as error:
            context["error"] = str(error)
            return render(request, "characters/create.html", context, status=422 if request.htmx else 400)
        messages.success(request, f"{character.name} is ready.")
        return redirect(character)
    return render(request, "characters/create.html", context)


def _creation_settings(rules, campaign, system_id: str) -> list[dict[str, Any]]:
    """The table's settings that shape a new character (a house default shown as one), with the values in force."""
    in_force = campaign.settings_in_force(system_id) if campaign is not None else rules.settings_in_force(None)
    return [
        {"setting": s, "shown": s.shown(in_force.get(s.key, s.default))}
        for s in rules.rule_settings()
        if s.scope == "creation"
    ]


def export(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    character = get_object_or_404(characters_editable_by(request.user), pk=pk)
    response = JsonResponse(export_character(character, request.user), json_dumps_params={"indent": 2})
    response["Content-Disposition"] = f'attachment; filename="{slugify(character.name) or "character"}.json"'
    return response


@require_POST
def import_view(request: HtmxHttpRequest) -> HttpResponse:
    form = ImportForm(request.POST, request.FILES)
    error = ""
    if form.is_valid():
        try:
            character = import_character(owner=request.user, document=parse_document(form.cleaned_data["file"].read()))
        except RulesError as problem:
            error = str(problem)
        else:
            messages.success(request, f"{character.name} was imported.")
            return redirect(character)
    else:
        error = first_error(form)
    messages.error(request, error)
    context = {
        "characters": Character.objects.filter(owner=request.user).select_related("campaign"),
        "playable": [(key, SYSTEM_NAMES[key]) for key in SYSTEMS],
        "campaigns": table.campaigns_of(request.user).filter(system__in=list(SYSTEMS)),
        "import_form": form,
    }
    return render(request, "characters/list.html", context, status=400)
