"""Chaos & Conquest at the GM's table: group results of requested rolls, NPCs in the encounter tracker, the
order of a round, and what time does to a sheet (light, food) and to the table (encounter checks).

Seed 002 (Party Saves; Combat; Morale; Time; Light) and spec §002.4.6, §002.5, §002.7.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rules.base import (
    BOTH,
    ENEMIES,
    PARTY,
    WHAT_IF_BANE,
    WHAT_IF_BOON,
    WHAT_IF_DARK,
    AttackHarm,
    Banner,
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
from rules.clock import Lights, boundaries, burn, lit
from rules.dice import RandomSource, roll_dice, roll_die
from rules.errors import RulesError
from rules.systems.chaos_conquest.npcs import MORALE_DEFAULT, morale_odds
from rules.systems.chaos_conquest.state import MAGIC_AV_MAX, WEAPON_DICE
from rules.systems.chaos_conquest.travel import EncounterCheckProcedure

PASSED = ("pass",)


def group_result(procedure: str, outcomes: Sequence[str]) -> GroupResult | None:
    """Seed 002, Party Saves: everyone asked saves and the best result counts for the group (any success
    passes, spec §002.4.6 [REC]); the party's leader takes a stress for each member who failed."""
    if procedure != "save" or not outcomes:
        return None
    passed = sum(1 for outcome in outcomes if outcome in PASSED)
    failed = len(outcomes) - passed
    if passed:
        summary = f"The party passes: {passed} of {len(outcomes)} succeeded and the best result counts."
    else:
        summary = f"The party fails: none of the {len(outcomes)} succeeded."
    if failed:
        summary += f" As a party save, the leader takes {failed} stress (one for each member who failed)."
    return GroupResult("pass" if passed else "fail", summary)


# --- NPCs in the encounter tracker (seed 002, Combat; Morale) ----------------------------------------------

DIE_CHOICES = tuple((str(s), f"d{s}") for s in WEAPON_DICE)
NPC_FIELDS: tuple[Param, ...] = (
    Param("stamina", "Stamina", "int", 4, 0, 200),
    Param("av", "AV", "int", 0, 0, MAGIC_AV_MAX, help="Armour: taken off each hit's damage."),
    Param("damage", "Attack die", "choice", "6", choices=DIE_CHOICES),
    Param("ml", "Morale (ML)", "int", MORALE_DEFAULT, 2, 12),
)
NPC_ROLLS = MappingProxyType({"attack": "Attack", "morale": "Morale"})


def npc_damage(
    stats: Mapping[str, Any],
    start: Mapping[str, Any],
    amount: int,
    ignore_armour: bool = False,
    rng: RandomSource | None = None,
) -> NpcHarm:
    """Seed 002, Combat: damage = roll − AV (at least 0); a critical (``ignore_armour``) bypasses armour. Falling
    to 0 stamina defeats an NPC. Seed 002, Morale: a shock (one falling, or being brought to half) calls for a check."""
    av = 0 if ignore_armour else int(stats["av"])
    dealt = max(0, amount - av)
    before, full = int(stats["stamina"]), int(start.get("stamina", stats["stamina"]))
    left = max(0, before - dealt)
    halved = left * 2 <= full < before * 2
    words = f"{dealt} damage" + (f" after AV {av}" if av else " (armour bypassed)" if ignore_armour else "") + "."
    return NpcHarm({**stats, "stamina": left}, dealt, defeated=left <= 0, morale=left <= 0 or halved, words=words)


def npc_roll(key: str, stats: Mapping[str, Any], rng: RandomSource) -> RollResult:
    """Seed 002: an NPC's attack rolls its damage die (AV is taken off by the target's sheet); its morale is
    2d6 against ML, fleeing or parleying above it."""
    if key == "morale":
        ml = int(stats["ml"])
        dice = roll_dice(rng, 2, 6, "morale")
        total = sum(d.face for d in dice)
        flee = total > ml
        summary = f"Morale 2d6 = {total} against ML {ml}: " + ("they flee or parley." if flee else "they hold.")
        return RollResult("morale", "Morale", "flee" if flee else "hold", summary, dice, total, morale_odds(ml))
    if key == "attack":
        sides = int(stats["damage"])
        die = roll_die(rng, sides, "damage")
        crit = " A critical: it bypasses armour and the target's AV drops by 1 at the round's end." * (
            die.face == sides
        )
        summary = f"Damage d{sides} = {die.face}.{crit}"
        odds = Odds(
            (("hit", Fraction(sides - 1, sides)), ("critical", Fraction(1, sides))), success_keys=("hit", "critical")
        )
        return RollResult(
            "attack", "Attack", "critical" if die.face == sides else "hit", summary, (die,), die.face, odds
        )
    raise RulesError(f"Chaos & Conquest has no NPC roll called {key!r}.")


def npc_attack_harm(result: RollResult, sheet: Sheet) -> AttackHarm | None:
    """Seed 002: an NPC's attack always lands for its damage die; the target's Take damage takes AV off (a
    critical bypasses armour and lowers AV after the round)."""
    if result.procedure != "attack" or result.total is None:
        return None
    critical = result.outcome == "critical"
    words = f"{'a critical' if critical else 'hit'}, {result.total} damage"
    return AttackHarm(True, result.total, words, {"amount": result.total, "armour": True, "critical": critical})


# --- a PC's attack on an NPC (seed 002, Combat: "Attacks always hit"; damage = weapon die − AV) ----------------

NPC_TARGETS = ("attack",)


def npc_target_params(procedure: str, stats: Mapping[str, Any]) -> Mapping[str, Any]:
    """Seed 002, Combat: the attack's damage is the weapon die less the target's AV, so the NPC's AV is the
    attack's "Target's AV" (and no character is the target)."""
    return {"target_av": int(stats["av"]), "opponent": None}


def hits_on_npc(result: RollResult) -> tuple[NpcHit, ...]:
    """Seed 002, Combat: an attack always hits; its damage has the AV taken off already (a critical passed it
    by), so it lands as it is. A blast's first target is the NPC picked."""
    hits = result.details.get("hits") or ()
    if result.procedure != "attack" or not hits:
        return ()
    return (NpcHit(int(hits[0]["damage"]), ignore_armour=True),)


def combat_order(round_number: int, rng: RandomSource) -> CombatOrder:
    """Seed 002, Combat: each round a d6 for each side; higher acts first, a tie acts at once."""
    party, enemies = roll_die(rng, 6, "party"), roll_die(rng, 6, "enemies")
    sides: tuple[str, ...]
    if party.face == enemies.face:
        steps: tuple[str, ...] = ("Both sides act at once: all damage lands before anyone falls",)
        words, sides = "both sides act at once", (BOTH,)
    elif party.face > enemies.face:
        steps, words, sides = ("The party acts", "The enemies act"), "the party acts first", (PARTY, ENEMIES)
    else:
        steps, words, sides = ("The enemies act", "The party acts"), "the enemies act first", (ENEMIES, PARTY)
    return CombatOrder(
        steps, f"Round {round_number}: party {party.face}, enemies {enemies.face}: {words}.", (party, enemies), sides
    )


# --- time, light and encounter checks (seed 002, Time; equipment.md, Light; spec §002.7) ---------------------

TURN, WATCH = 10, 240  # minutes
TIME_UNITS = (TimeUnit("turn", "Turn (10 minutes)", TURN), TimeUnit("watch", "Watch (4 hours)", WATCH))
LIGHTS = Lights(
    life=lambda item: int((item.data or {}).get("turns", 0)) * TURN or None,
    refills=lambda item: bool((item.data or {}).get("needs_oil")),
)


def advance_time(
    sheet: Sheet, unit: str, count: int, start_minutes: int, rng: RandomSource, start_seconds: int = 0
) -> RollResult:
    """Equipment.md, Light: a torch burns 6 turns, a lantern 24 on its oil; each lit one burns down."""
    minutes = _minutes(unit) * count
    burnt = burn(sheet.items, minutes, LIGHTS)
    return RollResult(
        "time",
        "Time passes",
        "passed",
        " ".join(burnt.words),
        items_changed=burnt.changed,
        items_removed=burnt.removed,
    )


def _minutes(unit: str) -> int:
    for known in TIME_UNITS:
        if known.key == unit:
            return known.minutes
    raise RulesError(f"Chaos & Conquest counts time in turns and watches, not {unit!r}.")


def time_checks(unit: str, count: int, start_minutes: int, rng: RandomSource) -> tuple[RollResult, ...]:
    """Seed 002, Time: every two turns, and every two watches, the GM rolls a d6: on a 1 an encounter occurs."""
    minutes = _minutes(unit) * count
    every = 2 * TURN if unit == "turn" else 2 * WATCH
    checks = boundaries(start_minutes, minutes, every)
    return tuple(EncounterCheckProcedure().roll(None, {}, rng) for _ in range(checks))


def light_level(party: Sequence[Sheet]) -> Banner | None:
    """Equipment.md, Light: the party's light points against its size. At least one each: bright (advantage
    on surprise, but the party cannot surprise); more than half: dim (ranged attacks impaired); less:
    darkness (every attack impaired, saves at disadvantage, the party is always surprised)."""
    if not party:
        return None
    points = sum(int((item.data or {}).get("lp", 0)) for sheet in party for item in sheet.items if lit(item))
    size = len(party)
    if points >= size:
        return Banner(
            "bright",
            f"Bright light ({points} LP for {size})",
            "Advantage against surprise, but the party cannot surprise anyone.",
            "good",
        )
    if points * 2 > size:
        return Banner(
            "dim",
            f"Dim light ({points} LP for {size})",
            "Ranged attacks are impaired (roll twice, keep the lower; the sheets apply it).",
            "warning",
        )
    return Banner(
        "darkness",
        f"Darkness ({points} LP for {size})",
        "Every attack is impaired and every save is at disadvantage (the sheets apply both), and the party is "
        "always surprised.",
        "bad",
    )


# --- the GM's "what if" on a group check (issue 40) ----------------------------------------------------------------

WHAT_IFS: Mapping[str, str] = MappingProxyType(
    {WHAT_IF_DARK: "In the dark", WHAT_IF_BOON: "Advantage for all", WHAT_IF_BANE: "Disadvantage for all"}
)
WHAT_IF_MOVES: Mapping[str, tuple[WhatIfMove, ...]] = MappingProxyType(
    {WHAT_IF_BOON: (("advantage", True, 0, 1),), WHAT_IF_BANE: (("disadvantage", True, 0, 1),)}
)


def what_if(condition: str, sheet: Sheet, params: Mapping[str, Any]) -> tuple[Sheet, dict[str, Any]] | None:
    """Seed 002, Saves: a save has no difficulty to step (it is rolled under the attribute); advantage and
    disadvantage are 2d20 keeping the best or the worst, and darkness puts saves at disadvantage (Light)."""
    return moved_what_if(condition, sheet, params, WHAT_IF_MOVES)


def npc_attack_outside(result: RollResult) -> AttackHarm | None:
    """Seed 002: an NPC's attack always lands for its damage die; a target of another system takes its own
    armour off by its own rules (a critical's bypass is C&C's AV, which that sheet does not have)."""
    if result.procedure != "attack" or result.total is None:
        return None
    critical = result.outcome == "critical"
    return AttackHarm(True, result.total, f"{'a critical' if critical else 'hit'}, {result.total} damage")


def harm_from_outside(amount: int) -> dict[str, Any]:
    """Seed 002, Take damage: another system's blow comes in as an ordinary hit: AV off, no critical."""
    return {"amount": amount, "armour": True, "critical": False}
