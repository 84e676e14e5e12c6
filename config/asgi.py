"""ASGI entry point: serves every page and the server-sent event streams of the live table.

``/campaigns/<id>/events/`` goes to a raw ASGI endpoint (live.stream.asgi_events) so an open stream
holds neither a thread nor a database connection; everything else goes to Django. The lifespan protocol
refuses a second server process on SQLite and stops the LISTEN connection on shutdown.
"""

from __future__ import annotations

import os
from typing import Any

from django.core.asgi import get_asgi_application
from django.core.exceptions import ImproperlyConfigured

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
django_application = get_asgi_application()

from django.urls import Resolver404, resolve  # noqa: E402 - after setup

from live import hub as live  # noqa: E402
from live import stream  # noqa: E402


def _events_campaign(path: str) -> int | None:
    """The campaign id if ``path`` is the live-table stream, wherever campaigns/urls.py puts it."""
    if not path.endswith("/events/"):
        return None
    try:
        match = resolve(path)
    except Resolver404:
        return None
    return match.kwargs["pk"] if match.func is stream.events else None


async def _lifespan(receive, send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            try:
                live.claim_single_process()
            except ImproperlyConfigured as error:
                await send({"type": "lifespan.startup.failed", "message": str(error)})
                return
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await live.hub.aclose()
            await send({"type": "lifespan.shutdown.complete"})
            return


async def application(scope: dict[str, Any], receive, send) -> None:
    if scope["type"] == "http" and (campaign_id := _events_campaign(scope["path"])) is not None:
        await stream.asgi_events(scope, receive, send, campaign_id)
    elif scope["type"] == "lifespan":
        await _lifespan(receive, send)
    else:
        await django_application(scope, receive, send)
