"""Sheets on paper (issue 40): a character's printed page, and a convention's pregen. HTTP only."""

from __future__ import annotations

import secrets

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from characters.print_view import SEED_MAX, character_print, pregen_print
from characters.views import visible_seat
from core.htmx import HtmxHttpRequest
from rules import SYSTEM_NAMES, SYSTEMS

PAPERS = ("a4", "letter")


def paper_of(request) -> str:
    """The paper asked (?paper=letter), A4 otherwise: the page's @page size follows it."""
    paper = request.GET.get("paper", "")
    return paper if paper in PAPERS else "a4"


@require_GET
def character_print_view(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """The character on one page, with each roll's exact chance beside it: whoever may see the sheet may print
    it, and reads on it what the sheet shows them (the odds for the owner and the GM)."""
    printed = character_print(visible_seat(request, pk))
    context = {**printed.context(), "paper": paper_of(request), "papers": PAPERS}
    return render(request, "characters/print.html", context)


@require_GET
def pregen_list(request: HtmxHttpRequest) -> HttpResponse:
    """A fresh character of each system to print for a convention's table: nothing is saved."""
    systems = [(key, SYSTEM_NAMES[key]) for key in SYSTEMS]
    return render(request, "characters/pregens.html", {"systems": systems})


@require_GET
def pregen(request: HtmxHttpRequest, system: str) -> HttpResponse:
    """A character made by ``system``'s creation rules from ``?seed=`` (a new seed without one, said on the page
    so the same character prints again), printed and never saved."""
    if system not in SYSTEMS:
        raise Http404("No game system with character sheets by that name.")
    raw = request.GET.get("seed", "")
    if raw:
        if not raw.isdigit() or int(raw) > SEED_MAX:
            return render(
                request,
                "characters/pregens.html",
                {
                    "systems": [(key, SYSTEM_NAMES[key]) for key in SYSTEMS],
                    "error": f"A seed is a whole number from 0 to {SEED_MAX}.",
                },
                status=400,
            )
        seed = int(raw)
    else:
        seed = secrets.randbelow(SEED_MAX + 1)
    printed = pregen_print(system, seed)
    context = {**printed.context(), "paper": paper_of(request), "papers": PAPERS, "seed": seed, "pregen": True}
    return render(request, "characters/print.html", context)
