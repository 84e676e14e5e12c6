"""Fell (late): attacks, harm, critical harm and death (seed 001, Attacks, Armor, Blast, Detachments, Harm and
Death). Attacks always land: the highest damage die, +1 per extra attacker, minus armour, to HP then STR."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Item, Odds, Param, RollResult, RulesError, Sheet, clean_params, entry_key, shown_inputs
from rules.dice import (
    DieRoll,
    Dist,
    RandomSource,
    adv_dis_pool,
    combine,
    constant,
    die_dist,
    pool_dist,
    roll_die,
    roll_pool,
)
from rules.errors import Settled
from rules.systems.fell_late.checks import ATTRIBUTE_CHOICES, DIE_CHOICES, character_roll, pass_chance, roll_dice
from rules.systems.fell_late.inventory import armour, damage_die, effective_hp, over_slots
from rules.systems.fell_late.settings import ARMOUR_SPILL, setting
from rules.systems.fell_late.state import DN_DEFAULT, HARM_MAX, MAX_ARMOUR, can_act, die_of, st, step

ATTACKERS_MAX = 20
HARM_OUTCOMES = ("no_harm", "hp_harm", "critical_pass", "critical_fail", "dead")


def split_harm(harm: int, hp: int, armour_value: int, mode: str) -> tuple[int, int]:
    """(harm to HP, critical harm). Spec §001.6 [REC]: armour once from the whole harm; the table's other
    reading takes armour only off the part that lands on HP, and the rest reaches STR in full."""
    if mode == "hp_only":
        on_hp = min(harm, hp)
        return max(0, on_hp - armour_value), harm - on_hp
    after = max(0, harm - armour_value)
    on_hp = min(after, hp)
    return on_hp, after - on_hp


@dataclass(frozen=True)
class Harmed:
    state: dict[str, Any]
    outcome: str
    summary: str
    dice: tuple[DieRoll, ...] = ()


def critical_roll(sheet: Sheet, state: Mapping[str, Any], attribute: str):
    """Seed 001 (Harm and Death): a test of the affected attribute at DN 4 (spec §001.11.7 [REC])."""
    return character_roll(sheet, state, attribute)


def apply_harm(sheet: Sheet, harm: int, attribute: str, armour_value: int, rng: RandomSource) -> Harmed:
    """Harm to HP first, the rest is critical harm: one test of the attribute per attack (spec §001.7 [REC]);
    a failure lowers it a step and takes the character out; lowered below d4, they are dead."""
    state = st(sheet)
    if state["dead"]:
        raise Settled("The dead take no more harm.")
    who = sheet.name or "The character"
    hp = effective_hp(sheet, state)
    on_hp, critical = split_harm(harm, hp, armour_value, setting(sheet, ARMOUR_SPILL))
    state["hp"] = max(0, state["hp"] - on_hp)
    if not on_hp and not critical:
        return Harmed(state, "no_harm", f"{who} takes no harm.")
    if not critical:
        return Harmed(state, "hp_harm", f"{who} loses {on_hp} HP ({state['hp']} left).")
    roll = critical_roll(sheet, state, attribute)
    dice, kept = roll_dice(rng, roll, f"critical {attribute}")
    lead = f"{who} loses {on_hp} HP and takes {critical} critical harm: {attribute} test on {roll.words} rolled {kept}"
    if roll.sides and kept >= DN_DEFAULT:
        return Harmed(state, "critical_pass", f"{lead}, passed.", dice)
    lowered = step(die_of(state, attribute), -1)
    if lowered is None:
        state["dead"] = True
        return Harmed(state, "dead", f"{lead}, failed: {attribute} falls below d4. {who} is dead.", dice)
    state["attributes"][attribute]["die"] = lowered
    state["out"] = True
    summary = f"{lead}, failed: {attribute} drops to d{lowered}; taken out of the fight, dying without treatment."
    return Harmed(state, "critical_fail", summary, dice)


def harm_odds(sheet: Sheet, raw: Dist, attribute: str, armour_value: int) -> Odds:
    """Exact chances of each harm outcome for a distribution of harm before armour."""
    state = st(sheet)
    hp = effective_hp(sheet, state)
    mode = setting(sheet, ARMOUR_SPILL)
    crit_pass = pass_chance(critical_roll(sheet, state, attribute), DN_DEFAULT)
    fail_key = "critical_fail" if step(die_of(state, attribute), -1) is not None else "dead"
    out = dict.fromkeys(HARM_OUTCOMES, Fraction(0))
    for value, p in raw.items():
        on_hp, critical = split_harm(value, hp, armour_value, mode)
        if critical:
            out["critical_pass"] += p * crit_pass
            out[fail_key] += p * (1 - crit_pass)
        else:
            out["hp_harm" if on_hp else "no_harm"] += p
    return Odds(tuple((k, v) for k, v in out.items() if v), success_keys=("no_harm", "hp_harm", "critical_pass"))


def attacks_dist(dice: Sequence[tuple[int, int]]) -> Dist:
    """The highest of several damage dice, each ``(sides, net ADV - DIS)``: a net ADV rolls more of that die and
    keeps the highest, a net DIS keeps the lowest (seed 001, Advantage and Disadvantage)."""
    out = constant(0)
    for sides, net in dice:
        pool, how = adv_dis_pool(sides, net)
        out = combine(out, pool_dist(pool, how), max)
    return out


def roll_attack_die(rng: RandomSource, sides: int, net: int, label: str) -> tuple[tuple[DieRoll, ...], int]:
    pool, how = adv_dis_pool(sides, net)
    return roll_pool(rng, pool, how, [label] * len(pool))


@dataclass(frozen=True)
class TakeHarmProcedure:
    """Seed 001 (Harm and Death): harm already rolled, taken to HP then as critical harm."""

    key: str = "take_harm"
    label: str = "Take harm"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("amount", "Harm", "int", 1, 0, HARM_MAX),
            Param("armour", "Your armour counts", "bool", True, help="Off for harm armour does not stop."),
            Param("attribute", "Critical harm tests", "choice", "STR", choices=ATTRIBUTE_CHOICES),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        if st(sheet)["dead"]:
            raise Settled("The dead take no more harm.")
        return harm_odds(sheet, {p["amount"]: Fraction(1)}, p["attribute"], armour(sheet) if p["armour"] else 0)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        harmed = apply_harm(sheet, p["amount"], p["attribute"], armour(sheet) if p["armour"] else 0, rng)
        details = {"harm": p["amount"], "armour": armour(sheet) if p["armour"] else 0}
        return RollResult(
            self.key,
            self.label,
            harmed.outcome,
            harmed.summary,
            harmed.dice,
            None,
            odds,
            shown_inputs(p),
            harmed.state,
            details,
        )


@dataclass(frozen=True)
class NpcAttackProcedure:
    """Seed 001 (Attacks; Detachments): NPCs attack you; a detachment has ADV against individuals."""

    key: str = "npc_attack"
    label: str = "Attacked"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("die", "Their damage die", "choice", "6", choices=DIE_CHOICES),
            Param(
                "attackers", "Attackers on you", "int", 1, 1, ATTACKERS_MAX, help="+1 harm for each beyond the first."
            ),
            Param("detachment", "A detachment attacks", "bool", False, help="ADV against an individual."),
            Param("attribute", "Critical harm tests", "choice", "STR", choices=ATTRIBUTE_CHOICES),
        )

    def _raw(self, p: Mapping[str, Any]) -> Dist:
        best = attacks_dist([(int(p["die"]), 1 if p["detachment"] else 0)] * p["attackers"])
        return {v + p["attackers"] - 1: q for v, q in best.items()}

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        if st(sheet)["dead"]:
            raise Settled("The dead take no more harm.")
        return harm_odds(sheet, self._raw(p), p["attribute"], armour(sheet))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        dice: list[DieRoll] = []
        best = 0
        for n in range(p["attackers"]):
            rolled, kept = roll_attack_die(rng, int(p["die"]), 1 if p["detachment"] else 0, f"attacker {n + 1}")
            dice += rolled
            best = max(best, kept)
        raw = best + p["attackers"] - 1
        harmed = apply_harm(sheet, raw, p["attribute"], armour(sheet), rng)
        summary = (
            f"Highest die {best}, +{p['attackers'] - 1} for more attackers, armour {armour(sheet)}. {harmed.summary}"
        )
        return RollResult(
            self.key,
            self.label,
            harmed.outcome,
            summary,
            (*dice, *harmed.dice),
            raw,
            odds,
            shown_inputs(p),
            harmed.state,
            {"raw": raw},
        )


@dataclass(frozen=True)
class AttackDie:
    sides: int
    net: int  # ADV - DIS
    label: str
    item: Item | None  # the attacker's own weapon (a pure-iron one may break)


def _weapons(sheet: Sheet) -> dict[str, Item]:
    return {entry_key(it, i, "i"): it for i, it in enumerate(sheet.items) if damage_die(it)}


@dataclass(frozen=True)
class AttackProcedure:
    """Seed 001 (Attacks): roll every attacker's and weapon's die, keep the highest, +1 harm per extra
    attacker (not per extra weapon), minus the target's armour (spec §001.11.6 [REC]: the +1s before armour)."""

    key: str = "attack"
    label: str = "Attack"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        weapons = tuple((k, f"{it.name} (d{damage_die(it)})") for k, it in _weapons(sheet).items())
        first = weapons or (("", "No weapon"),)
        return (
            Param("weapon", "Weapon", "choice", first[0][0], choices=first),
            Param("second", "A second weapon", "choice", "", choices=(("", "None"), *weapons), help="No extra harm."),
            Param("ally", "Another character attacks too", "character", help="Their best weapon joins in."),
            Param("others", "Other attackers on the target", "int", 0, 0, ATTACKERS_MAX),
            Param("others_die", "Their damage die", "choice", "6", choices=DIE_CHOICES),
            Param("target", "Target character", "character"),
            Param("target_armour", "Or the target's armour", "int", 0, 0, MAX_ARMOUR),
            Param("detachment", "The target is a detachment", "bool", False, help="DIS unless the weapon has blast."),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[list[AttackDie], int, int]:
        """Every damage die with its net ADV/DIS: DIS against a detachment unless that weapon has blast
        (seed 001, Detachments), DIS on the dice of someone over their slots (Item Slots)."""
        state = st(sheet)
        can_act(state)
        weapons = _weapons(sheet)
        chosen = [weapons.get(p["weapon"])] + ([weapons.get(p["second"])] if p["second"] else [])
        if not p["weapon"]:
            raise RulesError("You carry no weapon with a damage die.")
        if any(w is None for w in chosen):
            raise RulesError("That weapon is not on this sheet.")
        if p["second"] and p["second"] == p["weapon"]:
            raise RulesError("Pick two different weapons, or one.")
        detachment = bool(p["detachment"])

        def net(item: Item | None, loaded: bool) -> int:
            blast = item is not None and bool(item.data.get("blast"))
            return -(1 if detachment and not blast else 0) - (1 if loaded else 0)

        mine_over = over_slots(sheet, state)
        dice = [AttackDie(damage_die(w), net(w, mine_over), w.name, w) for w in chosen if w is not None]
        attackers = 1 + p["others"]
        ally = p.get("ally")
        if isinstance(ally, Sheet):
            ally_state = st(ally)
            can_act(ally_state)
            best = max(ally.items, key=damage_die, default=None)
            if best is None or not damage_die(best):
                raise RulesError(f"{ally.name or 'Your ally'} has no weapon with a damage die.")
            dice.append(AttackDie(damage_die(best), net(best, over_slots(ally, ally_state)), ally.name or "ally", None))
            attackers += 1
        dice += [
            AttackDie(int(p["others_die"]), net(None, False), f"attacker {n + 2}", None) for n in range(p["others"])
        ]
        target = p.get("target")
        target_armour = armour(target) if isinstance(target, Sheet) else p["target_armour"]
        return dice, attackers, target_armour

    def _dist(self, sheet: Sheet, p: Mapping[str, Any]) -> Dist:
        dice, attackers, target_armour = self._setup(sheet, p)
        best = attacks_dist([(d.sides, d.net) for d in dice])
        out: Dist = {}
        for v, q in best.items():
            harm = max(0, v + attackers - 1 - target_armour)
            out[harm] = out.get(harm, Fraction(0)) + q
        return out

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return Odds(tuple((f"{h}_harm", q) for h, q in sorted(self._dist(sheet, p).items())), success_keys=())

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        dice, attackers, target_armour = self._setup(sheet, p)
        rolled: list[DieRoll] = []
        best = 0
        broken: list[Item] = []
        for die in dice:
            group, kept = roll_attack_die(rng, die.sides, die.net, die.label)
            rolled += group
            best = max(best, kept)
            item = die.item
            if item is not None and item.data.get("pure_iron") and any(d.face == 1 for d in group):
                broken.append(item)
        harm = max(0, best + attackers - 1 - target_armour)
        summary = f"Highest die {best}"
        if attackers > 1:
            summary += f", +{attackers - 1} for the other attackers"
        summary += f", minus armour {target_armour}: {harm} harm."
        if any(d.net < 0 for d in dice):
            summary += " (Some dice had DIS: against a detachment, or over the slots.)"
        for item in broken:
            summary += f" The pure-iron {item.name} breaks on a 1."
        others: dict[str, Any] = {}
        target = p.get("target")
        extra: tuple[DieRoll, ...] = ()
        if isinstance(target, Sheet):
            # Armour was taken off above: the target's own split follows the table's reading of spilled harm.
            harmed = apply_harm(target, best + attackers - 1, "STR", target_armour, rng)
            others["target"] = harmed.state
            summary += f" {harmed.summary}"
            extra = harmed.dice
        removed = tuple(i.id for i in broken if i.id is not None)
        return RollResult(
            self.key,
            self.label,
            f"{harm}_harm",
            summary,
            (*rolled, *extra),
            harm,
            odds,
            shown_inputs(p),
            None,
            {"best": best, "attackers": attackers, "armour": target_armour},
            items_removed=removed,
            other_states=others,
        )


@dataclass(frozen=True)
class BlastProcedure:
    """Seed 001 (Blast): harm to several targets close together, rolled separately for each; if the number
    hit is unclear, the weapon's die says how many."""

    key: str = "blast"
    label: str = "Blast"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        blasts = tuple(
            (k, f"{it.name} (d{damage_die(it)})") for k, it in _weapons(sheet).items() if it.data.get("blast")
        ) or (("", "No blast weapon"),)
        return (
            Param("weapon", "Blast weapon", "choice", blasts[0][0], choices=blasts),
            Param("targets", "Targets hit", "int", 0, 0, 12, help="0: roll the weapon's die to find out."),
            Param("armour", "Their armour", "int", 0, 0, MAX_ARMOUR),
        )

    def _weapon(self, sheet: Sheet, p: Mapping[str, Any]) -> Item:
        can_act(st(sheet))
        weapon = _weapons(sheet).get(p["weapon"])
        if weapon is None or not weapon.data.get("blast"):
            raise RulesError("Pick a blast weapon on this sheet.")
        return weapon

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        """The total harm dealt (each target's die less their armour, never below 0), over the number of
        targets given or, left at 0, over the weapon's die for how many."""
        p = clean_params(self, sheet, params)
        sides = damage_die(self._weapon(sheet, p))
        each: Dist = {}
        for face, q in die_dist(sides).items():
            harm = max(0, face - p["armour"])
            each[harm] = each.get(harm, Fraction(0)) + q
        counts = {p["targets"]: Fraction(1)} if p["targets"] else die_dist(sides)
        total: Dist = {}
        sum_of = constant(0)
        for n in range(1, max(counts) + 1):
            sum_of = combine(sum_of, each, lambda a, b: a + b)
            if n in counts:
                for harm, q in sum_of.items():
                    total[harm] = total.get(harm, Fraction(0)) + q * counts[n]
        return Odds(tuple((f"{h}_harm", q) for h, q in sorted(total.items())), success_keys=())

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        odds = self.odds(sheet, p)
        weapon = self._weapon(sheet, p)
        sides = damage_die(weapon)
        dice: list[DieRoll] = []
        count = p["targets"]
        if not count:
            first = roll_die(rng, sides, "targets")
            dice.append(first)
            count = first.face
        harms = []
        for n in range(count):
            d = roll_die(rng, sides, f"target {n + 1}")
            dice.append(d)
            harms.append(max(0, d.face - p["armour"]))
        summary = (
            f"{weapon.name} hits {count} target{'s' if count != 1 else ''}: "
            + ", ".join(f"{h} harm" for h in harms)
            + "."
        )
        outcome = f"{sum(harms)}_harm"
        return RollResult(
            self.key, self.label, outcome, summary, tuple(dice), count, odds, shown_inputs(p), None, {"harms": harms}
        )
