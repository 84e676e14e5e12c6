"""What the session parts of the table page show: requests, the encounter, the clock, the notes."""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils import timezone

from campaigns import session
from campaigns.forms import DamageForm, EncounterForm, StatusForm, npc_form, request_form, time_form
from campaigns.models import Campaign, Npc, RollRequest
from characters.forms import procedure_form
from rules import SYSTEMS

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


def notes_context(campaign: Campaign) -> dict[str, Any]:
    """The GM's private notes: on the campaign and on each character at the table. Only for the GM's pages."""
    notes = {note.character_id: note.text for note in campaign.gm_notes.all()}
    characters = list(campaign.characters.order_by("name", "pk"))
    return {
        "campaign_note": notes.get(None, ""),
        "character_notes": [{"character": c, "text": notes.get(c.pk, "")} for c in characters],
    }
