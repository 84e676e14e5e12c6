"""The rules' errors, answered with a sentence (kept apart so ``rules.dice`` can raise them too).

``Refusal`` (``core.errors``, pure Python like this package) is the one base of every error a service raises for a
request it does not do; it is named here too, where the rules' callers have always found it.
"""

from __future__ import annotations

from core.errors import Refusal

__all__ = ["Refusal", "RulesError", "Settled"]


class RulesError(Refusal):
    """A request the rules do not allow; the message is shown to the person as it is."""


class Settled(RulesError):
    """A roll the character's state already answers ("The dead take no more damage."): the sheet shows it as
    where things stand, not as a mistake in the request."""
