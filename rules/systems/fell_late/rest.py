"""Fell (late): rest, treatment, deprivation and fatigue (seed 001, Healing and Rest, Deprivation and Fatigue)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import RandomSource
from rules.errors import Settled
from rules.systems.fell_late.checks import ATTRIBUTE_CHOICES
from rules.systems.fell_late.state import ATTRIBUTES, st, step

_KINDS = (
    ("minutes", "Several minutes' rest: all HP back"),
    ("night", "A comfortable night on a full stomach: all HP back too"),
    ("week", "A full week of rest and care: one lowered attribute up a step"),
    ("treat", "Treatment for someone taken out"),
)


def _one(outcome: str) -> Odds:
    return Odds(((outcome, Fraction(1)),), success_keys=(outcome,))


@dataclass(frozen=True)
class RestProcedure:
    """Seed 001 (Healing and Rest; Deprivation and Fatigue). Deprivation blocks HP and attributes coming back;
    a comfortable night removes a fatigue level, ends what lasted until dawn and, holding several minutes'
    rest, brings all HP back; a week raises one lowered attribute a step (spec §001.7 [REC]: one step a week
    in all)."""

    key: str = "rest"
    label: str = "Rest"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = st(sheet)
        lowered = tuple(
            (a, a) for a in ATTRIBUTES if state["attributes"][a]["die"] < state["attributes"][a]["original"]
        )
        return (
            Param("kind", "Rest", "choice", "minutes", choices=_KINDS),
            Param(
                "attribute",
                "Attribute to restore",
                "choice",
                lowered[0][0] if lowered else "STR",
                choices=lowered or ATTRIBUTE_CHOICES,
                help="After a week only.",
            ),
        )

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[str, str, dict[str, Any]]:
        state = st(sheet)
        if state["dead"]:
            raise Settled("The dead do not rest.")
        kind = p["kind"]
        if kind == "treat":
            if not state["out"]:
                raise RulesError("Nobody here is taken out and dying.")
            state["out"] = False
            return "treated", "Treated in time: no longer dying, though the lowered attribute stays lowered.", state
        if kind == "night":
            state["fatigue"] = max(0, state["fatigue"] - 1)
            state["deprived"] = False
            state["days_deprived"] = 0
            state["wil_impaired"] = False
            state["locked_spells"] = []
            state["drawbacks"] = []
            summary = f"A comfortable night: fatigue {state['fatigue']}; dawn ends every until-dawn drawback."
            # A night holds many "several minutes" of rest (seed 001, Healing and Rest), and the full stomach
            # ends the deprivation that blocked it; only someone taken out still needs treatment first.
            if not state["out"]:
                state["hp"] = state["hp_max"]
                summary += f" HP back to {state['hp_max']}."
            return "rested", summary, state
        if state["deprived"]:
            raise RulesError("Deprived of food, water, warmth or sleep: no HP and no attribute comes back.")
        if state["out"]:
            raise RulesError("Taken out: they need treatment before rest does them good.")
        if kind == "minutes":
            state["hp"] = state["hp_max"]
            return "rested", f"Several minutes' rest: HP back to {state['hp_max']}.", state
        attribute = p["attribute"]
        entry = state["attributes"][attribute]
        if entry["die"] >= entry["original"]:
            raise RulesError(f"{attribute} is not lowered.")
        entry["die"] = step(entry["die"], 1)
        return "restored", f"A week of rest and care: {attribute} back up to d{entry['die']}.", state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return _one(self._apply(sheet, p)[0])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        outcome, summary, state = self._apply(sheet, p)
        return RollResult(self.key, self.label, outcome, summary, (), None, _one(outcome), shown_inputs(p), state)


@dataclass(frozen=True)
class DeprivationProcedure:
    """Seed 001 (Deprivation and Fatigue): a day without a crucial need; past the first day, a fatigue level a day."""

    key: str = "deprivation"
    label: str = "A day deprived"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("days", "Days", "int", 1, 1, 30),)

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        state = st(sheet)
        if state["dead"]:
            raise Settled("The dead need nothing.")
        before = state["days_deprived"]
        state["deprived"] = True
        state["days_deprived"] = min(1000, before + p["days"])
        gained = max(0, state["days_deprived"] - 1) - max(0, before - 1)
        state["fatigue"] = min(1000, state["fatigue"] + gained)
        days = state["days_deprived"]
        summary = f"Deprived {days} day{'s' if days != 1 else ''}: no HP or attributes come back"
        summary += f"; fatigue {state['fatigue']}, every test impaired that many steps." if state["fatigue"] else "."
        return summary, state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        self._apply(sheet, clean_params(self, sheet, params))
        return _one("deprived")

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        summary, state = self._apply(sheet, p)
        return RollResult(self.key, self.label, "deprived", summary, (), None, _one("deprived"), shown_inputs(p), state)
