"""Group checks (issue 40): the group's exact chance under the rule the GM picks, from each character's own odds.

Every rule is checked against an independent enumeration of every way the party's outcomes can fall (each
character's outcomes multiplied out, the rule read on each), for parties of one system and of several.
"""

from __future__ import annotations

import itertools
import random
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import SYSTEMS
from rules.base import Odds, Sheet, check_params
from rules.group import (
    ALL,
    ANY,
    BEST,
    HALF,
    PLAIN_RULES,
    SYSTEM_RULE,
    check_odds,
    has_group_roll,
    needed,
    plain_result,
    ranked,
    success_counts,
)

# The roll each system's GM most often asks of the whole party.
CHECK = {
    "fell-draft": "test",
    "fell-late": "test",
    "chaos-conquest": "save",
    "fortunes-favor": "test",
    "grit-flesh": "check",
}
SEEDS = {
    "fell-draft": "000_72fc736675279766.txt",
    "fell-late": "001_9a541ab1b0476299.txt",
    "chaos-conquest": "002_882aafdbf41b7f4b.txt",
    "fortunes-favor": "003_eeb4db86843669ac.txt",
    "grit-flesh": "004_ebd0e2535c17253c.txt",
}


def pc_odds(system_id: str, seed: int, **params) -> Odds:
    """A fresh character's exact odds at its system's check (its own creation, fixed dice)."""
    system = SYSTEMS[system_id]
    made = system.create({"name": "PC"}, random.Random(seed))
    sheet = Sheet(state=made.state, items=made.items, name="PC")
    proc = system.procedures()[CHECK[system_id]]
    odds = proc.odds(sheet, check_params(proc, sheet, params))
    assert odds is not None
    return odds


def enumerate_group(rule: str, each: list[Odds], system_id: str = "") -> dict[str, F]:
    """Brute force: every combination of outcomes, its chance the product of each one's, the rule read on it."""
    out: dict[str, F] = {}
    order, successes = ranked(each)
    for combo in itertools.product(*(odds.outcomes for odds in each)):
        chance = F(1)
        for _, p in combo:
            chance *= p
        keys = [key for key, _ in combo]
        if rule == SYSTEM_RULE:
            result = SYSTEMS[system_id].group_result(CHECK[system_id], keys)
            assert result is not None
            outcome = result.outcome
        elif rule == BEST:
            outcome = min(keys, key=order.index)
        else:
            wins = sum(1 for key, odds in zip(keys, each, strict=True) if key in odds.success_keys)
            outcome = "pass" if wins >= {ALL: len(each), ANY: 1, HALF: -(-len(each) // 2)}[rule] else "fail"
        out[outcome] = out.get(outcome, F(0)) + chance
    return {k: v for k, v in out.items() if v}


def shown(odds: Odds) -> dict[str, F]:
    return {k: v for k, v in odds.outcomes if v}


# --- each rule, against the enumeration, for every system alone and every mix -----------------------------------

PARTIES = (
    [[(sid, 3), (sid, 11), (sid, 29)] for sid in SYSTEMS]
    + [[(a, 3), (b, 11)] for a, b in itertools.combinations(sorted(SYSTEMS), 2)]
    + [[(sid, 5 + i) for i, sid in enumerate(sorted(SYSTEMS))]]
)


@pytest.mark.parametrize("rule", list(PLAIN_RULES))
@pytest.mark.parametrize("party", PARTIES, ids=lambda party: "+".join(f"{sid}{seed}" for sid, seed in party))
def test_every_plain_rule_equals_the_enumeration_for_every_system_mix(rule, party):
    """Seeds 000-004 for each character's own check; the plain group rules are the GM's (issue 40)."""
    each = [pc_odds(sid, seed) for sid, seed in party]
    group = check_odds(rule, each)
    assert group is not None
    assert shown(group) == enumerate_group(rule, each)


@pytest.mark.parametrize("system_id", [sid for sid in SYSTEMS if has_group_roll(SYSTEMS[sid], CHECK[sid])])
@pytest.mark.parametrize("size", [1, 2, 3, 4])
def test_the_systems_own_group_roll_equals_the_enumeration(system_id, size):
    """Seed 002 (002_882aafdbf41b7f4b.txt) Party Saves and seed 003 (003_eeb4db86843669ac.txt) Group Tests."""
    each = [pc_odds(system_id, 3 + 8 * i) for i in range(size)]
    group = check_odds(SYSTEM_RULE, each, SYSTEMS[system_id], CHECK[system_id])
    assert group is not None
    assert shown(group) == enumerate_group(SYSTEM_RULE, each, system_id)


def test_only_chaos_conquest_and_fortunes_favor_have_a_group_roll_of_their_own():
    """Seed 002, Party Saves; seed 003, Group Tests; seeds 000, 001, 004 have none."""
    own = {sid for sid in SYSTEMS if has_group_roll(SYSTEMS[sid], CHECK[sid])}
    assert own == {"chaos-conquest", "fortunes-favor"}
    assert check_odds(SYSTEM_RULE, [pc_odds("fell-draft", 3)], SYSTEMS["fell-draft"], "test") is None


# --- each rule by hand ---------------------------------------------------------------------------------------------


def _pf(p: F) -> Odds:
    return Odds((("pass", p), ("fail", 1 - p)))


def test_the_poisson_binomial_counts_exactly():
    assert success_counts([F(1, 2), F(1, 3)]) == (F(1, 3), F(1, 2), F(1, 6))
    assert success_counts([]) == (F(1),)


def test_all_succeed_is_the_product_of_the_chances():
    assert check_odds(ALL, [_pf(F(1, 2)), _pf(F(2, 3)), _pf(F(3, 4))]).success == F(1, 4)


def test_at_least_one_is_one_less_everyone_failing():
    assert check_odds(ANY, [_pf(F(1, 2)), _pf(F(2, 3))]).success == 1 - F(1, 2) * F(1, 3)


def test_at_least_half_of_three_is_two():
    a, b, c = F(1, 2), F(2, 3), F(3, 4)
    two_or_more = a * b * c + a * b * (1 - c) + a * (1 - b) * c + (1 - a) * b * c
    assert needed(HALF, 3) == 2 and needed(HALF, 4) == 2
    assert check_odds(HALF, [_pf(a), _pf(b), _pf(c)]).success == two_or_more


def test_the_best_result_stands_grades_a_fortunes_favor_test():
    """Seed 003 (003_eeb4db86843669ac.txt), Tests: Pass above Mixed above Fail; the best one rolled counts."""
    each = Odds((("pass", F(1, 2)), ("mixed", F(1, 4)), ("fail", F(1, 4))))
    group = check_odds(BEST, [each, each])
    assert shown(group) == {"pass": F(3, 4), "mixed": F(3, 16), "fail": F(1, 16)}
    assert group.success == F(3, 4)


def test_a_party_save_under_its_own_rule():
    """Seed 002 (002_882aafdbf41b7f4b.txt), Party Saves: the party passes unless every member fails."""
    group = check_odds(SYSTEM_RULE, [_pf(F(9, 20)), _pf(F(11, 20))], SYSTEMS["chaos-conquest"], "save")
    assert group.success == 1 - F(11, 20) * F(9, 20)


def test_a_group_test_under_its_own_rule():
    """Seed 003 (003_eeb4db86843669ac.txt), Group Tests: {P, P, M} passes (net 2 > 1 mixed)."""
    each = Odds((("pass", F(1, 2)), ("mixed", F(1, 4)), ("fail", F(1, 4))))
    group = check_odds(SYSTEM_RULE, [each] * 3, SYSTEMS["fortunes-favor"], "test")
    assert shown(group) == enumerate_group(SYSTEM_RULE, [each] * 3, "fortunes-favor")


@pytest.mark.parametrize(
    ("rule", "results", "expected"),
    [
        (ALL, [("pass", True), ("pass", True)], ("pass", True)),
        (ALL, [("pass", True), ("fail", False)], ("fail", False)),
        (ANY, [("fail", False), ("pass", True)], ("pass", True)),
        (ANY, [], ("fail", False)),
        (HALF, [("pass", True), ("fail", False)], ("pass", True)),
        (HALF, [("pass", True), ("fail", False), ("fail", False)], ("fail", False)),
        (BEST, [("fail", False), ("mixed", False)], ("mixed", False)),
        (BEST, [("mixed", False), ("pass", True)], ("pass", True)),
    ],
)
def test_the_rolled_results_make_the_groups(rule, results, expected):
    assert plain_result(rule, results, ("pass", "mixed", "fail")) == expected


# --- properties ----------------------------------------------------------------------------------------------------

chances = st.fractions(min_value=0, max_value=1, max_denominator=24)


@st.composite
def graded(draw) -> Odds:
    a, b = sorted([draw(chances), draw(chances)])
    return Odds((("pass", a), ("mixed", b - a), ("fail", 1 - b)))


party = st.lists(st.one_of(chances.map(_pf), graded()), min_size=1, max_size=5)
RULES = [*PLAIN_RULES, "cc", "ff"]


def _odds_of(rule: str, each: list[Odds]) -> Odds:
    if rule == "cc":
        each = [_pf(o.success) for o in each]
        return check_odds(SYSTEM_RULE, each, SYSTEMS["chaos-conquest"], "save")
    if rule == "ff":
        each = [o if len(o.outcomes) == 3 else Odds((*o.outcomes[:1], ("mixed", F(0)), *o.outcomes[1:])) for o in each]
        return check_odds(SYSTEM_RULE, each, SYSTEMS["fortunes-favor"], "test")
    return check_odds(rule, each)


@given(party, st.sampled_from(RULES))
def test_group_odds_are_chances_that_sum_to_one(each, rule):
    group = _odds_of(rule, each)
    assert all(0 <= p <= 1 for _, p in group.outcomes)
    assert sum(p for _, p in group.outcomes) == 1
    assert 0 <= group.success <= 1


@given(party, st.sampled_from(RULES), st.data())
def test_a_better_chance_for_one_character_never_lowers_the_groups(each, rule, data):
    """Moving some of one character's chance from failing to passing can only help the group, under every rule."""
    at = data.draw(st.integers(0, len(each) - 1))
    odds = each[at]
    fail = odds.of("fail")
    moved = data.draw(st.fractions(min_value=0, max_value=fail, max_denominator=24)) if fail else F(0)
    better = Odds(tuple((k, p + moved if k == "pass" else p - moved if k == "fail" else p) for k, p in odds.outcomes))
    assert _odds_of(rule, [*each[:at], better, *each[at + 1 :]]).success >= _odds_of(rule, each).success


@given(st.lists(chances.map(_pf), min_size=1, max_size=4), st.sampled_from(list(PLAIN_RULES)))
def test_plain_rules_equal_their_enumeration(each, rule):
    assert shown(check_odds(rule, each)) == enumerate_group(rule, each)


# --- the GM's "what if": a table condition in each system's own sense ------------------------------------------------


def _what_if(system_id: str, condition: str, seed: int = 7):
    system = SYSTEMS[system_id]
    made = system.create({"name": "PC"}, random.Random(seed))
    sheet = Sheet(state=made.state, items=made.items, name="PC")
    proc = system.procedures()[CHECK[system_id]]
    params = check_params(proc, sheet, {})
    moved = system.what_if(condition, sheet, params)
    before = proc.odds(sheet, params)
    return before, None if moved is None else proc.odds(*moved), params, moved


def test_chaos_conquest_darkness_and_advantage_for_all():
    """Seed 002 (002_882aafdbf41b7f4b.txt), Saves and Light: darkness puts saves at disadvantage (2d20, the worse);
    advantage for all is 2d20, the better; a save has no difficulty step."""
    before, dark, _, _ = _what_if("chaos-conquest", "dark")
    p = before.success
    assert dark.success == p * p
    assert _what_if("chaos-conquest", "boon")[1].success == 1 - (1 - p) ** 2
    assert _what_if("chaos-conquest", "harder")[1] is None
    assert set(SYSTEMS["chaos-conquest"].what_ifs()) == {"dark", "boon", "bane"}


def test_fortunes_favor_a_difficulty_step_moves_both_points_by_five():
    """Seed 003 (003_eeb4db86843669ac.txt), Tests: difficulties step by 5; Fortune's Favor keeps the higher d20."""
    _, _, params, (_, harder) = _what_if("fortunes-favor", "harder")
    assert harder["success"] == params["success"] + 5
    assert harder["failure"] is None or harder["failure"] == params["failure"] + 5
    _, _, _, (_, boon) = _what_if("fortunes-favor", "boon")
    assert boon["favor"] is True and SYSTEMS["fortunes-favor"].what_ifs()["boon"] == "Fortune's Favor for all"


@pytest.mark.parametrize("system_id", ["fell-draft", "fell-late"])
def test_fell_a_step_is_the_dn_and_advantage_is_one_more(system_id):
    """Seed 000 (000_72fc736675279766.txt), seed 001 (001_9a541ab1b0476299.txt), Tests: a die meeting the DN passes;
    a DN one higher is harder, an advantage helps, a disadvantage hurts."""
    before, harder, params, (_, moved) = _what_if(system_id, "harder")
    assert moved["dn"] == params["dn"] + 1 and harder.success <= before.success
    assert _what_if(system_id, "boon")[1].success >= before.success >= _what_if(system_id, "bane")[1].success


def test_grit_and_flesh_offers_only_the_dark():
    """Seed 004 (004_ebd0e2535c17253c.txt): an attribute check has no difficulty step nor advantage to move."""
    assert set(SYSTEMS["grit-flesh"].what_ifs()) == {"dark"}
    assert _what_if("grit-flesh", "boon")[1] is None


@pytest.mark.parametrize("system_id", sorted(SYSTEMS))
def test_a_what_if_never_changes_the_sheet_it_is_given(system_id):
    system = SYSTEMS[system_id]
    made = system.create({"name": "PC"}, random.Random(3))
    sheet = Sheet(state=made.state, items=made.items, name="PC")
    proc = system.procedures()[CHECK[system_id]]
    params = check_params(proc, sheet, {})
    kept = dict(params)
    for condition in system.what_ifs():
        system.what_if(condition, sheet, params)
    assert params == kept and not sheet.table
