"""Fell (draft): advancement. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import (
    Odds,
    Param,
    RollResult,
    Sheet,
    clean_params,
    shown_inputs,
)
from rules.dice import (
    LADDER,
    RandomSource,
    die_dist,
    roll_die,
)
from rules.errors import Settled
from rules.systems.fell_draft.settings import setting
from rules.systems.fell_draft.state import ABILITIES, _die_of, _is_dead, _st, _step, retired


def advancement_gain(dice: Mapping[str, int], faces: Mapping[str, int], hp_max: int, stack: bool = True) -> int:
    """Seed 000 (Advancement): +1 HP per die above HP (spec [REC]: HP max), +1 HP per top face.

    With ``stack`` (spec §000.11 [REC]) one die can earn both; without, at most one per die.
    """
    total = 0
    for ab, face in faces.items():
        above = face > hp_max
        top = face == dice[ab]
        total += (int(above) + int(top)) if stack else int(above or top)
    return total


@dataclass(frozen=True)
class AdvanceProcedure:
    """Seed 000 (Advancement): after deadly peril and plunder, roll all ability dice."""

    key: str = "advance"
    label: str = "Advance"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()  # whether one die earns both gains is the table's setting (advance_clauses_stack)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        clean_params(self, sheet, params)  # refuses inputs it does not take
        state = _st(sheet)
        if _is_dead(state):  # as the roll refuses (issue 35 item 7): no odds for a roll refused
            raise Settled("The dead do not advance.")
        dice = {ab: _die_of(state, ab) for ab in ABILITIES}
        dist: dict[int, Fraction] = {}
        combos: list[tuple[dict[str, int], Fraction]] = [({}, Fraction(1))]
        for ab in ABILITIES:
            combos = [({**f, ab: v}, q * pv) for f, q in combos for v, pv in die_dist(dice[ab]).items()]
        for faces, q in combos:
            g = advancement_gain(dice, faces, state["hp_max"], setting(sheet, "advance_clauses_stack"))
            dist[g] = dist.get(g, Fraction(0)) + q
        outcomes = tuple((f"+{g} HP", q) for g, q in sorted(dist.items()))
        return Odds(outcomes, success_keys=tuple(k for k, _ in outcomes if k != "+0 HP"))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        if _is_dead(state):
            raise Settled("The dead do not advance.")
        odds = self.odds(sheet, p)
        dice = {ab: _die_of(state, ab) for ab in ABILITIES}
        rolls = tuple(roll_die(rng, dice[ab], ab) for ab in ABILITIES)
        faces = {ab: r.face for ab, r in zip(ABILITIES, rolls, strict=True)}
        gain = advancement_gain(dice, faces, state["hp_max"], setting(sheet, "advance_clauses_stack"))
        words = []
        for ab in ABILITIES:  # spec §000.11 [REC]: dice stop at d12; points max rises with the die
            if faces[ab] == dice[ab] and dice[ab] < LADDER[-1]:
                a = state["abilities"][ab]
                a["die"] = _step(a["die"], 1) or a["die"]
                a["full_die"] = max(a["die"], _step(a["full_die"], 1) or a["full_die"])
                words.append(f"{ab} rises to d{a['die']}")
        state["hp_max"] += gain
        state["hp"] += gain
        summary = f"Rolled {', '.join(f'{ab} {faces[ab]}' for ab in ABILITIES)}: +{gain} HP"
        summary += f" (now {state['hp_max']})" + (f"; {', '.join(words)}" if words else "") + "."
        if retired(state):
            summary += " Twenty HP and all d12s: time to retire to safety, or become a legend."
        return RollResult(
            self.key,
            self.label,
            f"+{gain} HP",
            summary,
            rolls,
            gain,
            odds,
            shown_inputs(p),
            state,
            {"gain": gain, "retire": retired(state)},
        )
