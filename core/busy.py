"""Busy is a 503 with ``Retry-After`` and a sentence, never a 500 (issue 35, item 11).

When more people write at once than the database takes, a request waits for SQLite's write lock or for a
connection from psycopg's pool, and gives up after the timeout: SQLite's ``OperationalError: database is
locked``, the pool's ``PoolTimeout`` (which Django hands on as an ``OperationalError``). Every write runs in one
transaction, so the request that gave up changed nothing; the person is told to try again in a moment, where they
acted: htmx gets the sentence in the page's message area (as a refusal, core.refusals), the API and the
offline changes' endpoint JSON, a plain request a page.

``BusyMiddleware`` answers what a view let through; ``server_error`` (handler500) what a middleware did (the
session read at the start of a request), whenever Django would otherwise send its 500 page.
"""

from __future__ import annotations

import sys

from django.db import OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils.deprecation import MiddlewareMixin
from django.views import defaults
from psycopg_pool import PoolTimeout

RETRY_AFTER = 2  # seconds: a burst of writes drains in well under that
SENTENCE = "Lantern is busy with everyone's changes right now; nothing was saved. Try again in a moment."


def is_busy(error: BaseException | None) -> bool:
    """Whether ``error`` is the database being too busy to serve this request in time (not a fault)."""
    while error is not None:
        if isinstance(error, PoolTimeout):
            return True
        if isinstance(error, OperationalError) and "database is locked" in str(error):
            return True
        error = error.__cause__
    return False


def busy_answer(request: HttpRequest) -> HttpResponse:
    """The 503 for a request the database was too busy for, in the form its asker reads."""
    response: HttpResponse
    if request.path.startswith("/api/"):
        response = JsonResponse({"detail": SENTENCE}, status=503)
    elif request.content_type == "application/json":  # the offline changes' endpoint: the device sends it later
        response = JsonResponse({"outcome": "busy", "message": SENTENCE}, status=503)
    elif request.headers.get("HX-Request") == "true":  # read here: a middleware before htmx's may have given up
        response = render(request, "_refused.html", {"refusal": SENTENCE}, status=503)
        response["HX-Retarget"] = "#messages"  # static/js/lantern.js swaps our 503 there
        response["HX-Reswap"] = "innerHTML"
    else:
        response = render(request, "refused.html", {"refusal": SENTENCE}, status=503)
    response["Retry-After"] = str(RETRY_AFTER)
    return response


class BusyMiddleware(MiddlewareMixin):
    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return busy_answer(request) if is_busy(exception) else None


def server_error(request: HttpRequest) -> HttpResponse:
    """handler500: Django calls it while handling the exception, so ``sys.exc_info`` says what went wrong."""
    if not is_busy(sys.exc_info()[1]):
        return defaults.server_error(request)
    try:
        return busy_answer(request)
    except Exception:  # noqa: BLE001 - drawing the page needed the database too: the sentence alone
        response = HttpResponse(SENTENCE, content_type="text/plain; charset=utf-8", status=503)
        response["Retry-After"] = str(RETRY_AFTER)
        return response
