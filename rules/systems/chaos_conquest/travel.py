"""Chaos & Conquest travel and downtime from the GM's table (seed 002, Time and Travel; spec §002.7): getting
lost, exploring a hex, foraging, encounter checks and the toll of a day on the road. Each is a table procedure:
rolled for the party, by no character, logged as the GM's.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, Sheet, check_params
from rules.dice import RandomSource, roll_dice, roll_die, sum_dist

_NOBODY = Sheet(state={})  # table procedures read no sheet; check_params hands it back to params()
PARTY_MAX = 60
EXPLORE_TRIES = 3


def _in_6(chance: int, hit: str, miss: str) -> Odds:
    return Odds(((hit, Fraction(chance, 6)), (miss, Fraction(6 - chance, 6))), success_keys=(miss,))


@dataclass(frozen=True)
class TravelProcedure:
    """Spec §002.7, Travel: a hex (6 miles) a watch, two in difficult terrain; in difficult or hard-to-see
    terrain a 2-in-6 chance of getting lost. A map removes the roll, a relevant background lowers it to
    1-in-6 ([REC])."""

    key: str = "travel"
    label: str = "Travel a hex"
    gm_only: bool = True

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return (
            Param("difficult", "Difficult terrain", "bool", False, help="Two watches for the hex."),
            Param("hard_to_see", "Hard to see (fog, forest, night)", "bool", False),
            Param("map", "The party has a map", "bool", False, help="No roll to get lost."),
            Param("background", "Someone has a background that knows this land", "bool", False, help="1-in-6."),
        )

    def _chance(self, p: Mapping[str, Any]) -> int:
        if p["map"] or not (p["difficult"] or p["hard_to_see"]):
            return 0
        return 1 if p["background"] else 2

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        return _in_6(self._chance(check_params(self, _NOBODY, params)), "lost", "on_course")

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = check_params(self, _NOBODY, params)
        chance, watches = self._chance(p), 2 if p["difficult"] else 1
        time = f"The hex takes {watches} watch{'es' if watches > 1 else ''}."
        if not chance:
            return RollResult(
                self.key, self.label, "on_course", f"No risk of getting lost. {time}", (), None, self.odds(None, p), p
            )
        die = roll_die(rng, 6, "lost")
        lost = die.face <= chance
        words = f"d6 = {die.face} ({chance}-in-6): " + ("the party is lost." if lost else "on course.")
        return RollResult(
            self.key,
            self.label,
            "lost" if lost else "on_course",
            f"{words} {time}",
            (die,),
            die.face,
            self.odds(None, p),
            p,
        )


@dataclass(frozen=True)
class ExploreProcedure:
    """Spec §002.7, Explore: a watch of searching finds a hidden feature on 2-in-6, at most three times per
    hex, and the results are final."""

    key: str = "explore"
    label: str = "Explore the hex"
    gm_only: bool = True

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return (Param("tries", "Times this hex was explored already", "int", 0, 0, EXPLORE_TRIES - 1),)

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        check_params(self, _NOBODY, params)
        return Odds((("found", Fraction(2, 6)), ("nothing", Fraction(4, 6))), success_keys=("found",))

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = check_params(self, _NOBODY, params)
        die = roll_die(rng, 6, "explore")
        found = die.face <= 2
        left = EXPLORE_TRIES - p["tries"] - 1
        words = f"d6 = {die.face} (2-in-6): " + ("a hidden feature is found." if found else "nothing hidden turns up.")
        words += (
            f" {left} more tr{'y' if left == 1 else 'ies'} in this hex." if left else " This hex is explored for good."
        )
        return RollResult(
            self.key, self.label, "found" if found else "nothing", words, (die,), die.face, self.odds(None, p), p
        )


@dataclass(frozen=True)
class ForageProcedure:
    """Spec §002.7, Forage: d4 rations (d6 with a Pathfinder in the party) per six in the party, counting
    player characters and retainers (ceil(size / 6) dice)."""

    key: str = "forage"
    label: str = "Forage"
    gm_only: bool = True

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return (
            Param("party", "Party size (characters and retainers)", "int", 4, 1, PARTY_MAX),
            Param("pathfinder", "A Pathfinder is in the party", "bool", False),
        )

    def _dice(self, p: Mapping[str, Any]) -> tuple[int, int]:
        return math.ceil(p["party"] / 6), 6 if p["pathfinder"] else 4

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        count, sides = self._dice(check_params(self, _NOBODY, params))
        dist = sum_dist((sides,) * count)
        return Odds(tuple((str(total), p) for total, p in sorted(dist.items())), success_keys=())

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = check_params(self, _NOBODY, params)
        count, sides = self._dice(p)
        dice = roll_dice(rng, count, sides, "forage")
        total = sum(d.face for d in dice)
        words = f"{count}d{sides} = {total}: the party forages {total} ration{'s' if total != 1 else ''}."
        return RollResult(self.key, self.label, str(total), words, dice, total, self.odds(None, p), p)


@dataclass(frozen=True)
class EncounterCheckProcedure:
    """Seed 002, Time: the GM's d6 every two turns or two watches; on a 1 an encounter occurs."""

    key: str = "encounter_check"
    label: str = "Encounter check"
    gm_only: bool = True

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        check_params(self, _NOBODY, params)
        return _in_6(1, "encounter", "quiet")

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        check_params(self, _NOBODY, params)
        die = roll_die(rng, 6, "encounter check")
        met = die.face == 1
        words = f"Encounter check d6 = {die.face}: " + ("something comes." if met else "all quiet.")
        return RollResult(
            self.key, self.label, "encounter" if met else "quiet", words, (die,), die.face, self.odds(None, {}), {}
        )


@dataclass(frozen=True)
class DayOnTheRoadProcedure:
    """Spec §002.7, Camp and Fatigue: up to three watches of travel or exploring a day are free, each one more
    costs every PC a stress; skipping camp (two watches in a row in every six) costs each PC a stress a night."""

    key: str = "day_on_the_road"
    label: str = "End of the day on the road"
    gm_only: bool = True

    def params(self, sheet: Sheet | None = None) -> tuple[Param, ...]:
        return (
            Param("watches", "Watches spent travelling or exploring today", "int", 3, 0, 6),
            Param("camped", "The party camped two watches in a row", "bool", True),
        )

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        check_params(self, _NOBODY, params)
        return Odds((("counted", Fraction(1)),), success_keys=("counted",))

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = check_params(self, _NOBODY, params)
        stress = max(0, p["watches"] - 3) + (0 if p["camped"] else 1)
        reasons = []
        if p["watches"] > 3:
            reasons.append(f"{p['watches'] - 3} watch{'es' if p['watches'] > 4 else ''} past three")
        if not p["camped"]:
            reasons.append("no camp")
        words = (
            f"Each player character takes {stress} stress ({', '.join(reasons)}): add it on each sheet."
            if stress
            else "No stress from today's road."
        )
        return RollResult(self.key, self.label, "counted", words, (), stress, self.odds(None, p), p)


TRAVEL_PROCEDURES = (
    TravelProcedure(),
    ExploreProcedure(),
    ForageProcedure(),
    EncounterCheckProcedure(),
    DayOnTheRoadProcedure(),
)
