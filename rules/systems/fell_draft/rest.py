"""Fell (draft): rest. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.base import (
    Param,
    RollResult,
    RulesError,
    Sheet,
    clean_params,
    shown_inputs,
)
from rules.dice import (
    RandomSource,
)
from rules.errors import Settled
from rules.systems.fell_draft.state import ABILITIES, _is_dead, _st


@dataclass(frozen=True)
class RestProcedure:
    """Seed 000 (Healing and Rest, Deprivation and Fatigue)."""

    key: str = "rest"
    label: str = "Rest"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "length",
                "Rest",
                "choice",
                "short",
                choices=(
                    ("short", "several minutes: all HP"),
                    ("night", "a night: all ability points"),
                    ("week", "a week with care: reduced dice restored"),
                ),
            ),
            Param("comfortable", "Comfortable, on a full stomach", "bool", True, help="Lifts a fatigue level."),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        if _is_dead(state):
            raise Settled("Rest will not bring back the dead.")
        if state["dying"]:
            raise RulesError("A dying character needs treatment before rest can help.")
        if state["deprived"]:
            raise RulesError("While deprived you cannot recover HP or ability points, or restore dice.")
        words = []
        length = p["length"]
        if length == "week":  # spec §000.7 [REC]: points_max rises with the die; points fill on a night
            for ab in ABILITIES:
                a = state["abilities"][ab]
                if a["die"] < a["full_die"]:
                    words.append(f"{ab} back to d{a['full_die']}")
                    a["die"] = a["full_die"]
        if length in ("night", "week"):
            for ab in ABILITIES:
                a = state["abilities"][ab]
                a["points"] = a["die"]
            words.append("ability points recovered")
            nights = 7 if length == "week" else 1
            if p["comfortable"] and state["fatigue"]:
                lifted = min(nights, state["fatigue"])
                state["fatigue"] -= lifted
                words.append(f"{lifted} fatigue level(s) lifted")
        state["hp"] = state["hp_max"]
        words.insert(0, "All HP back")
        return RollResult(self.key, self.label, length, f"{'; '.join(words)}.", (), None, None, shown_inputs(p), state)


@dataclass(frozen=True)
class DeprivationProcedure:
    """Seed 000 (Deprivation and Fatigue); spec §000.7 [REC]: fatigue = full days deprived − 1."""

    key: str = "deprivation"
    label: str = "Deprivation and fatigue"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "change",
                "What happened",
                "choice",
                "start",
                choices=(
                    ("start", "deprived of a crucial need"),
                    ("day", "another full day deprived"),
                    ("end", "no longer deprived"),
                    ("fatigue_on", "add a fatigue level"),
                    ("fatigue_off", "remove a fatigue level"),
                ),
            ),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        change = p["change"]
        if change == "start":
            state["deprived"], state["days_deprived"] = True, 0
            summary = "Deprived: no recovery of HP, points or dice until the need is met."
        elif change == "day":
            if not state["deprived"]:
                raise RulesError("Mark the character deprived first.")
            state["days_deprived"] += 1
            if state["days_deprived"] > 1:
                state["fatigue"] += 1
            summary = f"{state['days_deprived']} day(s) deprived; fatigue level {state['fatigue']}."
        elif change == "end":
            state["deprived"], state["days_deprived"] = False, 0
            summary = "No longer deprived; fatigue lifts one level per comfortable night."
        elif change == "fatigue_on":
            state["fatigue"] += 1
            summary = f"Fatigue level {state['fatigue']}."
        else:
            state["fatigue"] = max(0, state["fatigue"] - 1)
            summary = f"Fatigue level {state['fatigue']}."
        return RollResult(self.key, self.label, change, summary, (), None, None, shown_inputs(p), state)


@dataclass(frozen=True)
class DyingProcedure:
    """Seed 000 (Harm and Death): an unconscious character dies in about an hour unless treated."""

    key: str = "dying"
    label: str = "Treat the dying"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "result",
                "What happened",
                "choice",
                "treated",
                choices=(("treated", "treated in time"), ("died", "not treated in time")),
            ),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        if not state["dying"]:
            raise RulesError("This character is not dying.")
        state["dying"] = False
        if p["result"] == "died":
            state["dead"] = True
            summary = "No help came in time: dead."
        else:
            summary = "Treated in time: no longer dying."
        return RollResult(self.key, self.label, p["result"], summary, (), None, None, shown_inputs(p), state)
