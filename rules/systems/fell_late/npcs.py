"""Fell (late): reactions, leverage, morale and the GM's luck die (seed 001, Reactions, Leverage, Morale, Luck)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import fell_late as data
from rules.dice import DieRoll, RandomSource, prob, roll_die
from rules.systems.fell_late.checks import (
    DIE_CHOICES,
    contest_chances,
    contest_result,
    kept_dist,
    opponent_params,
    opponent_roll,
    roll_contest,
    roll_dice,
    roll_from_params,
    shift_params,
    skill_params,
)
from rules.systems.fell_late.settings import CONTEST_TIE, setting


def _key(text: str) -> str:
    return text.lower().replace(" ", "_")


def band(table: tuple[tuple[int, int, str], ...], value: int) -> str:
    """The row a roll lands on; a shifted die past 12 reads the top row, an unrollable die the bottom one."""
    for low, high, result in table:
        if low <= value <= high:
            return result
    return table[-1][2] if value > table[-1][1] else table[0][2]


def table_odds(
    table: tuple[tuple[int, int, str], ...], dist: dict[int, Fraction], scale: Fraction = Fraction(1)
) -> list[tuple[str, Fraction]]:
    return [(_key(result), scale * prob(dist, lambda v, r=result: band(table, v) == r)) for _, _, result in table]


@dataclass(frozen=True)
class ReactionProcedure:
    """Seed 001 (Reactions): roll WIL when an NPC's disposition is unclear; 1-3 hostile ... 10-12 helpful."""

    key: str = "reaction"
    label: str = "Reaction"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return shift_params()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        roll, _ = roll_from_params(sheet, p, "WIL")
        return Odds(tuple(table_odds(data.REACTIONS, kept_dist(roll))), success_keys=("friendly", "helpful"))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        roll, _ = roll_from_params(sheet, p, "WIL")
        dice, kept = roll_dice(rng, roll, "WIL")
        result = band(data.REACTIONS, kept)
        summary = f"WIL {kept} on {roll.words}: {result}."
        return RollResult(self.key, self.label, _key(result), summary, dice, kept, odds, shown_inputs(p))


_REACTION_ORDER = tuple(r for _, _, r in data.REACTIONS)


@dataclass(frozen=True)
class LeverageProcedure:
    """Seed 001 (Leverage): applying leverage, win a WIL contest to improve an NPC's reaction one step."""

    key: str = "leverage"
    label: str = "Apply leverage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        theirs = tuple(q for q in opponent_params("WIL") if q.name != "opponent_attribute")
        return (
            Param("reaction", "Their reaction now", "choice", "Wary", choices=tuple((r, r) for r in _REACTION_ORDER)),
            *skill_params(sheet),
            *shift_params(),
            *theirs,
        )

    def _rolls(self, sheet: Sheet, p: Mapping[str, Any]):
        mine, _ = roll_from_params(sheet, p, "WIL")
        theirs, who = opponent_roll(p, "WIL")
        return mine, theirs, who

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        mine, theirs, _ = self._rolls(sheet, p)
        win, lose, tie = contest_chances(mine, theirs, setting(sheet, CONTEST_TIE))
        return Odds((("improved", win), ("unchanged", lose + tie)), success_keys=("improved",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        mine, theirs, who = self._rolls(sheet, p)
        result = contest_result(self, sheet, p, mine, theirs, who, rng)
        now = _REACTION_ORDER.index(p["reaction"])
        if result.outcome == "win":
            better = _REACTION_ORDER[min(now + 1, len(_REACTION_ORDER) - 1)]
            words = f" Their reaction improves from {p['reaction']} to {better}."
            outcome = "improved"
        else:
            words = f" They stay {p['reaction']}."
            outcome = "unchanged"
        return RollResult(
            self.key,
            self.label,
            outcome,
            result.summary + words,
            result.dice,
            result.total,
            self.odds(sheet, p),
            result.inputs,
        )


# Seed 001 (Morale): this revision's triggers.
MORALE_TRIGGERS = (
    ("first", "You defeated their first"),
    ("leader", "You defeated their leader"),
    ("half", "Their force is down by half"),
    ("lone", "A lone enemy's HP reached zero"),
)


@dataclass(frozen=True)
class MoraleProcedure:
    """Seed 001 (Morale): on a trigger, a WIL contest against the enemy; win, and your WIL says what the
    survivors do (1-3 hesitate ... 10-12 surrender unconditionally). Spec §001.11.9 [REC]: at HP zero."""

    key: str = "morale"
    label: str = "Enemy morale"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        theirs = tuple(q for q in opponent_params("WIL") if q.name != "opponent_attribute")
        return (
            Param("trigger", "What happened", "choice", "first", choices=MORALE_TRIGGERS),
            *shift_params(),
            *theirs,
        )

    def _rolls(self, sheet: Sheet, p: Mapping[str, Any]):
        mine, _ = roll_from_params(sheet, p, "WIL")
        theirs, who = opponent_roll(p, "WIL")
        return mine, theirs, who

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        mine, theirs, _ = self._rolls(sheet, p)
        win, lose, tie = contest_chances(mine, theirs, setting(sheet, CONTEST_TIE))
        return Odds(
            (("hold", lose + tie), *table_odds(data.MORALE, kept_dist(mine), win)),
            success_keys=tuple(_key(r) for _, _, r in data.MORALE),
        )

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        mine, theirs, who = self._rolls(sheet, p)
        dice, outcome, x, y = roll_contest(sheet, rng, mine, theirs, ("you", who))
        trigger = dict(MORALE_TRIGGERS)[p["trigger"]]
        summary = f"{trigger}: WIL contest {x} against {y}, "
        if outcome != "win":
            return RollResult(self.key, self.label, "hold", summary + "they hold firm.", dice, x, odds, shown_inputs(p))
        more, kept = roll_dice(rng, mine, "WIL: what they do")
        result = band(data.MORALE, kept)
        summary += f"you win; WIL {kept}: they {result.lower()}."
        return RollResult(self.key, self.label, _key(result), summary, dice + more, kept, odds, shown_inputs(p))


_LUCK_WHEN = (
    ("rest", "Resting somewhere dangerous"),
    ("noise", "A loud noise in a dungeon"),
    ("round", "The start of an exploration or travel round"),
    ("trap", "Does a trap go off?"),
    ("other", "Something else uncertain"),
)


@dataclass(frozen=True)
class LuckProcedure:
    """Seed 001 (Luck): the GM rolls a luck die, usually a d6; higher is better for the party, lower worse."""

    key: str = "luck"
    label: str = "Luck die"
    gm_only: bool = True

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("when", "Why", "choice", "round", choices=_LUCK_WHEN),
            Param("die", "Luck die", "choice", "6", choices=DIE_CHOICES, help="Usually a d6."),
        )

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        sides = int(p["die"])
        return Odds(tuple((str(face), Fraction(1, sides)) for face in range(1, sides + 1)), success_keys=())

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        sides = int(p["die"])
        die: DieRoll = roll_die(rng, sides, "luck")
        if sides < 1:
            raise RulesError("A luck die needs faces.")
        lean = "better" if die.face > (sides + 1) / 2 else "worse" if die.face < (sides + 1) / 2 else "middling"
        summary = f"{dict(_LUCK_WHEN)[p['when']]}: luck {die.face} on a d{sides}, {lean} for the party."
        return RollResult(
            self.key, self.label, str(die.face), summary, (die,), die.face, self.odds(sheet, p), shown_inputs(p)
        )
