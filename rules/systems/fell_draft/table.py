"""Fell (draft) at the GM's table: NPCs in the encounter tracker, the order of a round, and what time does
to a sheet (light, food) and to the table (the luck die). Seed 000 (Combat; Morale; Time) and spec §000.6, §000.10.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
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
from rules.clock import Lights, boundaries, burn, lit
from rules.dice import LADDER, RandomSource, roll_die
from rules.errors import RulesError
from rules.systems.fell_draft.state import DN_MAX, DN_MIN, MAX_PROTECTION, SHIFT_MAX, _st

DIE_CHOICES = tuple((str(s), f"d{s}") for s in LADDER)
NPC_FIELDS: tuple[Param, ...] = (
    Param("hp", "HP", "int", 4, 0, 200),
    Param("protection", "Protection", "int", 0, 0, MAX_PROTECTION, help="Taken off each hit's harm."),
    Param("steel_die", "Steel die", "choice", "6", choices=DIE_CHOICES),
    Param("wil_die", "WIL or hit die", "choice", "6", choices=DIE_CHOICES, help="Its side of a morale contest."),
)
NPC_ROLLS = MappingProxyType({"attack": "Attack"})
# Seed 000, Combat: the PCs act first, as a group, then their foes.
ORDER = CombatOrder(
    ("The party acts, as a group", "The enemies act"), "The party acts first, as a group.", sides=(PARTY, ENEMIES)
)


def npc_damage(
    stats: Mapping[str, Any],
    start: Mapping[str, Any],
    amount: int,
    ignore_armour: bool = False,
    rng: RandomSource | None = None,
) -> NpcHarm:
    """Seed 000, Combat: harm = the steel die's roll − protection (at least 0). Seed 000, Morale: bringing a
    lone enemy to half its HP (or defeating one) calls for a morale check: the character who did it rolls a
    WIL contest against the enemy's die (spec §000.12.10 [REC]), then the morale table."""
    protection = 0 if ignore_armour else int(stats["protection"])
    dealt = max(0, amount - protection)
    before, full = int(stats["hp"]), int(start.get("hp", stats["hp"]))
    left = max(0, before - dealt)
    halved = left * 2 <= full < before * 2
    words = f"{dealt} harm" + (f" after protection {protection}" if protection else "") + "."
    if left <= 0 or halved:
        words += " Ask the character who did it for a Morale roll (a WIL contest against its die)."
    return NpcHarm({**stats, "hp": left}, dealt, defeated=left <= 0, morale=left <= 0 or halved, words=words)


def npc_roll(key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
    """Seed 000, Combat: an attack is a task with no test; roll the steel die (the target's protection comes
    off on their sheet)."""
    if key != "attack":
        raise RulesError(f"Fell has no NPC roll called {key!r}.")
    sides = int(stats["steel_die"])
    die = roll_die(rng, sides, "steel")
    odds = Odds(tuple((str(face), Fraction(1, sides)) for face in range(1, sides + 1)), success_keys=())
    return RollResult("attack", "Attack", str(die.face), f"Steel die d{sides} = {die.face}.", (die,), die.face, odds)


def npc_attack_harm(result: RollResult, sheet: Sheet) -> AttackHarm | None:
    """Seed 000, Combat: the steel die is the harm; the target's protection comes off (Take harm, "for a blow
    the GM rolled")."""
    if result.procedure != "attack" or result.total is None:
        return None
    return AttackHarm(True, result.total, f"hit, {result.total} harm", {"amount": result.total, "armour": True})


# --- a PC's attack on an NPC (seed 000, Combat: the highest steel die minus protection) -------------------------

NPC_TARGETS = ("attack",)


def npc_target_params(procedure: str, stats: Mapping[str, Any]) -> Mapping[str, Any]:
    """Seed 000, Combat: harm is the highest steel die less the target's protection: the NPC's protection is
    the attack's "NPC target's protection" (and no character is the target)."""
    return {"target_protection": int(stats["protection"]), "target": None}


def hits_on_npc(result: RollResult) -> tuple[NpcHit, ...]:
    """Seed 000, Combat: the harm has the protection taken off already; a blast's first target is the NPC."""
    harms = result.details.get("harm") or ()
    if result.procedure != "attack" or not harms:
        return ()
    return (NpcHit(int(harms[0]), ignore_armour=True),)


# --- time, light, food and the luck die (seed 000, Time; Deprivation and Fatigue; spec §000.8, §000.10) -------

EXPLORATION, TRAVEL, DAY = 10, 60, 24 * 60  # minutes
TIME_UNITS = (
    TimeUnit("exploration", "Exploration round (10 minutes)", EXPLORATION),
    TimeUnit("travel", "Travel round (1 hour, 3 miles)", TRAVEL),
    TimeUnit("day", "Day", DAY),
)
# Spec §000.8, the price list: a torch burns 1 hour, a lantern 3 hours (on its oil), a candle 6 hours.
_LIFE = (("torch", 60), ("lantern", 180), ("candle", 360))
LIGHTS = Lights(
    life=lambda item: next((m for word, m in _LIFE if item.name.lower().startswith(word)), None),
    refills=lambda item: item.name.lower().startswith("lantern"),
)
RATION_DAYS = 3  # "rations (three days)": one bundle feeds one person three days
LUCK_ODDS = Odds(tuple((str(face), Fraction(1, 6)) for face in range(1, 7)), success_keys=())


def _minutes(unit: str) -> int:
    for known in TIME_UNITS:
        if known.key == unit:
            return known.minutes
    raise RulesError(f"Fell counts time in exploration rounds, travel rounds and days, not {unit!r}.")


def advance_time(
    sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
) -> RollResult:
    """Lit lights burn down (spec §000.8); each new day eats a day of rations, and a day without them is a
    day deprived (seed 000, Deprivation and Fatigue: fatigue from the second full day, spec §000.7 [REC])."""
    minutes = _minutes(unit) * count
    burnt = burn(sheet.items, minutes, LIGHTS)
    changed: dict[int, Item] = {item.id: item for item in burnt.changed if item.id is not None}
    rations = [i for i in sheet.items if i.kind == "ration" and i.id is not None]
    words = list(burnt.words)
    state = _st(sheet)
    days = boundaries(start_minutes, minutes, DAY)
    for _ in range(days):
        left = [now for now in (changed.get(r.id or 0, r) for r in rations) if now.quantity > 0]
        if left:
            words.append(_eat(left[0], changed))
            if state["deprived"]:
                state["deprived"], state["days_deprived"] = False, 0
                words.append("Fed again: no longer deprived.")
        elif not state["deprived"]:
            state["deprived"], state["days_deprived"] = True, 0
            words.append("No rations: deprived (no recovery until fed).")
        else:
            state["days_deprived"] += 1
            if state["days_deprived"] > 1:
                state["fatigue"] += 1
            words.append(
                f"Another day unfed: {state['days_deprived']} full day(s) deprived, fatigue {state['fatigue']}."
            )
    eaten_up = tuple(i for i, item in changed.items() if item.quantity <= 0)
    return RollResult(
        "time",
        "Time passes",
        "passed",
        " ".join(words),
        state=state if days else None,
        items_changed=tuple(item for item in changed.values() if item.quantity > 0),
        items_removed=(*burnt.removed, *eaten_up),
    )


def _eat(ration: Item, changed: dict[int, Item]) -> str:
    """One day of a ration bundle eaten: a bundle feeds three days, then one fewer."""
    assert ration.id is not None
    eaten = int((ration.data or {}).get("eaten", 0)) + 1
    if eaten < RATION_DAYS:
        changed[ration.id] = replace(ration, data={**ration.data, "eaten": eaten})
        return f"A day of {ration.name} eaten."
    changed[ration.id] = replace(ration, quantity=ration.quantity - 1, data={**ration.data, "eaten": 0})
    if ration.quantity > 1:
        return f"A bundle of {ration.name} finished; {ration.quantity - 1} left."
    return f"The last of {ration.name} is eaten."


def time_checks(unit: str, count: int, start_minutes: int, rng: RandomSource) -> tuple[RollResult, ...]:
    """Spec §000.10: the luck die (d6) after each exploration or travel round; the GM reads it."""
    if unit not in ("exploration", "travel"):
        return ()
    out = []
    for _ in range(count):
        die = roll_die(rng, 6, "luck")
        out.append(
            RollResult("luck", "Luck die", str(die.face), f"Luck die d6 = {die.face}.", (die,), die.face, LUCK_ODDS)
        )
    return tuple(out)


def light_level(party: Sequence[Sheet]) -> Banner | None:
    """Whether anyone in the party carries a lit light source (the seed gives darkness no rule of its own)."""
    if not party:
        return None
    burning = [item.name for sheet in party for item in sheet.items if lit(item)]
    if burning:
        return Banner("lit", f"Light: {', '.join(burning[:3])}", "", "good")
    return Banner("dark", "No light", "Nobody in the party carries a lit torch, lantern or candle.", "warning")


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
    """Seed 000, Tasks and Tests: a test passes on a die meeting the DN, so a step harder is the DN one higher;
    an advantage or a disadvantage is one more (they cancel one for one)."""
    return moved_what_if(condition, sheet, params, WHAT_IF_MOVES)


def npc_attack_outside(result: RollResult) -> AttackHarm | None:
    """Seed 000, Combat: the steel die is the harm, whoever the target; one of another system takes its own
    protection off by its own rules."""
    if result.procedure != "attack" or result.total is None:
        return None
    return AttackHarm(True, result.total, f"hit, {result.total} harm")


def harm_from_outside(amount: int) -> dict[str, Any]:
    """Seed 000, Take harm: a blow another system's rules rolled comes in as one the GM rolled, protection off."""
    return {"amount": amount, "armour": True}
