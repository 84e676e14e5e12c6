"""Security headers every response carries: pages, fragments, errors and the raw event stream.

Constant headers need no library. ``SECURITY_HEADERS`` is shared with live/stream.py, whose raw
ASGI endpoint bypasses this middleware, so a stream is no weaker than a page (issue 9, finding 11).
"""

from __future__ import annotations

from collections.abc import Callable

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils.decorators import sync_and_async_middleware

# No 'unsafe-inline' anywhere: htmx is configured (base.html) to inject no <style> and evaluate nothing.
CONTENT_SECURITY_POLICY = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "font-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "form-action 'self'",
    ]
)
# A game table needs none of these browser powers; deny them so injected code can't ask for them either.
PERMISSIONS_POLICY = ", ".join(
    f"{feature}=()"
    for feature in (
        "accelerometer",
        "autoplay",
        "camera",
        "display-capture",
        "geolocation",
        "gyroscope",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
)

SECURITY_HEADERS = {
    "Content-Security-Policy": CONTENT_SECURITY_POLICY,
    "Permissions-Policy": PERMISSIONS_POLICY,
    "Cross-Origin-Opener-Policy": "same-origin",
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


def _add_headers(response: HttpResponse) -> HttpResponse:
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)  # a view may set a narrower policy of its own
    return response


@sync_and_async_middleware
def SecurityHeadersMiddleware(get_response: Callable) -> Callable:  # noqa: N802 - named like a middleware class
    """Adds SECURITY_HEADERS to every Django response; async-capable so streams don't get a thread."""
    if iscoroutinefunction(get_response):

        async def middleware(request: HttpRequest) -> HttpResponse:
            return _add_headers(await get_response(request))

        return markcoroutinefunction(middleware)

    def middleware_sync(request: HttpRequest) -> HttpResponse:
        return _add_headers(get_response(request))

    return middleware_sync
