"""The GM's table page, region by region: what each live region draws, and nothing else.

Every open table page re-fetches a region on its signal (the log on each roll, the party on each change), so
each region's context comes from its own builder, which reads only that region's rows in a fixed number of
queries however big the party. The whole page is the union of the same builders plus the page-only parts
(the session tools, the GM's forms): a region drawn alone and drawn in the page come from one piece of code.
Reads only; the viewer's seat (``membership``) decides what a player may see, as the page always did.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from campaigns.card_cache import kept_cards
from campaigns.forms import ClockForm
from campaigns.models import Campaign, Membership
from campaigns.session_view import realtime_view, session_context
from campaigns.stash_view import stash_context
from campaigns.table import Card, party_cards, party_sheets, roll_log
from characters.forms import procedure_form
from characters.system_templates import system_template
from live import journal
from live.hub import present_user_ids
from rules import SYSTEMS
from rules.base import Sheet
from rules.free import FREE_ROLL

Context = dict[str, Any]


def _base(campaign: Campaign, membership: Membership) -> Context:
    """What every region's markup reads: the table (its URLs, its clock) and whether the viewer runs it."""
    return {"campaign": campaign, "membership": membership}


def clock_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The round and the game time (on the campaign row itself); in a fight, the round's order and whose turn it
    is (the running encounter), and how the rounds count as game time (the system's round length); the game time
    ticks in the page while it runs with the wall clock (issue 41)."""
    context = {**_base(campaign, membership), "realtime": realtime_view(campaign)}
    if not campaign.round:
        return context
    encounter = campaign.encounters.filter(active=True).first()
    system = SYSTEMS.get(campaign.system)
    if encounter is None or system is None:
        return context
    return {**context, "encounter": encounter, "fight_seconds": encounter.round * system.combat_round_seconds}


def party_context(
    request: HttpRequest, campaign: Campaign, membership: Membership, *, cards: list[Card] | None = None
) -> Context:
    """A card per character (``cards`` when the page has read them already for its other parts), each drawn once
    per state and kind of viewer and kept (campaigns.card_cache)."""
    cards = party_cards(campaign) if cards is None else cards
    return {**_base(campaign, membership), "cards": kept_cards(campaign, membership, request.user, cards)}


def light_context(
    request: HttpRequest, campaign: Campaign, membership: Membership, *, sheets: list[Sheet] | None = None
) -> Context:
    """The table's light as a chip beside the party on the GM's strip: "daylight", the system's level from the
    party's lit lights (``sheets`` when the page has read them already), or None where the system keeps none."""
    system = SYSTEMS.get(campaign.system)
    level = None if system is None else system.light_level(party_sheets(campaign) if sheets is None else sheets)
    light = None if level is None else ("daylight" if campaign.daylight else level)
    return {**_base(campaign, membership), "party_light": light}


def log_context(request: HttpRequest, campaign: Campaign, membership: Membership) -> Context:
    """The newest rolls this viewer may see: a player never gets the GM-only ones (``roll_log`` filters)."""
    rolls, has_older = roll_log(request.user, campaign, role=membership.role)
    # system_id: the outcome words of the log's rolls
    return {**_base(campaign, membership), "system_id": campaign.system, "rolls": rolls, "has_older": has_older}


def members_context(
    request: HttpRequest, campaign: Campaign, membership: Membership, *, present: set[int] | None = None
) -> Context:
    """Who sits at the table and who has a page of it open (``present`` when the page has asked already; the
    invite link is the page's: page_context)."""
    return {
        **_base(campaign, membership),
        "memberships": list(campaign.memberships.select_related("user")),
        "present": present_user_ids(campaign.pk) if present is None else present,
    }


# The live regions of templates/campaigns/detail.html, each with its builder (campaigns:region serves these).
REGIONS: dict[str, Callable[[HttpRequest, Campaign, Membership], Context]] = {
    "party": party_context,
    "log": log_context,
    "members": members_context,
    "clock": clock_context,
    "party-light": light_context,
}


def card_context(campaign: Campaign, membership: Membership | None, card: Card, error: str = "") -> Context:
    """Just what one card needs: every open table page re-fetches it on each change to that character."""
    return {"campaign": campaign, "membership": membership, "card": card, "error": error}


def invite_url(request: HttpRequest, campaign: Campaign) -> str:
    return request.build_absolute_uri(reverse("campaigns:join", args=[campaign.invite_code]))


def page_context(
    request: HttpRequest,
    campaign: Campaign,
    membership: Membership,
    *,
    after: int | None = None,
    present: set[int] | None = None,
) -> Context:
    """The whole table page: every region's builder, then what only the page draws. ``after``: the journal's head
    as read before any of the page's reads (with the seat: campaigns.page_cache), ``present``: who is here, when
    the caller has asked."""
    # Before any of the page's reads: its stream gets every entry after this (one written meanwhile twice, harmless).
    after = journal.head(campaign.pk) if after is None else after
    cards = party_cards(campaign)  # read once: the party region, the session tools and the GM's tools share them
    context: Context = {
        **clock_context(request, campaign, membership),
        **party_context(request, campaign, membership, cards=cards),
        **light_context(request, campaign, membership, sheets=[c.sheet for c in cards if c.sheet is not None]),
        **log_context(request, campaign, membership),
        **members_context(request, campaign, membership, present=present),
    }
    context.update(session_context(request, campaign, membership, cards, context["memberships"]))
    context.update(stash_context(request, campaign, membership))
    context["journal_cursor"] = after
    if membership.is_gm:
        context["invite_url"] = invite_url(request, campaign)
        context["gm_roll_form"] = procedure_form(FREE_ROLL, None, id_prefix="gm")
        context["clock_form"] = ClockForm()
        context["gm_tools"] = gm_tools(campaign, cards)
    return context


def gm_tools(campaign: Campaign, cards: list[Card]) -> list[Context]:
    """The GM tools a system adds to the table (party saves, morale, monsters by HD...: templates/systems/<id>/
    gm_tools.html), each with its ``table_facts`` over the party's sheets of that system. At a mixed table, one
    block per system: the home system's always, another's when a PC of it sits here. Each block's tools are its
    own system's rolls and NPCs (a party save led by one of its PCs, a monster of its stat block), so none speaks
    for the whole table; the table-wide ones (the clock's units, the table rolls' travel and encounter checks)
    stay the home system's, as the clock does."""
    seated = {card.character.system for card in cards}
    tools = []
    for key in campaign.systems:
        if key not in SYSTEMS or (key != campaign.system and key not in seated):
            continue
        party = [(c.character.pk, c.sheet) for c in cards if c.sheet is not None and c.character.system == key]
        facts = SYSTEMS[key].table_facts(party)
        tools.append({"system": key, "template": system_template(key, "gm_tools"), "table": facts})
    return tools
