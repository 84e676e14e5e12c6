"""The session panels of the table page (templates/campaigns/_session.html), region by region: what each draws.

Each panel re-fetches itself on its own signal (the requests on every answer, the time on every party change),
so each has its own builder, which reads only that panel's rows in a fixed number of queries (as
campaigns.table_view does for the party, the log, the members and the clock). The whole page is the union
of the same builders plus what only the page draws (the GM's table rolls). Reads only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from campaigns import session
from campaigns.forms import CountdownForm, DamageForm, EncounterForm, StatusForm, npc_form, request_form, time_form
from campaigns.models import GM_ROLES, Campaign, Countdown, Membership, Npc, RollRequest
from campaigns.session.hits import undoable_hits
from campaigns.table import Card, party_cards, party_sheets
from characters.forms import procedure_form
from characters.models import Item
from rules import SYSTEMS
from rules import base as rules_base
from rules.clock import remaining

REQUESTS_SHOWN = 60  # the table lists the newest requests; older ones are in the roll log

Context = dict[str, Any]


def _base(campaign: Campaign, membership: Membership) -> Context:
    return {"campaign": campaign, "membership": membership}


def requests_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The newest requests with their answers (two queries), and the time they are open against: the open ones
    in the list, the cancelled and expired ones folded under it (what they drew stays readable, out of the way)."""
    now = timezone.now()
    shown = table_requests(campaign)
    return {
        **_base(campaign, membership),
        "requests": [rq for rq in shown if rq.is_open(now)],
        "ended_requests": [rq for rq in shown if not rq.is_open(now)],
        "now": now,
    }


def table_requests(campaign: Campaign) -> list[RollRequest]:
    rows = campaign.roll_requests.prefetch_related("answers__character")[:REQUESTS_SHOWN]
    return list(rows)


def request_form_context(
    request: HttpRequest,
    campaign: Campaign,
    membership: Membership,
    *,
    cards: list[Card] | None = None,
    procedure: str = "",
) -> Context:
    """The GM's request form for the roll picked (the first the system offers by default): it reads the party's
    cards for their sheets and names (``cards`` when the page has read them already)."""
    system = SYSTEMS.get(campaign.system)
    if not membership.is_gm or system is None:
        return _base(campaign, membership)
    cards = party_cards(campaign) if cards is None else cards
    form = request_form_for(system, cards, procedure)
    context = {**_base(campaign, membership), "request_form": form, "what_ifs": list(system.what_ifs().items())}
    if form is not None:  # the odds of everyone asked at first (the whole party), the player's inputs at defaults
        context["party_odds"] = party_odds_for(system, cards, form["procedure"].initial, {}, None)
    return context


def party_odds_for(
    system: rules_base.GameSystem,
    cards: Sequence[Card],
    procedure: str,
    fixed: dict[str, Any],
    character_ids: set[int] | None,
    rule: str = "",
) -> session.PartyOdds:
    """Each asked character's odds at the roll the GM is composing (``character_ids``: who is ticked; None:
    everyone), from the sheets their cards hold, and the party's (under a group check's ``rule``)."""
    asked = [(c.character, c.sheet) for c in cards if character_ids is None or c.character.pk in character_ids]
    return session.asked_odds(system, procedure, fixed, asked, rule=rule)


def request_form_for(system: rules_base.GameSystem, cards: Sequence[Card], procedure: str, data=None):
    procedures = session.requestable(system)
    if not procedures:
        return None
    chosen = procedures.get(procedure) or next(iter(procedures.values()))
    sheet = next((card.sheet for card in cards if card.sheet is not None), None)
    if sheet is None:
        return None
    characters = [card.character for card in cards]
    rules = session.group_rules(system, chosen.key)
    return request_form(procedures, chosen, sheet, characters, data=data, rules=rules)


def time_context(
    request: HttpRequest, campaign: Campaign, membership: Membership, *, sheets: list[rules_base.Sheet] | None = None
) -> Context:
    """The game time (on the campaign row), the party's light (its sheets' lit items: ``sheets`` when the page
    has read them already) and, for the GM, the clock's form."""
    context = _base(campaign, membership)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        return context
    level = system.light_level(party_sheets(campaign) if sheets is None else sheets)
    context["tracks_light"] = level is not None  # the system tracks light and a party sits here
    context["light"] = None if campaign.daylight else level
    context["realtime"] = realtime_view(campaign)
    if membership.is_gm:
        context["time_form"] = time_form(system.time_units())
        context["gm_lights"] = gm_lights(campaign, system)
    return context


def realtime_view(campaign: Campaign) -> Context:
    """What a page needs to show the time of play and tick it by itself (static/js/clock.js): the stored game
    time, since when it runs (epoch ms; None: paused) and how fast, and the server's time now (the page's clock
    may be off). Sent once with the region; the server pushes the region again when a step falls due."""
    now = timezone.now()
    since = campaign.realtime_since
    return {
        "running": since is not None,
        "game": campaign.game_minutes * 60 + campaign.game_seconds,
        "since_ms": int(since.timestamp() * 1000) if since is not None else "",
        "rate": campaign.realtime_rate,
        "now_ms": int(now.timestamp() * 1000),
        "shown": session.realtime_game_seconds(campaign, now),
    }


def gm_lights(campaign: Campaign, system: rules_base.GameSystem) -> list[Context]:
    """Every light at the table with its time left, for the GM's corrections (one query)."""
    lights = system.light_sources()
    if lights is None:
        return []
    rows = Item.objects.filter(character__campaign=campaign, kind="light").select_related("character")
    out = []
    for row in rows.order_by("character__name", "character_id", "pk"):
        left = remaining(row.to_rules(), lights)
        if left is not None:
            life = lights.life(row.to_rules()) or left
            out.append({"item": row, "character": row.character, "left": left, "life": life})
    return out


def countdowns_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The table's countdowns as this viewer may see them: the GM every one and its controls; a player those
    shown to players, with the name or the progress left out where the GM hid it (never sent, not just hidden)."""
    rows = list(campaign.countdowns.all())
    if membership.is_gm:
        shown = [{"countdown": c, "name": c.name, "progress": True, "pk": c.pk} for c in rows]
    else:
        shown = [
            {"countdown": c, "name": c.name if c.players_see_name() else "", "progress": c.players_see_progress()}
            for c in rows
            if c.players_see()
        ]
    context = {**_base(campaign, membership), "countdowns": shown}
    if membership.is_gm:
        context["countdown_form"] = CountdownForm(auto_id="id_countdown_%s")
        context["shown_choices"] = Countdown.Shown.choices
    return context


def encounter_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The running fight and the saved NPC list, in a fixed number of queries however many NPCs."""
    system = SYSTEMS.get(campaign.system)
    if system is None:
        return _base(campaign, membership)
    fields = system.npc_fields()
    npcs = list(campaign.npcs.select_related("encounter").filter(Q(encounter__isnull=True) | Q(encounter__active=True)))
    encounter = next((n.encounter for n in npcs if n.encounter is not None), None)
    if encounter is None:
        encounter = campaign.encounters.filter(active=True).first()

    def shown(npc: Npc) -> list[tuple[str, Any]]:
        return [(p.label, dict(p.choices).get(str(npc.stats.get(p.name)), npc.stats.get(p.name))) for p in fields]

    return {
        **_base(campaign, membership),
        "encounter": encounter,
        "fighting": [{"npc": n, "stats": shown(n)} for n in npcs if n.encounter is not None],
        "saved_npcs": [{"npc": n, "stats": shown(n)} for n in npcs if n.encounter is None],
        "npc_form": npc_form(fields),
        "npc_rolls": system.npc_rolls(),
        "pc_attacks": system.attacks_npcs,  # the system rolls a PC's attack on the tracker's NPCs
        "targets": list(campaign.characters.order_by("name", "pk").values_list("pk", "name")) if encounter else [],
        "damage_form": DamageForm(auto_id=False),
        "status_form": StatusForm(auto_id=False),
        "encounter_form": EncounterForm(auto_id="id_encounter_%s"),
        # The fight's latest hits, each with the GM's Undo (campaigns.session.hits)
        "hits": undoable_hits(campaign, encounter.pk) if encounter is not None and membership.is_gm else [],
    }


def notes_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The GM's private notes: on the campaign and on each character at the table. Only for the GM's pages."""
    if not membership.is_gm:
        return _base(campaign, membership)
    notes = {note.character_id: note.text for note in campaign.gm_notes.all()}
    characters = list(campaign.characters.order_by("name", "pk"))
    return {
        **_base(campaign, membership),
        "campaign_note": notes.get(None, ""),
        "character_notes": [{"character": c, "text": notes.get(c.pk, "")} for c in characters],
    }


def summary_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The session summary lives on the campaign row itself: nothing more to read."""
    return _base(campaign, membership)


SESSIONS_SHOWN = 12  # the newest sessions the table page lists (each links to its chronicle; the rest on its page)


def sessions_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The session under way (if any) and the newest ones: one query."""
    rows = list(campaign.play_sessions.select_related("gm")[: SESSIONS_SHOWN + 1])
    going = next((row for row in rows if row.is_open), None)
    context = {**_base(campaign, membership), "play_sessions": rows[:SESSIONS_SHOWN], "session_going": going}
    if membership.is_gm and going is None:  # the start form: who is here, from the roster, and who runs it
        context["roster"] = list(campaign.characters.select_related("owner").order_by("name", "pk"))
        context["table_gms"] = list(campaign.memberships.filter(role__in=GM_ROLES).select_related("user"))
    return context


# The session's live regions (partials of templates/campaigns/_session.html), each with its builder.
REGIONS: dict[str, Callable[..., Context]] = {
    "requests": requests_context,
    "countdowns": countdowns_context,
    "request-form": request_form_context,
    "time": time_context,
    "encounter": encounter_context,
    "notes": notes_context,
    "summary": summary_context,
    "sessions": sessions_context,
}


def session_context(request: HttpRequest, campaign: Campaign, membership: Membership, cards: list[Card]) -> Context:
    """Every session region for the whole table page, from the party's cards the page has read already, and the
    GM's table rolls, which only the page draws."""
    sheets = [card.sheet for card in cards if card.sheet is not None]
    context: Context = {
        **requests_context(request, campaign, membership),
        **time_context(request, campaign, membership, sheets=sheets),
        **countdowns_context(request, campaign, membership),
        **summary_context(request, campaign, membership),
        **sessions_context(request, campaign, membership),
    }
    system = SYSTEMS.get(campaign.system)
    if membership.is_gm and system is not None:
        context.update(request_form_context(request, campaign, membership, cards=cards))
        context.update(encounter_context(request, campaign, membership))
        context.update(notes_context(request, campaign, membership))
        context["table_rolls"] = [
            {"procedure": proc, "form": procedure_form(proc, None, id_prefix=f"table-{key}")}
            for key, proc in system.table_procedures().items()
        ]
    return context
