"""Fell (draft): combat. See the package docstring for sources and readings."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import (
    Odds,
    Param,
    Procedure,
    RollResult,
    RulesError,
    Sheet,
    clean_params,
    shown_inputs,
)
from rules.dice import (
    LADDER,
    DieRoll,
    RandomSource,
    ladder_index,
    pool_dist,
    roll_die,
)
from rules.systems.fell_draft.checks import (
    DIE_CHOICES,
    _ability_param,
    _helper_die,
    _hirelings,
    _pool_words,
    _shift_params,
    _weapons,
)
from rules.systems.fell_draft.harm import apply_harm, critical_survival_chance
from rules.systems.fell_draft.inventory import _hireling_state, _steel, protection
from rules.systems.fell_draft.pools import Pool, PoolDie, _net, _roll_pool, shift_dice
from rules.systems.fell_draft.state import HARM_MAX, MAX_PROTECTION, _is_dead, _st


def _harm_key(amount: int) -> str:
    return "no harm" if amount == 0 else f"{amount} harm"


def _harm_dist(pool: Pool, armour: int) -> dict[int, Fraction]:
    """Seed 000 (Attacks): highest steel die minus protection, never below 0."""
    dist: dict[int, Fraction] = {}
    for value, p in (pool_dist(pool.sides, "highest") if pool.dice else {0: Fraction(1)}).items():
        harm = max(0, value - armour)
        dist[harm] = dist.get(harm, Fraction(0)) + p
    return dist


def _harm_odds(pool: Pool, armour: int) -> Odds:
    outcomes = tuple((_harm_key(h), p) for h, p in sorted(_harm_dist(pool, armour).items()))
    return Odds(outcomes, success_keys=tuple(k for k, _ in outcomes if k != "no harm"))


def npc_attack_odds(sheet: Sheet, pool: Pool, ability: str, reduce_die: bool) -> Odds:
    """Seed 000 (Attacks; Harm and Death): what an NPC's steel die does to this character, as its roll names it: the
    harm that leaves them up, or "dying" (critical harm, its test failed: or dying already) or "dead". Each amount's
    chance of going down is ``harm_odds``', the Take harm roll's own (issue 35 item 7: they were left out)."""
    dying = bool(_st(sheet)["dying"])
    dist: dict[str, Fraction] = {}
    for amount, p in sorted(_harm_dist(pool, protection(sheet)).items()):
        for key, q in harm_odds(sheet, amount, ability, reduce_die).outcomes:
            named = key if key == "dead" else "dying" if key == "dying" or dying else _harm_key(amount)
            dist[named] = dist.get(named, Fraction(0)) + p * q
    down = tuple(k for k in ("dying", "dead") if k in dist)
    outcomes = tuple((k, q) for k, q in dist.items() if k not in down) + tuple((k, dist[k]) for k in down)
    return Odds(outcomes, success_keys=tuple(k for k, _ in outcomes if k != "no harm"))


@dataclass(frozen=True)
class AttackProcedure:
    """Seed 000 (Attacks, Blast, Detachments): steel dice, highest single die, minus protection."""

    key: str = "attack"
    label: str = "Attack"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        weapons = tuple((k, f"{it.name} (d{_steel(it)})") for k, it in _weapons(sheet).items())
        armed = tuple((k, h.name) for k, h in _hirelings(sheet).items() if _hireling_state(h)["steel_die"])
        return (
            Param("weapons", "Weapons", "multichoice", (), choices=weapons, help="Several: highest die counts."),
            Param(
                "unarmed_die",
                "Unarmed or improvised die",
                "choice",
                "4",
                choices=DIE_CHOICES,
                help="The rules give no die for this; the GM decides (d4 by default).",
            ),
            Param("hirelings", "Hirelings attacking too", "multichoice", (), choices=armed),
            Param("ally", "Another character attacking too", "character"),
            Param("target", "Target (a character)", "character"),
            Param("target_protection", "NPC target's protection", "int", 0, 0, MAX_PROTECTION),
            Param(
                "detachment",
                "Detachment",
                "choice",
                "none",
                choices=(
                    ("none", "no detachment"),
                    ("attacker", "the attackers are a detachment"),
                    ("target", "the target is a detachment"),
                ),
            ),
            Param("targets", "Targets caught by blast", "int", 1, 0, 50, help="0: roll the steel die."),
            *_shift_params(),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Pool, bool, int]:
        state = _st(sheet)
        if _is_dead(state) or state["dying"]:
            raise RulesError("Only the living and conscious can attack.")
        weapons = _weapons(sheet)
        chosen = [weapons[k] for k in p["weapons"]]
        base = [PoolDie(_steel(w), f"steel: {w.name}", "steel") for w in chosen]
        blast = any(w.data.get("blast") for w in chosen)
        if not chosen:
            base.append(PoolDie(int(p["unarmed_die"]), "unarmed", "steel"))
        hired = _hirelings(sheet)
        for k in p["hirelings"]:
            h = hired[k]
            base.append(PoolDie(_hireling_state(h)["steel_die"], f"steel: {h.name}", "steel"))
        ally = p.get("ally")
        if isinstance(ally, Sheet):
            base.append(_helper_die(ally, "steel"))
        advantage, disadvantage = p["advantage"], p["disadvantage"]
        notes: list[str] = []
        if p["detachment"] == "attacker":
            advantage += 1
            blast = True
            notes.append("detachment: advantage and blast")
        elif p["detachment"] == "target" and not blast:
            disadvantage += 1
            notes.append("attacking a detachment without blast: disadvantage")
        net, notes = _net(advantage, disadvantage, p["decline_advantage"], notes)
        target = p.get("target")
        armour = protection(target) if isinstance(target, Sheet) else p["target_protection"]
        return shift_dice(base, net, notes), blast, armour

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        pool, _, armour = self._setup(sheet, p)
        return _harm_odds(pool, armour)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        pool, blast, armour = self._setup(sheet, p)
        odds = _harm_odds(pool, armour)
        dice, best = _roll_pool(rng, pool)
        harms = [max(0, best - armour)]
        details: dict[str, Any] = {"protection": armour, "net_shift": pool.net}
        count = p["targets"] if blast else 1
        if blast and count == 0:  # seed 000 (Blast): unsure how many? roll the weapon's steel die
            counter = roll_die(rng, max(d.sides for d in pool.dice) if pool.dice else 4, "blast: targets")
            dice += (counter,)
            count = counter.face
            details["targets_rolled"] = count
        for n in range(1, max(1, count)):
            more, value = _roll_pool(rng, pool)
            dice += tuple(DieRoll(d.sides, d.face, d.kept, f"{d.label} (target {n + 1})") for d in more)
            harms.append(max(0, value - armour))
        details["harm"] = harms
        summary = f"{_pool_words(pool)}: highest {best} minus protection {armour} = {harms[0]} harm"
        if len(harms) > 1:
            summary += f"; blast on the others: {', '.join(map(str, harms[1:]))}"
        summary += "."
        target_state = None
        target = p.get("target")
        if isinstance(target, Sheet) and harms[0] > 0:
            harm = apply_harm(target, harms[0], "BOD", rng)
            dice += harm.dice
            target_state = harm.state
            summary += f" {target.name or 'Target'}: {harm.summary}"
        outcome = "no harm" if harms[0] == 0 else f"{harms[0]} harm"
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            dice,
            harms[0],
            odds,
            shown_inputs(p),
            None,
            details,
            # By name: with an ally attacking too, the harm must land on the target, not the ally.
            other_states={"target": target_state} if target_state is not None else {},
        )


def harm_odds(sheet: Sheet, amount: int, ability: str, reduce_die: bool = False) -> Odds:
    """What a known amount of harm will do: the only chance is the critical harm test (seed 000)."""
    state = _st(sheet)
    keys = ("unharmed", "hp only", "standing")
    critical = max(0, amount - state["hp"])
    a = state["abilities"][ability]
    points, die = a["points"], a["die"]
    if critical and reduce_die:
        if die == LADDER[0]:
            return Odds((("dead", Fraction(1)),), success_keys=keys)
        points = min(points, LADDER[ladder_index(die) - 1])
    if _is_dead(state) or (critical and points - critical <= 0):
        return Odds((("dead", Fraction(1)),), success_keys=keys)
    if critical == 0:
        return Odds(((("unharmed" if amount == 0 else "hp only"), Fraction(1)),), success_keys=keys)
    if reduce_die:
        lowered = copy.deepcopy(state)
        lowered["abilities"][ability]["die"] = LADDER[ladder_index(die) - 1]
        lowered["abilities"][ability]["points"] = points  # points run up to the new die's highest face
        sheet = sheet.with_state(lowered)
    survive = critical_survival_chance(sheet, ability, critical)
    return Odds((("standing", survive), ("dying", 1 - survive)), success_keys=keys)


def _harm_params() -> tuple[Param, ...]:
    return (
        _ability_param("ability", "Critical harm goes to", "BOD"),
        Param("reduce_die", "Also lower that ability's die", "bool", False, gm_only=True),
    )


def _harm_result(
    proc: Procedure,
    sheet: Sheet,
    p: Mapping[str, Any],
    amount: int,
    rng: RandomSource,
    dice: Sequence[DieRoll] = (),
) -> RollResult:
    harm = apply_harm(sheet, amount, p["ability"], rng, reduce_die=p["reduce_die"])
    outcome = "dead" if _is_dead(harm.state) else "dying" if harm.state["dying"] else f"{amount} harm"
    return RollResult(
        proc.key,
        proc.label,
        outcome,
        harm.summary,
        tuple(dice) + harm.dice,
        amount,
        None,
        shown_inputs(p),
        harm.state,
        {"to_hp": harm.to_hp, "critical": harm.critical, "critical_test": harm.test},
    )


def _check_harm(amount: Any) -> int:
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= HARM_MAX:
        raise RulesError(f"Harm must be a whole number from 0 to {HARM_MAX}.")
    return amount


@dataclass(frozen=True)
class TakeHarmProcedure:
    """Seed 000 (Harm and Death): a fixed amount of harm, to HP then the chosen ability's points."""

    key: str = "take_harm"
    label: str = "Take harm"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("amount", "Harm", "int", 1, 0, HARM_MAX),
            Param("armour", "Subtract my protection", "bool", False, help="For a blow the GM rolled."),
            *_harm_params(),
        )

    def _amount(self, sheet: Sheet, p: Mapping[str, Any]) -> int:
        amount = _check_harm(p["amount"])
        return max(0, amount - protection(sheet)) if p["armour"] else amount

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return harm_odds(sheet, self._amount(sheet, p), p["ability"], p["reduce_die"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        amount = self._amount(sheet, p)
        odds = harm_odds(sheet, amount, p["ability"], p["reduce_die"])
        result = _harm_result(self, sheet, p, amount, rng)
        outcome = result.outcome
        if outcome not in ("dead", "dying"):  # named as harm_odds names it, so the roll lands on its odds
            outcome = "standing" if result.details["critical"] else "hp only" if amount else "unharmed"
        return dataclasses.replace(result, outcome=outcome, odds=odds)


@dataclass(frozen=True)
class NpcAttackProcedure:
    """Seed 000 (Attacks, Detachments): the GM rolls an NPC's steel die against this character."""

    key: str = "npc_attack"
    label: str = "Attacked by an NPC"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("steel", "NPC's steel die", "choice", "6", choices=DIE_CHOICES),
            Param("detachment", "A detachment attacks", "bool", False, help="Advantage against individuals."),
            *_shift_params(),
            *_harm_params(),
        )

    def _pool(self, p: Mapping[str, Any]) -> Pool:
        adv = p["advantage"] + (1 if p["detachment"] else 0)
        net, notes = _net(adv, p["disadvantage"], p["decline_advantage"], [])
        return shift_dice((PoolDie(int(p["steel"]), "NPC steel", "steel"),), net, notes)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return npc_attack_odds(sheet, self._pool(p), p["ability"], p["reduce_die"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        pool = self._pool(p)
        odds = npc_attack_odds(sheet, pool, p["ability"], p["reduce_die"])
        dice, best = _roll_pool(rng, pool)
        amount = max(0, best - protection(sheet))
        result = _harm_result(self, sheet, p, amount, rng, dice)
        summary = f"NPC rolls {best} minus protection {protection(sheet)}: {result.summary}"
        return RollResult(
            self.key,
            self.label,
            result.outcome if result.outcome in ("dead", "dying") else _harm_key(amount),
            summary,
            result.dice,
            amount,
            odds,
            result.inputs,
            result.state,
            result.details,
        )
