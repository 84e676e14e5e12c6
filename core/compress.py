"""Pages and htmx answers gzipped on the wire (issue 39): a sheet's 45 KB of HTML is about 8 KB gzipped, which is
most of a phone's first load.

Django's own GZipMiddleware, which answers BREACH (an attacker who can inject text into a compressed page beside
a secret and watch the sizes) with "Heal the Breach": up to 100 random bytes in the gzip header's filename field,
so a response's size no longer tells a guess that matched from one that did not; the CSRF token is masked afresh
in every response besides. Left uncompressed: the live table's event stream (each event must leave at once, not
wait in a compressor's buffer) and what is already compressed (WhiteNoise serves static files from above this
middleware, precompressed).
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware

UNCOMPRESSED = ("text/event-stream",)


class PageGZipMiddleware(GZipMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.get("Content-Type", "").startswith(UNCOMPRESSED):
            return response
        return super().process_response(request, response)
