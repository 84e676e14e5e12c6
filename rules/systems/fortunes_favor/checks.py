"""Fortune's Favor: tests, Fortune's Favor and Misfortune, help, pushing, luck tests, contests, group tests.

Seed 003 §Tests (../shared/seeds/003_eeb4db86843669ac.txt) with the spec's readings (rules-spec §003.4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import (
    DieRoll,
    FavorMode,
    RandomSource,
    keep,
    pool_dist,
    roll_die,
    roll_pool,
    three_outcome,
    three_outcome_odds,
    three_outcome_of,
)
from rules.errors import Settled
from rules.systems.fortunes_favor import features
from rules.systems.fortunes_favor.inventory import gear_statuses, statuses_now
from rules.systems.fortunes_favor.state import STAT_NAMES, STATS, _st, gain_favor, is_dead, spend_stamina

TARGET_MAX = 40
BONUS_MAX = 30
HELPERS_MAX = 10
HELP_BONUS = 3  # seed 003, Help: Fortune's Favor, or +3 if you already have it; each once
AID_BONUS = 2  # novice feature Aid
PUSH_COST = 3  # seed 003, Pushing Your Limits: 3 Stamina for +1d6 (Fatigued doubles it)
PUSH_DIE = 6
RATTLED = -2
HIDDEN = 5
EXPOSED = 3
CONTEST_MARGIN = 5  # seed 003, Contests: more than 5 higher wins (spec §003.11.6)
FAIL_GAP = 5  # seed 003: the Failure point is usually 5 below the Success point

STAT_CHOICES = tuple((key, STAT_NAMES[key]) for key in STATS)
OUTCOME_WORDS = {"pass": "Pass", "mixed": "Mixed", "fail": "Fail"}


@dataclass
class Setup:
    """What a test rolls: the bonus, extra dice, Fortune's Favor or Misfortune, and what it costs."""

    bonus: int
    mode: FavorMode
    extra: tuple[int, ...] = ()
    spend_favor: bool = False
    push: bool = False
    notes: list[str] = field(default_factory=list)
    third_d20: bool = False  # Luck On Your Side: with Fortune's Favor, three d20 and the best kept


def favor_params(*, pushing: bool = True, helping: bool = True) -> tuple[Param, ...]:
    out = [
        Param("bonus", "Other bonuses", "int", 0, -BONUS_MAX, BONUS_MAX, help="Features, gear, the GM's call."),
        Param(
            "spend_favor",
            "Spend Fortune's Favor",
            "bool",
            False,
            help="Decide before rolling: a second d20, keep the higher (or cancel Misfortune).",
            resets=True,
        ),
        Param("favor", "Fortune's Favor from the situation", "bool", False),
        Param("misfortune", "Misfortune", "bool", False, help="Roll two d20 and keep the lower."),
    ]
    if helping:
        out += [
            Param("helpers", "Allies helping", "int", 0, 0, HELPERS_MAX, help="Fortune's Favor, then +3; once each."),
            Param("aid", "A helper has Aid", "bool", False, help="+2 more."),
        ]
    if pushing:
        out += [
            Param("push", "Push your limits", "bool", False, help="3 Stamina (6 if Fatigued) for +1d6.", resets=True),
            Param("in_combat", "In combat", "bool", False, help="No pushing in combat."),
        ]
    return tuple(out)


def test_params(default_success: int = 15) -> tuple[Param, ...]:
    return (
        Param("success", "Success point", "int", default_success, 1, TARGET_MAX, help="The GM's number to pass."),
        Param("failure", "Failure point", "int", None, 0, TARGET_MAX, help="Empty: 5 below the Success point."),
    )


def points(params: Mapping[str, Any]) -> tuple[int, int]:
    success = int(params["success"])
    failure = params.get("failure")
    failure = success - FAIL_GAP if failure is None else int(failure)
    if failure > success:
        raise RulesError(f"The Failure point ({failure}) cannot be above the Success point ({success}).")
    return success, failure


def setup(
    sheet: Sheet,
    state: Mapping[str, Any],
    params: Mapping[str, Any],
    *,
    stat: str | None,
    attack: bool = False,
    extra_favor: int = 0,
    extra_misfortune: int = 0,
) -> Setup:
    """The roll a test makes (seed 003 §Tests, spec §003.4): favor and misfortune cancel one for one [REC]."""
    if is_dead(state):
        raise Settled("The dead make no tests.")
    now = statuses_now(sheet, state)
    if "Incapacitated" in now:
        raise RulesError("An Incapacitated character cannot act.")
    notes: list[str] = []
    bonus = int(params.get("bonus") or 0)
    if stat is not None:
        bonus += int(state["stats"][stat])
    favor = extra_favor
    misfortune = extra_misfortune
    if params.get("favor"):
        favor += 1
    if params.get("misfortune"):
        misfortune += 1
    if "Pinned" in now:
        misfortune += 1
        notes.append("Pinned: Misfortune")
    if stat == "agility" and gear_statuses(sheet, state):
        misfortune += 1
        notes.append("over your gear slots: Misfortune on Agility tests")
    if "Rattled" in now:
        bonus += RATTLED
        notes.append("Rattled: −2")
    if attack and "Hidden" in now:
        bonus += HIDDEN
        notes.append("Hidden: +5")
    if attack and state["exposed"]:
        bonus += EXPOSED
        notes.append("Exposed by an ally: +3")
    if attack and "Blind" in now:
        misfortune += 1
        notes.append("Blind: Misfortune")
    helpers = int(params.get("helpers") or 0)
    if helpers:
        if stat is None:
            raise RulesError("Nobody can help with a luck test.")
        # Seed 003, Help: Fortune's Favor if not already rolling with it, otherwise +3; each bonus once,
        # so two or more helpers give both (spec §003.11.8).
        if favor or params.get("spend_favor"):
            bonus += HELP_BONUS
            notes.append("help: +3")
        else:
            favor += 1
            notes.append("help: Fortune's Favor")
            if helpers >= 2:
                bonus += HELP_BONUS
                notes.append("more help: +3")
    elif params.get("aid"):
        raise RulesError("Aid adds to help: say how many allies are helping.")
    if helpers and params.get("aid"):
        bonus += AID_BONUS
        notes.append("Aid: +2")
    spend = bool(params.get("spend_favor"))
    if spend:
        if state["fortunes_favor"] < 1:
            raise RulesError("You have no Fortune's Favor to spend.")
        favor += 1
        notes.append("Fortune's Favor spent")
    net = favor - misfortune
    mode: FavorMode = "favor" if net > 0 else "misfortune" if net < 0 else "plain"
    extra: tuple[int, ...] = ()
    push = bool(params.get("push"))
    if push:
        if params.get("in_combat"):
            raise RulesError("Pushing your limits is for tests outside combat.")
        extra = (PUSH_DIE,)
    return Setup(bonus, mode, extra, spend, push, notes)


def pay(state: dict[str, Any], s: Setup) -> list[str]:
    """Spend what the test costs before the dice: Fortune's Favor and a push's Stamina."""
    notes: list[str] = []
    if s.spend_favor:
        state["fortunes_favor"] -= 1
    if s.push:
        notes += spend_stamina(state, PUSH_COST, "pushing your limits")
    return notes


def check_affordable(state: Mapping[str, Any], s: Setup) -> None:
    """Refuse before showing odds what the character cannot pay."""
    if s.push:
        spend_stamina(dict(state, statuses=dict(state["statuses"])), PUSH_COST, "pushing your limits")


def odds_of(s: Setup, success: int, failure: int) -> Odds:
    if s.third_d20 and s.mode == "favor":
        chances = dict.fromkeys(("pass", "mixed", "fail"), Fraction(0))
        extra = pool_dist(s.extra, "sum")
        for face, pf in pool_dist((20, 20, 20), "highest").items():
            for e, pe in extra.items():
                chances[three_outcome_of(face, face + e + s.bonus, success, failure)] += pf * pe
    else:
        chances = three_outcome_odds(s.bonus, success, failure, s.mode, s.extra)
    return Odds(tuple((k, chances[k]) for k in ("pass", "mixed", "fail")))


def roll_test(rng: RandomSource, s: Setup, success: int, failure: int) -> tuple[tuple[DieRoll, ...], str, int, bool]:
    """Roll it: the dice, pass/mixed/fail, the total, and whether the kept d20 showed a natural 1."""
    if s.third_d20 and s.mode == "favor":
        d20s = keep(
            (roll_die(rng, 20, "d20"), roll_die(rng, 20, "Fortune's Favor"), roll_die(rng, 20, "Luck On Your Side")),
            "highest",
        )
        face = next(d.face for d in d20s if d.kept)
        extra = roll_pool(rng, s.extra, "sum", ["extra"] * len(s.extra))[0]
        total = face + s.bonus + sum(d.face for d in extra)
        return d20s + extra, three_outcome_of(face, total, success, failure), total, face == 1
    dice, outcome, total = three_outcome(rng, s.bonus, success, failure, s.mode, s.extra)
    kept = next(d.face for d in dice if d.kept and d.sides == 20)
    return dice, outcome, total, kept == 1


def needing(success: int, failure: int) -> str:
    """The GM's two points in words ("15/10" is the book's shorthand, not a player's): what passes, what is mixed."""
    return f"{success} or more passes, {failure} or more is mixed"


def describe(outcome: str, total: int, natural_one: bool, kept: int) -> str:
    if natural_one:
        return f"natural 1, a critical failure ({total})"
    if kept == 20:
        return f"natural 20 ({total}): {OUTCOME_WORDS[outcome]}"
    return f"{OUTCOME_WORDS[outcome]} ({total})"


@dataclass(frozen=True)
class TestProcedure:
    """Seed 003 §Tests: d20 + stat against the GM's Success and Failure points; any Fail gains Fortune's Favor."""

    key: str = "test"
    label: str = "Test"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param(
                "stat",
                "Stat",
                "choice",
                "mettle",
                choices=(*STAT_CHOICES, ("luck", "Luck (no stat, no help)")),
            ),
            *test_params(),
            *favor_params(),
            features.situation_param(sheet),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Setup, int, int]:
        state, s, success, failure, _ = self._prepare(sheet, p)
        return state, s, success, failure

    def _prepare(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Setup, int, int, Any]:
        state = _st(sheet)
        success, failure = points(p)
        stat = None if p["stat"] == "luck" else p["stat"]
        # class features (features.py): a situational bonus, and bonuses waiting for this test
        extras = features.test_extras(state, p, stat, attack=False)
        s = setup(sheet, state, p, stat=stat, extra_favor=extras.favor)
        s.bonus += extras.bonus
        s.extra = (*s.extra, *extras.dice)
        s.notes += extras.notes
        s.third_d20 = extras.d20
        check_affordable(state, s)
        return state, s, success, failure, extras

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s, success, failure, extras = self._prepare(sheet, p)
        odds = odds_of(s, success, failure)
        return features.step_up_odds(odds) if extras.step else odds

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s, success, failure, extras = self._prepare(sheet, p)
        odds = self.odds(sheet, p)
        notes = s.notes + pay(state, s) + features.pay_extras(state, extras)
        dice, outcome, total, nat1 = roll_test(rng, s, success, failure)
        if extras.step and features.step_up(outcome) != outcome:
            notes.append(
                f"Minor Intervention: {OUTCOME_WORDS[outcome]} made {OUTCOME_WORDS[features.step_up(outcome)]}"
            )
            outcome = features.step_up(outcome)
        kept = next(d.face for d in dice if d.kept and d.sides == 20)
        what = "Luck test" if p["stat"] == "luck" else f"{STAT_NAMES[p['stat']]} test"
        summary = f"{what} ({needing(success, failure)}): {describe(outcome, total, nat1, kept)}."
        if outcome == "fail":
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            dice,
            total,
            odds,
            shown_inputs(p),
            state,
            details={"critical": nat1, "mode": s.mode},
        )


def contest_odds(mine: Setup, theirs_bonus: int) -> dict[str, Fraction]:
    """Seed 003, Contests: more than 5 higher Succeeds and the other Fails; otherwise both Mixed."""
    how = {"plain": "sum", "favor": "highest", "misfortune": "lowest"}[mine.mode]
    d20s = (20,) if mine.mode == "plain" else (20, 20)
    me = pool_dist(d20s, how)  # type: ignore[arg-type]
    extra = pool_dist(mine.extra, "sum")
    them = pool_dist((20,), "sum")
    out = dict.fromkeys(("pass", "mixed", "fail"), Fraction(0))
    for a, pa in me.items():
        for e, pe in extra.items():
            for b, pb in them.items():
                out[contest_result(a + e + mine.bonus, b + theirs_bonus)] += pa * pe * pb
    return out


def contest_result(mine: int, theirs: int) -> str:
    if mine - theirs > CONTEST_MARGIN:
        return "pass"
    if theirs - mine > CONTEST_MARGIN:
        return "fail"
    return "mixed"


@dataclass(frozen=True)
class ContestProcedure:
    """Seed 003, Contests: both sides roll; a PC who fails gains Fortune's Favor (spec §003.4 [REC])."""

    key: str = "contest"
    label: str = "Contest"
    gm_only: bool = False

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("stat", "Stat", "choice", "mettle", choices=STAT_CHOICES),
            Param("opponent", "Opponent's bonus", "int", 0, -BONUS_MAX, BONUS_MAX),
            *favor_params(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[dict[str, Any], Setup]:
        state = _st(sheet)
        s = setup(sheet, state, p, stat=p["stat"])
        check_affordable(state, s)
        return state, s

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        _, s = self._setup(sheet, p)
        chances = contest_odds(s, p["opponent"])
        return Odds(tuple((k, chances[k]) for k in ("pass", "mixed", "fail")))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        state, s = self._setup(sheet, p)
        chances = contest_odds(s, p["opponent"])
        odds = Odds(tuple((k, chances[k]) for k in ("pass", "mixed", "fail")))
        notes = s.notes + pay(state, s)
        # naturals off: a contest compares totals only (seed 003, Contests)
        dice, _, total = three_outcome(rng, s.bonus, 0, 0, s.mode, s.extra, naturals=False)
        theirs_die = roll_die(rng, 20, "opponent")
        theirs = theirs_die.face + p["opponent"]
        outcome = contest_result(total, theirs)
        summary = f"{STAT_NAMES[p['stat']]} contest: {total} against {theirs}: {OUTCOME_WORDS[outcome]}."
        if outcome == "fail":
            gain_favor(state, sheet)
            summary += " Fortune's Favor gained."
        if notes:
            summary += f" ({'; '.join(notes)})"
        return RollResult(
            self.key, self.label, outcome, summary, (*dice, theirs_die), total, odds, shown_inputs(p), state
        )


def group_result(passes: int, mixed: int, fails: int) -> str:
    """Seed 003, Group Tests: the net of Passes and Fails beats the Mixed count, or the group is Mixed."""
    net = abs(passes - fails)
    if passes == fails or net <= mixed:
        return "mixed"
    return "pass" if passes > fails else "fail"


@dataclass(frozen=True)
class GroupTestProcedure:
    """Seed 003, Group Tests: count each member's result; the GM applies the group's."""

    key: str = "group_test"
    label: str = "Group test"
    gm_only: bool = True

    def params(self, sheet: Sheet | None) -> tuple[Param, ...]:
        return (
            Param("passes", "Passes", "int", 0, 0, 50),
            Param("mixed", "Mixed results", "int", 0, 0, 50),
            Param("fails", "Fails", "int", 0, 0, 50),
        )

    def _counted(self, sheet: Sheet | None, params: Mapping[str, Any]) -> dict[str, Any]:
        """The counts, refused when there are none: the odds refuse as the roll does (issue 35 item 7)."""
        p = clean_params(self, sheet, params)
        if not p["passes"] + p["mixed"] + p["fails"]:
            raise RulesError("Count at least one member's result.")
        return p

    def odds(self, sheet: Sheet | None, params: Mapping[str, Any]) -> Odds:
        p = self._counted(sheet, params)
        return Odds(((group_result(p["passes"], p["mixed"], p["fails"]), Fraction(1)),))

    def roll(self, sheet: Sheet | None, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = self._counted(sheet, params)
        outcome = group_result(p["passes"], p["mixed"], p["fails"])
        summary = (
            f"Group test: {p['passes']} passed, {p['mixed']} mixed, {p['fails']} failed: "
            f"the group's result is {OUTCOME_WORDS[outcome]}."
        )
        return RollResult(self.key, self.label, outcome, summary, (), None, self.odds(sheet, p), shown_inputs(p))


def three(bonus: int, success: int, failure: int, face: int) -> str:
    return three_outcome_of(face, face + bonus, success, failure)
