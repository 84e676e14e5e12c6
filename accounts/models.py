"""API tokens: what lets a program act for an account under /api/ (issue 28), and nowhere else; the session row."""

from __future__ import annotations

from importlib import import_module

from django.conf import settings
from django.contrib.sessions.base_session import AbstractBaseSession
from django.db import models


class ApiToken(models.Model):
    """One named token. Only the SHA-256 of its secret is kept: the secret is shown once, when it is made.

    ``scope`` says what it may do (``accounts.tokens.SCOPES``); a table token names its campaign. Whatever the
    scope, every call is checked against its owner's rights at that moment (accounts.tokens, api.access)."""

    class Scope(models.TextChoices):
        READ = "read", "Read my characters"
        PLAY = "play", "Roll and change my characters"
        TABLE = "table", "Run one campaign's table (GM)"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=60)
    scope = models.CharField(max_length=8, choices=Scope.choices)
    campaign = models.ForeignKey(
        "campaigns.Campaign", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    key_hash = models.CharField(max_length=64, unique=True)  # hex SHA-256 of the secret
    prefix = models.CharField(max_length=12)  # the secret's first characters, so its owner can tell tokens apart
    created_at = models.DateTimeField(auto_now_add=True)
    # When it stops opening anything (chosen when it is made); None: until revoked or a password change.
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # The current minute of calls began (accounts.tokens.count_call: written once a minute at most; the calls
    # within it are counted in the cache). window_calls is no longer written (issue 39).
    window_start = models.DateTimeField(null=True, blank=True)
    window_calls = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(scope="table", campaign__isnull=False)
                | (~models.Q(scope="table") & models.Q(campaign__isnull=True)),
                name="api_token_table_names_its_campaign",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.scope_words})"

    def expired(self, now) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    @property
    def scope_words(self) -> str:
        if self.scope == self.Scope.TABLE and self.campaign_id is not None:
            return f"table of campaign {self.campaign_id}"
        return self.get_scope_display()


class Session(AbstractBaseSession):
    """Django's session row, and whose it is: a logged-in request reads the session and its user in one statement
    (accounts.sessions, issue 39). ``user`` is a hint written with the session's data, never trusted alone: the
    user is still the one the data names, checked as Django checks it. No constraint: a user deleted leaves the
    row as Django's sessions are left (its next request finds no user, so nobody)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.DO_NOTHING, db_constraint=False, related_name="+"
    )

    @classmethod
    def get_session_store_class(cls):
        return import_module(settings.SESSION_ENGINE).SessionStore  # accounts.sessions, named by the settings
