"""Links made and broken: a Discord user to a Lantern account, a Discord channel to a campaign, each with a
one-time code made on Lantern's page (``code_make``) and typed in Discord (``/lantern link``, ``/lantern channel``).

A code is 10 characters from a 32-letter alphabet (50 random bits), lives CODE_MINUTES, opens one link and is kept
only as its SHA-256 (like the API tokens, accounts.tokens: a random secret needs no slow hash); guesses are bounded
by the short life and the per-user and per-channel rate limits."""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.tables import runs
from discord.models import ChannelLink, LinkCode, UserLink
from rules.errors import Refusal

CODE_MINUTES = 10
ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I: read off a screen and typed
CODE_LENGTH = 10
BAD_CODE = "That code is wrong, used or past its 10 minutes: make a new one on Lantern."


class LinkError(Refusal):
    """A link that can't be made or broken as asked: the person reads the sentence."""


def _clean(code: str) -> str:
    return "".join(ch for ch in code.upper() if ch.isalnum())[:40]


def code_hash(code: str) -> str:
    return hashlib.sha256(_clean(code).encode()).hexdigest()


def code_make(*, user, kind: str, campaign_id: int | None = None) -> str:
    """A fresh code (shown once) for ``user`` to link their Discord user, or (``kind`` channel) a channel to a
    campaign they run; it replaces the one made before for the same thing."""
    if kind == LinkCode.Kind.CHANNEL:
        if campaign_id is None or not runs(user, campaign_id):
            raise LinkError("Only the campaign's GM links a channel to it.")
    else:
        campaign_id = None
    code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    with transaction.atomic():
        earlier = LinkCode.objects.filter(user=user, kind=kind)
        (earlier if campaign_id is None else earlier.filter(campaign_id=campaign_id)).delete()
        LinkCode.objects.filter(expires_at__lt=timezone.now()).delete()
        LinkCode.objects.create(
            code_hash=code_hash(code),
            kind=kind,
            user=user,
            campaign_id=campaign_id,
            expires_at=timezone.now() + timedelta(minutes=CODE_MINUTES),
        )
    return f"{code[:5]}-{code[5:]}"


def _take(code: str, kind: str) -> LinkCode:
    """The live code of this kind, used up (deleted) in the caller's transaction; LinkError for anything else."""
    found = LinkCode.objects.select_for_update().select_related("user").filter(code_hash=code_hash(code), kind=kind)
    row = found.first()
    if row is None or row.expires_at <= timezone.now() or not row.user.is_active:
        raise LinkError(BAD_CODE)
    row.delete()
    return row


@transaction.atomic
def link_user(*, code: str, discord_id: str, discord_name: str) -> UserLink:
    """The Discord user plays as the code's account from now on (replacing a link either of them had)."""
    row = _take(code, LinkCode.Kind.USER)
    UserLink.objects.filter(discord_id=discord_id).delete()
    UserLink.objects.filter(user=row.user).delete()
    return UserLink.objects.create(user=row.user, discord_id=discord_id, discord_name=discord_name[:100])


@transaction.atomic
def link_channel(*, code: str, channel_id: str, guild_id: str, by: UserLink) -> ChannelLink:
    """The channel plays the code's campaign: the code is its GM's, and the Discord user typing it is that GM."""
    row = _take(code, LinkCode.Kind.CHANNEL)
    if row.user_id != by.user_id:
        raise LinkError("That code is another Lantern account's: the GM who made it types it.")
    assert row.campaign_id is not None
    if not runs(row.user, row.campaign_id):
        raise LinkError("You no longer run that campaign.")
    ChannelLink.objects.filter(channel_id=channel_id).delete()
    return ChannelLink.objects.create(
        campaign_id=row.campaign_id, channel_id=channel_id, guild_id=guild_id, linked_by=row.user
    )


def unlink_user(*, user) -> bool:
    deleted, _ = UserLink.objects.filter(user=user).delete()
    return bool(deleted)


def unlink_channel(*, user, channel_id: str) -> ChannelLink:
    """The channel no longer plays its campaign: its GM's doing (from Discord or the campaign's page)."""
    link = ChannelLink.objects.select_related("campaign").filter(channel_id=channel_id).first()
    if link is None:
        raise LinkError("This channel plays no campaign.")
    if not runs(user, link.campaign_id):
        raise LinkError("Only the campaign's GM unlinks its channel.")
    link.delete()
    return link


def count_call(model: type[UserLink] | type[ChannelLink], pk: int, limit: int) -> bool:
    """Count one command against the row's minute (locked, so across every process, as the API's tokens): False
    past ``limit``."""
    now = timezone.now()
    with transaction.atomic():
        rows = model.objects.select_for_update().filter(pk=pk)
        found = rows.values_list("window_start", "window_calls").first()
        if found is None:
            return True
        start, calls = found
        if start is None or start <= now - timedelta(minutes=1):
            start, calls = now, 0
        calls += 1
        rows.update(window_start=start, window_calls=calls)
    return calls <= limit


def user_calls_left(link: UserLink) -> bool:
    return count_call(UserLink, link.pk, settings.DISCORD_CALLS_PER_MINUTE)


def channel_calls_left(link: ChannelLink) -> bool:
    return count_call(ChannelLink, link.pk, settings.DISCORD_CHANNEL_CALLS_PER_MINUTE)
