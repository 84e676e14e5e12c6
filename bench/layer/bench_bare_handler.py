"""Django with no middleware at all, for ``/bench/django/``: the floor Django itself sets (URL resolving, the
request and response objects, the view) under Lantern's middleware stack.

bench/pages.py serves ``bench_bare_wsgi:application`` or ``bench_bare_asgi:application`` (this folder on
PYTHONPATH): every other path goes to the checkout's own application, unchanged.
"""

from __future__ import annotations

from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.exception import convert_exception_to_response
from django.core.handlers.wsgi import WSGIHandler

PREFIX = "/bench/django/"


class _NoMiddleware:
    def load_middleware(self, is_async: bool = False) -> None:
        self._view_middleware: list = []
        self._template_response_middleware: list = []
        self._exception_middleware: list = []
        handler = self._get_response_async if is_async else self._get_response  # type: ignore[attr-defined]
        self._middleware_chain = convert_exception_to_response(handler)


class BareWSGIHandler(_NoMiddleware, WSGIHandler):
    pass


class BareASGIHandler(_NoMiddleware, ASGIHandler):
    pass
