"""The live table's server-sent event stream: GET /campaigns/<id>/events/, members only.

``config/asgi.py`` routes this URL to ``asgi_events``, a raw ASGI endpoint: Django's ASGI handler would
pin one OS thread (and its middleware) to every open stream for the stream's whole life (architecture
pitfall 2). The Django view ``events`` below serves the same stream wherever that router is not in front
(the test client, another ASGI server setup); it keeps ``reverse("campaigns:events", …)`` working.

Either way: authorise, release the database connection, then stream signals without touching the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from importlib import import_module
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import DisallowedHost
from django.core.handlers.asgi import ASGIRequest
from django.db import InterfaceError, OperationalError, connections
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotAllowed,
    HttpResponseNotFound,
    StreamingHttpResponse,
)
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.middleware.security import SecurityMiddleware
from django.utils.module_loading import import_string

from config.security import SECURITY_HEADERS
from live.hub import CLOSE, hub
from live.relay import session_hash

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

CONTENT_TYPE = "text/event-stream"
# no-cache and X-Accel-Buffering: proxies (nginx) must pass every frame at once (pitfall 6).
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **SECURITY_HEADERS}  # the pages' headers too
# First bytes: the browser fires "open" on the headers; retry sets its reconnect delay (ms).
OPEN = b": open\nretry: 2000\n\n"
MAX_BATCH = 64  # frames written in one send when several are waiting
ATTEMPTS = 3  # an authorisation whose connection PostgreSQL dropped under it runs again, this often in all
PAGES = re.compile(r"table|sheet-[1-9][0-9]{0,11}")  # ?page=: which page a stream feeds (see Hub.subscribe)


def after_of(last_event_id: str | None, query: str | None) -> int | None:
    """The journal's cursor the stream's page shows: the browser's ``Last-Event-ID`` when it reconnects (the id of
    the last push it had), else ``?after=`` (the cursor the page was drawn at); None (its whole page) for neither."""
    for value in (last_event_id, query):
        if value and value.isascii() and value.isdigit() and len(value) <= 18:
            return int(value)
    return None


def page_of(query: str | None) -> str:
    """The page a stream's ``?page=`` names, or "" (it then hears signals only); the renderer draws a sheet only
    for a character of the stream's campaign, so a made-up number shows nothing."""
    return query if query and PAGES.fullmatch(query) else ""


def _is_member(user, campaign_id: int) -> bool:
    """Asked of the app that owns campaigns (settings.LIVE_MEMBERSHIP_CHECK): live imports no app of its own."""
    return import_string(settings.LIVE_MEMBERSHIP_CHECK)(user, campaign_id)


def _reads_then_release(function: Callable[..., Any], *args: Any) -> Any:
    """Run a stream's read-only authorisation, then hand the connection back before a stream that may stay
    open for hours (pitfall 3), in the thread that used it.

    The pool checks a connection only when it hands it out: one PostgreSQL drops while the reads use it (a
    restart, a failover, pg_terminate_backend) failed the stream with a 500. These reads change nothing, so
    they run again on a fresh connection; the dead one is handed back too, and the pool discards it.
    """
    attempt = 1
    while True:
        try:
            return function(*args)
        except (OperationalError, InterfaceError):
            if attempt == ATTEMPTS or not _connection_dropped():
                raise  # not a dropped connection (a pool timeout, a bad query): nothing runs again
        finally:
            connections.close_all()
        attempt += 1


def _connection_dropped() -> bool:
    """True once this thread's connection has been lost (psycopg marks it closed); never on SQLite."""
    return bool(getattr(connections["default"].connection, "closed", False))


def _is_member_then_release(user, campaign_id: int) -> bool:
    return _reads_then_release(lambda: user.is_authenticated and _is_member(user, campaign_id))


async def events(request: HttpRequest, pk: int) -> HttpResponse | StreamingHttpResponse:
    """The stream through Django's own handler (LoginRequiredMiddleware has turned anonymous users away)."""
    user = await request.auser()
    user_id = user.pk  # None: anonymous, refused like a stranger
    if user_id is None or not await sync_to_async(_is_member_then_release)(user, pk):
        raise Http404
    if (refusal := _over_the_cap(user_id)) is not None:
        return refusal
    session = session_hash(request.session.session_key)
    page, csrf = page_of(request.GET.get("page")), get_token(request)
    after = after_of(request.headers.get("Last-Event-ID"), request.GET.get("after"))
    frames = _frames(pk, user_id, session, page, csrf, after)
    return StreamingHttpResponse(frames, content_type=CONTENT_TYPE, headers=HEADERS)


def _over_the_cap(user_id: int) -> HttpResponse | None:
    """A 429 when this account already holds its share of streams in this process (checked and
    subscribed without an await in between, so two requests can't both slip under the cap)."""
    if hub.streams_of(user_id) < settings.SSE_MAX_STREAMS_PER_USER:
        return None
    message = "Too many Lantern pages are open for your account: close some tabs, then reload this one."
    return HttpResponse(message, status=429, content_type="text/plain; charset=utf-8")


async def _frames(
    campaign_id: int, user_id: int, session: str, page: str, csrf: str, after: int | None
) -> AsyncIterator[bytes]:
    async with hub.subscribe(campaign_id, user_id, session, page=page, csrf=csrf, after=after) as queue:
        yield OPEN
        # Events and the hub's pings until the hub closes the stream (its user lost the right to it);
        # Django cancels this when the client goes.
        while (frame := await queue.get()) != CLOSE:
            yield frame


# --- the raw ASGI endpoint -------------------------------------------------------------------------


Authorised = tuple[int, str, str, str, int | None]  # user id, session hash, page, CSRF token, journal cursor


def _authorise(scope: Scope, campaign_id: int) -> Authorised | HttpResponse:
    """A member's user id, session hash, page and CSRF token, or the response that turns the request away (as
    Django would)."""
    return _reads_then_release(_authorise_once, scope, campaign_id)


def _authorise_once(scope: Scope, campaign_id: int) -> Authorised | HttpResponse:
    request = ASGIRequest(scope, io.BytesIO())
    if request.method != "GET":
        return HttpResponseNotAllowed(["GET"])
    try:
        request.get_host()  # ALLOWED_HOSTS
    except DisallowedHost:
        return HttpResponseBadRequest()
    redirect = SecurityMiddleware(lambda r: HttpResponse()).process_request(request)  # SECURE_SSL_REDIRECT
    if redirect is not None:
        return redirect
    engine = import_module(settings.SESSION_ENGINE)
    request.session = engine.SessionStore(request.COOKIES.get(settings.SESSION_COOKIE_NAME))
    user = auth.get_user(request)
    if not user.is_authenticated:
        return redirect_to_login(request.get_full_path())  # what LoginRequiredMiddleware does
    if not _is_member(user, campaign_id):
        return HttpResponseNotFound(b"Not found")
    CsrfViewMiddleware(lambda r: HttpResponse()).process_request(request)  # reads the page's CSRF cookie
    page = page_of(request.GET.get("page"))
    after = after_of(request.headers.get("Last-Event-ID"), request.GET.get("after"))
    return user.pk, session_hash(request.session.session_key), page, get_token(request), after


async def asgi_events(scope: Scope, receive: Receive, send: Send, campaign_id: int) -> None:
    # Not thread_sensitive: a pooled thread for a few milliseconds, none held for the stream's life.
    outcome = await sync_to_async(_authorise, thread_sensitive=False)(scope, campaign_id)
    if isinstance(outcome, HttpResponse):
        await _send_response(send, outcome)
        return
    user_id, session, page, csrf, after = outcome
    if (refusal := _over_the_cap(user_id)) is not None:
        await _send_response(send, refusal)
        return
    async with hub.subscribe(campaign_id, user_id, session, page=page, csrf=csrf, after=after) as queue:
        headers = [(b"content-type", CONTENT_TYPE.encode())]
        headers += [(name.lower().encode(), value.encode()) for name, value in HEADERS.items()]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": OPEN, "more_body": True})
        watcher = asyncio.create_task(_close_on_disconnect(receive, campaign_id, queue))
        try:
            # The hot path of the fan-out: one queue wake-up and one send per event, no timers, no tasks.
            while (frame := await queue.get()) != CLOSE:
                frames = [frame]
                while len(frames) < MAX_BATCH and not queue.empty():
                    frames.append(queue.get_nowait())
                if CLOSE in frames:
                    break
                await send({"type": "http.response.body", "body": b"".join(frames), "more_body": True})
        finally:
            watcher.cancel()
            with contextlib.suppress(Exception):  # the client may be gone; finishing the response is polite
                await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _close_on_disconnect(receive: Receive, campaign_id: int, queue: asyncio.Queue[bytes]) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    hub.close_stream(campaign_id, queue)


async def _send_response(send: Send, response: HttpResponse) -> None:
    for name, value in SECURITY_HEADERS.items():  # a refusal is a page too: same headers as the middleware's
        response.headers.setdefault(name, value)
    headers = [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in response.items()]
    await send({"type": "http.response.start", "status": response.status_code, "headers": headers})
    await send({"type": "http.response.body", "body": response.content})
