"""The session panels of the table page (templates/campaigns/_session.html), region by region: what each draws.

Each panel re-fetches itself on its own signal (the requests on every answer, the time on every party change),
so each has its own builder, which reads only that panel's rows in a fixed number of queries (as
campaigns.table_view does for the party, the log, the members and the clock). The whole page is the union
of the same builders plus what only the page draws (the GM's table rolls). Reads only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from django.db.models import Q
from django.http import HttpRequest
from django.utils import timezone

from campaigns import session
from campaigns.forms import (
    CountdownForm,
    DamageForm,
    EncounterForm,
    StatusForm,
    fixed_from,
    npc_form,
    other_procedure,
    picks_from,
    request_form,
    time_form,
)
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
    picks: Mapping[str, Any] | None = None,
) -> Context:
    """The GM's request form for the roll picked (the first the system offers by default): it reads the party's
    cards for their sheets and names (``cards`` when the page has read them already). ``picks``: a mixed table's
    shared check and rolls picked per system, as the form sent them."""
    system = SYSTEMS.get(campaign.system)
    if not membership.is_gm or system is None:
        return _base(campaign, membership)
    cards = party_cards(campaign) if cards is None else cards
    form = request_form_for(system, cards, procedure, picks=picks or {})
    context = {**_base(campaign, membership), "request_form": form}
    if form is not None:  # the odds of everyone asked at first (the whole party), the player's inputs at defaults
        plan = initial_plan(system, form)
        context["what_ifs"] = list(session.conditions_of(plan).items())
        context["party_odds"] = party_odds_for(plan, cards, None)
    return context


def initial_plan(system: rules_base.GameSystem, form) -> session.Plan:
    """The roll an unfilled request form asks of each system: each roll field's first choice (or the check's)."""
    picked = {system.id: form["procedure"].initial}
    for system_id in getattr(form, "other_systems", []):
        picked[system_id] = form[other_procedure(system_id)].initial
    check = form["check"].initial if "check" in form.fields else ""
    return session.plan_asks(list(picked), check=check or "", procedures=picked)


def form_plan(system: rules_base.GameSystem, form) -> session.Plan:
    """The roll a valid request form asks of each system (CampaignError: a roll a system lacks): a table of one
    system's ``procedure``; a mixed table's shared check or rolls picked per system (issue 42)."""
    procedure = form.cleaned_data.get("procedure") or ""
    if not getattr(form, "other_systems", None):
        return session.one_system_plan(system, procedure, fixed_from(form))
    check, procedures, fixed = picks_from(form)
    systems = [system.id, *form.other_systems]
    return session.plan_asks(
        systems,
        check=check,
        procedures={system.id: procedure, **procedures},
        fixed={system.id: fixed_from(form), **fixed},
    )


def party_odds_for(
    plan: session.Plan, cards: Sequence[Card], character_ids: set[int] | None, rule: str = ""
) -> session.PartyOdds:
    """Each asked character's odds at the roll the GM is composing (``character_ids``: who is ticked; None:
    everyone), from the sheets their cards hold, each at its own system's roll (``plan``), and the party's (under
    a group check's ``rule``)."""
    asked = [(c.character, c.sheet) for c in cards if character_ids is None or c.character.pk in character_ids]
    return session.plan_odds(plan, asked, rule=rule)


def request_form_for(
    system: rules_base.GameSystem,
    cards: Sequence[Card],
    procedure: str,
    data=None,
    picks: Mapping[str, Any] | None = None,
):
    """The GM's request form (None: nobody to ask). At a mixed table (issue 42) it asks a shared check or each
    seated system's own roll; ``picks`` (the form's fields as sent, else ``data``): the check and the rolls picked,
    which decide the inputs each system's roll offers."""
    procedures = session.requestable(system)
    if not procedures or not any(card.sheet is not None for card in cards):
        return None
    picks = picks if picks is not None else (data or {})
    check = str(picks.get("check") or "")
    check = check if check in rules_base.SHARED_CHECKS else ""
    by_system: dict[str, rules_base.Sheet] = {}
    for card in cards:
        if card.sheet is not None:
            by_system.setdefault(card.character.system, card.sheet)
    mixed = any(system_id != system.id for system_id in by_system)

    def chosen_of(rules: rules_base.GameSystem, offered: Mapping[str, rules_base.Procedure], name: str):
        mapped = rules.shared_checks().get(check) if check else None
        if mapped is not None and mapped.procedure in offered:
            return offered[mapped.procedure]
        return offered.get(str(picks.get(name) or "")) or next(iter(offered.values()))

    chosen = procedures.get(procedure) or next(iter(procedures.values()))
    if mixed and not procedure:
        chosen = chosen_of(system, procedures, "procedure")
    sheet = by_system.get(system.id) if mixed else next(iter(by_system.values()))
    characters = [card.character for card in cards]
    if not mixed:
        rules = session.group_rules(system, chosen.key)
        return request_form(procedures, chosen, sheet, characters, data=data, rules=rules)
    others = []
    for system_id, other_sheet in by_system.items():
        other = SYSTEMS.get(system_id)
        offered = session.requestable(other) if other is not None and system_id != system.id else {}
        if other is not None and offered:
            pick = chosen_of(other, offered, other_procedure(system_id))
            others.append((system_id, other.name, offered, pick, other_sheet))
    checks = list(rules_base.SHARED_CHECKS.items())
    form = request_form(
        procedures,
        chosen,
        sheet,
        characters,
        data=data,
        rules=session.group_rules(None, ""),  # several systems: the plain rules combine them
        others=others,
        checks=checks,
        home_name=system.name,
    )
    if "check" in form.fields:  # a form drawn again for the check picked keeps it picked
        form.fields["check"].initial = check
    form.check_map = check_map(check, [(system, sheet), *[(SYSTEMS[o[0]], o[4]) for o in others]])
    return form


def check_map(check: str, systems: Sequence[tuple[rules_base.GameSystem, rules_base.Sheet | None]]) -> list[Context]:
    """What a shared check is in each seated system ("Chaos & Conquest: Save (Attribute STR)"; none: picked below)."""
    if not check:
        return []
    rows = []
    for system, sheet in systems:
        mapped = system.shared_checks().get(check)
        proc = session.requestable(system).get(mapped.procedure) if mapped is not None else None
        if mapped is None or proc is None:
            rows.append({"system": system.name, "roll": "", "system_id": system.id})
            continue
        words = session.ask_words(session.SystemAsk(system, proc, mapped.inputs), sheet, mapped.inputs)
        rows.append(
            {"system": system.name, "roll": proc.label + (f" ({words})" if words else ""), "system_id": system.id}
        )
    return rows


def time_context(
    request: HttpRequest, campaign: Campaign, membership: Membership, *, sheets: list[rules_base.Sheet] | None = None
) -> Context:
    """The game time (on the campaign row), the party's light (its sheets' lit items: ``sheets`` when the page
    has read them already) and, for the GM, the clock's form."""
    context = _base(campaign, membership)
    system = SYSTEMS.get(campaign.system)
    if system is None:
        return context
    party = party_sheets(campaign) if sheets is None else sheets
    if campaign.is_mixed:  # each system that tracks light judges the party by its own rules, each named (issue 42)
        levels = [
            (key, own.name, level)
            for key in campaign.systems
            if (own := SYSTEMS.get(key)) is not None and (level := own.light_level(party)) is not None
        ]
        context["tracks_light"] = bool(levels)
        context["light"] = None
        context["system_lights"] = [] if campaign.daylight else levels
    else:
        level = system.light_level(party)
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
    """Every light at the table with its time left, for the GM's corrections (one query): each read by its
    holder's own system (issue 42: at a mixed table a torch burns by its sheet's rules; ``system``: the home's)."""
    by_system = {key: own.light_sources() for key in campaign.systems if (own := SYSTEMS.get(key)) is not None}
    if not any(lights is not None for lights in by_system.values()):
        return []
    rows = Item.objects.filter(character__campaign=campaign, kind="light").select_related("character")
    out = []
    for row in rows.order_by("character__name", "character_id", "pk"):
        lights = by_system.get(row.character.system)
        if lights is None:
            continue
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


def encounter_context(
    request: HttpRequest, campaign: Campaign, membership: Membership, cards: list[Card] | None = None
) -> Context:
    """The running fight and the saved NPC list, in a fixed number of queries however many NPCs. At a mixed table
    each NPC shows its own system's stat block and rolls, and the GM adds one with a form per system. ``cards``: the
    party the page has read already (its characters are the fight's attackers and targets: no query of them)."""
    system = SYSTEMS.get(campaign.system)
    if system is None:
        return _base(campaign, membership)
    npcs = list(campaign.npcs.select_related("encounter").filter(Q(encounter__isnull=True) | Q(encounter__active=True)))
    encounter = next((n.encounter for n in npcs if n.encounter is not None), None)
    if encounter is None:
        encounter = campaign.encounters.filter(active=True).first()
    if cards is None:
        characters = list(campaign.characters.order_by("name", "pk").values_list("pk", "name", "system"))
    else:
        party = sorted((card.character for card in cards), key=lambda c: (c.name, c.pk))
        characters = [(c.pk, c.name, c.system) for c in party]

    def row(npc: Npc) -> Context:
        rules = SYSTEMS.get(npc.system_of(campaign), system)
        fields = rules.npc_fields()
        stats = [(p.label, dict(p.choices).get(str(npc.stats.get(p.name)), npc.stats.get(p.name))) for p in fields]
        shown_system = rules.name if campaign.is_mixed else ""
        return {"npc": npc, "stats": stats, "rolls": rules.npc_rolls(), "system_name": shown_system}

    fighting = [row(n) for n in npcs if n.encounter is not None]
    # A PC's attack from the tracker is its own system's (GameSystem.attacks_npcs): those who have one attack.
    attackers = [(pk, name) for pk, name, key in characters if key in SYSTEMS and SYSTEMS[key].attacks_npcs]
    return {
        **_base(campaign, membership),
        "encounter": encounter,
        "fighting": fighting,
        "saved_npcs": [row(n) for n in npcs if n.encounter is None],
        "npc_forms": npc_forms(campaign),
        "npc_rolls": any(r["rolls"] for r in fighting),
        "pc_attacks": bool(attackers),
        "attackers": attackers if encounter else [],
        "targets": [(pk, name) for pk, name, _ in characters] if encounter else [],
        "damage_form": DamageForm(auto_id=False),
        "status_form": StatusForm(auto_id=False),
        "encounter_form": EncounterForm(auto_id="id_encounter_%s"),
        # The fight's latest hits, each with the GM's Undo (campaigns.session.hits)
        "hits": undoable_hits(campaign, encounter.pk) if encounter is not None and membership.is_gm else [],
    }


def npc_forms(campaign: Campaign, refused=None) -> list[Context]:
    """The GM's NPC form: one of the table's system, or at a mixed table one per system it plays (home first), each
    its own stat block. ``refused``: a form sent back with its errors, shown in its system's place (open)."""
    if not campaign.is_mixed:
        return [{"form": refused or npc_form(SYSTEMS[campaign.system].npc_fields()), "open": refused is not None}]
    forms = []
    for key in campaign.systems:
        if key not in SYSTEMS:
            continue
        mine = refused is not None and getattr(refused, "npc_system", None) == key
        form = refused if mine else npc_form(SYSTEMS[key].npc_fields(), system=key)
        forms.append({"key": key, "name": SYSTEMS[key].name, "form": form, "open": mine})
    return forms


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


def sessions_context(
    request: HttpRequest,
    campaign: Campaign,
    membership: Membership,
    cards: list[Card] | None = None,
    memberships: list[Membership] | None = None,
) -> Context:
    """The session under way (if any) and the newest ones: one query; for the GM with no session under way, the
    start form's roster and the table's GMs (from ``cards`` and ``memberships`` when the page has read them)."""
    rows = list(campaign.play_sessions.select_related("gm")[: SESSIONS_SHOWN + 1])
    going = next((row for row in rows if row.is_open), None)
    context = {**_base(campaign, membership), "play_sessions": rows[:SESSIONS_SHOWN], "session_going": going}
    if membership.is_gm and going is None:  # the start form: who is here, from the roster, and who runs it
        if cards is None:
            context["roster"] = list(campaign.characters.select_related("owner").order_by("name", "pk"))
        else:
            context["roster"] = sorted((card.character for card in cards), key=lambda c: (c.name, c.pk))
        if memberships is None:
            context["table_gms"] = list(campaign.memberships.filter(role__in=GM_ROLES).select_related("user"))
        else:
            context["table_gms"] = [seat for seat in memberships if seat.role in GM_ROLES]
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


def session_context(
    request: HttpRequest,
    campaign: Campaign,
    membership: Membership,
    cards: list[Card],
    memberships: list[Membership] | None = None,
) -> Context:
    """Every session region for the whole table page, from the party's cards the page has read already, and the
    GM's table rolls, which only the page draws."""
    sheets = [card.sheet for card in cards if card.sheet is not None]
    context: Context = {
        **requests_context(request, campaign, membership),
        **time_context(request, campaign, membership, sheets=sheets),
        **countdowns_context(request, campaign, membership),
        **summary_context(request, campaign, membership),
        **sessions_context(request, campaign, membership, cards, memberships),
    }
    system = SYSTEMS.get(campaign.system)
    if membership.is_gm and system is not None:
        context.update(request_form_context(request, campaign, membership, cards=cards))
        context.update(encounter_context(request, campaign, membership, cards))
        context.update(notes_context(request, campaign, membership))
        context["table_rolls"] = [
            {"procedure": proc, "form": procedure_form(proc, None, id_prefix=f"table-{key}")}
            for key, proc in system.table_procedures().items()
        ]
    return context
