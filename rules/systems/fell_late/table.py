"""Fell (late) at the GM's table: NPCs in the encounter tracker, the order of a round, and what passing time does
to a sheet (light, food, until-dawn drawbacks) and to the table (the luck die).

Seed 001 (Turns and Rounds; Attacks; Armor; Morale; Harm and Death; Luck; Deprivation and Fatigue; Spells) and
spec §001.2 (NPC defaults, the price list), §001.5.9-10, §001.6, §001.7, §001.9, §001.11.9.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
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
    AttackHarm,
    Banner,
    CombatOrder,
    Item,
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
from rules.clock import LightProcedure, Lights, boundaries, burn, lit
from rules.dice import RandomSource, adv_dis_pool, pool_dist, roll_die, roll_pool
from rules.errors import RulesError
from rules.systems.fell_late.checks import DIE_CHOICES
from rules.systems.fell_late.npcs import LuckProcedure
from rules.systems.fell_late.state import DN_DEFAULT, DN_MAX, DN_MIN, HP_MAX, MAX_ARMOUR, SHIFT_MAX, st, step

# --- NPCs in the encounter tracker -------------------------------------------------------------------------

# Spec §001.2, NPC defaults: 4 HP, no armour, d6 in every attribute unless the bestiary says otherwise.
ROLES = (
    ("group", "One of a group"),
    ("leader", "Their leader"),
    ("lone", "A lone enemy"),
    ("detachment", "A detachment (a group as one)"),
)
NPC_FIELDS: tuple[Param, ...] = (
    Param("hp", "HP", "int", 4, 0, HP_MAX),
    Param("armour", "Armour", "int", 0, 0, MAX_ARMOUR, help="Taken off each attack's harm; never above 3."),
    Param("str_die", "STR die", "choice", "6", choices=DIE_CHOICES, help="Tested when harm goes past its HP."),
    Param("attack_die", "Attack die", "choice", "6", choices=DIE_CHOICES, help="Its weapon's damage die."),
    Param("wil_die", "WIL die (morale)", "choice", "6", choices=DIE_CHOICES, help="Its side of a morale contest."),
    Param("role", "Role", "choice", "group", choices=ROLES, help="Which morale triggers it can set off."),
)
NPC_ROLLS = MappingProxyType({"attack": "Attack", "critical": "Critical harm test"})
_MORALE = "ask the character who did it for Enemy morale (a WIL contest against its WIL d{die})"


def npc_damage(
    stats: Mapping[str, Any],
    start: Mapping[str, Any],
    amount: int,
    ignore_armour: bool = False,
    rng: RandomSource | None = None,
) -> NpcHarm:
    """Seed 001, Attacks and Armor: the harm typed (the attack die, +1 per extra attacker) less armour, taken
    once from the whole harm (spec §001.6 [REC]), goes first to HP; what is left is critical harm, which calls
    for a STR test (Harm and Death): rolled then and there with ``rng`` (a failure takes it out: defeated), else
    left to the GM's "Critical harm test" (``npc_roll``). Seed 001, Morale, in this revision:
    a lone enemy's HP reaching zero (spec §001.11.9 [REC]: at that moment); a leader or the first of a group
    defeated; their force down by half (a detachment at half its HP; across separate NPCs, the GM's call)."""
    armour = 0 if ignore_armour else int(stats["armour"])
    dealt = max(0, amount - armour)
    before = int(stats["hp"])
    left = max(0, before - dealt)
    critical = dealt - (before - left)
    words = [f"{dealt} harm" + (f" after armour {armour}." if armour else ".")]
    morale = False
    if before > 0 and left == 0 and stats["role"] == "lone":
        morale = True
        words.append(f"A lone enemy's HP reached zero: {_MORALE.format(die=stats['wil_die'])}.")
    full = int(start.get("hp", before))
    if stats["role"] == "detachment" and left * 2 <= full < before * 2:
        morale = True
        words.append(f"Their force is down by half: {_MORALE.format(die=stats['wil_die'])}.")
    after: dict[str, Any] = {**stats, "hp": left}
    rolls: tuple[RollResult, ...] = ()
    defeated = False
    who = "their leader" if stats["role"] == "leader" else "the first of them to fall"
    if critical and rng is not None:
        test = npc_roll("critical", stats, rng)
        rolls = (test,)
        words.append(f"{critical} critical harm. {test.summary}")
        if test.outcome != "holds":
            defeated = True
            after = {**(test.state or stats), "hp": left}  # taken out: its STR die a step lower
            if stats["role"] in ("group", "leader"):
                morale = True
                words.append(f"If it is {who}, {_MORALE.format(die=stats['wil_die'])}.")
    elif critical:
        words.append(
            f"{critical} critical harm: roll its Critical harm test (STR d{stats['str_die']}, DN {DN_DEFAULT}); "
            "a failure takes it out of the fight."
        )
        if stats["role"] in ("group", "leader"):
            morale = True
            words.append(f"If it is taken out and is {who}, {_MORALE.format(die=stats['wil_die'])}.")
    elif left == 0 and before > 0:
        words.append("At 0 HP: the next harm is critical.")
    return NpcHarm(after, dealt, defeated=defeated, morale=morale, words=" ".join(words), rolls=rolls)


def _uniform(sides: int) -> Odds:
    return Odds(tuple((str(face), Fraction(1, sides)) for face in range(1, sides + 1)), success_keys=())


def npc_roll(key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
    """Seed 001, Attacks: attacks always land; roll the attack die (the target's sheet takes its armour off
    and adds +1 per extra attacker). Seed 001, Detachments: a detachment's attacks have ADV and blast.
    Seed 001, Harm and Death: critical harm is a STR test at DN 4 (spec §001.11.7 [REC]); a failure lowers
    STR a step and takes it out, below d4 it is dead."""
    if key == "attack":
        sides = int(stats["attack_die"])
        if stats["role"] != "detachment":
            die = roll_die(rng, sides, "attack")
            words = f"Attack die d{sides} = {die.face}: that much harm before the target's armour."
            return RollResult("attack", "Attack", str(die.face), words, (die,), die.face, _uniform(sides))
        pool, how = adv_dis_pool(sides, 1)
        dice, kept = roll_pool(rng, pool, how, ["attack"] * len(pool))
        odds = Odds(tuple((str(v), p) for v, p in sorted(pool_dist(pool, how).items())), success_keys=())
        words = (
            f"A detachment attacks with ADV: d{sides} twice, keeping {kept}, that much harm before armour. It has "
            "blast: roll separately for each target close together."
        )
        return RollResult("attack", "Attack", str(kept), words, dice, kept, odds)
    if key == "critical":
        sides = int(stats["str_die"])
        lower = step(sides, -1)
        fail_key = "taken_out" if lower is not None else "dead"
        passed = Fraction(max(0, sides - DN_DEFAULT + 1), sides)
        odds = Odds((("holds", passed), (fail_key, 1 - passed)), success_keys=("holds",))
        die = roll_die(rng, sides, "STR")
        words = f"Critical harm: STR d{sides} = {die.face} against DN {DN_DEFAULT}, "
        outcome = "holds" if die.face >= DN_DEFAULT else fail_key
        if outcome == "holds":
            words += "passed: it fights on."
        elif lower is None:
            words += "failed: STR falls below d4. It is dead."
        else:
            words += f"failed: STR drops to d{lower}; taken out of the fight, dying without treatment."
        details = {"str_die": lower if outcome == "taken_out" else sides, "defeated": outcome != "holds"}
        after = {**stats, "str_die": str(lower)} if outcome == "taken_out" else None
        return RollResult(
            key, "Critical harm test", outcome, words, (die,), die.face, odds, state=after, details=details
        )
    raise RulesError(f"Fell (late revision) has no NPC roll called {key!r}.")


def npc_attack_harm(result: RollResult, sheet: Sheet) -> AttackHarm | None:
    """Seed 001, Attacks: attacks always land; the attack die is the harm before the target's armour."""
    if result.procedure != "attack" or result.total is None:
        return None
    return AttackHarm(True, result.total, f"hit, {result.total} harm", {"amount": result.total, "armour": True})


# --- a PC's attack on an NPC (seed 001, Attacks: the highest die, +1 per other attacker, minus armour) ----------

NPC_TARGETS = ("attack",)


def npc_target_params(procedure: str, stats: Mapping[str, Any]) -> Mapping[str, Any]:
    """Seed 001, Attacks and Armor: the harm is taken less the target's armour: the NPC's armour is the
    attack's "target's armour" (and no character is the target)."""
    return {"target_armour": int(stats["armour"]), "target": None}


def hits_on_npc(result: RollResult) -> tuple[NpcHit, ...]:
    """Seed 001, Attacks: the harm has the armour taken off already; what passes its HP is critical harm
    (``npc_damage``)."""
    if result.procedure != "attack" or result.total is None:
        return ()
    return (NpcHit(int(result.total), ignore_armour=True),)


# Seed 001, Turns and Rounds: PCs act first and as a group; a surprised side's DEX contest is for round 1 only.
ORDER = CombatOrder(
    ("The party acts, as a group", "The enemies act"), "The party acts first, as a group.", sides=(PARTY, ENEMIES)
)
FIRST_ROUND = CombatOrder(
    ORDER.steps,
    "The party acts first, as a group. Anyone surprised rolls a DEX contest to act this round.",
    sides=ORDER.sides,
)


def combat_order(round_number: int, rng: RandomSource | None = None) -> CombatOrder:
    return FIRST_ROUND if round_number == 1 else ORDER


# --- time: light, food, until-dawn drawbacks and the luck die ------------------------------------------------

EXPLORATION, TRAVEL, DAY = 10, 60, 24 * 60  # minutes (seed 001, Turns and Rounds; spec §001.9)
DAWN = 6 * 60  # the game clock starts at midnight; dawn is taken as 06:00 each day
TIME_UNITS = (
    TimeUnit("exploration", "Exploration round (10 minutes)", EXPLORATION),
    TimeUnit("travel", "Travel round (1 hour, 3 miles)", TRAVEL),
    TimeUnit("day", "Day", DAY),
)
# Spec §001.2, the price list and starting kit: a torch burns 1 hour, a lantern's oil 4 hours (then refill).
_LIFE = (("torch", 60), ("lantern", 240))
LIGHTS = Lights(
    life=lambda item: next((m for word, m in _LIFE if item.name.lower().startswith(word)), None),
    refills=lambda item: item.name.lower().startswith("lantern"),
)


@dataclass(frozen=True)
class LightOrPutOut(LightProcedure):
    """Spec §001.2 (seed 001's kit and price list): a player lights a torch or lantern, or puts it out; no roll.
    The table's clock burns it down."""

    lights: Lights = LIGHTS


def _minutes(unit: str) -> int:
    for known in TIME_UNITS:
        if known.key == unit:
            return known.minutes
    raise RulesError(f"Fell counts time in exploration rounds, travel rounds and days, not {unit!r}.")


def _eat(state: dict[str, Any], rations: list[Item], eaten: dict[int, int], words: list[str]) -> None:
    """One day's food (spec §001.2: rations are bought by the day). Unfed, the character is deprived; past
    the first day a fatigue level a day (seed 001, Deprivation and Fatigue), as the Deprivation roll counts."""
    for ration in rations:
        assert ration.id is not None
        if ration.quantity - eaten.get(ration.id, 0) > 0:
            eaten[ration.id] = eaten.get(ration.id, 0) + 1
            words.append(f"A day of {ration.name} eaten.")
            if state["deprived"]:
                state["deprived"], state["days_deprived"] = False, 0
                words.append("Fed again: no longer deprived (fatigue goes only with nights of rest).")
            return
    state["deprived"] = True
    state["days_deprived"] = min(1000, state["days_deprived"] + 1)
    if state["days_deprived"] > 1:
        state["fatigue"] = min(1000, state["fatigue"] + 1)
        words.append(f"No food, {state['days_deprived']} days deprived: fatigue {state['fatigue']}.")
    else:
        words.append("No food: deprived (no HP or attribute comes back).")


def _dawn(state: dict[str, Any], words: list[str]) -> None:
    """Seed 001, Spells: WIL impaired and spells locked by a hurried casting last until dawn."""
    if state["wil_impaired"] or state["locked_spells"] or any(d["until"] == "dawn" for d in state["drawbacks"]):
        words.append("Dawn: the drawbacks that lasted until dawn are over.")
    state["wil_impaired"] = False
    state["locked_spells"] = []
    state["drawbacks"] = [d for d in state["drawbacks"] if d["until"] != "dawn"]


def advance_time(
    sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
) -> RollResult:
    """Lit lights burn down; each new day eats a day's rations or deprives; each dawn ends until-dawn drawbacks."""
    minutes = _minutes(unit) * count
    burnt = burn(sheet.items, minutes, LIGHTS)
    changed: dict[int, Item] = {item.id: item for item in burnt.changed if item.id is not None}
    words = list(burnt.words)
    state = st(sheet)
    before = dict(state)
    days = boundaries(start_minutes, minutes, DAY)
    dawns = boundaries(start_minutes - DAWN, minutes, DAY)
    if not state["dead"]:
        rations = [i for i in sheet.items if i.kind == "ration" and i.id is not None]
        eaten: dict[int, int] = {}
        for _ in range(days):
            _eat(state, rations, eaten, words)
        for ration in rations:
            assert ration.id is not None
            if eaten.get(ration.id):
                changed[ration.id] = replace(ration, quantity=ration.quantity - eaten[ration.id])
        if dawns:
            _dawn(state, words)
    removed = (*burnt.removed, *(i for i, item in changed.items() if item.quantity <= 0))
    return RollResult(
        "time",
        "Time passes",
        "passed",
        " ".join(words),
        state=state if state != before else None,
        items_changed=tuple(item for item in changed.values() if item.quantity > 0),
        items_removed=removed,
    )


LUCK = LuckProcedure()


def time_checks(unit: str, count: int, start_minutes: int, rng: RandomSource) -> tuple[RollResult, ...]:
    """Seed 001, Luck (spec §001.5.10): the GM's luck die, a d6, at the start of each exploration and travel
    round; a day passed whole rolls none (the GM rolls for the rounds they play out)."""
    if unit not in ("exploration", "travel"):
        return ()
    return tuple(LUCK.roll(None, {"when": "round", "die": "6"}, rng) for _ in range(count))


def light_level(party: Sequence[Sheet]) -> Banner | None:
    """Whether anyone in the party carries a lit torch or lantern (the seed gives darkness no rule of its own)."""
    if not party:
        return None
    burning = [item.name for sheet in party for item in sheet.items if lit(item)]
    if burning:
        return Banner("lit", f"Light: {', '.join(burning[:3])}", "", "good")
    return Banner("dark", "No light", "Nobody in the party carries a lit torch or lantern.", "warning")


# --- the GM's "what if" on a group check (issue 40) ----------------------------------------------------------------

WHAT_IFS: Mapping[str, str] = MappingProxyType(
    {
        WHAT_IF_DARK: "In the dark",
        WHAT_IF_HARDER: "DN one higher",
        WHAT_IF_EASIER: "DN one lower",
        WHAT_IF_BOON: "An advantage for all",
        WHAT_IF_BANE: "A disadvantage for all",
    }
)
WHAT_IF_MOVES: Mapping[str, tuple[WhatIfMove, ...]] = MappingProxyType(
    {
        WHAT_IF_HARDER: (("dn", 1, DN_MIN, DN_MAX),),
        WHAT_IF_EASIER: (("dn", -1, DN_MIN, DN_MAX),),
        WHAT_IF_BOON: (("advantage", 1, 0, SHIFT_MAX),),
        WHAT_IF_BANE: (("disadvantage", 1, 0, SHIFT_MAX),),
    }
)


def what_if(condition: str, sheet: Sheet, params: Mapping[str, Any]) -> tuple[Sheet, dict[str, Any]] | None:
    """Seed 001, Tests: a test passes on a die meeting the DN, so a step harder is the DN one higher; an
    advantage or a disadvantage is one more die (they cancel one for one)."""
    return moved_what_if(condition, sheet, params, WHAT_IF_MOVES)


def npc_attack_outside(result: RollResult) -> AttackHarm | None:
    """Seed 001, Attacks: attacks always land; the attack die is the harm before the target's own armour."""
    if result.procedure != "attack" or result.total is None:
        return None
    return AttackHarm(True, result.total, f"hit, {result.total} harm")


def harm_from_outside(amount: int) -> dict[str, Any]:
    """Seed 001, Armor: harm from another system's blow comes in as any attack's, armour off, past HP critical."""
    return {"amount": amount, "armour": True}
