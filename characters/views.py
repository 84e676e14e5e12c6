"""Character pages: HTTP only. Authorise through selectors, change through services."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render

from characters.selectors import characters_visible_to
from config.htmx import HtmxHttpRequest


def character_list(request: HtmxHttpRequest) -> HttpResponse:
    characters = characters_visible_to(request.user).filter(owner=request.user).select_related("campaign")
    return render(request, "characters/list.html", {"characters": characters})
