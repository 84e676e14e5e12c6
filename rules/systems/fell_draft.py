"""Fell (v0.4-era draft) by Jacob Densford: ability dice, ability points, steel dice and protection.

Rules from seed 000 ("Playing the Game", ../shared/seeds/000_72fc736675279766.txt), character
creation and tables from the published draft (fell/creating-a-character.md and fell/tables.md @ 80a18b5,
loaded as data in ``rules.data.fell_draft``), and the spec's [REC] readings (rules-spec.md §000).

State layout (a JSON-able dict, normalised by ``validate_state``)::

    {
      "abilities": {"BOD": {"die": 6, "full_die": 6, "points": 6}, "INT": {...}, "WIL": {...}},
      "hp": 4, "hp_max": 4,
      "skills": ["survival"], "spells": ["Comprehend"], "spell_die": 8,   # 0 = no spell die
      "coins": 12,
      "deprived": False, "days_deprived": 0, "fatigue": 0,
      "dying": False, "dead": False,                                   # dead also when points hit 0
      "protection_damage": 0,                                          # optional referee field
      "background": "Hunter", "age": 38, "traits": ["Athletic", ...],
      "hireling": False, "paid_up": False, "steel_die": 0, "equipment": [],  # hirelings only
    }

``die`` is the ability die now, ``full_die`` the die it returns to after a week's rest (critical harm
may lower ``die``); an ability's points run from 0 to the highest face of ``die``.

Items: weapons carry ``data={"steel_die": 6, "bulky": True, "blast": True}``, armour and shields
``data={"protection": 1}`` and count only when ``Item.worn``.

App helpers beyond the GameSystem protocol: ``SYSTEM.check_can_carry(sheet, item)`` (call before
adding an item; RulesError past twice the slots), ``SYSTEM.buy(sheet, entry, quantity)`` (a purchase
from an admin-edited CatalogueEntry), ``SYSTEM.protection(sheet)`` and ``SYSTEM.retired(sheet)``.

Where the seed and the spec differ
----------------------------------
- Advancement: the seed compares each die with "your current hit points"; the spec [REC] (§000.11)
  compares with maximum HP taken before the roll. The brief asks for the [REC], and on a return to
  safety current HP is normally full, so we compare with ``hp_max``.
- Extra dice in a test: the seed's "an applicable steel, skill, or spell die if you have one" reads
  most plainly as one extra die, and the spec's own cheat sheet says "≤1"; §000.12.1 [REC] allows one
  of each kind. We follow the [REC] and offer the strict reading as the GM option ``one_extra_die``.
- Critical harm test: the spec [REC] (§000.7) names only fatigue as a shift on the ability die; the
  seed's encumbrance rule gives disadvantage on every test, so we apply being over the slots too.
- Detachments: the seed says attacks on a detachment have disadvantage "unless they have blast"; the
  spec reads "they" as the attacker's weapon. Same thing in play: a blast weapon escapes it.
- The seed's typos ("steal die", "WILL", "Surender") are read as steel die, WIL and Surrender.
- Whose spell die backlashes: the seed says "whenever using your spell die" and the spec (§000.5.5)
  writes the caster's case only. A helper who lends their spell die (seed, Help: "roll an applicable
  steel, skill, or spell die") is using it, so it backlashes on the helper against the test's ability
  die; an opponent whose contest pool holds their spell die takes it against their own ability die.
  A hireling lends its spell die only when it is larger than its steel and skill dice.
- Critical harm that lowers a die: the seed leaves ability points to the creation rules, where they
  equal the die's highest face (spec §000.3), so points above the lowered die's face come down to it.
- Spec §000.13's contest vector has a d4 showing 6, which a d4 cannot roll; the tie-break it shows
  (a 6 on a d8 beats a 6 on a d6) is tested with the dice as written, and again with a real d4 face.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import lru_cache
from math import comb
from typing import Any

from rules.base import (
    CatalogueEntry,
    Creation,
    GameSystem,
    Hireling,
    Item,
    Odds,
    Param,
    Procedure,
    RollResult,
    RulesError,
    Sheet,
    SlotSummary,
    Track,
    check_params,
)
from rules.data import fell_draft as data
from rules.dice import (
    LADDER,
    DieRoll,
    Overflow,
    RandomSource,
    check_pool,
    dice_label,
    die_dist,
    ladder_index,
    pool_dist,
    roll_dice,
    roll_die,
    roll_pool,
    shift,
)
from rules.validation import Check, boolean, bounded_int, bounded_text, die_on, fields, hireling_basics, item_basics

ABILITIES: tuple[str, ...] = data.ABILITIES
DN_DEFAULT = 4
DN_MIN, DN_MAX = 1, 30
HARM_MAX = 100
SHIFT_MAX = 5
CONTEST_WORK = 25_000  # steps of one contest's odds, about 0.25 s; real contests take a few hundred to a few thousand
BASE_SLOTS = 4
COINS_PER_SLOT = 100
MAX_PROTECTION = 3
WAGE = 5  # coin per day (seed 000, Hirelings)
WAGE_PER_STEP = 5  # per one-step raise of one ability die (spec §000.9 [REC])
HIRELING_HP = 3
SPELL_COST = 100  # components to learn a spell (seed 000, Spells)
RETIRE_HP = 20
STARTING_HP = 4  # creation: "Or start with 4 HP"
OVERFLOW: Overflow = "bonus_die"  # seed 000, Dice Ladder: above d12 add a bonus die from the bottom rung

# --- state ------------------------------------------------------------------------------------


def _default_state() -> dict[str, Any]:
    return {
        "abilities": {ab: {"die": 6, "full_die": 6, "points": 6} for ab in ABILITIES},
        "hp": STARTING_HP,
        "hp_max": STARTING_HP,
        "skills": [],
        "spells": [],
        "spell_die": 0,
        "coins": 0,
        "deprived": False,
        "days_deprived": 0,
        "fatigue": 0,
        "dying": False,
        "dead": False,
        "protection_damage": 0,
        "background": "",
        "age": 0,
        "traits": [],
        "hireling": False,
        "paid_up": False,
        "steel_die": 0,
        "equipment": [],
    }


def _int(value: Any, label: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{label} must be a whole number.")
    if not low <= value <= high:
        raise RulesError(f"{label} must be between {low} and {high}, not {value}.")
    return value


def _die(value: Any, label: str, allow_none: bool = False) -> int:
    if allow_none and value == 0:
        return 0
    if isinstance(value, bool) or value not in LADDER:
        sizes = ", ".join(f"d{s}" for s in LADDER)
        raise RulesError(f"{label} must be one of {sizes}{' or none' if allow_none else ''}.")
    return int(value)


def _bool(value: Any, label: str) -> bool:
    if not isinstance(value, bool):
        raise RulesError(f"{label} must be yes or no.")
    return value


def _words(value: Any, label: str, limit: int = 100) -> list[str]:
    if not isinstance(value, list | tuple) or not all(isinstance(v, str) and v.strip() for v in value):
        raise RulesError(f"{label} must be a list of names.")
    out: list[str] = []
    for v in value:
        if v.strip() not in out:
            out.append(v.strip())
    if len(out) > limit:
        raise RulesError(f"{label}: at most {limit}.")
    return out


def validate_state(state: Mapping[str, Any]) -> dict[str, Any]:
    """A normalised copy of a Fell sheet's state, or RulesError saying what is wrong."""
    if not isinstance(state, Mapping):
        raise RulesError("A Fell sheet must be a set of named fields.")
    base = _default_state()
    unknown = sorted(set(state) - set(base))
    if unknown:
        raise RulesError(f"A Fell sheet has no field {', '.join(map(str, unknown))}.")
    merged = {**base, **copy.deepcopy(dict(state))}
    abilities = merged["abilities"]
    if not isinstance(abilities, Mapping) or set(abilities) != set(ABILITIES):
        raise RulesError("A Fell sheet needs exactly the abilities BOD, INT and WIL.")
    out: dict[str, Any] = {"abilities": {}}
    for ab in ABILITIES:
        a = abilities[ab]
        if not isinstance(a, Mapping) or "die" not in a:
            raise RulesError(f"{ab} needs a die.")
        die = _die(a["die"], f"The {ab} die")
        full = _die(a.get("full_die", die), f"The unharmed {ab} die")
        if full < die:
            raise RulesError(f"The unharmed {ab} die cannot be smaller than the {ab} die now.")
        points = _int(a.get("points", die), f"{ab} points", 0, die)
        out["abilities"][ab] = {"die": die, "full_die": full, "points": points}
    out["hp_max"] = _int(merged["hp_max"], "Maximum HP", 0, 999)
    out["hp"] = _int(merged["hp"], "HP", 0, out["hp_max"])
    out["skills"] = _words(merged["skills"], "Skills")
    out["spells"] = _words(merged["spells"], "Spells")
    out["spell_die"] = _die(merged["spell_die"], "The spell die", allow_none=True)
    out["coins"] = _int(merged["coins"], "Coins", 0, 10_000_000)
    out["deprived"] = _bool(merged["deprived"], "Deprived")
    out["days_deprived"] = _int(merged["days_deprived"], "Days deprived", 0, 1000)
    out["fatigue"] = _int(merged["fatigue"], "Fatigue", 0, 1000)
    out["dying"] = _bool(merged["dying"], "Dying")
    out["dead"] = _bool(merged["dead"], "Dead")
    out["protection_damage"] = _int(merged["protection_damage"], "Damaged protection", 0, MAX_PROTECTION)
    if not isinstance(merged["background"], str):
        raise RulesError("Background must be text.")
    out["background"] = merged["background"][:100]
    out["age"] = _int(merged["age"], "Age", 0, 1000)
    out["traits"] = _words(merged["traits"], "Traits")
    out["hireling"] = _bool(merged["hireling"], "Hireling")
    out["paid_up"] = _bool(merged["paid_up"], "Paid up")
    out["steel_die"] = _die(merged["steel_die"], "The hireling's steel die", allow_none=True)
    out["equipment"] = _words(merged["equipment"], "Equipment")
    return out


def _st(sheet: Sheet) -> dict[str, Any]:
    return validate_state(sheet.state)


def _die_of(state: Mapping[str, Any], ab: str) -> int:
    return int(state["abilities"][ab]["die"])


def _is_dead(state: Mapping[str, Any]) -> bool:
    """Seed 000 (Harm and Death): dead when an ability's points reach 0 or a die drops below d4."""
    return bool(state["dead"]) or any(state["abilities"][ab]["points"] == 0 for ab in ABILITIES)


def _step(sides: int, steps: int) -> int | None:
    """One die moved along d4..d12 without overflow: None below d4, capped at d12."""
    rung = ladder_index(sides) + steps
    if rung < 0:
        return None
    return LADDER[min(rung, len(LADDER) - 1)]


def retired(state: Mapping[str, Any]) -> bool:
    """Seed 000 (Advancement): 20 HP and every ability die a d12 means time to retire (or a legend)."""
    return state["hp_max"] >= RETIRE_HP and all(_die_of(state, ab) == 12 for ab in ABILITIES)


# --- items, slots, protection -------------------------------------------------------------------

_RULE_TOKEN = re.compile(r"^(?:d(\d+)|bulky|blast|\+?(\d+) protection)$")


@dataclass(frozen=True)
class _Parsed:
    name: str
    steel_die: int = 0
    bulky: bool = False
    blast: bool = False
    protection: int = 0


def _parse(text: str) -> _Parsed:
    """Read the source's item notation: "battle axe (d8, bulky)" -> steel d8, bulky."""
    m = re.match(r"^(.*?)\s*\(([^)]*)\)\s*$", text)
    if not m:
        return _Parsed(text.strip())
    name, inside = m.group(1), [t.strip() for t in m.group(2).split(",")]
    steel, bulky, blast, protection = 0, False, False, 0
    kept: list[str] = []
    for token in inside:
        rule = _RULE_TOKEN.match(token)
        if not rule:
            kept.append(token)
        elif rule.group(1):
            steel = int(rule.group(1))
        elif rule.group(2):
            protection = int(rule.group(2))
        elif token == "bulky":
            bulky = True
        else:
            blast = True
    full = f"{name} ({', '.join(kept)})" if kept else name
    return _Parsed(full, steel, bulky, blast, protection)


def _item_data(p: _Parsed) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if p.steel_die:
        out["steel_die"] = p.steel_die
    if p.bulky:
        out["bulky"] = True
    if p.blast:
        out["blast"] = True
    if p.protection:
        out["protection"] = p.protection
    return out


# What an item's data may hold (seed 000, Equipment and Armour): the source's item notation is
# "(d8, bulky, blast, +1 protection)", nothing else. Protection never adds past 3 (spec §000.8 [REC]).
ITEM_FIELDS: dict[str, tuple[str, Check]] = {
    "steel_die": ("steel die", lambda v, label: die_on(v, label, LADDER)),
    "bulky": ("bulky", boolean),
    "blast": ("blast", boolean),
    "protection": ("protection", lambda v, label: bounded_int(v, label, 0, MAX_PROTECTION)),
    "note": ("note", bounded_text),
}


def validate_item(item: Item) -> Item:
    """An item's normalised copy, or RulesError naming what no Fell item can hold (a d50 steel die...)."""
    name, kind, slots_, quantity = item_basics(item.name, item.kind, item.slots, item.quantity)
    item_data = fields(item.data, name, ITEM_FIELDS)
    return replace(
        item,
        name=name,
        kind=kind,
        slots=slots_,
        quantity=quantity,
        data=item_data,
        worn=boolean(item.worn, f"{name}: worn"),
    )


def validate_hireling(hireling: Hireling) -> Hireling:
    """A hireling's normalised copy: its state is a small Fell sheet (seed 000, Hirelings), d4s unless raised."""
    name, kind, wage, upfront = hireling_basics(hireling.name, hireling.kind, hireling.wage, hireling.upfront)
    checked = replace(hireling, name=name, kind=kind, wage=wage, upfront=upfront)
    full = _hireling_state(checked)
    return replace(checked, state={key: full[key] for key in hireling.state})  # the same fields, normalised


def _steel(item: Item) -> int:
    value = item.data.get("steel_die", 0) if item.data else 0
    return int(value) if isinstance(value, int) and value in LADDER else 0


def _item_slots(item: Item) -> int:
    """Seed 000 (Equipment): most items 1 slot, bulky 2, 100 coins 1 slot (fewer ride in pockets)."""
    if item.kind == "coins":
        return max(0, item.quantity) // COINS_PER_SLOT
    per = item.slots
    if item.data and item.data.get("bulky") and per < 2:
        per = 2
    return max(0, per) * max(0, item.quantity)


def _slots_used(sheet: Sheet, state: Mapping[str, Any]) -> int:
    return sum(_item_slots(i) for i in sheet.items) + state["coins"] // COINS_PER_SLOT


def _slots_max(state: Mapping[str, Any]) -> int:
    """Creation rules: 4 + BOD equipment slots, BOD being the die's highest face (spec §000.12.4)."""
    return BASE_SLOTS + _die_of(state, "BOD")


def protection(sheet: Sheet) -> int:
    """Best worn body armour plus 1 for a worn shield, at most 3 (spec §000.8 [REC])."""
    state = _st(sheet)
    armour = [
        int(i.data.get("protection", 0))
        for i in sheet.items
        if i.worn and i.kind != "shield" and i.data and i.data.get("protection")
    ]
    shield = any(i.worn and i.kind == "shield" for i in sheet.items)
    total = min(MAX_PROTECTION, max(armour, default=0) + (1 if shield else 0))
    return max(0, total - state["protection_damage"])


def _auto_disadvantage(sheet: Sheet, state: Mapping[str, Any]) -> tuple[int, tuple[str, ...]]:
    """Disadvantage every test carries: over the slots (seed 000, Equipment) and fatigue levels."""
    count, why = 0, []
    if _slots_used(sheet, state) > _slots_max(state):
        count += 1
        why.append("over your slots: disadvantage")
    if state["fatigue"]:
        count += state["fatigue"]
        why.append(f"fatigue level {state['fatigue']}: {state['fatigue']} step(s) of disadvantage")
    return count, tuple(why)


# --- pools -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolDie:
    sides: int
    label: str
    role: str  # ability, steel, skill, spell, helper, npc, bonus
    owner: str = ""  # whose die: "" the roller, "helper" the helping character, "h:<key>" a hireling


@dataclass(frozen=True)
class Pool:
    """The dice a test or contest rolls, after the net ladder shift (seed 000, Advantage/Dice Ladder)."""

    dice: tuple[PoolDie, ...]
    net: int = 0
    notes: tuple[str, ...] = ()

    @property
    def sides(self) -> tuple[int, ...]:
        return tuple(d.sides for d in self.dice)

    def index(self, role: str) -> int | None:
        return next((i for i, d in enumerate(self.dice) if d.role == role), None)


def shift_dice(base: Sequence[PoolDie], net: int, notes: Sequence[str] = ()) -> Pool:
    """Move every die ``net`` rungs (spec §000.4 [REC]); dice below d4 go, past d12 add bonus dice."""
    out: list[PoolDie] = []
    for die in base:
        for k, sides in enumerate(shift(die.sides, net, OVERFLOW).dice):
            if k == 0:
                out.append(PoolDie(sides, die.label, die.role, die.owner))
            else:
                out.append(PoolDie(sides, f"{die.label} bonus", "bonus"))
    return Pool(tuple(out), net, tuple(notes))


def _net(advantage: int, disadvantage: int, decline: bool, notes: list[str]) -> tuple[int, list[str]]:
    net = advantage - disadvantage
    if decline and net > 0:
        notes.append("advantage declined")
        net = 0
    return net, notes


def _roll_pool(rng: RandomSource, pool: Pool) -> tuple[tuple[DieRoll, ...], int]:
    return roll_pool(rng, pool.sides, "highest", [d.label for d in pool.dice])


def pass_chance(sides: Sequence[int], dn: int) -> Fraction:
    """Seed 000 (Tasks and Tests): the highest single die meets the DN; an empty pool fails."""
    if not sides:
        return Fraction(0)
    fail = Fraction(1)
    for s in sides:
        fail *= Fraction(min(dn - 1, s), s)
    return 1 - fail


def _result_key(dice: Sequence[DieRoll]) -> list[tuple[int, int]]:
    return sorted(((d.face, d.sides) for d in dice), reverse=True)


def contest_winner(a: Sequence[DieRoll], b: Sequence[DieRoll]) -> int:
    """1 if side a wins, -1 if b wins, 0 for a standing tie (seed 000, Contests; spec §000.5.4 [REC]).

    Highest face wins; on equal faces the die higher up the ladder wins; still level, the next
    highest dice are compared the same way, then the side with more dice wins.
    """
    ka, kb = _result_key(a), _result_key(b)
    return (ka > kb) - (ka < kb)


def contest_chances(a: Sequence[int], b: Sequence[int]) -> tuple[Fraction, Fraction, Fraction]:
    """Exact (P a wins, P b wins, P tie) under ``contest_winner``, without enumerating every roll.

    Results are ranked (face, sides) from the best down. At each rank only dice of that size can
    show it, and the dice not yet placed are uniform below it, so the count showing it on each side
    is binomial. Unequal counts settle the contest; equal counts remove those dice and go on.
    """
    sizes = tuple(sorted(set(a) | set(b)))
    if not sizes:
        return Fraction(0), Fraction(0), Fraction(1)
    start = (tuple(a.count(s) for s in sizes), tuple(b.count(s) for s in sizes))
    states: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {start: Fraction(1)}
    win = lose = Fraction(0)
    ranks = sorted(((f, s) for s in sizes for f in range(1, s + 1)), reverse=True)
    check_pool((*a, *b))
    work = 0  # the states multiply with mixed dice sizes, so the work is counted as it goes
    for face, sides in ranks:
        i = sizes.index(sides)
        nxt: dict[tuple[tuple[int, ...], tuple[int, ...]], Fraction] = {}
        work += len(states)
        for (ca, cb), p in states.items():
            na, nb = ca[i], cb[i]
            if na == 0 and nb == 0:
                nxt[(ca, cb)] = nxt.get((ca, cb), Fraction(0)) + p
                continue
            work += (na + 1) * (nb + 1)
            if work > CONTEST_WORK:
                raise RulesError(
                    f"A contest of {len(a)} dice against {len(b)} has too many ways to fall to work out its odds."
                )
            for ka, pa in _binomial(na, face).items():
                for kb, pb in _binomial(nb, face).items():
                    q = p * pa * pb
                    if ka > kb:
                        win += q
                    elif kb > ka:
                        lose += q
                    else:
                        key = (_minus(ca, i, ka), _minus(cb, i, kb))
                        nxt[key] = nxt.get(key, Fraction(0)) + q
        states = nxt
    return win, lose, sum(states.values(), Fraction(0))


@lru_cache(maxsize=1024)
def _binomial(n: int, faces: int) -> dict[int, Fraction]:
    p = Fraction(1, faces)
    return {k: comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1) if p**k * (1 - p) ** (n - k)}


def _minus(counts: tuple[int, ...], i: int, k: int) -> tuple[int, ...]:
    return counts[:i] + (counts[i] - k,) + counts[i + 1 :]


# --- harm ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Harm:
    """What harm did to one sheet (seed 000, Harm and Death)."""

    state: dict[str, Any]
    dice: tuple[DieRoll, ...]
    to_hp: int
    critical: int
    ability: str
    test: str  # "", "passed", "passed automatically", "failed"
    summary: str


def apply_harm(sheet: Sheet, amount: int, ability: str, rng: RandomSource, *, reduce_die: bool = False) -> Harm:
    """Harm to HP first, the rest as critical harm to ``ability``'s points, then the critical harm test.

    Seed 000 (Harm and Death): the test uses that ability at DN = the critical harm; failing leaves the
    character unconscious and dying. Spec §000.12.8 [REC]: the ability die alone, shifted only by the
    automatic disadvantages. Points at 0, or a die lowered below d4 (``reduce_die``), is death.
    """
    state = _st(sheet)
    if _is_dead(state):
        return Harm(state, (), 0, 0, ability, "", f"{sheet.name or 'They'} are already dead.")
    to_hp = min(state["hp"], amount)
    state["hp"] -= to_hp
    critical = amount - to_hp
    words = [f"{to_hp} harm to HP"]
    dice: tuple[DieRoll, ...] = ()
    test = ""
    if critical > 0:
        a = state["abilities"][ability]
        if reduce_die:  # seed 000: critical harm "may also reduce an ability's die" (the GM's call)
            lowered = _step(a["die"], -1)
            if lowered is None:
                state["dead"] = True
                words.append(f"the {ability} die would drop below d4: dead")
                return Harm(state, (), to_hp, critical, ability, "", "; ".join(words) + ".")
            a["die"] = lowered
            a["points"] = min(a["points"], lowered)
            words.append(f"{ability} die lowered to d{lowered}")
        a["points"] = max(0, a["points"] - critical)
        words.append(f"{critical} critical harm to {ability} ({a['points']} left)")
        if a["points"] == 0:
            words.append("dead")
        else:
            test, dice = _critical_test(sheet, state, ability, critical, rng)
            words.append(f"{ability} test at DN {critical} {test}")
            if test == "failed":
                state["dying"] = True
                words.append("unconscious, and will die in about an hour without treatment")
    return Harm(state, dice, to_hp, critical, ability, test, "; ".join(words) + ".")


def _critical_pool(sheet: Sheet, state: Mapping[str, Any], ability: str) -> Pool:
    dis, why = _auto_disadvantage(sheet, state)
    return shift_dice((PoolDie(_die_of(state, ability), ability, "ability"),), -dis, why)


def _critical_test(
    sheet: Sheet, state: Mapping[str, Any], ability: str, dn: int, rng: RandomSource
) -> tuple[str, tuple[DieRoll, ...]]:
    if dn <= 1:  # spec §000.7: DN 1 always passes, so nothing is rolled
        return "passed automatically", ()
    pool = _critical_pool(sheet, state, ability)
    if not pool.dice:
        return "failed", ()
    dice, best = _roll_pool(rng, pool)
    return ("passed" if best >= dn else "failed"), dice


def critical_survival_chance(sheet: Sheet, ability: str, critical: int) -> Fraction:
    """Chance of passing the critical harm test at DN = ``critical`` (spec §000.7)."""
    if critical <= 1:
        return Fraction(1)
    state = _st(sheet)
    return pass_chance(_critical_pool(sheet, state, ability).sides, critical)


# --- the procedures -----------------------------------------------------------------------------

ABILITY_CHOICES = tuple((ab, ab) for ab in ABILITIES)
DIE_CHOICES = tuple((str(s), f"d{s}") for s in LADDER)
NO = ("", "None")


def _key(obj: Item | Hireling, index: int, prefix: str) -> str:
    return str(obj.id) if obj.id is not None else f"{prefix}{index}"


def _weapons(sheet: Sheet) -> dict[str, Item]:
    return {_key(it, i, "i"): it for i, it in enumerate(sheet.items) if _steel(it)}


def _hirelings(sheet: Sheet) -> dict[str, Hireling]:
    return {_key(h, i, "h"): h for i, h in enumerate(sheet.hirelings)}


def _hireling_state(h: Hireling) -> dict[str, Any]:
    if not isinstance(h.state, Mapping):
        raise RulesError(f"Hireling {h.name}: the sheet must be a set of named fields.")
    base = {**_default_state(), "abilities": {ab: {"die": 4, "points": 4} for ab in ABILITIES}}
    base.update({"hp": HIRELING_HP, "hp_max": HIRELING_HP, "hireling": True})
    base.update(dict(h.state))
    try:
        return validate_state(base)
    except RulesError as err:
        raise RulesError(f"Hireling {h.name}: {err}") from None


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


def _clean(proc: Procedure, sheet: Sheet, params: Mapping[str, Any]) -> dict[str, Any]:
    """check_params for everything but resolved characters, which pass through as Sheets (or None)."""
    people = {k: v for k, v in params.items() if isinstance(v, Sheet)}
    rest = {k: v for k, v in params.items() if k not in people}
    clean = check_params(proc, sheet, rest)
    characters = {p.name for p in proc.params(sheet) if p.kind == "character"}
    stray = sorted(set(people) - characters)
    if stray:
        raise RulesError(f"{proc.label} has no place for a character as {', '.join(stray)}.")
    for name in characters:
        clean[name] = people.get(name)
    return clean


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
        raise RulesError("The dead make no tests.")
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


def _inputs(p: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (v.name or "a character") if isinstance(v, Sheet) else v for k, v in p.items()}


def _with_state(sheet: Sheet, state: Mapping[str, Any]) -> Sheet:
    return Sheet(state=state, items=sheet.items, hirelings=sheet.hirelings, name=sheet.name)


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
            Param(
                "one_extra_die",
                "Strict: one extra die only",
                "bool",
                False,
                gm_only=True,
                help="Read the rules as one steel, skill or spell die in total.",
            ),
        )

    def _pool(self, sheet: Sheet, p: Mapping[str, Any]) -> Pool:
        state = _st(sheet)
        spell = 0
        if p["spell_die"]:
            if not state["spell_die"]:
                raise RulesError("You have no spell die yet; pick its size first.")
            spell = state["spell_die"]
        return _build_pool(sheet, p, ability=p["ability"], spell_die=spell, strict=p["one_extra_die"])

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        return _test_odds(self._pool(sheet, p), _check_dn(p["dn"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
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
            _inputs(p),
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


def _contest_odds(mine: Pool, theirs: Pool) -> Odds:
    win, lose, tie = contest_chances(mine.sides, theirs.sides)
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
        p = _clean(self, sheet, params)
        return _contest_odds(*self._pools(sheet, p))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
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
    odds = _contest_odds(mine, theirs)
    dice, best = _roll_pool(rng, mine)
    their_dice, their_best = _roll_pool(rng, theirs)
    result = contest_winner(dice, their_dice)
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
        _inputs(p),
        state,
        details,
        hirelings_changed=hired,
        other_states=others,
    )


# --- spells ---------------------------------------------------------------------------------------


def _scrolls(sheet: Sheet) -> dict[str, Item]:
    return {
        _key(it, i, "i"): it
        for i, it in enumerate(sheet.items)
        if it.kind in ("scroll", "spellbook") or it.name.lower().startswith("scroll")
    }


@dataclass(frozen=True)
class CastProcedure:
    """Seed 000 (Spells): a WIL test with the spell die; backlash when the spell die beats the WIL die."""

    key: str = "cast"
    label: str = "Cast a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        state = _st(sheet)
        spells = tuple((f"spell:{s}", s) for s in state["spells"])
        scrolls = tuple((f"scroll:{k}", f"{it.name} (scroll)") for k, it in _scrolls(sheet).items())
        choices = spells + scrolls or (("", "No spell to cast"),)
        die = state["spell_die"] or _die_of(state, "WIL")
        pool = tuple(p for p in _pool_params(sheet, spell=False) if p.name not in ("steel", "skills"))
        return (
            Param("spell", "Spell", "choice", choices[0][0], choices=choices),
            Param("die", "Spell die", "choice", str(die), choices=DIE_CHOICES, help="Change it as you like."),
            Param(
                "on_backlash",
                "If it backlashes",
                "choice",
                "harm",
                choices=(
                    ("harm", "take the harm"),
                    ("forget", "forget the spell instead"),
                    ("scroll", "let the scroll be destroyed instead"),
                ),
            ),
            *pool,
            *_shift_params(),
            _dn_param(),
            Param("target", "Unwilling target (a character)", "character", help="They may force a contest."),
            Param("target_die", "Unwilling NPC's die", "choice", "", choices=(NO, *DIE_CHOICES)),
        )

    def _setup(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Pool, Pool | None]:
        if not p["spell"]:
            raise RulesError("You know no spells and carry no scrolls.")
        kind, _, name = p["spell"].partition(":")
        if p["on_backlash"] == "forget" and kind != "spell":
            raise RulesError("A scroll's spell is not yours to forget; let the scroll go instead.")
        if p["on_backlash"] == "scroll" and kind != "scroll":
            raise RulesError("That spell is not cast from a scroll.")
        pool = _build_pool(sheet, p, ability="WIL", spell_die=int(p["die"]))
        if isinstance(p.get("target"), Sheet):  # spec §000.5.5 [REC]: caster WIL + spell die vs their WIL
            resist = dict(p, opponent=p["target"], opponent_ability="WIL", opponent_extra="", opponent_shift=0)
            return pool, _opponent_pool(resist)
        if p.get("target_die"):
            return pool, _opponent_pool({"npc_die": p["target_die"]})
        return pool, None

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        pool, resist = self._setup(sheet, p)
        if resist is not None:
            return _contest_odds(pool, resist)
        return _test_odds(pool, _check_dn(p["dn"]))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        dn = _check_dn(p["dn"])
        pool, resist = self._setup(sheet, p)
        kind, _, ref = p["spell"].partition(":")
        name = ref if kind == "spell" else _scrolls(sheet)[ref].name
        state = _st(sheet)
        hired: tuple[Hireling, ...] = ()
        others: dict[str, Any] = {}
        if resist is not None:
            base = _roll_contest(self, sheet, p, pool, resist, rng, on_backlash=p["on_backlash"])
            dice, best, outcome, odds = base.dice, base.total or 0, base.outcome, base.odds
            summary, details = f"Casting {name}: {base.summary}", dict(base.details)
            lash = int(details.get("backlash", 0))
            hired, others = base.hirelings_changed, dict(base.other_states)
            if base.state is not None:
                state = dict(base.state)
        else:
            odds = _test_odds(pool, dn)
            dice, best = _roll_pool(rng, pool)
            passed = bool(dice) and best >= dn
            outcome = "pass" if passed else "fail"
            summary = f"Casting {name} with {_pool_words(pool)}: best {best} against DN {dn}, "
            summary += "the spell works." if passed else "it goes wrong."
            details = {"dn": dn, "best": best, "net_shift": pool.net}
            lash = _backlash(pool, dice)
            rolled = dice
            if _lashes(pool, dice):
                outcome += "_backlash"
        removed: tuple[int, ...] = ()
        if lash:
            details["backlash"] = lash
            if p["on_backlash"] == "forget":
                state["spells"] = [s for s in state["spells"] if s != name]
                summary += f" Backlash {lash}: instead of harm, {name} is forgotten for good."
            elif p["on_backlash"] == "scroll":
                scroll = _scrolls(sheet)[ref]
                removed = (scroll.id,) if scroll.id is not None else ()
                details["scroll_destroyed"] = scroll.name
                summary += f" Backlash {lash}: instead of harm, the scroll crumbles away."
            elif resist is None:
                harm = apply_harm(sheet, lash, "WIL", rng)
                state = harm.state
                dice += harm.dice
                summary += f" Backlash {lash}: {harm.summary}"
        if resist is None:  # then whoever lent a spell die takes its backlash
            more, words, lent, others, hired = _helper_lashes(sheet, p, pool, rolled, rng)
            dice, summary = dice + more, summary + words
            details.update(lent)
        if state["spell_die"] != int(p["die"]):
            state["spell_die"] = int(p["die"])
        changed = state != _st(sheet)
        return RollResult(
            self.key,
            self.label,
            outcome,
            summary,
            dice,
            best,
            odds,
            _inputs(p),
            state if changed else None,
            details,
            items_removed=removed,
            hirelings_changed=hired,
            other_states=others,
        )


# --- attacks and harm -----------------------------------------------------------------------------


def _harm_odds(pool: Pool, armour: int) -> Odds:
    """Seed 000 (Attacks): highest steel die minus protection, never below 0."""
    dist: dict[int, Fraction] = {}
    for value, p in (pool_dist(pool.sides, "highest") if pool.dice else {0: Fraction(1)}).items():
        harm = max(0, value - armour)
        dist[harm] = dist.get(harm, Fraction(0)) + p
    outcomes = tuple((("no harm" if h == 0 else f"{h} harm"), p) for h, p in sorted(dist.items()))
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
        p = _clean(self, sheet, params)
        pool, _, armour = self._setup(sheet, p)
        return _harm_odds(pool, armour)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
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
        opponent_state = None
        target = p.get("target")
        if isinstance(target, Sheet) and harms[0] > 0:
            harm = apply_harm(target, harms[0], "BOD", rng)
            dice += harm.dice
            opponent_state = harm.state
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
            _inputs(p),
            None,
            details,
            opponent_state=opponent_state,
            # By name: with an ally attacking too, the harm must land on the target, not the ally.
            other_states={"target": opponent_state} if opponent_state is not None else {},
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
        sheet = _with_state(sheet, lowered)
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
        _inputs(p),
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
        p = _clean(self, sheet, params)
        return harm_odds(sheet, self._amount(sheet, p), p["ability"], p["reduce_die"])

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
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
        p = _clean(self, sheet, params)
        return _harm_odds(self._pool(p), protection(sheet))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        pool = self._pool(p)
        odds = _harm_odds(pool, protection(sheet))
        dice, best = _roll_pool(rng, pool)
        amount = max(0, best - protection(sheet))
        result = _harm_result(self, sheet, p, amount, rng, dice)
        summary = f"NPC rolls {best} minus protection {protection(sheet)}: {result.summary}"
        return RollResult(
            self.key,
            self.label,
            result.outcome,
            summary,
            result.dice,
            amount,
            odds,
            result.inputs,
            result.state,
            result.details,
        )


# --- rest, deprivation, dying ---------------------------------------------------------------------


@dataclass(frozen=True)
class RestProcedure:
    """Seed 000 (Healing and Rest, Deprivation and Fatigue)."""

    key: str = "rest"
    label: str = "Rest"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "length",
                "Rest",
                "choice",
                "short",
                choices=(
                    ("short", "several minutes: all HP"),
                    ("night", "a night: all ability points"),
                    ("week", "a week with care: reduced dice restored"),
                ),
            ),
            Param("comfortable", "Comfortable, on a full stomach", "bool", True, help="Lifts a fatigue level."),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        if _is_dead(state):
            raise RulesError("Rest will not bring back the dead.")
        if state["dying"]:
            raise RulesError("A dying character needs treatment before rest can help.")
        if state["deprived"]:
            raise RulesError("While deprived you cannot recover HP or ability points, or restore dice.")
        words = []
        length = p["length"]
        if length == "week":  # spec §000.7 [REC]: points_max rises with the die; points fill on a night
            for ab in ABILITIES:
                a = state["abilities"][ab]
                if a["die"] < a["full_die"]:
                    words.append(f"{ab} back to d{a['full_die']}")
                    a["die"] = a["full_die"]
        if length in ("night", "week"):
            for ab in ABILITIES:
                a = state["abilities"][ab]
                a["points"] = a["die"]
            words.append("ability points recovered")
            nights = 7 if length == "week" else 1
            if p["comfortable"] and state["fatigue"]:
                lifted = min(nights, state["fatigue"])
                state["fatigue"] -= lifted
                words.append(f"{lifted} fatigue level(s) lifted")
        state["hp"] = state["hp_max"]
        words.insert(0, "All HP back")
        return RollResult(self.key, self.label, length, f"{'; '.join(words)}.", (), None, None, _inputs(p), state)


@dataclass(frozen=True)
class DeprivationProcedure:
    """Seed 000 (Deprivation and Fatigue); spec §000.7 [REC]: fatigue = full days deprived − 1."""

    key: str = "deprivation"
    label: str = "Deprivation and fatigue"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "change",
                "What happened",
                "choice",
                "start",
                choices=(
                    ("start", "deprived of a crucial need"),
                    ("day", "another full day deprived"),
                    ("end", "no longer deprived"),
                    ("fatigue_on", "add a fatigue level"),
                    ("fatigue_off", "remove a fatigue level"),
                ),
            ),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        change = p["change"]
        if change == "start":
            state["deprived"], state["days_deprived"] = True, 0
            summary = "Deprived: no recovery of HP, points or dice until the need is met."
        elif change == "day":
            if not state["deprived"]:
                raise RulesError("Mark the character deprived first.")
            state["days_deprived"] += 1
            if state["days_deprived"] > 1:
                state["fatigue"] += 1
            summary = f"{state['days_deprived']} day(s) deprived; fatigue level {state['fatigue']}."
        elif change == "end":
            state["deprived"], state["days_deprived"] = False, 0
            summary = "No longer deprived; fatigue lifts one level per comfortable night."
        elif change == "fatigue_on":
            state["fatigue"] += 1
            summary = f"Fatigue level {state['fatigue']}."
        else:
            state["fatigue"] = max(0, state["fatigue"] - 1)
            summary = f"Fatigue level {state['fatigue']}."
        return RollResult(self.key, self.label, change, summary, (), None, None, _inputs(p), state)


@dataclass(frozen=True)
class DyingProcedure:
    """Seed 000 (Harm and Death): an unconscious character dies in about an hour unless treated."""

    key: str = "dying"
    label: str = "Treat the dying"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "result",
                "What happened",
                "choice",
                "treated",
                choices=(("treated", "treated in time"), ("died", "not treated in time")),
            ),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        if not state["dying"]:
            raise RulesError("This character is not dying.")
        state["dying"] = False
        if p["result"] == "died":
            state["dead"] = True
            summary = "No help came in time: dead."
        else:
            summary = "Treated in time: no longer dying."
        return RollResult(self.key, self.label, p["result"], summary, (), None, None, _inputs(p), state)


# --- reactions, leverage, morale ------------------------------------------------------------------


def _table_odds(sides: int, table: Sequence[tuple[int, int, str]]) -> Odds:
    """Every row of a WIL-die table with its exact chance (rows a small die cannot reach show 0)."""
    dist = die_dist(sides)
    rows = tuple((row, sum((p for v, p in dist.items() if low <= v <= high), Fraction(0))) for low, high, row in table)
    return Odds(rows, success_keys=tuple(r for _, _, r in table[2:]))


def _table_row(face: int, table: Sequence[tuple[int, int, str]]) -> str:
    return next(row for low, high, row in table if low <= face <= high)


@dataclass(frozen=True)
class ReactionProcedure:
    """Seed 000 (Reactions): roll your WIL die on the reaction table."""

    key: str = "reaction"
    label: str = "Reaction"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return ()

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        _clean(self, sheet, params)
        return _table_odds(_die_of(_st(sheet), "WIL"), data.REACTIONS)

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        _clean(self, sheet, params)
        die = _die_of(_st(sheet), "WIL")
        roll = roll_die(rng, die, "WIL")
        row = _table_row(roll.face, data.REACTIONS)
        summary = f"WIL d{die} rolled {roll.face}: {row}."
        return RollResult(self.key, self.label, row, summary, (roll,), roll.face, self.odds(sheet, {}))


def _wil_contest_params(sheet: Sheet) -> tuple[Param, ...]:
    keep = ("helpers", "helper", "helper_die")
    return (
        *(p for p in _pool_params(sheet, spell=False) if p.name in keep),
        *_shift_params(),
        Param("opponent", "Opposing character", "character"),
        Param("npc_die", "Their WIL or hit die", "choice", "6", choices=DIE_CHOICES),
    )


def _wil_pools(sheet: Sheet, p: Mapping[str, Any]) -> tuple[Pool, Pool]:
    mine = _build_pool(sheet, {**p, "steel": "", "skills": ()}, ability="WIL")
    theirs = _opponent_pool({**p, "opponent_ability": "WIL", "opponent_extra": "", "opponent_shift": 0})
    return mine, theirs


@dataclass(frozen=True)
class LeverageProcedure:
    """Seed 000 (Leverage): win a WIL contest to improve an NPC's reaction, one row (spec §000.5.8)."""

    key: str = "leverage"
    label: str = "Apply leverage"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        rows = tuple((row, row) for _, _, row in data.REACTIONS)
        return (Param("reaction", "Their reaction now", "choice", "Wary", choices=rows), *_wil_contest_params(sheet))

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        return _contest_odds(*_wil_pools(sheet, p))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        base = _roll_contest(self, sheet, p, *_wil_pools(sheet, p), rng)
        rows = [row for _, _, row in data.REACTIONS]
        now = rows.index(p["reaction"])
        after = rows[min(now + 1, len(rows) - 1)] if base.outcome == "win" else rows[now]
        summary = f"{base.summary} Reaction: {after}."
        details = {**base.details, "reaction": after}
        return RollResult(
            self.key,
            self.label,
            base.outcome,
            summary,
            base.dice,
            base.total,
            base.odds,
            base.inputs,
            None,
            details,
        )


@dataclass(frozen=True)
class MoraleProcedure:
    """Seed 000 (Morale): win a WIL contest against the enemy leader, then roll WIL on the morale table.

    Spec §000.12.10 [REC]: the character who caused the trigger rolls, against the highest enemy HD.
    """

    key: str = "morale"
    label: str = "Morale"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return _wil_contest_params(sheet)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        mine, theirs = _wil_pools(sheet, p)
        win, lose, tie = contest_chances(mine.sides, theirs.sides)
        table = _table_odds(_die_of(_st(sheet), "WIL"), data.MORALE)
        rows = (("Fight on", lose + tie), *((k, win * q) for k, q in table.outcomes))
        return Odds(rows, success_keys=tuple(k for k, _ in table.outcomes))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        odds = self.odds(sheet, p)
        base = _roll_contest(self, sheet, p, *_wil_pools(sheet, p), rng)
        if base.outcome != "win":
            summary = f"{base.summary} The enemy fights on."
            return RollResult(self.key, self.label, "Fight on", summary, base.dice, base.total, odds, base.inputs)
        die = _die_of(_st(sheet), "WIL")
        roll = roll_die(rng, die, "WIL: morale")
        row = _table_row(roll.face, data.MORALE)
        summary = f"{base.summary} Morale roll {roll.face}: {row}."
        return RollResult(
            self.key,
            self.label,
            row,
            summary,
            base.dice + (roll,),
            roll.face,
            odds,
            base.inputs,
            None,
            {"morale_roll": roll.face},
        )


# --- advancement -------------------------------------------------------------------------------


def advancement_gain(dice: Mapping[str, int], faces: Mapping[str, int], hp_max: int, stack: bool = True) -> int:
    """Seed 000 (Advancement): +1 HP per die above HP (spec [REC]: HP max), +1 HP per top face.

    With ``stack`` (spec §000.11 [REC]) one die can earn both; without, at most one per die.
    """
    total = 0
    for ab, face in faces.items():
        above = face > hp_max
        top = face == dice[ab]
        total += (int(above) + int(top)) if stack else int(above or top)
    return total


@dataclass(frozen=True)
class AdvanceProcedure:
    """Seed 000 (Advancement): after deadly peril and plunder, roll all ability dice."""

    key: str = "advance"
    label: str = "Advance"
    gm_only: bool = True

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param(
                "stack",
                "One die can earn both HP",
                "bool",
                True,
                help="A top face above your HP gives 2 HP.",
                gm_only=True,
            ),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        dice = {ab: _die_of(state, ab) for ab in ABILITIES}
        dist: dict[int, Fraction] = {}
        combos: list[tuple[dict[str, int], Fraction]] = [({}, Fraction(1))]
        for ab in ABILITIES:
            combos = [({**f, ab: v}, q * pv) for f, q in combos for v, pv in die_dist(dice[ab]).items()]
        for faces, q in combos:
            g = advancement_gain(dice, faces, state["hp_max"], p["stack"])
            dist[g] = dist.get(g, Fraction(0)) + q
        outcomes = tuple((f"+{g} HP", q) for g, q in sorted(dist.items()))
        return Odds(outcomes, success_keys=tuple(k for k, _ in outcomes if k != "+0 HP"))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        if _is_dead(state):
            raise RulesError("The dead do not advance.")
        odds = self.odds(sheet, p)
        dice = {ab: _die_of(state, ab) for ab in ABILITIES}
        rolls = tuple(roll_die(rng, dice[ab], ab) for ab in ABILITIES)
        faces = {ab: r.face for ab, r in zip(ABILITIES, rolls, strict=True)}
        gain = advancement_gain(dice, faces, state["hp_max"], p["stack"])
        words = []
        for ab in ABILITIES:  # spec §000.11 [REC]: dice stop at d12; points max rises with the die
            if faces[ab] == dice[ab] and dice[ab] < LADDER[-1]:
                a = state["abilities"][ab]
                a["die"] = _step(a["die"], 1) or a["die"]
                a["full_die"] = max(a["die"], _step(a["full_die"], 1) or a["full_die"])
                words.append(f"{ab} rises to d{a['die']}")
        state["hp_max"] += gain
        state["hp"] += gain
        summary = f"Rolled {', '.join(f'{ab} {faces[ab]}' for ab in ABILITIES)}: +{gain} HP"
        summary += f" (now {state['hp_max']})" + (f"; {', '.join(words)}" if words else "") + "."
        if retired(state):
            summary += " Twenty HP and all d12s: time to retire to safety, or become a legend."
        return RollResult(
            self.key,
            self.label,
            f"+{gain} HP",
            summary,
            rolls,
            gain,
            odds,
            _inputs(p),
            state,
            {"gain": gain, "retire": retired(state)},
        )


# --- hirelings ----------------------------------------------------------------------------------


def hireling_wage(state: Mapping[str, Any]) -> int:
    """Seed 000 (Hirelings): 5 coin a day, +5 per one-step raise of an ability die (spec §000.9 [REC])."""
    steps = sum(ladder_index(state["abilities"][ab]["full_die"]) for ab in ABILITIES)
    return WAGE + WAGE_PER_STEP * steps


@dataclass(frozen=True)
class PayHirelingsProcedure:
    """Seed 000 (Hirelings): pay wages up front, so dangerous orders need no WIL contest."""

    key: str = "pay_hirelings"
    label: str = "Pay hirelings"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        hired = tuple((k, f"{h.name} ({h.wage} coin a day)") for k, h in _hirelings(sheet).items())
        return (
            Param("hirelings", "Hirelings", "multichoice", tuple(k for k, _ in hired), choices=hired),
            Param("days", "Days paid up front", "int", 1, 1, 365),
            Param("unpaid", "Their paid time is over (mark unpaid)", "bool", False),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        hired = _hirelings(sheet)
        chosen = [hired[k] for k in p["hirelings"]]
        if not chosen:
            raise RulesError("Pick at least one hireling.")
        if any(h.id is None for h in chosen):
            raise RulesError("Save the hireling before paying them.")
        changed = []
        if p["unpaid"]:
            for h in chosen:
                changed.append(Hireling(h.name, h.kind, {**_hireling_state(h), "paid_up": False}, h.wage, h.id))
            names = ", ".join(h.name for h in chosen)
            return RollResult(
                self.key,
                self.label,
                "unpaid",
                f"{names}: no longer paid up.",
                (),
                None,
                None,
                _inputs(p),
                None,
                hirelings_changed=tuple(changed),
            )
        cost = sum(h.wage for h in chosen) * p["days"]
        if cost > state["coins"]:
            raise RulesError(f"That costs {cost} coin and you have {state['coins']}.")
        state["coins"] -= cost
        for h in chosen:
            changed.append(Hireling(h.name, h.kind, {**_hireling_state(h), "paid_up": True}, h.wage, h.id))
        summary = f"Paid {cost} coin for {p['days']} day(s); {state['coins']} coin left."
        return RollResult(
            self.key,
            self.label,
            "paid",
            summary,
            (),
            cost,
            None,
            _inputs(p),
            state,
            hirelings_changed=tuple(changed),
        )


@dataclass(frozen=True)
class OrderHirelingProcedure:
    """Seed 000 (Hirelings): an unpaid hireling asked to do something dangerous needs a WIL contest."""

    key: str = "order_hireling"
    label: str = "Give a hireling a dangerous order"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        hired = tuple((k, h.name) for k, h in _hirelings(sheet).items()) or (("", "No hirelings"),)
        return (Param("hireling", "Hireling", "choice", hired[0][0], choices=hired), *_shift_params())

    def _pools(self, sheet: Sheet, p: Mapping[str, Any]) -> tuple[Hireling, Pool, Pool]:
        h = _hirelings(sheet).get(p["hireling"])
        if h is None:
            raise RulesError("You have no hireling to order.")
        hs = _hireling_state(h)
        mine = _build_pool(sheet, {**p, "steel": "", "skills": ()}, ability="WIL")
        theirs = shift_dice((PoolDie(_die_of(hs, "WIL"), f"{h.name}: WIL", "ability"),), 0)
        return h, mine, theirs

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> Odds:
        p = _clean(self, sheet, params)
        h, mine, theirs = self._pools(sheet, p)
        if _hireling_state(h)["paid_up"]:
            return Odds((("obeys", Fraction(1)),), success_keys=("obeys",))
        win, lose, tie = contest_chances(mine.sides, theirs.sides)
        return Odds((("obeys", win), ("refuses", lose + tie)), success_keys=("obeys",))

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        h, mine, theirs = self._pools(sheet, p)
        odds = self.odds(sheet, p)
        if _hireling_state(h)["paid_up"]:
            summary = f"{h.name} is paid up front and does as asked."
            return RollResult(self.key, self.label, "obeys", summary, (), None, odds, _inputs(p))
        base = _roll_contest(self, sheet, p, mine, theirs, rng)
        outcome = "obeys" if base.outcome == "win" else "refuses"
        summary = f"{base.summary} {h.name} {'does it' if outcome == 'obeys' else 'refuses'}."
        return RollResult(self.key, self.label, outcome, summary, base.dice, base.total, odds, base.inputs)


# --- learning, buying, the spell die ----------------------------------------------------------------


@dataclass(frozen=True)
class LearnSpellProcedure:
    """Seed 000 (Spells): a week and 100 coin of components; no more spells than WIL's face."""

    key: str = "learn_spell"
    label: str = "Learn a spell"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("spell", "Spell", "choice", data.SPELLS[0][0], choices=tuple((n, n) for n, _ in data.SPELLS)),
            Param("other", "Or a spell not on the table", "text", ""),
            Param("pay", "Pay 100 coin for components", "bool", True),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        name = p["other"].strip() or p["spell"]
        limit = _die_of(state, "WIL")
        if name in state["spells"]:
            raise RulesError(f"You already know {name}.")
        if len(state["spells"]) >= limit:
            raise RulesError(f"You already know {limit} spells, as many as your WIL allows.")
        if p["pay"]:
            if state["coins"] < SPELL_COST:
                raise RulesError(f"Components cost {SPELL_COST} coin; you have {state['coins']}.")
            state["coins"] -= SPELL_COST
        state["spells"].append(name)
        if not state["spell_die"]:
            state["spell_die"] = _die_of(state, "WIL")
        summary = f"After a week of study you know {name}."
        return RollResult(self.key, self.label, "learned", summary, (), None, None, _inputs(p), state)


@dataclass(frozen=True)
class LearnSkillProcedure:
    """Seed 000 (Skills): a task your background suits may become a skill, up to INT's face."""

    key: str = "learn_skill"
    label: str = "Add a skill"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        return (
            Param("skill", "Skill", "choice", data.SKILLS[0], choices=tuple((s, s) for s in data.SKILLS)),
            Param("other", "Or another skill", "text", ""),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        name = (p["other"].strip() or p["skill"]).lower()
        limit = _die_of(state, "INT")
        if name in state["skills"]:
            raise RulesError(f"You already know {name}.")
        if len(state["skills"]) >= limit:
            raise RulesError(f"You already know {limit} skills, as many as your INT allows.")
        state["skills"].append(name)
        return RollResult(self.key, self.label, "learned", f"New skill: {name}.", (), None, None, _inputs(p), state)


@dataclass(frozen=True)
class BuyProcedure:
    """Seed 000 (Equipment): buy from the price lists; coin is deducted and slots checked."""

    key: str = "buy"
    label: str = "Buy"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        entries = tuple((e.name, f"{e.name} ({e.cost} coin)") for e in CATALOGUE)
        return (
            Param("item", "Item", "choice", entries[0][0], choices=entries),
            Param("quantity", "How many", "int", 1, 1, 100),
        )

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        entry = next(e for e in CATALOGUE if e.name == p["item"])
        return buy(sheet, entry, p["quantity"])


def buy(sheet: Sheet, entry: CatalogueEntry, quantity: int = 1) -> RollResult:
    """Pay for ``quantity`` of a catalogue entry: RulesError when short of coin or unable to carry it."""
    if entry.cost is None:
        raise RulesError(f"{entry.name} has no price; the GM sets one.")
    if isinstance(quantity, bool) or not isinstance(quantity, int) or not 1 <= quantity <= 100:
        raise RulesError("Buy from 1 to 100 at a time.")
    state = _st(sheet)
    cost = entry.cost * quantity
    if cost > state["coins"]:
        raise RulesError(f"{entry.name} costs {cost} coin and you have {state['coins']}.")
    state["coins"] -= cost
    added: tuple[Item, ...] = ()
    if entry.kind != "service":
        item = Item(entry.name, entry.kind, entry.slots, quantity, dict(entry.data))
        check_can_carry(_with_state(sheet, state), item)
        added = (item,)
    summary = f"Bought {quantity} × {entry.name} for {cost} coin; {state['coins']} coin left."
    return RollResult(
        "buy",
        "Buy",
        "bought",
        summary,
        (),
        cost,
        None,
        {"item": entry.name, "quantity": quantity},
        state,
        items_added=added,
    )


@dataclass(frozen=True)
class SpellDieProcedure:
    """Creation rules: the spell die can be any size, changed as often as you like."""

    key: str = "spell_die"
    label: str = "Change spell die"
    gm_only: bool = False

    def params(self, sheet: Sheet) -> tuple[Param, ...]:
        now = _st(sheet)["spell_die"]
        return (Param("die", "Spell die", "choice", str(now) if now else "", choices=((("", "none"),) + DIE_CHOICES)),)

    def odds(self, sheet: Sheet, params: Mapping[str, Any]) -> None:
        return None

    def roll(self, sheet: Sheet, params: Mapping[str, Any], rng: RandomSource) -> RollResult:
        p = _clean(self, sheet, params)
        state = _st(sheet)
        state["spell_die"] = int(p["die"] or 0)
        words = f"Spell die now d{state['spell_die']}." if state["spell_die"] else "No spell die."
        return RollResult(self.key, self.label, "changed", words, (), None, None, _inputs(p), state)


# --- carrying ---------------------------------------------------------------------------------


def check_can_carry(sheet: Sheet, item: Item) -> SlotSummary:
    """Seed 000 (Equipment): refuse an item that would take you past twice your slots.

    The app calls this before adding an item; it returns the slot summary with the item counted.
    """
    state = _st(sheet)
    limit = 2 * _slots_max(state)
    after = _slots_used(sheet, state) + _item_slots(item)
    if after > limit:
        raise RulesError(f"No room for {item.name}: that makes {after} slots and nobody can carry more than {limit}.")
    return slots(Sheet(state=state, items=(*sheet.items, item), hirelings=sheet.hirelings, name=sheet.name))


def slots(sheet: Sheet) -> SlotSummary:
    state = _st(sheet)
    used, maximum = _slots_used(sheet, state), _slots_max(state)
    consequences = ("Over your slots: disadvantage on every test.",) if used > maximum else ()
    return SlotSummary(used, maximum, 2 * maximum, consequences)


# --- catalogue --------------------------------------------------------------------------------

_KINDS = {
    "rations (three days)": "ration",
    "torch (1 hour)": "light",
    "candle (6 hours)": "light",
    "lantern (3 hours)": "light",
    "arrows (20)": "ammo",
    "bolts (20)": "ammo",
    "shield": "shield",
}


def _entry(text: str, cost: int, group: str, kind: str) -> CatalogueEntry:
    parsed = _parse(text)
    kind = _KINDS.get(parsed.name, kind)
    if kind == "armour" and parsed.name == "shield":
        kind = "shield"
    slots_ = 0 if kind in ("animal", "vehicle", "service") else 2 if parsed.bulky else 1
    return CatalogueEntry(parsed.name, kind, cost, slots_, group, _item_data(parsed))


def _catalogue() -> tuple[CatalogueEntry, ...]:
    """Every row of the seed's price lists (seed 000, Equipment), cost in coin."""
    groups = (
        (data.GEAR, "Equipment", "gear"),
        (data.ANIMALS, "Animals", "animal"),
        (data.VEHICLES, "Vehicles", "vehicle"),
        (data.SERVICES, "Services", "service"),
        (data.WEAPONS, "Weapons", "weapon"),
        (data.ARMOUR, "Armour", "armour"),
    )
    return tuple(_entry(text, cost, group, kind) for rows, group, kind in groups for text, cost in rows)


CATALOGUE: tuple[CatalogueEntry, ...] = _catalogue()
_BY_NAME = {e.name: e for e in CATALOGUE}


def _source_item(text: str) -> Item:
    """A starting item from the background table, with the price list's bulk where it names one."""
    parsed = _parse(text)
    listed = _BY_NAME.get(parsed.name) or next((e for e in CATALOGUE if e.name.split(" (")[0] == parsed.name), None)
    item_data = _item_data(parsed)
    kind = "weapon" if parsed.steel_die else "gear"
    slots_ = 1
    if listed is not None:
        item_data = {**dict(listed.data), **item_data}
        kind = listed.kind if not parsed.steel_die else "weapon"
        slots_ = listed.slots
    if parsed.name == "shield":
        kind = "shield"
    elif parsed.protection:
        kind = "armour"
    if item_data.get("bulky"):
        slots_ = 2
    return Item(parsed.name, kind, slots_, 1, item_data, worn=kind in ("armour", "shield"))


# --- creation ---------------------------------------------------------------------------------


def _roll_result(label: str, outcome: str, dice: Sequence[DieRoll], total: int | None = None) -> RollResult:
    return RollResult("create", label, outcome, f"{label}: {outcome}.", tuple(dice), total)


def _pick(name: str, value: Any, options: Sequence[str]) -> str:
    lookup = {o.lower(): o for o in options}
    if not isinstance(value, str) or value.lower() not in lookup:
        raise RulesError(f"{value!r} is not a {name} in the Fell tables.")
    return lookup[value.lower()]


def _assigned_dice(choices: Mapping[str, Any]) -> dict[str, int] | None:
    """Creation rules: d6 each, optionally one lowered to d4 to raise another to d8 (None: roll them)."""
    method = choices.get("abilities") or "roll"
    if method == "roll":
        if choices.get("lower") or choices.get("raise"):
            raise RulesError("Lowering one die to raise another is for assigned dice; choose to assign them.")
        return None
    if method != "assign":
        raise RulesError("Ability dice are either rolled or assigned.")
    out = dict.fromkeys(ABILITIES, 6)
    lower, raise_ = choices.get("lower"), choices.get("raise")
    if bool(lower) != bool(raise_):
        raise RulesError("Lower one ability to d4 only to raise another to d8, both or neither.")
    if lower:
        if lower not in ABILITIES or raise_ not in ABILITIES or lower == raise_:
            raise RulesError("Lower one ability and raise a different one (BOD, INT or WIL).")
        out[lower], out[raise_] = 4, 8
    return out


def _rolled_dice(rng: RandomSource, rolls: list[RollResult]) -> dict[str, int]:
    """Creation rules: d8 per ability, 1-4 d4, 5-6 d6, 7-8 d8."""
    dice, out = [], {}
    for ab in ABILITIES:
        r = roll_die(rng, 8, ab)
        out[ab] = next(die for low, high, die in data.ABILITY_DIE_ROLL if low <= r.face <= high)
        dice.append(r)
    rolls.append(_roll_result("Ability dice", ", ".join(f"{ab} d{out[ab]}" for ab in ABILITIES), dice))
    return out


def create(choices: Mapping[str, Any], rng: RandomSource) -> Creation:
    """Creation rules (creating-a-character.md), rolling in this order whatever is not chosen:

    name (d20 given, d20 family), age (2d20+10), ability dice (d8 BOD, INT, WIL), HP (all ability
    dice, keep the highest), background (d20), spell (d100, when WIL is d8), coin (3d6), traits (d10 for
    each trait table). Choices: name, age, abilities ("roll" | "assign" with lower/raise), hp ("roll" |
    "four"), background, spell, spell_die, traits ("roll" | "none" | a list of words).
    """
    if not isinstance(choices, Mapping):
        raise RulesError("Creation choices must be named.")
    rolls: list[RollResult] = []
    assigned = _assigned_dice(choices)  # refuse a bad choice before any die is rolled
    hp_method = choices.get("hp") or "roll"
    if hp_method not in ("roll", "four"):
        raise RulesError("Hit points are rolled or taken as 4.")
    backgrounds = [b[0] for b in data.BACKGROUNDS]
    chosen_bg = _chosen("background", choices.get("background"), backgrounds)
    spell_names = [s[0] for s in data.SPELLS]
    chosen_spell = _chosen("spell", choices.get("spell"), spell_names)
    traits_choice = choices.get("traits") or "roll"
    if not (traits_choice in ("roll", "none") or isinstance(traits_choice, list | tuple)):
        raise RulesError("Traits are rolled, chosen as a list, or left out.")
    name = str(choices.get("name") or "").strip()[:100]
    if not name:
        given, family = roll_die(rng, 20, "given name"), roll_die(rng, 20, "family name")
        name = f"{data.GIVEN_NAMES[given.face - 1]} {data.FAMILY_NAMES[family.face - 1]}"
        rolls.append(_roll_result("Name", name, (given, family)))
    if choices.get("age") not in (None, ""):
        age = _int(_as_int(choices["age"]), "Age", 1, 1000)
    else:
        age_dice = roll_dice(rng, 2, 20, "age")
        age = sum(d.face for d in age_dice) + 10
        rolls.append(_roll_result("Age", str(age), age_dice, age))
    dice = assigned or _rolled_dice(rng, rolls)
    if hp_method == "roll":
        hp_dice, hp = roll_pool(rng, [dice[ab] for ab in ABILITIES], "highest", list(ABILITIES))
        rolls.append(_roll_result("Hit points", f"{hp} HP", hp_dice, hp))
    else:
        hp = STARTING_HP
    if chosen_bg:
        bg = data.BACKGROUNDS[backgrounds.index(chosen_bg)]
    else:
        r = roll_die(rng, 20, "background")
        bg = data.BACKGROUNDS[r.face - 1]
        rolls.append(_roll_result("Background", bg[0], (r,), r.face))
    spells: list[str] = []
    spell_die = 0
    if dice["WIL"] == 8:
        if chosen_spell:
            spells.append(chosen_spell)
        else:
            r = roll_die(rng, 100, "spell")
            spells.append(spell_names[r.face - 1])
            rolls.append(_roll_result("Spell", spells[0], (r,), r.face))
        spell_die = _die(_as_int(choices.get("spell_die") or 8), "The spell die")
    coin_dice = roll_dice(rng, 3, 6, "coin")
    coins = sum(d.face for d in coin_dice)
    rolls.append(_roll_result("Coin", f"{coins} coin", coin_dice, coins))
    traits = _creation_traits(traits_choice, rng, rolls)
    state = validate_state(
        {
            **_default_state(),
            "abilities": {ab: {"die": d, "full_die": d, "points": d} for ab, d in dice.items()},
            "hp": hp,
            "hp_max": hp,
            "skills": [bg[1]],
            "spells": spells,
            "spell_die": spell_die,
            "coins": coins,
            "background": bg[0],
            "age": age,
            "traits": traits,
        }
    )
    items = tuple(_source_item(t) for t in (*bg[2], *data.STARTING_KIT))
    return Creation(name, state, items, tuple(rolls))


def _chosen(name: str, value: Any, options: Sequence[str]) -> str:
    """A table row picked on a form; empty or "roll" leaves it to the dice."""
    if value in (None, "", "roll"):
        return ""
    return _pick(name, value, options)


def _as_int(value: Any) -> Any:
    try:
        return int(value)
    except (TypeError, ValueError):
        return value


def _creation_traits(choice: Any, rng: RandomSource, rolls: list[RollResult]) -> list[str]:
    if choice == "none":
        return []
    if isinstance(choice, list | tuple):
        return _words(list(choice), "Traits", 20)
    if choice != "roll":
        raise RulesError("Traits are rolled, chosen as a list, or left out.")
    out, dice = [], []
    for category, table in data.TRAITS.items():
        r = roll_die(rng, len(table), category.lower())
        dice.append(r)
        out.append(f"{category}: {table[r.face - 1]}")
    rolls.append(_roll_result("Traits", "; ".join(out), dice))
    return out


# --- the creation and hire forms ----------------------------------------------------------------

_ROLL = ("roll", "Roll for it")
_BACKGROUND_CHOICES = tuple((b[0], f"{b[0]} ({b[1]})") for b in data.BACKGROUNDS)
_RAISE_STEPS = len(LADDER) - 1


def creation_params() -> tuple[Param, ...]:
    """The creation form (creating-a-character.md): every choice may be left to the dice.

    Values are what ``create`` takes; an empty answer never reaches it (the app drops empty values).
    """
    pick_one = (("", "—"), *ABILITY_CHOICES)
    return (
        Param("name", "Name", "text", "", help="Leave empty to roll a given and a family name."),
        Param("age", "Age", "int", None, 1, 1000, help="Leave empty to roll 2d20 + 10."),
        Param(
            "abilities",
            "Ability dice",
            "choice",
            "roll",
            choices=(("roll", "Roll a d8 for each: 1–4 d4, 5–6 d6, 7–8 d8"), ("assign", "Take a d6 in each")),
        ),
        Param("lower", "Lower to d4", "choice", "", choices=pick_one, help="Only with d6 in each, and with a raise."),
        Param("raise", "Raise to d8", "choice", "", choices=pick_one, help="Only with d6 in each, and with a lower."),
        Param(
            "hp",
            "Hit points",
            "choice",
            "roll",
            choices=(("roll", "Roll every ability die, keep the highest"), ("four", f"Start with {STARTING_HP}")),
        ),
        Param(
            "background",
            "Background",
            "choice",
            "roll",
            choices=(("roll", "Roll a d20"), *_BACKGROUND_CHOICES),
            help="It brings one skill and its tools.",
        ),
        Param(
            "spell",
            "Spell",
            "choice",
            "roll",
            choices=(("roll", "Roll a d100"), *((n, n) for n, _ in data.SPELLS)),
            help="Only a WIL of d8 starts with a spell.",
        ),
        Param(
            "spell_die",
            "Spell die",
            "choice",
            "8",
            choices=DIE_CHOICES,
            help="Only with a spell; any size, and you may change it whenever you like.",
        ),
        Param(
            "traits",
            "Traits",
            "choice",
            "roll",
            choices=(("roll", "Roll on each trait table"), ("none", "None for now")),
        ),
    )


def hire_params(sheet: Sheet) -> tuple[Param, ...]:
    """The hire form (seed 000, Hirelings): what ``hire`` takes, with the wage each raise adds."""
    raises = tuple(
        Param(
            f"raise_{ab}",
            f"Raise {ab} from d4 by",
            "int",
            0,
            0,
            _RAISE_STEPS,
            help=f"Steps up the ladder; each adds {WAGE_PER_STEP} coin a day.",
        )
        for ab in ABILITIES
    )
    return (
        Param("name", "Name", "text", "", help="Leave empty to roll one."),
        Param(
            "background",
            "Background",
            "choice",
            "roll",
            choices=(("roll", "Roll a d20"), *_BACKGROUND_CHOICES),
        ),
        Param(
            "hp",
            "Hit points",
            "choice",
            "three",
            choices=(("three", f"Start with {HIRELING_HP}"), ("roll", "Roll every ability die, keep the highest")),
        ),
        *raises,
    )


# --- the system ---------------------------------------------------------------------------------


PROCEDURES: dict[str, Procedure] = {
    p.key: p
    for p in (
        TestProcedure(),
        ContestProcedure(),
        CastProcedure(),
        AttackProcedure(),
        TakeHarmProcedure(),
        NpcAttackProcedure(),
        RestProcedure(),
        DeprivationProcedure(),
        DyingProcedure(),
        ReactionProcedure(),
        LeverageProcedure(),
        MoraleProcedure(),
        AdvanceProcedure(),
        PayHirelingsProcedure(),
        OrderHirelingProcedure(),
        LearnSpellProcedure(),
        LearnSkillProcedure(),
        BuyProcedure(),
        SpellDieProcedure(),
    )
}

_ADJUSTABLE = ("hp", "hp_max", *ABILITIES, "coins", "fatigue")


@dataclass(frozen=True)
class FellDraft(GameSystem):
    """Fell (v0.4-era draft): the GameSystem for seed 000."""

    id: str = "fell-draft"
    name: str = "Fell (draft, ability points)"
    coin_label: str = "coin"
    credit: str = data.CREDIT
    private_fields: tuple[str, ...] = ()  # nothing on a Fell sheet is hidden from the table

    def default_state(self) -> dict[str, Any]:
        return _default_state()

    def validate_state(self, state: Mapping[str, Any]) -> dict[str, Any]:
        return validate_state(state)

    def create(self, choices: Mapping[str, Any], rng: RandomSource) -> Creation:
        return create(choices, rng)

    def tracks(self, sheet: Sheet) -> tuple[Track, ...]:
        state = _st(sheet)
        out = [Track("hp", "HP", state["hp"], state["hp_max"])]
        for ab in ABILITIES:
            a = state["abilities"][ab]
            out.append(Track(ab, f"{ab} (d{a['die']})", a["points"], a["die"]))
        out += [
            Track("protection", "Protection", protection(sheet), MAX_PROTECTION, adjustable=False),
            Track("fatigue", "Fatigue", state["fatigue"]),
            Track("coins", "Coin", state["coins"]),
        ]
        return tuple(out)

    def adjust(self, sheet: Sheet, key: str, delta: int) -> dict[str, Any]:
        """Change a track by ``delta``, clamped: HP to 0..max, points to 0..die, coin and fatigue ≥ 0."""
        if key not in _ADJUSTABLE:
            raise RulesError(f"{key} cannot be changed by hand.")
        if isinstance(delta, bool) or not isinstance(delta, int) or abs(delta) > 100_000:
            raise RulesError("Change it by a whole number.")
        state = _st(sheet)
        if key in ABILITIES:
            a = state["abilities"][key]
            a["points"] = min(a["die"], max(0, a["points"] + delta))
        elif key == "hp":
            state["hp"] = min(state["hp_max"], max(0, state["hp"] + delta))
        elif key == "hp_max":
            state["hp_max"] = max(0, min(999, state["hp_max"] + delta))
            state["hp"] = min(state["hp"], state["hp_max"])
        elif key == "coins":
            state["coins"] = max(0, state["coins"] + delta)
            if delta > 0:
                limit = 2 * _slots_max(state)
                if _slots_used(sheet, state) > limit:
                    raise RulesError(f"That much coin would take you past {limit} slots, more than anyone carries.")
        else:
            state["fatigue"] = max(0, state["fatigue"] + delta)
        return state

    def slots(self, sheet: Sheet) -> SlotSummary:
        return slots(sheet)

    def conditions(self, sheet: Sheet) -> tuple[str, ...]:
        state = _st(sheet)
        if _is_dead(state):
            return ("Dead",)
        out = []
        if state["dying"]:
            out.append("Unconscious and dying")
        if state["deprived"]:
            out.append("Deprived")
        if state["fatigue"]:
            out.append(f"Fatigued ({state['fatigue']})")
        if _slots_used(sheet, state) > _slots_max(state):
            out.append("Over-encumbered")
        if state["hireling"] and not state["paid_up"]:
            out.append("Unpaid")
        if retired(state):
            out.append("Ready to retire")
        return tuple(out)

    def procedures(self) -> Mapping[str, Procedure]:
        return PROCEDURES

    def catalogue(self) -> tuple[CatalogueEntry, ...]:
        return CATALOGUE

    def format_money(self, amount: int) -> str:
        return f"{amount} coin"

    def hireling_limit(self, sheet: Sheet) -> int:
        """Seed 000 (Hirelings): as many as WIL, the WIL die's highest face (spec §000.12.2)."""
        return _die_of(_st(sheet), "WIL")

    def creation_params(self) -> tuple[Param, ...]:
        return creation_params()

    def hire_params(self, sheet: Sheet) -> tuple[Param, ...]:
        return hire_params(sheet)

    def hire(self, sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
        return hire(sheet, choices, rng)

    def validate_item(self, item: Item) -> Item:
        return validate_item(item)

    def validate_hireling(self, hireling: Hireling) -> Hireling:
        return validate_hireling(hireling)

    # helpers the app calls beyond the protocol
    def check_can_carry(self, sheet: Sheet, item: Item) -> SlotSummary:
        return check_can_carry(sheet, item)

    def buy(self, sheet: Sheet, entry: CatalogueEntry, quantity: int = 1) -> RollResult:
        return buy(sheet, entry, quantity)

    def protection(self, sheet: Sheet) -> int:
        return protection(sheet)

    def retired(self, sheet: Sheet) -> bool:
        return retired(_st(sheet))


def hire(sheet: Sheet, choices: Mapping[str, Any], rng: RandomSource) -> Hireling:
    """Seed 000 (Hirelings): made like a character but d4 in every ability, HP rolled or 3.

    Choices: name, background, hp ("three" | "roll"), raise ({"BOD": 1, ...} one-step raises at +5
    coin a day each). Rolls, when not chosen: name (2 d20), background (d20), HP (all dice, highest).
    Refused past WIL's face in hirelings, or without a day's wage in hand.
    """
    state = _st(sheet)
    limit = _die_of(state, "WIL")
    if len(sheet.hirelings) >= limit:
        raise RulesError(f"Your WIL lets you keep {limit} hirelings, and you have them all.")
    raises = choices.get("raise") or {}
    if not isinstance(raises, Mapping) or set(raises) - set(ABILITIES):
        raise RulesError("Raise abilities as BOD, INT or WIL with a number of steps.")
    flat = {ab: choices[f"raise_{ab}"] for ab in ABILITIES if choices.get(f"raise_{ab}") not in (None, "")}
    raises = {**raises, **flat}  # the hire form sends one number per ability
    dice = {}
    for ab in ABILITIES:
        steps = _int(raises.get(ab, 0), f"Steps for {ab}", 0, len(LADDER) - 1)
        dice[ab] = LADDER[steps]
    name = str(choices.get("name") or "").strip()[:100]
    if not name:
        given, family = roll_die(rng, 20, "given name"), roll_die(rng, 20, "family name")
        name = f"{data.GIVEN_NAMES[given.face - 1]} {data.FAMILY_NAMES[family.face - 1]}"
    backgrounds = [b[0] for b in data.BACKGROUNDS]
    chosen_bg = _chosen("background", choices.get("background"), backgrounds)
    if chosen_bg:
        bg = data.BACKGROUNDS[backgrounds.index(chosen_bg)]
    else:
        bg = data.BACKGROUNDS[roll_die(rng, 20, "background").face - 1]
    hp_method = choices.get("hp") or "three"
    if hp_method == "roll":
        _, hp = roll_pool(rng, [dice[ab] for ab in ABILITIES], "highest")
    elif hp_method == "three":
        hp = HIRELING_HP
    else:
        raise RulesError("A hireling's HP is rolled or 3.")
    items = [_source_item(t) for t in bg[2]]
    hstate = validate_state(
        {
            **_default_state(),
            "abilities": {ab: {"die": d, "full_die": d, "points": d} for ab, d in dice.items()},
            "hp": hp,
            "hp_max": hp,
            "skills": [bg[1]],
            "background": bg[0],
            "hireling": True,
            "steel_die": max((_steel(i) for i in items), default=0),
            "equipment": [i.name for i in items],
        }
    )
    wage = hireling_wage(hstate)
    if state["coins"] < wage:
        raise RulesError(f"{name} wants {wage} coin a day and you have {state['coins']}.")
    return Hireling(name, "hireling", hstate, wage)


SYSTEM = FellDraft()
