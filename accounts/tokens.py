"""API tokens made, revoked and checked (issue 28). The secret is ``lt_`` and 43 URL-safe characters (256 random
bits): unguessable, so a plain SHA-256 of it is enough to keep (a slow password hash buys nothing against a
secret nobody chose), and a lookup by that hash costs one indexed query per call."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.dateformat import format as date_format

from accounts import tables
from accounts.models import ApiToken
from core.prepared import Prepared
from rules.errors import Refusal

PREFIX = "lt_"
NAME_MAX = 60
# How long a new token may live, in days, as the form offers it; None: until revoked (or a password change).
LIFETIMES: tuple[int | None, ...] = (None, 7, 30, 90, 365)


class TokenError(Refusal):
    """A token that can't be made as asked: the account page shows the sentence."""


class TokenExpired(Refusal):
    """A token past the end its maker chose: the call is refused with the date it ended (a 401)."""

    status = 401


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


@dataclass(frozen=True)
class Made:
    token: ApiToken
    secret: str  # shown once, never kept


@transaction.atomic
def token_create(
    *, user, name: str, scope: str, campaign_id: int | None = None, lifetime_days: int | None = None
) -> Made:
    """A new token for ``user``; a table token only for a campaign they run now. ``lifetime_days``: it opens
    nothing after that many days (one of LIFETIMES); None, until it is revoked or the password changes."""
    name = " ".join(name.split())[:NAME_MAX]
    if not name:
        raise TokenError("Give the token a name, so you know later what uses it.")
    if lifetime_days not in LIFETIMES:
        raise TokenError("Pick how long the token lasts.")
    if scope not in ApiToken.Scope.values:
        raise TokenError("Pick what the token may do.")
    if scope == ApiToken.Scope.TABLE:
        if campaign_id is None or not runs(user, campaign_id):
            raise TokenError("A table token is for a campaign you run as its GM.")
    else:
        campaign_id = None
    # The account's row locked first, so two tokens made at once are counted one after the other.
    list(get_user_model().objects.select_for_update().filter(pk=user.pk).values_list("pk"))
    limit = settings.API_TOKENS_PER_USER
    if ApiToken.objects.filter(user=user).count() >= limit:
        raise TokenError(f"You have {limit} API tokens, the most an account may hold: revoke one first.")
    secret = PREFIX + secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(days=lifetime_days) if lifetime_days else None
    token = ApiToken.objects.create(
        user=user,
        name=name,
        scope=scope,
        campaign_id=campaign_id,
        key_hash=hash_secret(secret),
        prefix=secret[:8],
        expires_at=expires_at,
    )
    return Made(token, secret)


def token_revoke(*, user, token_id: int) -> bool:
    """Gone at once: the next call with it finds no row. False if it was not theirs (or gone already)."""
    deleted, _ = ApiToken.objects.filter(user=user, pk=token_id).delete()
    return bool(deleted)


def tokens_revoke_all(*, user_id: int) -> int:
    """Every token of the account gone at once (its password changed: whoever had the old one loses its tokens
    too). How many there were."""
    deleted, _ = ApiToken.objects.filter(user_id=user_id).delete()
    return deleted


def runs(user, campaign_id: int) -> bool:
    return tables.runs(user, campaign_id)


# Every API call reads its token with its owner: compiled once per process (core.prepared; issue 39).
_TOKEN_BY_HASH = Prepared(
    lambda digest: ApiToken.objects.select_related("user").filter(key_hash=digest).order_by(),
    1,
    sentinels=("\x00lantern token hash\x00",),
)


def token_for(secret: str) -> ApiToken | None:
    """The live token this secret opens, with its owner; None for anything else (an inactive owner included).
    Raises TokenExpired for a real token past its end, so the program's owner reads why."""
    if not secret.startswith(PREFIX) or len(secret) > 100:
        return None
    digest = hash_secret(secret)
    token = _TOKEN_BY_HASH.first(digest)
    # The row was found by its hash; compared again in constant time so no timing says how close a guess came.
    if token is None or not hmac.compare_digest(token.key_hash, digest) or not token.user.is_active:
        return None
    if token.expired(timezone.now()):
        assert token.expires_at is not None
        ended = date_format(timezone.localtime(token.expires_at), "j M Y H:i")
        raise TokenExpired(f"This token expired on {ended}: make a new one on your API tokens page.")
    return token


def count_call(token: ApiToken) -> bool | None:
    """Count one call against the token's minute; False past API_CALLS_PER_MINUTE (the call is refused), None
    when the token was revoked since it was read.

    No lock and no write per call (issue 39: on SQLite a write per read queued every API read behind every other
    write): the token's row is written once per minute at most, by the call that opens a new minute
    (``window_start`` and ``last_used_at``, one conditional UPDATE: of two processes opening it at once, one
    wins and the other reads its start); the calls within the minute are counted in Django's cache under that
    start. The cache is each process's own (docs/production.md), so with W server processes a token may make up
    to W times the limit in a minute: the limit stops a runaway program, it is no quota."""
    now = timezone.now()
    start = token.window_start
    if start is None or start <= now - timedelta(minutes=1):
        stale = Q(window_start__isnull=True) | Q(window_start__lte=now - timedelta(minutes=1))
        if ApiToken.objects.filter(stale, pk=token.pk).update(window_start=now, last_used_at=now):
            start = now
        else:  # another process opened this minute first, or the token is gone
            start = ApiToken.objects.filter(pk=token.pk).values_list("window_start", flat=True).first()
            if start is None:
                return None
    key = f"lantern:api-calls:{token.pk}:{start.timestamp():.6f}"
    cache.add(key, 0, timeout=120)
    try:
        calls = cache.incr(key)
    except ValueError:  # expired between the two lines
        cache.add(key, 1, timeout=120)
        calls = 1
    return calls <= settings.API_CALLS_PER_MINUTE
