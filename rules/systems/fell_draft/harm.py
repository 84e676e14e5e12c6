"""Fell (draft): harm. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import (
    Sheet,
)
from rules.dice import (
    DieRoll,
    RandomSource,
)
from rules.systems.fell_draft.inventory import _auto_disadvantage
from rules.systems.fell_draft.pools import Pool, PoolDie, _roll_pool, pass_chance, shift_dice
from rules.systems.fell_draft.state import _die_of, _is_dead, _st, _step


@dataclass(frozen=True)
class Harm:
    """What harm did to one sheet (seed 000, Harm and Death)."""

    state: dict[str, Any]
    dice: tuple[DieRoll, ...]
    to_hp: int
    critical: int
    ability: str
    test: str  # "", "passed", "passed automatically", "failed"
    summary: str


def apply_harm(sheet: Sheet, amount: int, ability: str, rng: RandomSource, *, reduce_die: bool = False) -> Harm:
    """Harm to HP first, the rest as critical harm to ``ability``'s points, then the critical harm test.

    Seed 000 (Harm and Death): the test uses that ability at DN = the critical harm; failing leaves the
    character unconscious and dying. Spec §000.12.8 [REC]: the ability die alone, shifted only by the
    automatic disadvantages. Points at 0, or a die lowered below d4 (``reduce_die``), is death.
    """
    state = _st(sheet)
    if _is_dead(state):
        return Harm(state, (), 0, 0, ability, "", f"{sheet.name or 'They'} are already dead.")
    to_hp = min(state["hp"], amount)
    state["hp"] -= to_hp
    critical = amount - to_hp
    words = [f"{to_hp} harm to HP"]
    dice: tuple[DieRoll, ...] = ()
    test = ""
    if critical > 0:
        a = state["abilities"][ability]
        if reduce_die:  # seed 000: critical harm "may also reduce an ability's die" (the GM's call)
            lowered = _step(a["die"], -1)
            if lowered is None:
                state["dead"] = True
                words.append(f"the {ability} die would drop below d4: dead")
                return Harm(state, (), to_hp, critical, ability, "", "; ".join(words) + ".")
            a["die"] = lowered
            a["points"] = min(a["points"], lowered)
            words.append(f"{ability} die lowered to d{lowered}")
        a["points"] = max(0, a["points"] - critical)
        words.append(f"{critical} critical harm to {ability} ({a['points']} left)")
        if a["points"] == 0:
            words.append("dead")
        else:
            test, dice = _critical_test(sheet, state, ability, critical, rng)
            words.append(f"{ability} test at DN {critical} {test}")
            if test == "failed":
                state["dying"] = True
                words.append("unconscious, and will die in about an hour without treatment")
    return Harm(state, dice, to_hp, critical, ability, test, "; ".join(words) + ".")


def _critical_pool(sheet: Sheet, state: Mapping[str, Any], ability: str) -> Pool:
    dis, why = _auto_disadvantage(sheet, state)
    return shift_dice((PoolDie(_die_of(state, ability), ability, "ability"),), -dis, why)


def _critical_test(
    sheet: Sheet, state: Mapping[str, Any], ability: str, dn: int, rng: RandomSource
) -> tuple[str, tuple[DieRoll, ...]]:
    if dn <= 1:  # spec §000.7: DN 1 always passes, so nothing is rolled
        return "passed automatically", ()
    pool = _critical_pool(sheet, state, ability)
    if not pool.dice:
        return "failed", ()
    dice, best = _roll_pool(rng, pool)
    return ("passed" if best >= dn else "failed"), dice


def critical_survival_chance(sheet: Sheet, ability: str, critical: int) -> Fraction:
    """Chance of passing the critical harm test at DN = ``critical`` (spec §000.7)."""
    if critical <= 1:
        return Fraction(1)
    state = _st(sheet)
    return pass_chance(_critical_pool(sheet, state, ability).sides, critical)
