"""The party's coin split (rules.loot, issue 41), by each system's rule for hirelings' shares."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules import SYSTEMS, RulesError
from rules.base import Hireling, LootShare
from rules.loot import split_coins
from rules.systems.chaos_conquest.hired_help import treasure_shares

FELL_LATE, CC = SYSTEMS["fell-late"], SYSTEMS["chaos-conquest"]


def test_fell_late_hirelings_take_an_equal_share_less_the_fees_paid_up_front():
    """Seed 001 (001_9a541ab1b0476299.txt), Hirelings: an equal share of any plunder, minus their upfront daily fee.
    137 C among 3 PCs and 2 hirelings, one paid a day up front (5 C): 137/5 = 27.4 a share."""
    paid = FELL_LATE.loot_share(Hireling("Pim", "hireling", {"fees_paid": 5, "hire_rank": "untrained"}))
    unpaid = FELL_LATE.loot_share(Hireling("Oda", "hireling", {"fees_paid": 0, "paid_up": False}))
    assert paid == LootShare(Fraction(1), 5, "an equal share, less fees paid") and unpaid.less == 0
    split = split_coins(137, ["a", "b", "c"], [("Pim", paid), ("Oda", unpaid)])
    assert split.unit == Fraction(137, 5)
    assert split.pcs == (("a", 27), ("b", 27), ("c", 27))
    assert split.hirelings == (("Pim", 22), ("Oda", 27))
    assert split.left == 7


def test_fell_late_a_hireling_whose_fees_exceed_its_share_takes_nothing():
    """Seed 001, Hirelings (spec §001.8 [REC]): the share less fees paid, never below 0."""
    share = FELL_LATE.loot_share(Hireling("Pim", "hireling", {"fees_paid": 120}))
    split = split_coins(20, ["a"], [("Pim", share)])
    assert split.hirelings == (("Pim", 0),) and split.pcs == (("a", 10),) and split.left == 10


def test_chaos_conquest_retainers_take_half_a_share_as_the_sources_example():
    """Chaos & Conquest, sources hired-help.md (Shares of Treasure): 4 PCs and 3 retainers divide 2,200p by 5.5:
    400p a PC, 200p a retainer; a hireling (a porter, paid by the day) takes no share."""
    retainer = CC.loot_share(Hireling("Bertil", "retainer"))
    assert retainer.weight == Fraction(1, 2) and CC.loot_share(Hireling("Pim", "hireling")) is None
    split = split_coins(2200, ["a", "b", "c", "d"], [(n, retainer) for n in "xyz"])
    assert {amount for _, amount in split.pcs} == {400} and {amount for _, amount in split.hirelings} == {200}
    assert split.left == 0
    expected = treasure_shares(137, 3, 2)  # the system's own table rule agrees with the split
    split = split_coins(137, ["a", "b", "c"], [("x", retainer), ("y", retainer)])
    assert (split.pcs[0][1], split.hirelings[0][1], split.left) == (expected.pc, expected.retainer, expected.left_over)
    assert (expected.pc, expected.retainer, expected.left_over) == (34, 17, 1)


@pytest.mark.parametrize("system_id", ["fell-draft", "fortunes-favor", "grit-flesh"])
@pytest.mark.parametrize("kind", ["hireling", "retainer", "helper"])
def test_the_other_systems_pay_hirelings_no_share(system_id, kind):
    """Seed 000 (Hirelings: paid 5 coin a day), seed 003 (no hirelings' shares), seed 004 (Hiring Helpers: paid by the
    week; "split evenly among the party, but not among Helpers"): no share of the coins."""
    assert SYSTEMS[system_id].loot_share(Hireling("Pim", kind)) is None
    split = split_coins(137, ["a", "b", "c"])
    assert split.pcs == (("a", 45), ("b", 45), ("c", 45)) and split.left == 2


@pytest.mark.parametrize(
    ("total", "pcs", "sentence"),
    [(-1, ["a"], "whole number"), (True, ["a"], "whole number"), (10, [], "at least one character")],
)
def test_a_split_of_nonsense_is_refused_with_a_sentence(total, pcs, sentence):
    with pytest.raises(RulesError, match=sentence):
        split_coins(total, pcs)
