"""rules/base.py: the Odds invariant and check_params, the one gate for what a person sends a roll."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest

from rules.base import Odds, Param, Procedure, RollResult, RulesError, Sheet, check_params
from rules.dice import RandomSource


@dataclass(frozen=True)
class FakeTest:
    """A procedure with one input of every kind, standing in for a system's test."""

    key: str = "test"
    label: str = "Test"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("dn", "Difficulty", kind="int", default=4, minimum=1, maximum=20),
            Param("advantage", "Advantage", kind="bool", default=False),
            Param(
                "ability",
                "Ability",
                kind="choice",
                default="bod",
                choices=(("bod", "BOD"), ("int", "INT"), ("wil", "WIL")),
            ),
            Param("skills", "Skills", kind="multichoice", default=(), choices=(("climb", "Climb"), ("sneak", "Sneak"))),
            Param("helper", "Helper", kind="character"),
            Param("note", "Note", kind="text", default=""),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds | None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        return RollResult(procedure=self.key, label=self.label, outcome="pass", summary="")


SHEET = Sheet(state={})
TEST = FakeTest()


def test_fake_test_is_a_procedure():
    assert isinstance(TEST, Procedure)


# --- Odds ------------------------------------------------------------------------------------


def test_odds_must_sum_to_exactly_one():
    with pytest.raises(ValueError, match="odds sum to 9/10, not 1"):
        Odds(outcomes=(("pass", Fraction(1, 2)), ("fail", Fraction(2, 5))))


def test_odds_reject_float_rounding_too():
    with pytest.raises(ValueError, match="not 1"):
        Odds(outcomes=(("pass", Fraction(1, 3)), ("fail", Fraction(666, 1000))))


def test_odds_success_adds_the_success_keys():
    """Seed 003 (Tests): a three-outcome test can count "mixed" as a kind of success when asked."""
    odds = Odds(
        outcomes=(("pass", Fraction(2, 5)), ("mixed", Fraction(1, 4)), ("fail", Fraction(7, 20))),
        success_keys=("pass", "mixed"),
    )
    assert odds.success == Fraction(13, 20)
    assert odds.of("fail") == Fraction(7, 20)
    assert odds.of("crit") == 0


# --- check_params ----------------------------------------------------------------------------


def test_check_params_fills_every_default():
    assert check_params(TEST, SHEET, {}) == {
        "dn": 4,
        "advantage": False,
        "ability": "bod",
        "skills": (),
        "helper": None,
        "note": "",
    }


def test_check_params_coerces_form_strings():
    clean = check_params(
        TEST, SHEET, {"dn": "12", "advantage": "on", "ability": "wil", "skills": ["sneak"], "helper": "7", "note": 5}
    )
    assert clean == {"dn": 12, "advantage": True, "ability": "wil", "skills": ("sneak",), "helper": 7, "note": "5"}


def test_check_params_blank_int_falls_back_to_the_default():
    assert check_params(TEST, SHEET, {"dn": ""})["dn"] == 4


def test_check_params_rejects_unknown_options_by_name():
    with pytest.raises(RulesError, match=r"^Test has no option bonus, luck\.$"):
        check_params(TEST, SHEET, {"luck": 1, "bonus": 2})


@pytest.mark.parametrize(
    ("dn", "message"),
    [
        (0, r"^Difficulty must be at least 1\.$"),
        (21, r"^Difficulty must be at most 20\.$"),
        ("four", r"^Difficulty must be a whole number\.$"),
        ("4.5", r"^Difficulty must be a whole number\.$"),
    ],
)
def test_check_params_rejects_ints_out_of_range_or_not_whole(dn, message):
    with pytest.raises(RulesError, match=message):
        check_params(TEST, SHEET, {"dn": dn})


def test_check_params_rejects_a_choice_that_is_not_offered():
    with pytest.raises(RulesError, match=r"^Ability: choose one of BOD, INT, WIL\.$"):
        check_params(TEST, SHEET, {"ability": "str"})


def test_check_params_rejects_multichoice_values_that_are_not_offered():
    with pytest.raises(RulesError, match=r"^Skills: swim is not an option here\.$"):
        check_params(TEST, SHEET, {"skills": ["climb", "swim"]})


def test_check_params_rejects_a_character_that_is_not_an_id():
    with pytest.raises(RulesError, match=r"^Helper: pick a character at the table\.$"):
        check_params(TEST, SHEET, {"helper": "Ana"})


def test_check_params_caps_free_text():
    assert len(check_params(TEST, SHEET, {"note": "x" * 500})["note"]) == 200


def test_rules_error_is_a_value_error_so_callers_can_catch_either():
    assert issubclass(RulesError, ValueError)


@dataclass(frozen=True)
class FakeNaming:
    """A procedure whose text must be written: "text" with a minimum (a C&C name, which no table rolls)."""

    key: str = "naming"
    label: str = "Naming"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("name", "Name", kind="text", default="", minimum=1), Param("motto", "Motto", "text", minimum=3))


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ({"motto": "Onward"}, r"^Name can't be left empty\.$"),
        ({"name": "  ", "motto": "Onward"}, r"^Name can't be left empty\.$"),
        ({"name": "Ilse", "motto": "Go"}, r"^Motto: at least 3 characters\.$"),
    ],
)
def test_check_params_refuses_a_text_shorter_than_its_minimum(given, message):
    with pytest.raises(RulesError, match=message):
        check_params(FakeNaming(), SHEET, given)
    assert check_params(FakeNaming(), SHEET, {"name": "Ilse", "motto": "Onward"}) == {"name": "Ilse", "motto": "Onward"}
