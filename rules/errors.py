"""The errors Lantern answers with a sentence (kept apart so ``rules.dice`` can raise them too).

``Refusal`` is the one base of every error a service raises for a request it does not do (the rules'
``RulesError``, the campaigns' ``CampaignError``, a stale form, a row gone meanwhile). Views show it where the
request was made; one that escapes a view is answered by ``config.refusals`` with its sentence and a 4xx,
never a 500. Pure Python: the app's errors derive from it without this package knowing Django.
"""

from __future__ import annotations


class Refusal(ValueError):
    """A request Lantern does not do; the message is shown to the person as it is.

    ``status``: the HTTP status when it escapes a view (422: the request was understood and refused)."""

    status = 422


class RulesError(Refusal):
    """A request the rules do not allow; the message is shown to the person as it is."""


class Settled(RulesError):
    """A roll the character's state already answers ("The dead take no more damage."): the sheet shows it as
    where things stand, not as a mistake in the request."""
