"""The one error the rules raise for a request they do not allow (kept apart so ``rules.dice`` can raise it too)."""

from __future__ import annotations


class RulesError(ValueError):
    """A request the rules do not allow; the message is shown to the person as it is."""
