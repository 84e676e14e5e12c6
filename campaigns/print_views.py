"""The GM's party on paper (issue 40): each character's defences and chances side by side. HTTP only."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET

from campaigns.selectors import campaigns_run_by
from characters.models import Character
from characters.print_view import party_prints, party_rows
from characters.print_views import PAPERS, paper_of
from core.htmx import HtmxHttpRequest


@require_GET
def party_print(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Every character at the table in a column: its tracks (armour among them) and each roll's exact chance, the
    GM's rolls too. The GM's page only (404 to anyone else, as the table's other GM pages); read in a fixed number
    of queries however big the party, and drawn from the sheets as they stand."""
    campaign = get_object_or_404(campaigns_run_by(request.user), pk=pk)
    characters = (
        Character.objects.filter(campaign=campaign).select_related("owner").prefetch_related("items", "hirelings")
    )
    prints = party_prints(request.user, campaign, characters.order_by("name", "pk"))
    defences, chances = party_rows(prints)
    context = {
        "campaign": campaign,
        "prints": prints,
        "defences": defences,
        "chances": chances,
        "paper": paper_of(request),
        "papers": PAPERS,
        "system_id": campaign.system,
    }
    return render(request, "campaigns/party_print.html", context)
