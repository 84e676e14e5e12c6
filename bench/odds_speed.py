"""Print microseconds per call of representative exact-odds functions in rules/dice.py.

Run: .venv/bin/python bench/odds_speed.py. "cold" clears the caches before every call (the first
time a form shows those odds); "warm" is every later call. The target is well under 1 ms.
"""

from __future__ import annotations

import sys
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import dice  # noqa: E402

CACHES = (dice._pool_dist, dice._under_kept, dice.roll_under_chance, dice._three_odds, dice._die)


def clear() -> None:
    for cached in CACHES:
        cached.cache_clear()


def fell_pool() -> object:
    # Seed 000: BOD d12 + steel d10 + skill d8 + helper d6, with two advantages (bonus dice).
    pool = dice.shift_pool((12, 10, 8, 6), 2, "bonus_die").dice
    return dice.prob(dice.pool_dist(pool, "highest"), lambda v: v >= 4)


CASES = {
    "Fell pool d12+d10+d8+d6, +2 steps (6 dice), P(>=4)": fell_pool,
    "Fell late d12 +3 ENH -> 4d12 keep highest": lambda: dice.pool_dist(
        dice.adv_dis_pool(12, dice.shift(12, 3, "advantage").advantage)[0], "highest"
    ),
    "C&C save, 2d20 roll-under with advantage, target 12": lambda: dice.roll_under_chance(12, "advantage"),
    "C&C opposed save, kept-face dist, advantage": lambda: dice.roll_under_kept_dist(12, "advantage"),
    "FF three-outcome with favor, +2 vs 15/10": lambda: dice.three_outcome_odds(2, 15, 10, "favor"),
    "FF three-outcome with favor + push d6": lambda: dice.three_outcome_odds(2, 15, 10, "favor", (6,)),
    "Grit & Flesh band chance AC 4 < d20 <= AV 14": lambda: dice.band_chance(4, 14),
    "FF 3d12 damage sum dist": lambda: dice.pool_dist((12, 12, 12), "sum"),
}


def per_call_us(fn, cold: bool, number: int) -> float:
    if cold:

        def cold_call() -> None:
            clear()
            fn()

        total = timeit.timeit(cold_call, number=number)
        overhead = timeit.timeit(clear, number=number)
        return (total - overhead) / number * 1e6
    fn()
    return timeit.timeit(fn, number=number) / number * 1e6


def main() -> None:
    print(f"{'odds':58} {'cold µs':>9} {'warm µs':>9}")
    for name, fn in CASES.items():
        print(f"{name:58} {per_call_us(fn, True, 200):9.1f} {per_call_us(fn, False, 5000):9.1f}")


if __name__ == "__main__":
    main()
