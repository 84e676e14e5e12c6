"""Webhooks: a URL a GM adds to a campaign, or a player to their character, and each delivery made to it.

A campaign's webhook carries what every member of the table sees; a character's carries what its owner sees of
that character (webhooks.payloads). Deliveries are made by the webhook worker, which reads the campaign's journal
(live.journal) from each webhook's cursor (webhooks.services), never in a request or a write.
"""

from __future__ import annotations

import secrets
import uuid

from django.conf import settings
from django.db import models

from live.journal import head

URL_MAX = 500


def new_secret() -> str:
    return secrets.token_urlsafe(32)


class Webhook(models.Model):
    class Format(models.TextChoices):
        AUTO = "auto", "Discord if the URL is a Discord webhook, else Lantern's JSON"
        JSON = "json", "Lantern's JSON"
        DISCORD = "discord", "Discord (content and embeds)"

    # The kinds of event a webhook may receive, as (field, words) for its form and page.
    KINDS = (
        ("rolls", "Rolls"),
        ("vitals", "Vitals changes"),
        ("requests", "Roll requests"),
        ("fight", "Fight events"),
        ("sessions", "Session chronicles"),
    )

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.CASCADE, related_name="webhooks")
    # Empty: the campaign's webhook (its GM's). Set: a player's webhook for their own character.
    character = models.ForeignKey(
        "characters.Character", on_delete=models.CASCADE, null=True, blank=True, related_name="webhooks"
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    name = models.CharField(max_length=100)
    url = models.URLField(max_length=URL_MAX)
    format = models.CharField(max_length=8, choices=Format.choices, default=Format.AUTO)
    # Needed in full to sign each delivery (HMAC), so kept as it is; its owner sees it once, when it is made.
    secret = models.CharField(max_length=64, default=new_secret)
    rolls = models.BooleanField(default=True)
    vitals = models.BooleanField(default=False)
    requests = models.BooleanField(default=False)
    fight = models.BooleanField(default=False)
    # A session's public chronicle when the GM ends it (a campaign's webhook only: issue 40).
    sessions = models.BooleanField(default=False)
    # Off while paused: nothing is queued for it until its owner resumes it.
    active = models.BooleanField(default=True)
    # Why the last delivery that gave up did (shown on the webhook's page until one succeeds).
    last_error = models.CharField(max_length=300, blank=True)
    # Tries in a row that timed out, any delivery's (an answer of any kind sets it back to 0). Past 0 the
    # webhook's tries wait behind every other webhook's fresh ones; at WEBHOOK_PAUSE_AFTER_TIMEOUTS it is paused.
    timeouts_in_row = models.PositiveSmallIntegerField(default=0)
    # Why it was paused (shown on its page, with a way to resume it); empty when it is not.
    paused_reason = models.CharField(max_length=300, blank=True)
    # The last cursor of its campaign's journal it has been fanned out for (webhooks.services): a new webhook starts
    # at the campaign's head, so it gets nothing from before it existed; a resumed one, nothing from while paused.
    cursor = models.BigIntegerField(default=0)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["pk"]
        indexes = [models.Index(fields=["campaign", "active"], name="webhooks_by_campaign")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # However it is made (its page, the admin, a script), a new webhook starts at its campaign's head.
        if self._state.adding and not self.cursor:
            self.cursor = head(self.campaign_id)
        super().save(*args, **kwargs)

    @property
    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.KINDS if getattr(self, kind)]

    def resume(self) -> None:
        """Its owner has seen to the receiver: deliveries are made again, from the next event on."""
        self.active, self.paused_reason, self.timeouts_in_row = True, "", 0
        self.cursor = head(self.campaign_id)
        self.save(update_fields=["active", "paused_reason", "timeouts_in_row", "cursor"])


class Delivery(models.Model):
    """One event sent to one webhook: the body fixed when the event happened, the tries made to send it.

    Its id travels as the ``X-Lantern-Delivery`` header, the same on every try: a receiver that keeps the ids it
    has seen takes a retried delivery once."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting to send"
        SENDING = "sending", "Sending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Gave up"
        DROPPED = "dropped", "Not sent"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    # The journal entry it carries (live.models.Entry's id): with the webhook, one delivery per entry however often
    # the worker reads it (a unique constraint).
    event = models.CharField(max_length=64)
    kinds = models.CharField(max_length=60)  # what it carries ("rolls vitals"), for its owner's list
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    # While a try runs: past this, the try is taken for dead (its worker was killed) and may run again.
    lease_until = models.DateTimeField(null=True, blank=True)
    occurred_at = models.DateTimeField()  # when the write that made the entry ran
    created_at = models.DateTimeField(auto_now_add=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    response_status = models.PositiveSmallIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=300, blank=True)  # why the last try failed, or why it was not sent

    class Meta:
        ordering = ["-created_at"]
        constraints = [models.UniqueConstraint(fields=["webhook", "event"], name="one_delivery_per_event")]
        indexes = [models.Index(fields=["webhook", "-created_at"], name="deliveries_by_webhook")]

    def __str__(self) -> str:
        return f"{self.webhook} {self.kinds} {self.status}"
