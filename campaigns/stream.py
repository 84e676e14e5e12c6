"""The live table's server-sent event stream (filled in by the live-table work)."""

from __future__ import annotations

from django.http import Http404


async def events(request, pk: int):
    raise Http404
