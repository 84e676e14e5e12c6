"""Fortune's Favor at the GM's table: the group result of a requested test, NPCs in the encounter tracker,
the round's three phases, and what passing time does to a sheet (hours awake, sleep deprivation, treacherous
terrain, statuses running out by the round).

Seed 003 (Group Tests; Combat; Exchanges; Engaged; A Night's Rest; Treacherous Terrain; Quick Retrieval;
Statuses) and spec §003.4, §003.5, §003.6, §003.8, §003.9.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.base import (
    ENEMIES,
    PARTY,
    WHAT_IF_BANE,
    WHAT_IF_BOON,
    WHAT_IF_DARK,
    WHAT_IF_EASIER,
    WHAT_IF_HARDER,
    WORLD,
    AttackHarm,
    CombatOrder,
    GroupResult,
    NpcHarm,
    NpcHit,
    Odds,
    Param,
    RollResult,
    Sheet,
    TimeUnit,
    WhatIfMove,
    moved_what_if,
)
from rules.clock import boundaries
from rules.dice import FF_DAMAGE_LADDER, DieRoll, RandomSource, ff_damage_step, roll_die, roll_pool
from rules.errors import RulesError
from rules.systems.fortunes_favor.checks import OUTCOME_WORDS, TARGET_MAX
from rules.systems.fortunes_favor.checks import group_result as net_result
from rules.systems.fortunes_favor.features import FEATURES, TARGET_STATUSES, VETERAN, disrupt_dice, target_situation
from rules.systems.fortunes_favor.rest import AWAKE_LIMIT, StayAwakeProcedure
from rules.systems.fortunes_favor.state import (
    HOURS_MAX,
    LAST_STAND_ROUNDS,
    _st,
    armor,
    counter,
    health_max,
    is_dead,
    stamina_max,
)
from rules.systems.fortunes_favor.travel import FeatProcedure

# --- the group test (seed 003, Group Tests; spec §003.4) ------------------------------------------------------

GROUP_PROCEDURES = ("test",)  # a Test the GM asks of several characters is a Group Test


def group_result(procedure: str, outcomes: Sequence[str]) -> GroupResult | None:
    """Seed 003, Group Tests: count Passes, Mixed and Fails; the larger of Passes and Fails less the other is the
    group's result when it beats the Mixed count, otherwise the group is Mixed (spec §003.11.7: a tie is Mixed)."""
    if procedure not in GROUP_PROCEDURES or not outcomes:
        return None
    passes, mixed, fails = (sum(1 for o in outcomes if o == key) for key in ("pass", "mixed", "fail"))
    outcome = net_result(passes, mixed, fails)
    summary = (
        f"Group test: {passes} passed, {mixed} mixed, {fails} failed: the group's result is {OUTCOME_WORDS[outcome]}."
    )
    return GroupResult(outcome, summary)


# --- NPCs in the encounter tracker (seed 003, Exchanges; Taking Damage; Engaged; spec §003.6) -----------------


def _dice_words(dice: tuple[int, ...]) -> str:
    return f"{len(dice)}d{dice[0]}"


DAMAGE_LADDER = FF_DAMAGE_LADDER[:13]  # 1d4 … 3d12
DAMAGE_CHOICES = tuple((_dice_words(d), _dice_words(d)) for d in DAMAGE_LADDER)
NPC_FIELDS: tuple[Param, ...] = (
    Param("health", "Health", "int", 10, 0, 999, help="Damage lowers it; at 0 the creature is defeated."),
    Param("stamina", "Stamina", "int", 0, 0, 999, help="For its abilities, at the GM's word."),
    Param("armor", "Armor", "int", 12, 0, 40, help="An attack test's Success point against it."),
    Param("counter", "Counter", "int", 7, 0, 40, help="An attack test's Failure point against it (usually Armor − 5)."),
    Param("attack", "Attack bonus", "int", 2, -10, 30),
    Param("damage", "Damage dice", "choice", "1d6", choices=DAMAGE_CHOICES),
    Param("damage_bonus", "Damage bonus", "int", 0, -10, 30),
)
NPC_ROLLS = MappingProxyType(
    {"attack": "Attack", "engaged_attack": "Attack while Engaged", "ranged_attack": "Ranged attack"}
)
ATTACK_ODDS = Odds(
    (("critical", Fraction(1, 20)), ("rolled", Fraction(18, 20)), ("fumble", Fraction(1, 20))),
    success_keys=("critical", "rolled"),
)


def npc_damage(
    stats: Mapping[str, Any],
    start: Mapping[str, Any],
    amount: int,
    ignore_armour: bool = False,
    rng: RandomSource | None = None,
) -> NpcHarm:
    """Seed 003, Taking Damage: damage comes off Health, never below 0 (Armor decides whether an attack lands,
    it takes nothing off the damage); at 0 Health the creature is defeated. The seed has no morale."""
    before = int(stats["health"])
    left = max(0, before - max(0, amount))
    dealt = before - left
    words = f"{dealt} damage: Health {before} → {left}."  # the table adds "defeated" at 0
    return NpcHarm({**stats, "health": left}, dealt, defeated=left <= 0, words=words)


def _mode_odds(mode: str) -> Odds:
    """The kept d20's 20 and 1 with one die, or two kept high (Fortune's Favor) or low (Misfortune)."""
    if mode == "plain":
        return ATTACK_ODDS
    twenty = Fraction(39, 400) if mode == "favor" else Fraction(1, 400)
    one = Fraction(1, 400) if mode == "favor" else Fraction(39, 400)
    return Odds(
        (("critical", twenty), ("rolled", 1 - twenty - one), ("fumble", one)), success_keys=("critical", "rolled")
    )


def npc_roll_at(key: str, stats: Mapping[str, Any], sheet: Sheet | None, rng: RandomSource) -> RollResult:
    """Seed 003, Statuses, read from the target PC's sheet: attacks on a Blind character have Fortune's Favor; on a
    Prone one, melee attacks have Fortune's Favor and ranged ones Misfortune (they cancel one for one)."""
    if sheet is None or key not in NPC_ROLLS:
        return npc_roll(key, stats, rng)
    state = _st(sheet)
    favor, misfortune, notes = target_situation(state["statuses"], key == "ranged_attack")
    net = favor - misfortune
    mode = "favor" if net > 0 else "misfortune" if net < 0 else "plain"
    return npc_roll(key, stats, rng, mode, notes, disrupt_dice(state))


def npc_roll(
    key: str,
    stats: Mapping[str, Any],
    rng: RandomSource,
    mode: str = "plain",
    notes: Sequence[str] = (),
    disrupt: tuple[int, ...] = (),
) -> RollResult:
    """Seed 003, Exchanges: the attacker tests d20 + its attack bonus against the target's Armor (Success) and
    Counter (Failure): a clean hit deals its damage, a Mixed is a Clash, a Fail is Countered. A natural 20 always
    hits for double damage, a natural 1 always misses (spec §003.4). Seed 003, Engaged: a non-boss monster
    that is Engaged rolls its damage dice one step down (an Engaged minion cannot act at all)."""
    if key not in NPC_ROLLS:
        raise RulesError(f"Fortune's Favor has no NPC roll called {key!r}.")
    bonus = int(stats["attack"])
    dice = ff_damage_step(str(stats["damage"]), -1 if key == "engaged_attack" else 0)
    d20 = roll_die(rng, 20, "attack")
    d20s: tuple[DieRoll, ...] = (d20,)
    if mode != "plain":  # in the order rolled; the one not kept is marked so
        other = roll_die(rng, 20, "Fortune's Favor" if mode == "favor" else "Misfortune")
        second_wins = other.face != d20.face and (other.face > d20.face) == (mode == "favor")
        if second_wins:
            d20s = (DieRoll(d20.sides, d20.face, False, d20.label), other)
            d20 = other
        else:
            d20s = (d20, DieRoll(other.sides, other.face, False, other.label))
    rolled, damage = roll_pool(rng, dice, "sum", ["damage"] * len(dice))
    damage = max(0, damage + int(stats["damage_bonus"]))
    total = d20.face + bonus
    # the target's Disrupt Infusion (Spellsword): its Infusion Dice come off the attack roll
    cut, less = roll_pool(rng, disrupt, "sum", ["Disrupt"] * len(disrupt)) if disrupt else ((), 0)
    total -= less
    rolled = (*rolled, *cut)
    if disrupt:
        notes = (*notes, f"the target's Disrupt: −{less}")
    if d20.face == 20:
        outcome, words = "critical", f"a natural 20: it hits, for double damage, {2 * damage}"
    elif d20.face == 1:
        outcome, words = "fumble", "a natural 1: it misses whatever the target's Armor"
    else:
        outcome = "rolled"
        words = (
            f"a clean hit if the target's Armor is {total} or less ({damage} damage); against a higher Armor, "
            f"a Clash if its Counter is {total} or less, otherwise Countered"
        )
    dice_words = _dice_words(dice) + (" (a step down: Engaged)" if key == "engaged_attack" else "")
    shown = f"{bonus} − {less}" if disrupt else f"{bonus}"
    summary = f"Attack d20 {d20.face} + {shown} = {total}: {words}. Damage {dice_words} + {stats['damage_bonus']}."
    if notes:
        summary += f" ({'; '.join(notes)})"
    dealt = 2 * damage if outcome == "critical" else damage
    return RollResult(
        key,
        NPC_ROLLS[key],
        outcome,
        summary,
        (*d20s, *rolled),
        total,
        _mode_odds(mode),
        details={"damage": dealt},
    )


def npc_attack_harm(result: RollResult, sheet: Sheet) -> AttackHarm | None:
    """Seed 003, Exchanges: against this target's Armor a clean hit deals its damage (a natural 20 always, double);
    a Clash (at or above its Counter) or Countered deals none here: the GM plays the Clash out."""
    if result.procedure not in NPC_ROLLS or result.total is None:
        return None
    state = _st(sheet)
    if result.outcome == "critical" or (result.outcome == "rolled" and result.total >= armor(state)):
        damage = int(result.details.get("damage", 0))
        words = f"{'a natural 20' if result.outcome == 'critical' else 'hit'}, {damage} damage"
        return AttackHarm(True, damage, words, {"damage": damage})
    if result.outcome == "rolled" and result.total >= counter(state):
        return AttackHarm(False, 0, f"a Clash against Armor {armor(state)}: no damage lands by itself")
    return AttackHarm(False, 0, "countered" if result.outcome == "rolled" else "a natural 1, a miss")


# --- a PC's attack on an NPC (seed 003, Exchanges: d20 + attack bonus against Armor and Counter) ----------------

NPC_TARGETS = ("attack",)


def npc_target_params(procedure: str, stats: Mapping[str, Any]) -> Mapping[str, Any]:
    """Seed 003, Exchanges: the test is against the target's Armor (Success) and Counter (Failure): the NPC's
    (and no character is the target)."""
    return {"armor": int(stats["armor"]), "counter": int(stats["counter"]), "target": None}


def hits_on_npc(result: RollResult) -> tuple[NpcHit, ...]:
    """Seed 003, Exchanges: a clean hit (or a Clash, where the table's setting says it deals damage) deals its
    damage; Armor took nothing off it (Taking Damage)."""
    damage = result.details.get("damage")
    if result.procedure != "attack" or damage is None:
        return ()
    return (NpcHit(int(damage)),)


# --- the round (seed 003, Combat: 30 seconds, three phases; spec §003.6) --------------------------------------

ROUND_PHASES = (
    "The surroundings act: fire spreads, the bridge gives way.",
    "Every player, in any order: one Action and up to their Speed in movement, split around it.",
    "Every enemy acts (an Engaged minion cannot).",
)
ROUND_SECONDS = 30


def combat_order(round_number: int, rng: RandomSource) -> CombatOrder:
    """Seed 003, Combat: the same three phases every round, no dice."""
    return CombatOrder(
        ROUND_PHASES,
        f"Round {round_number}: the surroundings, then every player in any order, then every enemy.",
        sides=(WORLD, PARTY, ENEMIES),
    )


# --- time (seed 003, A Night's Rest; Treacherous Terrain; Statuses; spec §003.5, §003.8) ---------------------

HOUR, DAY = 60, 24 * 60
TIME_UNITS = (
    TimeUnit("round", "Round (30 seconds)", 0, ROUND_SECONDS),
    TimeUnit("minute", "Minute (2 rounds)", 1),
    TimeUnit("hour", "Hour", HOUR),
    TimeUnit("terrain", "Hour through treacherous terrain", HOUR, plain=False),
    TimeUnit("day", "Day (24 hours: awake unless resting)", DAY),
)
RESTING_ASLEEP = ("night", "rr")  # a Night's Rest or an R&R in progress: those hours are not spent awake


def _seconds(unit: str) -> int:
    for known in TIME_UNITS:
        if known.key == unit:
            return known.length
    raise RulesError(f"Fortune's Favor counts time in rounds, minutes, hours and days, not {unit!r}.")


def advance_time(
    sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
) -> RollResult:
    """Time passing for one character. Statuses that last some rounds run down, a round each 30 seconds (seed
    003, Combat: each round of combat is 30 seconds of game time), and Defend ends (seed 003, Statuses). Each hour
    is an hour awake unless a Night's Rest or an R&R is under way; past 24 hours awake, each hour is a Mettle test
    that can cut Stamina and its maximum (seed 003, A Night's Rest). Each hour through treacherous terrain is a
    Mettle test 13/8, a Mixed costing 1 Stamina and a Fail 2 (seed 003, Treacherous Terrain). Quick Retrieval's
    slots stay held: only an R&R frees them (Quick Retrieval). ``start_seconds``: how far into the minute the
    clock stands, so that rounds crossing a minute (and an hour) count it.
    """
    seconds = _seconds(unit) * count
    minutes = (start_seconds + seconds) // 60  # the whole minutes the clock passes (a round is half of one)
    state = _st(sheet)
    if is_dead(state):
        return RollResult("time", "Time passes", "passed", "")
    words = _rounds_pass(state, seconds // ROUND_SECONDS)
    dice: list[DieRoll] = []
    tested = False
    for _ in range(boundaries(start_minutes, minutes, HOUR)):
        if is_dead(state):
            break
        out_cold = "Incapacitated" in state["statuses"]  # unconscious: no test, no choice of path
        if unit == "terrain" and not out_cold:
            step = FeatProcedure().roll(sheet.with_state(state), {"feat": "terrain"}, rng)
            state, dice = dict(step.state or state), [*dice, *step.dice]
            words.append(step.summary)
        if state["resting"] in RESTING_ASLEEP:
            continue
        if state["hours_awake"] < AWAKE_LIMIT or out_cold:
            state["hours_awake"] = min(HOURS_MAX, state["hours_awake"] + 1)
            continue
        step = StayAwakeProcedure().roll(sheet.with_state(state), {}, rng)
        state, dice, tested = dict(step.state or state), [*dice, *step.dice], True
        words.append(step.summary)
    if minutes >= HOUR and not tested and state["resting"] not in RESTING_ASLEEP:
        hours = state["hours_awake"]
        words.append(f"{hours} hour{'s' if hours != 1 else ''} awake.")
    if state["quick_retrieval"] and minutes >= DAY:
        words.append(f"{state['quick_retrieval']} gear slots still held by Quick Retrieval until an R&R.")
    return RollResult(
        "time", "Time passes", "passed", " ".join(words), tuple(dice), state=state if state != _st(sheet) else None
    )


def _rounds_pass(state: dict[str, Any], rounds: int) -> list[str]:
    """``rounds`` combat rounds go by: statuses with a duration shorten or end; Defend ends; a Last Stand refills
    at each round's start and kills at the end of its fifth (seed 003, Last Stand; spec §003.6 [REC])."""
    if rounds <= 0:
        return []
    words = []
    ended = sorted(name for name, left in state["statuses"].items() if 0 < left <= rounds)
    state["statuses"] = {
        name: (left - rounds if left else 0) for name, left in state["statuses"].items() if name not in ended
    }
    if ended:
        words.append(f"No longer {', '.join(ended)}.")
    if state["defending"]:
        state["defending"] = False
        words.append("Defend ends.")
    if state["last_stand"]:
        if state["last_stand"] + rounds > LAST_STAND_ROUNDS:
            state["last_stand"] = LAST_STAND_ROUNDS
            state["dead"] = True
            words.append("The Last Stand's five rounds are over: dead.")
        else:
            state["last_stand"] += rounds
            state["health"], state["stamina"] = health_max(state), stamina_max(state)
            words.append(f"Last Stand round {state['last_stand']}: Health and Stamina full.")
    return words


# --- a PC's attack on the encounter's NPCs (seed 003, Exchanges; AOE Exchange; Statuses) ----------------------

ATTACK_CHOICES = ("maneuver", "feature", "ranged", "spend_favor")
AREA_FEATURES = frozenset(
    {name for (_, name), f in FEATURES.items() if f.kind == "area"} | {"Spinning Lariat"}
)  # the class features that make an AOE Exchange
ATTACK_FEATURES = frozenset(
    {name for (_, name), f in FEATURES.items() if f.kind == "attack"}
    | {name for name, f in VETERAN.items() if f.kind == "attack"}
)


def pc_attack_on_npcs(
    npcs: Sequence[tuple[Mapping[str, Any], Sequence[str]]], choices: Mapping[str, Any]
) -> tuple[str, dict[str, Any]] | None:
    """One NPC: an Exchange against its Armor and Counter, its Prone or Blind status (as the GM named it) giving
    the attack Fortune's Favor or Misfortune (seed 003, Statuses). Several: an AOE Exchange, one roll against
    each one's Armor and Counter (statuses that favour one target and not another have no single roll to
    change, so they are left to the GM)."""
    if not npcs:
        return None
    picked = {k: choices[k] for k in ATTACK_CHOICES if k in choices and choices[k] not in (None, "")}
    feature = str(picked.get("feature") or "")
    if feature and feature not in AREA_FEATURES | ATTACK_FEATURES:
        raise RulesError(f"{feature[:40]} is not a class feature that attacks.")
    if feature and feature not in AREA_FEATURES:  # a single target's class feature (Yoink, Lucky Shot...)
        picked["maneuver"] = picked.pop("feature")
    if len(npcs) == 1 and not picked.get("feature"):  # an area feature is an AOE Exchange even on one target
        stats, statuses = npcs[0]
        names = {str(s).strip().lower() for s in statuses}
        params: dict[str, Any] = {"armor": int(stats["armor"]), "counter": int(stats["counter"])}
        # the attack reads them as it reads a character target's (features.target_situation)
        params["target_statuses"] = tuple(name for name in TARGET_STATUSES if name.lower() in names)
        params.update({k: v for k, v in picked.items() if k != "feature"})
        return "attack", params
    armors = ", ".join(f"{int(s['armor'])}/{int(s['counter'])}" for s, _ in npcs)
    area: dict[str, Any] = {
        "armors": armors,
        "feature": picked.get("feature", ""),
        "spend_favor": picked.get("spend_favor", False),
    }
    return "area_attack", area


def pc_attack_damage(result: RollResult, count: int) -> list[int]:
    """What each NPC takes: the Exchange's damage on its one target; an AOE's damage on each target it hit."""
    damage = int(result.details.get("damage") or 0)
    if result.procedure == "area_attack":
        return [damage if r == "pass" else 0 for r in result.details.get("results", [])][:count]
    return [damage] + [0] * (count - 1)


# --- the GM's "what if" on a group check (issue 40) ----------------------------------------------------------------

DIFFICULTY_STEP = 5  # seed 003, Tests: difficulties go 10, 15, 20, 25
WHAT_IFS: Mapping[str, str] = MappingProxyType(
    {
        WHAT_IF_DARK: "In the dark",
        WHAT_IF_HARDER: "One difficulty harder (+5)",
        WHAT_IF_EASIER: "One difficulty easier (−5)",
        WHAT_IF_BOON: "Fortune's Favor for all",
        WHAT_IF_BANE: "Misfortune for all",
    }
)
WHAT_IF_MOVES: Mapping[str, tuple[WhatIfMove, ...]] = MappingProxyType(
    {
        WHAT_IF_HARDER: (("success", DIFFICULTY_STEP, 1, TARGET_MAX), ("failure", DIFFICULTY_STEP, 0, TARGET_MAX)),
        WHAT_IF_EASIER: (("success", -DIFFICULTY_STEP, 1, TARGET_MAX), ("failure", -DIFFICULTY_STEP, 0, TARGET_MAX)),
        WHAT_IF_BOON: (("favor", True, 0, 1),),
        WHAT_IF_BANE: (("misfortune", True, 0, 1),),
    }
)


def what_if(condition: str, sheet: Sheet, params: Mapping[str, Any]) -> tuple[Sheet, dict[str, Any]] | None:
    """Seed 003, Tests: a difficulty step moves the Success and Failure points by 5 (an empty Failure point
    follows the Success point); Fortune's Favor and Misfortune roll a second d20 and keep the higher or lower."""
    return moved_what_if(condition, sheet, params, WHAT_IF_MOVES)


def npc_attack_outside(result: RollResult) -> AttackHarm | None:
    """Seed 003, Exchanges, against a target of another system, which has no Armor here: the stat block's
    (``npc_stand_in``: Armor 12, Counter 7) stands in; a clean hit deals its damage, the target's own rules take
    its armour off."""
    if result.procedure not in NPC_ROLLS or result.total is None:
        return None
    stand_in = {p.name: p.default for p in NPC_FIELDS}
    target_armor, target_counter = int(stand_in["armor"]), int(stand_in["counter"])
    if result.outcome == "critical" or (result.outcome == "rolled" and result.total >= target_armor):
        damage = int(result.details.get("damage", 0))
        return AttackHarm(True, damage, f"{'a natural 20' if result.outcome == 'critical' else 'hit'}, {damage} damage")
    if result.outcome == "rolled" and result.total >= target_counter:
        return AttackHarm(False, 0, f"a Clash against Armor {target_armor}: no damage lands by itself")
    return AttackHarm(False, 0, "countered" if result.outcome == "rolled" else "a natural 1, a miss")


def harm_from_outside(amount: int) -> dict[str, Any]:
    """Seed 003, Taking Damage: another system's blow is damage taken, nothing deflected."""
    return {"damage": amount}
