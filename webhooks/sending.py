"""Sending one delivery: the URL checked against server-side request forgery, the body signed, one POST.

A URL must be http(s), at most ``URL_MAX`` long, and every address its host resolves to must be a public one
(not private, loopback, link-local, multicast or reserved) unless ``settings.WEBHOOKS_ALLOW_PRIVATE``
(development and tests). The check runs when the webhook is saved and again at every try, and the connection
goes to the very address that was checked, so a name that resolves elsewhere a second later (DNS rebinding)
reaches nothing new. Redirects are not followed; the answer is read to at most ``RESPONSE_READ_MAX`` bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import socket
import ssl
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings

from webhooks.models import URL_MAX

RESPONSE_READ_MAX = 4096
DISCORD_HOSTS = {"discord.com", "discordapp.com", "ptb.discord.com", "canary.discord.com"}


class Refused(Exception):
    """A URL Lantern will not post to, with the sentence that says why."""


def is_discord(url: str) -> bool:
    parts = urlsplit(url)
    return (parts.hostname or "").lower() in DISCORD_HOSTS and parts.path.startswith("/api/webhooks/")


def check_url(url: str) -> tuple[str, int, list[str]]:
    """(host, port, the addresses it may be reached at), or Refused with a sentence."""
    if len(url) > URL_MAX:
        raise Refused(f"The URL is longer than {URL_MAX} characters.")
    parts = urlsplit(url)
    if parts.scheme not in {"http", "https"}:
        raise Refused("The URL must start with https:// (or http://).")
    if not parts.hostname:
        raise Refused("The URL names no host.")
    if parts.username or parts.password:
        raise Refused("The URL must not carry a user name or password.")
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise Refused("The URL's port is not a number from 1 to 65535.") from None
    try:
        found = socket.getaddrinfo(parts.hostname, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise Refused(f"The host {parts.hostname} could not be found.") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        for address in addresses:
            if not _public(address):
                raise Refused(f"The host {parts.hostname} is a private or reserved address ({address}): not allowed.")
    if not addresses:
        raise Refused(f"The host {parts.hostname} could not be found.")
    return parts.hostname, port, addresses


def _public(address: str) -> bool:
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_link_local or ip.is_loopback)


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """HMAC-SHA256 of ``timestamp.body`` with the webhook's secret: what X-Lantern-Signature carries."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


@dataclass(frozen=True)
class Answer:
    ok: bool
    status: int | None
    reason: str  # empty when ok
    retry_after: float | None = None


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to ``url`` once; never raises for what a network or a receiver can do."""
    try:
        host, port, addresses = check_url(url)
    except Refused as refusal:
        return Answer(False, None, str(refusal))
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    timeout = settings.WEBHOOK_TIMEOUT_SECONDS
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = _PinnedHTTPS(host, port, addresses[0], timeout=timeout)
    else:
        connection = _PinnedHTTP(host, port, addresses[0], timeout=timeout)
    deadline = time.monotonic() + timeout
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(RESPONSE_READ_MAX)  # bounded: a receiver's answer is never kept whole
        status = response.status
        retry_after = _seconds(response.getheader("Retry-After"))
    except (OSError, http.client.HTTPException) as problem:
        late = time.monotonic() >= deadline or isinstance(problem, TimeoutError | socket.timeout)
        words = f"no answer within {timeout} seconds" if late else f"could not connect ({type(problem).__name__})"
        return Answer(False, None, f"The receiver gave {words}.")
    finally:
        connection.close()
    if 200 <= status < 300:
        return Answer(True, status, "")
    if 300 <= status < 400:
        return Answer(False, status, f"The receiver answered {status} (a redirect): redirects are not followed.")
    return Answer(False, status, f"The receiver answered {status}.", retry_after)


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


class _PinnedHTTP(http.client.HTTPConnection):
    """A connection to the address that was checked, whatever the host name resolves to now."""

    def __init__(self, host: str, port: int, address: str, **kwargs) -> None:
        super().__init__(host, port, **kwargs)
        self.address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, **kwargs) -> None:
        super().__init__(host, port, context=ssl.create_default_context(), **kwargs)
        self.address = address

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]
