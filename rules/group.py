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


# --- the group rules the GM picks (issue 40) -----------------------------------------------------------------------
#
# Where the system makes a roll a group roll, its own rule (``SYSTEM_RULE``: ``group_odds`` above); otherwise one of
# the plain rules below, read from each character's chance of success alone, so characters of any system mix. The
# chance of a count of successes is a Poisson-binomial (each character's own chance, independent rolls), worked out
# exactly over the counts; "the best result stands" grades the outcomes, successes above the rest.

SYSTEM_RULE = "system"
ALL, ANY, HALF, BEST = "all", "any", "half", "best"
PLAIN_RULES: dict[str, str] = {
    ALL: "All succeed",
    ANY: "At least one succeeds",
    HALF: "At least half succeed",
    BEST: "The best result stands",
}
PASSES, FAILS = "pass", "fail"


def has_group_roll(system: GameSystem, procedure: str) -> bool:
    """Whether the system's rules make this roll, asked of several characters, a group roll of its own."""
    return system.group_result(procedure, [PASSES]) is not None


def success_counts(chances: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """The Poisson-binomial: the exact chance that exactly k of these independent rolls succeed, for k = 0..n."""
    counts = [Fraction(1)]
    for p in chances:
        grown = [Fraction(0)] * (len(counts) + 1)
        for k, chance in enumerate(counts):
            grown[k] += chance * (1 - p)
            grown[k + 1] += chance * p
        counts = grown
    return tuple(counts)


def needed(rule: str, n: int) -> int:
    """How many of ``n`` must succeed for the group to succeed under a plain rule."""
    if rule == ALL:
        return n
    if rule == HALF:
        return (n + 1) // 2
    if rule in (ANY, BEST):
        return min(1, n)
    raise ValueError(f"no group rule {rule!r}")


def ranked(each: Sequence[Odds]) -> tuple[tuple[str, ...], frozenset[str]]:
    """Every outcome these characters may get, best first (any success above every other outcome, then in the order
    the characters' own odds list them), and the keys that are successes."""
    successes = frozenset(key for odds in each for key in odds.success_keys)
    keys: list[str] = []
    for odds in each:
        keys += [key for key, _ in odds.outcomes if key not in keys]
    return tuple(sorted(keys, key=lambda key: key not in successes)), successes


def best_odds(each: Sequence[Odds]) -> Odds:
    """ "The best result stands": the exact chance of each outcome being the best one rolled. The best is at rank r
    or worse when everyone's is: P(best is r) = Π P(own rank ≥ r) − Π P(own rank ≥ r + 1)."""
    order, successes = ranked(each)
    worse_or_equal = []
    for r in range(len(order) + 1):
        chance = Fraction(1)
        for odds in each:
            chance *= sum((p for key, p in odds.outcomes if order.index(key) >= r), Fraction(0))
        worse_or_equal.append(chance)
    rows = tuple((key, worse_or_equal[r] - worse_or_equal[r + 1]) for r, key in enumerate(order))
    return Odds(rows, success_keys=tuple(key for key in order if key in successes) or (PASSES,))


def plain_odds(rule: str, each: Sequence[Odds]) -> Odds:
    """The group's exact odds under a plain rule, from each character's chance of success."""
    if rule == BEST:
        return best_odds(each)
    counts = success_counts([odds.success for odds in each])
    passes = sum(counts[needed(rule, len(each)) :], Fraction(0))
    return Odds(((PASSES, passes), (FAILS, 1 - passes)))


def check_odds(rule: str, each: Sequence[Odds], system: GameSystem | None = None, procedure: str = "") -> Odds | None:
    """The group's exact odds under the GM's rule (``SYSTEM_RULE``: the system's own, None where it has none)."""
    if not each or len(each) > GROUP_PARTY_MAX:
        return None
    if rule == SYSTEM_RULE:
        return group_odds(system, procedure, each) if system is not None else None
    return plain_odds(rule, each)


def plain_result(rule: str, results: Sequence[tuple[str, bool]], order: Sequence[str] = ()) -> tuple[str, bool]:
    """What the rolled results (each an outcome key and whether it succeeded) make the group's, under a plain rule:
    (the group's outcome, whether it succeeded). ``order``: the outcomes best first, for the best result (successes
    first otherwise)."""
    if rule == BEST:
        if not results:
            return FAILS, False

        def rank(row: tuple[str, bool]) -> tuple[bool, int]:
            return (not row[1], order.index(row[0]) if row[0] in order else len(order))

        return min(results, key=rank)
    passed = sum(1 for _, ok in results if ok) >= needed(rule, len(results)) and bool(results)
    return (PASSES if passed else FAILS), passed
