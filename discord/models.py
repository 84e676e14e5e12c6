"""The links between Discord and Lantern: a Discord user to an account, a Discord channel to a campaign, the
one-time codes that make them, and the interaction ids already answered (a replay is refused)."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class UserLink(models.Model):
    """A Discord user plays as this Lantern account (made with a one-time code from the account's Discord page)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="discord_link")
    discord_id = models.CharField(max_length=24, unique=True)  # a snowflake, kept as Discord sends it
    discord_name = models.CharField(max_length=100, blank=True)
    linked_at = models.DateTimeField(auto_now_add=True)
    # The user's calls this minute (DISCORD_CALLS_PER_MINUTE), counted in the row: across every process.
    window_start = models.DateTimeField(null=True, blank=True)
    window_calls = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.discord_name or self.discord_id} → {self.user}"


class ChannelLink(models.Model):
    """A Discord channel where a campaign plays (made by its GM with a one-time code from the campaign's page)."""

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="discord_channels")
    channel_id = models.CharField(max_length=24, unique=True)
    guild_id = models.CharField(max_length=24, blank=True)
    linked_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+")
    linked_at = models.DateTimeField(auto_now_add=True)
    window_start = models.DateTimeField(null=True, blank=True)  # DISCORD_CHANNEL_CALLS_PER_MINUTE
    window_calls = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["linked_at", "pk"]

    def __str__(self) -> str:
        return f"#{self.channel_id} → {self.campaign}"


class LinkCode(models.Model):
    """A one-time code, short-lived, kept only as its SHA-256: an account's (``campaign`` empty) or a campaign's GM's
    for a channel."""

    class Kind(models.TextChoices):
        USER = "user", "Link a Discord user"
        CHANNEL = "channel", "Link a Discord channel"

    code_hash = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=8, choices=Kind.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.kind} code of {self.user}"


class SeenInteraction(models.Model):
    """An interaction already answered: the same signed request sent again inside the timestamp's window is a
    replay. Rows older than that window are deleted as new ones come (the timestamp check refuses those)."""

    interaction_id = models.CharField(max_length=24, unique=True)
    seen_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.interaction_id
