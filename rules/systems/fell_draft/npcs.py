"""Fell (draft): npcs. See the package docstring for sources and readings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import (
    Odds,
    Param,
    RollResult,
    Sheet,
    clean_params,
)
from rules.data import fell_draft as data
from rules.dice import (
    RandomSource,
    die_dist,
    roll_die,
)
from rules.systems.fell_draft.checks import (
    DIE_CHOICES,
    _build_pool,
    _contest_odds,
    _opponent_pool,
    _pool_params,
    _roll_contest,
    _shift_params,
)
from rules.systems.fell_draft.pools import Pool, contest_chances
from rules.systems.fell_draft.settings import setting
from rules.systems.fell_draft.state import _die_of, _st


def _table_odds(sides: int, table: Sequence[tuple[int, int, str]]) -> Odds:
    """Every row of a WIL-die table with its exact chance (rows a small die cannot reach show 0)."""
    dist = die_dist(sides)
    rows = tuple((row, sum((p for v, p in dist.items() if low <= v <= high), Fraction(0))) for low, high, row in table)
    return Odds(rows, success_keys=tuple(r for _, _, r in table[2:]))


def _table_row(face: int, table: Sequence[tuple[int, int, str]]) -> str:
    return next(row for low, high, row in table if low <= face <= high)


@dataclass(frozen=True)
class ReactionProcedure:
    """Seed 000 (Reactions): roll your WIL die on the reaction table."""

    key: str = "reaction"
    label: str = "Reaction"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        clean_params(self, sheet, params)
        return _table_odds(_die_of(_st(sheet), "WIL"), data.REACTIONS)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        clean_params(self, sheet, params)
        die = _die_of(_st(sheet), "WIL")
        roll = roll_die(rng, die, "WIL")
        row = _table_row(roll.face, data.REACTIONS)
        summary = f"WIL d{die} rolled {roll.face}: {row}."
        return RollResult(self.key, self.label, row, summary, (roll,), roll.face, self.odds(sheet, {}))


def _wil_contest_params(sheet: Sheet) -> tuple[Param, ...]:
    keep = ("helpers", "helper", "helper_die")
    return (
        *(p for p in _pool_params(sheet, spell=False) if p.name in keep),
        *_shift_params(),
        Param("opponent", "Opposing character", "character"),
        Param("npc_die", "Their WIL or hit die", "choice", "6", choices=DIE_CHOICES),
    )


def _wil_pools(sheet: Sheet, p: Mapping[str, Any]) -> tuple[Pool, Pool]:
    mine = _build_pool(sheet, {**p, "steel": "", "skills": ()}, ability="WIL")
    theirs = _opponent_pool({**p, "opponent_ability": "WIL", "opponent_extra": "", "opponent_shift": 0})
    return mine, theirs


@dataclass(frozen=True)
class LeverageProcedure:
    """Seed 000 (Leverage): win a WIL contest to improve an NPC's reaction, one row (spec §000.5.8)."""

    key: str = "leverage"
    label: str = "Apply leverage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        rows = tuple((row, row) for _, _, row in data.REACTIONS)
        return (Param("reaction", "Their reaction now", "choice", "Wary", choices=rows), *_wil_contest_params(sheet))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return _contest_odds(*_wil_pools(sheet, p), sheet)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        base = _roll_contest(self, sheet, p, *_wil_pools(sheet, p), rng)
        rows = [row for _, _, row in data.REACTIONS]
        now = rows.index(p["reaction"])
        after = rows[min(now + 1, len(rows) - 1)] if base.outcome == "win" else rows[now]
        summary = f"{base.summary} Reaction: {after}."
        details = {**base.details, "reaction": after}
        return RollResult(
            self.key,
            self.label,
            base.outcome,
            summary,
            base.dice,
            base.total,
            base.odds,
            base.inputs,
            None,
            details,
        )


@dataclass(frozen=True)
class MoraleProcedure:
    """Seed 000 (Morale): win a WIL contest against the enemy leader, then roll WIL on the morale table.

    Spec §000.12.10 [REC]: the character who caused the trigger rolls, against the highest enemy HD.
    """

    key: str = "morale"
    label: str = "Morale"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return _wil_contest_params(sheet)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        mine, theirs = _wil_pools(sheet, p)
        win, lose, tie = contest_chances(mine.sides, theirs.sides, setting(sheet, "contest_tiebreak"))
        table = _table_odds(_die_of(_st(sheet), "WIL"), data.MORALE)
        rows = (("Fight on", lose + tie), *((k, win * q) for k, q in table.outcomes))
        return Odds(rows, success_keys=tuple(k for k, _ in table.outcomes))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        base = _roll_contest(self, sheet, p, *_wil_pools(sheet, p), rng)
        if base.outcome != "win":
            summary = f"{base.summary} The enemy fights on."
            return RollResult(self.key, self.label, "Fight on", summary, base.dice, base.total, odds, base.inputs)
        die = _die_of(_st(sheet), "WIL")
        roll = roll_die(rng, die, "WIL: morale")
        row = _table_row(roll.face, data.MORALE)
        summary = f"{base.summary} Morale roll {roll.face}: {row}."
        return RollResult(
            self.key,
            self.label,
            row,
            summary,
            base.dice + (roll,),
            roll.face,
            odds,
            base.inputs,
            None,
            {"morale_roll": roll.face},
        )
