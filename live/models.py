"""The journal's two tables: each campaign's head (its last cursor) and its entries (live.journal)."""

from __future__ import annotations

from django.db import models
from django.utils import timezone


class Head(models.Model):
    """A campaign's last cursor. The first record of a write bumps it, so its row lock orders the campaign's writes
    by commit: a cursor is never visible before a smaller one of the same campaign (readers never skip one)."""

    campaign_id = models.BigIntegerField(primary_key=True)
    cursor = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"campaign {self.campaign_id} at {self.cursor}"


class Entry(models.Model):
    """One write's events at one table, in the journal's order (``cursor``, from 1 per campaign, without gaps).

    ``events``: each event's JSON (live.events), with who may see it; names and ids, never rendered content.
    ``write``: what kind of write made it (the first event's kind unless the write says), for people reading it.
    """

    id = models.BigAutoField(primary_key=True)
    campaign_id = models.BigIntegerField()
    cursor = models.BigIntegerField()
    at = models.DateTimeField(default=timezone.now)
    by_id = models.BigIntegerField(null=True, blank=True)  # the user whose write it was (None: the server's)
    write = models.CharField(max_length=60, blank=True)
    events = models.JSONField(default=list)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["campaign_id", "cursor"], name="journal_one_cursor")]
        indexes = [models.Index(fields=["at"], name="journal_at")]  # pruning by age
        verbose_name_plural = "entries"

    def __str__(self) -> str:
        return f"campaign {self.campaign_id} #{self.cursor} {self.write}"
