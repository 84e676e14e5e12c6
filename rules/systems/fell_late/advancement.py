"""Fell (late): advancement by hoard, and learning skills and spells (seed 001, Advancement, Skills, Spells)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, Procedure, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import fell_late as data
from rules.dice import DieRoll, RandomSource, roll_die
from rules.errors import Settled
from rules.systems.fell_late.checks import ATTRIBUTE_CHOICES
from rules.systems.fell_late.settings import HP_GAIN, setting
from rules.systems.fell_late.state import HOARD_MAX, HP_MAX, face, next_threshold, st, step

_LEGEND = (("retire", "Fulfil my drive and retire to safety"), ("carry_on", "Keep seeking fortune"))


_LATER_RAISES = ("attribute_2", "attribute_3", "attribute_4")  # 0 → 21,000 C at once raises four times
_SAME = (("", "The same as the raise before"),)


@dataclass(frozen=True)
class AdvanceProcedure:
    """Seed 001 (Advancement): plunder brought back to safety adds to the hoard; each threshold (1,000, 3,000,
    6,000, 10,000, 15,000, 21,000 C) is reached once, in order, with its gains. The seed compares the hoard
    with every threshold on each return, so one return reaches every rank the hoard now earns (21,000 C
    brought back at once: all six). Spec §001.10 [REC]: the hoard only grows; "gain HP" is +1 unless the
    table rolls the DEX die; a raised attribute stops at d12."""

    key: str = "advance"
    label: str = "Hoard and advancement"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        later = tuple(
            Param(
                name,
                f"{ordinal} attribute to raise",
                "choice",
                "",
                choices=_SAME + ATTRIBUTE_CHOICES,
                help="When one return reaches several ranks that each raise one.",
            )
            for name, ordinal in zip(_LATER_RAISES, ("Second", "Third", "Fourth"), strict=True)
        )
        return (
            Param("plunder", "Plunder brought back to safety (C)", "int", 0, 0, 1_000_000),
            Param(
                "attribute",
                "Attribute to raise",
                "choice",
                "STR",
                choices=ATTRIBUTE_CHOICES,
                help="When a threshold raises one.",
            ),
            *later,
            Param("legend", "As a legend", "choice", "carry_on", choices=_LEGEND, help="At 21,000 C only."),
        )

    def _plan(
        self, sheet: Sheet, p: Mapping[str, Any]
    ) -> tuple[dict[str, Any], list[tuple[tuple[int, str, bool, bool], str]]]:
        """The state with the hoard grown, and each rank reached with the attribute it raises ("" if none)."""
        state = st(sheet)
        if state["dead"]:
            raise Settled("The dead hoard nothing more.")
        state["hoard"] = min(HOARD_MAX, state["hoard"] + p["plunder"])
        reached = [t for t in data.THRESHOLDS[state["advances"] :] if state["hoard"] >= t[0]]
        if not p["plunder"] and not reached:
            raise RulesError("Bring back some plunder, or reach the next threshold, to advance.")
        originals = {a: entry["original"] for a, entry in state["attributes"].items()}
        choices = [p["attribute"], *(p[name] for name in _LATER_RAISES)]
        plan: list[tuple[tuple[int, str, bool, bool], str]] = []
        raised = 0
        for threshold in reached:
            attribute = ""
            if threshold[3] and any(face < 12 for face in originals.values()):
                attribute = choices[raised] or choices[raised - 1]  # the first is always chosen
                choices[raised] = attribute
                raised += 1
                if originals[attribute] >= 12:
                    raise RulesError(f"{attribute} is already a d12: raise another attribute.")
                originals[attribute] = min(12, originals[attribute] + 2)
            plan.append((threshold, attribute))
        return state, plan

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, plan = self._plan(sheet, p)
        key = f"reached_{plan[-1][0][1]}" if plan else "hoard_grows"
        return Odds(((key, Fraction(1)),), success_keys=(key,))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, plan = self._plan(sheet, p)
        odds = self.odds(sheet, p)
        summary = f"Hoard {state['hoard']:,} C."
        dice: list[DieRoll] = []
        for (hoard, rank, gains_hp, _), attribute in plan:
            state["advances"] += 1
            summary += f" Reached {hoard:,} C: {rank}."
            if gains_hp:
                gain = 1
                if setting(sheet, HP_GAIN) == "dex_roll":
                    die = roll_die(rng, face(state, "DEX"), "DEX")
                    dice.append(die)
                    gain = die.face - state["hp_max"] if die.face > state["hp_max"] else 1
                    summary += f" DEX {die.face}:"
                state["hp_max"] = min(HP_MAX, state["hp_max"] + gain)
                state["hp"] = min(state["hp_max"], state["hp"] + gain)
                summary += f" maximum HP {state['hp_max']} (+{gain})."
            if attribute:
                entry = state["attributes"][attribute]
                entry["original"] = step(entry["original"], 1)
                entry["die"] = step(entry["die"], 1)
                summary += f" {attribute} up a step to d{entry['die']}."
            if rank == "legend":
                state["legend_choice"] = p["legend"]
                summary += " " + dict(_LEGEND)[p["legend"]] + "."
        if not plan:
            nxt = next_threshold(state)
            summary += f" Next threshold: {nxt[0]:,} C ({nxt[1]})." if nxt else ""
        outcome = f"reached_{plan[-1][0][1]}" if plan else "hoard_grows"
        return RollResult(self.key, self.label, outcome, summary, tuple(dice), None, odds, shown_inputs(p), state)


def _learn_odds(outcome: str) -> Odds:
    return Odds(((outcome, Fraction(1)),), success_keys=(outcome,))


def _learn(sheet: Sheet, field: str, name: str, attribute: str) -> tuple[str, dict[str, Any]]:
    """Seed 001 (Skills, Spells): one more skill or spell, at most as many as the attribute die's top face."""
    state = st(sheet)
    name = name[:100]
    limit = face(state, attribute)
    if name in state[field]:
        raise RulesError(f"You already know {name}.")
    if len(state[field]) >= limit:
        raise RulesError(f"You know {len(state[field])} {field}, as many as your {attribute} (d{limit}) allows.")
    state[field].append(name)
    return name, state


def _learned(procedure: Procedure, summary: str, p: Mapping[str, Any], state: dict[str, Any]) -> RollResult:
    odds = _learn_odds("learned")
    return RollResult(procedure.key, procedure.label, "learned", summary, (), None, odds, shown_inputs(p), state)


@dataclass(frozen=True)
class LearnSkillProcedure:
    """Seed 001 (Skills): you know as many skills as INT (its die's highest face, spec §001.11.4 [REC])."""

    key: str = "learn_skill"
    label: str = "Add a skill"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("skill", "Skill", "choice", data.SKILLS[0], choices=tuple((s, s) for s in data.SKILLS)),
            Param("other", "Or another skill", "text", ""),
        )

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return _learn(sheet, "skills", (p["other"].strip() or p["skill"]).lower(), "INT")

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        self._apply(sheet, clean_params(self, sheet, params))
        return _learn_odds("learned")

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        name, state = self._apply(sheet, p)
        return _learned(self, f"You now count {name} among your skills.", p, state)


@dataclass(frozen=True)
class LearnSpellProcedure:
    """Seed 001 (Spells): you know as many spells as WIL (its die's highest face)."""

    key: str = "learn_spell"
    label: str = "Add a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("spell", "Spell", "choice", data.SPELLS[0][0], choices=tuple((n, n) for n, _ in data.SPELLS)),
            Param("other", "Or a spell not on the table", "text", ""),
        )

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        return _learn(sheet, "spells", p["other"].strip() or p["spell"], "WIL")

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        self._apply(sheet, clean_params(self, sheet, params))
        return _learn_odds("learned")

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        name, state = self._apply(sheet, p)
        return _learned(self, f"You now know {name}.", p, state)
