"""Fortune's Favor: travel and physical feats, Quick Retrieval, armour changes (seed 003; rules-spec §003.8-9)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import fortunes_favor as data
from rules.dice import RandomSource, roll_pool
from rules.errors import Settled
from rules.systems.fortunes_favor.checks import favor_params, needing, odds_of, pay, roll_test, setup
from rules.systems.fortunes_favor.combat import apply_damage
from rules.systems.fortunes_favor.inventory import free_slots
from rules.systems.fortunes_favor.state import _st, gain_favor, is_dead, spend_stamina, stat, validate_state

MARCH_BASE = 15  # seed 003, Marching: 15 + Mettle miles a day on a road, half off-road
TERRAIN = (13, 8)  # seed 003, Treacherous Terrain: Mettle 13/8 each hour
HEAVY_SWIM_CLIMB = (12, 7)  # seed 003: climbing or swimming in heavy armour
FALL_BASE = 12  # seed 003, Falling: Agility 12/7, +2 per 5 ft past 10
LUCK = {"likely": (10, 5), "unlikely": (15, 10), "very": (18, 13)}  # seed 003, Quick Retrieval
WILD_GUIDE_LEVEL = 2  # Ranger, Wild Guide
SIZES = ("miniscule", "tiny", "small", "medium", "large", "gigantic", "titanic", "colossal")


def march_miles(state: Mapping[str, Any]) -> tuple[int, Fraction]:
    """Miles a day: 15 + Mettle by road, half that off road (seed 003, Travel); a Ranger's Wild Guide (level 2)
    adds their Heart off road."""
    road = MARCH_BASE + stat(state, "mettle")
    off = Fraction(road, 2)
    if state["class"] == "RANGER" and state["level"] >= WILD_GUIDE_LEVEL:
        off += max(0, stat(state, "heart"))
    return road, off


def jumps(state: Mapping[str, Any]) -> dict[str, int]:
    """Seed 003, Jumping: running 4 + 2×Mettle (min 2), standing 3 + Mettle (min 1), high 1 + Mettle (min 1)."""
    m = stat(state, "mettle")
    extra = (5 if "Long Jumper" in state["novice_features"] else 0) + (5 if state["culture"] == "HIGHLAND-CLANS" else 0)
    return {
        "running": max(2, 4 + 2 * m) + extra,
        "standing": max(1, 3 + m) + extra,
        "high": max(1, 1 + m),
    }


def lift(state: Mapping[str, Any]) -> tuple[Fraction, Fraction]:
    """Seed 003, Lifting: 50 + 10×Mettle lb, drag 4×; halved per size below Medium, doubled per size above."""
    pounds = Fraction(50 + 10 * stat(state, "mettle"))
    steps = SIZES.index(state["size"]) - SIZES.index("medium")
    pounds *= Fraction(2) ** steps
    if "Trekker" in state["novice_features"]:
        pounds *= 2
    pounds = max(Fraction(0), pounds)
    return pounds, pounds * 4


def fall_points(height: int) -> tuple[int, int, int]:
    """Seed 003, Falling (spec §003.8 [REC]): difficulty 12 + 2 per 5 ft past 10, 1d10 per 10 ft."""
    success = FALL_BASE + 2 * ((height - 10) // 5)
    return success, success - 5, height // 10


FEATS = (
    ("terrain", "Treacherous terrain (an hour, Mettle 13/8)"),
    ("jump", "Jump further than you can (Mettle)"),
    ("fall", "Fall (Agility)"),
    ("heavy_move", "Climb or swim in heavy armour (Mettle 12/7)"),
)


@dataclass(frozen=True)
class FeatProcedure:
    """Seed 003, Travel and Movement: the feats that need a roll, each with its own difficulty and cost."""

    key: str = "feat"
    label: str = "Physical feat"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("feat", "Feat", "choice", "terrain", choices=FEATS),
            Param("distance", "Jump distance or fall height (ft)", "int", 10, 0, 500),
            Param(
                "jump",
                "Jump",
                "choice",
                "running",
                choices=(("running", "Running"), ("standing", "Standing"), ("high", "High")),
            ),
            *favor_params(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any, int, int, str]:
        state = _st(sheet)
        feat = p["feat"]
        if feat == "terrain":
            return state, setup(sheet, state, p, stat="mettle"), *TERRAIN, feat
        if feat == "heavy_move":
            if state["armour"] != "heavy":
                raise RulesError("Only heavy armour makes climbing and swimming a test.")
            return state, setup(sheet, state, p, stat="mettle"), *HEAVY_SWIM_CLIMB, feat
        if feat == "jump":
            reach = jumps(state)[p["jump"]]
            extra = p["distance"] - reach
            if extra <= 0:
                raise RulesError(f"You jump {reach} ft without a test.")
            success = 10 + extra
            return state, setup(sheet, state, p, stat="mettle"), success, success - 5, feat
        if p["distance"] <= 10:
            raise RulesError("A fall of 10 ft or less does no harm.")
        success, failure, _ = fall_points(p["distance"])
        return state, setup(sheet, state, p, stat="agility"), success, failure, feat

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s, success, failure, _ = self._setup(sheet, p)
        return odds_of(s, success, failure)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s, success, failure, feat = self._setup(sheet, p)
        odds = odds_of(s, success, failure)
        notes = pay(state, s)
        dice, outcome, total, _ = roll_test(rng, s, success, failure)
        summary = f"{dict(FEATS)[feat].split(' (')[0]}: {total} ({needing(success, failure)}): {outcome}."
        if feat == "terrain":
            lost = {"pass": 0, "mixed": 1, "fail": 2}[outcome]
            state["stamina"] = max(0, state["stamina"] - lost)
            summary += f" −{lost} Stamina." if lost else ""
        elif feat == "heavy_move":
            lost = {"pass": 0, "mixed": 2, "fail": 4}[outcome]
            state["stamina"] = max(0, state["stamina"] - lost)
            summary += f" −{lost} Stamina." if lost else ""
        elif feat == "fall" and outcome != "pass":
            count = fall_points(p["distance"])[2]
            rolled, damage = roll_pool(rng, (10,) * count, "sum", ["fall"] * count)
            dice = (*dice, *rolled)
            if outcome == "mixed":
                damage //= 2
            notes += apply_damage(state, sheet, damage)
            summary += f" {damage} damage: Health {state['health']}."
        if state["health"] == 0 and state["stamina"] == 0:
            state["dead"] = True
        if outcome == "fail":
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(self.key, self.label, outcome, summary, dice, total, odds, shown_inputs(p), state)


@dataclass(frozen=True)
class PushPaceProcedure:
    """Seed 003, Travel: push the pace for extra miles at 1 Stamina each."""

    key: str = "push_pace"
    label: str = "Push the pace"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (Param("miles", "Extra miles", "int", 1, 1, 50),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        spend_stamina(state, p["miles"], f"{p['miles']} extra mile{'s' if p['miles'] != 1 else ''}")
        return Odds((("marched", Fraction(1)),), success_keys=("marched",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        odds = self.odds(sheet, p)
        notes = spend_stamina(state, p["miles"], f"{p['miles']} extra mile{'s' if p['miles'] != 1 else ''}")
        road, off = march_miles(state)
        summary = f"Pushing on: {road + p['miles']} miles by road today. ({'; '.join(notes)})"
        return RollResult(self.key, self.label, "marched", summary, odds=odds, inputs=shown_inputs(p), state=state)


@dataclass(frozen=True)
class QuickRetrievalProcedure:
    """Seed 003, Quick Retrieval: 2 gear slots and a luck test; the slots stay taken until the next R&R."""

    key: str = "quick_retrieval"
    label: str = "Quick Retrieval"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param(
                "likelihood",
                "How likely",
                "choice",
                "likely",
                choices=(
                    ("likely", "Likely (10/5)"),
                    ("unlikely", "Unlikely (15/10)"),
                    ("very", "Very unlikely (18/13)"),
                ),
            ),
            *favor_params(pushing=False, helping=False),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
        state = _st(sheet)
        if is_dead(state):
            raise Settled("The dead search no packs.")
        if free_slots(sheet, state) < 2:
            raise RulesError("Quick Retrieval needs 2 free gear slots.")
        return state, setup(sheet, state, p, stat=None)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s = self._setup(sheet, p)
        return odds_of(s, *LUCK[p["likelihood"]])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s = self._setup(sheet, p)
        odds = odds_of(s, *LUCK[p["likelihood"]])
        pay(state, s)
        dice, outcome, total, _ = roll_test(rng, s, *LUCK[p["likelihood"]])
        state["quick_retrieval"] += 2
        words = {"pass": "you have it", "mixed": "something close to it", "fail": "nothing useful"}[outcome]
        summary = f"Quick Retrieval {total}: {words}. 2 gear slots held until the next R&R."
        if outcome == "fail":
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        return RollResult(self.key, self.label, outcome, summary, dice, total, odds, shown_inputs(p), state)


ARMOUR_CHOICES = tuple((k, v[0]) for k, v in data.ARMOUR.items())
SHIELD_CHOICES = tuple((k, v[0]) for k, v in data.SHIELDS.items())


@dataclass(frozen=True)
class EquipProcedure:
    """Seed 003, Armor and Shields: wear only what your class is trained in."""

    key: str = "equip"
    label: str = "Armour and hands"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        state = _st(sheet) if sheet is not None else None
        return (
            Param("armour", "Armour", "choice", state["armour"] if state else "none", choices=ARMOUR_CHOICES),
            Param("shield", "Shield", "choice", state["shield"] if state else "none", choices=SHIELD_CHOICES),
            Param(
                "hand_full",
                "Something else in one hand",
                "bool",
                bool(state["hand_full"]) if state else False,
                help="Like a shield, it steps your damage down.",
            ),
        )

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        return validate_state({**state, "armour": p["armour"], "shield": p["shield"], "hand_full": p["hand_full"]})

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        self._apply(sheet, p)
        return Odds((("equipped", Fraction(1)),), success_keys=("equipped",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = self._apply(sheet, p)
        summary = f"Now: {data.ARMOUR[p['armour']][0].lower()}, {data.SHIELDS[p['shield']][0].lower()}."
        return RollResult(
            self.key, self.label, "equipped", summary, odds=self.odds(sheet, p), inputs=shown_inputs(p), state=state
        )
