"""Fell (late): tests and contests (seed 001, Tests, Help, Contests, Advantage and Disadvantage, Impaired and
Enhanced, Dice Ladder, Skills). One attribute die, moved along the ladder by ENH/IMP, then ADV/DIS dice."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any, Literal

from rules.base import Hireling, Odds, Param, RollResult, RulesError, Sheet, clean_params, entry_key, shown_inputs
from rules.dice import LADDER, DieRoll, Dist, RandomSource, adv_dis_pool, pool_dist, prob, roll_pool, shift
from rules.systems.fell_late.inventory import hireling_state, over_slots
from rules.systems.fell_late.settings import CONTEST_TIE, HELP_STACKING, setting
from rules.systems.fell_late.state import (
    ATTRIBUTES,
    DN_DEFAULT,
    DN_MAX,
    DN_MIN,
    OVERFLOW,
    SHIFT_MAX,
    can_act,
    die_of,
    st,
)

ATTRIBUTE_CHOICES = tuple((a, a) for a in ATTRIBUTES)
DIE_CHOICES = tuple((str(s), f"d{s}") for s in LADDER)


@dataclass(frozen=True)
class TestRoll:
    """One side's roll: ``count`` dice of ``sides`` faces keeping the highest or lowest; ``sides`` 0 cannot roll."""

    sides: int
    count: int = 1
    how: Literal["highest", "lowest"] = "highest"
    notes: tuple[str, ...] = ()

    @property
    def words(self) -> str:
        if not self.sides:
            return "no die (lowered below d4)"
        if self.count == 1:
            return f"d{self.sides}"
        extra = self.count - 1
        kind = "ADV" if self.how == "highest" else "DIS"
        return f"{self.count}d{self.sides} keep the {'highest' if self.how == 'highest' else 'lowest'} ({extra} {kind})"


def build_roll(die: int, steps: int, net: int, notes: Sequence[str] = ()) -> TestRoll:
    """Seed 001 (Dice Ladder; ADV/DIS), spec §001.4 [REC]: shift the die first (past d12 each step is an ADV,
    below d4 it cannot be rolled), then net ADV - DIS extra dice of that size, keeping the high or low one."""
    shifted = shift(die, steps, OVERFLOW)
    if not shifted.dice:
        return TestRoll(0, 0, "highest", (*notes, "lowered below d4: it cannot be rolled, so it fails"))
    total = net + shifted.advantage
    if shifted.advantage:
        notes = (*notes, f"past d12: {shifted.advantage} ADV")
    dice, how = adv_dis_pool(shifted.dice[0], total)
    return TestRoll(shifted.dice[0], len(dice), how, tuple(notes))


def kept_dist(roll: TestRoll) -> Dist:
    """The kept die's exact distribution; a die that cannot be rolled is worth 0."""
    if not roll.sides:
        return {0: Fraction(1)}
    return pool_dist((roll.sides,) * roll.count, roll.how)


def pass_chance(roll: TestRoll, dn: int) -> Fraction:
    """Seed 001 (Tests): the kept die meets or beats the DN; a die below d4 fails (spec §001.4 [REC])."""
    return prob(kept_dist(roll), lambda v: v >= dn) if roll.sides else Fraction(0)


def roll_dice(rng: RandomSource, roll: TestRoll, label: str) -> tuple[tuple[DieRoll, ...], int]:
    if not roll.sides:
        return (), 0
    return roll_pool(rng, (roll.sides,) * roll.count, roll.how, [label] * roll.count)


def hirelings(sheet: Sheet) -> dict[str, Hireling]:
    return {entry_key(h, i, "h"): h for i, h in enumerate(sheet.hirelings)}


def check_dn(dn: Any) -> int:
    if isinstance(dn, bool) or not isinstance(dn, int) or not DN_MIN <= dn <= DN_MAX:
        raise RulesError(f"The difficulty number must be a whole number from {DN_MIN} to {DN_MAX}.")
    return dn


def attribute_param(name: str = "attribute", label: str = "Attribute", default: str = "STR") -> Param:
    return Param(name, label, "choice", default, choices=ATTRIBUTE_CHOICES)


def shift_params() -> tuple[Param, ...]:
    return (
        Param("enhance", "Enhanced (steps up)", "int", 0, 0, SHIFT_MAX, help="Each moves the die one step up."),
        Param("impair", "Impaired (steps down)", "int", 0, 0, SHIFT_MAX, help="Each moves the die one step down."),
        Param("advantage", "Advantage", "int", 0, 0, SHIFT_MAX, help="Each rolls one more die; keep the highest."),
        Param("disadvantage", "Disadvantage", "int", 0, 0, SHIFT_MAX, help="Each rolls one more die; keep the lowest."),
    )


def skill_params(sheet: Sheet) -> tuple[Param, ...]:
    state = st(sheet)
    skilled = tuple((k, h.name) for k, h in hirelings(sheet).items() if hireling_state(h)["skills"])
    return (
        Param(
            "skills",
            "Skills that apply",
            "multichoice",
            (),
            choices=tuple((s, s) for s in state["skills"]),
            help="Each applicable skill moves the die one step up.",
        ),
        Param("background", "My background suits this task", "bool", False, help="It counts as one more skill."),
        Param("helpers", "Hirelings helping", "multichoice", (), choices=skilled, help="Each helper adds ADV."),
        Param("helper", "Another character helping", "character", help="Only someone with a relevant skill."),
    )


def dn_param() -> Param:
    return Param("dn", "Difficulty number", "int", DN_DEFAULT, DN_MIN, DN_MAX, help="Usually 4.", gm_only=True)


def helper_count(sheet: Sheet, p: Mapping[str, Any]) -> tuple[int, list[str]]:
    """Seed 001 (Help): each helper with a relevant skill grants ADV; a setting caps it at one."""
    names: list[str] = []
    hired = hirelings(sheet)
    for key in p.get("helpers") or ():
        h = hired.get(key)
        if h is None:
            raise RulesError("That hireling is not on this sheet.")
        hstate = hireling_state(h)
        if not hstate["skills"]:
            raise RulesError(f"{h.name} has no skill to help with.")
        can_act(hstate)
        names.append(h.name)
    helper = p.get("helper")
    if isinstance(helper, Sheet):
        hstate = st(helper)
        who = helper.name or "The helper"
        if not hstate["skills"]:
            raise RulesError(f"{who} has no skill, and only someone with a relevant skill can help.")
        can_act(hstate)
        names.append(helper.name or "a character")
    count = len(names)
    if count > 1 and setting(sheet, HELP_STACKING) == "one":
        count = 1
    return count, names


def character_roll(
    sheet: Sheet,
    state: Mapping[str, Any],
    attribute: str,
    *,
    skills: Sequence[str] = (),
    background: bool = False,
    enhance: int = 0,
    impair: int = 0,
    advantage: int = 0,
    disadvantage: int = 0,
    helpers: int = 0,
) -> TestRoll:
    """A character's test roll: attribute die, skills and ENH/IMP as steps, then ADV/DIS and helpers as dice.

    Seed 001: each applicable skill enhances one step (Skills); fatigue impairs every test a step a level
    (Deprivation and Fatigue); over the slots every roll has DIS (Item Slots); WIL impaired until dawn after a
    hurried casting's drawback (Spells).
    """
    unknown = [s for s in skills if s not in state["skills"]]
    if unknown:
        raise RulesError(f"You do not know the skill {', '.join(unknown)}.")
    notes: list[str] = []
    steps = enhance - impair + len(skills) + (1 if background else 0)
    if skills:
        notes.append(f"{len(skills)} skill{'s' if len(skills) > 1 else ''}: +{len(skills)} step")
    if background:
        notes.append("background: +1 step")
    if state["fatigue"]:
        steps -= state["fatigue"]
        notes.append(f"fatigue {state['fatigue']}: -{state['fatigue']} step")
    if attribute == "WIL" and state["wil_impaired"]:
        steps -= 1
        notes.append("WIL impaired until dawn: -1 step")
    net = advantage + helpers - disadvantage
    if helpers:
        notes.append(f"help: {helpers} ADV")
    if over_slots(sheet, state):
        net -= 1
        notes.append("over your slots: DIS")
    return build_roll(die_of(state, attribute), steps, net, notes)


def roll_from_params(sheet: Sheet, p: Mapping[str, Any], attribute: str) -> tuple[TestRoll, list[str]]:
    state = st(sheet)
    can_act(state)
    helpers, names = helper_count(sheet, p)
    roll = character_roll(
        sheet,
        state,
        attribute,
        skills=tuple(p.get("skills") or ()),
        background=bool(p.get("background")),
        enhance=int(p.get("enhance", 0)),
        impair=int(p.get("impair", 0)),
        advantage=int(p.get("advantage", 0)),
        disadvantage=int(p.get("disadvantage", 0)),
        helpers=helpers,
    )
    return roll, names


def test_odds(roll: TestRoll, dn: int) -> Odds:
    p = pass_chance(roll, dn)
    return Odds((("pass", p), ("fail", 1 - p)))


@dataclass(frozen=True)
class TestProcedure:
    """Seed 001 (Tests): roll the attribute die, shifted and with extra dice; the kept die against the DN."""

    key: str = "test"
    label: str = "Test"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (attribute_param(), *skill_params(sheet), *shift_params(), dn_param())

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return test_odds(roll_from_params(sheet, p, p["attribute"])[0], check_dn(p["dn"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        dn = check_dn(p["dn"])
        roll, helpers = roll_from_params(sheet, p, p["attribute"])
        odds = test_odds(roll, dn)
        dice, kept = roll_dice(rng, roll, p["attribute"])
        passed = bool(roll.sides) and kept >= dn
        summary = f"{p['attribute']} test with {roll.words}: {kept} against DN {dn}, "
        summary += "passed." if passed else "failed; trouble comes."
        if helpers and not passed:
            summary += f" Trouble comes for {', '.join(helpers)} too."
        details = {"dn": dn, "kept": kept, "die": roll.sides, "dice": roll.count, "notes": list(roll.notes)}
        return RollResult(
            self.key,
            self.label,
            "pass" if passed else "fail",
            summary,
            dice,
            kept,
            odds,
            shown_inputs(p),
            None,
            details,
        )


# --- contests ----------------------------------------------------------------------------------------------


def contest_chances(mine: TestRoll, theirs: TestRoll, tiebreak: str = "stands") -> tuple[Fraction, Fraction, Fraction]:
    """Seed 001 (Contests): the higher kept die wins; on a tie a die higher up the ladder wins.

    Equal values on equal dice: the tie stands (spec §001.5.4 [REC]) or, as a table's setting, both roll again
    until someone wins: then each side's chance is its share of the decided outcomes.
    """
    a, b = kept_dist(mine), kept_dist(theirs)
    win = lose = tie = Fraction(0)
    for x, px in a.items():
        for y, py in b.items():
            p = px * py
            if x > y or (x == y and mine.sides > theirs.sides):
                win += p
            elif x < y or (x == y and mine.sides < theirs.sides):
                lose += p
            else:
                tie += p
    if tiebreak == "reroll" and win + lose:
        return win / (win + lose), lose / (win + lose), Fraction(0)
    return win, lose, tie


def contest_odds(sheet: Sheet | None, mine: TestRoll, theirs: TestRoll) -> Odds:
    win, lose, tie = contest_chances(mine, theirs, setting(sheet, CONTEST_TIE))
    outcomes = [("win", win), ("lose", lose)]
    if tie or not (win or lose):
        outcomes.append(("tie", tie))
    return Odds(tuple(outcomes), success_keys=("win",))


def _winner(x: int, y: int, mine: TestRoll, theirs: TestRoll) -> str:
    if x > y or (x == y and mine.sides > theirs.sides):
        return "win"
    if x < y or (x == y and mine.sides < theirs.sides):
        return "lose"
    return "tie"


REROLLS_MAX = 50  # a reroll tie-break stops here (a chance below 10^-20 with real dice)


def roll_contest(
    sheet: Sheet | None, rng: RandomSource, mine: TestRoll, theirs: TestRoll, labels: tuple[str, str]
) -> tuple[tuple[DieRoll, ...], str, int, int]:
    """Both sides roll; returns every die, "win"/"lose"/"tie" for the first side, and both kept values."""
    dice: tuple[DieRoll, ...] = ()
    reroll = setting(sheet, CONTEST_TIE) == "reroll"
    for _ in range(REROLLS_MAX):
        d1, x = roll_dice(rng, mine, labels[0])
        d2, y = roll_dice(rng, theirs, labels[1])
        dice += d1 + d2
        outcome = _winner(x, y, mine, theirs)
        if outcome != "tie" or not reroll or not (mine.sides or theirs.sides):
            break
    return dice, outcome, x, y


def opponent_params(default: str = "STR") -> tuple[Param, ...]:
    return (
        Param("opponent", "Opposing character", "character"),
        attribute_param("opponent_attribute", "Their attribute", default),
        Param("npc_die", "Or an NPC's die", "choice", "6", choices=DIE_CHOICES, help="NPCs are d6 unless noted."),
        Param("opponent_advantage", "Their ADV (minus DIS)", "int", 0, -SHIFT_MAX, SHIFT_MAX),
    )


def opponent_roll(p: Mapping[str, Any], attribute: str | None = None) -> tuple[TestRoll, str]:
    """The other side of a contest: a character's own test roll, or an NPC's die (spec §001.2 NPC defaults)."""
    opp = p.get("opponent")
    net = int(p.get("opponent_advantage", 0))
    if isinstance(opp, Sheet):
        state = st(opp)
        can_act(state)
        which = attribute or p.get("opponent_attribute") or "STR"
        return character_roll(opp, state, which, advantage=max(0, net), disadvantage=max(0, -net)), (
            f"{opp.name or 'opponent'} ({which})"
        )
    return build_roll(int(p.get("npc_die") or 6), 0, net), "NPC"


def contest_result(
    proc: Any, sheet: Sheet, p: Mapping[str, Any], mine: TestRoll, theirs: TestRoll, who: str, rng: RandomSource
) -> RollResult:
    odds = contest_odds(sheet, mine, theirs)
    dice, outcome, x, y = roll_contest(sheet, rng, mine, theirs, ("you", who))
    summary = f"You rolled {x} on {mine.words}; {who} rolled {y} on {theirs.words}: "
    summary += {"win": "you win.", "lose": "they win.", "tie": "a dead heat; nothing changes."}[outcome]
    details = {"kept": x, "their_kept": y, "notes": list(mine.notes), "their_notes": list(theirs.notes)}
    return RollResult(proc.key, proc.label, outcome, summary, dice, x, odds, shown_inputs(p), None, details)


@dataclass(frozen=True)
class ContestProcedure:
    """Seed 001 (Contests): both sides roll a test; the highest wins, a tie goes up the ladder."""

    key: str = "contest"
    label: str = "Contest"
    gm_only: bool = False
    attribute: str = ""  # fixed for surprise (DEX); empty: the player picks

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        mine = () if self.attribute else (attribute_param(),)
        theirs = opponent_params()
        if self.attribute:
            theirs = tuple(q for q in theirs if q.name != "opponent_attribute")
        return (*mine, *skill_params(sheet), *shift_params(), *theirs)

    def _rolls(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[TestRoll, TestRoll, str]:
        attribute = self.attribute or p["attribute"]
        mine, _ = roll_from_params(sheet, p, attribute)
        theirs, who = opponent_roll(p, self.attribute or None)
        return mine, theirs, who

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        mine, theirs, _ = self._rolls(sheet, p)
        return contest_odds(sheet, mine, theirs)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        mine, theirs, who = self._rolls(sheet, p)
        result = contest_result(self, sheet, p, mine, theirs, who, rng)
        if self.key == "surprise":
            words = {"win": " You act in the first round.", "lose": " You lose the first round.", "tie": ""}
            return replace(result, summary=result.summary + words[result.outcome])
        return result


SURPRISE = ContestProcedure(key="surprise", label="Surprised: DEX contest", attribute="DEX")
