"""Chaos & Conquest hired help (hired-help.md).

Retainers and hirelings, hiring them, loyalty, their wounds and shares of treasure.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Hireling, Odds, Param, RollResult, RulesError, Sheet, clean_params
from rules.data import chaos_conquest as data
from rules.dice import DieRoll, RandomSource, roll_dice, roll_die
from rules.systems.chaos_conquest.advancement import xp_for_level
from rules.systems.chaos_conquest.catalogue import format_money
from rules.systems.chaos_conquest.effects import _hurt, damage_odds
from rules.systems.chaos_conquest.npcs import _two_d6
from rules.systems.chaos_conquest.state import (
    ATTRIBUTES,
    DAMAGE_MAX,
    HIRE_KINDS,
    MAGIC_AV_MAX,
    _cur,
    _helper_changed,
    _helper_state,
    _helpers,
    _st,
)
from rules.validation import bounded_int


def retainer_row(wil: int) -> tuple[int, int]:
    """hired-help.md, Retainer Loyalty and Max Amount: (loyalty, most retainers) for a WIL score."""
    for _low, high, loyalty, most in data.RETAINER_TABLE:
        if wil <= high:  # rows go up in WIL; a scarred WIL below 3 uses the first row
            return loyalty, most
    return data.RETAINER_TABLE[-1][2], data.RETAINER_TABLE[-1][3]


@dataclass(frozen=True)
class Shares:
    pc: int  # pennies (and XP) for each PC
    retainer: int  # for each retainer: half a share
    left_over: int  # pennies that do not divide evenly


def treasure_shares(total: int, pcs: int, retainers: int = 0) -> Shares:
    """hired-help.md, Shares of Treasure: total / (PCs + half a share per retainer), rounded down."""
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise RulesError("Treasure is a whole number of pennies, zero or more.")
    if pcs < 1 or retainers < 0:
        raise RulesError("Share treasure among at least one PC (and any number of retainers).")
    share = Fraction(total) / (pcs + Fraction(retainers, 2))
    pc, retainer = math.floor(share), math.floor(share / 2)
    return Shares(pc, retainer, total - pc * pcs - retainer * retainers)


def heir_split(share: int) -> tuple[int, int]:
    """hired-help.md, Heirs: a PC with an heir keeps 75% of their share and hands 25% to the heir."""
    heir = share // 4
    return share - heir, heir


@dataclass(frozen=True)
class LoyaltyProcedure:
    """hired-help.md, Loyalty Checks: 2d6 at or under the retainer's loyalty and they do as asked."""

    key: str = "loyalty"
    label: str = "Retainer loyalty check"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        retainers = tuple((k, h.name) for k, h in _helpers(sheet, "retainer").items())
        return (
            Param(
                "retainer",
                "Retainer",
                "choice",
                retainers[0][0] if retainers else "",
                choices=retainers or (("", "none"),),
            ),
            Param("adjust", "GM's adjustment to loyalty", "int", 0, -5, 5, help="Treated well or badly, paid more."),
        )

    def _loyalty(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling, int]:
        h = _helpers(sheet, "retainer").get(p["retainer"])
        if h is None:
            raise RulesError("Pick one of this character's retainers.")
        base = _helper_state(h).get("loyalty")
        if not isinstance(base, int) or isinstance(base, bool):
            base = retainer_row(_cur(_st(sheet), "WIL"))[0]
        return h, base + p["adjust"]

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        _, loyalty = self._loyalty(sheet, clean_params(self, sheet, params))
        obey = sum((p for v, p in _two_d6().items() if v <= loyalty), Fraction(0))
        return Odds((("obeys", obey), ("refuses", 1 - obey)), success_keys=("obeys",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        h, loyalty = self._loyalty(sheet, p)
        dice = roll_dice(rng, 2, 6, "loyalty")
        total = sum(d.face for d in dice)
        obeys = total <= loyalty
        summary = f"{h.name}: 2d6 = {total} against loyalty {loyalty}, " + (
            "they do as asked." if obeys else "they refuse, and may leave your service."
        )
        return RollResult(
            self.key, self.label, "obeys" if obeys else "refuses", summary, dice, total, self.odds(sheet, p), p
        )


@dataclass(frozen=True)
class HelperDamageProcedure:
    """Seed 002, Stamina & Death: retainers go to Death's door like PCs; other hirelings just die."""

    key: str = "helper_damage"
    label: str = "Hireling or retainer takes damage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        helpers = tuple((k, h.name) for k, h in _helpers(sheet).items())
        return (
            Param("helper", "Who", "choice", helpers[0][0] if helpers else "", choices=helpers or (("", "nobody"),)),
            Param("amount", "Damage rolled", "int", 1, 0, DAMAGE_MAX),
            Param("av", "Their AV", "int", 0, 0, MAGIC_AV_MAX),
            Param("critical", "A critical hit (ignores armour)", "bool", False),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling, dict[str, Any], int, Odds]:
        h = _helpers(sheet).get(p["helper"])
        if h is None:
            raise RulesError("Pick one of this character's hirelings or retainers.")
        body = _helper_state(h)
        if body["status"] == "dead":
            raise RulesError(f"{h.name} is already dead.")
        damage = p["amount"] if p["critical"] else max(0, p["amount"] - p["av"])
        odds = damage_odds(body, damage)
        if body["role"] != "retainer" and "dying" in dict(odds.outcomes):
            odds = Odds((("dies", Fraction(1)),), success_keys=())  # a hireling has no Death's door
        return h, body, damage, odds

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, clean_params(self, sheet, params))[3]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        h, body, damage, odds = self._setup(sheet, p)
        dice: list[DieRoll] = []
        words: list[str] = [f"{h.name}:"]
        _hurt(body, damage, rng, dice, words, door=body["role"] == "retainer")
        if damage == 0:
            words.append("no damage gets through.")
        outcome = {"dead": "dies", "dying": "dying"}.get(body["status"], "hurt" if damage else "unhurt")
        return RollResult(
            self.key,
            self.label,
            outcome,
            " ".join(words),
            tuple(dice),
            damage,
            odds,
            p,
            hirelings_changed=(_helper_changed(h, body),),
        )


def hire_params(sheet: Sheet) -> tuple[Param, ...]:
    kinds = [("retainer", "Retainer: fights; half a share, 5 s a level up front")]
    for key, h in data.HIRELINGS.items():
        kinds.append((key, f"{h['label']}: {format_money(h['day'])} a day, {h['slots']} slots"))
    return (
        Param("kind", "Who", "choice", "retainer", choices=tuple(kinds)),
        Param("name", "Name", "text", ""),
        Param("level", "Retainer's level", "int", 1, 1, 100, help="Never above yours."),
    )


def hireling_limit(sheet: Sheet) -> int:
    """hired-help.md: the most retainers your WIL allows (hirelings who do not fight have no limit)."""
    return retainer_row(_cur(_st(sheet), "WIL"))[1]


def hire(sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
    """hired-help.md: a retainer (3d6 attributes, 1d8 stamina, a d6 weapon, 10 slots, loyalty and a cap
    from your WIL, 5 s x level up front, never above your level) or a hireling (8s, 6 Morale, 1d8
    stamina, 10 slots, a porter 15; paid by the day). A Knight's squire comes without the fee."""
    state = _st(sheet)
    if state["status"] != "fine":
        raise RulesError("Nobody signs on with someone who is dying or dead.")
    kind = str(choices.get("kind") or "retainer")
    if kind not in HIRE_KINDS:
        raise RulesError(f"Hire a {', '.join(HIRE_KINDS)}.")
    name = str(choices.get("name") or "").strip()[:100]
    stamina = roll_die(rng, 8, "stamina").face
    if kind != "retainer":
        h = data.HIRELINGS[kind]
        if state["coins"] < h["day"]:
            raise RulesError(f"A {kind} wants {format_money(h['day'])} a day; you have {format_money(state['coins'])}.")
        body = {
            "role": kind,
            "attributes": {
                a: {"current": data.HIRELING_ATTRIBUTE, "base": data.HIRELING_ATTRIBUTE} for a in ATTRIBUTES
            },
            "stamina": stamina,
            "stamina_max": stamina,
            "status": "fine",
            "morale": data.HIRELING_MORALE,
            "slots": h["slots"],
        }
        return Hireling(name or h["label"], "hireling", body, h["day"])
    wil = _cur(state, "WIL")
    loyalty, most = retainer_row(wil)
    retainers = _helpers(sheet, "retainer")
    if len(retainers) >= most:
        raise RulesError(f"With WIL {wil} you can keep {most} retainer(s), and you have {len(retainers)}.")
    level = choices.get("level") or 1
    level = bounded_int(int(level) if isinstance(level, str) and level.isdigit() else level, "Retainer's level", 1, 100)
    if level > state["level"]:
        raise RulesError(f"A retainer can never be a higher level than you (you are level {state['level']}).")
    squire = state["background"] == "Knight" and not any(_helper_state(r).get("squire") for r in retainers.values())
    upfront = 0 if squire else data.RETAINER_UPFRONT_PER_LEVEL * level
    if upfront > state["coins"]:
        raise RulesError(
            f"A level {level} retainer wants {format_money(upfront)} up front; you have {format_money(state['coins'])}."
        )
    scores = {a: sum(d.face for d in roll_dice(rng, 3, 6, a)) for a in ATTRIBUTES}
    top = stamina
    for new in range(2, min(level, len(data.LEVEL_XP)) + 1):  # they advance like PCs (hired-help.md)
        rolled = sum(d.face for d in roll_dice(rng, new, 8, "stamina"))
        top = rolled if rolled > top else top + 1
    top += max(0, level - len(data.LEVEL_XP)) * data.STAMINA_PER_LEVEL_PAST_10
    body = {
        "role": "retainer",
        "attributes": {a: {"current": v, "base": v} for a, v in scores.items()},
        "stamina": top,
        "stamina_max": top,
        "status": "fine",
        "doomed": False,
        "scars": [],
        "level": level,
        "xp": xp_for_level(level),
        "loyalty": loyalty,
        "weapon": 6,
        "slots": data.RETAINER_SLOTS,
    }
    if squire:
        body["squire"] = True
    # hire() returns only the row; the app takes the fee from the employer's coins (Hireling.upfront).
    return Hireling(name or ("Squire" if squire else "Retainer"), "retainer", body, 0, upfront=upfront)
