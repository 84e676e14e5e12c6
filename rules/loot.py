"""The party's coin split by the table's rule: equal shares among the PCs chosen, a share for each hireling whose
rules give it one (``GameSystem.loot_share``), what does not divide evenly left in the party's stash.

Fell (late), seed 001 (Hirelings): a hireling takes an equal share of any plunder, less its upfront daily fee.
Chaos & Conquest, sources hired-help.md (Retainers; Shares of Treasure): a retainer takes half a share, and the
total is divided by the number of shares (4 PCs and 3 retainers: 5.5). The other systems give hirelings no share.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Generic, TypeVar

from rules.base import LootShare
from rules.errors import RulesError

K = TypeVar("K", bound=Hashable)

MAX_SHARERS = 500  # PCs and hirelings one split pays: a table seats 50, each with a few hirelings


@dataclass(frozen=True)
class CoinSplit(Generic[K]):
    """Who gets what, in the smallest coin: each PC's share, each hireling's, and what stays in the stash.
    ``unit``: one full share, exactly (``total`` over the number of shares)."""

    pcs: tuple[tuple[K, int], ...]
    hirelings: tuple[tuple[K, int], ...]
    left: int
    unit: Fraction

    @property
    def paid(self) -> int:
        return sum(amount for _, amount in self.pcs) + sum(amount for _, amount in self.hirelings)


def split_coins(total: int, pcs: Sequence[K], hirelings: Sequence[tuple[K, LootShare]] = ()) -> CoinSplit[K]:
    """``total`` split into full shares for ``pcs`` and each hireling's ``weight`` of one, every share rounded
    down; a hireling's share less what it was paid up front (never below nothing); the rest is ``left``."""
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise RulesError("Coins to split are a whole number, zero or more.")
    if not pcs:
        raise RulesError("Pick at least one character to share the coins.")
    if len(pcs) + len(hirelings) > MAX_SHARERS:
        raise RulesError(f"A split pays at most {MAX_SHARERS} characters and hirelings.")
    weights = [share.weight for _, share in hirelings]
    if any(not 0 < weight <= 1 for weight in weights):
        raise RulesError("A hireling's share is more than nothing and at most a full share.")
    unit = Fraction(total) / (len(pcs) + sum(weights, Fraction(0)))
    full = math.floor(unit)
    paid_hirelings = tuple(
        (key, max(0, math.floor(unit * share.weight) - max(0, share.less))) for key, share in hirelings
    )
    paid_pcs = tuple((key, full) for key in pcs)
    left = total - full * len(pcs) - sum(amount for _, amount in paid_hirelings)
    return CoinSplit(paid_pcs, paid_hirelings, left, unit)
