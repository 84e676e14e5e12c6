"""Chaos & Conquest advancement (seed 002, Rewarding XP; Advancement).

The XP table, the treasure ledger, levelling up and the creation swap.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.data import chaos_conquest as data
from rules.dice import RandomSource, roll_dice, sum_dist
from rules.errors import Settled
from rules.systems.chaos_conquest.catalogue import format_money
from rules.systems.chaos_conquest.effects import _Effects
from rules.systems.chaos_conquest.inventory import _slots_max, _slots_used
from rules.systems.chaos_conquest.state import ATTRIBUTE_CHOICES, ATTRIBUTE_MAX, ATTRIBUTES, _raise_base, _st


def xp_for_level(level: int) -> int:
    """Seed 002, Advancement: the XP table to level 10, then 250,000 more a level."""
    if level < 1:
        raise RulesError("Levels start at 1.")
    if level <= len(data.LEVEL_XP):
        return data.LEVEL_XP[level - 1]
    return data.LEVEL_XP[-1] + (level - len(data.LEVEL_XP)) * data.XP_PER_LEVEL_PAST_10


def level_for_xp(xp: int) -> int:
    level = 1
    while xp >= xp_for_level(level + 1):
        level += 1
    return level


@dataclass(frozen=True)
class XpProcedure:
    """Seed 002, Rewarding XP: 1 XP per penny of treasure brought back safely (your share), and per
    penny wasted on returning to town (spec §002.12 [REC]: a ledger of both)."""

    key: str = "xp"
    label: str = "XP: treasure"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        kinds = (("treasure", "treasure brought back safely (your share)"), ("waste", "treasure wasted in town"))
        return (
            Param("kind", "Kind", "choice", "treasure", choices=kinds),
            Param("amount", "Pennies", "int", 0, 0, 10_000_000),
            Param("note", "What it was", "text", ""),
            Param("coins", "Add to (or pay from) your coins", "bool", True),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        fx = _Effects(sheet)
        st = fx.state
        if st["status"] == "dead":
            raise Settled("The dead earn no XP; an heir gets 10% of it (hired-help.md, Heirs).")
        amount = p["amount"]
        if p["coins"]:
            if p["kind"] == "waste" and amount > st["coins"]:
                raise RulesError(f"You cannot waste {format_money(amount)}; you have {format_money(st['coins'])}.")
            st["coins"] += amount if p["kind"] == "treasure" else -amount
        st["xp"] += amount
        st["xp_ledger"] = [*st["xp_ledger"], {"kind": p["kind"], "amount": amount, "note": p["note"][:200]}]
        nxt = xp_for_level(st["level"] + 1)
        verb = "brought back" if p["kind"] == "treasure" else "wasted"
        fx.say(f"{format_money(amount)} {verb}: +{amount:,} XP, now {st['xp']:,} (level {st['level'] + 1} at {nxt:,}).")
        if st["xp"] >= nxt:
            fx.say("Ready to level up.")
        if _slots_used(fx.sheet(), st) > _slots_max(st):
            fx.say("That much coin is more than your slots hold: leave some in safe keeping.")
        return fx.result(self, p["kind"], None, shown_inputs(p), total=st["xp"])


def level_up_odds(new_level: int, stamina_max: int) -> Odds:
    """Seed 002, Advancement: to levels 2-10 roll [new level]d8; above the max it is the new max,
    otherwise max +1. From 11 on, +2 without a roll."""
    if new_level > len(data.LEVEL_XP):
        return Odds((("plus_two", Fraction(1)),), success_keys=("plus_two",))
    higher = sum((p for v, p in sum_dist((8,) * new_level).items() if v > stamina_max), Fraction(0))
    return Odds((("new_max", higher), ("plus_one", 1 - higher)), success_keys=("new_max",))


def _all_maxed(state: Mapping[str, Any]) -> bool:
    return all(state["attributes"][a]["base"] >= ATTRIBUTE_MAX for a in ATTRIBUTES)


@dataclass(frozen=True)
class LevelUpProcedure:
    """Seed 002, Advancement: at the XP of the next level, +1 to an attribute (18 at most) and more stamina."""

    key: str = "level_up"
    label: str = "Level up"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (Param("attribute", "Raise", "choice", "STR", choices=ATTRIBUTE_CHOICES, help="Levels 2-10 only."),)

    def _check(self, sheet: Sheet, p: Mapping[str, Any]) -> dict[str, Any]:
        state = _st(sheet)
        if state["status"] == "dead":
            raise Settled("The dead do not level up.")
        new = state["level"] + 1
        need = xp_for_level(new)
        if state["xp"] < need:
            raise RulesError(f"Level {new} needs {need:,} XP; you have {state['xp']:,}.")
        if new <= len(data.LEVEL_XP) and not _all_maxed(state):
            a = p["attribute"]
            if state["attributes"][a]["base"] >= ATTRIBUTE_MAX:
                raise RulesError(f"{a} is already {ATTRIBUTE_MAX}, the most a score can be; raise another attribute.")
        return state

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        state = self._check(sheet, clean_params(self, sheet, params))
        return level_up_odds(state["level"] + 1, state["stamina_max"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        self._check(sheet, p)
        odds = self.odds(sheet, p)
        fx = _Effects(sheet)
        st = fx.state
        st["level"] += 1
        new = st["level"]
        old_max = st["stamina_max"]
        if new <= len(data.LEVEL_XP):
            # The cap stops the attribute, not the level: with all three at 18 only stamina grows.
            maxed = _all_maxed(st)
            if not maxed:
                _raise_base(st, p["attribute"], 1)
            fx.details["attribute_raised"] = "" if maxed else p["attribute"]
            dice = roll_dice(rng, new, 8, "stamina")
            fx.dice += dice
            total = sum(d.face for d in dice)
            outcome = "new_max" if total > old_max else "plus_one"
            st["stamina_max"] = min(999, total if total > old_max else old_max + 1)
            a = st["attributes"][p["attribute"]]["base"]
            raised = f"every attribute is already {ATTRIBUTE_MAX}, so none rises" if maxed else f"{p['attribute']} {a}"
            fx.say(f"Level {new}: {raised}. {new}d8 = {total} against max {old_max}:")
        else:
            total, outcome = 0, "plus_two"
            st["stamina_max"] = min(999, old_max + data.STAMINA_PER_LEVEL_PAST_10)
            fx.say(f"Level {new}: past level 10 there is no roll;")
        st["stamina"] = min(st["stamina_max"], st["stamina"] + st["stamina_max"] - old_max)
        fx.say(f"max stamina {st['stamina_max']}.")
        return fx.result(self, outcome, odds, shown_inputs(p), total=total or None)


@dataclass(frozen=True)
class SwapProcedure:
    """character-creation.md: you may swap two attribute scores (once, before play)."""

    key: str = "swap"
    label: str = "Swap two attributes"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("first", "Swap", "choice", "STR", choices=ATTRIBUTE_CHOICES),
            Param("second", "with", "choice", "WIL", choices=ATTRIBUTE_CHOICES),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        fx = _Effects(sheet)
        st = fx.state
        if st["swapped"] or st["level"] != 1 or st["xp"] or st["scars"]:
            raise RulesError("The swap is part of making a character: once, before play starts.")
        if p["first"] == p["second"]:
            raise RulesError("Pick two different attributes to swap.")
        a, b = st["attributes"][p["first"]], st["attributes"][p["second"]]
        st["attributes"][p["first"]], st["attributes"][p["second"]] = b, a
        st["swapped"] = True
        fx.say(f"Swapped: {p['first']} {b['base']}, {p['second']} {a['base']}.")
        return fx.result(self, "swapped", None, shown_inputs(p))
