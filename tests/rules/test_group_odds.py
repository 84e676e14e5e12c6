"""The party's exact chance at a roll the GM asks of several characters (rules/group.py)."""

from __future__ import annotations

from fractions import Fraction as F

from rules import SYSTEMS
from rules.base import Odds
from rules.group import any_and_all, group_odds


def _pass_fail(p: F) -> Odds:
    return Odds((("pass", p), ("fail", 1 - p)))


def test_at_least_one_and_all_are_exact_products_of_independent_rolls():
    assert any_and_all([_pass_fail(F(1, 2)), _pass_fail(F(1, 3))]) == (F(2, 3), F(1, 6))
    assert any_and_all([]) == (F(0), F(1))


def test_a_party_save_passes_when_anyone_passes():
    """Seed 002 (002_882aafdbf41b7f4b.txt), Party Saves: the best result counts for the group."""
    odds = group_odds(SYSTEMS["chaos-conquest"], "save", [_pass_fail(F(1, 2)), _pass_fail(F(1, 4))])
    assert odds is not None
    assert odds.of("pass") == 1 - F(1, 2) * F(3, 4) and odds.of("fail") == F(3, 8)
    assert odds.success == F(5, 8)


def test_a_group_test_nets_passes_against_fails():
    """Seed 003 (003_eeb4db86843669ac.txt), Group Tests: the larger of Passes and Fails less the other is the
    group's result when it beats the Mixed count; else (a tie too) the group is Mixed."""
    each = Odds((("pass", F(1, 2)), ("mixed", F(1, 4)), ("fail", F(1, 4))))
    odds = group_odds(SYSTEMS["fortunes-favor"], "test", [each, each])
    assert odds is not None
    # Two characters: pass+pass nets 2 passes > 0 mixed: pass (1/4); fail+fail: fail (1/16); pass+fail nets 0, a
    # tie with 0 mixed: mixed; any with a mixed: 1 net against 1 mixed, or 0 against 2: mixed.
    assert odds.of("pass") == F(1, 4) and odds.of("fail") == F(1, 16) and odds.of("mixed") == F(11, 16)
    assert [key for key, _ in odds.outcomes] == ["pass", "mixed", "fail"]


def test_no_group_roll_where_the_system_has_none():
    assert group_odds(SYSTEMS["fell-draft"], "test", [_pass_fail(F(1, 2))]) is None
    assert group_odds(SYSTEMS["chaos-conquest"], "attack", [_pass_fail(F(1, 2))]) is None
    assert group_odds(SYSTEMS["chaos-conquest"], "save", []) is None
