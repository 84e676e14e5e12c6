"""The one place where a refusal that escaped its view becomes an answer: its sentence and a 4xx, never a 500.

Views show a refusal where the request was made (a form's error, a region's message); this middleware answers
whatever one of them let through (``rules.errors.Refusal``, the base of every service error): htmx gets the
sentence in the page's message area, a plain request a page that says it. A row gone meanwhile
(``Refusal.status`` 404) is answered exactly as a row that never existed.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.handlers.exception import response_for_exception
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from core.errors import Refusal


class RefusalMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, Refusal):
            return None
        if exception.status == 404:
            return response_for_exception(request, Http404(str(exception)))
        if getattr(request, "htmx", False):
            response = render(request, "_refused.html", {"refusal": str(exception)}, status=exception.status)
            # Into the page's message area: the region that asked stays as it was.
            response["HX-Retarget"] = "#messages"
            response["HX-Reswap"] = "innerHTML"
            return response
        return render(request, "refused.html", {"refusal": str(exception)}, status=400)
