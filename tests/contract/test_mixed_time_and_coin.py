"""The contract's promises for a mixed table's clock and stash (issue 42), held by every system and Coin Flip: a
span of another system's time is counted in this system's own plain units without losing or making time; coins
pass between systems' money without making or losing value, or are refused with a sentence."""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import pytest

import rules
from rules import RulesError
from rules.base import Sheet

SPANS = [(0, 30), (30, 30), (0, 60), (590, 20), (0, 600), (0, 3600), (1800, 5400), (0, 86400), (0, 8 * 86400)]


@pytest.mark.parametrize(("start", "seconds"), SPANS)
def test_a_span_is_counted_in_the_systems_own_plain_units_on_its_own_grid(system, start, seconds):
    units = {u.key: u for u in system.time_units()}
    steps = system.time_steps(start, seconds)
    plain = [u for u in units.values() if u.plain]
    assert plain, "a system needs a plain unit for a mixed table's clock"
    finest = min(u.length for u in plain)
    crossed = (start + seconds) // finest - start // finest
    assert sum(unit.length * count for unit, count in steps) == crossed * finest
    for unit, count in steps:
        assert unit.plain and units[unit.key] == unit and count >= 1


def test_successive_spans_add_up_to_the_whole(system):
    """Many short moves of the clock pass, in all, what one long move would."""
    rng = random.Random(5)
    at, total = 0, 0
    for _ in range(200):
        span = rng.choice([30, 60, 600])
        total += sum(unit.length * count for unit, count in system.time_steps(at, span))
        at += span
    assert total == sum(unit.length * count for unit, count in system.time_steps(0, at))


def test_each_steps_unit_passes_time_on_a_fresh_sheet(system):
    """Every step a span is counted in is one ``advance_time`` accepts, on a sheet its creation rules made."""
    made = system.create({}, random.Random(3))
    sheet = Sheet(state=made.state, items=tuple(replace(item, id=n + 1) for n, item in enumerate(made.items)))
    at = 0
    for unit, count in system.time_steps(0, 86400):
        result = system.advance_time(sheet, unit.key, count, at // 60, random.Random(1), at % 60)
        assert result.procedure == "time" or result.outcome in ("nothing", "passed")
        at += unit.length * count


@pytest.mark.parametrize("other_id", list(rules.SYSTEMS))
def test_coins_pass_between_systems_at_their_worth_or_are_refused(system, other_id):
    other = rules.system_for(other_id)
    for amount in (0, 1, 5, 6, 7, 30, 60, 1000):
        try:
            used, made = system.whole_coins_from(other, amount)
        except RulesError as problem:
            assert None in (system.coin_worth, other.coin_worth) and str(problem).endswith("characters.")
            continue
        assert 0 <= used <= amount
        if system.name != other.name:
            assert Fraction(used) * other.coin_worth == Fraction(made) * system.coin_worth  # no value made or lost
        if used == amount:
            assert system.coins_from(other, amount) == made
        else:
            with pytest.raises(RulesError, match="move a multiple of"):
                system.coins_from(other, amount)
