"""A free roll of any dice, for the GM's luck die or anything the systems leave to the table."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.base import Odds, Param, RollResult, Sheet
from rules.dice import RandomSource, prob, roll_dice, sum_dist

DIE_SIZES = (4, 6, 8, 10, 12, 20, 100)


@dataclass(frozen=True)
class FreeRoll:
    """Roll N dice of one size, add a modifier; with a target, the odds of reaching it are exact."""

    key: str = "free"
    label: str = "Free roll"
    gm_only: bool = False

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return (
            Param("count", "Number of dice", "int", 1, 1, 20),
            Param("sides", "Die", "choice", "6", choices=tuple((str(s), f"d{s}") for s in DIE_SIZES)),
            Param("modifier", "Modifier", "int", 0, -50, 50),
            Param("target", "Target (reach or beat it)", "int", 0, 0, 2100, help="0 for no target"),
            Param("label", "What is it for?", "text", ""),
        )

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds | None:
        if not params.get("target"):
            return None
        totals = sum_dist((int(params["sides"]),) * params["count"])
        p = prob(totals, lambda total: total + params["modifier"] >= params["target"])
        return Odds((("pass", p), ("fail", 1 - p)))

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        sides = int(params["sides"])
        dice = roll_dice(rng, params["count"], sides)
        total = sum(d.face for d in dice) + params["modifier"]
        expression = f"{params['count']}d{sides}" + (f"{params['modifier']:+d}" if params["modifier"] else "")
        target = params.get("target") or 0
        outcome = ("pass" if total >= target else "fail") if target else str(total)
        summary = f"{expression} = {total}" + (f" against {target}" if target else "")
        return RollResult(
            procedure=self.key,
            label=params.get("label") or expression,
            outcome=outcome,
            summary=summary,
            dice=dice,
            total=total,
            odds=self.odds(sheet, params),
            inputs=dict(params),
        )


FREE_ROLL = FreeRoll()
