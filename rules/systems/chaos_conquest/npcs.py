"""Chaos & Conquest rolls for NPCs (seed 002, Morale; npcs.md, Reaction): 2d6 against Morale, and the reaction table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, Procedure, RollResult, Sheet, check_params, clean_params
from rules.data import chaos_conquest as data
from rules.dice import RandomSource, roll_dice, sum_dist


def _two_d6() -> dict[int, Fraction]:
    return sum_dist((6, 6))


MORALE_DEFAULT = 7  # the GM's form starts here; most monsters' ML sits near it
_MORALE_PARAM = Param("morale", "Their Morale (ML)", "int", MORALE_DEFAULT, 2, 12)
_NOBODY = Sheet(state={})  # the table's rolls read no sheet; check_params only hands it back to params()


def morale_odds(ml: int) -> Odds:
    """Seed 002, Morale: 2d6 above ML and they flee or try to parley; otherwise they hold."""
    flee = sum((p for v, p in _two_d6().items() if v > ml), Fraction(0))
    return Odds((("hold", 1 - flee), ("flee", flee)), success_keys=("hold",))


def _roll_morale(proc: Procedure, p: Mapping[str, Any], rng: RandomSource) -> RollResult:
    dice = roll_dice(rng, 2, 6, "morale")
    total = sum(d.face for d in dice)
    flee = total > p["morale"]
    summary = f"Morale 2d6 = {total} against ML {p['morale']}: " + (
        "they flee or try to parley." if flee else "they stand firm."
    )
    return RollResult(
        proc.key, proc.label, "flee" if flee else "hold", summary, dice, total, morale_odds(p["morale"]), p
    )


@dataclass(frozen=True)
class MoraleProcedure:
    """Seed 002, Morale: roll 2d6; above the NPCs' Morale they flee or try to parley (from a sheet)."""

    key: str = "morale"
    label: str = "Morale (NPCs)"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (_MORALE_PARAM,)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return morale_odds(clean_params(self, sheet, params)["morale"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        return _roll_morale(self, clean_params(self, sheet, params), rng)


@dataclass(frozen=True)
class TableMoraleProcedure:
    """Seed 002, Morale, rolled from the GM's table: the NPCs' 2d6 against their ML needs no character,
    so every method takes ``sheet=None``."""

    key: str = "morale"
    label: str = "Morale (NPCs)"
    gm_only: bool = True

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return (_MORALE_PARAM,)

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        return morale_odds(check_params(self, _NOBODY, params)["morale"])

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        return _roll_morale(self, check_params(self, _NOBODY, params), rng)


@dataclass(frozen=True)
class ReactionProcedure:
    """npcs.md, Reaction: 2d6 when an NPC's attitude is not obvious."""

    key: str = "reaction"
    label: str = "NPC reaction"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        dist = _two_d6()
        rows = tuple(
            (name.lower(), sum((dist[v] for v in range(lo, hi + 1)), Fraction(0))) for lo, hi, name in data.REACTIONS
        )
        return Odds(rows, success_keys=("friendly", "helpful"))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        clean_params(self, sheet, params)
        dice = roll_dice(rng, 2, 6, "reaction")
        total = sum(d.face for d in dice)
        name = next(n for lo, hi, n in data.REACTIONS if lo <= total <= hi)
        summary = f"Reaction 2d6 = {total}: {name}."
        return RollResult(self.key, self.label, name.lower(), summary, dice, total, self.odds(sheet, params), {})
