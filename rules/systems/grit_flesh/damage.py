"""Grit & Flesh: damage, the save vs death, rest and the surgeon (seed 004, Grit and Flesh, Rest and Healing)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import RandomSource, roll_die
from rules.errors import Settled
from rules.systems.grit_flesh.checks import under_chance
from rules.systems.grit_flesh.settings import value
from rules.systems.grit_flesh.state import apply_damage, death_save_pending, refuse_if_down, st_of

SURGEON_GP = 50  # seed 004, Rest and Healing: per point of Flesh, and a day's rest
DAMAGE_MAX = 100


def damage_odds(state: Mapping[str, Any], amount: int, to_flesh: bool, settings: Mapping[str, Any]) -> Odds:
    """What a known amount of damage does: only the save vs death, when it comes, is left to the dice."""
    if not death_save_pending(state, amount, to_flesh, bool(value(settings, "grit_spills"))):
        return Odds((("hurt", Fraction(1)),), success_keys=("hurt",))
    survive = under_chance(state["st"])
    outcomes = tuple((k, p) for k, p in (("out", survive), ("dead", 1 - survive)) if p)
    return Odds(outcomes, success_keys=("out",))


@dataclass(frozen=True)
class TakeDamageProcedure:
    """Seed 004 (Grit and Flesh): damage comes off Grit, then Flesh; with no Flesh left, save vs death."""

    key: str = "damage"
    label: str = "Take damage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("amount", "Damage", "int", 1, 0, DAMAGE_MAX),
            Param("to_flesh", "Straight to Flesh (a critical hit, or caught unaware)", "bool", False),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return damage_odds(st_of(sheet), p["amount"], p["to_flesh"], sheet.settings)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        if state["dead"]:
            raise Settled("Nothing more can hurt the dead.")
        odds = damage_odds(state, p["amount"], p["to_flesh"], sheet.settings)
        new, words, dice, outcome = apply_damage(state, p["amount"], p["to_flesh"], sheet.settings, rng)
        return RollResult(self.key, self.label, outcome, words, dice, p["amount"], odds, shown_inputs(p), new)


@dataclass(frozen=True)
class ComeRoundProcedure:
    """Seed 004 (Grit and Flesh): after the save vs death is passed, wake with 1 Flesh after 1d6 rounds."""

    key: str = "come_round"
    label: str = "Come round"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def _check(self, state: Mapping[str, Any]) -> None:
        """Only the out cold come round: the odds refuse as the roll does (issue 35 item 7)."""
        if state["dead"]:
            raise Settled("The dead do not wake.")
        if not state["out_rounds"]:
            raise Settled("You are not out cold.")  # the state answers it: the sheet says so, not an error

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        clean_params(self, sheet, params)
        self._check(st_of(sheet))
        return Odds((("awake", Fraction(1)),), success_keys=("awake",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        self._check(state)
        rounds = state["out_rounds"]
        state.update(out_rounds=0, flesh=max(1, state["flesh"]))
        summary = f"After {rounds} round{'s' if rounds != 1 else ''} you come round with {state['flesh']} Flesh."
        return RollResult(
            self.key, self.label, "awake", summary, odds=self.odds(sheet, p), inputs=shown_inputs(p), state=state
        )


@dataclass(frozen=True)
class RestProcedure:
    """Seed 004 (Rest and Healing): ten minutes' rest heals 1d6 Grit, but none while Flesh is hurt."""

    key: str = "rest"
    label: str = "Rest ten minutes"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def _check(self, state: Mapping[str, Any]) -> None:
        refuse_if_down(state, "rest")
        if state["flesh"] < state["flesh_max"]:
            raise RulesError("With Flesh damage outstanding no Grit comes back: see a surgeon first.")

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        clean_params(self, sheet, params)
        self._check(st_of(sheet))
        return Odds((("rested", Fraction(1)),), success_keys=("rested",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        self._check(state)
        die = roll_die(rng, 6, "Grit")
        before = state["grit"]
        state["grit"] = min(state["grit_max"], before + die.face)
        summary = f"Rolled {die.face}: Grit {before} → {state['grit']} of {state['grit_max']}."
        return RollResult(
            self.key, self.label, "rested", summary, (die,), die.face, self.odds(sheet, p), shown_inputs(p), state
        )


@dataclass(frozen=True)
class SurgeonProcedure:
    """Seed 004 (Rest and Healing): only a surgeon heals Flesh, 50 gp and a day's rest for each point."""

    key: str = "surgeon"
    label: str = "See a surgeon"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("points", "Flesh to heal", "int", 1, 1, 999),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = st_of(sheet)
        if state["dead"]:
            raise RulesError("No surgeon can help the dead.")
        missing = state["flesh_max"] - state["flesh"]
        if missing == 0:
            raise RulesError("Your Flesh is whole: nothing for a surgeon to do.")
        points = min(p["points"], missing)
        cost = SURGEON_GP * points
        if cost > state["coins"]:
            raise RulesError(f"{points} Flesh costs {cost} gp; you have {state['coins']} gp.")
        state["coins"] -= cost
        state["flesh"] += points
        state["out_rounds"] = 0
        summary = (
            f"{points} Flesh healed for {cost} gp and {points} day{'s' if points != 1 else ''} of rest; "
            f"Flesh {state['flesh']}/{state['flesh_max']}."
        )
        return RollResult(self.key, self.label, "healed", summary, (), cost, None, shown_inputs(p), state)
