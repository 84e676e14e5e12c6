"""Pages and htmx answers compressed on the wire (issue 39): a sheet's 39 KB of HTML is about 7 KB compressed, which
is most of a phone's first load. Brotli for a browser that takes it (every current one, over HTTPS), else gzip.

Brotli at quality 5: 6 % smaller than gzip on the sheet for the same CPU (0.5 ms a sheet; quality 9 and up cost
20-80 times more). gzip is Django's own GZipMiddleware.

BREACH (an attacker who can inject text into a compressed page beside a secret and watch the sizes): the CSRF token
is masked afresh in every response, and both encodings carry "Heal the Breach", up to 100 padding bytes of random
length so that a response's size no longer tells a guess that matched from one that did not: Django's in the gzip
header's filename field, ours in a Brotli metadata block (RFC 7932 9.2: bytes every decoder skips), placed where the
encoder's own flush leaves the stream on a byte boundary. Left uncompressed: the live table's event stream (each
event must leave at once, not wait in a compressor's buffer) and what is already compressed (WhiteNoise serves
static files from above this middleware, precompressed, Brotli included).
"""

from __future__ import annotations

import re
import secrets

import brotli
from django.http import HttpRequest, HttpResponseBase
from django.middleware.gzip import GZipMiddleware
from django.utils.cache import patch_vary_headers

UNCOMPRESSED = ("text/event-stream",)
ACCEPTS_BROTLI = re.compile(r"\bbr\b")
BROTLI_QUALITY = 5


def brotli_padded(data: bytes, max_random_bytes: int = 100) -> bytes:
    """``data`` Brotli-compressed, with 1 to ``max_random_bytes`` bytes of padding that decoders skip."""
    padding = b"a" * (secrets.randbelow(max_random_bytes) + 1)
    # A metadata meta-block: ISLAST 0, MNIBBLES 3 (metadata), reserved 0, MSKIPBYTES 1, MSKIPLEN - 1 in one byte.
    metadata = ((3 << 1) | (1 << 4) | ((len(padding) - 1) << 6)).to_bytes(2, "little") + padding
    compressor = brotli.Compressor(mode=brotli.MODE_TEXT, quality=BROTLI_QUALITY)
    head = compressor.process(b"") + compressor.flush()  # the stream's window size, then a byte boundary
    return head + metadata + compressor.process(data) + compressor.finish()


class PageCompressionMiddleware(GZipMiddleware):
    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if response.get("Content-Type", "").startswith(UNCOMPRESSED):
            return response
        accepts = request.META.get("HTTP_ACCEPT_ENCODING", "")
        if response.streaming or not ACCEPTS_BROTLI.search(accepts):
            return super().process_response(request, response)
        # As GZipMiddleware decides, for the Brotli copy.
        content = response.content  # type: ignore[attr-defined]  # not streaming: an HttpResponse
        if len(content) < 200 or response.has_header("Content-Encoding"):
            return response
        patch_vary_headers(response, ("Accept-Encoding",))
        packed = brotli_padded(content, self.max_random_bytes)
        if len(packed) >= len(content):
            return response
        response.content = packed  # type: ignore[attr-defined]
        response.headers["Content-Length"] = str(len(packed))
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        response.headers["Content-Encoding"] = "br"
        return response
