"""The party's chance at a roll the GM asks of several characters, from each one's exact odds.

Each character rolls their own dice, so their outcomes are independent. Where a system's rules make the roll a
group roll (``GameSystem.group_result``: C&C's party save, Fortune's Favor's group test), the group's outcome is
read for every way the party's outcomes can fall, weighted exactly. Elsewhere the two plain questions a GM asks
are answered: does at least one succeed, does everyone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from fractions import Fraction

from rules.base import GameSystem, Odds

# Ways a party's outcomes can fall, as counts of each outcome: C(n + k - 1, k - 1); a table of 30 characters with
# five outcomes each is 46,376 ways, read in well under a second. Past it the group's odds are not worked out.
GROUP_PARTY_MAX = 30


def any_and_all(each: Sequence[Odds]) -> tuple[Fraction, Fraction]:
    """(at least one succeeds, all succeed) for independent rolls with these odds."""
    none, every = Fraction(1), Fraction(1)
    for odds in each:
        none *= 1 - odds.success
        every *= odds.success
    return 1 - none, every


def group_odds(system: GameSystem, procedure: str, each: Sequence[Odds]) -> Odds | None:
    """The exact odds of the group's outcome (``system.group_result`` read over every way the party's outcomes can
    fall), or None when the system makes no group roll of this procedure, or the party is past GROUP_PARTY_MAX."""
    if not each or len(each) > GROUP_PARTY_MAX:
        return None
    if system.group_result(procedure, [each[0].outcomes[0][0]]) is None:
        return None
    # The party's outcomes as counts of each key (order does not matter to a group result), with their chance.
    ways: dict[tuple[tuple[str, int], ...], Fraction] = {(): Fraction(1)}
    for odds in each:
        grown: dict[tuple[tuple[str, int], ...], Fraction] = {}
        for counts, chance in ways.items():
            for key, p in odds.outcomes:
                if p == 0:
                    continue
                now = Counter(dict(counts))
                now[key] += 1
                way = tuple(sorted(now.items()))
                grown[way] = grown.get(way, Fraction(0)) + chance * p
        ways = grown
    results: dict[str, Fraction] = {}
    success_keys: list[str] = []
    for counts, chance in ways.items():
        outcomes = [key for key, n in counts for _ in range(n)]
        result = system.group_result(procedure, outcomes)
        if result is None:
            return None
        results[result.outcome] = results.get(result.outcome, Fraction(0)) + chance
        if result.outcome in each[0].success_keys and result.outcome not in success_keys:
            success_keys.append(result.outcome)
    order = [key for key, _ in each[0].outcomes]  # the group's outcomes in the order a character's are shown
    shown = sorted(results.items(), key=lambda row: order.index(row[0]) if row[0] in order else len(order))
    return Odds(tuple(shown), success_keys=tuple(success_keys) or ("pass",))
