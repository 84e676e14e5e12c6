"""Fell (draft): checks. See the package docstring for sources and readings."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.base import (
    Hireling,
    Item,
    Odds,
    Param,
    Procedure,
    RollResult,
    RulesError,
    Sheet,
    clean_params,
    entry_key,
    shown_inputs,
)
from rules.dice import (
    LADDER,
    DieRoll,
    RandomSource,
    dice_label,
    die_dist,
)
from rules.errors import Settled
from rules.systems.fell_draft.harm import apply_harm
from rules.systems.fell_draft.inventory import _auto_disadvantage, _hireling_state, _steel
from rules.systems.fell_draft.pools import (
    Pool,
    PoolDie,
    _net,
    _roll_pool,
    contest_chances,
    contest_winner,
    pass_chance,
    shift_dice,
)
from rules.systems.fell_draft.settings import setting
from rules.systems.fell_draft.state import ABILITIES, DN_DEFAULT, DN_MAX, DN_MIN, SHIFT_MAX, _die_of, _is_dead, _st

ABILITY_CHOICES = tuple((ab, ab) for ab in ABILITIES)


DIE_CHOICES = tuple((str(s), f"d{s}") for s in LADDER)


NO = ("", "None")


def _weapons(sheet: Sheet) -> dict[str, Item]:
    return {entry_key(it, i, "i"): it for i, it in enumerate(sheet.items) if _steel(it)}


def _hirelings(sheet: Sheet) -> dict[str, Hireling]:
    return {entry_key(h, i, "h"): h for i, h in enumerate(sheet.hirelings)}


def _help_die(state: Mapping[str, Any]) -> int:
    """A hireling helps with its best steel, skill (its INT die) or spell die (seed 000, Help/Hirelings)."""
    return max(state["steel_die"], _die_of(state, "INT"), state["spell_die"])


def _helps_with_spell(state: Mapping[str, Any]) -> bool:
    """A hireling reaches for its spell die only when no steel or skill die is as big (it can backlash)."""
    return state["spell_die"] > max(state["steel_die"], _die_of(state, "INT"))


def _ability_param(name: str = "ability", label: str = "Ability", default: str = "BOD") -> Param:
    return Param(name, label, "choice", default, choices=ABILITY_CHOICES)


def _shift_params() -> tuple[Param, ...]:
    return (
        Param("advantage", "Advantages", "int", 0, 0, SHIFT_MAX, help="Each steps every die up one rung."),
        Param("disadvantage", "Disadvantages", "int", 0, 0, SHIFT_MAX, help="Each steps every die down."),
        Param("decline_advantage", "Decline advantage", "bool", False, help="Advantage is optional."),
    )


def _dn_param() -> Param:
    return Param("dn", "Difficulty number", "int", DN_DEFAULT, DN_MIN, DN_MAX, help="Usually 4.", gm_only=True)


def _pool_params(sheet: Sheet, *, spell: bool = True) -> tuple[Param, ...]:
    state = _st(sheet)
    weapons = tuple((k, f"{it.name} (d{_steel(it)})") for k, it in _weapons(sheet).items())
    out = [
        Param("steel", "Steel die", "choice", "", choices=(NO, *weapons)),
        Param(
            "skills",
            "Skills that apply",
            "multichoice",
            (),
            choices=tuple((s, s) for s in state["skills"]),
            help="Adds your skill die; two or more overlapping skills give advantage.",
        ),
    ]
    if spell:
        out.append(Param("spell_die", "Add your spell die", "bool", False, help="It can backlash."))
    out += [
        Param(
            "helpers",
            "Hirelings helping",
            "multichoice",
            (),
            choices=tuple((k, h.name) for k, h in _hirelings(sheet).items()),
        ),
        Param("helper", "Another character helping", "character"),
        Param(
            "helper_die",
            "The helper adds",
            "choice",
            "skill",
            choices=(("steel", "their steel die"), ("skill", "their skill die"), ("spell", "their spell die")),
        ),
    ]
    return tuple(out)


def _check_dn(dn: Any) -> int:
    if isinstance(dn, bool) or not isinstance(dn, int) or not DN_MIN <= dn <= DN_MAX:
        raise RulesError(f"The difficulty number must be a whole number from {DN_MIN} to {DN_MAX}.")
    return dn


def _helper_die(helper: Sheet, kind: str) -> PoolDie:
    """Seed 000 (Help): the helper rolls an applicable steel, skill or spell die of their own."""
    hstate = _st(helper)
    who = helper.name or "helper"
    if kind == "steel":
        best = max((_steel(i) for i in helper.items), default=0)
        if not best:
            raise RulesError(f"{who} has no weapon with a steel die.")
        return PoolDie(best, f"helper {who}: steel", "helper")
    if kind == "spell":
        if not hstate["spell_die"]:
            raise RulesError(f"{who} has no spell die.")
        return PoolDie(hstate["spell_die"], f"helper {who}: spell", "spell", "helper")
    return PoolDie(_die_of(hstate, "INT"), f"helper {who}: skill", "helper")


def _build_pool(
    sheet: Sheet,
    p: Mapping[str, Any],
    *,
    ability: str,
    spell_die: int = 0,
    strict: bool = False,
) -> Pool:
    """A test pool (seed 000, Tasks and Tests/Skills/Help): ability die, at most one steel, skill and
    spell die each (spec §000.12.1 [REC]), helpers' dice, then the net advantage shift."""
    state = _st(sheet)
    if _is_dead(state):
        raise Settled("The dead make no tests.")
    if state["dying"]:
        raise RulesError("An unconscious, dying character cannot act until treated.")
    base = [PoolDie(_die_of(state, ability), ability, "ability")]
    notes: list[str] = []
    extra = 0
    if p.get("steel"):
        weapon = _weapons(sheet).get(p["steel"])
        if weapon is None:
            raise RulesError("That weapon is not on this sheet.")
        base.append(PoolDie(_steel(weapon), f"steel: {weapon.name}", "steel"))
        extra += 1
    skills = tuple(p.get("skills") or ())
    unknown = [s for s in skills if s not in state["skills"]]
    if unknown:
        raise RulesError(f"You do not know the skill {', '.join(unknown)}.")
    advantage = int(p.get("advantage", 0))
    if skills:
        base.append(PoolDie(_die_of(state, "INT"), f"skill: {', '.join(skills)}", "skill"))
        extra += 1
        if len(skills) >= 2:  # spec §000.5.2 [REC]: overlap gives one advantage, not one per skill
            advantage += 1
            notes.append("overlapping skills: advantage")
    if spell_die:
        base.append(PoolDie(spell_die, "spell", "spell"))
        extra += 1
    if strict and extra > 1:
        raise RulesError("Under the strict reading a test takes only one steel, skill or spell die.")
    hired = _hirelings(sheet)
    for key in p.get("helpers") or ():
        h = hired.get(key)
        if h is None:
            raise RulesError("That hireling is not on this sheet.")
        hstate = _hireling_state(h)
        if _helps_with_spell(hstate):  # it is using its spell die, so that die can backlash on it
            base.append(PoolDie(hstate["spell_die"], f"helper {h.name}: spell", "spell", f"h:{key}"))
        else:
            base.append(PoolDie(_help_die(hstate), f"helper {h.name}", "helper"))
    if isinstance(p.get("helper"), Sheet):
        base.append(_helper_die(p["helper"], p.get("helper_die") or "skill"))
    dis, why = _auto_disadvantage(sheet, state)
    notes.extend(why)
    net, notes = _net(advantage, int(p.get("disadvantage", 0)) + dis, bool(p.get("decline_advantage")), notes)
    return shift_dice(base, net, notes)


def _spell_test_odds(pool: Pool, dn: int) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(pass, pass with backlash, fail, fail with backlash) for a pool holding spell dice.

    Seed 000 (Spells): backlash when a spell die shows more than the test's ability die (a missing
    ability die counts as 0); every spell die in the pool can backlash, the roller's or a helper's.
    For each ability face ``a``: no backlash is every spell die at most ``a``, and a failure is every
    die below the DN, so both together are every spell die at most min(a, DN - 1).
    """
    ia = pool.index("ability")
    spells = [d.sides for d in pool.dice if d.role == "spell"]
    if not spells:
        p = pass_chance(pool.sides, dn)
        return p, Fraction(0), 1 - p, Fraction(0)
    rest_fail = 1 - pass_chance([d.sides for k, d in enumerate(pool.dice) if k != ia and d.role != "spell"], dn)
    a_dist = die_dist(pool.dice[ia].sides) if ia is not None else {0: Fraction(1)}
    out = [Fraction(0)] * 4
    for a, pa in a_dist.items():
        calm = math.prod((Fraction(min(a, s), s) for s in spells), start=Fraction(1))
        fail = calm_fail = Fraction(0)
        if a < dn:
            fail = math.prod((Fraction(min(dn - 1, s), s) for s in spells), start=rest_fail)
            calm_fail = math.prod((Fraction(min(a, dn - 1, s), s) for s in spells), start=rest_fail)
        out[0] += pa * (calm - calm_fail)
        out[1] += pa * (1 - calm - (fail - calm_fail))
        out[2] += pa * calm_fail
        out[3] += pa * (fail - calm_fail)
    return out[0], out[1], out[2], out[3]


def _lashes(pool: Pool, dice: Sequence[DieRoll]) -> dict[str, int]:
    """Seed 000 (Spells): each spell die's result minus the test's ability die result, if positive,
    by the die's owner ("" the roller, "helper", "h:<hireling key>")."""
    ia = pool.index("ability")
    ability_face = dice[ia].face if ia is not None else 0
    out: dict[str, int] = {}
    for d, rolled in zip(pool.dice, dice, strict=True):
        if d.role == "spell" and rolled.face > ability_face:
            out[d.owner] = out.get(d.owner, 0) + rolled.face - ability_face
    return out


def _backlash(pool: Pool, dice: Sequence[DieRoll]) -> int:
    """Seed 000 (Spells): the roller's own spell die result minus the test's ability die result, if positive."""
    return _lashes(pool, dice).get("", 0)


def _helper_lashes(
    sheet: Sheet, p: Mapping[str, Any], pool: Pool, dice: Sequence[DieRoll], rng: RandomSource
) -> tuple[tuple[DieRoll, ...], str, dict[str, Any], dict[str, Any], tuple[Hireling, ...]]:
    """Backlash on whoever lent a spell die (seed 000, Spells: "whenever using your spell die").

    Returns the critical-test dice, words for the summary, details, the helping character's new state
    by param name, and the hirelings whose sheets changed.
    """
    more: tuple[DieRoll, ...] = ()
    words: list[str] = []
    details: dict[str, Any] = {}
    states: dict[str, Any] = {}
    hired: list[Hireling] = []
    hirelings = _hirelings(sheet)
    for owner, lash in _lashes(pool, dice).items():
        if not owner:
            continue
        if owner == "helper":
            helper = p["helper"]
            harm = apply_harm(helper, lash, "WIL", rng)
            states["helper"] = harm.state
            who = helper.name or "The helper"
        else:
            h = hirelings[owner[2:]]
            harm = apply_harm(Sheet(state=_hireling_state(h), name=h.name), lash, "WIL", rng)
            hired.append(dataclasses.replace(h, state=harm.state))
            who = h.name
        more += harm.dice
        words.append(f" {who}'s spell die backlashes {lash}: {harm.summary}")
        details.setdefault("helper_backlash", {})[who] = lash
    return more, "".join(words), details, states, tuple(hired)


def _test_odds(pool: Pool, dn: int) -> Odds:
    if pool.index("spell") is None:
        p = pass_chance(pool.sides, dn)
        return Odds((("pass", p), ("fail", 1 - p)))
    pp, pb, fp, fb = _spell_test_odds(pool, dn)
    return Odds(
        (("pass", pp), ("pass_backlash", pb), ("fail", fp), ("fail_backlash", fb)),
        success_keys=("pass", "pass_backlash"),
    )


def _pool_words(pool: Pool) -> str:
    words = dice_label(pool.sides)
    return f"{words} ({'; '.join(pool.notes)})" if pool.notes else words


@dataclass(frozen=True)
class TestProcedure:
    """Seed 000 (Tasks and Tests): roll the pool, highest single die against the DN (usually 4)."""

    key: str = "test"
    label: str = "Test"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            _ability_param(),
            *_pool_params(sheet),
            *_shift_params(),
            _dn_param(),
        )

    def _pool(self, sheet: Sheet, p: Mapping[str, Any]) -> Pool:
        state = _st(sheet)
        spell = 0
        if p["spell_die"]:
            if not state["spell_die"]:
                raise RulesError("You have no spell die yet; pick its size first.")
            spell = state["spell_die"]
        return _build_pool(
            sheet, p, ability=p["ability"], spell_die=spell, strict=setting(sheet, "extra_die_rule") == "one_only"
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return _test_odds(self._pool(sheet, p), _check_dn(p["dn"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        dn = _check_dn(p["dn"])
        pool = self._pool(sheet, p)
        odds = _test_odds(pool, dn)
        dice, best = _roll_pool(rng, pool)
        passed = bool(dice) and best >= dn
        summary = f"{p['ability']} test with {_pool_words(pool)}: best {best} against DN {dn}, "
        summary += "passed." if passed else "failed; trouble comes."
        state = None
        details: dict[str, Any] = {"dn": dn, "best": best, "net_shift": pool.net, "notes": list(pool.notes)}
        lash = _backlash(pool, dice)
        outcome = "pass" if passed else "fail"
        rolled = dice
        if lash:
            harm = apply_harm(sheet, lash, "WIL", rng)
            dice += harm.dice
            state = harm.state
            summary += f" Spell backlash {lash}: {harm.summary}"
            details["backlash"] = lash
        more, words, lent, others, hired = _helper_lashes(sheet, p, pool, rolled, rng)
        dice += more
        summary += words
        details.update(lent)
        if lash or lent:
            outcome += "_backlash"
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            dice,
            best,
            odds,
            shown_inputs(p),
            state,
            details,
            hirelings_changed=hired,
            other_states=others,
        )


def _opponent_params(default_ability: str = "BOD") -> tuple[Param, ...]:
    return (
        Param("opponent", "Opposing character", "character"),
        _ability_param("opponent_ability", "Their ability", default_ability),
        Param(
            "opponent_extra",
            "Their extra die",
            "choice",
            "",
            choices=(NO, ("steel", "steel die"), ("skill", "skill die"), ("spell", "spell die")),
        ),
        Param("npc_die", "NPC's die (hit die)", "choice", "6", choices=DIE_CHOICES, help="When no character."),
        Param("npc_extra_die", "NPC's extra die", "choice", "", choices=(NO, *DIE_CHOICES)),
        Param("opponent_shift", "Their net advantage", "int", 0, -SHIFT_MAX, SHIFT_MAX),
    )


def _opponent_pool(p: Mapping[str, Any]) -> Pool:
    """The other side of a contest: a character's test pool, or an NPC's hit die (spec §000.5.4)."""
    opp = p.get("opponent")
    notes: list[str] = []
    net = int(p.get("opponent_shift", 0))
    if isinstance(opp, Sheet):
        state = _st(opp)
        who = opp.name or "opponent"
        ability = p.get("opponent_ability") or "BOD"
        base = [PoolDie(_die_of(state, ability), f"{who}: {ability}", "ability")]
        if p.get("opponent_extra"):
            die = _helper_die(opp, p["opponent_extra"])
            base.append(PoolDie(die.sides, f"{who}: {p['opponent_extra']}", p["opponent_extra"]))
        dis, why = _auto_disadvantage(opp, state)
        net -= dis
        notes.extend(f"{who}: {w}" for w in why)
    else:
        base = [PoolDie(int(p.get("npc_die") or 6), "NPC", "ability")]
        if p.get("npc_extra_die"):
            base.append(PoolDie(int(p["npc_extra_die"]), "NPC extra", "npc"))
    return shift_dice(base, net, notes)


def _contest_odds(mine: Pool, theirs: Pool, sheet: Sheet | None = None) -> Odds:
    win, lose, tie = contest_chances(mine.sides, theirs.sides, setting(sheet, "contest_tiebreak"))
    return Odds((("win", win), ("lose", lose), ("tie", tie)), success_keys=("win",))


_CONTEST_WORDS = {1: "win", -1: "lose", 0: "tie"}


@dataclass(frozen=True)
class ContestProcedure:
    """Seed 000 (Contests): both sides roll test pools; highest die wins, ties by the ladder."""

    key: str = "contest"
    label: str = "Contest"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (_ability_param(), *_pool_params(sheet), *_shift_params(), *_opponent_params())

    def _pools(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Pool, Pool]:
        state = _st(sheet)
        if p["spell_die"] and not state["spell_die"]:
            raise RulesError("You have no spell die yet; pick its size first.")
        spell = state["spell_die"] if p["spell_die"] else 0
        return _build_pool(sheet, p, ability=p["ability"], spell_die=spell), _opponent_pool(p)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = clean_params(self, sheet, params)
        return _contest_odds(*self._pools(sheet, p), sheet)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = clean_params(self, sheet, params)
        mine, theirs = self._pools(sheet, p)
        return _roll_contest(self, sheet, p, mine, theirs, rng)


def _roll_contest(
    proc: Procedure,
    sheet: Sheet,
    p: Mapping[str, Any],
    mine: Pool,
    theirs: Pool,
    rng: RandomSource,
    *,
    on_backlash: str = "harm",
) -> RollResult:
    odds = _contest_odds(mine, theirs, sheet)
    dice, best = _roll_pool(rng, mine)
    their_dice, their_best = _roll_pool(rng, theirs)
    result = contest_winner(dice, their_dice, setting(sheet, "contest_tiebreak"))
    outcome = _CONTEST_WORDS[result]
    summary = f"{_pool_words(mine)} rolled {best} against {_pool_words(theirs)} rolled {their_best}: "
    summary += {"win": "you win.", "lose": "they win.", "tie": "a dead heat, nothing changes."}[outcome]
    details: dict[str, Any] = {"best": best, "their_best": their_best, "their_dice": len(their_dice)}
    state = None
    rolled = dice
    lash = _backlash(mine, dice)
    if lash and on_backlash == "harm":
        harm = apply_harm(sheet, lash, "WIL", rng)
        state, summary = harm.state, f"{summary} Spell backlash {lash}: {harm.summary}"
        details["backlash"] = lash
        dice += harm.dice
    elif lash:
        details["backlash"] = lash
    more, words, lent, others, hired = _helper_lashes(sheet, p, mine, rolled, rng)
    dice, summary = dice + more, summary + words
    details.update(lent)
    their = tuple(DieRoll(d.sides, d.face, d.kept, d.label or "opponent") for d in their_dice)
    their_lash = _backlash(theirs, their_dice)
    opponent = p.get("opponent")
    if their_lash and isinstance(opponent, Sheet):  # their own spell die backlashes on them
        harm = apply_harm(opponent, their_lash, "WIL", rng)
        others["opponent"] = harm.state
        summary += f" Their spell die backlashes {their_lash}: {harm.summary}"
        details["their_backlash"] = their_lash
        their += harm.dice
    return RollResult(
        proc.key,
        proc.label,
        outcome,
        summary,
        dice + their,
        best,
        odds,
        shown_inputs(p),
        state,
        details,
        hirelings_changed=hired,
        other_states=others,
    )
