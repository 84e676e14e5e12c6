"""The one base of every error Lantern answers with a sentence (pure Python: ``rules`` derives its errors from it).

``Refusal`` is what a service raises for a request it does not do (the rules' ``RulesError``, the campaigns'
``CampaignError``, a stale form, a row gone meanwhile). Views show it where the request was made; one that escapes
a view is answered by ``core.refusals`` with its sentence and a 4xx, never a 500.
"""

from __future__ import annotations


class Refusal(ValueError):
    """A request Lantern does not do; the message is shown to the person as it is.

    ``status``: the HTTP status when it escapes a view (422: the request was understood and refused)."""

    status = 422
