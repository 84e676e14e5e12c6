"""Fell (late): spells (seed 001, Spells). Several calm minutes cast with no roll; in a hurry a WIL test, and a
failure costs one of four drawbacks the caster picks; an unwilling target may make it a WIL contest."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import RandomSource
from rules.systems.fell_late.checks import (
    DIE_CHOICES,
    check_dn,
    contest_chances,
    dn_param,
    opponent_roll,
    pass_chance,
    roll_contest,
    roll_dice,
    roll_from_params,
    shift_params,
    skill_params,
)
from rules.systems.fell_late.settings import CONTEST_TIE, setting
from rules.systems.fell_late.state import DRAWBACKS, SHIFT_MAX, can_act, st

_WAYS = (("calm", "Several calm minutes: no roll"), ("hurried", "In a hurry or under threat: WIL test"))
_UNTIL = {"side_effect": "this casting", "lessened": "this casting", "wil_impaired": "dawn", "locked": "dawn"}
LATER = "later"


def apply_drawback(state: dict[str, Any], spell: str, kind: str) -> str:
    """Record the drawback the caster chose (seed 001, Spells) with when it ends; returns its words."""
    state["drawbacks"] = [*state["drawbacks"], {"spell": spell, "kind": kind, "until": _UNTIL[kind]}][-50:]
    if kind == "wil_impaired":
        state["wil_impaired"] = True
    if kind == "locked" and spell not in state["locked_spells"]:
        state["locked_spells"] = [*state["locked_spells"], spell][-12:]
    state["pending_drawback"] = ""
    return DRAWBACKS[kind]


@dataclass(frozen=True)
class CastProcedure:
    """Seed 001 (Spells); spec §001.5.5 [REC]: a failed hurried casting still works, with the chosen drawback."""

    key: str = "cast"
    label: str = "Cast a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = st(sheet)
        usable = tuple((s, s) for s in state["spells"] if s not in state["locked_spells"]) or (
            ("", "No spell to cast"),
        )
        return (
            Param("spell", "Spell", "choice", usable[0][0], choices=usable),
            Param("way", "How", "choice", "calm", choices=_WAYS),
            Param(
                "drawback",
                "If the hurried test fails",
                "choice",
                LATER,
                choices=((LATER, "I choose after the roll"), *DRAWBACKS.items()),
                help="Failing costs one of four drawbacks, your pick.",
            ),
            Param("unwilling", "The target is unwilling and resists", "bool", False, help="Their WIL against yours."),
            Param("opponent", "The target is a character", "character"),
            Param("npc_die", "Or the target's WIL die", "choice", "6", choices=DIE_CHOICES),
            Param("opponent_advantage", "Their ADV (minus DIS)", "int", 0, -SHIFT_MAX, SHIFT_MAX),
            *(q for q in skill_params(sheet) if q.name != "background"),
            *shift_params(),
            dn_param(),
        )

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = st(sheet)
        can_act(state)
        if not p["spell"]:
            raise RulesError("You know no spell you can cast now.")
        if p["spell"] not in state["spells"]:
            raise RulesError("You do not know that spell.")
        if p["spell"] in state["locked_spells"]:
            raise RulesError(f"{p['spell']} cannot be cast again until dawn.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        self._check(sheet, p)
        mine, _ = roll_from_params(sheet, {**p, "background": False}, "WIL")
        if p["unwilling"]:
            theirs, _ = opponent_roll(p, "WIL")
            win, lose, tie = contest_chances(mine, theirs, setting(sheet, CONTEST_TIE))
            return Odds((("cast", win), ("resisted", lose + tie)), success_keys=("cast",))
        if p["way"] == "calm":
            return Odds((("cast", Fraction(1)),), success_keys=("cast",))
        ok = pass_chance(mine, check_dn(p["dn"]))
        return Odds((("cast", ok), ("cast_with_drawback", 1 - ok)), success_keys=("cast",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        state = self._check(sheet, p)
        spell = p["spell"]
        mine, _ = roll_from_params(sheet, {**p, "background": False}, "WIL")
        if p["unwilling"]:
            theirs, who = opponent_roll(p, "WIL")
            dice, result, x, y = roll_contest(sheet, rng, mine, theirs, ("you", who))
            failed = result != "win"
            outcome = "resisted" if failed else "cast"
            summary = (
                f"{spell} against an unwilling target: your WIL {x} on {mine.words}, theirs {y} on {theirs.words}. "
            )
            summary += "They resist it." if failed else "It takes hold."
            kept = x
        elif p["way"] == "calm":
            summary = f"{spell}: cast after several calm minutes, no roll (an exploration round passes)."
            return RollResult(
                self.key, self.label, "cast", summary, (), None, odds, shown_inputs(p), None, {"spell": spell}
            )
        else:
            dn = check_dn(p["dn"])
            dice, kept = roll_dice(rng, mine, "WIL")
            failed = not mine.sides or kept < dn
            outcome = "cast_with_drawback" if failed else "cast"
            summary = f"{spell} in a hurry: WIL {kept} on {mine.words} against DN {dn}, "
            summary += "failed; the spell still works, at a cost." if failed else "passed."
        new_state = None
        if failed:
            new_state = state
            if p["drawback"] == LATER:
                new_state["pending_drawback"] = spell
                summary += " Choose a drawback: " + "; ".join(DRAWBACKS.values()) + "."
            else:
                summary += f" Drawback: {apply_drawback(new_state, spell, p['drawback'])}."
        return RollResult(
            self.key, self.label, outcome, summary, dice, kept, odds, shown_inputs(p), new_state, {"spell": spell}
        )


@dataclass(frozen=True)
class ChooseDrawbackProcedure:
    """Seed 001 (Spells): after a failed hurried casting the caster chooses one of the four drawbacks."""

    key: str = "choose_drawback"
    label: str = "Choose a spell's drawback"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("drawback", "Drawback", "choice", "side_effect", choices=tuple(DRAWBACKS.items())),)

    def _apply(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
        state = st(sheet)
        spell = state["pending_drawback"]
        if not spell:
            raise RulesError("No failed hurried casting is waiting for a drawback.")
        words = apply_drawback(state, spell, p["drawback"])
        return f"{spell}: {words} (until {_UNTIL[p['drawback']]}).", state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        self._apply(sheet, clean_params(self, sheet, params))
        return Odds((("chosen", Fraction(1)),), success_keys=("chosen",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        summary, state = self._apply(sheet, p)
        return RollResult(
            self.key, self.label, "chosen", summary, (), None, self.odds(sheet, p), shown_inputs(p), state
        )
