"""Is this request Discord's? Its Ed25519 signature over the timestamp and the raw body, checked with the
application's public key (``cryptography``); a timestamp outside DISCORD_MAX_AGE_SECONDS, or an interaction answered
already, is a replay."""

from __future__ import annotations

import time
from datetime import timedelta

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from discord.models import SeenInteraction
from rules.errors import Refusal


class NotDiscord(Refusal):
    """A request that is not Discord's, or one it already sent: 401, as Discord's own check expects."""

    status = 401


def public_key(hex_key: str) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(hex_key))


def verify(*, key_hex: str, signature: str, timestamp: str, body: bytes, now: float | None = None) -> None:
    """Raise NotDiscord unless ``signature`` (hex) signs ``timestamp`` + ``body`` with the key, and the timestamp is
    within the window of now (either side: a clock ahead is as suspect as one behind)."""
    if not signature or not timestamp:
        raise NotDiscord("Missing X-Signature-Ed25519 or X-Signature-Timestamp: this is not Discord.")
    try:
        raw = bytes.fromhex(signature)
        key = public_key(key_hex)
    except ValueError:
        raise NotDiscord("The signature is not Discord's.") from None
    try:
        key.verify(raw, timestamp.encode() + body)
    except InvalidSignature:
        raise NotDiscord("The signature is not Discord's.") from None
    if not timestamp.isdigit() or len(timestamp) > 12:
        raise NotDiscord("The timestamp is not a time.")
    age = (time.time() if now is None else now) - int(timestamp)
    if abs(age) > settings.DISCORD_MAX_AGE_SECONDS:
        raise NotDiscord("That request is too old (or from the future): replays are refused.")


def first_time(interaction_id: str) -> None:
    """Note the interaction as answered; NotDiscord if it was already (the same signed request sent again)."""
    if not interaction_id or len(interaction_id) > 24:
        raise NotDiscord("An interaction without an id is not Discord's.")
    now = timezone.now()
    window = timedelta(seconds=settings.DISCORD_MAX_AGE_SECONDS * 2)  # a timestamp may be that far either side
    try:
        with transaction.atomic():
            SeenInteraction.objects.create(interaction_id=interaction_id, seen_at=now)
    except IntegrityError:
        raise NotDiscord("That interaction was answered already: replays are refused.") from None
    SeenInteraction.objects.filter(seen_at__lt=now - window).delete()
