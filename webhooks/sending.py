"""Sending one delivery: the URL checked against server-side request forgery, the body signed, one POST.

A URL must be http(s), at most ``URL_MAX`` long, and every address its host resolves to must be a public one
(not private, loopback, link-local, multicast or reserved, nor an IPv6 address that carries such an IPv4 one:
6to4, Teredo, IPv4-mapped, IPv4-compatible, NAT64) unless ``settings.WEBHOOKS_ALLOW_PRIVATE`` (development and
tests). The check runs when the webhook is saved and again at every try, and the connection goes to the very
address that was checked, so a name that resolves elsewhere a second later (DNS rebinding) reaches nothing new.
Redirects are not followed; the answer is read to at most ``RESPONSE_READ_MAX`` bytes. Connecting and each read
have their own timeouts (``WEBHOOK_CONNECT_TIMEOUT_SECONDS``, ``WEBHOOK_READ_TIMEOUT_SECONDS``).
"""

from __future__ import annotations

import hashlib
import hmac
import http.client
import ipaddress
import socket
import ssl
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
            inward = not_public(address)
            if inward is not None:
                raise Refused(f"The host {parts.hostname} is a private or reserved address ({inward}): not allowed.")
    if not addresses:
        raise Refused(f"The host {parts.hostname} could not be found.")
    return parts.hostname, port, addresses


# IPv6 prefixes that carry an IPv4 address in their last 32 bits: NAT64's well-known prefix (RFC 6052) and the
# IPv4-compatible addresses (::a.b.c.d, deprecated but still routed by some stacks).
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
IPV4_COMPATIBLE = ipaddress.IPv6Network("::/96")
# NAT64 for a network's own use (RFC 8215): where its IPv4 address sits is the network's choice, so none is public.
LOCAL_NAT64 = ipaddress.IPv6Network("64:ff9b:1::/48")


def not_public(address: str) -> str | None:
    """None for a public address; else the address in words, with the IPv4 address it carries when that one is
    what is not public ("2002:7f00:1::, which carries 127.0.0.1")."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv4Address) or ip.is_loopback or ip.is_unspecified or ip in LOCAL_NAT64:
        return None if _public(ip) else address
    for inner in embedded_ipv4(ip):
        if not _public(inner):
            return f"{address}, which carries {inner}"
    if ip.ipv4_mapped is not None:  # the IPv4 address itself is what is reached
        return None
    return None if _public(ip) else address


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 one wraps, which a relay or translator would reach: IPv4-mapped, 6to4, Teredo
    (its server and its client), NAT64, IPv4-compatible."""
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)
    if ip in NAT64 or ip in IPV4_COMPATIBLE:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    return []


def _public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    return ip.is_global and not (ip.is_multicast or ip.is_reserved or ip.is_link_local or ip.is_loopback)


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """HMAC-SHA256 of ``timestamp.body`` with the webhook's secret: what X-Lantern-Signature carries."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


# 4xx answers worth another try: the receiver timed the request out (408) or asks us to slow down (429). Any
# other 4xx refuses the request itself (a deleted Discord webhook answers 404), and the same request again would
# be refused again.
RETRIED_4XX = {408, 429}


@dataclass(frozen=True)
class Answer:
    ok: bool
    status: int | None
    reason: str  # empty when ok
    retry_after: float | None = None
    timed_out: bool = False  # no connection or no answer within its timeout: the try held the worker that long
    final: bool = False  # not worth another try (a 4xx other than 408 and 429)


def post(url: str, body: bytes, headers: dict[str, str]) -> Answer:
    """POST ``body`` to ``url`` once; never raises for what a network or a receiver can do."""
    try:
        host, port, addresses = check_url(url)
    except Refused as refusal:
        return Answer(False, None, str(refusal))
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    connect, read = settings.WEBHOOK_CONNECT_TIMEOUT_SECONDS, settings.WEBHOOK_READ_TIMEOUT_SECONDS
    connection: _PinnedHTTP | _PinnedHTTPS
    if parts.scheme == "https":
        connection = _PinnedHTTPS(host, port, addresses[0], connect_timeout=connect, timeout=read)
    else:
        connection = _PinnedHTTP(host, port, addresses[0], connect_timeout=connect, timeout=read)
    try:
        connection.request("POST", target, body=body, headers=headers)
        response = connection.getresponse()
        response.read(RESPONSE_READ_MAX)  # bounded: a receiver's answer is never kept whole
        status = response.status
        retry_after = _seconds(response.getheader("Retry-After"))
    except (OSError, http.client.HTTPException) as problem:
        late = isinstance(problem, TimeoutError | socket.timeout)
        if late and not connection.connected:
            words = f"could not be reached within {connect:g} seconds"
        elif late:
            words = f"gave no answer within {read:g} seconds"
        elif not connection.connected:
            words = f"could not be reached ({type(problem).__name__})"
        else:  # a TLS handshake that failed, a connection dropped, an answer that is not HTTP
            words = f"broke off the exchange ({type(problem).__name__})"
        return Answer(False, None, f"The receiver {words}.", timed_out=late)
    finally:
        connection.close()
    if 200 <= status < 300:
        return Answer(True, status, "")
    if 300 <= status < 400:
        return Answer(False, status, f"The receiver answered {status} (a redirect): redirects are not followed.")
    if 400 <= status < 500 and status not in RETRIED_4XX:
        words = f"The receiver answered {status}: it refuses the request itself, so it is not tried again."
        return Answer(False, status, words, final=True)
    return Answer(False, status, f"The receiver answered {status}.", retry_after)


def _seconds(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None


class _PinnedHTTP(http.client.HTTPConnection):
    """A connection to the address that was checked, whatever the host name resolves to now: ``connect_timeout``
    to connect, then ``timeout`` for each read and write."""

    def __init__(self, host: str, port: int, address: str, *, connect_timeout: float, **kwargs) -> None:
        super().__init__(host, port, **kwargs)
        self.address = address
        self.connect_timeout = connect_timeout
        self.connected = False

    def _open(self) -> socket.socket:
        raw = socket.create_connection((self.address, self.port), self.connect_timeout)
        self.connected = True
        raw.settimeout(self.timeout)
        return raw

    def connect(self) -> None:
        self.sock = self._open()


class _PinnedHTTPS(_PinnedHTTP, http.client.HTTPSConnection):
    def __init__(self, host: str, port: int, address: str, *, connect_timeout: float, **kwargs) -> None:
        super().__init__(
            host, port, address, connect_timeout=connect_timeout, context=ssl.create_default_context(), **kwargs
        )

    def connect(self) -> None:
        self.sock = self._context.wrap_socket(self._open(), server_hostname=self.host)  # type: ignore[attr-defined]
