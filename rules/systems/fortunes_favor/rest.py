"""Fortune's Favor: rests, sleep deprivation and levelling up at R&R (seed 003 §Rests; rules-spec §003.5)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import fortunes_favor as data
from rules.dice import RandomSource
from rules.errors import Settled
from rules.systems.fortunes_favor import features
from rules.systems.fortunes_favor.checks import favor_params, needing, odds_of, pay, roll_test, setup
from rules.systems.fortunes_favor.state import (
    STAT_NAMES,
    STATS,
    _st,
    gain_favor,
    health_max,
    is_dead,
    stamina_max,
    validate_state,
)

RESTS = (
    ("breath", "Catch Your Breath (10 minutes)"),
    ("night", "Night's Rest (6 hours asleep)"),
    ("rr", "Rest and Relax (5 safe nights)"),
)
AWAKE_LIMIT = 24  # seed 003, Sleep Deprivation: past 24 hours, a Mettle test each hour
SLEEP_PASS, SLEEP_FAIL = 15, 10
SLEEP_MIXED_LOSS, SLEEP_FAIL_LOSS = 3, 7


def finish_rest(state: dict[str, Any], sheet: Sheet | None, kind: str) -> list[str]:
    """Each longer rest includes the shorter ones' benefits (seed 003, Rests)."""
    notes = []
    if kind in ("night", "rr"):
        state["stamina_max_lost"] = 0  # a Night's Rest ends sleep deprivation's effects
        state["hours_awake"] = 0
        state["statuses"].pop("Incapacitated", None)
    before = state["health"]
    if state["health"] == 0:
        state["health"] = 1  # Catch Your Breath at 0 Health: +1
    if kind in ("night", "rr"):
        # Night's Rest: Health + (level + 1), to the max, and Fortune's Favor, on top of the shorter rest's
        # benefits (its +1 from 0 Health included: "all benefits of the shorter rest as well").
        state["health"] = min(health_max(state), state["health"] + state["level"] + 1)
        gain_favor(state, sheet)
        notes.append("Fortune's Favor gained")
    if kind == "rr":
        state["health"] = health_max(state)
        state["statuses"] = {}
        state["quick_retrieval"] = 0
        state["level_ready"] = state["level"] < data.LEVEL_MAX
        notes.append("conditions cleared")
    state["stamina"] = stamina_max(state)
    notes.insert(0, f"Health {before} → {state['health']}, Stamina full ({state['stamina']})")
    state["resting"] = ""
    return notes


@dataclass(frozen=True)
class RestProcedure:
    """Start a rest, then finish it: spending Stamina in between breaks it with no benefit (seed 003)."""

    key: str = "rest"
    label: str = "Rest"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("kind", "Rest", "choice", "breath", choices=RESTS),
            Param(
                "finish",
                "Finish it",
                "bool",
                True,
                help="Untick to start a rest; spending Stamina before it is finished breaks it.",
            ),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        if is_dead(state):
            raise Settled("The dead do not rest.")
        if state["last_stand"]:
            raise RulesError("No rest during a Last Stand.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        self._check(sheet, p)
        key = "rested" if p["finish"] else "resting"
        return Odds(((key, Fraction(1)),), success_keys=(key,))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state = self._check(sheet, p)
        name = dict(RESTS)[p["kind"]].split(" (")[0]
        if p["finish"]:
            before = state["health"]
            notes = finish_rest(state, sheet, p["kind"])
            # class features (features.py): the beast heals what you healed, uses per rest come back
            notes += features.on_rest(state, p["kind"], state["health"] - before, True)
            summary = f"{name}: {'; '.join(notes)}."
            if state["level_ready"] and p["kind"] == "rr":
                summary += f" Ready to reach level {state['level'] + 1}."
        else:
            state["resting"] = p["kind"]
            summary = f"{name} begun: spending Stamina before it ends breaks it."
            more = features.on_rest(state, p["kind"], 0, False)
            if more:
                summary += f" ({'; '.join(more)})"
        return RollResult(
            self.key,
            self.label,
            "rested" if p["finish"] else "resting",
            summary,
            odds=self.odds(sheet, p),
            inputs=shown_inputs(p),
            state=state,
        )


def sleep_points(hours_awake: int) -> tuple[int, int]:
    """Seed 003, Sleep Deprivation: 15/10, one harder for each hour past 24 (spec §003.5 [REC])."""
    k = max(0, hours_awake - AWAKE_LIMIT)
    return SLEEP_PASS + k, SLEEP_FAIL + k


@dataclass(frozen=True)
class StayAwakeProcedure:
    """Seed 003, Sleep Deprivation: another hour awake; past 24, a Mettle test that can cut max Stamina."""

    key: str = "stay_awake"
    label: str = "Another hour awake"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return favor_params(pushing=False)

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Any]:
        state = _st(sheet)
        if is_dead(state):
            raise Settled("The dead do not sleep or wake.")
        state["hours_awake"] = min(state["hours_awake"] + 1, 1000)
        if state["hours_awake"] <= AWAKE_LIMIT:
            return state, None
        return state, setup(sheet, state, p, stat="mettle")

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state, s = self._setup(sheet, p)
        if s is None:
            return Odds((("awake", Fraction(1)),), success_keys=("awake",))
        return odds_of(s, *sleep_points(state["hours_awake"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s = self._setup(sheet, p)
        odds = self.odds(sheet, p)
        hours = state["hours_awake"]
        if s is None:
            summary = f"{hours} hour{'s' if hours != 1 else ''} awake."
            return RollResult(self.key, self.label, "awake", summary, odds=odds, inputs=shown_inputs(p), state=state)
        pay(state, s)
        success, failure = sleep_points(hours)
        dice, outcome, total, _ = roll_test(rng, s, success, failure)
        loss = {"pass": 0, "mixed": SLEEP_MIXED_LOSS, "fail": SLEEP_FAIL_LOSS}[outcome]
        state["stamina_max_lost"] += loss
        state["stamina"] = max(0, min(state["stamina"] - loss, stamina_max(state)))
        summary = f"{hours} hours awake, Mettle {total} ({needing(success, failure)}): "
        summary += f"Stamina and max Stamina −{loss}." if loss else "no effect."
        if outcome == "fail":
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        if loss and state["stamina"] == 0:
            state["statuses"]["Incapacitated"] = 0
            summary += " Out of Stamina: unconscious until rested."
        return RollResult(self.key, self.label, outcome, summary, dice, total, odds, shown_inputs(p), state)


@dataclass(frozen=True)
class LevelUpProcedure:
    """Levelling up happens at R&R (seed 003): Stat Up at 4 and 8 (max 5) with a novice, then veteran feature."""

    key: str = "level_up"
    label: str = "Level up"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("stat", "Stat Up (levels 4 and 8)", "choice", "", choices=(("", "—"), *STAT_NAMES.items())),
            Param(
                "novice",
                "New novice feature (level 4)",
                "choice",
                "",
                choices=(("", "—"), *((n, n) for n in data.NOVICE_FEATURES)),
            ),
            Param(
                "veteran",
                "Veteran feature (level 8)",
                "choice",
                "",
                choices=(("", "—"), *((n, n) for n in data.VETERAN_FEATURES)),
            ),
        )

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
        state = _st(sheet)
        if not state["level_ready"]:
            raise RulesError("Levelling up happens at the end of a Rest and Relax.")
        if state["level"] >= data.LEVEL_MAX:
            raise RulesError(f"Level {data.LEVEL_MAX} is the highest.")
        level = state["level"] + 1
        notes = [f"level {level}"]
        stat_up = level in (4, 8)
        if stat_up:
            if not p["stat"]:
                raise RulesError(f"Level {level} brings a Stat Up: choose a stat.")
            if state["stats"][p["stat"]] >= data.STAT_MAX:
                raise RulesError(f"{STAT_NAMES[p['stat']]} is already {data.STAT_MAX}, the most a stat can be.")
            state["stats"][p["stat"]] += 1
            notes.append(f"{STAT_NAMES[p['stat']]} +1")
        elif p["stat"]:
            raise RulesError("Only levels 4 and 8 bring a Stat Up.")
        if level == 4:
            if not p["novice"]:
                raise RulesError("Level 4 brings a new novice feature: choose one.")
            if p["novice"] in state["novice_features"]:
                raise RulesError(f"You already have {p['novice']}.")
            state["novice_features"].append(p["novice"])
            notes.append(p["novice"])
        elif p["novice"]:
            raise RulesError("Only level 4 brings a novice feature.")
        if level == 8:
            if not p["veteran"]:
                raise RulesError("Level 8 brings a veteran feature: choose one.")
            state["veteran_features"].append(p["veteran"])
            notes.append(p["veteran"])
        elif p["veteran"]:
            raise RulesError("Only level 8 brings a veteran feature.")
        old_health, old_stamina = health_max(state), stamina_max(state)
        state["level"] = level
        state["level_ready"] = False
        state["health"] += health_max(state) - old_health
        state["stamina"] = max(0, state["stamina"] + stamina_max(state) - old_stamina)
        return validate_state(state), notes

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        self._apply(sheet, p)
        return Odds((("level_up", Fraction(1)),), success_keys=("level_up",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, notes = self._apply(sheet, p)
        features = [n for lv, n, _, _ in data.CLASSES[state["class"]]["features"] if lv == state["level"]]
        summary = f"Level up: {', '.join(notes)}."
        if features:
            summary += f" New class features: {', '.join(features)}."
        return RollResult(
            self.key, self.label, "level_up", summary, odds=self.odds(sheet, p), inputs=shown_inputs(p), state=state
        )


_ = STATS
