"""Grit & Flesh: attribute checks and saving throws (seed 004, Attribute Checks, Saving Throws)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import RandomSource, roll_die
from rules.errors import Settled
from rules.systems.grit_flesh.state import ordered_attributes, refuse_if_down, st_of


def under_chance(target: int) -> Fraction:
    """d20 ≤ target; the seed gives no natural 1 or 20 (spec §004.3 [REC])."""
    return Fraction(max(0, min(20, target)), 20)


def pass_fail(chance: Fraction, yes: str = "pass", no: str = "fail") -> Odds:
    outcomes = tuple((k, p) for k, p in ((yes, chance), (no, 1 - chance)) if p)
    return Odds(outcomes, success_keys=(yes,))


def attribute_choices(sheet: Sheet | None) -> tuple[tuple[str, str], ...]:
    attributes = ordered_attributes(st_of(sheet), sheet.settings) if sheet is not None else []
    return tuple((k, f"{k} ({v})") for k, v in attributes) or (("", "No attributes"),)


@dataclass(frozen=True)
class CheckProcedure:
    """Seed 004 (Attribute Checks): neither the skill nor the tools, it cannot succeed; one of them, d20 ≤
    the attribute; both, it succeeds without a roll."""

    key: str = "check"
    label: str = "Attribute check"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        choices = attribute_choices(sheet)
        return (
            Param("attribute", "Attribute", "choice", choices[0][0], choices=choices),
            Param("skill", "You have the skill for it", "bool", True),
            Param("tools", "You have the proper tools", "bool", False),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        refuse_if_down(state, "make checks")  # as the roll refuses (issue 35 item 7): no odds for a roll refused
        if p["attribute"] not in state["attributes"]:
            raise RulesError("This sheet has no attributes to check.")
        if p["skill"] and p["tools"]:
            return Odds((("automatic", Fraction(1)),), success_keys=("automatic",))
        if not (p["skill"] or p["tools"]):
            return Odds((("cannot_succeed", Fraction(1)),), success_keys=())
        return pass_fail(under_chance(state["attributes"][p["attribute"]]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        state = st_of(sheet)
        refuse_if_down(state, "make checks")
        score = state["attributes"][p["attribute"]]
        if p["skill"] and p["tools"]:
            summary = f"Skill and tools together: the {p['attribute']} check succeeds without a roll."
            return RollResult(self.key, self.label, "automatic", summary, odds=odds, inputs=shown_inputs(p))
        if not (p["skill"] or p["tools"]):
            summary = f"Without the skill or the tools this cannot succeed: no roll of {p['attribute']}."
            return RollResult(self.key, self.label, "cannot_succeed", summary, odds=odds, inputs=shown_inputs(p))
        die = roll_die(rng, 20, p["attribute"])
        outcome = "pass" if die.face <= score else "fail"
        summary = f"{die.face} against {p['attribute']} {score}: {'success' if outcome == 'pass' else 'failure'}."
        return RollResult(self.key, self.label, outcome, summary, (die,), die.face, odds, shown_inputs(p))


@dataclass(frozen=True)
class SaveProcedure:
    """Seed 004 (Saving Throws): d20 ≤ ST saves."""

    key: str = "save"
    label: str = "Saving throw"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        clean_params(self, sheet, params)
        return pass_fail(under_chance(st_of(sheet)["st"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        if state["dead"]:
            raise Settled("The dead make no saves.")
        die = roll_die(rng, 20, "save")
        outcome = "pass" if die.face <= state["st"] else "fail"
        summary = f"{die.face} against ST {state['st']}: {'saved' if outcome == 'pass' else 'not saved'}."
        return RollResult(
            self.key, self.label, outcome, summary, (die,), die.face, self.odds(sheet, p), shown_inputs(p)
        )
