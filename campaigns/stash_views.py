"""The party's stash on the table page (issue 41): HTTP only. Each view reads its form, calls one command
(campaigns.commands) and answers with the stash's region (its sentence on a refusal), or a redirect to the table
without htmx. The stash's own page works offline too: its Take and Put forms are kept on the device and sent to
the sheet's offline endpoint (static/js/offline.js, characters/offline_views.py)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from campaigns import commands
from campaigns.stash_view import stash_context
from core.htmx import HtmxHttpRequest
from live import journal
from rules import RulesError
from rules.errors import Refusal


def _answer(request: HtmxHttpRequest, pk: int, error: str = "") -> HttpResponse:
    seat = commands.stash_seat(request.user, pk)
    if request.method == "POST" and not request.htmx:
        if error:
            messages.error(request, error)
        return redirect(seat.campaign)
    context = {**stash_context(request, seat.campaign, seat), "error": error, "error_region": "stash"}
    if request.method == "GET":
        # Its own page is kept for offline use (static/js/sw.js): a move kept there is sent with the journal cursor
        # the region was drawn at, so a conflict can say what happened at the table meanwhile.
        context["journal_cursor"] = journal.head(seat.campaign.pk)
    if request.method == "GET" and not request.htmx:
        return render(request, "campaigns/stash.html", context)
    return render(request, "campaigns/_stash.html#stash", context, status=422 if error else 200)


def _done(request: HtmxHttpRequest, pk: int, write) -> HttpResponse:
    """Make the write; a refusal a stranger may not read (404) escapes, every other is the region's sentence."""
    commands.stash_seat(request.user, pk)
    try:
        write()
    except Refusal as refusal:
        if refusal.status == 404:
            raise
        return _answer(request, pk, error=str(refusal))
    return _answer(request, pk)


@require_GET
def stash_region(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The stash: its own page without htmx, the table page's region with it."""
    return _answer(request, pk)


@require_POST
def stash_take(request: HtmxHttpRequest, pk: int, stash_item_id: int) -> HttpResponse:
    def write():
        character = commands.whole(request.POST.get("character"), "Who takes it", high=2**62)
        if character is None:
            raise RulesError("Pick who takes it.")
        quantity = commands.whole(request.POST.get("quantity"), "How many")
        commands.take_from_stash(
            request.user, pk, character_id=character, stash_item_id=stash_item_id, quantity=quantity
        )

    return _done(request, pk, write)


@require_POST
def stash_put(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def write():
        character, _, item = str(request.POST.get("item") or "").partition(":")
        who = commands.whole(character, "Item", high=2**62)
        what = commands.whole(item, "Item", high=2**62)
        if who is None or what is None:
            raise RulesError("Pick an item on one of your sheets.")
        quantity = commands.whole(request.POST.get("quantity"), "How many")
        commands.put_in_stash(request.user, pk, character_id=who, item_id=what, quantity=quantity)

    return _done(request, pk, write)


@require_POST
def stash_coins(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def write():
        character = commands.whole(request.POST.get("character"), "Whose purse", high=2**62)
        amount = commands.whole(request.POST.get("amount"), "Coins")
        if character is None or amount is None:
            raise RulesError("Pick whose purse, and how many coins.")
        take = request.POST.get("direction", "take") != "put"
        commands.move_coins(request.user, pk, character_id=character, amount=amount, take=take)

    return _done(request, pk, write)


@require_POST
def stash_add(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def write():
        commands.add_loot(
            request.user,
            pk,
            name=str(request.POST.get("name") or ""),
            kind=str(request.POST.get("kind") or "treasure"),
            slots=commands.whole(request.POST.get("slots"), "Slots", low=0, high=20, blank=1) or 0,
            quantity=commands.whole(request.POST.get("quantity"), "Quantity", high=10_000, blank=1) or 1,
            coins=commands.whole(request.POST.get("coins"), "Coins", low=0, blank=0) or 0,
        )

    return _done(request, pk, write)


@require_POST
def stash_remove(request: HtmxHttpRequest, pk: int, stash_item_id: int) -> HttpResponse:
    def write():
        quantity = commands.whole(request.POST.get("quantity"), "How many")
        commands.remove_loot(request.user, pk, stash_item_id=stash_item_id, quantity=quantity)

    return _done(request, pk, write)


@require_POST
def stash_split(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    def write():
        ids = [commands.whole(raw, "Characters", high=2**62) for raw in request.POST.getlist("characters")[:100]]
        amount = commands.whole(request.POST.get("amount"), "Coins to split")
        if amount is None:
            raise RulesError("Say how many coins to split.")
        commands.split_coins(request.user, pk, character_ids=[i for i in ids if i is not None], amount=amount)

    return _done(request, pk, write)


@require_POST
def stash_revert(request: HtmxHttpRequest, pk: int, entry_id: int) -> HttpResponse:
    def write():
        commands.revert_stash_entry(request.user, pk, entry_id=entry_id, reason=str(request.POST.get("reason") or ""))

    return _done(request, pk, write)
