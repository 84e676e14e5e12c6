"""Chaos & Conquest saves (seed 002, Saves; Advantage & Disadvantage; Pushing; Opposed Saves; Party Saves).

D20 at or under the attribute.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import Odds, Param, RollResult, RulesError, Sheet, clean_params, shown_inputs
from rules.dice import RandomSource, UnderMode, roll_under, roll_under_chance, roll_under_kept_dist, roll_under_succeeds
from rules.systems.chaos_conquest.effects import (
    DEATH,
    _able,
    _add_stress,
    _drop_param,
    _Effects,
    _stress_fates,
)
from rules.systems.chaos_conquest.inventory import _dex_disadvantage, _free_slots, _slots_max
from rules.systems.chaos_conquest.state import ATTRIBUTE_CHOICES, _cur, _st, light_at_table


def _push_kills(save: _Save | None, state: Mapping[str, Any]) -> bool:
    """Seed 002 (Pushing; Inventory & Stress): the push's stress fills the last slot, so every slot holds stress."""
    return save is not None and save.push and state["stress"] + 1 >= _slots_max(state)


def _mode(advantage: bool, disadvantage: bool) -> UnderMode:
    """Seed 002, Advantage & Disadvantage: any of both, in any numbers, is a plain d20."""
    if advantage and not disadvantage:
        return "advantage"
    if disadvantage and not advantage:
        return "disadvantage"
    return "plain"


def save_chance(target: int, mode: UnderMode = "plain") -> Fraction:
    """Seed 002, Saves: d20 <= the attribute; 1 always succeeds, 20 always fails."""
    return roll_under_chance(target, mode)


def opposed_odds(pc: int, pc_mode: UnderMode, skill: int, npc_mode: UnderMode = "plain") -> dict[str, Fraction]:
    """Seed 002, Opposed Saves: the highest successful roll wins; both fail = worse for both; equal
    successes = the GM decides (spec §002.4.5, §002.13.3). Advantage keeps the best die (§002.4.3)."""
    out = dict.fromkeys(("win", "gm_decides", "lose", "both_fail"), Fraction(0))
    npc = roll_under_kept_dist(skill, npc_mode)
    for fa, pa in roll_under_kept_dist(pc, pc_mode).items():
        for fb, pb in npc.items():
            out[_opposed(fa, pc, fb, skill)] += pa * pb
    return out


def _opposed(face: int, target: int, npc_face: int, skill: int) -> str:
    mine, theirs = roll_under_succeeds(face, target), roll_under_succeeds(npc_face, skill)
    if mine and theirs:
        return "win" if face > npc_face else "lose" if face < npc_face else "gm_decides"
    if mine or theirs:
        return "win" if mine else "lose"
    return "both_fail"


@dataclass(frozen=True)
class _Save:
    attribute: str
    target: int
    mode: UnderMode
    push: bool
    may_auto: bool  # talent (or a push in its place) plus equipment: the GM may rule it a success
    auto: bool
    notes: tuple[str, ...]


def _save_params(sheet: Sheet, default: str = "STR", *, push: bool = True, auto: bool = True) -> tuple[Param, ...]:
    talents = tuple((t, t) for t in _st(sheet)["talents"])
    out = [
        Param("attribute", "Attribute", "choice", default, choices=ATTRIBUTE_CHOICES),
        Param("talent", "A talent that applies", "choice", "", choices=(("", "none"), *talents), help="Advantage."),
        Param("equipment", "Using equipment that helps", "bool", False, help="Advantage (a crowbar on a door)."),
        Param("advantage", "Other advantage", "bool", False),
        Param("disadvantage", "Disadvantage", "bool", False, help="Any advantage and disadvantage cancel out."),
    ]
    if push:
        out.append(
            Param("push", "Push: take a stress for advantage", "bool", False, help="Needs an empty slot.", resets=True)
        )
    if auto:
        out.append(
            Param(
                "auto_success",
                "GM rules it an automatic success",
                "bool",
                False,
                gm_only=True,
                help="Allowed with a talent (or a push) and the right equipment.",
            )
        )
    return tuple(out)


def _save_setup(sheet: Sheet, state: Mapping[str, Any], p: Mapping[str, Any]) -> _Save:
    """Seed 002 (Saves; Talents; Pushing a Character): work out the target and advantage of a save."""
    _able(state)
    attribute = p["attribute"]
    notes: list[str] = []
    talent = p.get("talent") or ""
    if talent and talent not in state["talents"]:
        raise RulesError(f"You do not have the talent {talent}.")
    push = bool(p.get("push"))
    if push and _free_slots(sheet, state) < 1:
        raise RulesError("Pushing needs an empty inventory slot for the stress, and every slot is full.")
    advantage = bool(talent or p.get("equipment") or p.get("advantage") or push)
    for flag, word in ((talent, f"talent {talent}"), (p.get("equipment"), "equipment"), (push, "pushing")):
        if flag:
            notes.append(f"{word}: advantage")
    disadvantage = bool(p.get("disadvantage"))
    if attribute == "DEX":
        armour = _dex_disadvantage(sheet, state)
        if armour:
            disadvantage = True
            notes.append(armour)
    if light_at_table(sheet) == "darkness":  # equipment.md, Light: saves in darkness are at disadvantage
        disadvantage = True
        notes.append("darkness: disadvantage")
    mode = _mode(advantage, disadvantage)
    if advantage and disadvantage:
        notes.append("advantage and disadvantage cancel: one d20")
    may_auto = bool(p.get("equipment")) and bool(talent or push)
    auto = bool(p.get("auto_success"))
    if auto and not may_auto:
        raise RulesError("An automatic success needs a talent (or a push in its place) and the right equipment.")
    return _Save(attribute, _cur(state, attribute), mode, push, may_auto, auto, tuple(notes))


def _save_odds(save: _Save) -> Odds:
    if save.auto:
        return Odds((("pass", Fraction(1)), ("fail", Fraction(0))))
    p = save_chance(save.target, save.mode)
    return Odds((("pass", p), ("fail", 1 - p)))


def _kept(mode: str) -> str:
    """One d20 is "rolled"; with advantage or disadvantage two are rolled and one is "kept"."""
    return "rolled" if mode == "plain" else "kept"


def _verdict(ok: bool) -> str:
    return "success" if ok else "failure"


def _roll_save(fx: _Effects, save: _Save, rng: RandomSource) -> tuple[bool, int | None]:
    """Roll it (pushing first), adding the dice to ``fx``; returns (success, kept face)."""
    if save.push:
        _add_stress(fx, 1, (), rng, "Pushed")
        if fx.state["status"] == "dead":
            return False, None  # the push's stress filled the last slot: nobody is left to roll
    if save.auto:
        fx.say(f"{save.attribute} save: the GM rules an automatic success.")
        return True, None
    dice, ok, face = roll_under(rng, save.target, save.mode, label=save.attribute)
    fx.dice += dice
    how = "" if save.mode == "plain" else f" with {save.mode}"
    if "darkness: disadvantage" in save.notes:
        how += " (in darkness)" if save.mode == "disadvantage" else " (darkness cancelled by advantage)"
    fx.say(f"{save.attribute} save{how}: {_kept(save.mode)} {face}, needing {save.target} or less: {_verdict(ok)}.")
    return ok, face


@dataclass(frozen=True)
class SaveProcedure:
    """Seed 002, Saves: d20 at or under the attribute; 1 always succeeds, 20 always fails."""

    key: str = "save"
    label: str = "Save"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return _save_params(sheet)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        state = _st(sheet)
        save = _save_setup(sheet, state, p)
        return DEATH if _push_kills(save, state) else _save_odds(save)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        fx = _Effects(sheet)
        save = _save_setup(sheet, fx.state, p)
        odds = self.odds(sheet, p)
        ok, face = _roll_save(fx, save, rng)
        if fx.state["status"] == "dead":
            return fx.result(self, "dies", odds, shown_inputs(p))
        if save.may_auto and not save.auto:
            fx.say("Talent and equipment together: the GM may rule this an automatic success.")
        fx.details.update(
            {"target": save.target, "mode": save.mode, "notes": list(save.notes), "gm_may_grant_success": save.may_auto}
        )
        return fx.result(self, "pass" if ok else "fail", odds, shown_inputs(p), total=face)


_OPPOSED_WORDS = {
    "win": "you win",
    "lose": "they win",
    "gm_decides": "equal successes: the GM decides",
    "both_fail": "both fail: things get worse and more tangled for both",
}


@dataclass(frozen=True)
class OpposedSaveProcedure:
    """Seed 002, Opposed Saves: both sides save (NPCs on Skill); the highest successful roll wins."""

    key: str = "opposed_save"
    label: str = "Opposed save"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            *_save_params(sheet, auto=False),
            Param("skill", "Their Skill", "int", 10, 1, 18, help="The NPC's one save score (18 at most)."),
            Param(
                "npc_mode",
                "Their roll",
                "choice",
                "plain",
                choices=(("plain", "one d20"), ("advantage", "advantage"), ("disadvantage", "disadvantage")),
                help="NPCs cannot push.",
            ),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[_Save, Odds]:
        state = _st(sheet)
        save = _save_setup(sheet, state, p)
        if _push_kills(save, state):
            return save, DEATH
        o = opposed_odds(save.target, save.mode, p["skill"], p["npc_mode"])
        return save, Odds(tuple(o.items()), success_keys=("win",))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, clean_params(self, sheet, params))[1]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        fx = _Effects(sheet)
        save, odds = self._setup(sheet, p)
        _, face = _roll_save(fx, save, rng)
        if fx.state["status"] == "dead":
            return fx.result(self, "dies", odds, shown_inputs(p))
        npc_dice, npc_ok, npc_face = roll_under(rng, p["skill"], p["npc_mode"], label="NPC Skill")
        fx.dice += npc_dice
        assert face is not None
        outcome = _opposed(face, save.target, npc_face, p["skill"])
        npc_roll = f"{_kept(p['npc_mode'])} {npc_face}, needing Skill {p['skill']} or less"
        fx.say(f"They {npc_roll}: {_verdict(npc_ok)}; ")
        fx.words[-1] += _OPPOSED_WORDS[outcome] + "."
        fx.details.update({"target": save.target, "mode": save.mode, "npc_face": npc_face, "notes": list(save.notes)})
        return fx.result(self, outcome, odds, shown_inputs(p), total=face)


PARTY_MEMBERS = 6


def _failures_dist(chances: Sequence[Fraction]) -> dict[int, Fraction]:
    """How many of the members fail, each failing independently with 1 - chance."""
    dist = {0: Fraction(1)}
    for c in chances:
        nxt: dict[int, Fraction] = {}
        for k, p in dist.items():
            nxt[k] = nxt.get(k, Fraction(0)) + p * c
            nxt[k + 1] = nxt.get(k + 1, Fraction(0)) + p * (1 - c)
        dist = nxt
    return dist


@dataclass(frozen=True)
class PartySaveProcedure:
    """Seed 002, Party Saves: everyone saves, the best result counts for the group (any success
    passes, spec §002.4.6 [REC]); the leader, whose sheet this is, takes a stress per member who failed."""

    key: str = "party_save"
    label: str = "Party save (leader)"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        members = tuple(Param(f"member{i}", f"Party member {i}", "character") for i in range(1, PARTY_MEMBERS + 1))
        return (
            Param("attribute", "Attribute", "choice", "DEX", choices=ATTRIBUTE_CHOICES),
            Param("advantage", "Advantage for everyone", "bool", False),
            Param("disadvantage", "Disadvantage for everyone", "bool", False, help="Darkness counts on its own."),
            *members,
            _drop_param(sheet),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[list[tuple[str, int, UnderMode]], Odds]:
        a = p["attribute"]
        people: list[tuple[str, int, UnderMode]] = []
        for who in (sheet, *(p[f"member{i}"] for i in range(1, PARTY_MEMBERS + 1))):
            if who is None:
                continue
            st = _st(who)
            if who is sheet:
                _able(st)
            if st["status"] != "fine":
                continue  # the dying and the dead take no part
            dark = light_at_table(who) == "darkness"  # equipment.md, Light
            dis = bool(p["disadvantage"]) or dark or bool(a == "DEX" and _dex_disadvantage(who, st))
            people.append((who.name or "someone", _cur(st, a), _mode(bool(p["advantage"]), dis)))
        leader_pass = save_chance(people[0][1], people[0][2])
        chances = [save_chance(t, m) for _, t, m in people[1:]]
        all_fail = (1 - leader_pass) * math.prod((1 - c for c in chances), start=Fraction(1))
        fails = _failures_dist(chances)
        outcomes: dict[str, Fraction] = {}
        for k in sorted(fails):
            # P(party fails and k members fail) is nonzero only when everyone fails (k = all members).
            failed = all_fail if k == len(chances) else Fraction(0)
            # The leader's stress can fill the last slot, or find none and cost d6 damage each.
            fates = _stress_fates(sheet, k, p["drop"])
            for name, q in ((f"pass_stress_{k}", fails[k] - failed), ("fail", failed)):
                base = "pass" if name != "fail" else "fail"
                outcomes[name] = outcomes.get(name, Fraction(0)) + q * fates.get("fine", Fraction(0))
                for fate in ("dying", "dead"):
                    key = f"{base}_leader_{'dies' if fate == 'dead' else 'dying'}"
                    outcomes[key] = outcomes.get(key, Fraction(0)) + q * fates.get(fate, Fraction(0))
        rows = tuple((k, v) for k, v in outcomes.items() if v or k == "fail")
        keys = tuple(k for k, _ in rows if k.startswith("pass"))
        return people, Odds(rows, success_keys=keys)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        return self._setup(sheet, clean_params(self, sheet, params))[1]

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        people, odds = self._setup(sheet, p)
        fx = _Effects(sheet)
        results = []
        for i, (name, target, mode) in enumerate(people):
            label = "leader" if i == 0 else name
            dice, ok, face = roll_under(rng, target, mode, label=f"{p['attribute']}: {label}")
            fx.dice += dice
            results.append({"who": label, "target": target, "face": face, "success": ok})
        passed = any(r["success"] for r in results)
        failed_members = sum(1 for r in results[1:] if not r["success"])
        fx.say(f"Party {p['attribute']} save: {'the party succeeds' if passed else 'everyone fails'}.")
        _add_stress(fx, failed_members, p["drop"], rng, f"{failed_members} member(s) failed; the leader covers")
        fx.details.update({"results": results, "failed_members": failed_members})
        outcome = f"pass_stress_{failed_members}" if passed else "fail"
        if fx.state["status"] in ("dead", "dying"):
            outcome = f"{'pass' if passed else 'fail'}_leader_{'dies' if fx.state['status'] == 'dead' else 'dying'}"
        return fx.result(self, outcome, odds, shown_inputs(p))
